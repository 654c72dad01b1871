// names.h — user and group names for find's -user/-group/-nouser/-nogroup, %u/%g and -ls,
// looked up once per id or name (getpwuid_r/getgrgid_r/getpwnam_r/getgrnam_r) and cached.
//
// Contract: an id without an entry in the system's databases has no name (nullopt).
// Ownership: plain value type. Threading: one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace fathom::catalog::find {

class NameCache {
 public:
  std::optional<std::string> UserName(uint32_t uid);
  std::optional<std::string> GroupName(uint32_t gid);
  std::optional<uint32_t> UserId(const std::string& name);
  std::optional<uint32_t> GroupId(const std::string& name);

 private:
  std::map<uint32_t, std::optional<std::string>> users_, groups_;
  std::map<std::string, std::optional<uint32_t>> uids_, gids_;
};

}  // namespace fathom::catalog::find
