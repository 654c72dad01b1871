// writer.cpp — libfathom-h5.so's buffers and writer (the runtime of src/preload_runtime/).
//
// Every 200 ms (or when a quarter of the pool is queued) every thread's partial buffer is taken
// and the queued ones are appended to the trace file as frames: by the writer thread in a
// multi-threaded program, by the recording thread itself in a single-threaded one (AfterRecord
// in tracer.h says why). A killed single-threaded program loses what it recorded since the last
// write: at most 200 ms of a steady stream of calls, or the calls of a burst it made before
// computing on without calling HDF5.
#include <sys/single_threaded.h>

#include "h5prov/preload/tracer.h"
#include "preload_runtime/writer_thread.h"

namespace fathom::h5prov::preload {
namespace {

namespace f = format;

constexpr uint64_t kPeriodNs = 200'000'000;

constinit ChunkPool g_chunks;
constinit preload_runtime::TraceSink g_sink{f::kFrameMagic};
constinit preload_runtime::WriterThread g_writer;
std::atomic<uint64_t> g_calls{0};
std::atomic<uint64_t> g_dropped{0};
std::atomic<uint64_t> g_next_write{0};    // when the recording thread writes next (no writer thread)
std::atomic<bool> g_write_soon{false};    // a quarter of the pool is queued
std::atomic<bool> g_writer_running{false};

void Tick() {
  Internal internal;
  SweepAll();
  WriteQueued();
}

}  // namespace

ChunkPool& chunks() { return g_chunks; }
preload_runtime::TraceSink& sink() { return g_sink; }

void QueueFullChunk(Chunk* chunk) {
  if (!g_chunks.Queue(chunk)) return;
  if (g_writer_running.load(std::memory_order_acquire)) {
    g_writer.Wake();
  } else {
    g_write_soon.store(true, std::memory_order_release);
  }
}

void AfterRecord(uint64_t now) {
  if (g_writer_running.load(std::memory_order_relaxed)) return;
  const bool due = now >= g_next_write.load(std::memory_order_relaxed);
  if (!due && !g_write_soon.load(std::memory_order_acquire)) return;
  if (!__libc_single_threaded) {
    StartWriter();
    return;
  }
  g_write_soon.store(false, std::memory_order_relaxed);
  g_next_write.store(now + kPeriodNs, std::memory_order_relaxed);
  Tick();
}

void WriteQueued() {
  g_sink.WriteChunks(g_chunks.TakeQueue(), [](Chunk* c) { g_chunks.Release(c); });
}

void WriteEnd(uint64_t open_at_exit) {
  uint8_t payload[64];
  uint8_t* p = f::PutVarint(payload, 0);
  p = f::PutVarint(p, Now());
  *p++ = f::kEnd;
  p = f::PutVarint(p, g_calls.load(std::memory_order_relaxed));
  p = f::PutVarint(p, g_dropped.load(std::memory_order_relaxed));
  p = f::PutVarint(p, open_at_exit);
  g_sink.WriteFrame(payload, static_cast<size_t>(p - payload));
}

void CountDropped(uint64_t n) { g_dropped.fetch_add(n, std::memory_order_relaxed); }
void CountCall() { g_calls.fetch_add(1, std::memory_order_relaxed); }

void StartWriter() {
  g_next_write.store(Now() + kPeriodNs, std::memory_order_relaxed);
  if (__libc_single_threaded) return;
  bool running = false;
  if (!g_writer_running.compare_exchange_strong(running, true, std::memory_order_acq_rel)) return;
  if (!g_writer.Start(kPeriodNs, Tick)) g_writer_running.store(false, std::memory_order_release);
}

void StopWriter() {
  g_writer.Stop();
  g_writer_running.store(false, std::memory_order_release);
}

// The writer between ticks and no append under way: a fork may go ahead.
void LockWriter() {
  g_writer.Lock();
  g_sink.Lock();
}
void UnlockWriter() {
  g_sink.Unlock();
  g_writer.Unlock();
}
void ResetWriter() {
  g_sink.Reset();
  g_writer.Reset();
  g_writer_running.store(false, std::memory_order_relaxed);
  g_write_soon.store(false, std::memory_order_relaxed);
  g_calls.store(0, std::memory_order_relaxed);
  g_dropped.store(0, std::memory_order_relaxed);
}

}  // namespace fathom::h5prov::preload
