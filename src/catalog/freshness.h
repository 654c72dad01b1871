// freshness.h — which observation wins: the catalog keeps, per object, the time of the newest
// observation it applied (and, per removed object, the time of its removal); a change
// observed before that is stale and ignored, so a scan listing made before an event cannot
// undo it. Equal times apply (the later call wins). Backend-neutral, pure.
#pragma once

#include <cstdint>

#include "fathom/event.h"  // NowNs

namespace fathom::catalog {

// Whether a change observed at `observed_ns` is older than what the catalog holds (`held_ns`).
inline bool IsStale(int64_t held_ns, int64_t observed_ns) { return held_ns > observed_ns; }

}  // namespace fathom::catalog
