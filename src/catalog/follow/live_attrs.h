// live_attrs.h — an object's attributes read from the live file system, as the catalog keeps
// them (lstat: a symbolic link is described, never followed; its target read with readlink).
//
// Stateless and thread-safe.
#pragma once

#include <optional>
#include <string>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog {

// The attributes of `path`; nullopt when it is gone (ENOENT, ENOTDIR, ESTALE: a short-lived
// file, or one renamed since), an error for anything else (EACCES, EIO ...).
Result<std::optional<Attrs>> ReadLiveAttrs(const std::string& path);

}  // namespace fathom::catalog
