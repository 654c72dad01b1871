// chunk_pool.h — the fixed pool of buffers a preloaded tracer records into.
//
// kCount buffers of kSize bytes, mapped at the first use; a buffer's pages are touched only
// when it is first handed out, so a process that records little costs little. A thread takes a
// free buffer, fills it and queues it; the writer takes the whole queue, writes it and releases
// the buffers. No buffer free: Take returns nullptr and the caller counts what it drops (the
// tracer never blocks or allocates).
//
// Threading: every member takes the pool's lock; Lock/Unlock hold it over a fork, Reset (in
// the child) frees every buffer.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "preload_runtime/spin_lock.h"

namespace fathom::preload_runtime {

template <size_t kSize, size_t kCount>
class ChunkPool {
 public:
  struct Chunk {
    uint32_t used = 0;  // bytes of payload
    Chunk* next = nullptr;
    uint8_t data[kSize - 16];
  };
  static_assert(sizeof(Chunk) == kSize);

  // A free buffer, emptied; nullptr when none is free (or the pool could not be mapped).
  Chunk* Take() {
    Hold hold(lock_);
    if (pool_ == nullptr) Map();
    Chunk* c = free_;
    if (c != nullptr) {
      free_ = c->next;
    } else if (pool_ != nullptr && fresh_ < kCount) {
      c = &pool_[fresh_++];
    } else {
      return nullptr;
    }
    c->used = 0;
    c->next = nullptr;
    return c;
  }

  // Queues a filled buffer for the writer; true when the queue has just reached a quarter of
  // the pool (time to wake the writer).
  bool Queue(Chunk* chunk) {
    Hold hold(lock_);
    chunk->next = nullptr;
    if (tail_ != nullptr) {
      tail_->next = chunk;
    } else {
      head_ = chunk;
    }
    tail_ = chunk;
    return ++queued_ == kCount / 4;
  }

  // The queued buffers, in order (linked by `next`); the queue is left empty.
  Chunk* TakeQueue() {
    Hold hold(lock_);
    Chunk* list = head_;
    head_ = tail_ = nullptr;
    queued_ = 0;
    return list;
  }

  void Release(Chunk* chunk) {
    Hold hold(lock_);
    chunk->next = free_;
    free_ = chunk;
  }

  // A forked child: every buffer is free again.
  void Reset() {
    lock_.Reset();
    free_ = head_ = tail_ = nullptr;
    fresh_ = 0;
    queued_ = 0;
  }
  void Lock() { lock_.lock(); }
  void Unlock() { lock_.unlock(); }

 private:
  void Map() {
    void* memory = mmap(nullptr, kCount * sizeof(Chunk), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory != MAP_FAILED) pool_ = static_cast<Chunk*>(memory);
  }

  SpinLock lock_;
  Chunk* pool_ = nullptr;
  Chunk* free_ = nullptr;  // released buffers
  size_t fresh_ = 0;       // pool_[fresh_...] were never handed out
  Chunk* head_ = nullptr;
  Chunk* tail_ = nullptr;
  size_t queued_ = 0;
};

}  // namespace fathom::preload_runtime
