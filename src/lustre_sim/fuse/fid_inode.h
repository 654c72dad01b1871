// fid_inode.h — the inode number a Lustre client shows for a FID.
//
// The emulator shows what Lustre's 64-bit clients show (lustre::FlattenFid, fid_flatten in
// lustre_fid.h). Because FIDs persist in the emulator's state, the inode numbers it shows
// are stable across remounts. Pure function, any thread.
#pragma once

#include "lustre/fid.h"

namespace fathom::lustre_sim {

using lustre::FlattenFid;

}  // namespace fathom::lustre_sim
