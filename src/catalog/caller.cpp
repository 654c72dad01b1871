// caller.cpp — the user a query answers, from the process or the user database.
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "fathom/catalog.h"

namespace fathom::catalog {

Caller Caller::Current() {
  Caller caller;
  caller.uid = ::geteuid();
  caller.gids.push_back(::getegid());
  const int n = ::getgroups(0, nullptr);
  if (n > 0) {
    std::vector<gid_t> groups(static_cast<size_t>(n));
    const int got = ::getgroups(n, groups.data());
    for (int i = 0; i < got; ++i) caller.gids.push_back(groups[static_cast<size_t>(i)]);
  }
  return caller;
}

Result<Caller> Caller::Named(const std::string& user) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  uint32_t number = 0;
  const auto [end, ec] = std::from_chars(user.data(), user.data() + user.size(), number);
  const bool numeric = ec == std::errc() && end == user.data() + user.size() && !user.empty();
  const int err = numeric ? ::getpwuid_r(number, &entry, buffer.data(), buffer.size(), &found)
                          : ::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (err != 0) return Status::FromErrno(err, "looking up the user '" + user + "'");
  if (!found) {
    if (numeric) return Caller{number, {}};  // a uid without a name: no groups but its own files
    return Status::Error("'" + user + "' is not the name of a known user (use a name from /etc/passwd or a numeric id)");
  }
  Caller caller;
  caller.uid = entry.pw_uid;
  int count = 64;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  while (::getgrouplist(entry.pw_name, entry.pw_gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<size_t>(count));
  }
  groups.resize(static_cast<size_t>(count));
  caller.gids.assign(groups.begin(), groups.end());
  if (std::find(caller.gids.begin(), caller.gids.end(), entry.pw_gid) == caller.gids.end()) {
    caller.gids.push_back(entry.pw_gid);
  }
  return caller;
}

}  // namespace fathom::catalog
