// date_parse.h — the dates -newerXt accepts: "@SECONDS[.FRACTION]", "YYYY-MM-DD", and
// "YYYY-MM-DD HH:MM[:SS[.FRACTION]]" (or with 'T'), in local time unless followed by "Z",
// "UTC" or an offset "+HH:MM" / "-HHMM". A subset of GNU's get_date, which also reads
// relative phrases ("yesterday"); those are refused with a message saying what is accepted.
// A pure function (local time through mktime: the process's TZ), callable from any thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "fathom/status.h"

namespace fathom::catalog::find {

// Nanoseconds since the epoch.
Result<int64_t> ParseDate(std::string_view text);

}  // namespace fathom::catalog::find
