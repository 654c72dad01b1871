// account_names.cpp — cached passwd/group look-ups.
#include "core/account_names.h"

#include <grp.h>
#include <pwd.h>

#include <vector>

namespace fathom {
namespace {

// Calls a getpw*_r/getgr*_r function with a buffer grown until it fits; returns the found
// record's field through `take`, nullopt when there is no such entry.
template <typename Record, typename Lookup, typename Take>
auto LookUp(Lookup lookup, Take take) -> std::optional<decltype(take(std::declval<Record&>()))> {
  std::vector<char> buf(1024);
  for (;;) {
    Record record{};
    Record* found = nullptr;
    int rc = lookup(&record, buf.data(), buf.size(), &found);
    if (rc == ERANGE && buf.size() < (1u << 20)) {
      buf.resize(buf.size() * 2);
      continue;
    }
    if (rc != 0 || found == nullptr) return std::nullopt;
    return take(record);
  }
}

}  // namespace

std::optional<std::string> NameCache::UserName(uint32_t uid) {
  auto it = users_.find(uid);
  if (it != users_.end()) return it->second;
  auto name = LookUp<passwd>(
      [uid](passwd* r, char* b, size_t n, passwd** f) { return getpwuid_r(uid, r, b, n, f); },
      [](passwd& r) { return std::string(r.pw_name); });
  return users_[uid] = name;
}

std::optional<std::string> NameCache::GroupName(uint32_t gid) {
  auto it = groups_.find(gid);
  if (it != groups_.end()) return it->second;
  auto name = LookUp<group>(
      [gid](group* r, char* b, size_t n, group** f) { return getgrgid_r(gid, r, b, n, f); },
      [](group& r) { return std::string(r.gr_name); });
  return groups_[gid] = name;
}

std::optional<uint32_t> NameCache::UserId(const std::string& name) {
  auto it = uids_.find(name);
  if (it != uids_.end()) return it->second;
  auto id = LookUp<passwd>(
      [&name](passwd* r, char* b, size_t n, passwd** f) {
        return getpwnam_r(name.c_str(), r, b, n, f);
      },
      [](passwd& r) { return static_cast<uint32_t>(r.pw_uid); });
  return uids_[name] = id;
}

std::optional<uint32_t> NameCache::GroupId(const std::string& name) {
  auto it = gids_.find(name);
  if (it != gids_.end()) return it->second;
  auto id = LookUp<group>(
      [&name](group* r, char* b, size_t n, group** f) {
        return getgrnam_r(name.c_str(), r, b, n, f);
      },
      [](group& r) { return static_cast<uint32_t>(r.gr_gid); });
  return gids_[name] = id;
}

}  // namespace fathom
