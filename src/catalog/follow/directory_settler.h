// directory_settler.h — makes the catalog's directories hold what the live file system holds,
// once the event stream has nothing more to say.
//
// While the catalog applies a stream that lags the file system, what it reads of a path
// belongs to the present, not to the stream's point: an object another name held in between,
// a directory since renamed away and replaced. The applier keeps the catalog consistent with
// the stream and notes each directory where that may have mattered; once it has caught up,
// the settler compares each such directory with the live one and corrects the catalog.
//
// Settle() first checks, component by component, that the directory's path leads to the same
// objects in the catalog and on disk (device and inode). Where it does not, the highest
// mismatching component is settled in its (matching) parent instead. A directory whose path
// matches has its names compared: a name the disk lacks is removed, a name the catalog lacks
// or that leads to another object is put (replacing what held it), every attribute is
// refreshed. A directory that arrives or changes object this way has unknown contents: it is
// left in `rescans` for the caller to scan after committing. So a directory is never put
// inside its own subtree: the path it is put under is known to match the disk.
//
// Used from one thread, inside the caller's batch; reads the catalog through `catalog`, whose
// batch `batch` is (a reader on the same connection sees the batch's writes).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "fathom/catalog.h"
#include "fathom/status.h"

namespace fathom::catalog {

// Adds what lstat does not say (Lustre's view) to the attributes read of the object at `path`
// (`dirfd`: a descriptor on its file system, or -1).
using DescribeObject = std::function<void(int dirfd, const std::string& path, Attrs& attrs)>;

class DirectorySettler {
 public:
  // `roots`: the catalog's roots; `seen`: the observation every change is made with;
  // `describe` (may be empty): applied to what is read before it is put.
  DirectorySettler(Catalog& catalog, Batch& batch, const std::vector<std::string>& roots,
                   const Observation& seen, DescribeObject describe);

  // Settles the directory at `path` (absolute); subtrees to rescan are added to `rescans`.
  Status Settle(const std::string& path, std::vector<std::string>& rescans);

  uint64_t directories() const { return listed_.size(); }  // directories whose names were compared
  uint64_t names_corrected() const { return corrected_; }

 private:
  Status SettleListing(const std::string& path, const Node& dir, const Attrs& live,
                       std::vector<std::string>& rescans);
  bool IsRoot(const std::string& path) const;

  Catalog& catalog_;
  Batch& batch_;
  const std::vector<std::string>& roots_;
  Observation seen_;
  DescribeObject describe_;
  std::set<std::string> matching_;  // paths known to lead to the same objects
  std::set<std::string> listed_;    // directories whose names were compared
  uint64_t corrected_ = 0;
};

}  // namespace fathom::catalog
