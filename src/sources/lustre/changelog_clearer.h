// changelog_clearer.h — clears one changelog user's records on a thread of its own.
//
// llapi_changelog_clear is a round trip to the MDT (in the emulator, a transaction on its shared
// state database, which waits for the other MDTs' clears): done on the thread that sends
// events on, it would hold them back for as long. Request(pos) only records that records up
// to `pos` may be cleared and wakes the thread, which batches: it clears up to the highest
// position requested so far once `every_records` records wait, or once `interval` has passed
// since the last clear (so what an idle MDT's reader last requested is cleared within
// `interval` too). A failed clear is logged and kept for TakeError(); its position is not
// tried again, a higher one requested later is. Finish() clears what was requested, then
// stops the thread; the destructor calls it.
//
// Request, Finish and destruction from one thread; TakeError, Cleared and Clears from any.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "fathom/status.h"
#include "sources/lustre/lustre_library.h"

namespace fathom::lustre_source {

class ChangelogClearer {
 public:
  ChangelogClearer(std::shared_ptr<const LustreLibrary> lib, std::string device, std::string user,
                   uint64_t every_records, std::chrono::milliseconds interval);
  ~ChangelogClearer();
  ChangelogClearer(const ChangelogClearer&) = delete;
  ChangelogClearer& operator=(const ChangelogClearer&) = delete;

  void Request(uint64_t position);
  // The first failure since the last call (Ok if none).
  Status TakeError();
  void Finish();

  uint64_t Cleared() const { return cleared_.load(); }  // highest position cleared
  uint64_t Clears() const { return clears_.load(); }    // llapi_changelog_clear calls that succeeded

 private:
  void Run();

  const std::shared_ptr<const LustreLibrary> lib_;
  const std::string device_;
  const std::string user_;
  const uint64_t every_records_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable wake_;
  uint64_t requested_ = 0;  // guarded by mu_
  bool finishing_ = false;  // guarded by mu_
  Status error_;            // guarded by mu_
  std::atomic<uint64_t> cleared_{0};
  std::atomic<uint64_t> clears_{0};
  std::thread thread_;
};

}  // namespace fathom::lustre_source
