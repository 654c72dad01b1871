// fathom-lustre-sim — mount, unmount and inspect emulated Lustre file systems.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "fathom/config.h"
#include "lustre_sim/cli/commands.h"

namespace fathom::lustre_sim::cli {

void PrintError(const char* command, const std::string& message) {
  fprintf(stderr, "fathom-lustre-sim %s: %s\n", command, message.c_str());
}

}  // namespace fathom::lustre_sim::cli

int main(int argc, char** argv) {
  namespace cli = fathom::lustre_sim::cli;
  CLI::App app{
      "fathom-lustre-sim emulates a Lustre file system with N MDTs: a FUSE mount over a local "
      "directory with FIDs, per-MDT changelogs and fid2path, read by lfs, lctl and the "
      "liblustreapi-compatible library (build/lustre/)."};
  app.set_version_flag("--version", std::string("fathom-lustre-sim ") + FATHOM_VERSION);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, cli::CommandRunner>> commands;
  auto add = [&](cli::CommandRunner (*adder)(CLI::App&)) {
    size_t before = app.get_subcommands({}).size();
    auto runner = adder(app);
    commands.emplace_back(app.get_subcommands({}).at(before), std::move(runner));
  };
  add(&cli::AddMountCommand);
  add(&cli::AddUmountCommand);
  add(&cli::AddFastCommand);
  add(&cli::AddStatusCommand);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? cli::kExitOk : cli::kExitUsage;
  }
  for (auto& [sub, run] : commands) {
    if (sub->parsed()) return run();
  }
  return cli::kExitUsage;
}
