// link_moves.h — the paths of objects open under a link that H5Lmove moved. HDF5 1.10 does not
// always rename such objects (H5Iget_name still gives the old path), so the reader does: an
// object of the same file that was open when the move started, at the moved path or below it,
// takes the path under the new name. Pure; any thread.
#pragma once

#include <cstdint>
#include <map>

#include "fathom/h5prov.h"

namespace fathom::h5prov {

void ApplyLinkMoves(Trace& trace);
// The same for a trace decoded a part at a time (trace.calls holding only the last part's):
// `opened` keeps when each object was first used across the parts.
void ApplyLinkMoves(Trace& trace, std::map<uint64_t, uint64_t>& opened);

}  // namespace fathom::h5prov
