// sim_state.h — the persistent state of one emulated Lustre file system.
//
// Namespace (every object's FID, type, MDT and hard links), regular files' layouts,
// directories' default layouts, OST pools, per-MDT changelogs, changelog users, masks and
// settings, stored in SQLite (WAL) under the state directory so that it
// survives remounts and can be read and cleared by other processes (lfs, lctl, the
// liblustreapi-compatible library) while the file system is mounted.
//
// Every namespace mutation appends its changelog record in the same transaction (a crash
// never leaves one without the other). Records go where Lustre puts them: a namespace
// record to the MDT holding the parent directory (a rename: the target parent), any other
// record to the MDT holding the object. Records are logged only while the MDT has at least
// one registered user and only for types in the MDT's mask; indexes strictly increase per
// MDT and are never reused. A record is freed only once every user has cleared past it.
//
// Directory placement (DNE): a directory made with an explicit MDT goes there; a child of
// the root goes to the MDTs round-robin (MDT0, MDT1, ... in creation order); any other
// directory lives on its parent's MDT. Files, links and nodes live on their parent's MDT.
// Layouts (sim_state_layout.cpp): a new regular file's layout is its request's fields over
// the nearest ancestor's default over the file system default (1 stripe of 1 MiB); its OSTs
// come round-robin from the pool's (or all) OSTs.
// FIDs: MDT i allocates from sequence 0x200000400 + i * 0x40000000 upward (a new sequence
// every 0x20000 objects); the root is [0x200000007:0x1:0x0] on MDT0.
//
// Thread-safe (one internal mutex); several processes may open the same state directory.
// Errors carry an errno in Status::code() (generic category): ENOENT, EEXIST, ENOTDIR,
// EISDIR, ENOTEMPTY, EINVAL, ENAMETOOLONG, EPERM as the kernel would return them, EINVAL for
// a clear past the last record, EIO/EBUSY for a database failure (StatusErrno() reads it).
// Masks: a record is logged when its type is in the MDT's mask (SetMask, Lustre's default
// mask initially); a user's mask selects what a reader started for that user receives.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"
#include "lustre/changelog_record.h"
#include "lustre/fid.h"

namespace fathom::lustre_sim {

using lustre::ChangelogRecord;
using lustre::Fid;

struct SimConfig {
  std::string fsname;                       // 1-8 characters [A-Za-z0-9_]
  int mdts = 1;                             // 1-16
  int osts = 4;                             // 1-64 object storage targets
  std::string jobid_var = "disable";        // an environment variable, "procname_uid" or "disable"; Lustre's default
  std::string nid = "0@lo";                 // the client NID put in records
};

// A file's layout (RAID0): its stripes' OSTs in stripe order; lmm_stripe_offset is osts[0].
struct Layout {
  uint32_t stripe_count = 1;
  uint64_t stripe_size = 1 << 20;
  std::string pool;               // "" when none
  std::vector<uint32_t> osts;     // stripe_count OST indexes
  uint32_t generation = 0;        // lmm_layout_gen
};

// A directory's default layout, or an `lfs setstripe` request: 0 / -1 / "" fields are
// unset (Lustre's "use the default": stripe_count 0, stripe_size 0, stripe_offset -1).
// stripe_count -1 means every OST of the pool (or of the file system).
struct LayoutSpec {
  int64_t stripe_count = 0;
  uint64_t stripe_size = 0;
  int stripe_offset = -1;
  std::string pool;
};

// The file system's default layout (the root's when it has none set): 1 stripe of 1 MiB.
inline constexpr int64_t kDefaultStripeCount = 1;
inline constexpr uint64_t kDefaultStripeSize = 1 << 20;

// The process performing an operation, as the client saw it.
struct Caller {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string jobid;  // already derived from jobid_var ("" when disabled or unset)
};

enum class ObjectType { kFile, kDirectory, kSymlink, kNode };

struct Entry {
  Fid fid;
  ObjectType type = ObjectType::kFile;
  int mdt = 0;
  uint32_t nlink = 1;
};

// Extra data some records carry.
struct RecordDetails {
  uint16_t flags = 0;         // per-type flags (e.g. la_valid bits for SATTR)
  uint32_t open_flags = 0;    // OPEN/CLOSE: the open mode (CLFE_OPEN)
  std::string xattr;          // XATTR: the attribute name (CLFE_XATTR)
};

// Fast mode: the MDTs' logs are generated (see lustre_sim/api/fast_log.h), not stored.
struct GeneratedLog {
  uint64_t records = 0;    // records per MDT; 0: unbounded
  uint64_t epoch_ns = 0;   // time of record 0; record i is at epoch_ns + i * 1000
};

struct ChangelogUser {
  std::string name;        // "cl1", "cl2", ...
  uint64_t cleared = 0;    // records up to this index are cleared for this user
  uint64_t mask = 0;       // the record types this user reads
};

class SimState {
 public:
  virtual ~SimState() = default;

  // Creates a new state in `dir` (which must not hold one) or opens the existing one;
  // opening checks that fsname and MDT count match (a clear error otherwise).
  static Result<std::unique_ptr<SimState>> CreateOrOpen(const std::string& dir, const SimConfig& config);
  // Opens an existing state (lfs, lctl, the library); the error names the directory.
  static Result<std::unique_ptr<SimState>> Open(const std::string& dir);

  virtual SimConfig config() = 0;
  virtual Status SetJobidVar(std::string_view var) = 0;

  // Namespace reads. Paths are relative to the file system root: "/" or "/a/b".
  virtual Result<Entry> Lookup(const Fid& parent, std::string_view name) = 0;
  virtual Result<Entry> Resolve(std::string_view path) = 0;
  virtual Result<Entry> Get(const Fid& fid) = 0;
  // Every path of `fid` (one per hard link), oldest link first as in Lustre's link EA (a
  // rename makes the renamed link the newest); empty when it no longer exists.
  virtual std::vector<std::string> Paths(const Fid& fid) = 0;

  // Namespace mutations, each with its record. `mdt` places a directory explicitly.
  // A regular file gets its layout here: `layout` (lfs setstripe) over the default of the
  // nearest ancestor directory that has one, over the file system default.
  virtual Result<Entry> Create(const Caller& caller, const Fid& parent, std::string_view name,
                               ObjectType type, std::optional<int> mdt = std::nullopt,
                               const LayoutSpec* layout = nullptr) = 0;
  virtual Status Link(const Caller& caller, const Fid& target, const Fid& new_parent,
                      std::string_view name) = 0;
  virtual Status Unlink(const Caller& caller, const Fid& parent, std::string_view name) = 0;
  virtual Status Rename(const Caller& caller, const Fid& src_parent, std::string_view src_name,
                        const Fid& dst_parent, std::string_view dst_name) = 0;
  // A non-namespace record (CL_OPEN, CL_CLOSE, CL_TRUNC, CL_SETATTR, CL_SETXATTR,
  // CL_MTIME, CL_CTIME, CL_ATIME) about `target`.
  virtual Status Record(const Caller& caller, uint32_t type, const Fid& target,
                        const RecordDetails& details = {}) = 0;

  // Layouts. A regular file's layout (ENODATA for any other object); a directory's own
  // default layout (nullopt when it has none); setting one logs LYOUT on the directory's
  // MDT (an all-unset spec removes it, as `lfs setstripe -d`).
  virtual Result<Layout> GetLayout(const Fid& fid) = 0;
  virtual Result<std::optional<LayoutSpec>> GetDirLayout(const Fid& dir) = 0;
  virtual Status SetDirLayout(const Caller& caller, const Fid& dir, const LayoutSpec& spec) = 0;

  // OST pools (names without the fsname). Errors: EEXIST, ENOENT, ENOTEMPTY (destroying a
  // pool with members), EINVAL (bad name or OST index), EEXIST/ENOENT for a member.
  virtual Status PoolNew(std::string_view pool) = 0;
  virtual Status PoolDestroy(std::string_view pool) = 0;
  virtual Status PoolAdd(std::string_view pool, uint32_t ost) = 0;
  virtual Status PoolRemove(std::string_view pool, uint32_t ost) = 0;
  virtual Result<std::vector<std::string>> Pools() = 0;
  // The pool's OSTs in index order.
  virtual Result<std::vector<uint32_t>> PoolOsts(std::string_view pool) = 0;

  // Changelogs; `mdt` is the MDT index.
  virtual Result<std::string> RegisterUser(int mdt, uint64_t mask = CHANGELOG_DEFMASK) = 0;
  virtual Status DeregisterUser(int mdt, std::string_view user) = 0;
  virtual Result<std::vector<ChangelogUser>> Users(int mdt) = 0;
  // Clears `user`'s records up to `endrec` (0: up to the current last record).
  virtual Status Clear(int mdt, std::string_view user, uint64_t endrec) = 0;
  virtual Result<uint64_t> Mask(int mdt) = 0;
  virtual Status SetMask(int mdt, uint64_t mask) = 0;
  // Up to `max` records with index >= start, in index order.
  virtual Status Read(int mdt, uint64_t start, size_t max, std::vector<ChangelogRecord>& out) = 0;
  // Highest index ever assigned on this MDT (0 if none). For a generated log: its record
  // count, or when unbounded the highest index any user has cleared.
  virtual Result<uint64_t> LastIndex(int mdt) = 0;

  // Marks this state as fast mode (generated logs): Clear then accepts any index up to the
  // generated bound, Read returns nothing, and namespace mutations fail with EROFS.
  virtual Status SetGeneratedLog(const GeneratedLog& log) = 0;
  virtual Result<std::optional<GeneratedLog>> GetGeneratedLog() = 0;
  // The state directory and its database file.
  virtual std::string dir() = 0;
  virtual std::string db_path() = 0;
};

// The errno a Status from SimState carries (EIO when none).
int StatusErrno(const Status& status);
// A failure carrying `err` (an errno) in its code, as SimState reports them.
Status ErrnoStatus(int err, std::string message);

}  // namespace fathom::lustre_sim
