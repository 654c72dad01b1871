// link_moves.h — the paths of objects open under a link that H5Lmove moved. HDF5 1.10 does not
// always rename such objects (H5Iget_name still gives the old path), so the reader does: an
// object of the same file that was open when the move started, at the moved path or below it,
// takes the path under the new name. Pure; any thread.
#pragma once

#include "fathom/h5prov.h"

namespace fathom::h5prov {

void ApplyLinkMoves(Trace& trace);

}  // namespace fathom::h5prov
