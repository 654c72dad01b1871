// fid_inode.h — the inode number a Lustre client shows for a FID.
//
// Lustre's 64-bit clients flatten a FID into st_ino (fid_flatten in lustre_fid.h): the
// sequence shifted up 24 bits, plus its high bits folded in, plus the object id. Because
// FIDs persist in the emulator's state, the inode numbers it shows are stable across
// remounts. Pure function, any thread.
#pragma once

#include <cstdint>

#include "lustre/fid.h"

namespace fathom::lustre_sim {

inline uint64_t FlattenFid(const lustre::Fid& fid) {
  const uint64_t seq = fid.seq;
  const uint64_t ino = (seq << 24) + ((seq >> 24) & 0xffffff0000ULL) + fid.oid;
  return ino != 0 ? ino : fid.oid;
}

}  // namespace fathom::lustre_sim
