// work_stack.h — the directories found but not yet read, shared by the scan's workers.
//
// Last in, first out, so that the scan goes depth-first and the set of pending directories
// stays small. Bounded: TryPush() refuses beyond the capacity and the finder then reads the
// directory itself (Scanner). Pop() blocks until there is work, or until the scan is over:
// the stack is empty and no worker is reading (a reading worker may still push), or Stop()
// was called. Thread-safe; every member may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace fathom::scan {

// A directory to read: where it is and what the scan already knows about it.
struct DirWork {
  std::string path;    // absolute
  uint64_t token = 0;  // its ScanChunk::dir_token
  uint64_t parent_token = 0;
  uint64_t root_dev = 0;  // the device of the scan root it lies under (-xdev)
  uint64_t dev = 0;       // identity seen when it was listed (0, 0 for a root): a
  uint64_t ino = 0;       // directory replaced since then is not read in its place
};

class WorkStack {
 public:
  WorkStack(size_t capacity, size_t workers);

  // Adds `work` unless the stack holds `capacity` directories already.
  bool TryPush(DirWork&& work);
  // Adds `work` whatever the size (scan roots; a worker that may not descend further).
  void Push(DirWork&& work);
  // Called by a worker: it has finished its previous directory; waits for the next one.
  // False when the scan is over or stopped.
  bool Pop(DirWork& out);
  void Stop();
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<DirWork> items_;  // guarded by mu_
  size_t capacity_;
  size_t busy_;           // guarded by mu_: workers reading a directory
  bool stopped_ = false;  // guarded by mu_
};

}  // namespace fathom::scan
