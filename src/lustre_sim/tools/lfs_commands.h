// lfs_commands.h — the lfs subcommands the shim implements, each with Lustre's syntax,
// output, messages and exit status (the command's negative errno, or CMD_HELP = 4 after
// printing the usage). argv[0] is the subcommand name, as Lustre's parser passes it.
#pragma once

namespace fathom::lustre_sim::tools {

inline constexpr int kCmdHelp = 4;

int LfsChangelog(int argc, char** argv);
int LfsChangelogClear(int argc, char** argv);
int LfsFid2path(int argc, char** argv);
int LfsPath2fid(int argc, char** argv);
int LfsMkdir(int argc, char** argv);
int LfsGetdirstripe(int argc, char** argv);
int LfsGetstripe(int argc, char** argv);
int LfsSetstripe(int argc, char** argv);

}  // namespace fathom::lustre_sim::tools
