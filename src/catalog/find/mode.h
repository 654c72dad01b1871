// mode.h — permission modes for -perm (octal or symbolic, with GNU find's exact / - / forms)
// and ls's ten-character mode strings (-ls, %M).
//
// Contract: ParsePerm accepts "644", "-u=rwx,g+w", "/0111", "go-w" ...; symbolic clauses
// apply in order to an empty mode, with no umask (a clause without u/g/o/a means a), and
// X is computed separately for directories (X adds x to a directory). Value types only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::catalog::find {

struct PermSpec {
  enum class Kind { kExact, kAll, kAny };  // MODE, -MODE, /MODE
  Kind kind = Kind::kExact;
  uint32_t file_bits = 0;   // the mode for anything but a directory
  uint32_t dir_bits = 0;    // the mode for a directory (differs only through X)
  bool Matches(uint32_t st_mode) const;
};

// The mode part only (no - or / prefix): the bits it sets, or an error naming it.
Result<uint32_t> ParseModeBits(std::string_view text, bool for_directory);
Result<PermSpec> ParsePerm(std::string_view arg);

// "drwxr-xr-x" for st_mode, as ls -l and find -ls print it.
std::string ModeString(uint32_t st_mode);
// The one-letter type of find's -type and %y: f d l b c p s, or U for an unknown type.
char TypeLetter(uint32_t st_mode);

}  // namespace fathom::catalog::find
