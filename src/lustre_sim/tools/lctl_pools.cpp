// lctl pool_new / pool_add / pool_remove / pool_destroy / pool_list: OST pools, kept in the
// state of the file system the FSNAME names.
//
// OSTs are named as lctl accepts them: an index (`2`), a target (`OST0002`,
// `testfs-OST0002`, `testfs-OST0002_UUID`) or a range of hexadecimal indexes
// (`testfs-OST[0000-0003]`, `OST[0-6/2]`, `OST[0,3]`).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "lustre_sim/tools/lctl_commands.h"
#include "lustre_sim/tools/lfs_commands.h"
#include "lustre_sim/tools/tool_target.h"

namespace fathom::lustre_sim::tools {
namespace {

std::string OstUuid(const std::string& fsname, uint32_t ost) {
  return OstName(fsname, static_cast<int>(ost)) + "_UUID";
}

bool ParseHex(std::string_view text, uint32_t& out) {
  if (text.empty() || text.size() > 8) return false;
  std::string copy(text);
  char* end = nullptr;
  unsigned long value = strtoul(copy.c_str(), &end, 16);
  if (*end != '\0') return false;
  out = static_cast<uint32_t>(value);
  return true;
}

// The OST indexes `spec` names on file system `fsname`; false when it names none.
bool ParseOsts(const std::string& fsname, std::string spec, std::vector<uint32_t>& out) {
  if (spec.size() > 5 && spec.compare(spec.size() - 5, 5, "_UUID") == 0) spec.resize(spec.size() - 5);
  if (spec.rfind(fsname + "-", 0) == 0) spec = spec.substr(fsname.size() + 1);
  if (spec.rfind("OST", 0) != 0) {
    // A plain decimal index.
    char* end = nullptr;
    unsigned long value = strtoul(spec.c_str(), &end, 10);
    if (spec.empty() || *end != '\0') return false;
    out.push_back(static_cast<uint32_t>(value));
    return true;
  }
  spec = spec.substr(3);
  if (spec.empty()) return false;
  if (spec.front() != '[') {
    uint32_t ost = 0;
    if (!ParseHex(spec, ost)) return false;
    out.push_back(ost);
    return true;
  }
  if (spec.back() != ']') return false;
  std::string_view list(spec);
  list = list.substr(1, list.size() - 2);
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    uint32_t step = 1;
    if (size_t slash = item.find('/'); slash != std::string_view::npos) {
      char* end = nullptr;
      std::string s(item.substr(slash + 1));
      step = static_cast<uint32_t>(strtoul(s.c_str(), &end, 10));
      if (s.empty() || *end != '\0' || step == 0) return false;
      item = item.substr(0, slash);
    }
    uint32_t first = 0;
    uint32_t last = 0;
    if (size_t dash = item.find('-'); dash != std::string_view::npos) {
      if (!ParseHex(item.substr(0, dash), first) || !ParseHex(item.substr(dash + 1), last) || last < first) {
        return false;
      }
    } else {
      if (!ParseHex(item, first)) return false;
      last = first;
    }
    for (uint32_t ost = first; ost <= last; ost += step) out.push_back(ost);
  }
  return !out.empty();
}

struct PoolTarget {
  Target target;
  std::string fsname;
  std::string pool;  // "" when only the fsname was given
};

// "FSNAME.POOL" (or "FSNAME" when `pool_optional`); prints the error itself.
std::optional<PoolTarget> OpenPool(const char* command, const char* arg, bool pool_optional) {
  std::string text = arg;
  size_t dot = text.find('.');
  PoolTarget out;
  out.fsname = text.substr(0, dot);
  if (dot != std::string::npos) out.pool = text.substr(dot + 1);
  if ((dot == std::string::npos || out.pool.empty()) && !pool_optional) {
    fprintf(stderr, "%s: poolname '%s' is not in fsname.poolname format\n", command, arg);
    return std::nullopt;
  }
  auto target = out.fsname.empty() || out.fsname.find_first_of("-/") != std::string::npos
                    ? Result<Target>(Status::Error("not an fsname"))
                    : OpenTarget(out.fsname);
  if (!target.ok()) {
    fprintf(stderr, "%s: filesystem '%s' not found: %s\n", command, out.fsname.c_str(), strerror(ENODEV));
    return std::nullopt;
  }
  out.target = std::move(target).value();
  return out;
}

}  // namespace

int LctlPoolNew(int argc, char** argv) {
  if (argc != 2) return kCmdHelp;
  auto pool = OpenPool(argv[0], argv[1], false);
  if (!pool) return -ENODEV;
  Status status = pool->target.state->PoolNew(pool->pool);
  std::string full = pool->fsname + "." + pool->pool;
  if (!status.ok()) {
    int err = StatusErrno(status);
    if (err == EEXIST) {
      fprintf(stderr, "Pool %s already exists\n", full.c_str());
    } else {
      fprintf(stderr, "%s: cannot create pool %s: %s\n", argv[0], full.c_str(), status.message().c_str());
    }
    return -err;
  }
  printf("Pool %s created\n", full.c_str());
  return 0;
}

int LctlPoolDestroy(int argc, char** argv) {
  if (argc != 2) return kCmdHelp;
  auto pool = OpenPool(argv[0], argv[1], false);
  if (!pool) return -ENODEV;
  Status status = pool->target.state->PoolDestroy(pool->pool);
  std::string full = pool->fsname + "." + pool->pool;
  if (!status.ok()) {
    int err = StatusErrno(status);
    if (err == ENOTEMPTY) {
      fprintf(stderr, "Pool %s not empty, please remove all members\n", full.c_str());
    } else if (err == ENOENT) {
      fprintf(stderr, "Pool %s not found\n", full.c_str());
    } else {
      fprintf(stderr, "%s: %s\n", argv[0], status.message().c_str());
    }
    return -err;
  }
  printf("Pool %s destroyed\n", full.c_str());
  return 0;
}

// pool_add (add) and pool_remove (!add).
int LctlPoolMembers(int argc, char** argv, bool add) {
  if (argc < 3) return kCmdHelp;
  auto pool = OpenPool(argv[0], argv[1], false);
  if (!pool) return -ENODEV;
  std::string full = pool->fsname + "." + pool->pool;
  int rc = 0;
  for (int i = 2; i < argc; ++i) {
    std::vector<uint32_t> osts;
    if (!ParseOsts(pool->fsname, argv[i], osts)) {
      fprintf(stderr, "%s: cannot parse OST list '%s'\n", argv[0], argv[i]);
      if (rc == 0) rc = -EINVAL;
      continue;
    }
    for (uint32_t ost : osts) {
      std::string uuid = OstUuid(pool->fsname, ost);
      Status status = add ? pool->target.state->PoolAdd(pool->pool, ost)
                          : pool->target.state->PoolRemove(pool->pool, ost);
      if (status.ok()) {
        printf("OST %s %s pool %s\n", uuid.c_str(), add ? "added to" : "removed from", full.c_str());
        continue;
      }
      int err = StatusErrno(status);
      if (status.message().find("pool '") == 0 && err == ENOENT) {
        fprintf(stderr, "Pool %s not found\n", full.c_str());
      } else if (err == EEXIST) {
        fprintf(stderr, "OST %s is already in pool %s\n", uuid.c_str(), full.c_str());
      } else if (err == ENOENT) {
        fprintf(stderr, "OST %s not in pool %s\n", uuid.c_str(), full.c_str());
      } else {
        fprintf(stderr, "OST %s not found in filesystem %s\n", uuid.c_str(), pool->fsname.c_str());
      }
      if (rc == 0) rc = -err;
    }
  }
  return rc;
}

int LctlPoolAdd(int argc, char** argv) { return LctlPoolMembers(argc, argv, true); }
int LctlPoolRemove(int argc, char** argv) { return LctlPoolMembers(argc, argv, false); }

int LctlPoolList(int argc, char** argv) {
  if (argc != 2) return kCmdHelp;
  auto pool = OpenPool(argv[0], argv[1], true);
  if (!pool) return -ENODEV;
  SimState& state = *pool->target.state;
  if (pool->pool.empty()) {
    auto pools = state.Pools();
    if (!pools.ok()) return -StatusErrno(pools.status());
    printf("Pools from %s:\n", pool->fsname.c_str());
    for (const std::string& name : *pools) printf("%s.%s\n", pool->fsname.c_str(), name.c_str());
    return 0;
  }
  std::string full = pool->fsname + "." + pool->pool;
  auto osts = state.PoolOsts(pool->pool);
  if (!osts.ok()) {
    fprintf(stderr, "Pool %s not found\n", full.c_str());
    return -StatusErrno(osts.status());
  }
  printf("Pool: %s\n", full.c_str());
  for (uint32_t ost : *osts) printf("%s\n", OstUuid(pool->fsname, ost).c_str());
  return 0;
}

}  // namespace fathom::lustre_sim::tools
