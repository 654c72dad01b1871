// record_handoff.h — unpacked record batches from the thread that receives a changelog to
// the thread that resolves it.
//
// Receiving (liblustreapi, unpacking) and resolving (cache, paths, events) each take about
// half of a record's cost, so they run on two threads. At most `depth` batches exist: the
// receiver takes an empty one (recycled, so strings keep their capacity), fills it, pushes
// it; the resolver pops it, resolves it and gives it back. Finish() ends the stream with a
// status (the receiver's error, if any) that Pop() reports after the last batch. Stop()
// wakes both sides and makes every call give up.
// Thread-safe: one receiver thread and one resolver thread, Stop() from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "fathom/status.h"
#include "sources/lustre/record_batch.h"

namespace fathom::lustre_source {

class RecordHandoff {
 public:
  explicit RecordHandoff(size_t depth) : depth_(depth) {}

  // An empty batch, waiting while `depth` batches are in use; nullptr after Stop().
  std::unique_ptr<RecordBatch> Empty();
  // Hands a filled batch to the resolver; false after Stop().
  bool Push(std::unique_ptr<RecordBatch> batch);
  // No more batches; Pop() returns `status` once the pushed ones are taken.
  void Finish(Status status);

  // The next batch, waiting for one; nullptr after Stop() or at the end (then `*finished`
  // holds what Finish() was given).
  std::unique_ptr<RecordBatch> Pop(Status* finished);
  void Recycle(std::unique_ptr<RecordBatch> batch);

  void Stop();

 private:
  const size_t depth_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t created_ = 0;                              // guarded by mu_
  std::vector<std::unique_ptr<RecordBatch>> free_;  // guarded by mu_
  std::deque<std::unique_ptr<RecordBatch>> full_;   // guarded by mu_
  bool finished_ = false;                           // guarded by mu_
  Status finish_status_;                            // guarded by mu_
  bool stopped_ = false;                            // guarded by mu_
};

}  // namespace fathom::lustre_source
