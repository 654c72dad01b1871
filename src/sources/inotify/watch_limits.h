// watch_limits.h — turn inotify's resource errors into messages that say what to do.
//
// ENOSPC from inotify_add_watch means fs.inotify.max_user_watches is reached; EMFILE from
// inotify_init1 means fs.inotify.max_user_instances (or the process's open-file limit) is.
// The messages name the limit, its current value, how to raise it, and the fanotify backend,
// which needs no per-directory watches. Stateless; safe from any thread.
#pragma once

#include <string_view>

#include "fathom/status.h"

namespace fathom::inotify_internal {

// Status for inotify_add_watch(`path`) failing with `err`.
Status WatchError(int err, std::string_view path);
// Status for inotify_init1() failing with `err`.
Status InstanceError(int err);

}  // namespace fathom::inotify_internal
