// errno_of.h — the errno a FUSE reply should carry for a failed Status.
//
// A Status whose error_code is a POSIX errno (generic or system category) gives that errno;
// any other failure gives EIO. Pure function, any thread.
#pragma once

#include <cerrno>
#include <system_error>

#include "fathom/status.h"

namespace fathom::lustre_sim {

inline int ErrnoOf(const Status& status) {
  if (status.ok()) return 0;
  std::error_code code = status.code();
  if (code && code.value() > 0 &&
      (code.category() == std::generic_category() || code.category() == std::system_category())) {
    return code.value();
  }
  return EIO;
}

}  // namespace fathom::lustre_sim
