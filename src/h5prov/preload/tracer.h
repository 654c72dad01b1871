// tracer.h — the inside of libfathom-h5.so, shared by its wrappers (docs/h5prov.md).
//
// The library is preloaded into programs it knows nothing of, so it links nothing but libc,
// keeps its memory fixed (a pool of buffers and an object table, mapped at the first HDF5
// call) and never blocks the program: when its buffers are full, calls
// are counted as dropped and the count is written.
//
// Life: nothing happens at load. The first HDF5 call of a process with FATHOM_H5=1 makes the
// trace file (one per process image), writes the process record and starts the writer
// thread; a forked child starts its own file at its first call; the end (exit) writes every
// buffer, the objects still open and the end record, without calling HDF5 (whose atexit
// handler has closed everything by then).
//
// Threading: each thread records into its own ThreadState (one buffer, under a lock that its
// thread takes per record and the writer per sweep). A thread inside the tracer's own look-ups
// (Internal) is never recorded: HDF5 calls its own API through the PLT.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <atomic>

#include "h5prov/h5_format.h"
#include "h5prov/preload/h5_abi.h"
#include "preload_runtime/chunk_pool.h"
#include "preload_runtime/spin_lock.h"
#include "preload_runtime/trace_sink.h"

namespace fathom::h5prov::preload {

using preload_runtime::Hold;
using preload_runtime::SpinLock;

uint64_t Now();  // CLOCK_MONOTONIC, ns

// ---- life (config.cpp) ---------------------------------------------------------------------

// True when calls are recorded: FATHOM_H5=1, the trace file could be made, and the calling
// thread is not inside the tracer. The first call of a process image starts the trace.
bool Tracing();
// The end of the process image (exit, _exit, exec): the writer stops, the objects still open
// are written as closed at exit, then every buffer and the end record. Nothing in a forked
// child that has not called HDF5 yet, nor in a vfork child (another pid in this memory).
void EndImage();
// After an exec that failed: the writer again (the objects the tracer then meets again are
// described anew).
void ResumeImage();
// Writes `what` once per process to stderr, prefixed "fathom-h5: ".
void WarnOnce(std::atomic<bool>& said, const char* what, const char* name);

// Marks the calling thread as inside the tracer (its look-ups), for the object's lifetime.
class Internal {
 public:
  Internal();
  ~Internal();
  Internal(const Internal&) = delete;
  Internal& operator=(const Internal&) = delete;
};

// ---- records (record.cpp) ------------------------------------------------------------------

// A record being built on the stack; Commit() copies it into the thread's buffer.
class RecordBuilder {
 public:
  explicit RecordBuilder(uint8_t kind) { *p_++ = kind; }
  void Byte(uint8_t b) {
    if (Room(1)) *p_++ = b;
  }
  void Varint(uint64_t v) {
    if (Room(format::kMaxVarint)) p_ = format::PutVarint(p_, v);
  }
  void Signed(int64_t v) { Varint(format::Zigzag(v)); }
  void String(const char* s, size_t n);
  void String(const char* s);
  // Hands the record to the thread's buffer. A kCall's start time goes right after its kind
  // byte, as a delta from the previous call of the frame: only the buffer knows it.
  void Commit(uint64_t call_start = 0);
  const uint8_t* data() const { return data_; }
  size_t size() const { return static_cast<size_t>(p_ - data_); }
  bool overflowed() const { return overflowed_; }

 private:
  bool Room(size_t n);
  uint8_t data_[8192];
  uint8_t* p_ = data_;
  bool overflowed_ = false;
};

// Calls not recorded for want of a buffer.
void CountDropped(uint64_t n);
void CountCall();
// Every thread's buffer to the writer (the writer's sweep, the end).
void SweepAll();
// After fork: only the calling thread's state survives, emptied.
void ForgetOtherThreads();
void LockStates();
void UnlockStates();
void ResetStatesLock();
void CreateThreadKey();

// ---- buffers and the writer (writer.cpp) ---------------------------------------------------

using ChunkPool = preload_runtime::ChunkPool<64 * 1024, 64>;  // 4 MiB
using Chunk = ChunkPool::Chunk;
ChunkPool& chunks();
// This image's trace file.
preload_runtime::TraceSink& sink();
// Hands a filled buffer to the writer (woken when many are queued).
void QueueFullChunk(Chunk* chunk);
void WriteQueued();
// Called by a recording thread after each record, with no lock held (`now`: about the time).
// A single-threaded program gets no writer thread: a second thread would make every HDF5 call
// slower (glibc then takes the locks it skips in a single-threaded process, and HDF5's
// thread-safe build takes one per call), so its records are written here, by the program's
// thread, when a quarter of the pool is queued or a period has passed since the last write.
// The writer thread starts at the first record after the program starts a thread.
void AfterRecord(uint64_t now);
// The kEnd record: the calls recorded and dropped, and the objects still open at exit.
void WriteEnd(uint64_t open_at_exit);
void StartWriter();
void StopWriter();
void LockWriter();
void UnlockWriter();
void ResetWriter();

// ---- objects (objects.cpp) -----------------------------------------------------------------

struct ObjectInfo {
  uint8_t kind = 0;
  uint64_t file = 0;       // the object id of its file (0 for a file)
  uint64_t address = 0;    // its header's address + 1 in the file (0: unknown)
  char path[1024] = {};    // path in the file; for a file, its real path
  char name[256] = {};     // an attribute's name
  uint64_t dev = 0, ino = 0;  // a file's identity
  int type_class = -1;
  uint64_t type_size = 0;
  bool variable_length = false;
  int rank = 0;
  h5::hsize_t dims[format::kMaxRank] = {};
  h5::hsize_t maxdims[format::kMaxRank] = {};
  int layout = -1;
  int chunk_rank = 0;
  h5::hsize_t chunk[format::kMaxRank] = {};
  int nfilters = 0;
  int filters[format::kMaxFilters] = {};
  bool discovered = false;  // an id the tracer did not see opened: its references are unknown
};

// What a call needs of an object it names.
struct ObjectView {
  uint64_t id = 0;
  uint8_t kind = 0;
  uint64_t file = 0;
  uint64_t type_size = 0;
  bool variable_length = false;
  uint64_t points = 0;  // the extent's elements (datasets, attributes)
  int rank = 0;         // the extent's dimensions
  // The program holds just the one reference its open gave (no H5Iinc_ref since, and the
  // tracer saw the open): a release frees it without asking HDF5.
  bool one_reference = false;
};

// A new object for `hid`: its id, and its kObject record written. A live entry under the same
// hid (a close the tracer missed) is closed first as kClosedUnseen.
uint64_t AddObject(h5::hid_t hid, const ObjectInfo& info);
// What the table holds for `hid`; false if nothing.
bool FindObject(h5::hid_t hid, ObjectView* view);
enum class Access { kRead, kWrite, kOther };
void Account(h5::hid_t hid, Access access, uint64_t mem_bytes, uint64_t file_bytes, uint64_t ns);
void CountIncRef(h5::hid_t hid);
// The extent after H5Dset_extent/H5Dextend.
void SetExtent(h5::hid_t hid, int rank, const h5::hsize_t* dims, uint64_t points);
// Removes `hid` and writes its kClosed record (stored_size + 1, 0 unknown).
void CloseObject(h5::hid_t hid, format::CloseHow how, uint64_t stored_size_plus_one);
// After its file's close: every object of `file` whose hid is no longer valid is closed with it.
void CloseObjectsOfFile(uint64_t file);
// After H5Olink (which names an anonymous object): a kRenamed record with the name HDF5 now
// gives `hid`.
void NoteRenamed(h5::hid_t hid);
void CloseAllAtExit();
uint64_t OpenObjects();
void LockObjects();
void UnlockObjects();
void ResetObjectsLock();

// ---- look-ups through HDF5 (introspect.cpp) -------------------------------------------------

// Keeps HDF5 from printing errors of the tracer's look-ups (and the thread out of the trace).
// The look-ups happen before the program's call, or after it only when it succeeded: the
// program's error stack is that of its own call.
class Quiet {
 public:
  Quiet();
  ~Quiet();
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;

 private:
  Internal internal_;
  h5::AutoFn func_ = nullptr;
  void* data_ = nullptr;
  bool saved_ = false;
};

// Fills `info` for the object `hid` (of kind `kind`, in file `file`). Called with Quiet.
void Describe(h5::hid_t hid, uint8_t kind, uint64_t file, ObjectInfo* info);
// A file's real path (from its name as opened) and identity.
void DescribeFile(h5::hid_t hid, const char* name, ObjectInfo* info);
// The object kind of an id (0: not one the tracer follows).
uint8_t KindOf(h5::hid_t hid);

struct DataInfo {
  uint64_t mem_bytes = 0;
  uint64_t file_bytes = 0;
  uint8_t selection = format::kSelectAll;
  uint64_t points = 0;
  int rank = 0;
  h5::hsize_t start[format::kMaxRank], stride[format::kMaxRank], count[format::kMaxRank],
      block[format::kMaxRank];
  uint64_t nblocks = 0;
  bool variable_length = false;
  int transfer = 0;  // 0 unknown, 1 independent, 2 collective
};
// Whether `id` is an id of `type` (h5::IdType): a look-up that neither fails nor prints, whatever
// the id, so that the look-ups after it need no Quiet.
bool IsA(h5::hid_t id, int type);
// Bytes and selection of H5Dread/H5Dwrite on `dataset` (`view`), from the ids the program
// passed: each is checked with IsA before it is asked about, so that no look-up fails (and
// prints) on an id the program passed wrongly; no Quiet is needed (and none is paid for: a
// native memory type and H5S_ALL need no look-up at all). Called inside the tracer (Internal).
void DescribeTransfer(const ObjectView& view, h5::hid_t mem_type, h5::hid_t mem_space,
                      h5::hid_t file_space, h5::hid_t dxpl, DataInfo* data);

// ---- one traced call (call.cpp) ------------------------------------------------------------

// Built by a wrapper around the real call: what it is about before the call, its outcome
// after. Nested calls (HDF5 calling itself) get the enclosing call as parent.
class Call {
 public:
  explicit Call(uint8_t op);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  bool traced() const { return traced_; }
  void Object(uint64_t id) { object_ = id; }
  void Location(h5::hid_t loc);
  void Name(const char* name) { name_ = name; }
  void Name2(const char* name) { name2_ = name; }
  DataInfo& Data() {
    has_data_ = true;
    return data_;
  }
  // The clock starts: after the look-ups made before the call (every wrapper calls it).
  void Start() { start_ = Now(); }
  // The clock stops: right after the real call, before the look-ups made after it.
  void Returned() { end_ = Now(); }
  // The call returned `result`; `failed` when HDF5 says it failed. Writes the record.
  void Finish(int64_t result, bool failed);
  uint64_t duration() const { return end_ - start_; }
  // Called by the program, not by HDF5 itself: only such calls count on their objects.
  bool outermost() const { return parent_ == 0; }

 private:
  bool traced_ = false;
  uint8_t op_;
  uint64_t seq_ = 0;
  uint64_t parent_ = 0;
  uint64_t object_ = 0;
  uint64_t location_ = 0;
  const char* name_ = nullptr;
  const char* name2_ = nullptr;
  bool has_data_ = false;
  DataInfo data_;
  uint64_t start_ = 0;
  uint64_t end_ = 0;
};

}  // namespace fathom::h5prov::preload
