// lctl — Lustre's control command, for fathom-lustre-sim file systems (changelog users,
// changelog masks, jobid_var).
#include <cstdio>
#include <cstring>
#include <vector>

#include "lustre_sim/tools/lctl_commands.h"
#include "lustre_sim/tools/lfs_commands.h"
#include "lustre_sim/tools/tool_target.h"
#include "lustre_sim/tools/tool_version.h"

namespace {

constexpr const char* kRegisterHelp =
    "register a new persistent changelog user, returns id\n"
    "usage: {--device MDTNAME} changelog_register [--help|-h] [--mask|-m MASK]\n"
    "       [--nameonly|-n]";
constexpr const char* kDeregisterHelp =
    "deregister an existing changelog user\n"
    "usage: {--device MDTNAME} changelog_deregister [ID|clID] [--help|-h]";
constexpr const char* kGetParamHelp =
    "get the Lustre or LNET parameter\n"
    "usage: get_param [--no-name|-n] PARAM_NAME1 [PARAM_NAME2 ...]";
constexpr const char* kSetParamHelp =
    "set the Lustre or LNET parameter\n"
    "usage: set_param [--no-name|-n] PARAM1=VALUE1 [PARAM2=VALUE2 ...]";

int Finish(int rc, const char* help) {
  if (rc == fathom::lustre_sim::tools::kCmdHelp) {
    fprintf(stdout, "%s\n", help);
    fflush(stdout);
  }
  return rc < 0 ? -rc : rc;
}

}  // namespace

int main(int argc, char** argv) {
  namespace tools = fathom::lustre_sim::tools;
  setlinebuf(stdout);
  if (argc >= 2 && std::strcmp(argv[1], "--version") == 0) return tools::PrintVersion("lctl");
  const char* device = nullptr;
  int first = 1;
  if (argc >= 2 && std::strcmp(argv[1], "--device") == 0) {
    if (argc < 4) {
      fprintf(stdout, "run <command> after connecting to device <devno>\n"
                      "--device <devno> <command [args ...]>\n");
      return tools::kCmdHelp;
    }
    device = argv[2];
    auto target = tools::OpenTarget(device);
    if (!target.ok() || target->mdt < 0) {
      fprintf(stderr, "No device found for name %s: %s\n", device, strerror(ENODEV));
      return 1;
    }
    first = 3;
  }
  if (argc <= first) {
    fprintf(stdout, "usage: lctl [--device DEVICE] COMMAND [ARGS...]\n"
                    "commands: changelog_register changelog_deregister get_param set_param\n"
                    "          pool_new pool_add pool_remove pool_destroy pool_list\n");
    return 0;
  }
  const char* cmd = argv[first];
  int sub_argc = argc - first;
  char** sub_argv = argv + first;
  if (std::strcmp(cmd, "changelog_register") == 0) {
    if (device == nullptr) return Finish(tools::kCmdHelp, kRegisterHelp);
    return Finish(tools::LctlChangelogRegister(device, sub_argc, sub_argv), kRegisterHelp);
  }
  if (std::strcmp(cmd, "changelog_deregister") == 0) {
    if (device == nullptr) return Finish(tools::kCmdHelp, kDeregisterHelp);
    return Finish(tools::LctlChangelogDeregister(device, sub_argc, sub_argv), kDeregisterHelp);
  }
  if (std::strcmp(cmd, "get_param") == 0) return Finish(tools::LctlGetParam(sub_argc, sub_argv), kGetParamHelp);
  if (std::strcmp(cmd, "set_param") == 0) return Finish(tools::LctlSetParam(sub_argc, sub_argv), kSetParamHelp);
  static const struct {
    const char* name;
    int (*run)(int, char**);
    const char* help;
  } kPoolCommands[] = {
      {"pool_new", tools::LctlPoolNew, "add a new pool\nusage: pool_new [--nowait|-n] <fsname>.<poolname>"},
      {"pool_add", tools::LctlPoolAdd,
       "add the named OSTs to the pool\nusage: pool_add [--nowait|-n] <fsname>.<poolname> <ostname indexed list>"},
      {"pool_remove", tools::LctlPoolRemove,
       "remove the named OST from the pool\nusage: pool_remove [--nowait|-n] <fsname>.<poolname> <ostname indexed list>"},
      {"pool_destroy", tools::LctlPoolDestroy,
       "destroy a pool\nusage: pool_destroy [--nowait|-n] <fsname>.<poolname>"},
      {"pool_list", tools::LctlPoolList,
       "list pools and pools members\nusage: pool_list  <fsname>[.<poolname>] | <pathname>"},
  };
  for (const auto& pool : kPoolCommands) {
    if (std::strcmp(cmd, pool.name) != 0) continue;
    // --nowait/-n: there is no configuration log to wait for here.
    std::vector<char*> args(sub_argv, sub_argv + sub_argc);
    std::erase_if(args, [](char* a) { return std::strcmp(a, "-n") == 0 || std::strcmp(a, "--nowait") == 0; });
    return Finish(pool.run(static_cast<int>(args.size()), args.data()), pool.help);
  }
  fprintf(stderr, "lctl: '%s' is not a valid command. See 'lctl --list-commands'.\n", cmd);
  return 1;
}
