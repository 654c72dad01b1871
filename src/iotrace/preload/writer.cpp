// writer.cpp — libfathom-io.so's buffers and writer (the runtime of src/preload_runtime/).
//
// The writer thread wakes every half quantum (or when a quarter of the pool is queued),
// closes the runs of past quanta (Sweep) and appends the queued buffers to the trace file as
// frames.
#include "iotrace/preload/tracer.h"
#include "preload_runtime/writer_thread.h"

namespace fathom::iotrace::preload {
namespace {

namespace f = format;

constinit ChunkPool g_chunks;
constinit preload_runtime::TraceSink g_sink{f::kFrameMagic};
constinit preload_runtime::WriterThread g_writer;
std::atomic<uint64_t> g_operations{0};
std::atomic<uint64_t> g_dropped{0};

void Tick() {
  Internal internal;
  Sweep(false);
  WriteQueued();
}

}  // namespace

ChunkPool& chunks() { return g_chunks; }
preload_runtime::TraceSink& sink() { return g_sink; }

void QueueFullChunk(Chunk* chunk) {
  if (g_chunks.Queue(chunk)) g_writer.Wake();
}

void WriteQueued() {
  g_sink.WriteChunks(g_chunks.TakeQueue(), [](Chunk* c) { g_chunks.Release(c); });
}

void StartWriter() { g_writer.Start(config().quantum_ns / 2, Tick); }
void StopWriter() { g_writer.Stop(); }

void Finish(f::EndReason reason) {
  Internal internal;
  if (reason == f::kEndExit) StopWriter();
  Sweep(true);
  WriteQueued();
  uint8_t payload[64];
  uint8_t* p = payload;
  p = f::PutVarint(p, 0);
  p = f::PutVarint(p, Now());
  *p++ = f::kEnd;
  *p++ = reason;
  p = f::PutVarint(p, g_operations.load(std::memory_order_relaxed) + OperationsOfThreads());
  p = f::PutVarint(p, g_dropped.load(std::memory_order_relaxed));
  g_sink.WriteFrame(payload, static_cast<size_t>(p - payload));
  if (reason == f::kEndExit) config().enabled = false;
}

// The writer between ticks and no append under way: a fork or an exec may go ahead.
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
  g_operations.store(0, std::memory_order_relaxed);
  g_dropped.store(0, std::memory_order_relaxed);
}

void CountOperations(uint64_t n) { g_operations.fetch_add(n, std::memory_order_relaxed); }
void CountDropped(uint64_t n) { g_dropped.fetch_add(n, std::memory_order_relaxed); }

}  // namespace fathom::iotrace::preload
