// owners.h — user and group names and ids for queries: a name or a number given on the
// command line to an id, an id to the name the system's user database gives (the number
// itself when it has none). Reads the user database only, never the catalog's tree; any
// thread (getpwnam_r / getgrgid_r).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::catalog::report {

// "alice" or "1000"; an error naming `text` when no such user exists.
Result<uint32_t> UserId(std::string_view text);
Result<uint32_t> GroupId(std::string_view text);

std::string UserName(uint32_t uid);
std::string GroupName(uint32_t gid);

}  // namespace fathom::catalog::report
