// record.cpp — each thread's buffer, and records into it.
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "h5prov/preload/tracer.h"

namespace fathom::h5prov::preload {
namespace {

namespace f = format;

constexpr int kStates = 256;

struct ThreadState {
  SpinLock lock;
  std::atomic<bool> taken{false};
  pid_t tid = 0;
  Chunk* chunk = nullptr;
  uint64_t previous_start = 0;  // the last call's start in this chunk
  uint64_t dropped = 0;         // not yet written as a kDropped record
};

ThreadState g_states[kStates];
SpinLock g_states_lock;  // held by sweeps and fork, never by a recording thread
pthread_key_t g_key;
__thread ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

// Hands the state's buffer to the writer. Called with the state's lock held.
void Flush(ThreadState& s) {
  if (s.chunk != nullptr) QueueFullChunk(s.chunk);
  s.chunk = nullptr;
}

void Release(void* state) {
  auto* s = static_cast<ThreadState*>(state);
  {
    Hold hold(s->lock);
    Flush(*s);
  }
  t_state = nullptr;
  s->taken.store(false, std::memory_order_release);
}

ThreadState* Self() {
  if (t_state != nullptr) return t_state;
  for (ThreadState& s : g_states) {
    bool expected = false;
    if (!s.taken.load(std::memory_order_relaxed) &&
        s.taken.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
      Hold hold(s.lock);
      s.tid = static_cast<pid_t>(syscall(SYS_gettid));
      s.chunk = nullptr;
      s.dropped = 0;
      t_state = &s;
      pthread_setspecific(g_key, &s);
      return &s;
    }
  }
  return nullptr;
}

// Makes sure the thread's buffer has `room` bytes free; false if no buffer is free. Called
// with the state's lock held.
bool Room(ThreadState& s, size_t room, uint64_t start) {
  if (s.chunk != nullptr && s.chunk->used + room > sizeof(s.chunk->data)) Flush(s);
  if (s.chunk == nullptr) {
    s.chunk = TakeFreeChunk();
    if (s.chunk == nullptr) return false;
    uint8_t* p = s.chunk->data;
    p = f::PutVarint(p, static_cast<uint64_t>(s.tid));
    p = f::PutVarint(p, start);
    s.previous_start = start;
    if (s.dropped > 0) {
      *p++ = f::kDropped;
      p = f::PutVarint(p, s.dropped);
      s.dropped = 0;
    }
    s.chunk->used = static_cast<uint32_t>(p - s.chunk->data);
  }
  return true;
}

}  // namespace

bool RecordBuilder::Room(size_t n) {
  if (static_cast<size_t>(data_ + sizeof(data_) - p_) >= n) return true;
  overflowed_ = true;
  return false;
}

void RecordBuilder::String(const char* s, size_t n) {
  if (s == nullptr) n = 0;
  if (n > 2048) n = 2048;  // a name that long is cut: the record stays bounded
  Varint(n);
  if (n > 0 && Room(n)) {
    memcpy(p_, s, n);
    p_ += n;
  }
}

void RecordBuilder::String(const char* s) { String(s, s != nullptr ? strlen(s) : 0); }

void RecordBuilder::Commit(uint64_t call_start) {
  if (overflowed_) {
    CountDropped(1);
    return;
  }
  ThreadState* s = Self();
  if (s == nullptr) {
    CountDropped(1);
    return;
  }
  const bool call = data_[0] == f::kCall;
  Hold hold(s->lock);
  if (!preload::Room(*s, size() + f::kMaxVarint, call ? call_start : Now())) {
    ++s->dropped;
    CountDropped(1);
    return;
  }
  uint8_t* p = s->chunk->data + s->chunk->used;
  *p++ = data_[0];
  if (call) {
    p = f::PutVarint(p, f::Zigzag(static_cast<int64_t>(call_start - s->previous_start)));
    s->previous_start = call_start;
  }
  memcpy(p, data_ + 1, size() - 1);
  p += size() - 1;
  s->chunk->used = static_cast<uint32_t>(p - s->chunk->data);
}

void SweepAll() {
  Hold states(g_states_lock);
  for (ThreadState& s : g_states) {
    if (!s.taken.load(std::memory_order_acquire)) continue;
    Hold hold(s.lock);
    Flush(s);
  }
}

void ForgetOtherThreads() {
  for (ThreadState& s : g_states) {
    s.lock.Reset();
    s.chunk = nullptr;
    s.dropped = 0;
    if (&s != t_state) s.taken.store(false, std::memory_order_relaxed);
  }
  if (t_state != nullptr) t_state->tid = static_cast<pid_t>(syscall(SYS_gettid));
}

void LockStates() { g_states_lock.lock(); }
void UnlockStates() { g_states_lock.unlock(); }
void ResetStatesLock() { g_states_lock.Reset(); }
void CreateThreadKey() { pthread_key_create(&g_key, Release); }

}  // namespace fathom::h5prov::preload
