// `fathom-lustre-sim fast`: set up a fast-mode file system (changelogs generated at memory
// speed by the liblustreapi-compatible library, nothing mounted).
#include <filesystem>
#include <memory>
#include <string>

#include "lustre_sim/api/fast_mode.h"
#include "lustre_sim/cli/commands.h"

namespace fathom::lustre_sim::cli {

CommandRunner AddFastCommand(CLI::App& app) {
  auto config = std::make_shared<FastModeConfig>();
  CLI::App* sub = app.add_subcommand(
      "fast",
      "Set up FSNAME in fast mode: nothing is mounted; build/lustre/liblustreapi.so generates each "
      "MDT's changelog on the fly for throughput benchmarks. lctl and lfs changelog_clear work as "
      "in FUSE mode. Tear it down with `fathom-lustre-sim umount FSNAME`.");
  sub->add_option("--fsname", config->fsname, "File system name (1-8 characters [A-Za-z0-9_])")->required();
  sub->add_option("--mdts", config->mdts, "Number of MDTs (1-16)")->check(CLI::Range(1, 16))->default_val(1);
  sub->add_option("--state", config->state_dir, "State directory (created if missing)")->required();
  sub->add_option("--records", config->records, "Records per MDT (0: unlimited)")->default_val(0);
  sub->add_option("--mount", config->mount,
                  "A path that stands for the client mount point (nothing is mounted there): "
                  "llapi_search_fsname and llapi_path2fid answer for it as for a mount");
  sub->add_option("--rate", config->rate,
                  "Records per second per MDT (0: unlimited). Record i of an MDT becomes readable "
                  "i/RATE seconds after setup and is stamped with that time")
      ->check(CLI::Range(uint64_t{0}, kMaxFastRate))
      ->default_val(0);
  return [config]() {
    std::error_code ec;
    config->state_dir = std::filesystem::absolute(config->state_dir, ec).lexically_normal().string();
    Status st = SetupFastMode(*config);
    if (!st.ok()) {
      PrintError("fast", st.message());
      return kExitFailure;
    }
    return kExitOk;
  };
}

}  // namespace fathom::lustre_sim::cli
