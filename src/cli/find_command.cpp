// `fathom find` — GNU find's expressions answered from the catalog (src/catalog/find/,
// docs/catalog-find.md), by a `fathom catalog serve` of the catalog when one listens: no
// file-system access except for -delete/-exec, which check the live entry first.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <iostream>
#include <string_view>
#include <vector>
#include <memory>
#include <optional>

#include "catalog/find/find.h"
#include "catalog/serve/query_client.h"
#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"

namespace fathom::cli {
namespace {

struct FindArgs {
  std::string catalog;
  std::string as_user;
  std::string config;
  std::string server;
  bool no_server = false;
};

// find's own command line (starting points and expression), taken off before parsing.
std::vector<std::string>& FindExpression() {
  static std::vector<std::string> expression;
  return expression;
}

// The answer of a `fathom catalog serve` of the catalog (the socket given, else the default
// one when it exists): its exit status, or nullopt for find to answer itself.
Result<std::optional<int>> AskServer(const FindArgs& a) {
  if (a.no_server || !a.config.empty()) return std::optional<int>();
  const std::string socket = a.server.empty() ? catalog::serve::DefaultSocketPath(a.catalog) : a.server;
  if (socket.empty() || (a.server.empty() && ::access(socket.c_str(), F_OK) != 0)) return std::optional<int>();
  auto identity = catalog::serve::CatalogIdentity(a.catalog);
  if (!identity.ok()) return std::optional<int>();  // find's own opening says what is wrong
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return std::optional<int>();
  std::string why;
  auto answered = catalog::serve::AskQueryServer(socket, {"find", *identity, cwd, a.as_user, FindExpression()}, &why);
  if (answered.ok() && !answered->has_value()) spdlog::debug("find: answered here: {}", why);
  return answered;
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
    if ((arg == "--catalog" || arg == "--as-user" || arg == "--config" || arg == "--server") && j + 1 < argc) {
      j += 2;
    } else if (arg.starts_with("--catalog=") || arg.starts_with("--as-user=") || arg.starts_with("--config=") ||
               arg.starts_with("--server=") || arg == "--no-server" || arg == "-h" || arg == "--help") {
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
      "USER] [--config FILE] [--server SOCKET | --no-server] [PATH...] [EXPRESSION]");
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
      "  fathom find --config policies.yaml /scratch -class scratch_tmp -ls\n"
      "A `fathom catalog serve` of the catalog answers when it listens (see its --help).");
  AddCatalogOption(*cmd, args->catalog);
  AddAsUserOption(*cmd, args->as_user);
  cmd->add_option("--config", args->config, "The policy configuration whose file classes -class names")
      ->type_name("FILE.yaml");
  cmd->add_option("--server", args->server,
                  "The socket of a `fathom catalog serve` to ask (default: the SQLite catalog's file "
                  "name + .sock, when it exists)")
      ->envname("FATHOM_CATALOG_SERVER")
      ->type_name("SOCKET");
  cmd->add_flag("--no-server", args->no_server, "Answer here, even when a catalog server listens");
  return [args] {
    std::cout.flush();
    auto served = AskServer(*args);
    if (!served.ok()) return Fail("find", served.status().message(), kExitFailure);
    if (served->has_value()) return **served;
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
