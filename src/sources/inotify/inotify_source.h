// inotify_source.h — recursive inotify backend (any local Linux file system).
#pragma once

#include "fathom/source.h"

namespace fathom {

// name "inotify", priority 10; usable wherever inotify_init1 works.
SourceInfo InotifySourceInfo();

}  // namespace fathom
