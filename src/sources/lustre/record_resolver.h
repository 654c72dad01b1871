// record_resolver.h — turns Lustre changelog records into standard events.
//
// FSMonitor's Algorithm 1, improved. Paths come, in this order, from
//  1. the FidPathCache, which learns from the records themselves: CREAT/MKDIR/HLINK/SLINK/
//     MKNOD carry the new object's FID, its parent and its name, RENME moves one entry (a
//     directory's descendants follow), UNLNK/RMDIR forget;
//  2. a later record of the same batch that names the FID (an UNLNK/RMDIR of it, or a RENME
//     moving it): that is where the object was when this record was written, even when it
//     is gone by now (rm -rf: the files' records precede their directory's RMDIR);
//  3. fid2path, whose answer is cached as an absolute entry.
// Namespace records are placed through their parent and name (UNLNK/RMDIR cannot be placed
// any other way; a hard link's CREATE names the link that was made, a DELETE the link that
// went). Other records carry no name (a setattr that changes the mtime of a file carries its
// parent, p=, but not which of its names), so they are placed through the object's FID: a
// file with several hard links at its oldest surviving link, the first that fid2path lists
// (Lustre's link EA order; the one Lustre names the parent of in p=). To keep that so, the
// cache learns a file's name from its creation only, never from an HLINK, and forgets it
// when the file loses a link, or is renamed after a hard link to it was seen (the renamed
// link becomes the newest). A file cached from fid2path whose links were all made before
// the reader started is followed through its renames like any file. When an UNLNK/RMDIR's parent resolves nowhere the
// event is DELETE|PARENT_REMOVED, reported at the first root with the name in its attrs.
// An object record whose object is gone before it could be placed (fid2path fails: a
// collector restarted with a cold cache, a file deleted since) is reported at the path
// Lustre itself names the object by, MOUNT/.lustre/fid/[FID] (a creation whose parent is
// gone: MOUNT/.lustre/fid/[PFID]/NAME), so that no record is dropped; such paths are inside
// a root only when the whole mount is watched.
//
// Kinds: CREAT/HLINK/SLINK/MKNOD → CREATE, MKDIR → CREATE|ISDIR, UNLNK → DELETE,
// RMDIR → DELETE|ISDIR, RENME → [DELETE of the overwritten target] MOVED_FROM + MOVED_TO
// (one cookie, ISDIR when the object is known to be a directory; only the half inside the
// roots when it crosses their edge), MTIME/TRUNC → MODIFY, CLOSE → CLOSE_WRITE,
// SATTR/XATTR/CTIME → ATTRIB, OPEN → OPEN, ATIME → ACCESS; MARK, EXT, LYOUT, HSM, MIGRT,
// FLRW, RESYNC, GXATR, NOPEN give no event (counted in `ignored`).
// Event.attrs: "fid" (the object the event is about: the renamed object for rename halves),
// "pfid" (its parent: the old one for MOVED_FROM), "mdt", "recno", "type", "flags", and
// "uid", "gid", "jobid", "nid" when the record carries them; "name" for PARENT_REMOVED.
//
// Not thread-safe: one resolver per changelog, used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fathom/event.h"
#include "fathom/status.h"
#include "lustre/changelog_record.h"
#include "sources/lustre/fid_path_cache.h"

namespace fathom::lustre_source {

// The current path of a FID relative to the file system root ("" for the root), or an error
// when it no longer exists.
using Fid2PathFn = std::function<Result<std::string>(const lustre::Fid&)>;

struct ResolverConfig {
  std::string mount;   // absolute client mount point
  std::string source;  // Event.source, e.g. "lustre:testfs-MDT0000"
  int mdt = 0;
  std::vector<std::string> roots;   // absolute, inside the mount; empty: the whole mount
  bool recursive = true;            // whole subtrees, else only the roots' entries
  uint32_t kinds = kind::kDefault;  // kinds wanted (OVERFLOW always)
  size_t cache_size = 0;
  // The file system has several MDTs (DNE): a directory can be renamed by a record logged on
  // another MDT (a rename is logged on its target directory's MDT only), which this reader
  // never sees, so a path built from the cache may be stale. Then the directory each record
  // is placed through (its parent, or the object's directory) is checked with fid2path, once
  // per batch, and its present path is used when they differ.
  bool check_directories = false;
};

struct ResolverCounters {
  uint64_t records = 0;         // records resolved
  uint64_t ignored = 0;         // records of types that give no event
  uint64_t unresolved = 0;      // records (or rename halves) not placed by path (see above)
  uint64_t unknown = 0;         // records of unknown type or lacking required fields
  uint64_t parent_removed = 0;  // PARENT_REMOVED events
  uint64_t fid2path_calls = 0;
  uint64_t fid2path_failures = 0;
  uint64_t batch_namings = 0;  // FIDs placed by a later record of the same batch
};

class RecordResolver {
 public:
  RecordResolver(ResolverConfig config, Fid2PathFn fid2path);

  // Resolves `batch` (in index order), appending events to `out` in record order.
  void Resolve(std::span<const lustre::ChangelogRecord> batch, std::vector<Event>& out);

  const ResolverCounters& counters() const { return counters_; }
  const FidPathCache& cache() const { return cache_; }

 private:
  struct Naming {
    lustre::Fid parent;
    const std::string* name;
  };

  void ResolveOne(const lustre::ChangelogRecord& r, size_t at, std::vector<Event>& out);
  void ResolveCreate(const lustre::ChangelogRecord& r, size_t at, std::vector<Event>& out);
  void ResolveRemove(const lustre::ChangelogRecord& r, size_t at, std::vector<Event>& out);
  void ResolveRename(const lustre::ChangelogRecord& r, size_t at, std::vector<Event>& out);
  void ResolveData(const lustre::ChangelogRecord& r, uint32_t mask, size_t at,
                   std::vector<Event>& out);

  // The path of `fid` as of record `at`, relative to the file system root, into `rel`;
  // false when it cannot be placed. `is_dir`: `fid` is a directory (some record's parent),
  // and is noted as one in the cache.
  bool PathOf(const lustre::Fid& fid, size_t at, std::string& rel, bool is_dir);
  // PathOf(), and with check_directories the directory `fid` is (is_dir) or is in checked
  // with fid2path, once per directory and batch: where it is now when that differs from the
  // cache (then learned as its entry); the cache's path when fid2path finds nothing (gone
  // since).
  bool CheckedPathOf(const lustre::Fid& fid, size_t at, std::string& rel, bool is_dir);
  // Whether fid2path puts the directory `fid` elsewhere than `rel` (then `rel` is that path);
  // asked once per batch.
  bool CheckDirectory(const lustre::Fid& fid, std::string& rel);
  bool Fid2Path(const lustre::Fid& fid, std::string& rel);
  // The first record after `at` that names `fid` (removes or renames it).
  std::optional<Naming> NamingAfter(const lustre::Fid& fid, size_t at);
  void BuildNamings();

  bool Wanted(uint32_t mask) const;
  // Index of the root `abs` is reported under, or -1. `self`: the event is about `abs`
  // itself (a root's own ATTRIB), not about an entry of its parent.
  int MatchRoot(const std::string& abs, bool self) const;
  // mount + "/" + rel [+ "/" + name], in one allocation.
  std::string Absolute(const std::string& rel, std::string_view name = {}) const;
  // MOUNT/.lustre/fid/[FID]: how Lustre names an object by its FID.
  std::string FidPath(const lustre::Fid& fid) const;
  void Emit(std::vector<Event>& out, uint32_t mask, std::string abs, bool self,
            const lustre::ChangelogRecord& r, const lustre::Fid& fid, const lustre::Fid& pfid);
  void EmitParentRemoved(std::vector<Event>& out, uint32_t mask, const lustre::ChangelogRecord& r);
  void AddEvent(std::vector<Event>& out, uint32_t mask, uint32_t cookie, int root, std::string path,
                const lustre::ChangelogRecord& r, const lustre::Fid& fid, const lustre::Fid& pfid,
                const std::string* name) const;
  void CountUnresolved(const lustre::ChangelogRecord& r, const char* what);
  void CountUnknown(const lustre::ChangelogRecord& r, const char* what);
  uint32_t NextCookie();

  ResolverConfig config_;
  Fid2PathFn fid2path_;
  FidPathCache cache_;
  ResolverCounters counters_;
  uint32_t last_cookie_ = 0;

  // The batch being resolved and, built on the first cache miss, its naming records.
  std::span<const lustre::ChangelogRecord> batch_;
  bool namings_built_ = false;
  std::unordered_map<lustre::Fid, std::vector<uint32_t>, lustre::FidHash> namings_;
  // Directories whose path fid2path confirmed or corrected in this batch (check_directories).
  std::unordered_set<lustre::Fid, lustre::FidHash> checked_;
  std::vector<std::string> names_;  // scratch for PathOf (names from the object up)
  std::string rel_;                 // scratch: the path being resolved
};

}  // namespace fathom::lustre_source
