// fanotify_source.h — whole-file-system fanotify backend (FAN_MARK_FILESYSTEM).
#pragma once

#include "fathom/source.h"

namespace fathom {

// name "fanotify", priority 20 (preferred by "auto" when permitted: root, kernel >= 5.9,
// a file system that supports file handles).
SourceInfo FanotifySourceInfo();

}  // namespace fathom
