// lfs mkdir (setdirstripe) -i, lfs getdirstripe -m.
#include <getopt.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "lustre_sim/fuse/control_xattr.h"
#include "lustre_sim/tools/lfs_commands.h"
#include "lustre_sim/tools/tool_target.h"

namespace fathom::lustre_sim::tools {
namespace {

// Prints the MDT index of each path (getdirstripe -m / getstripe -m).
int PrintMdtIndexes(const char* command, int argc, char** argv, int first) {
  int rc = 0;
  for (int i = first; i < argc; ++i) {
    auto in_fs = OpenPath(argv[i]);
    if (!in_fs.ok()) {
      fprintf(stderr, "lfs %s: '%s' is not on a Lustre filesystem: %s\n", command, argv[i], strerror(ENOTTY));
      if (rc == 0) rc = -ENOTTY;
      continue;
    }
    auto entry = in_fs->target.state->Resolve(in_fs->relative);
    if (!entry.ok()) {
      fprintf(stderr, "lfs %s: cannot open '%s': %s\n", command, argv[i], strerror(ENOENT));
      if (rc == 0) rc = -ENOENT;
      continue;
    }
    printf("%d\n", entry->mdt);
  }
  return rc;
}

}  // namespace

int LfsMkdir(int argc, char** argv) {
  static const option kLong[] = {{"mdt-index", required_argument, nullptr, 'i'},
                                 {"mdt", required_argument, nullptr, 'i'},
                                 {"index", required_argument, nullptr, 'i'},
                                 {"mode", required_argument, nullptr, 'o'},
                                 {"mdt-count", required_argument, nullptr, 'c'},
                                 {"count", required_argument, nullptr, 'c'},
                                 {nullptr, 0, nullptr, 0}};
  long mdt = -1;
  const char* mode_opt = nullptr;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "c:i:o:", kLong, nullptr)) != -1) {
    char* end = nullptr;
    switch (c) {
      case 'i':
        errno = 0;
        mdt = strtol(optarg, &end, 0);
        if (errno != 0 || *end != '\0' || mdt < -1) {
          fprintf(stderr, "lfs %s: invalid MDT index '%s'\n", argv[0], optarg);
          return kCmdHelp;
        }
        break;
      case 'o':
        mode_opt = optarg;
        break;
      case 'c':
        break;  // one stripe: every directory lives on one MDT here
      default:
        fprintf(stderr, "lfs: unrecognized option '%s'\n", argv[optind - 1]);
        return kCmdHelp;
    }
  }
  if (optind == argc) {
    fprintf(stderr, "lfs %s: DIR must be specified\n", argv[0]);
    return kCmdHelp;
  }
  mode_t mask = umask(0);
  umask(mask);
  unsigned mode = 0777 & ~mask;
  if (mode_opt != nullptr) {
    char* end = nullptr;
    mode = static_cast<unsigned>(strtoul(mode_opt, &end, 8));
    if (*end != '\0' || mode > 07777) {
      fprintf(stderr, "lfs %s: bad MODE '%s'\n", argv[0], mode_opt);
      return kCmdHelp;
    }
  }
  int result = 0;
  for (int i = optind; i < argc; ++i) {
    const char* dname = argv[i];
    int rc = 0;
    if (mdt < 0) {
      rc = ::mkdir(dname, mode) == 0 ? 0 : -errno;
    } else {
      std::filesystem::path p = std::filesystem::absolute(dname).lexically_normal();
      if (p.filename().empty()) p = p.parent_path();
      MkdirRequest request;
      request.mdt = static_cast<int>(mdt);
      request.mode = mode;
      request.name = p.filename().string();
      std::string value = EncodeMkdirRequest(request);
      if (setxattr(p.parent_path().c_str(), kMkdirXattr, value.data(), value.size(), 0) != 0) {
        rc = -errno;
        // A parent outside any emulated mount cannot place directories on MDTs.
        if (rc == -EOPNOTSUPP || rc == -ENOTSUP) rc = -ENOTTY;
      }
    }
    if (rc != 0) {
      fprintf(stderr, "lfs setdirstripe: cannot create dir '%s': %s\n", dname, strerror(-rc));
      if (result == 0) result = rc;
    }
  }
  return result;
}

int LfsGetdirstripe(int argc, char** argv) {
  static const option kLong[] = {{"mdt-index", no_argument, nullptr, 'm'}, {nullptr, 0, nullptr, 0}};
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "mi", kLong, nullptr)) != -1) {
    if (c != 'm' && c != 'i') {
      fprintf(stderr, "lfs getdirstripe: unrecognized option '%s'\n", argv[optind - 1]);
      return kCmdHelp;
    }
  }
  if (optind == argc) return kCmdHelp;
  return PrintMdtIndexes("getdirstripe", argc, argv, optind);
}

}  // namespace fathom::lustre_sim::tools
