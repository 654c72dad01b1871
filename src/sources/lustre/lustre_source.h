// lustre_source.h — the Lustre changelog backend.
#pragma once

#include "fathom/source.h"

namespace fathom {

// name "lustre", priority 5: below the kernel backends, so "auto" never picks it for a
// directory; it is chosen by name (`fathom watch --source lustre:FSNAME-MDT0000`). detect()
// fails unless the settings name an MDT (lustre.device) and liblustreapi can be loaded.
SourceInfo LustreSourceInfo();

}  // namespace fathom
