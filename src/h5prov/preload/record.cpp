// record.cpp — each thread's buffer, and records into it.
#include <string.h>

#include "h5prov/preload/tracer.h"
#include "preload_runtime/thread_slots.h"

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

  void Begin() {
    chunk = nullptr;
    dropped = 0;
  }
};

constinit preload_runtime::ThreadSlots<ThreadState, kStates> g_slots;
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
  g_slots.Free(s);
}

ThreadState* Self() {
  if (t_state == nullptr) t_state = g_slots.Claim();
  return t_state;
}

// Makes sure the thread's buffer has `room` bytes free; false if no buffer is free. Called
// with the state's lock held.
bool Room(ThreadState& s, size_t room, uint64_t start) {
  if (s.chunk != nullptr && s.chunk->used + room > sizeof(s.chunk->data)) Flush(s);
  if (s.chunk == nullptr) {
    s.chunk = chunks().Take();
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

// Copies `r` into the state's buffer, which has room. A kCall's start time goes right after its
// kind byte, as a delta from the previous call of the buffer. Called with the state's lock held.
void Append(ThreadState& s, const RecordBuilder& r, bool call, uint64_t call_start) {
  uint8_t* p = s.chunk->data + s.chunk->used;
  *p++ = r.data()[0];
  if (call) {
    p = f::PutVarint(p, f::Zigzag(static_cast<int64_t>(call_start - s.previous_start)));
    s.previous_start = call_start;
  }
  memcpy(p, r.data() + 1, r.size() - 1);
  p += r.size() - 1;
  s.chunk->used = static_cast<uint32_t>(p - s.chunk->data);
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
  const uint64_t now = call ? call_start : Now();
  {
    Hold hold(s->lock);
    if (!preload::Room(*s, size() + f::kMaxVarint, now)) {
      ++s->dropped;
      CountDropped(1);
    } else {
      Append(*s, *this, call, call_start);
    }
  }
  AfterRecord(now);
}

void SweepAll() {
  g_slots.ForEach([](ThreadState& s) { Flush(s); });
}

void ForgetOtherThreads() { g_slots.ForgetOthers(t_state); }

void LockStates() { g_slots.Lock(); }
void UnlockStates() { g_slots.Unlock(); }
void ResetStatesLock() { g_slots.ResetLock(); }
void CreateThreadKey() { g_slots.CreateKey(Release); }

}  // namespace fathom::h5prov::preload
