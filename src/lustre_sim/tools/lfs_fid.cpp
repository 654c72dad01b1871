// lfs fid2path / lfs path2fid.
#include <getopt.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lustre/fid.h"
#include "lustre_sim/tools/lfs_commands.h"
#include "lustre_sim/tools/tool_target.h"

namespace fathom::lustre_sim::tools {
namespace {

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

int LfsFid2path(int argc, char** argv) {
  static const option kLong[] = {{"print0", no_argument, nullptr, '0'},
                                 {"cur", no_argument, nullptr, 'c'},
                                 {"current", no_argument, nullptr, 'c'},
                                 {"print-link", no_argument, nullptr, 'c'},
                                 {"print-fid", no_argument, nullptr, 'f'},
                                 {"link", required_argument, nullptr, 'l'},
                                 {"name", no_argument, nullptr, 'n'},
                                 {nullptr, 0, nullptr, 0}};
  bool print_only_fname = false, print_linkno = false, print_link = false, print_fid = false;
  int linkno = -1;
  char separator = '\n';
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "0cfl:pr:n", kLong, nullptr)) != -1) {
    char* end = nullptr;
    switch (c) {
      case '0':
        separator = '\0';
        break;
      case 'c':
        print_link = true;
        break;
      case 'f':
        print_fid = true;
        break;
      case 'l':
        errno = 0;
        linkno = static_cast<int>(strtol(optarg, &end, 10));
        if (errno != 0 || *end != '\0' || linkno < 0) {
          fprintf(stderr, "lfs fid2path: invalid linkno '%s'\n", optarg);
          return kCmdHelp;
        }
        print_linkno = true;
        break;
      case 'n':
        print_only_fname = true;
        break;
      case 'r':
        errno = 0;
        if (strtoll(optarg, &end, 10) < 0 || errno != 0 || *end != '\0') {
          fprintf(stderr, "lfs fid2path: invalid recno '%s'\n", optarg);
          return kCmdHelp;
        }
        break;
      default:
        fprintf(stderr, "lfs fid2path: unrecognized option '%s'\n", argv[optind - 1]);
        return kCmdHelp;
    }
  }
  if (argc - optind < 2) {
    fprintf(stderr, "Usage: lfs fid2path FSNAME|ROOT FID...\n");
    return kCmdHelp;
  }
  const char* path_or_fsname = argv[optind];
  const bool print_mnt_dir = path_or_fsname[0] == '/';
  std::string mnt_dir;
  Result<Target> target = Status::Error("unresolved");
  if (print_mnt_dir) {
    auto in_fs = OpenPath(path_or_fsname);
    if (in_fs.ok()) {
      mnt_dir = in_fs->target.entry.mount;
      target = std::move(in_fs->target);
    }
  } else {
    target = OpenTarget(path_or_fsname);
    if (target.ok()) mnt_dir = target->entry.mount;
  }
  if (!target.ok()) {
    fprintf(stderr, "lfs fid2path: cannot resolve mount point for '%s': %s\n", path_or_fsname, strerror(ENODEV));
    return -ENODEV;
  }
  while (mnt_dir.size() > 1 && mnt_dir.back() == '/') mnt_dir.pop_back();
  int rc = 0;
  for (int i = optind + 1; i < argc; ++i) {
    const char* fid_str = argv[i];
    auto fid = lustre::ParseFid(fid_str);
    if (!fid.ok()) {
      fprintf(stderr, "lfs fid2path: invalid FID '%s'\n", fid_str);
      if (rc == 0) rc = -EINVAL;
      continue;
    }
    std::vector<std::string> paths = target->state->Paths(*fid);
    if (paths.empty()) {
      fprintf(stderr, "lfs fid2path: cannot find %s %s: %s\n", path_or_fsname, fid_str, strerror(ENOENT));
      if (rc == 0) rc = -ENOENT;
      continue;
    }
    const int count = static_cast<int>(paths.size());
    int linktmp = linkno >= 0 ? linkno : 0;
    if (print_only_fname && !print_link) {
      // Lustre reads the names of every link from the link xattr.
      std::string wanted = Basename(paths[linktmp < count ? linktmp : 0]);
      for (const auto& p : paths) {
        std::string name = Basename(p);
        if (print_linkno && name != wanted) continue;
        if (print_fid) printf("%s ", fid_str);
        if (print_linkno) printf("%d ", linktmp < count - 1 ? linktmp + 1 : linktmp);
        printf("%s\n", name.c_str());
        if (print_linkno) break;
      }
      continue;
    }
    for (;;) {
      int oldtmp = linktmp;
      // The MDT: link #linkno when it exists (else #0), and linkno+1 while more follow.
      std::string path = paths[linktmp < count ? linktmp : 0];
      if (linktmp < count - 1) ++linktmp;
      std::string path_buf = path == "/" ? "" : path.substr(1);
      if (print_fid) printf("%s ", fid_str);
      if (print_link) printf("%d ", linktmp);
      if (!print_only_fname) {
        printf("%s%s%s%c", print_mnt_dir ? mnt_dir.c_str() : "", (print_mnt_dir || path_buf.empty()) ? "/" : "",
               path_buf.c_str(), separator);
      } else {
        printf("%s\n", Basename(path_buf).c_str());
      }
      if (linkno >= 0) break;
      if (oldtmp == linktmp) break;
    }
  }
  return rc;
}

int LfsPath2fid(int argc, char** argv) {
  static const option kLong[] = {{"parents", no_argument, nullptr, 'p'}, {nullptr, 0, nullptr, 0}};
  bool show_parents = false;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "p", kLong, nullptr)) != -1) {
    if (c == 'p') {
      show_parents = true;
      continue;
    }
    fprintf(stderr, "lfs path2fid: unrecognized option '%s'\n", argv[optind - 1]);
    return kCmdHelp;
  }
  if (optind > argc - 1) {
    fprintf(stderr, "lfs path2fid: FILE... must be specified\n");
    return kCmdHelp;
  }
  const char* sep = optind < argc - 1 ? ": " : "";
  int rc = 0;
  for (; optind < argc; ++optind) {
    const char* path = argv[optind];
    int err = 0;
    auto in_fs = OpenPath(path);
    if (!in_fs.ok()) {
      err = ENOTTY;
    } else {
      auto entry = in_fs->target.state->Resolve(in_fs->relative);
      if (!entry.ok()) {
        err = ENOENT;
      } else if (!show_parents) {
        printf("%s%s%s\n", *sep != '\0' ? path : "", sep, lustre::FormatFid(entry->fid).c_str());
      } else {
        std::vector<std::string> links = in_fs->target.state->Paths(entry->fid);
        int linkno = 0;
        for (const auto& link : links) {
          if (link == "/") continue;
          size_t slash = link.rfind('/');
          std::string parent = slash == 0 ? "/" : link.substr(0, slash);
          auto pentry = in_fs->target.state->Resolve(parent);
          if (!pentry.ok()) continue;
          if (*sep != '\0' && linkno == 0) printf("%s%s", path, sep);
          printf("%s%s/%s", linkno != 0 ? "\t" : "", lustre::FormatFid(pentry->fid).c_str(),
                 link.substr(slash + 1).c_str());
          ++linkno;
        }
        if (linkno > 0) {
          printf("\n");
        } else {
          err = ENODATA;
        }
      }
    }
    if (err != 0) {
      fprintf(stderr, "lfs path2fid: cannot get %sfid for '%s': %s\n", show_parents ? "parent " : "", path,
              strerror(err));
      if (rc == 0) rc = -err;
    }
  }
  return rc;
}

}  // namespace fathom::lustre_sim::tools
