// trace_format.h — the I/O trace file written by libfathom-io.so and read by `fathom io`.
//
// Shared by the tracer (which links nothing but libc, so this header uses no part of the C++
// library that needs libstdc++ at run time) and the reader. docs/io.md describes the format.
//
// A trace file holds one process image (one program between its start and its exit or exec):
//
//   file    = "FIOTRACE" u32le(version) u32le(0) frame*
//   frame   = u32le(kFrameMagic) u32le(payload length) u32le(CRC-32 of payload) payload
//   payload = varint(tid) varint(base time, monotonic ns) record*
//
// A frame is what one thread recorded between two hand-overs to the writer; frames of
// different threads interleave in the file in the order they were written. A frame whose
// length or CRC does not check (a process killed while writing) ends what can be read from
// the file; the frames before it are whole.
//
// Records start with a kind byte; integers are LEB128 varints, signed ones zigzag-coded:
//   kProcess: pid ppid anchor_realtime_ns anchor_monotonic_ns quantum_ns rank(s) flags
//             uid gid  host job exe cmdline (each varint length + bytes; cmdline's
//             arguments separated by NUL)
//   kObject:  id dev ino prefix suffix-length suffix  (the path front-coded against the
//             previous kObject of the same frame; dev = ino = 0 for a name seen only as a
//             path, e.g. the argument of unlink or of a failed open)
//   kRun:     op flags target t_first(s, delta from the previous kRun's t_first in the
//             frame, the first from the frame's base time) duration_sum
//             [count t_last-t_first duration_min duration_max]   when kRunMany
//             [offset [stride(s) when kRunMany]]                  when kRunOffset
//             size  [result(s)] unless kRunResultIsSize  [errno] when kRunErrno
//             [aux] when kRunAux (the second path of rename, link and symlink)
//   kDropped: reason count         operations not recorded (see DropReason)
//   kPartial: what count           calls the tracer sees but cannot measure (io_uring, AIO)
//   kEnd:     reason operations dropped  (a clean exit or an exec; totals of the image)
//
// A kRun stands for `count` operations with the same op, target, size, result and errno,
// whose offsets go up by `stride` from `offset`, all started within one time quantum
// (quantum_ns, aligned on the wall clock, so per-second figures stay exact). The first
// starts at t_first and the last at t_last; the durations add to duration_sum.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace fathom::iotrace::format {

inline constexpr char kFileMagic[8] = {'F', 'I', 'O', 'T', 'R', 'A', 'C', 'E'};
inline constexpr uint32_t kVersion = 1;
inline constexpr size_t kFileHeaderSize = 16;
inline constexpr uint32_t kFrameMagic = 0x46524d31;  // "1MRF" little-endian: "FRM1"
inline constexpr size_t kFrameHeaderSize = 12;
// The largest payload a frame may have; a larger length is corruption.
inline constexpr uint32_t kMaxFramePayload = 1u << 20;

enum RecordKind : uint8_t {
  kProcess = 1,
  kObject = 2,
  kRun = 3,
  kDropped = 4,
  kPartial = 5,
  kEnd = 6,
};

enum RunFlags : uint32_t {
  kRunMany = 1u << 0,
  kRunOffset = 1u << 1,
  kRunResultIsSize = 1u << 2,
  kRunErrno = 1u << 3,
  kRunAux = 1u << 4,
};

enum ProcessFlags : uint32_t {
  kProcessUncompressed = 1u << 0,  // every operation is its own kRun (FATHOM_IO_COMPRESS=0)
};

enum DropReason : uint8_t {
  kDropBufferFull = 1,      // the writer could not keep up: no free buffer
  kDropInSignalHandler = 2, // an I/O call from a signal handler that interrupted the tracer
  kDropTooManyThreads = 3,  // more threads than the tracer has states for
};

enum PartialWhat : uint8_t {
  kPartialIoUring = 1,
  kPartialAio = 2,
};

enum EndReason : uint8_t {
  kEndExit = 1,
  kEndExec = 2,  // an exec was attempted; if it failed, more frames follow
};

enum class Layer : uint8_t { kPosix, kStdio, kMpiIo };
// What an operation does, for the analysis: moves data, or is a metadata operation (counted
// in metadata rates), or neither (close, seek, sync...).
enum class OpClass : uint8_t { kRead, kWrite, kMeta, kOther };

// The operations. Values are part of the file format: add at the end, never renumber.
#define FATHOM_IO_OPS(X)                                    \
  X(kOpen, 1, "open", kPosix, kMeta)                        \
  X(kClose, 2, "close", kPosix, kOther)                     \
  X(kRead, 3, "read", kPosix, kRead)                        \
  X(kWrite, 4, "write", kPosix, kWrite)                     \
  X(kPread, 5, "pread", kPosix, kRead)                      \
  X(kPwrite, 6, "pwrite", kPosix, kWrite)                   \
  X(kReadv, 7, "readv", kPosix, kRead)                      \
  X(kWritev, 8, "writev", kPosix, kWrite)                   \
  X(kPreadv, 9, "preadv", kPosix, kRead)                    \
  X(kPwritev, 10, "pwritev", kPosix, kWrite)                \
  X(kLseek, 11, "lseek", kPosix, kOther)                    \
  X(kFsync, 12, "fsync", kPosix, kOther)                    \
  X(kFdatasync, 13, "fdatasync", kPosix, kOther)            \
  X(kTruncate, 14, "truncate", kPosix, kMeta)               \
  X(kFtruncate, 15, "ftruncate", kPosix, kMeta)             \
  X(kFallocate, 16, "fallocate", kPosix, kOther)            \
  X(kStat, 17, "stat", kPosix, kMeta)                       \
  X(kLstat, 18, "lstat", kPosix, kMeta)                     \
  X(kFstat, 19, "fstat", kPosix, kMeta)                     \
  X(kFstatat, 20, "fstatat", kPosix, kMeta)                 \
  X(kStatx, 21, "statx", kPosix, kMeta)                     \
  X(kMkdir, 22, "mkdir", kPosix, kMeta)                     \
  X(kRmdir, 23, "rmdir", kPosix, kMeta)                     \
  X(kUnlink, 24, "unlink", kPosix, kMeta)                   \
  X(kRename, 25, "rename", kPosix, kMeta)                   \
  X(kLink, 26, "link", kPosix, kMeta)                       \
  X(kSymlink, 27, "symlink", kPosix, kMeta)                 \
  X(kOpendir, 28, "opendir", kPosix, kMeta)                 \
  X(kReaddir, 29, "readdir", kPosix, kMeta)                 \
  X(kDup, 30, "dup", kPosix, kOther)                        \
  X(kMmap, 31, "mmap", kPosix, kOther)                      \
  X(kCopyFileRange, 32, "copy_file_range", kPosix, kWrite)  \
  X(kSendfile, 33, "sendfile", kPosix, kRead)               \
  X(kCreat, 34, "creat", kPosix, kMeta)                     \
  X(kFopen, 40, "fopen", kStdio, kMeta)                     \
  X(kFdopen, 41, "fdopen", kStdio, kOther)                  \
  X(kFclose, 42, "fclose", kStdio, kOther)                  \
  X(kFread, 43, "fread", kStdio, kRead)                     \
  X(kFwrite, 44, "fwrite", kStdio, kWrite)                  \
  X(kFgets, 45, "fgets", kStdio, kRead)                     \
  X(kFputs, 46, "fputs", kStdio, kWrite)                    \
  X(kFprintf, 47, "fprintf", kStdio, kWrite)                \
  X(kFscanf, 48, "fscanf", kStdio, kRead)                   \
  X(kFseek, 49, "fseek", kStdio, kOther)                    \
  X(kFflush, 50, "fflush", kStdio, kOther)                  \
  X(kGetc, 51, "getc", kStdio, kRead)                       \
  X(kPutc, 52, "putc", kStdio, kWrite)                      \
  X(kMpiOpen, 60, "MPI_File_open", kMpiIo, kMeta)           \
  X(kMpiClose, 61, "MPI_File_close", kMpiIo, kOther)        \
  X(kMpiRead, 62, "MPI_File_read", kMpiIo, kRead)           \
  X(kMpiWrite, 63, "MPI_File_write", kMpiIo, kWrite)        \
  X(kMpiReadAt, 64, "MPI_File_read_at", kMpiIo, kRead)      \
  X(kMpiWriteAt, 65, "MPI_File_write_at", kMpiIo, kWrite)   \
  X(kMpiReadAll, 66, "MPI_File_read_all", kMpiIo, kRead)    \
  X(kMpiWriteAll, 67, "MPI_File_write_all", kMpiIo, kWrite) \
  X(kMpiReadAtAll, 68, "MPI_File_read_at_all", kMpiIo, kRead) \
  X(kMpiWriteAtAll, 69, "MPI_File_write_at_all", kMpiIo, kWrite) \
  X(kMpiSync, 70, "MPI_File_sync", kMpiIo, kOther)          \
  X(kMpiSetView, 71, "MPI_File_set_view", kMpiIo, kOther)

enum Op : uint8_t {
#define FATHOM_IO_OP_ENUM(name, value, text, layer, cls) name = value,
  FATHOM_IO_OPS(FATHOM_IO_OP_ENUM)
#undef FATHOM_IO_OP_ENUM
};
inline constexpr uint8_t kMaxOp = 71;

struct OpInfo {
  const char* name;  // nullptr: not an operation
  Layer layer;
  OpClass op_class;
};

constexpr OpInfo Info(uint8_t op) {
  switch (op) {
#define FATHOM_IO_OP_INFO(name, value, text, layer, cls) \
  case value:                                            \
    return {text, Layer::layer, OpClass::cls};
    FATHOM_IO_OPS(FATHOM_IO_OP_INFO)
#undef FATHOM_IO_OP_INFO
    default:
      return {nullptr, Layer::kPosix, OpClass::kOther};
  }
}

// ---- integers -------------------------------------------------------------------------------

inline constexpr size_t kMaxVarint = 10;

inline uint8_t* PutVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

constexpr uint64_t Zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
constexpr int64_t Unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Reads a varint from [*p, end); false (and *p unchanged) if it is cut or longer than 64 bits.
inline bool GetVarint(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  const uint8_t* q = *p;
  for (int shift = 0; shift < 64 && q < end; shift += 7) {
    const uint8_t b = *q++;
    if (shift == 63 && b > 1) return false;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *p = q;
      *out = v;
      return true;
    }
  }
  return false;
}

inline void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t GetU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// CRC-32 (IEEE, reflected, as zlib's crc32) of a frame's payload.
struct Crc32Table {
  uint32_t entry[256];
};
constexpr Crc32Table MakeCrc32Table() {
  Crc32Table table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    table.entry[i] = crc;
  }
  return table;
}
inline constexpr Crc32Table kCrc32Table = MakeCrc32Table();

inline uint32_t Crc32(const uint8_t* data, size_t size) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < size; ++i) crc = kCrc32Table.entry[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

inline void PutFileHeader(uint8_t* p) {
  memcpy(p, kFileMagic, sizeof(kFileMagic));
  PutU32(p + 8, kVersion);
  PutU32(p + 12, 0);
}

}  // namespace fathom::iotrace::format
