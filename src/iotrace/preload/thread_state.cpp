// thread_state.cpp — each thread's runs and buffer: the first pass of compression.
//
// An operation extends the thread's open run of the same op on the same target when its
// size, result and errno are the run's, its offset is the next of the run's stride (any
// constant stride, set by the run's second operation) and it starts in the same quantum;
// otherwise the open run is written to the buffer and a new one begins. A thread keeps a few
// runs open at once (one per target and op), so interleaved work on several files still
// compresses; the least recently extended is written when a new one needs its place.
#include <string.h>

#include "iotrace/preload/tracer.h"
#include "preload_runtime/thread_slots.h"

namespace fathom::iotrace::preload {
namespace {

namespace f = format;

constexpr int kOpenRuns = 8;
constexpr int kStates = 512;
// Room a record may need in a buffer: a run is at most 13 varints and two bytes; an object
// record is bounded separately.
constexpr size_t kRunRoom = 2 + 13 * f::kMaxVarint;

struct Run {
  bool open = false;
  Operation first;  // the first operation, as recorded
  uint64_t count = 0;
  int64_t stride = 0;
  uint64_t t_last = 0;
  uint64_t duration_sum = 0;
  uint64_t duration_min = 0;
  uint64_t duration_max = 0;
  int64_t quantum = 0;
  uint64_t last_used = 0;
};

struct ThreadState {
  SpinLock lock;
  std::atomic<bool> taken{false};
  pid_t tid = 0;
  Run runs[kOpenRuns];
  Chunk* chunk = nullptr;
  uint64_t previous_start = 0;  // the last run's t_first in this chunk
  // The last object's path in this chunk: the next one's is written as what it shares with it
  // and the rest, which makes the many names of a metadata-heavy program small.
  uint32_t previous_length = 0;
  char previous_path[512] = {};
  uint64_t uses = 0;
  uint64_t dropped_full = 0;    // not yet written as a kDropped record
  uint64_t operations = 0;      // recorded or dropped by this thread
  // The quantum of the last operation, [quantum_start, quantum_end) on the monotonic clock.
  int64_t quantum = 0;
  uint64_t quantum_start = 1;
  uint64_t quantum_end = 0;

  // Empty, for a new thread (or the thread that forked, in the child).
  void Begin() {
    chunk = nullptr;
    uses = 0;
    dropped_full = 0;
    operations = 0;
    quantum_start = 1;
    quantum_end = 0;
    for (Run& r : runs) r.open = false;
  }
};

constinit preload_runtime::ThreadSlots<ThreadState, kStates> g_slots;  // in .bss: no constructor runs at start-up
std::atomic<uint64_t> g_dropped_threads{0};
std::atomic<uint64_t> g_dropped_signal{0};
std::atomic<uint64_t> g_partial[3];
uint64_t g_partial_written[3];
__thread ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

int64_t Quantum(uint64_t t) {
  return (static_cast<int64_t>(t) + config().realtime_minus_monotonic) /
         static_cast<int64_t>(config().quantum_ns);
}

void Release(void* state);

int64_t QuantumOf(ThreadState& s, uint64_t t) {
  if (t >= s.quantum_start && t < s.quantum_end) return s.quantum;
  const int64_t q = static_cast<int64_t>(config().quantum_ns);
  s.quantum = Quantum(t);
  s.quantum_start = static_cast<uint64_t>(s.quantum * q - config().realtime_minus_monotonic);
  s.quantum_end = s.quantum_start + static_cast<uint64_t>(q);
  return s.quantum;
}

ThreadState* Self() {
  if (t_state == nullptr) t_state = g_slots.Claim();
  return t_state;
}

// Makes sure the thread's buffer has `room` bytes free; false (and the caller drops) if no
// buffer is free. Called with the state's lock held.
bool Room(ThreadState& s, size_t room, uint64_t start) {
  if (s.chunk != nullptr && s.chunk->used + room > sizeof(s.chunk->data)) {
    QueueFullChunk(s.chunk);
    s.chunk = nullptr;
  }
  if (s.chunk == nullptr) {
    s.chunk = chunks().Take();
    if (s.chunk == nullptr) return false;
    uint8_t* p = s.chunk->data;
    p = f::PutVarint(p, static_cast<uint64_t>(s.tid));
    p = f::PutVarint(p, start);
    s.previous_start = start;
    s.previous_length = 0;
    if (s.dropped_full > 0) {
      *p++ = f::kDropped;
      p = f::PutVarint(p, f::kDropBufferFull);
      p = f::PutVarint(p, s.dropped_full);
      s.dropped_full = 0;
    }
    s.chunk->used = static_cast<uint32_t>(p - s.chunk->data);
  }
  return true;
}

// Writes a run into the buffer. Called with the state's lock held.
void Emit(ThreadState& s, Run& r) {
  r.open = false;
  const Operation& o = r.first;
  if (!Room(s, kRunRoom, o.start)) {
    s.dropped_full += r.count;
    CountDropped(r.count);
    return;
  }
  uint32_t flags = 0;
  if (r.count > 1) flags |= f::kRunMany;
  if (o.has_offset) flags |= f::kRunOffset;
  if (o.result >= 0 && static_cast<uint64_t>(o.result) == o.size) flags |= f::kRunResultIsSize;
  if (o.err != 0) flags |= f::kRunErrno;
  if (o.aux != kNoObject) flags |= f::kRunAux;
  uint8_t* p = s.chunk->data + s.chunk->used;
  *p++ = f::kRun;
  *p++ = o.op;
  p = f::PutVarint(p, flags);
  p = f::PutVarint(p, o.target);
  p = f::PutVarint(p, f::Zigzag(static_cast<int64_t>(o.start - s.previous_start)));
  s.previous_start = o.start;
  p = f::PutVarint(p, r.duration_sum);
  if (r.count > 1) {
    p = f::PutVarint(p, r.count);
    p = f::PutVarint(p, r.t_last - o.start);
    p = f::PutVarint(p, r.duration_min);
    p = f::PutVarint(p, r.duration_max);
  }
  if (o.has_offset) {
    p = f::PutVarint(p, static_cast<uint64_t>(o.offset));
    if (r.count > 1) p = f::PutVarint(p, f::Zigzag(r.stride));
  }
  p = f::PutVarint(p, o.size);
  if ((flags & f::kRunResultIsSize) == 0) p = f::PutVarint(p, f::Zigzag(o.result));
  if (o.err != 0) p = f::PutVarint(p, static_cast<uint64_t>(o.err));
  if (o.aux != kNoObject) p = f::PutVarint(p, o.aux);
  s.chunk->used = static_cast<uint32_t>(p - s.chunk->data);
}

// True if `o` continues run `r`.
bool Extends(const Run& r, const Operation& o, int64_t quantum) {
  const Operation& a = r.first;
  if (a.op != o.op || a.size != o.size || a.result != o.result || a.err != o.err ||
      a.aux != o.aux || a.has_offset != o.has_offset || r.quantum != quantum) {
    return false;
  }
  if (!o.has_offset) return true;
  if (r.count == 1) return true;  // the second operation sets the stride
  return o.offset == a.offset + static_cast<int64_t>(r.count) * r.stride;
}

void Extend(Run& r, const Operation& o) {
  if (r.count == 1) r.stride = o.offset - r.first.offset;
  ++r.count;
  r.t_last = o.start;
  const uint64_t d = o.end - o.start;
  r.duration_sum += d;
  if (d < r.duration_min) r.duration_min = d;
  if (d > r.duration_max) r.duration_max = d;
}

void Begin(Run& r, const Operation& o, int64_t quantum, uint64_t use) {
  r.open = true;
  r.first = o;
  r.count = 1;
  r.stride = 0;
  r.t_last = o.start;
  r.duration_sum = r.duration_min = r.duration_max = o.end - o.start;
  r.quantum = quantum;
  r.last_used = use;
}

// Closes runs and hands the buffer over. Called with the state's lock held.
void SweepState(ThreadState& s, bool all, int64_t quantum) {
  for (Run& r : s.runs) {
    if (r.open && (all || r.quantum < quantum)) Emit(s, r);
  }
  if (s.chunk != nullptr) {
    QueueFullChunk(s.chunk);
    s.chunk = nullptr;
  }
}

void Release(void* state) {
  auto* s = static_cast<ThreadState*>(state);
  {
    Hold hold(s->lock);
    SweepState(*s, true, 0);
    CountOperations(s->operations);
    s->operations = 0;
  }
  t_state = nullptr;
  g_slots.Free(s);
}

}  // namespace

void Record(const Operation& o) {
  ThreadState* s = Self();
  if (s == nullptr) {
    CountOperations(1);
    g_dropped_threads.fetch_add(1, std::memory_order_relaxed);
    CountDropped(1);
    return;
  }
  Hold hold(s->lock);
  ++s->operations;
  const int64_t quantum = QuantumOf(*s, o.start);
  const uint64_t use = ++s->uses;
  Run* free_run = nullptr;
  Run* oldest = &s->runs[0];
  for (Run& r : s->runs) {
    if (!r.open) {
      if (free_run == nullptr) free_run = &r;
      continue;
    }
    if (r.first.target == o.target && r.first.op == o.op) {
      if (config().compress && Extends(r, o, quantum)) {
        Extend(r, o);
        r.last_used = use;
        return;
      }
      Emit(*s, r);
      free_run = &r;
      break;
    }
    if (r.last_used < oldest->last_used) oldest = &r;
  }
  Run* run = free_run;
  if (run == nullptr) {
    run = oldest;
    Emit(*s, *run);
  }
  Begin(*run, o, quantum, use);
  if (!config().compress) Emit(*s, *run);
}

void RecordObject(uint32_t id, uint64_t dev, uint64_t ino, const char* path, size_t length) {
  ThreadState* s = Self();
  if (s == nullptr) return;  // the reader names the object by its id
  if (length > 4000) length = 4000;
  Hold hold(s->lock);
  if (!Room(*s, 2 + 5 * f::kMaxVarint + length, Now())) return;
  uint8_t* p = s->chunk->data + s->chunk->used;
  *p++ = f::kObject;
  p = f::PutVarint(p, id);
  p = f::PutVarint(p, dev);
  p = f::PutVarint(p, ino);
  size_t shared = 0;
  while (shared < s->previous_length && shared < length && s->previous_path[shared] == path[shared]) ++shared;
  p = f::PutVarint(p, shared);
  p = f::PutVarint(p, length - shared);
  if (length > shared) memcpy(p, path + shared, length - shared);
  p += length - shared;
  s->chunk->used = static_cast<uint32_t>(p - s->chunk->data);
  if (length <= sizeof(s->previous_path)) {
    if (length > shared) memcpy(s->previous_path + shared, path + shared, length - shared);
    s->previous_length = static_cast<uint32_t>(length);
  } else {
    s->previous_length = 0;
  }
}

void NotePartial(f::PartialWhat what) { g_partial[what].fetch_add(1, std::memory_order_relaxed); }

void NoteDropped(f::DropReason reason) {
  CountOperations(1);
  CountDropped(1);
  (reason == f::kDropInSignalHandler ? g_dropped_signal : g_dropped_threads)
      .fetch_add(1, std::memory_order_relaxed);
}

void Sweep(bool all) {
  uint8_t payload[64];
  uint8_t* p = payload;
  const int64_t quantum = Quantum(Now());
  g_slots.ForEach([&](ThreadState& s) { SweepState(s, all, quantum); });
  // What no thread's buffer can carry: drops for want of a state, and partial observation.
  // Queued as a buffer of its own: the writer lock is never taken under the states lock.
  Chunk* chunk = chunks().Take();
  if (chunk == nullptr) return;  // written at a later sweep
  p = f::PutVarint(p, 0);
  p = f::PutVarint(p, Now());
  const uint8_t* const empty = p;
  const uint64_t threads = g_dropped_threads.exchange(0, std::memory_order_relaxed);
  if (threads > 0) {
    *p++ = f::kDropped;
    p = f::PutVarint(p, f::kDropTooManyThreads);
    p = f::PutVarint(p, threads);
  }
  const uint64_t signal = g_dropped_signal.exchange(0, std::memory_order_relaxed);
  if (signal > 0) {
    *p++ = f::kDropped;
    p = f::PutVarint(p, f::kDropInSignalHandler);
    p = f::PutVarint(p, signal);
  }
  for (uint8_t what : {f::kPartialIoUring, f::kPartialAio}) {
    const uint64_t n = g_partial[what].load(std::memory_order_relaxed);
    if (n != g_partial_written[what]) {
      *p++ = f::kPartial;
      p = f::PutVarint(p, what);
      p = f::PutVarint(p, n - g_partial_written[what]);
      g_partial_written[what] = n;
    }
  }
  if (p == empty) {
    chunks().Release(chunk);
    return;
  }
  memcpy(chunk->data, payload, static_cast<size_t>(p - payload));
  chunk->used = static_cast<uint32_t>(p - payload);
  QueueFullChunk(chunk);
}

void ForgetOtherThreads() {
  g_slots.ForgetOthers(t_state);
  g_dropped_threads.store(0, std::memory_order_relaxed);
  g_dropped_signal.store(0, std::memory_order_relaxed);
  for (int i = 0; i < 3; ++i) {
    g_partial[i].store(0, std::memory_order_relaxed);
    g_partial_written[i] = 0;
  }
}

uint64_t OperationsOfThreads() {
  uint64_t n = 0;
  g_slots.ForEach([&](ThreadState& s) { n += s.operations; });
  return n;
}

void LockStates() { g_slots.Lock(); }
void UnlockStates() { g_slots.Unlock(); }
void ResetStatesLock() { g_slots.ResetLock(); }
void CreateThreadKey() { g_slots.CreateKey(Release); }

}  // namespace fathom::iotrace::preload
