// changelog_reader.h — what llapi_changelog_start hands out: a reader of one MDT's changelog.
//
// A stored log (FUSE mode) is read from the state database in batches through the reader's
// own SimState connection. Its descriptor (llapi_changelog_get_fd) is readable exactly when
// records past the last one handed out may exist, as a Lustre changelog device is: a watcher
// thread sets it when the MDT's last index reaches the next record wanted, checking on every
// change of the state directory (inotify; the WAL changes on every commit) and at least every
// 20 ms (a commit becomes visible only after its WAL write); Recv clears it when it finds
// nothing new. In follow mode Recv blocks until a record arrives. A generated log (fast
// mode) is produced record by record by FastLog. Unpaced, it is always ready until a finite
// one ends (an eventfd). Paced (fast_log.h), its descriptor is a CLOCK_REALTIME timerfd armed
// at the due time of the next record: readable exactly when that record is due; a record not
// yet due is end-of-log (1) without follow, and with follow Recv sleeps until it is due.
// Records are handed out as malloc'd struct changelog_rec (free() or llapi_changelog_free),
// packed with the extensions the start flags and set_xflags ask for; records whose type is
// not in the reader's mask (the user's, for llapi_changelog_start_user) are skipped.
// One thread at a time per reader, as with liblustreapi.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/unique_fd.h"
#include "fathom/status.h"
#include "lustre/changelog_record.h"
#include "lustre/lustre_abi.h"
#include "lustre_sim/api/api_context.h"

namespace fathom::lustre_sim {

class ChangelogReader {
 public:
  // `user` empty: every record type; else the user must exist and `mask` 0 means its mask.
  static Result<std::unique_ptr<ChangelogReader>> Start(int flags, std::string_view device, std::string_view user,
                                                        uint64_t mask, long long startrec);

  // 0 and a record in *out, 1 at the end of the log (not in follow mode), or -errno.
  int Recv(changelog_rec** out);
  void SetExtraFlags(uint64_t extra) { extra_flags_ = extra; }
  ~ChangelogReader();
  int fd() const { return wake_fd_.get(); }
  // Whether Recv has a record at hand (it will not block): buffered (stored mode), or the
  // generated log has a record that is due (fast mode).
  bool InBuffer() const;

 private:
  ChangelogReader() = default;
  // Next stored record wanted by the mask into `current_`; 0, 1 or -errno.
  int NextStored();
  int NextGenerated();
  // Paced generated log: whether record next_ is due now (reads the clock only when the last
  // reading is too old to tell).
  bool NextIsDue();
  // Paced generated log: arms the timerfd at the due time of next_ (disarms it past the end
  // of a finite log); re-arming also clears a previous expiry.
  void ArmForNext();
  void WaitForChange();
  // Stored mode: sets wake_fd_ whenever the log holds records from next_ on.
  void WatchStoredLog(UniqueFd notify);
  void SetReady();
  void ClearReady();
  int Deliver(changelog_rec** out);

  int flags_ = 0;
  uint64_t extra_flags_ = 0;
  uint64_t mask_ = CHANGELOG_ALLMASK;
  int mdt_ = 0;
  std::atomic<uint64_t> next_{1};
  std::unique_ptr<SimState> state_;          // stored mode: this reader's own connection
  std::shared_ptr<const FastLog> fast_;      // fast mode
  FastFrontier* frontier_ = nullptr;
  std::vector<lustre::ChangelogRecord> batch_;
  size_t pos_ = 0;
  lustre::ChangelogRecord current_;
  std::string packed_;  // current_ packed (Deliver), its storage reused
  UniqueFd wake_fd_;                         // eventfd: set by the watcher (stored), always (fast);
                                             // timerfd for a paced generated log
  bool paced_ = false;                       // generated log with a rate
  uint64_t clock_ns_ = 0;                    // paced: the last CLOCK_REALTIME reading
  std::atomic<bool> stopping_{false};
  std::thread watcher_;                      // stored mode
};

}  // namespace fathom::lustre_sim
