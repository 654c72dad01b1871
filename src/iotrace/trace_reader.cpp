// trace_reader.cpp — decoding trace files (src/iotrace/trace_format.h).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/trace_files.h"
#include "iotrace/frame_walk.h"
#include "fathom/iotrace.h"
#include "iotrace/trace_format.h"

namespace fathom::iotrace {
namespace {

namespace f = format;

constexpr TraceFileKind kTraceFiles{"I/O trace", {f::kFileMagic, sizeof(f::kFileMagic)}, f::kVersion,
                                    f::kFileHeaderSize, ".fio", "fathom io run"};

// Reads the records of one frame's payload. A malformed record ends the frame with a problem.
class FrameDecoder {
 public:
  FrameDecoder(const uint8_t* begin, const uint8_t* end, Trace& trace, uint64_t offset)
      : p_(begin), end_(end), trace_(trace), offset_(offset), begin_(begin) {}

  void Decode() {
    uint64_t tid = 0, base = 0;
    if (!Get(tid) || !Get(base)) return Fail("frame header");
    uint64_t previous = base;
    std::string previous_path;
    while (p_ < end_) {
      const uint8_t kind = *p_++;
      switch (kind) {
        case f::kProcess:
          if (!Process()) return Fail("process record");
          break;
        case f::kObject:
          if (!ObjectRecord(previous_path)) return Fail("object record");
          break;
        case f::kRun:
          if (!RunRecord(tid, previous)) return Fail("run record");
          break;
        case f::kDropped: {
          uint64_t reason = 0, count = 0;
          if (!Get(reason) || !Get(count)) return Fail("dropped record");
          if (reason == f::kDropBufferFull) trace_.dropped_buffer_full += count;
          else if (reason == f::kDropInSignalHandler) trace_.dropped_in_signal_handler += count;
          else if (reason == f::kDropTooManyThreads) trace_.dropped_too_many_threads += count;
          else return Fail("dropped record (unknown reason " + std::to_string(reason) + ")");
          break;
        }
        case f::kPartial: {
          uint64_t what = 0, count = 0;
          if (!Get(what) || !Get(count)) return Fail("partial record");
          if (what == f::kPartialIoUring) trace_.io_uring_calls += count;
          else if (what == f::kPartialAio) trace_.aio_calls += count;
          else return Fail("partial record (unknown interface " + std::to_string(what) + ")");
          break;
        }
        case f::kEnd: {
          if (p_ >= end_) return Fail("end record");
          const uint8_t reason = *p_++;
          if (!Get(trace_.end_operations) || !Get(trace_.end_dropped)) return Fail("end record");
          if (reason == f::kEndExit) trace_.end = End::kExit;
          else if (reason == f::kEndExec) trace_.end = End::kExec;
          else return Fail("end record (unknown reason)");
          break;
        }
        default:
          --p_;
          return Fail("record of unknown kind " + std::to_string(kind));
      }
    }
  }

 private:
  bool Get(uint64_t& v) { return f::GetVarint(&p_, end_, &v); }
  bool GetSigned(int64_t& v) {
    uint64_t u = 0;
    if (!Get(u)) return false;
    v = f::Unzigzag(u);
    return true;
  }
  bool GetString(std::string& s, size_t max = 1 << 16) {
    uint64_t n = 0;
    if (!Get(n) || n > max || n > static_cast<uint64_t>(end_ - p_)) return false;
    s.assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  void Fail(const std::string& what) {
    trace_.problems.push_back("malformed " + what + " at offset " +
                              std::to_string(offset_ + static_cast<uint64_t>(p_ - begin_)) +
                              " of " + trace_.file + "; the rest of its frame is skipped");
  }

  bool Process() {
    ProcessInfo& info = trace_.process;
    uint64_t flags = 0;
    std::string cmdline;
    if (!Get(info.pid) || !Get(info.ppid) || !Get(info.anchor_realtime_ns) ||
        !Get(info.anchor_monotonic_ns) || !Get(info.quantum_ns) || !GetSigned(info.rank) ||
        !Get(flags) || !Get(info.uid) || !Get(info.gid) || !GetString(info.host) ||
        !GetString(info.job) || !GetString(info.exe) || !GetString(cmdline)) {
      return false;
    }
    if (info.quantum_ns == 0) return false;
    info.uncompressed = (flags & f::kProcessUncompressed) != 0;
    info.argv.clear();
    size_t start = 0;
    while (start <= cmdline.size() && !cmdline.empty()) {
      const size_t nul = cmdline.find('\0', start);
      info.argv.push_back(cmdline.substr(start, nul == std::string::npos ? std::string::npos : nul - start));
      if (nul == std::string::npos) break;
      start = nul + 1;
    }
    trace_.has_process = true;
    return true;
  }

  bool ObjectRecord(std::string& previous_path) {
    uint64_t id = 0, prefix = 0;
    Object o;
    std::string suffix;
    if (!Get(id) || id == 0 || id > UINT32_MAX || !Get(o.dev) || !Get(o.ino) || !Get(prefix) ||
        prefix > previous_path.size() || !GetString(suffix)) {
      return false;
    }
    o.path = previous_path.substr(0, prefix) + suffix;
    previous_path = o.path;
    trace_.objects[static_cast<uint32_t>(id)] = std::move(o);
    return true;
  }

  bool RunRecord(uint64_t tid, uint64_t& previous) {
    Run r;
    r.tid = tid;
    uint64_t flags = 0, target = 0, start_delta = 0;
    if (p_ >= end_) return false;
    r.op = *p_++;
    if (f::Info(r.op).name == nullptr) return false;
    if (!Get(flags) || flags >= (1u << 5) || !Get(target) || target > UINT32_MAX || !Get(start_delta) ||
        !Get(r.duration_sum)) {
      return false;
    }
    r.target = static_cast<uint32_t>(target);
    r.t_first = previous + static_cast<uint64_t>(f::Unzigzag(start_delta));
    previous = r.t_first;
    r.t_last = r.t_first;
    r.duration_min = r.duration_max = r.duration_sum;
    if ((flags & f::kRunMany) != 0) {
      uint64_t span = 0;
      if (!Get(r.count) || r.count < 2 || !Get(span) || !Get(r.duration_min) || !Get(r.duration_max)) {
        return false;
      }
      if (r.duration_min > r.duration_max || r.duration_max > r.duration_sum) return false;
      // One thread starts at most one operation per nanosecond.
      if (r.count - 1 > span || span > UINT64_MAX - r.t_first) return false;
      r.t_last = r.t_first + span;
    }
    if ((flags & f::kRunOffset) != 0) {
      uint64_t offset = 0;
      if (!Get(offset)) return false;
      if (offset > static_cast<uint64_t>(INT64_MAX)) return false;
      r.has_offset = true;
      r.offset = static_cast<int64_t>(offset);
      if ((flags & f::kRunMany) != 0) {
        if (!GetSigned(r.stride)) return false;
        // Every offset of the run is a file offset: from 0 to INT64_MAX.
        const __int128 last = static_cast<__int128>(r.offset) +
                              static_cast<__int128>(r.count - 1) * static_cast<__int128>(r.stride);
        if (last < 0 || last > INT64_MAX) return false;
      }
    }
    if (!Get(r.size)) return false;
    if ((flags & f::kRunResultIsSize) != 0) {
      r.result = static_cast<int64_t>(r.size);
    } else if (!GetSigned(r.result)) {
      return false;
    }
    if ((flags & f::kRunErrno) != 0) {
      uint64_t err = 0;
      if (!Get(err) || err == 0 || err > 4095) return false;
      r.err = static_cast<uint32_t>(err);
    }
    if ((flags & f::kRunAux) != 0) {
      uint64_t aux = 0;
      if (!Get(aux) || aux == 0 || aux > UINT32_MAX) return false;
      r.aux = static_cast<uint32_t>(aux);
    }
    trace_.runs.push_back(r);
    return true;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  Trace& trace_;
  uint64_t offset_;
  const uint8_t* begin_;
};

}  // namespace

uint64_t Trace::Operations() const {
  uint64_t n = 0;
  for (const Run& r : runs) n += r.count;
  return n;
}

Result<Trace> DecodeTrace(std::string_view bytes, const std::string& name) {
  Trace trace;
  trace.file = name;
  trace.bytes = bytes.size();
  FATHOM_RETURN_IF_ERROR(CheckTraceHeader(bytes, name, kTraceFiles));
  trace.frames = WalkFrames(bytes, f::kFileHeaderSize, name, {f::kFrameMagic, f::kMaxFramePayload}, trace.problems,
                            [&](const uint8_t* payload, size_t length, size_t offset) {
                              FrameDecoder(payload, payload + length, trace, offset).Decode();
                            });
  if (!trace.has_process) {
    trace.problems.push_back(name + " has no process record: its times cannot be placed on the wall clock");
  }
  return trace;
}

Result<Trace> ReadTrace(const std::string& path) {
  FATHOM_ASSIGN_OR_RETURN(const std::string bytes, ReadWholeFile(path, std::string(kTraceFiles.what)));
  return DecodeTrace(bytes, path);
}

Result<std::vector<std::string>> FindTraceFiles(const std::string& path) {
  return FindTraceFilesOf(path, kTraceFiles);
}

std::vector<Operation> Expand(const Trace& trace) {
  std::vector<Operation> ops;
  ops.reserve(trace.Operations());
  for (const Run& r : trace.runs) {
    const uint64_t span = r.t_last - r.t_first;
    const uint64_t mean = r.duration_sum / r.count;
    for (uint64_t i = 0; i < r.count; ++i) {
      Operation o;
      o.tid = r.tid;
      o.op = r.op;
      o.target = r.target;
      o.aux = r.aux;
      o.start = r.count == 1 ? r.t_first
                             : r.t_first + static_cast<uint64_t>(static_cast<__uint128_t>(span) * i / (r.count - 1));
      o.duration = r.count == 1 ? r.duration_sum : mean;
      o.has_offset = r.has_offset;
      o.offset = r.offset + static_cast<int64_t>(i) * r.stride;
      o.size = r.size;
      o.result = r.result;
      o.err = r.err;
      ops.push_back(o);
    }
  }
  std::stable_sort(ops.begin(), ops.end(), [](const Operation& a, const Operation& b) {
    return a.start != b.start ? a.start < b.start : a.tid < b.tid;
  });
  return ops;
}

std::string OpName(uint8_t op) {
  const char* name = f::Info(op).name;
  return name != nullptr ? name : "op" + std::to_string(op);
}

}  // namespace fathom::iotrace
