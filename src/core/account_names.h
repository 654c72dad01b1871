// account_names.h — user and group names (find's -user/-group, %u/%g and -ls; conditions on
// owner and group), looked up once per id or name (getpw*_r/getgr*_r) and cached.
//
// Contract: an id without an entry in the system's databases has no name (nullopt).
// Ownership: plain value type. Threading: one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace fathom {

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

}  // namespace fathom
