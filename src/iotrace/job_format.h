// job_format.h — the job file (.fiojob): a job's traces compressed across its processes
// (`fathom io compress`, iotrace::CompressJob). docs/io.md describes it.
//
//   file    = "FIOJOB\0\0" u32le(version) u32le(0) frame+
//   frame   = u32le(kFrameMagic) u32le(payload length) u32le(CRC-32 of payload) payload
//
// The payloads, put end to end, are one Zstandard frame (its content size given), which holds
// the stream; frames only bound what one checksum covers. The stream is four sections, so that
// values alike sit together: the group's shapes in one, the members' times, durations and
// offsets each in their own.
//
//   stream  = len(main) len(starts) len(durations) len(offsets) main starts durations offsets
//
// Integers are LEB128 varints (trace_format.h's), "zz" ones zigzag-coded, "Δ" ones the
// difference from the same field of the previous record of their kind (0 before the first):
//
//   main    = n_objects n_blobs n_processes n_groups object* blob* process* group*
//   object  = dev ino prefix suffix          (path front-coded against the previous object)
//   blob    = length bytes                   (a part of processes alike, stored once)
//   process = flags pid(zzΔ) ppid(zz, from pid) anchor_realtime(zzΔ) anchor_monotonic(zzΔ)
//             quantum rank(zzΔ) identity objects threads sequence  (blob indices, zzΔ)
//             file-prefix file-suffix (front-coded against the previous process's)
//             dropped_buffer_full dropped_in_signal_handler dropped_too_many_threads
//             io_uring aio end_operations end_dropped frames bytes n_problems problem*
//   group   = flags thread op target [aux when kAux] count-1 size [result(zz) unless
//             kResultIsSize] [errno when kErrno] [stride(zz) when kOffsets]
//             [a(zz) b(zz) when kLinear]
//
// and for each member of each group, in group order, then member order:
//
//   starts    += start(zz) [span unless kSpanZero]
//   durations += duration_sum [duration_min duration_max unless kFlat]
//   offsets   += [offset(zzΔ) when kOffsets and not kLinear]
//
// Blobs: identity = uid gid host job exe argc argv*; objects = n (local id, job id(zz), length-1)*:
// ranges of consecutive ids on both sides, each id from the end of the previous range (job ids
// count from 1 in object order); threads = n tid-pid(zz)* (a group's thread indexes
// it); sequence = n (first group(zz, from the end of the previous range), length-1)*: the
// process's runs in their order, as ranges of group numbers.
//
// A group's members are the processes whose sequence holds it, in process order. Its offsets
// are a·rank + b when kLinear (rank: the process's MPI rank, else its index), else each
// member's own (Δ within the group). A member's start is the difference of its run's start from
// the previous run of its process (the first from anchor_monotonic), less the same difference of
// the group's previous member (processes that do alike at the same pace cost a byte). A target
// (and an aux) is a job object id, or 0 followed by the process's own id for one it has no
// object for.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <string_view>

#include "iotrace/trace_format.h"

namespace fathom::iotrace::jobformat {

inline constexpr char kFileMagic[8] = {'F', 'I', 'O', 'J', 'O', 'B', '\0', '\0'};
inline constexpr uint32_t kVersion = 2;
inline constexpr size_t kFileHeaderSize = 16;
inline constexpr uint32_t kFrameMagic = 0x424a4f46;  // "FOJB" little-endian
inline constexpr size_t kFrameHeaderSize = 12;
inline constexpr uint32_t kMaxFramePayload = 1u << 20;
inline constexpr int kZstdLevel = 12;
// A stream longer than this many times its compressed size plus kStreamSlack is refused as
// damage (a real job's stream compresses a few times; a forged size could ask for any memory).
inline constexpr uint64_t kMaxExpansion = 1024;
inline constexpr uint64_t kStreamSlack = 1u << 20;
inline constexpr int kSections = 4;
inline constexpr const char* kSectionNames[kSections] = {"main", "starts", "durations", "offsets"};

// A process's flags.
inline constexpr uint64_t kHasProcess = 1u << 0;
inline constexpr uint64_t kUncompressed = 1u << 1;
inline constexpr int kEndShift = 2;  // 2 bits: 0 none, 1 exit, 2 exec

// A group's flags.
inline constexpr uint64_t kHasOffset = 1u << 0;  // Run::has_offset
inline constexpr uint64_t kOffsets = 1u << 1;    // offsets and stride are stored (some are not 0)
inline constexpr uint64_t kLinear = 1u << 2;     // offsets are a·rank + b
inline constexpr uint64_t kResultIsSize = 1u << 3;
inline constexpr uint64_t kErrno = 1u << 4;
inline constexpr uint64_t kAux = 1u << 5;
inline constexpr uint64_t kSpanZero = 1u << 6;  // every member's t_last is its t_first
inline constexpr uint64_t kFlat = 1u << 7;      // every member's durations are min = max = sum
inline constexpr uint64_t kGroupFlagsEnd = 1u << 8;

// Appends varints to a string.
class Writer {
 public:
  void U(uint64_t v) {
    uint8_t buffer[format::kMaxVarint];
    out_.append(reinterpret_cast<const char*>(buffer),
                static_cast<size_t>(format::PutVarint(buffer, v) - buffer));
  }
  void S(int64_t v) { U(format::Zigzag(v)); }
  void Str(std::string_view s) {
    U(s.size());
    out_.append(s);
  }
  // `s` front-coded against `previous`, which becomes `s`.
  void FrontCoded(const std::string& s, std::string& previous) {
    size_t prefix = 0;
    while (prefix < s.size() && prefix < previous.size() && s[prefix] == previous[prefix]) ++prefix;
    U(prefix);
    Str(std::string_view(s).substr(prefix));
    previous = s;
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

// Reads varints from a byte range; every getter returns false (and reads nothing) when the
// value is cut or malformed.
class Reader {
 public:
  explicit Reader(std::string_view bytes)
      : begin_(reinterpret_cast<const uint8_t*>(bytes.data())),
        p_(begin_),
        end_(begin_ + bytes.size()) {}
  bool U(uint64_t& v) { return format::GetVarint(&p_, end_, &v); }
  bool S(int64_t& v) {
    uint64_t u = 0;
    if (!U(u)) return false;
    v = format::Unzigzag(u);
    return true;
  }
  bool Str(std::string& s) {
    uint64_t n = 0;
    if (!U(n) || n > Left()) return false;
    s.assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  bool FrontCoded(std::string& s, std::string& previous) {
    uint64_t prefix = 0;
    std::string suffix;
    if (!U(prefix) || prefix > previous.size() || !Str(suffix)) return false;
    s = previous.substr(0, prefix) + suffix;
    previous = s;
    return true;
  }
  size_t Left() const { return static_cast<size_t>(end_ - p_); }
  size_t Offset() const { return static_cast<size_t>(p_ - begin_); }

 private:
  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace fathom::iotrace::jobformat
