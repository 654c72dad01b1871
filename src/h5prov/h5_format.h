// h5_format.h — the HDF5 provenance trace written by libfathom-h5.so and read by `fathom h5`.
//
// Shared by the tracer (which links nothing but libc, so this header uses no part of the C++
// library that needs libstdc++ at run time) and the reader. docs/h5prov.md describes the
// format. Integers, CRC-32 and the frame layout are those of the I/O traces
// (iotrace/trace_format.h); only the magic numbers and the records differ.
//
// A trace file holds one process image, from its first HDF5 call to its exit:
//
//   file    = "FH5TRACE" u32le(version) u32le(0) frame*
//   frame   = u32le(kFrameMagic) u32le(payload length) u32le(CRC-32 of payload) payload
//   payload = varint(tid) varint(base time, monotonic ns) record*
//
// A frame is what one thread recorded between two hand-overs to the writer. Records start
// with a kind byte; integers are LEB128 varints, signed ones zigzag-coded (s):
//   kProcess: pid ppid anchor_realtime_ns anchor_monotonic_ns rank(s) uid gid flavour
//             hdf5_major hdf5_minor hdf5_release host job exe cmdline (strings: varint
//             length + bytes; cmdline's arguments separated by NUL)
//   kObject:  id kind file hid(s) address+1 path name, then by kind:
//             file:               dev ino
//             dataset, attribute: type_class type_size variable_length rank dims[rank]
//                                 maxdims+1[rank] (0: unlimited)
//             dataset, also:      layout chunk_rank chunk[chunk_rank] nfilters filter[nfilters]
//   kCall:    start(s, delta from the previous kCall's start in the frame, the first from the
//             frame's base time) op flags seq parent duration result(s) [object] [location]
//             [name] [name2] [data]           (each when its CallFlags bit is set)
//             data = mem_bytes file_bytes selection npoints, then for a regular hyperslab
//             rank start[rank] stride[rank] count[rank] block[rank], for an irregular one
//             nblocks
//   kClosed:  id how end_time reads writes read_mem_bytes read_file_bytes write_mem_bytes
//             write_file_bytes read_ns write_ns calls inc_refs stored_size+1 (0: unknown)
//             rank dims[rank]
//   kRenamed: id path            (the object's path after H5Olink)
//   kDropped: count              (calls not recorded: no free buffer)
//   kEnd:     calls dropped open_at_exit
//
// Object ids are given once per process image: a hid_t the library hands out again after a
// close is a new object with a new id. A call's seq is its number in its thread; parent is
// the seq of the HDF5 call it was made from (0: called by the program).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "iotrace/trace_format.h"

namespace fathom::h5prov::format {

using iotrace::format::Crc32;
using iotrace::format::GetU32;
using iotrace::format::GetVarint;
using iotrace::format::kFrameHeaderSize;
using iotrace::format::kMaxVarint;
using iotrace::format::PutU32;
using iotrace::format::PutVarint;
using iotrace::format::Unzigzag;
using iotrace::format::Zigzag;

inline constexpr char kFileMagic[8] = {'F', 'H', '5', 'T', 'R', 'A', 'C', 'E'};
inline constexpr uint32_t kVersion = 1;
inline constexpr size_t kFileHeaderSize = 16;
inline constexpr uint32_t kFrameMagic = 0x31463548;  // "H5F1" little-endian
inline constexpr uint32_t kMaxFramePayload = 1u << 20;
inline constexpr uint64_t kMaxRank = 32;  // HDF5's H5S_MAX_RANK
inline constexpr uint64_t kMaxFilters = 32;

enum RecordKind : uint8_t {
  kProcess = 1,
  kObject = 2,
  kCall = 3,
  kClosed = 4,
  kRenamed = 5,
  kDropped = 6,
  kEnd = 7,
};

enum ObjectKind : uint8_t {
  kFile = 1,
  kGroup = 2,
  kDataset = 3,
  kAttribute = 4,
  kDatatype = 5,
};
inline constexpr uint8_t kMaxObjectKind = 5;

enum Flavour : uint8_t { kFlavourUnknown = 0, kFlavourSerial = 1, kFlavourOpenMpi = 2 };

enum CallFlags : uint32_t {
  kCallFailed = 1u << 0,
  kCallObject = 1u << 1,
  kCallLocation = 1u << 2,
  kCallName = 1u << 3,
  kCallName2 = 1u << 4,
  kCallData = 1u << 5,
  kCallVariableLength = 1u << 6,  // bytes are those of the pointers, not of the payload
  kCallIndependent = 1u << 7,     // MPI transfer mode of the dxpl
  kCallCollective = 1u << 8,
};
inline constexpr uint32_t kCallFlagsAll = (1u << 9) - 1;

enum Selection : uint8_t {
  kSelectNone = 0,
  kSelectPoints = 1,
  kSelectRegular = 2,    // a regular hyperslab: start, stride, count, block per dimension
  kSelectIrregular = 3,  // a union of hyperslab blocks
  kSelectAll = 4,        // the whole extent (H5S_ALL or H5Sselect_all)
  kSelectChunk = 5,      // direct chunk I/O: one stored chunk, no selection
};
inline constexpr uint8_t kMaxSelection = 5;

enum CloseHow : uint8_t {
  kClosedByClose = 1,     // H5Dclose, H5Gclose, H5Oclose, H5Fclose...
  kClosedByDecRef = 2,    // H5Idec_ref to zero (h5py)
  kClosedWithFile = 3,    // its file closed with H5F_CLOSE_STRONG
  kClosedAtExit = 4,      // still open when the process ended
  kClosedUnseen = 5,      // its hid_t was handed out again: closed by a path the tracer missed
};
inline constexpr uint8_t kMaxCloseHow = 5;

enum class OpClass : uint8_t { kOpen, kCreate, kClose, kRead, kWrite, kMeta, kRef };

// The wrapped functions. Values are part of the file format: add at the end, never renumber.
#define FATHOM_H5_OPS(X)                          \
  X(kFcreate, 1, "H5Fcreate", kCreate)            \
  X(kFopen, 2, "H5Fopen", kOpen)                  \
  X(kFreopen, 3, "H5Freopen", kOpen)              \
  X(kFflush, 4, "H5Fflush", kMeta)                \
  X(kFclose, 5, "H5Fclose", kClose)               \
  X(kGcreate1, 10, "H5Gcreate1", kCreate)         \
  X(kGcreate2, 11, "H5Gcreate2", kCreate)         \
  X(kGcreateAnon, 12, "H5Gcreate_anon", kCreate)  \
  X(kGopen1, 13, "H5Gopen1", kOpen)               \
  X(kGopen2, 14, "H5Gopen2", kOpen)               \
  X(kGclose, 15, "H5Gclose", kClose)              \
  X(kDcreate1, 20, "H5Dcreate1", kCreate)         \
  X(kDcreate2, 21, "H5Dcreate2", kCreate)         \
  X(kDcreateAnon, 22, "H5Dcreate_anon", kCreate)  \
  X(kDopen1, 23, "H5Dopen1", kOpen)               \
  X(kDopen2, 24, "H5Dopen2", kOpen)               \
  X(kDread, 25, "H5Dread", kRead)                 \
  X(kDwrite, 26, "H5Dwrite", kWrite)              \
  X(kDsetExtent, 27, "H5Dset_extent", kMeta)      \
  X(kDextend, 28, "H5Dextend", kMeta)             \
  X(kDflush, 29, "H5Dflush", kMeta)               \
  X(kDclose, 30, "H5Dclose", kClose)              \
  X(kDreadChunk, 31, "H5Dread_chunk", kRead)      \
  X(kDwriteChunk, 32, "H5Dwrite_chunk", kWrite)   \
  X(kDOwriteChunk, 33, "H5DOwrite_chunk", kWrite) \
  X(kDOreadChunk, 34, "H5DOread_chunk", kRead)    \
  X(kAcreate1, 40, "H5Acreate1", kCreate)         \
  X(kAcreate2, 41, "H5Acreate2", kCreate)         \
  X(kAcreateByName, 42, "H5Acreate_by_name", kCreate) \
  X(kAopen, 43, "H5Aopen", kOpen)                 \
  X(kAopenName, 44, "H5Aopen_name", kOpen)        \
  X(kAopenIdx, 45, "H5Aopen_idx", kOpen)          \
  X(kAopenByName, 46, "H5Aopen_by_name", kOpen)   \
  X(kAopenByIdx, 47, "H5Aopen_by_idx", kOpen)     \
  X(kAread, 48, "H5Aread", kRead)                 \
  X(kAwrite, 49, "H5Awrite", kWrite)              \
  X(kAclose, 50, "H5Aclose", kClose)              \
  X(kAdelete, 51, "H5Adelete", kMeta)             \
  X(kAdeleteByName, 52, "H5Adelete_by_name", kMeta) \
  X(kAdeleteByIdx, 53, "H5Adelete_by_idx", kMeta) \
  X(kArename, 54, "H5Arename", kMeta)             \
  X(kArenameByName, 55, "H5Arename_by_name", kMeta) \
  X(kOopen, 60, "H5Oopen", kOpen)                 \
  X(kOopenByAddr, 61, "H5Oopen_by_addr", kOpen)   \
  X(kOopenByIdx, 62, "H5Oopen_by_idx", kOpen)     \
  X(kOclose, 63, "H5Oclose", kClose)              \
  X(kOcopy, 64, "H5Ocopy", kMeta)                 \
  X(kOlink, 65, "H5Olink", kMeta)                 \
  X(kLcreateHard, 70, "H5Lcreate_hard", kMeta)    \
  X(kLcreateSoft, 71, "H5Lcreate_soft", kMeta)    \
  X(kLcreateExternal, 72, "H5Lcreate_external", kMeta) \
  X(kLcreateUd, 73, "H5Lcreate_ud", kMeta)        \
  X(kLmove, 74, "H5Lmove", kMeta)                 \
  X(kLcopy, 75, "H5Lcopy", kMeta)                 \
  X(kLdelete, 76, "H5Ldelete", kMeta)             \
  X(kLdeleteByIdx, 77, "H5Ldelete_by_idx", kMeta) \
  X(kTcommit1, 80, "H5Tcommit1", kCreate)         \
  X(kTcommit2, 81, "H5Tcommit2", kCreate)         \
  X(kTcommitAnon, 82, "H5Tcommit_anon", kCreate)  \
  X(kTopen1, 83, "H5Topen1", kOpen)               \
  X(kTopen2, 84, "H5Topen2", kOpen)               \
  X(kTclose, 85, "H5Tclose", kClose)              \
  X(kIdecRef, 90, "H5Idec_ref", kRef)             \
  X(kIincRef, 91, "H5Iinc_ref", kRef)             \
  X(kRdereference1, 95, "H5Rdereference1", kOpen) \
  X(kRdereference2, 96, "H5Rdereference2", kOpen)

enum Op : uint8_t {
#define FATHOM_H5_OP_ENUM(name, value, text, cls) name = value,
  FATHOM_H5_OPS(FATHOM_H5_OP_ENUM)
#undef FATHOM_H5_OP_ENUM
};

struct OpInfo {
  const char* name;  // nullptr: not an operation
  OpClass op_class;
};

constexpr OpInfo Info(uint8_t op) {
  switch (op) {
#define FATHOM_H5_OP_INFO(name, value, text, cls) \
  case value:                                     \
    return {text, OpClass::cls};
    FATHOM_H5_OPS(FATHOM_H5_OP_INFO)
#undef FATHOM_H5_OP_INFO
    default:
      return {nullptr, OpClass::kMeta};
  }
}

inline void PutFileHeader(uint8_t* p) {
  memcpy(p, kFileMagic, sizeof(kFileMagic));
  PutU32(p + 8, kVersion);
  PutU32(p + 12, 0);
}

}  // namespace fathom::h5prov::format
