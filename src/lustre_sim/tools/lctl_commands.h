// lctl_commands.h — the lctl subcommands the shim implements, with Lustre's syntax,
// output, messages and exit status (negative errno, or CMD_HELP = 4 after the usage).
// `device` is the --device argument (nullptr when none was given).
#pragma once

namespace fathom::lustre_sim::tools {

int LctlChangelogRegister(const char* device, int argc, char** argv);
int LctlChangelogDeregister(const char* device, int argc, char** argv);
int LctlGetParam(int argc, char** argv);
int LctlSetParam(int argc, char** argv);
// argv[0] is the command name, argv[1] FSNAME.POOL (pool_list: FSNAME[.POOL]).
int LctlPoolNew(int argc, char** argv);
int LctlPoolAdd(int argc, char** argv);
int LctlPoolRemove(int argc, char** argv);
int LctlPoolDestroy(int argc, char** argv);
int LctlPoolList(int argc, char** argv);

}  // namespace fathom::lustre_sim::tools
