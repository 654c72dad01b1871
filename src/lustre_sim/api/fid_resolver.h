// fid_resolver.h — llapi_fid2path and llapi_path2fid against the emulator's state.
//
// Fid2Path follows Lustre's contract: the path is relative to the mount point with no
// leading slash ("" for the root); `*linkno` picks the hard link (in path order) and is
// advanced to the next one while more remain; errors are negative errnos as Lustre returns
// them (-EINVAL bad FID or device, -ENODEV unknown file system, -ENOENT no such object,
// -EOVERFLOW buffer under 3 bytes, -ENAMETOOLONG path does not fit). In fast mode the
// namespace is the generated one as of the furthest record a reader in this process has
// received (or, with no reader, the furthest any user cleared). Path2Fid resolves a path
// under a mount point through the registry and the state (the last component is not
// followed, like O_NOFOLLOW). SearchFsname finds the file system a path is on the same way.
// Thread-safe.
#pragma once

#include "lustre/lustre_abi.h"

namespace fathom::lustre_sim {

int Fid2Path(const char* device, const char* fidstr, char* path, int pathlen, long long* recno, int* linkno);
int Path2Fid(const char* path, lu_fid* fid);
// llapi_search_fsname: the fsname of the emulated file system whose mount point `path` is
// at or under, into `fsname` (LUSTRE_MAXFSNAME + 1 bytes); -ENOENT for a missing path,
// -ENODEV for one on no emulated Lustre mount.
int SearchFsname(const char* path, char* fsname);
// llapi_get_mdt_index_by_fid: the MDT index of `fid` on the file system descriptor `fd` is
// open on (any file or directory of it), into `*mdt_index`; -EBADF for a bad descriptor,
// -ENODEV for one on no emulated mount, -ENOENT for a FID that names no object.
int MdtIndexByFid(int fd, const lu_fid* fid, int* mdt_index);

}  // namespace fathom::lustre_sim
