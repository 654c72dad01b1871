// tracer.h — the inside of libfathom-io.so, shared by its wrappers (docs/io.md).
//
// The library is preloaded into programs it knows nothing of, so it links nothing but libc
// (and libdl/libpthread, which are libc on Debian 12), allocates nothing with malloc (its
// memory is a few fixed tables: under 10 MB), and never blocks the program: when its
// buffers are full, operations are counted as dropped and the count is written.
//
// Threading: each thread records into its own ThreadState (runs being built, one buffer);
// the writer thread takes full buffers, and every half quantum closes the runs of finished
// quanta and takes partial buffers, so a killed process loses at most its last quantum. A
// ThreadState's lock is taken by its thread for each operation and by the writer for a
// sweep, never both at once by one thread. A wrapper called while its thread is already in
// the tracer (from a signal handler) is not recorded and is counted as dropped.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <atomic>
#include <optional>

#include "iotrace/trace_format.h"
#include "preload_runtime/chunk_pool.h"
#include "preload_runtime/spin_lock.h"
#include "preload_runtime/trace_sink.h"

namespace fathom::iotrace::preload {

using preload_runtime::Hold;
using preload_runtime::SpinLock;

// ---- configuration (config.cpp) -----------------------------------------------------------

struct Config {
  bool enabled = false;      // FATHOM_IO=1 and the trace file could be made
  bool compress = true;      // FATHOM_IO_COMPRESS=0 writes every operation as its own run
  uint64_t quantum_ns = 1'000'000'000;
  int64_t realtime_minus_monotonic = 0;  // aligns quanta on the wall clock
  pid_t pid = 0;
  char dir[1024] = {};   // where the trace files go (absolute)
};
Config& config();

// True when the calling thread may record: tracing is on and the thread is not inside the
// tracer. A call made while its thread records one (from a signal handler) is counted as
// dropped; the tracer's own calls (Internal) are not operations of the program.
bool Active();
// Marks the calling thread as recording an operation, for the object's lifetime.
class Busy {
 public:
  Busy();
  ~Busy();
  Busy(const Busy&) = delete;
  Busy& operator=(const Busy&) = delete;
};
// Marks the calling thread as the tracer's own (the writer, start and end).
class Internal {
 public:
  Internal();
  ~Internal();
  Internal(const Internal&) = delete;
  Internal& operator=(const Internal&) = delete;
};

uint64_t Now();  // CLOCK_MONOTONIC, ns

// Reads the environment, makes the trace file and writes its process record. Called once at
// load and again in a forked child (`child` true).
void Start(bool child);

// ---- objects: files and names (objects.cpp) ------------------------------------------------

inline constexpr uint32_t kNoObject = 0;
// The id of the file (dev, ino); `path` (may be null) is written with it on first sight,
// made absolute against the working directory.
uint32_t FileObject(uint64_t dev, uint64_t ino, const char* path);
// The id of a path seen without a file behind it (unlink, mkdir, a failed open...); `dirfd`
// is the directory a relative path is relative to (AT_FDCWD for the working directory).
uint32_t NameObject(int dirfd, const char* path);
// Makes `path` (relative to `dirfd`) absolute into `out` (size `size`); false if too long.
bool AbsolutePath(int dirfd, const char* path, char* out, size_t size);
void RefreshWorkingDirectory();
void ForgetObjects();  // a new stream (forked child): every object is new again
void LockObjects();
void UnlockObjects();
void ResetObjectsLock();

// ---- descriptors (fd_table.cpp; lock-free, so that a signal handler may close or dup) -----

// What the tracer knows of a descriptor: the file it reads and writes (kNoObject when it is
// not a file: a pipe, a socket, a terminal) and its offset.
struct FdView {
  uint32_t object = kNoObject;
  int64_t offset = 0;  // the descriptor's position before the operation
};
// The file behind `fd` and its position; learns of descriptors opened outside the tracer.
FdView LookFd(int fd);
// After a read or write of `bytes` at the descriptor's position.
void AdvanceFd(int fd, int64_t bytes);
void SetFdOffset(int fd, int64_t offset);
// After a successful open: `fd` reads `path` (relative to dirfd), at offset 0 or, with
// O_APPEND, at the file's end. Returns the file's object.
uint32_t OpenedFd(int fd, int dirfd, const char* path, int flags);
void DupFd(int from, int to);
void ClosedFd(int fd);
void ClosedFdRange(unsigned first, unsigned last);
// stdio's own position for a stream on `fd`.
int64_t StdioOffset(int fd);
void SetStdioOffset(int fd, int64_t offset);
void AdvanceStdio(int fd, int64_t bytes);

// ---- recording (thread_state.cpp) ----------------------------------------------------------

struct Operation {
  uint8_t op = 0;
  uint32_t target = kNoObject;
  uint32_t aux = kNoObject;
  bool has_offset = false;
  int64_t offset = 0;
  uint64_t size = 0;
  int64_t result = 0;
  int err = 0;
  uint64_t start = 0;
  uint64_t end = 0;
};
void Record(const Operation& op);
// Records `op` on `target` (nothing when it is kNoObject), with an offset when it has one.
inline void RecordOn(uint8_t op, uint32_t target, uint64_t size, int64_t result, int err, uint64_t start,
                     uint64_t end, std::optional<int64_t> offset = std::nullopt, uint32_t aux = kNoObject) {
  if (target == kNoObject) return;
  Operation o;
  o.op = op;
  o.target = target;
  o.aux = aux;
  o.has_offset = offset.has_value();
  o.offset = offset.value_or(0);
  o.size = size;
  o.result = result;
  o.err = err;
  o.start = start;
  o.end = end;
  Record(o);
}
// Writes an object record into the calling thread's buffer.
void RecordObject(uint32_t id, uint64_t dev, uint64_t ino, const char* path, size_t length);
void NotePartial(format::PartialWhat what);
void NoteDropped(format::DropReason reason);

// Closes runs (all, or those of quanta before the current) and hands every non-empty buffer
// to the writer.
void Sweep(bool all);
// The thread states after fork: only the calling thread's survives, emptied.
void ForgetOtherThreads();
// The operations the running threads have recorded or dropped (those of ended threads are in
// the writer's total).
uint64_t OperationsOfThreads();
void LockStates();
void UnlockStates();
void ResetStatesLock();
void CreateThreadKey();

// ---- buffers and the writer (writer.cpp) ---------------------------------------------------

using ChunkPool = preload_runtime::ChunkPool<32 * 1024, 160>;  // 5 MiB
using Chunk = ChunkPool::Chunk;
ChunkPool& chunks();
// This image's trace file.
preload_runtime::TraceSink& sink();
// Hands a filled buffer to the writer (woken when many are queued).
void QueueFullChunk(Chunk* chunk);
// Writes queued buffers as frames.
void WriteQueued();
void StartWriter();        // the background writer, once per process image
void StopWriter();
void Finish(format::EndReason reason);  // closes every run, writes everything and the end record
void LockWriter();
void UnlockWriter();
void ResetWriter();  // a forked child: no writer thread yet
// Totals for the end record.
void CountOperations(uint64_t n);
void CountDropped(uint64_t n);

}  // namespace fathom::iotrace::preload
