// trace_sink.h — the trace file of one process image, written in frames (docs/formats.md):
//   u32le(magic) u32le(payload length) u32le(CRC-32 of payload) payload
//
// Every access is a system call (never libc's functions, which a tracer preloaded beside this
// one would record). The file is opened for each append and closed again, so the tracer holds
// no descriptor a program could close or reuse; the descriptor is moved above the numbers a
// program's opens take, and checked to still be the trace file (device and inode) just before
// the write: a program that closes every descriptor between the open and the write and opens
// a file of its own must not get frames in its file. A short write (a full disk) leaves a cut
// frame, where the reader stops.
//
// Threading: appends are serialized by the sink's mutex; Lock/Unlock hold it over a fork and
// Reset (in the child) makes it new.
#pragma once

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "iotrace/trace_format.h"

namespace fathom::preload_runtime {

class TraceSink {
 public:
  explicit constexpr TraceSink(uint32_t frame_magic) : magic_(frame_magic) {}

  // Makes `path` (which must not exist) holding `header`; false with errno if it cannot.
  bool Create(const char* path, const uint8_t* header, size_t size);
  const char* path() const { return path_; }

  // Appends one frame holding `payload`.
  void WriteFrame(const uint8_t* payload, size_t size);
  // Appends every buffer of `list` (linked by `next`, payload `data` of `used` bytes) as a frame
  // of its own, in order, handing each to `release` once written.
  template <class Chunk, class Release>
  void WriteChunks(Chunk* list, Release release);

  void Lock() { pthread_mutex_lock(&mutex_); }
  void Unlock() { pthread_mutex_unlock(&mutex_); }
  void Reset() { pthread_mutex_init(&mutex_, nullptr); }

 private:
  static constexpr int kBatch = 64;
  static constexpr size_t kFrameHeaderSize = iotrace::format::kFrameHeaderSize;
  void Header(uint8_t* header, const uint8_t* payload, size_t size) const;
  // With the mutex held.
  bool Append(const iovec* parts, int count);

  uint32_t magic_;
  char path_[1400] = {};
  uint64_t dev_ = 0, ino_ = 0;
  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
};

template <class Chunk, class Release>
void TraceSink::WriteChunks(Chunk* list, Release release) {
  Lock();
  iovec parts[2 * kBatch];
  uint8_t headers[kBatch][kFrameHeaderSize];
  Chunk* batch[kBatch];
  while (list != nullptr) {
    int n = 0;
    while (list != nullptr && n < kBatch) {
      Chunk* c = list;
      list = c->next;
      Header(headers[n], c->data, c->used);
      parts[2 * n] = {headers[n], kFrameHeaderSize};
      parts[2 * n + 1] = {c->data, c->used};
      batch[n++] = c;
    }
    Append(parts, 2 * n);
    for (int i = 0; i < n; ++i) release(batch[i]);
  }
  Unlock();
}

}  // namespace fathom::preload_runtime
