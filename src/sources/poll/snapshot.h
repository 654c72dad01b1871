// snapshot.h — what one scan pass saw, kept compactly for the next pass to be compared with:
// per object its identity (st_dev, st_ino), its parent, its name and the attributes whose
// changes are reported (mode, uid, gid, nlink, size, mtime, ctime): 84 bytes per name plus
// the name's bytes, in three flat arrays (no per-object allocation).
//
// Built from the scanner's chunks by SnapshotBuilder (a ScanSink: one thread). A finished
// Snapshot is read-only and may be read from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "catalog/scan/scan_sink.h"

namespace fathom::poll_internal {

inline constexpr uint32_t kNoParent = UINT32_MAX;

struct Object {
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint32_t parent = kNoParent;  // index of the directory holding it; kNoParent for a root
  uint32_t name_len = 0;
  uint64_t name_off = 0;  // in Snapshot::names_; for a root: its absolute path
  uint32_t mode = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint32_t nlink = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
};

class Snapshot {
 public:
  size_t size() const { return objects_.size(); }
  const Object& at(uint32_t i) const { return objects_[i]; }
  std::string_view name(uint32_t i) const {
    return std::string_view(names_).substr(objects_[i].name_off, objects_[i].name_len);
  }
  // The absolute path of object i.
  std::string Path(uint32_t i) const;
  // The path of the root object i lies under.
  std::string_view RootOf(uint32_t i) const;
  uint32_t Depth(uint32_t i) const;

  // The object that is "the same" as `o` of another snapshot whose parent corresponds to
  // `parent_here` (an index in this snapshot, or kNoParent): for a directory or a file with
  // one link, the object with o's identity wherever it is; for a file with several links
  // (which one identity cannot tell apart), the one with the same identity, parent and name.
  // kNoParent when there is none.
  uint32_t Match(const Object& o, std::string_view name, uint32_t parent_here) const;

  // When the pass that made the snapshot ended (wall clock, ns; 0: unknown). Every object it
  // holds was born before then.
  int64_t ended_ns() const { return ended_ns_; }
  void set_ended_ns(int64_t ns) { ended_ns_ = ns; }

 private:
  friend class SnapshotBuilder;
  uint32_t Add(const Object& o, std::string_view name);
  // Called once, when the pass is over: drops the second sightings of names that moved during
  // the pass and sorts the identity index.
  void Seal();
  void SortIdentities();

  std::vector<Object> objects_;
  std::string names_;
  std::vector<uint32_t> by_identity_;  // object indexes ordered by (dev, ino)
  int64_t ended_ns_ = 0;
};

class SnapshotBuilder : public scan::ScanSink {
 public:
  void OnChunk(scan::ScanChunk&& chunk) override;
  void OnProblem(scan::ScanProblem&& problem) override;
  // The snapshot built; the builder is empty afterwards.
  Snapshot Take();
  uint64_t problems() const { return problems_; }

 private:
  Snapshot snap_;
  std::unordered_map<uint64_t, uint32_t> dirs_;  // scan token -> object index
  uint64_t problems_ = 0;
};

}  // namespace fathom::poll_internal
