// trace_reader.cpp — decoding HDF5 provenance traces (src/h5prov/h5_format.h).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/trace_files.h"
#include "iotrace/frame_walk.h"
#include "fathom/h5prov.h"
#include "h5prov/h5_format.h"
#include "h5prov/link_moves.h"
#include "h5prov/trace_frames.h"

namespace fathom::h5prov {
namespace {

namespace f = format;


const char* KindName(uint64_t kind) {
  switch (kind) {
    case f::kFile: return "file";
    case f::kGroup: return "group";
    case f::kDataset: return "dataset";
    case f::kAttribute: return "attribute";
    case f::kDatatype: return "datatype";
    default: return nullptr;
  }
}

const char* SelectionName(uint64_t selection) {
  static const char* const kNames[] = {"none", "points", "regular", "irregular", "all", "chunk"};
  return selection <= f::kMaxSelection ? kNames[selection] : nullptr;
}

const char* CloseHowName(uint64_t how) {
  static const char* const kNames[] = {nullptr, "close", "dec_ref", "with_file", "at_exit", "unseen"};
  return how >= 1 && how <= f::kMaxCloseHow ? kNames[how] : nullptr;
}

const char* LayoutName(int64_t layout) {
  static const char* const kNames[] = {"compact", "contiguous", "chunked", "virtual"};
  return layout >= 0 && layout <= 3 ? kNames[layout] : "";
}

// Reads the records of one frame's payload. A malformed record ends the frame with a problem.
class FrameDecoder {
 public:
  FrameDecoder(const uint8_t* begin, const uint8_t* end, Trace& trace, uint64_t offset)
      : p_(begin), end_(end), trace_(trace), offset_(offset), begin_(begin) {}

  void Decode() {
    uint64_t tid = 0, previous = 0;
    if (!Get(tid) || !Get(previous)) return Fail("frame header");
    while (p_ < end_) {
      record_ = p_;
      const uint8_t kind = *p_++;
      bool ok = false;
      switch (kind) {
        case f::kProcess: ok = Process(); break;
        case f::kObject: ok = ObjectRecord(); break;
        case f::kCall: ok = CallRecord(tid, previous); break;
        case f::kClosed: ok = ClosedRecord(); break;
        case f::kRenamed: ok = Renamed(); break;
        case f::kDropped: {
          uint64_t count = 0;
          ok = Get(count);
          trace_.dropped += count;
          break;
        }
        case f::kEnd:
          ok = Get(trace_.end_calls) && Get(trace_.end_dropped) && Get(trace_.end_open_objects);
          trace_.ended = ok;
          break;
        default:
          return Fail("record of unknown kind " + std::to_string(kind));
      }
      if (!ok) return Fail(std::string(RecordName(kind)) + " record");
    }
  }

 private:
  static const char* RecordName(uint8_t kind) {
    switch (kind) {
      case f::kProcess: return "process";
      case f::kObject: return "object";
      case f::kCall: return "call";
      case f::kClosed: return "closed";
      case f::kRenamed: return "renamed";
      case f::kDropped: return "dropped";
      default: return "end";
    }
  }
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
  // `n` varints into `out`, n at most kMaxRank.
  bool GetList(uint64_t n, std::vector<uint64_t>& out) {
    if (n > f::kMaxRank) return false;
    out.resize(n);
    for (uint64_t& v : out) {
      if (!Get(v)) return false;
    }
    return true;
  }
  void Fail(const std::string& what) {
    const uint8_t* at = record_ != nullptr ? record_ : p_;
    trace_.problems.push_back("malformed " + what + " at offset " +
                              std::to_string(offset_ + static_cast<uint64_t>(at - begin_)) + " of " + trace_.file +
                              "; the rest of its frame is skipped");
  }

  bool Process() {
    ProcessInfo& info = trace_.process;
    uint64_t flavour = 0, major = 0, minor = 0, release = 0;
    std::string cmdline;
    if (!Get(info.pid) || !Get(info.ppid) || !Get(info.anchor_realtime_ns) || !Get(info.anchor_monotonic_ns) ||
        !GetSigned(info.rank) || !Get(info.uid) || !Get(info.gid) || !Get(flavour) || !Get(major) ||
        !Get(minor) || !Get(release) || !GetString(info.host) || !GetString(info.job) || !GetString(info.exe) ||
        !GetString(cmdline)) {
      return false;
    }
    info.flavour = flavour == f::kFlavourSerial ? "serial" : flavour == f::kFlavourOpenMpi ? "openmpi" : "unknown";
    info.hdf5_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
    info.argv.clear();
    for (size_t start = 0; !cmdline.empty() && start <= cmdline.size();) {
      const size_t nul = cmdline.find('\0', start);
      info.argv.push_back(cmdline.substr(start, nul == std::string::npos ? std::string::npos : nul - start));
      if (nul == std::string::npos) break;
      start = nul + 1;
    }
    trace_.has_process = true;
    return true;
  }

  bool ObjectRecord() {
    Object o;
    uint64_t kind = 0;
    if (!Get(o.id) || o.id == 0 || !Get(kind) || KindName(kind) == nullptr || !Get(o.file) || !GetSigned(o.hid) ||
        !Get(o.address) || !GetString(o.path) || !GetString(o.name)) {
      return false;
    }
    o.kind = KindName(kind);
    if (kind == f::kFile && (!Get(o.dev) || !Get(o.ino))) return false;
    if (kind == f::kDataset || kind == f::kAttribute) {
      uint64_t variable = 0, rank = 0;
      if (!GetSigned(o.type_class) || !Get(o.type_size) || !Get(variable) || variable > 1 || !Get(rank) ||
          !GetList(rank, o.dims)) {
        return false;
      }
      o.variable_length = variable == 1;
      std::vector<uint64_t> maxdims;
      if (!GetList(rank, maxdims)) return false;
      for (uint64_t m : maxdims) o.maxdims.push_back(m == 0 ? -1 : static_cast<int64_t>(m - 1));
    }
    if (kind == f::kDataset) {
      int64_t layout = 0;
      uint64_t chunk_rank = 0, nfilters = 0;
      if (!GetSigned(layout) || !Get(chunk_rank) || !GetList(chunk_rank, o.chunk) || !Get(nfilters) ||
          nfilters > f::kMaxFilters) {
        return false;
      }
      o.layout = LayoutName(layout);
      for (uint64_t i = 0; i < nfilters; ++i) {
        int64_t filter = 0;
        if (!GetSigned(filter)) return false;
        o.filters.push_back(filter);
      }
    }
    trace_.objects[o.id] = std::move(o);
    return true;
  }

  bool CallRecord(uint64_t tid, uint64_t& previous) {
    Call c;
    c.tid = tid;
    int64_t delta = 0;
    uint64_t flags = 0;
    if (!GetSigned(delta) || p_ >= end_) return false;
    c.start = previous + static_cast<uint64_t>(delta);
    previous = c.start;
    c.op = *p_++;
    if (f::Info(c.op).name == nullptr) return false;
    if (!Get(flags) || (flags & ~static_cast<uint64_t>(f::kCallFlagsAll)) != 0 || !Get(c.seq) || !Get(c.parent) ||
        !Get(c.duration) || !GetSigned(c.result)) {
      return false;
    }
    if (c.parent >= c.seq && c.parent != 0) return false;  // a call is made from an earlier one
    c.failed = (flags & f::kCallFailed) != 0;
    if ((flags & f::kCallObject) != 0 && !Get(c.object)) return false;
    if ((flags & f::kCallLocation) != 0 && !Get(c.location)) return false;
    c.has_name = (flags & f::kCallName) != 0;
    c.has_name2 = (flags & f::kCallName2) != 0;
    if (c.has_name && !GetString(c.name)) return false;
    if (c.has_name2 && !GetString(c.name2)) return false;
    c.has_data = (flags & f::kCallData) != 0;
    c.variable_length = (flags & f::kCallVariableLength) != 0;
    if ((flags & f::kCallIndependent) != 0 && (flags & f::kCallCollective) != 0) return false;
    if ((flags & f::kCallIndependent) != 0) c.transfer = "independent";
    if ((flags & f::kCallCollective) != 0) c.transfer = "collective";
    if (c.has_data) {
      uint64_t selection = 0;
      if (!Get(c.mem_bytes) || !Get(c.file_bytes) || !Get(selection) || SelectionName(selection) == nullptr ||
          !Get(c.selection.points)) {
        return false;
      }
      c.selection.kind = SelectionName(selection);
      if (selection == f::kSelectRegular) {
        uint64_t rank = 0;
        if (!Get(rank) || rank == 0 || !GetList(rank, c.selection.start) || !GetList(rank, c.selection.stride) ||
            !GetList(rank, c.selection.count) || !GetList(rank, c.selection.block)) {
          return false;
        }
      } else if (selection == f::kSelectIrregular && !Get(c.selection.blocks)) {
        return false;
      }
    }
    trace_.calls.push_back(std::move(c));
    return true;
  }

  bool ClosedRecord() {
    Closed c;
    uint64_t how = 0, stored = 0, rank = 0;
    if (!Get(c.id) || c.id == 0 || !Get(how) || CloseHowName(how) == nullptr || !Get(c.end) || !Get(c.reads) ||
        !Get(c.writes) || !Get(c.read_mem_bytes) || !Get(c.read_file_bytes) || !Get(c.write_mem_bytes) ||
        !Get(c.write_file_bytes) || !Get(c.read_ns) || !Get(c.write_ns) || !Get(c.calls) || !Get(c.inc_refs) ||
        !Get(stored) || !Get(rank) || !GetList(rank, c.dims)) {
      return false;
    }
    c.how = CloseHowName(how);
    c.stored_size = stored == 0 || stored - 1 > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(stored - 1);
    trace_.closed.push_back(std::move(c));
    return true;
  }

  bool Renamed() {
    uint64_t id = 0;
    std::string path;
    if (!Get(id) || !GetString(path)) return false;
    auto it = trace_.objects.find(id);
    if (it != trace_.objects.end()) it->second.path = std::move(path);
    return true;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  Trace& trace_;
  uint64_t offset_;
  const uint8_t* begin_;
  const uint8_t* record_ = nullptr;
};

}  // namespace

void DecodeTraceFrames(std::string_view bytes, uint64_t offset, Trace& trace,
                       const std::function<void(uint64_t)>& after_frame) {
  trace.frames += iotrace::WalkFrames(
      bytes, 0, trace.file, H5TraceKind().frames, trace.problems,
      [&](const uint8_t* payload, size_t length, size_t at) {
        FrameDecoder(payload, payload + length, trace, at).Decode();
        if (after_frame) after_frame(at + length);
      },
      offset);
}

const TraceFileKind& H5TraceFiles() {
  static constexpr TraceFileKind kTraceFiles{"HDF5 trace", {f::kFileMagic, sizeof(f::kFileMagic)}, f::kVersion,
                                             f::kFileHeaderSize, ".fh5", "fathom h5 run"};
  return kTraceFiles;
}

iotrace::TraceKind H5TraceKind() {
  return {std::string_view(f::kFileMagic, sizeof(f::kFileMagic)), {f::kFrameMagic, f::kMaxFramePayload}};
}

Result<Trace> DecodeTrace(std::string_view bytes, const std::string& name) {
  Trace trace;
  trace.file = name;
  trace.bytes = bytes.size();
  FATHOM_RETURN_IF_ERROR(CheckTraceHeader(bytes, name, H5TraceFiles()));
  DecodeTraceFrames(bytes.substr(f::kFileHeaderSize), f::kFileHeaderSize, trace);
  ApplyLinkMoves(trace);
  if (!trace.has_process) {
    trace.problems.push_back(name + " has no process record: its times cannot be placed on the wall clock");
  }
  return trace;
}

Result<Trace> ReadTrace(const std::string& path) {
  FATHOM_ASSIGN_OR_RETURN(const std::string bytes, ReadWholeFile(path, std::string(H5TraceFiles().what)));
  return DecodeTrace(bytes, path);
}

Result<std::vector<std::string>> FindTraceFiles(const std::string& path) {
  return FindTraceFilesOf(path, H5TraceFiles());
}

std::string OpName(uint8_t op) {
  const char* name = f::Info(op).name;
  return name != nullptr ? name : "op" + std::to_string(op);
}

}  // namespace fathom::h5prov
