#include "catalog/report/owners.h"

#include <grp.h>
#include <pwd.h>

#include <cctype>
#include <vector>

namespace fathom::catalog::report {
namespace {

// The number `text` spells, if it is only digits and fits.
bool WholeNumber(std::string_view text, uint32_t& out) {
  if (text.empty() || text.size() > 10) return false;
  uint64_t n = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  if (n > UINT32_MAX) return false;
  out = static_cast<uint32_t>(n);
  return true;
}

}  // namespace

Result<uint32_t> UserId(std::string_view text) {
  uint32_t id = 0;
  if (WholeNumber(text, id)) return id;
  std::string name(text);
  std::vector<char> buf(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwnam_r(name.c_str(), &entry, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return Status::Error("no user named '" + name + "' (give a user name or a uid)");
  }
  return static_cast<uint32_t>(found->pw_uid);
}

Result<uint32_t> GroupId(std::string_view text) {
  uint32_t id = 0;
  if (WholeNumber(text, id)) return id;
  std::string name(text);
  std::vector<char> buf(16384);
  group entry{};
  group* found = nullptr;
  if (getgrnam_r(name.c_str(), &entry, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return Status::Error("no group named '" + name + "' (give a group name or a gid)");
  }
  return static_cast<uint32_t>(found->gr_gid);
}

std::string UserName(uint32_t uid) {
  std::vector<char> buf(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::to_string(uid);
  }
  return found->pw_name;
}

std::string GroupName(uint32_t gid) {
  std::vector<char> buf(16384);
  group entry{};
  group* found = nullptr;
  if (getgrgid_r(gid, &entry, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::to_string(gid);
  }
  return found->gr_name;
}

}  // namespace fathom::catalog::report
