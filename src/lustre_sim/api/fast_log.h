// fast_log.h — the generated changelog and namespace of a fast-mode file system.
//
// Record `index` (1, 2, ...) of MDT `m` is a pure function of (m, index) and the log's
// time base, so any reader, in any process, at any time, sees the same log. Each MDT owns
// one directory "mdtM" under the root (made by record 1, on MDT m's log) and then repeats
// a 4-record cycle per file k = 0, 1, ... (index = 2 + 4k + phase):
//   phase 0: MKDIR "mdtM/d<j>" when k % 4096 == 0 (j = k / 4096), else MTIME of file k-1
//   phase 1: CREAT "mdtM/d<j>/f<k>"
//   phase 2: RENME f<k> -> g<k> in the same directory when k % 64 == 63, else CLOSE of f<k>
//   phase 3: UNLNK of file k-1024 (CLF_UNLINK_LAST) when k >= 1024, else SATTR of file k
// so about 1024 files are alive at any point. Every record carries a jobid, uid/gid and the
// NID. FIDs: object ordinal q of MDT m is [0x200000400 + m*0x40000000 + q/0x20000 :
// q%0x20000 + 1 : 0]; q = 0 is the MDT's directory, directory j is q = 1 + 4097j and file k
// is q = 2 + 4097(k/4096) + k%4096.
//
// Pacing: with spec.rate = N > 0 records per second per MDT, record i is due at
// epoch_ns + i * 1e9 / N (CLOCK_REALTIME) and stamped with that time; readers hand it out no
// earlier. With rate 0 (unlimited) every record is available at once, stamped epoch_ns + i * 1000.
//
// PathAt answers fid2path as of a point in the log: the namespace after record `applied`.
// Immutable after construction; safe to share between threads.
#pragma once

#include <cstdint>
#include <string>

#include "fathom/status.h"
#include "lustre/changelog_record.h"
#include "lustre/fid.h"

namespace fathom::lustre_sim {

struct FastLogSpec {
  int mdts = 1;
  uint64_t records = 0;     // per MDT; 0: unbounded
  uint64_t epoch_ns = 0;    // record i is at epoch_ns + i * 1000 (rate 0) or DueNs(i)
  uint64_t rate = 0;        // records per second per MDT; 0: unlimited (all due at once)
  std::string nid = "0@lo";
};

class FastLog {
 public:
  static constexpr uint64_t kFilesPerDir = 4096;
  static constexpr uint64_t kRenameEvery = 64;
  static constexpr uint64_t kLiveFiles = 1024;

  explicit FastLog(FastLogSpec spec) : spec_(std::move(spec)) {}
  const FastLogSpec& spec() const { return spec_; }

  // True when the MDT's log has record `index` (1-based).
  bool Has(uint64_t index) const { return index >= 1 && (spec_.records == 0 || index <= spec_.records); }
  // When record `index` becomes available (CLOCK_REALTIME ns): epoch_ns + index * 1e9 / rate,
  // or epoch_ns when the rate is unlimited.
  uint64_t DueNs(uint64_t index) const;
  // Whether record `index` is available at `now_ns` (always with an unlimited rate).
  bool DueBy(uint64_t index, uint64_t now_ns) const { return spec_.rate == 0 || DueNs(index) <= now_ns; }
  // The record's timestamp: its due time when paced, else epoch_ns + index * 1000.
  uint64_t TimeNs(uint64_t index) const { return spec_.rate == 0 ? spec_.epoch_ns + index * 1000 : DueNs(index); }
  // Fills `out` with record `index` of `mdt` (which must exist: Has(index), mdt < mdts).
  // Reuses `out`'s string storage.
  void RecordAt(int mdt, uint64_t index, lustre::ChangelogRecord& out) const;
  // Only the record type (cheap mask filtering).
  static uint32_t TypeAt(uint64_t index);

  // The path (relative to the root, no leading slash; "" for the root) of `fid` once
  // `applied` records of its MDT have happened; ENOENT when it does not exist then, EINVAL
  // when the FID cannot belong to this file system.
  Result<std::string> PathAt(const lustre::Fid& fid, uint64_t applied) const;
  // The MDT whose sequence range holds `fid` (-1 if none).
  int MdtOf(const lustre::Fid& fid) const;

  static lustre::Fid ObjectFid(int mdt, uint64_t ordinal);

 private:
  FastLogSpec spec_;
};

}  // namespace fathom::lustre_sim
