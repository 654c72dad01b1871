// `fathom find` — GNU find's expressions answered from the catalog (src/catalog/find/,
// docs/catalog-find.md): no file-system access except for -delete/-exec, which check the live
// entry first.
#include <iostream>
#include <memory>

#include "catalog/find/find.h"
#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"

namespace fathom::cli {
namespace {

struct FindArgs {
  std::string catalog;
};

}  // namespace

CommandRunner AddFindCommand(CLI::App& app) {
  auto args = std::make_shared<FindArgs>();
  CLI::App* cmd = app.add_subcommand(
      "find",
      "Search the catalog with GNU find's expressions: fathom find [--catalog URI] [PATH...] "
      "[EXPRESSION]");
  cmd->prefix_command();  // everything after the options is find's own command line
  cmd->footer(
      "\nEXPRESSION is GNU find's: tests (-name -iname -path -regex -type -user -group -uid "
      "-gid -nouser -nogroup -size -empty -links -inum -perm -newer -newerXY -mtime -atime "
      "-ctime -mmin -amin -cmin -samefile -lname ...), operators (! -not -a -o ( ) ,), "
      "actions (-print -print0 -printf -ls -fprint -delete -exec ...), and -maxdepth, "
      "-mindepth, -depth, -daystart; extras -count, -sort FIELD, -rsort FIELD, -limit N, and "
      "Lustre's -fid -ost -pool -mdt.\n\nExamples:\n"
      "  fathom find --catalog cat.db /srv/data -size +1G -user alice\n"
      "  fathom find /srv/data -name '*.h5' -mtime -7 -printf '%s %p\\n'\n"
      "  fathom find /srv/data -type f -count");
  AddCatalogOption(*cmd, args->catalog);
  return [args, cmd] {
    auto catalog = OpenCatalog(args->catalog, /*read_only=*/true);
    if (!catalog.ok()) return Fail("find", catalog.status().message(), kExitFailure);
    const int rc = catalog::find::RunFind(cmd->remaining(), *catalog.value(), std::cout, std::cerr);
    std::cout.flush();
    return rc;
  };
}

}  // namespace fathom::cli
