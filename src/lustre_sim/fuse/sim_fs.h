// sim_fs.h — the FUSE low-level file system of fathom-lustre-sim (internal to this module).
//
// A passthrough to a backing directory (file data, attributes, xattrs and the namespace
// shape live there) that keeps a Lustre namespace beside it in SimState: every object has
// a FID (st_ino is the flattened FID), every namespace operation is made on the backing
// directory and then on SimState (which appends its changelog record), and file activity
// becomes Lustre's data records:
//   open              OPEN (SimState keeps it only when the MDT's mask asks for it)
//   setattr           one record of the lowest masked-in type among TRUNC, SATTR, MTIME,
//                     CTIME, ATIME, flags = la_valid & 0xfff (as mdd_attr_set_changelog)
//   write             marks the open file; its close logs MTIME (la_valid 0x7) once
//   release           CLOSE for a file opened for writing, or for any file when OPEN is
//                     in the mask (as mdd_close); a flush after a write logs it already
//                     (see LogClose)
//   setxattr/remove   XATTR with the attribute name
// Every request is also counted on the emulated servers (target_stats.h, sim_fs_stats.cpp):
// data on the OSTs of the file's stripes, metadata on the MDT of the object or its parent.
// Namespace mutations are serialized by one mutex so that the backing directory and
// SimState change together. Request handlers run on libfuse's worker threads.
#pragma once

#include <fuse_lowlevel.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/unique_fd.h"
#include "lustre_sim/fuse/caller_identity.h"
#include "lustre_sim/fuse/node_table.h"
#include "lustre_sim/fuse/target_stats.h"
#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim {

// Lustre's la_valid bits (lustre_idl.h), low 12 of which go into record flags.
inline constexpr uint32_t kLaAtime = 1 << 0;
inline constexpr uint32_t kLaMtime = 1 << 1;
inline constexpr uint32_t kLaCtime = 1 << 2;
inline constexpr uint32_t kLaSize = 1 << 3;
inline constexpr uint32_t kLaMode = 1 << 4;
inline constexpr uint32_t kLaUid = 1 << 5;
inline constexpr uint32_t kLaGid = 1 << 6;

// How long the kernel may cache an entry's or attributes' answer, in seconds.
inline constexpr double kCacheSeconds = 1.0;
// The path through /proc that reaches an O_PATH descriptor's object (for the calls that
// take no descriptor: chmod, truncate, utimensat, the xattr family).
inline std::string ProcPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// The record type Lustre logs for a setattr with `la_valid` under `mask`, or 0 for none.
uint32_t SetattrRecordType(uint32_t la_valid, uint64_t mask);
// Lustre's open flags for the client open(2) `flags` (O_ACCMODE turned into FMODE bits).
uint32_t LustreOpenFlags(int flags);

class SimFs {
 public:
  SimFs(std::unique_ptr<SimState> state, UniqueFd backing_root);
  SimFs(const SimFs&) = delete;
  SimFs& operator=(const SimFs&) = delete;

  static const fuse_lowlevel_ops& Ops();

  // Handlers (one per FUSE request; each replies exactly once).
  void Init(fuse_conn_info* conn);
  void Lookup(fuse_req_t req, fuse_ino_t parent, const char* name);
  void Forget(fuse_ino_t ino, uint64_t nlookup);
  void Getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi);
  void Setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi);
  void Readlink(fuse_req_t req, fuse_ino_t ino);
  void Mknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev);
  void Mkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode);
  void Symlink(fuse_req_t req, const char* target, fuse_ino_t parent, const char* name);
  void Link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* name);
  void Unlink(fuse_req_t req, fuse_ino_t parent, const char* name);
  void Rmdir(fuse_req_t req, fuse_ino_t parent, const char* name);
  void Rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent,
              const char* newname, unsigned int flags);
  void Create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, fuse_file_info* fi);
  void Open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi);
  void Read(fuse_req_t req, size_t size, off_t off, fuse_file_info* fi);
  void WriteBuf(fuse_req_t req, fuse_bufvec* bufv, off_t off, fuse_file_info* fi);
  void Flush(fuse_req_t req, fuse_file_info* fi);
  void Release(fuse_req_t req, fuse_file_info* fi);
  void Fsync(fuse_req_t req, int datasync, fuse_file_info* fi);
  void Fallocate(fuse_req_t req, int mode, off_t offset, off_t length, fuse_file_info* fi);
  void Lseek(fuse_req_t req, off_t off, int whence, fuse_file_info* fi);
  void Opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi);
  void Readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi);
  void Releasedir(fuse_req_t req, fuse_file_info* fi);
  void Statfs(fuse_req_t req);
  void Setxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size,
                int flags);
  void Getxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size);
  void Listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
  void Removexattr(fuse_req_t req, fuse_ino_t ino, const char* name);

 private:
  struct OpenFile {
    UniqueFd fd;
    std::shared_ptr<Node> node;
    Caller caller;            // who opened it (release has no caller of its own)
    uint32_t open_flags = 0;  // Lustre's form
    bool writable = false;
    std::atomic<bool> written{false};
    std::atomic<bool> close_logged{false};
    std::optional<Layout> layout;  // a regular file's stripes, read at open
    int mdt = 0;
  };
  using Clock = std::chrono::steady_clock;

  // The servers' statistics (sim_fs_stats.cpp).
  int MdtOfNode(const Node& node);
  // Reads the open file's layout and MDT.
  void PlaceOpenFile(OpenFile& file);
  // Counts one metadata request on `mdt`, begun at `start`.
  void CountMdt(const std::string& job, int mdt, MdtOp op, Clock::time_point start);
  // Sleeps for the slowest delay injected on the OSTs that [off, off + size) touches.
  void DelayIo(const OpenFile& file, off_t off, size_t size);
  // Counts a read or write of [off, off + size), begun at `start`, on its stripes' OSTs.
  void CountIo(const OpenFile& file, off_t off, size_t size, bool write, Clock::time_point start);
  // One `op` for `job` on every OST of a layout's stripes (setattr, punch, sync).
  void CountOsts(const Layout& layout, const std::string& job, OstOp op, Clock::time_point start);
  // `op` (create or destroy) on the OSTs of the regular file `fid`'s objects.
  void CountObjects(const Fid& fid, const std::string& job, OstOp op, Clock::time_point start);
  // The kStatsXattr request (control_xattr.h).
  int StatsControl(std::string_view value);
  // Logs the file's close (MTIME when written, then CLOSE) once. Lustre sends the close at
  // the last release of the open file; FUSE sends RELEASE then too, but asynchronously
  // (close(2) does not wait for it), while every close(2) waits for its FLUSH. So the close
  // is logged at the release, or earlier at a flush that comes after the file was written:
  // a written file's records then come before whatever its writer does next (a rename right
  // after close). A flush before any write (a shell redirection or dd closing the duplicate
  // it opened, before writing through the other) logs nothing.
  void LogClose(OpenFile& file);

  // MOUNT/.lustre and MOUNT/.lustre/fid (sim_fs_dot_lustre.cpp): answers a lookup in the
  // root, in .lustre or in .lustre/fid, or a getattr of .lustre or .lustre/fid; false when
  // the request is about something else (not answered).
  bool LookupDotLustre(fuse_req_t req, fuse_ino_t parent, const char* name);
  bool GetattrDotLustre(fuse_req_t req, fuse_ino_t ino);
  // Whether `ino` is .lustre or .lustre/fid (nothing to list, no extended attributes).
  static bool IsDotLustre(fuse_ino_t ino);
  // The object `fid` names, as a node of its own; an errno when there is none.
  int LookupByFid(const char* name, fuse_entry_param* e);

  Caller CallerOf(fuse_req_t req);
  std::string JobidVar();
  // Stats a node's backing object; fills st_ino with the flattened FID.
  int StatNode(const Node& node, struct stat* st);
  // Looks `name` up under `parent` in the backing directory and the state, making or
  // finding its node (one more kernel lookup). Adopts backing objects the state lacks.
  int LookupEntry(const std::shared_ptr<Node>& parent, const char* name, fuse_entry_param* e);
  // After a namespace change: the entry of the new object, or an errno.
  // The node whose backing xattrs `name` reads or removes; nullptr after replying ESTALE, or
  // ENODATA for a control attribute or a symlink.
  std::shared_ptr<Node> BackingXattrNode(fuse_req_t req, fuse_ino_t ino, const char* name);
  // Logs XATTR for `name` on `node` and replies success.
  void LogXattrChange(fuse_req_t req, const Node& node, const char* name);
  // unlinkat(flags) in the backing directory, then the state's UNLNK/RMDIR record.
  void RemoveEntry(fuse_req_t req, fuse_ino_t parent, const char* name, int flags);
  int OpenEntry(const std::shared_ptr<Node>& parent, const char* name,
                const std::function<int(const struct stat&, lustre::Fid&)>& fid_of, fuse_entry_param* e);
  int EntryAfterCreate(const std::shared_ptr<Node>& parent, const char* name, const lustre::Fid& fid,
                       fuse_entry_param* e);
  // Makes a directory, a node, a symlink (`target`) in the backing dir and the state.
  int MakeObject(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev,
                 const char* target, std::optional<int> mdt, fuse_entry_param* e,
                 const LayoutSpec* layout = nullptr);
  // A regular file's layout as the lustre.lov xattr carries it (lov_user_md_v1/v3 and its
  // objects); an errno (ENODATA) when it has none.
  int LovXattr(const Node& node, std::string& out);
  void LogSetattr(const Caller& caller, const Node& node, uint32_t la_valid);
  void LogRecord(const Caller& caller, uint32_t type, const Node& node, const RecordDetails& details);
  int ControlXattr(fuse_req_t req, const std::shared_ptr<Node>& node, const std::string& name,
                   std::string_view value);

  std::unique_ptr<SimState> state_;
  TargetStats stats_;
  NodeTable nodes_;
  JobidCache jobids_;
  std::recursive_mutex ns_mu_;  // serializes namespace mutations (backing dir + state together)
  std::mutex settings_mu_;
  std::string jobid_var_;  // guarded by settings_mu_; refreshed by the reload control xattr
};

}  // namespace fathom::lustre_sim
