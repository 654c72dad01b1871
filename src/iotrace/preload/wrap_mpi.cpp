// wrap_mpi.cpp — MPI-IO, through the profiling interface (PMPI_*), when the program uses MPI.
//
// No MPI header is used: handles (MPI_File, MPI_Comm, MPI_Datatype, MPI_Info) are passed
// through unchanged as machine words, which fits both Open MPI (pointers) and MPICH (ints),
// and the PMPI functions are looked up only when a wrapper is called, so a program without
// MPI loads nothing of it. Sizes are count × MPI_Type_size; offsets are byte offsets
// (MPI_File_get_byte_offset of the view's offset); bytes moved come from the status
// (MPI_Get_count), taken through a status of the tracer's when the program ignores its own.
#include <string.h>
#include <sys/stat.h>

#include "iotrace/preload/real_calls.h"
#include "iotrace/preload/wrap_helpers.h"

using namespace fathom::iotrace::preload;
namespace f = fathom::iotrace::format;

namespace {

using Handle = void*;
using MpiOffset = long long;
constexpr int kSuccess = 0;

using OpenFn = int (*)(Handle, const char*, int, Handle, Handle*);
using CloseFn = int (*)(Handle*);
using TransferFn = int (*)(Handle, void*, int, Handle, void*);
using TransferAtFn = int (*)(Handle, MpiOffset, void*, int, Handle, void*);
using SyncFn = int (*)(Handle);
using SetViewFn = int (*)(Handle, MpiOffset, Handle, Handle, const char*, Handle);
using PositionFn = int (*)(Handle, MpiOffset*);
using ByteOffsetFn = int (*)(Handle, MpiOffset, MpiOffset*);
using TypeSizeFn = int (*)(Handle, int*);
using GetCountFn = int (*)(const void*, Handle, int*);

FATHOM_REAL_TYPED(pmpi_open, OpenFn, "PMPI_File_open", nullptr)
FATHOM_REAL_TYPED(pmpi_close, CloseFn, "PMPI_File_close", nullptr)
FATHOM_REAL_TYPED(pmpi_read, TransferFn, "PMPI_File_read", nullptr)
FATHOM_REAL_TYPED(pmpi_write, TransferFn, "PMPI_File_write", nullptr)
FATHOM_REAL_TYPED(pmpi_read_all, TransferFn, "PMPI_File_read_all", nullptr)
FATHOM_REAL_TYPED(pmpi_write_all, TransferFn, "PMPI_File_write_all", nullptr)
FATHOM_REAL_TYPED(pmpi_read_at, TransferAtFn, "PMPI_File_read_at", nullptr)
FATHOM_REAL_TYPED(pmpi_write_at, TransferAtFn, "PMPI_File_write_at", nullptr)
FATHOM_REAL_TYPED(pmpi_read_at_all, TransferAtFn, "PMPI_File_read_at_all", nullptr)
FATHOM_REAL_TYPED(pmpi_write_at_all, TransferAtFn, "PMPI_File_write_at_all", nullptr)
FATHOM_REAL_TYPED(pmpi_sync, SyncFn, "PMPI_File_sync", nullptr)
FATHOM_REAL_TYPED(pmpi_set_view, SetViewFn, "PMPI_File_set_view", nullptr)
FATHOM_REAL_TYPED(pmpi_position, PositionFn, "PMPI_File_get_position", nullptr)
FATHOM_REAL_TYPED(pmpi_byte_offset, ByteOffsetFn, "PMPI_File_get_byte_offset", nullptr)
FATHOM_REAL_TYPED(pmpi_type_size, TypeSizeFn, "PMPI_Type_size", nullptr)
FATHOM_REAL_TYPED(pmpi_get_count, GetCountFn, "PMPI_Get_count", nullptr)

// Which file each open MPI file handle is.
constexpr int kFiles = 256;
struct OpenFile {
  Handle handle;
  uint32_t object;
};
SpinLock g_files_lock;
OpenFile g_files[kFiles];

void Remember(Handle handle, uint32_t object) {
  Hold hold(g_files_lock);
  for (OpenFile& file : g_files) {
    if (file.handle == nullptr || file.handle == handle) {
      file = {handle, object};
      return;
    }
  }
}
uint32_t ObjectOf(Handle handle) {
  Hold hold(g_files_lock);
  for (const OpenFile& file : g_files) {
    if (file.handle == handle) return file.object;
  }
  return kNoObject;
}
void Forget(Handle handle) {
  Hold hold(g_files_lock);
  for (OpenFile& file : g_files) {
    if (file.handle == handle) file = {};
  }
}

// MPI_STATUS_IGNORE is 0 in Open MPI and 1 in MPICH: either way not a status to read.
bool Ignored(const void* status) { return reinterpret_cast<uintptr_t>(status) <= 1; }

uint64_t Bytes(int count, Handle type) {
  int size = 0;
  if (pmpi_type_size()(type, &size) != kSuccess || size < 0 || count < 0) return 0;
  return static_cast<uint64_t>(count) * static_cast<uint64_t>(size);
}

int64_t Moved(int rc, const void* status, Handle type, int count) {
  if (rc != kSuccess) return -1;
  int got = 0;
  if (pmpi_get_count()(status, type, &got) != kSuccess || got < 0) return static_cast<int64_t>(Bytes(count, type));
  return static_cast<int64_t>(Bytes(got, type));
}

void RecordTransfer(uint8_t op, Handle fh, MpiOffset offset, bool has_offset, uint64_t size, int64_t moved,
                    int rc, uint64_t t0, uint64_t t1) {
  RecordOn(op, ObjectOf(fh), size, moved, rc == kSuccess ? 0 : rc, t0, t1,
           has_offset ? std::optional<int64_t>(offset) : std::nullopt);
}

// A transfer at the handle's own file pointer.
int Transfer(uint8_t op, TransferFn fn, Handle fh, void* buffer, int count, Handle type, void* status) {
  if (!Active()) return fn(fh, buffer, count, type, status);
  MpiOffset position = 0, byte_offset = 0;
  bool has_offset = false;
  {
    Busy busy;
    has_offset = pmpi_position()(fh, &position) == kSuccess &&
                 pmpi_byte_offset()(fh, position, &byte_offset) == kSuccess;
  }
  alignas(16) unsigned char own[64] = {};
  void* used = Ignored(status) ? own : status;
  const uint64_t t0 = Now();
  const int rc = fn(fh, buffer, count, type, used);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  RecordTransfer(op, fh, byte_offset, has_offset, Bytes(count, type), Moved(rc, used, type, count), rc, t0, t1);
  return rc;
}

// A transfer at an explicit offset (in the view's units).
int TransferAt(uint8_t op, TransferAtFn fn, Handle fh, MpiOffset offset, void* buffer, int count, Handle type,
               void* status) {
  if (!Active()) return fn(fh, offset, buffer, count, type, status);
  MpiOffset byte_offset = 0;
  bool has_offset = false;
  {
    Busy busy;
    has_offset = pmpi_byte_offset()(fh, offset, &byte_offset) == kSuccess;
  }
  alignas(16) unsigned char own[64] = {};
  void* used = Ignored(status) ? own : status;
  const uint64_t t0 = Now();
  const int rc = fn(fh, offset, buffer, count, type, used);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  RecordTransfer(op, fh, byte_offset, has_offset, Bytes(count, type), Moved(rc, used, type, count), rc, t0, t1);
  return rc;
}

void RecordOther(uint8_t op, uint32_t object, uint64_t size, int rc, uint64_t t0, uint64_t t1) {
  RecordOn(op, object, size, rc == kSuccess ? 0 : -1, rc == kSuccess ? 0 : rc, t0, t1);
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

int MPI_File_open(Handle comm, const char* path, int mode, Handle info, Handle* fh) {
  if (!Active()) return pmpi_open()(comm, path, mode, info, fh);
  const uint64_t t0 = Now();
  const int rc = pmpi_open()(comm, path, mode, info, fh);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  uint32_t object;
  struct stat st;
  if (rc == kSuccess && real::stat()(path, &st) == 0) {
    char absolute[4096];
    object = FileObject(st.st_dev, st.st_ino,
                        AbsolutePath(AT_FDCWD, path, absolute, sizeof(absolute)) ? absolute : path);
    Remember(*fh, object);
  } else {
    object = NameObject(AT_FDCWD, path);
  }
  RecordOther(f::kMpiOpen, object, static_cast<uint64_t>(mode), rc, t0, t1);
  return rc;
}

int MPI_File_close(Handle* fh) {
  if (!Active()) {
    const Handle handle = *fh;
    const int rc = pmpi_close()(fh);
    Forget(handle);
    return rc;
  }
  const Handle handle = *fh;
  const uint64_t t0 = Now();
  const int rc = pmpi_close()(fh);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  RecordOther(f::kMpiClose, ObjectOf(handle), 0, rc, t0, t1);
  Forget(handle);
  return rc;
}

int MPI_File_read(Handle fh, void* buffer, int count, Handle type, void* status) {
  return Transfer(f::kMpiRead, pmpi_read(), fh, buffer, count, type, status);
}
int MPI_File_write(Handle fh, const void* buffer, int count, Handle type, void* status) {
  return Transfer(f::kMpiWrite, pmpi_write(), fh, const_cast<void*>(buffer), count, type, status);
}
int MPI_File_read_all(Handle fh, void* buffer, int count, Handle type, void* status) {
  return Transfer(f::kMpiReadAll, pmpi_read_all(), fh, buffer, count, type, status);
}
int MPI_File_write_all(Handle fh, const void* buffer, int count, Handle type, void* status) {
  return Transfer(f::kMpiWriteAll, pmpi_write_all(), fh, const_cast<void*>(buffer), count, type, status);
}
int MPI_File_read_at(Handle fh, MpiOffset offset, void* buffer, int count, Handle type, void* status) {
  return TransferAt(f::kMpiReadAt, pmpi_read_at(), fh, offset, buffer, count, type, status);
}
int MPI_File_write_at(Handle fh, MpiOffset offset, const void* buffer, int count, Handle type, void* status) {
  return TransferAt(f::kMpiWriteAt, pmpi_write_at(), fh, offset, const_cast<void*>(buffer), count, type, status);
}
int MPI_File_read_at_all(Handle fh, MpiOffset offset, void* buffer, int count, Handle type, void* status) {
  return TransferAt(f::kMpiReadAtAll, pmpi_read_at_all(), fh, offset, buffer, count, type, status);
}
int MPI_File_write_at_all(Handle fh, MpiOffset offset, const void* buffer, int count, Handle type, void* status) {
  return TransferAt(f::kMpiWriteAtAll, pmpi_write_at_all(), fh, offset, const_cast<void*>(buffer), count, type,
                    status);
}

int MPI_File_sync(Handle fh) {
  if (!Active()) return pmpi_sync()(fh);
  const uint64_t t0 = Now();
  const int rc = pmpi_sync()(fh);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  RecordOther(f::kMpiSync, ObjectOf(fh), 0, rc, t0, t1);
  return rc;
}

int MPI_File_set_view(Handle fh, MpiOffset displacement, Handle etype, Handle filetype, const char* representation,
                      Handle info) {
  if (!Active()) return pmpi_set_view()(fh, displacement, etype, filetype, representation, info);
  const uint64_t t0 = Now();
  const int rc = pmpi_set_view()(fh, displacement, etype, filetype, representation, info);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  RecordOther(f::kMpiSetView, ObjectOf(fh), static_cast<uint64_t>(displacement), rc, t0, t1);
  return rc;
}

}  // extern "C"
#pragma GCC visibility pop
