// lfs setstripe and lfs getstripe: file layouts and directory default layouts.
//
// setstripe on a directory sets its default layout in the state (LYOUT on its MDT); on a
// path that does not exist it asks the daemon to create the file with that layout
// (kSetstripeXattr on the parent); an existing file keeps its layout ("stripe already
// set", EEXIST), as on Lustre, where every file has its objects once created.
#include <getopt.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "lustre/lustre_abi.h"
#include "lustre_sim/fuse/control_xattr.h"
#include "lustre_sim/tools/lfs_commands.h"
#include "lustre_sim/tools/tool_target.h"

namespace fathom::lustre_sim::tools {
namespace {

// llapi_parse_size: a number with an optional k/M/G/T suffix (powers of 1024), bytes without.
bool ParseSize(const char* text, uint64_t& out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 0);
  if (errno != 0 || end == text || text[0] == '-') return false;
  uint64_t unit = 1;
  switch (*end) {
    case '\0': break;
    case 'b': case 'B': unit = 1; ++end; break;
    case 'k': case 'K': unit = 1ULL << 10; ++end; break;
    case 'm': case 'M': unit = 1ULL << 20; ++end; break;
    case 'g': case 'G': unit = 1ULL << 30; ++end; break;
    case 't': case 'T': unit = 1ULL << 40; ++end; break;
    default: return false;
  }
  if (*end != '\0') return false;
  out = value * unit;
  return true;
}

bool ParseInt(const char* text, long min, long max, long& out) {
  char* end = nullptr;
  errno = 0;
  out = strtol(text, &end, 0);
  return errno == 0 && end != text && *end == '\0' && out >= min && out <= max;
}

Caller ToolCaller() {
  Caller caller;
  caller.uid = getuid();
  caller.gid = getgid();
  return caller;
}

}  // namespace

int LfsSetstripe(int argc, char** argv) {
  static const option kLong[] = {{"stripe-count", required_argument, nullptr, 'c'},
                                 {"stripe_count", required_argument, nullptr, 'c'},
                                 {"stripe-index", required_argument, nullptr, 'i'},
                                 {"stripe_index", required_argument, nullptr, 'i'},
                                 {"stripe-size", required_argument, nullptr, 'S'},
                                 {"stripe_size", required_argument, nullptr, 'S'},
                                 {"pool", required_argument, nullptr, 'p'},
                                 {"delete", no_argument, nullptr, 'd'},
                                 {nullptr, 0, nullptr, 0}};
  LayoutSpec spec;
  bool remove = false;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "c:di:p:S:s:", kLong, nullptr)) != -1) {
    long value = 0;
    switch (c) {
      case 'c':
        if (!ParseInt(optarg, -1, 2000, value)) {
          fprintf(stderr, "%s %s: invalid stripe count '%s'\n", "lfs", argv[0], optarg);
          return kCmdHelp;
        }
        spec.stripe_count = value;
        break;
      case 'i':
        if (!ParseInt(optarg, -1, 65535, value)) {
          fprintf(stderr, "%s %s: invalid stripe offset '%s'\n", "lfs", argv[0], optarg);
          return kCmdHelp;
        }
        spec.stripe_offset = static_cast<int>(value);
        break;
      case 'S':
      case 's':
        if (!ParseSize(optarg, spec.stripe_size) || spec.stripe_size % 65536 != 0 ||
            spec.stripe_size >= (1ULL << 32)) {
          fprintf(stderr, "%s %s: invalid stripe size '%s'\n", "lfs", argv[0], optarg);
          return kCmdHelp;
        }
        break;
      case 'p': {
        std::string pool = optarg;
        // "FSNAME.POOL" names the pool too.
        if (size_t dot = pool.find('.'); dot != std::string::npos) pool = pool.substr(dot + 1);
        spec.pool = pool == "none" ? "" : pool;
        break;
      }
      case 'd':
        remove = true;
        break;
      default:
        fprintf(stderr, "lfs %s: unrecognized option '%s'\n", argv[0], argv[optind - 1]);
        return kCmdHelp;
    }
  }
  if (optind == argc) {
    fprintf(stderr, "lfs %s: FILE must be specified\n", argv[0]);
    return kCmdHelp;
  }
  if (remove && (spec.stripe_count != 0 || spec.stripe_size != 0 || spec.stripe_offset >= 0 || !spec.pool.empty())) {
    fprintf(stderr, "lfs %s: cannot specify -d with -c, -S, -i or -p options\n", argv[0]);
    return kCmdHelp;
  }
  int result = 0;
  for (int i = optind; i < argc; ++i) {
    const char* fname = argv[i];
    int rc = 0;
    struct stat st {};
    const bool exists = ::stat(fname, &st) == 0 || ::lstat(fname, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
      auto in_fs = OpenPath(fname);
      auto dir = in_fs.ok() ? in_fs->target.state->Resolve(in_fs->relative) : Result<Entry>(in_fs.status());
      if (!dir.ok()) {
        rc = -ENOTTY;
      } else {
        Status set = in_fs->target.state->SetDirLayout(ToolCaller(), dir->fid, remove ? LayoutSpec{} : spec);
        if (!set.ok()) rc = -StatusErrno(set);
      }
      if (rc != 0) {
        fprintf(stderr, "lfs %s: unable to set stripe for '%s': %s\n", argv[0], fname, strerror(-rc));
      }
    } else if (remove) {
      rc = -ENOTDIR;
      fprintf(stderr, "lfs %s: cannot delete default layout of '%s': %s\n", argv[0], fname, strerror(-rc));
    } else if (!exists) {
      std::filesystem::path p = std::filesystem::absolute(fname).lexically_normal();
      SetstripeRequest request;
      request.layout = spec;
      request.name = p.filename().string();
      std::string value = EncodeSetstripeRequest(request);
      if (setxattr(p.parent_path().c_str(), kSetstripeXattr, value.data(), value.size(), 0) != 0) {
        rc = -errno;
        if (rc == -EOPNOTSUPP || rc == -ENOTSUP) rc = -ENOTTY;
        fprintf(stderr, "lfs %s: setstripe error for '%s': %s\n", argv[0], fname, strerror(-rc));
      }
    } else {
      rc = -EEXIST;
      fprintf(stderr, "lfs %s: setstripe error for '%s': stripe already set\n", argv[0], fname);
    }
    if (rc != 0 && result == 0) result = rc;
  }
  return result;
}

namespace {

enum Show : unsigned { kCount = 1, kSize = 2, kPool = 4, kOffset = 8, kMdt = 16 };

void PrintFileLayout(const char* path, const Fid& fid, const Layout& layout, unsigned show, bool heading) {
  uint32_t offset = layout.osts.empty() ? 0 : layout.osts[0];
  int shown = __builtin_popcount(show);
  if (show == 0) {
    if (heading) printf("%s\n", path);
    printf("lmm_stripe_count:  %u\n", layout.stripe_count);
    printf("lmm_stripe_size:   %" PRIu64 "\n", layout.stripe_size);
    printf("lmm_pattern:       raid0\n");
    printf("lmm_layout_gen:    %u\n", layout.generation);
    printf("lmm_stripe_offset: %u\n", offset);
    if (!layout.pool.empty()) printf("lmm_pool:          %s\n", layout.pool.c_str());
    printf("\tobdidx\t\t objid\t\t objid\t\t group\n");
    for (size_t i = 0; i < layout.osts.size(); ++i) {
      unsigned long long objid = (static_cast<unsigned long long>(fid.oid) << 8) | i;
      printf("\t%6u\t%14llu\t%#13llx\t%14u\n", layout.osts[i], objid, objid, 0U);
    }
    printf("\n");
    return;
  }
  if (shown > 1 && heading) printf("%s\n", path);
  auto line = [&](const char* name, const std::string& value) {
    if (shown > 1) {
      printf("%-19s%s\n", name, value.c_str());
    } else {
      printf("%s\n", value.c_str());
    }
  };
  if (show & kCount) line("lmm_stripe_count:", std::to_string(layout.stripe_count));
  if (show & kSize) line("lmm_stripe_size:", std::to_string(layout.stripe_size));
  if (show & kPool) line("lmm_pool:", layout.pool);
  if (show & kOffset) line("lmm_stripe_offset:", std::to_string(offset));
}

void PrintDirLayout(const char* path, const std::optional<LayoutSpec>& spec, unsigned show) {
  LayoutSpec d = spec.value_or(LayoutSpec{});
  int64_t count = d.stripe_count != 0 ? d.stripe_count : kDefaultStripeCount;
  uint64_t size = d.stripe_size != 0 ? d.stripe_size : kDefaultStripeSize;
  if (show == 0) {
    printf("%s\n", path);
    if (!spec) return;
    printf("stripe_count:  %" PRId64 " stripe_size:   %" PRIu64 " pattern:       raid0 stripe_offset: %d",
           count, size, d.stripe_offset);
    if (!d.pool.empty()) printf(" pool:          %s", d.pool.c_str());
    printf("\n\n");
    return;
  }
  if (show & kCount) printf("%" PRId64 "\n", count);
  if (show & kSize) printf("%" PRIu64 "\n", size);
  if (show & kPool) printf("%s\n", d.pool.c_str());
  if (show & kOffset) printf("%d\n", d.stripe_offset);
}

}  // namespace

int LfsGetstripe(int argc, char** argv) {
  static const option kLong[] = {{"mdt-index", no_argument, nullptr, 'm'},
                                 {"mdt", no_argument, nullptr, 'm'},
                                 {"stripe-count", no_argument, nullptr, 'c'},
                                 {"stripe_count", no_argument, nullptr, 'c'},
                                 {"stripe-size", no_argument, nullptr, 'S'},
                                 {"stripe_size", no_argument, nullptr, 'S'},
                                 {"stripe-index", no_argument, nullptr, 'i'},
                                 {"stripe_index", no_argument, nullptr, 'i'},
                                 {"pool", no_argument, nullptr, 'p'},
                                 {"directory", no_argument, nullptr, 'd'},
                                 {nullptr, 0, nullptr, 0}};
  unsigned show = 0;
  bool directory_only = false;
  optind = 0;
  int c;
  while ((c = getopt_long(argc, argv, "cdimpS", kLong, nullptr)) != -1) {
    switch (c) {
      case 'c': show |= kCount; break;
      case 'S': show |= kSize; break;
      case 'p': show |= kPool; break;
      case 'i': show |= kOffset; break;
      case 'm': show |= kMdt; break;
      case 'd': directory_only = true; break;
      default:
        fprintf(stderr, "lfs getstripe: unrecognized option '%s'\n", argv[optind - 1]);
        return kCmdHelp;
    }
  }
  if (optind == argc) return kCmdHelp;
  int rc = 0;
  const bool heading = true;
  for (int i = optind; i < argc; ++i) {
    auto in_fs = OpenPath(argv[i]);
    if (!in_fs.ok()) {
      fprintf(stderr, "lfs getstripe: '%s' is not on a Lustre filesystem: %s\n", argv[i], strerror(ENOTTY));
      if (rc == 0) rc = -ENOTTY;
      continue;
    }
    SimState& state = *in_fs->target.state;
    auto entry = state.Resolve(in_fs->relative);
    if (!entry.ok()) {
      fprintf(stderr, "lfs getstripe: cannot open '%s': %s\n", argv[i], strerror(ENOENT));
      if (rc == 0) rc = -ENOENT;
      continue;
    }
    if (show & kMdt) {
      printf("%d\n", entry->mdt);
      continue;
    }
    if (entry->type == ObjectType::kDirectory) {
      auto spec = state.GetDirLayout(entry->fid);
      PrintDirLayout(argv[i], spec.ok() ? *spec : std::nullopt, show);
      if (directory_only || show != 0) continue;
      std::error_code ec;
      std::vector<std::string> children;
      for (const auto& child : std::filesystem::directory_iterator(argv[i], ec)) {
        children.push_back(child.path().filename().string());
      }
      std::sort(children.begin(), children.end());
      for (const std::string& name : children) {
        std::string rel = in_fs->relative == "/" ? "/" + name : in_fs->relative + "/" + name;
        auto child = state.Resolve(rel);
        if (!child.ok() || child->type != ObjectType::kFile) continue;
        auto layout = state.GetLayout(child->fid);
        if (!layout.ok()) continue;
        std::string shown = std::string(argv[i]) + (std::string(argv[i]).back() == '/' ? "" : "/") + name;
        PrintFileLayout(shown.c_str(), child->fid, *layout, 0, heading);
      }
      continue;
    }
    auto layout = state.GetLayout(entry->fid);
    if (!layout.ok()) {
      // Symlinks, nodes: no layout (Lustre: "has no stripe info").
      printf("%s has no stripe info\n", argv[i]);
      continue;
    }
    PrintFileLayout(argv[i], entry->fid, *layout, show, heading);
  }
  return rc;
}

}  // namespace fathom::lustre_sim::tools
