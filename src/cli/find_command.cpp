// `fathom find` — GNU find's expressions answered from the catalog (src/catalog/find/,
// docs/catalog-find.md): no file-system access except for -delete/-exec, which check the live
// entry first.
#include <iostream>
#include <string_view>
#include <vector>
#include <memory>
#include <optional>

#include "catalog/find/find.h"
#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"

namespace fathom::cli {
namespace {

struct FindArgs {
  std::string catalog;
  std::string as_user;
  std::string config;
};

// find's own command line (starting points and expression), taken off before parsing.
std::vector<std::string>& FindExpression() {
  static std::vector<std::string> expression;
  return expression;
}

}  // namespace

int SplitFindArguments(int argc, char** argv) {
  int i = 1;
  while (i < argc && argv[i][0] == '-') {  // fathom's own options (-v, --log-level LEVEL)
    i += std::string_view(argv[i]) == "--log-level" ? 2 : 1;
  }
  if (i >= argc || std::string_view(argv[i]) != "find") return argc;
  int j = i + 1;
  while (j < argc) {
    const std::string_view arg = argv[j];
    if ((arg == "--catalog" || arg == "--as-user" || arg == "--config") && j + 1 < argc) {
      j += 2;
    } else if (arg.starts_with("--catalog=") || arg.starts_with("--as-user=") || arg.starts_with("--config=") ||
               arg == "-h" ||
               arg == "--help") {
      ++j;
    } else {
      break;
    }
  }
  FindExpression().assign(argv + j, argv + argc);
  return j;
}

CommandRunner AddFindCommand(CLI::App& app) {
  auto args = std::make_shared<FindArgs>();
  CLI::App* cmd = app.add_subcommand(
      "find",
      "Search the catalog with GNU find's expressions: fathom find [--catalog URI] [--as-user "
      "USER] [--config FILE] [PATH...] [EXPRESSION]");
  cmd->footer(
      "\nEXPRESSION is GNU find's: tests (-name -iname -path -regex -type -user -group -uid "
      "-gid -nouser -nogroup -size -empty -links -inum -perm -newer -newerXY -mtime -atime "
      "-ctime -mmin -amin -cmin -samefile -lname ...), operators (! -not -a -o ( ) ,), "
      "actions (-print -print0 -printf -ls -fprint -delete -exec ...), and -maxdepth, "
      "-mindepth, -depth, -daystart; extras -count, -sort FIELD, -rsort FIELD, -limit N, and "
      "Lustre's -fid -ost -pool -mdt, and -class NAME (a file class of --config FILE).\n\nExamples:\n"
      "  fathom find --catalog cat.db /srv/data -size +1G -user alice\n"
      "  fathom find /srv/data -name '*.h5' -mtime -7 -printf '%s %p\\n'\n"
      "  fathom find /srv/data -type f -count\n"
      "  fathom find --config policies.yaml /scratch -class scratch_tmp -ls");
  AddCatalogOption(*cmd, args->catalog);
  AddAsUserOption(*cmd, args->as_user);
  cmd->add_option("--config", args->config, "The policy configuration whose file classes -class names")
      ->type_name("FILE.yaml");
  return [args] {
    std::optional<policy::PolicyConfig> config;
    if (!args->config.empty()) {
      auto loaded = policy::LoadPolicyConfig(args->config);
      if (!loaded.ok()) return Fail("find", loaded.status().message(), kExitUsage);
      config = std::move(loaded).value();
    }
    auto catalog = OpenCatalogForQueries(args->catalog, args->as_user);
    if (!catalog.ok()) return Fail("find", catalog.status().message(), kExitFailure);
    catalog::find::RunOptions options;
    if (config) options.config = &*config;
    const int rc = catalog::find::RunFind(FindExpression(), *catalog.value(), std::cout, std::cerr, options);
    std::cout.flush();
    return rc;
  };
}

}  // namespace fathom::cli
