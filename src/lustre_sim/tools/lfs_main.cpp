// lfs — Lustre's user command, for fathom-lustre-sim file systems (the subset fathom uses).
#include <cstdio>
#include <cstring>

#include "lustre_sim/tools/lfs_commands.h"
#include "lustre_sim/tools/tool_version.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**);
  const char* help;
};

const Command kCommands[] = {
    {"changelog", fathom::lustre_sim::tools::LfsChangelog,
     "Show the metadata changes on an MDT.\n"
     "usage: changelog [--follow] [--user USERNAME] [--mask MASK] <mdtname> [startrec [endrec]]"},
    {"changelog_clear", fathom::lustre_sim::tools::LfsChangelogClear,
     "Indicate that old changelog records up to <endrec> are no longer of interest to consumer <id>, "
     "allowing the system to free up space.\n"
     "An <endrec> of 0 means all records.\n"
     "usage: changelog_clear <mdtname> <id> <endrec>"},
    {"fid2path", fathom::lustre_sim::tools::LfsFid2path,
     "Resolve the full path(s) for given FID(s). For a specific hardlink specify link number <linkno>.\n"
     "usage: fid2path [--print0|-0] [--print-fid|-f] [--print-link|-c] [--link|-l <linkno>] [--name|-n] "
     "<fsname|root> <fid>..."},
    {"path2fid", fathom::lustre_sim::tools::LfsPath2fid,
     "Display the fid(s) for a given path(s).\nusage: path2fid [--parents] <path> ..."},
    {"mkdir", fathom::lustre_sim::tools::LfsMkdir,
     "Create striped directory on specified MDT, same as setdirstripe.\n"
     "usage: mkdir [--mdt-index|-i MDT_INDEX] [--mode|-o MODE] <directory>"},
    {"setdirstripe", fathom::lustre_sim::tools::LfsMkdir,
     "Create striped directory on specified MDT.\n"
     "usage: setdirstripe [--mdt-index|-i MDT_INDEX] [--mode|-o MODE] <directory>"},
    {"getdirstripe", fathom::lustre_sim::tools::LfsGetdirstripe,
     "To list the layout pattern info for a given directory.\nusage: getdirstripe [--mdt-index|-m|-i] <dir> ..."},
    {"setstripe", fathom::lustre_sim::tools::LfsSetstripe,
     "To create a file with specified striping/composite layout, or\n"
     "set the default layout on an existing directory.\n"
     "usage: setstripe [--stripe-count|-c STRIPE_COUNT] [--stripe-index|-i START_OST_IDX]\n"
     "                 [--stripe-size|-S STRIPE_SIZE] [--pool|-p POOL_NAME] FILENAME|DIRECTORY\n"
     "       setstripe -d DIRECTORY"},
    {"getstripe", fathom::lustre_sim::tools::LfsGetstripe,
     "To list the layout pattern for a given file or files in a directory.\n"
     "usage: getstripe [--stripe-count|-c] [--stripe-index|-i] [--stripe-size|-S] [--pool|-p]\n"
     "                 [--mdt-index|-m] [--directory|-d] <directory|filename> ..."},
};

}  // namespace

int main(int argc, char** argv) {
  setlinebuf(stdout);
  if (argc >= 2 && std::strcmp(argv[1], "--version") == 0) {
    return fathom::lustre_sim::tools::PrintVersion("lfs");
  }
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--list-commands") == 0) {
    printf("Available commands are:\n");
    for (const auto& c : kCommands) printf("\t%s\n", c.name);
    return 0;
  }
  for (const auto& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    int rc = c.run(argc - 1, argv + 1);
    if (rc == fathom::lustre_sim::tools::kCmdHelp) {
      fprintf(stdout, "%s\n", c.help);
      fflush(stdout);
    }
    return rc < 0 ? -rc : rc;
  }
  fprintf(stderr, "lfs: '%s' is not a valid command. See 'lfs --list-commands'.\n", argv[1]);
  return 1;
}
