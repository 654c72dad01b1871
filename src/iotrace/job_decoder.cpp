// job_decoder.cpp — ExpandJob: a job file (src/iotrace/job_format.h) back into its traces.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <zstd.h>

#include "core/trace_files.h"
#include "fathom/iotrace.h"
#include "iotrace/job_format.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
namespace jf = jobformat;

// Where each process's parts are, as the groups need them.
struct ProcessParts {
  std::map<uint32_t, uint32_t> local_of;  // job object id → the trace's id
  std::vector<uint64_t> tids;
  std::vector<uint32_t> sequence;  // the group of each run
};

class Decoder {
 public:
  Decoder(const std::string_view (&sections)[jf::kSections], const std::string& name)
      : in_(sections[0]),
        starts_(sections[1]),
        durations_(sections[2]),
        offsets_(sections[3]),
        name_(name) {}

  Result<std::vector<Trace>> Decode() {
    uint64_t n_objects = 0, n_blobs = 0, n_processes = 0, n_groups = 0;
    if (!in_.U(n_objects) || !in_.U(n_blobs) || !in_.U(n_processes) || !in_.U(n_groups) ||
        n_objects > in_.Left() || n_blobs > in_.Left() || n_processes > in_.Left() ||
        n_groups > in_.Left()) {
      return Fail("header");
    }
    n_groups_ = n_groups;
    std::string previous_path;
    for (uint64_t i = 0; i < n_objects; ++i) {
      Object o;
      if (!in_.U(o.dev) || !in_.U(o.ino) || !in_.FrontCoded(o.path, previous_path))
        return Fail("object");
      objects_.push_back(std::move(o));
    }
    for (uint64_t i = 0; i < n_blobs; ++i) {
      std::string blob;
      if (!in_.Str(blob)) return Fail("blob");
      blobs_.push_back(std::move(blob));
    }
    for (uint64_t p = 0; p < n_processes; ++p) {
      if (!ProcessRecord()) return Fail("process record " + std::to_string(p));
    }
    members_.resize(n_groups);
    for (uint32_t p = 0; p < parts_.size(); ++p) {
      for (uint32_t i = 0; i < parts_[p].sequence.size(); ++i)
        members_[parts_[p].sequence[i]].push_back({p, i});
    }
    for (uint64_t g = 0; g < n_groups; ++g) {
      if (members_[g].empty() || !GroupRecord(members_[g]))
        return Fail("group " + std::to_string(g));
    }
    for (int k = 0; k < jf::kSections; ++k) {
      if (Section(k).Left() != 0) {
        bad_section_ = k;
        return Fail("end (bytes after the last group)");
      }
    }
    // Starts were read as differences from the previous run of the process.
    for (Trace& t : traces_) {
      uint64_t previous = t.process.anchor_monotonic_ns;
      for (Run& r : t.runs) {
        r.t_first += previous;
        r.t_last += r.t_first;
        previous = r.t_first;
      }
    }
    return std::move(traces_);
  }

 private:
  struct Member {
    uint32_t process;
    uint32_t run;
  };

  const jf::Reader& Section(int k) const {
    const jf::Reader* sections[jf::kSections] = {&in_, &starts_, &durations_, &offsets_};
    return *sections[k];
  }

  // `ok`, noting `section` as where the damage is when it is not.
  bool In(int section, bool ok) {
    if (!ok && bad_section_ < 0) bad_section_ = section;
    return ok;
  }

  Status Fail(const std::string& what) const {
    const int k = bad_section_ >= 0 ? bad_section_ : 0;
    return Status::Error("malformed " + what + " at byte " + std::to_string(Section(k).Offset()) +
                         " of the " + jf::kSectionNames[k] + " section of the job file " + name_);
  }

  const std::string* BlobAt(uint64_t& previous, bool& ok) {
    uint64_t delta = 0;
    ok = in_.U(delta);
    previous += static_cast<uint64_t>(f::Unzigzag(delta));
    ok = ok && previous < blobs_.size();
    return ok ? &blobs_[previous] : nullptr;
  }

  bool ProcessRecord() {
    Trace t;
    ProcessParts parts;
    ProcessInfo& info = t.process;
    const Trace none;
    const Trace& previous = traces_.empty() ? none : traces_.back();
    uint64_t flags = 0, pid = 0, ppid = 0, realtime = 0, monotonic = 0, rank = 0;
    if (!in_.U(flags) || flags >= (3u << jf::kEndShift) || !in_.U(pid) || !in_.U(ppid) ||
        !in_.U(realtime) || !in_.U(monotonic) || !in_.U(info.quantum_ns) || !in_.U(rank)) {
      return false;
    }
    t.has_process = (flags & jf::kHasProcess) != 0;
    info.uncompressed = (flags & jf::kUncompressed) != 0;
    const uint64_t end = flags >> jf::kEndShift;
    t.end = end == 1 ? End::kExit : end == 2 ? End::kExec : End::kNone;
    info.pid = previous.process.pid + static_cast<uint64_t>(f::Unzigzag(pid));
    info.ppid = info.pid + static_cast<uint64_t>(f::Unzigzag(ppid));
    info.anchor_realtime_ns =
        previous.process.anchor_realtime_ns + static_cast<uint64_t>(f::Unzigzag(realtime));
    info.anchor_monotonic_ns =
        previous.process.anchor_monotonic_ns + static_cast<uint64_t>(f::Unzigzag(monotonic));
    info.rank = static_cast<int64_t>(static_cast<uint64_t>(previous_rank_) +
                                     static_cast<uint64_t>(f::Unzigzag(rank)));
    previous_rank_ = info.rank;
    bool ok = true;
    const std::string* identity = BlobAt(previous_blobs_[0], ok);
    const std::string* objects = ok ? BlobAt(previous_blobs_[1], ok) : nullptr;
    const std::string* threads = ok ? BlobAt(previous_blobs_[2], ok) : nullptr;
    const std::string* sequence = ok ? BlobAt(previous_blobs_[3], ok) : nullptr;
    if (!ok || !Identity(*identity, info) || !ObjectMap(*objects, t, parts) ||
        !Threads(*threads, info.pid, parts) || !Sequence(*sequence, parts)) {
      return false;
    }
    if (!in_.FrontCoded(t.file, previous_file_)) return false;
    for (uint64_t* v : {&t.dropped_buffer_full, &t.dropped_in_signal_handler,
                        &t.dropped_too_many_threads, &t.io_uring_calls, &t.aio_calls,
                        &t.end_operations, &t.end_dropped, &t.frames, &t.bytes}) {
      if (!in_.U(*v)) return false;
    }
    uint64_t n_problems = 0;
    if (!in_.U(n_problems) || n_problems > in_.Left()) return false;
    t.problems.resize(n_problems);
    for (std::string& problem : t.problems) {
      if (!in_.Str(problem)) return false;
    }
    t.runs.resize(parts.sequence.size());
    traces_.push_back(std::move(t));
    parts_.push_back(std::move(parts));
    return true;
  }

  static bool Identity(const std::string& blob, ProcessInfo& info) {
    jf::Reader r(blob);
    uint64_t argc = 0;
    if (!r.U(info.uid) || !r.U(info.gid) || !r.Str(info.host) || !r.Str(info.job) ||
        !r.Str(info.exe) || !r.U(argc) || argc > r.Left()) {
      return false;
    }
    info.argv.resize(argc);
    for (std::string& a : info.argv) {
      if (!r.Str(a)) return false;
    }
    return r.Left() == 0;
  }

  bool ObjectMap(const std::string& blob, Trace& t, ProcessParts& parts) const {
    jf::Reader r(blob);
    uint64_t n = 0;
    if (!r.U(n) || n > r.Left()) return false;
    uint64_t next_local = 0, next_job = 0;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t local_delta = 0, length = 0;
      int64_t job_delta = 0;
      if (!r.U(local_delta) || local_delta > UINT32_MAX || !r.S(job_delta) || !r.U(length))
        return false;
      const uint64_t local = static_cast<uint32_t>(next_local + local_delta);
      const uint64_t job = next_job + static_cast<uint64_t>(job_delta);
      if (job < 1 || job > objects_.size() || length >= objects_.size() - job + 1) return false;
      for (uint64_t k = 0; k <= length; ++k) {
        const auto id = static_cast<uint32_t>(local + k);
        if (!t.objects.emplace(id, objects_[job + k - 1]).second) return false;
        if (!parts.local_of.emplace(static_cast<uint32_t>(job + k), id).second) return false;
      }
      next_local = local + length + 1;
      next_job = job + length + 1;
    }
    return r.Left() == 0;
  }

  static bool Threads(const std::string& blob, uint64_t pid, ProcessParts& parts) {
    jf::Reader r(blob);
    uint64_t n = 0;
    if (!r.U(n) || n > r.Left()) return false;
    for (uint64_t i = 0; i < n; ++i) {
      int64_t delta = 0;
      if (!r.S(delta)) return false;
      parts.tids.push_back(pid + static_cast<uint64_t>(delta));
    }
    return r.Left() == 0;
  }

  bool Sequence(const std::string& blob, ProcessParts& parts) {
    jf::Reader r(blob);
    uint64_t n = 0;
    if (!r.U(n) || n > r.Left()) return false;
    uint64_t next = 0;
    const uint64_t process = traces_.size();
    if (holder_.size() != n_groups_) holder_.assign(n_groups_, UINT64_MAX);
    for (uint64_t i = 0; i < n; ++i) {
      int64_t delta = 0;
      uint64_t length = 0;
      if (!r.S(delta) || !r.U(length)) return false;
      const uint64_t first = next + static_cast<uint64_t>(delta);
      if (first >= n_groups_ || length >= n_groups_ - first) return false;
      // Each member of a group has at least a byte of its own: more runs than bytes left is damage.
      members_total_ += length + 1;
      if (!In(1, members_total_ <= starts_.Left())) return false;
      for (uint64_t g = first; g <= first + length; ++g) {
        if (holder_[g] == process) return false;  // a group holds one run of a process
        holder_[g] = process;
        parts.sequence.push_back(static_cast<uint32_t>(g));
      }
      next = first + length + 1;
    }
    return r.Left() == 0;
  }

  // A target or aux: the job object's id in each member's trace, or the trace's own id.
  bool Target(const std::vector<Member>& members, uint32_t Run::*field) {
    uint64_t job = 0;
    if (!in_.U(job)) return false;
    if (job == 0) {
      uint64_t local = 0;
      if (!in_.U(local) || local > UINT32_MAX) return false;
      for (const Member& m : members)
        traces_[m.process].runs[m.run].*field = static_cast<uint32_t>(local);
      return true;
    }
    if (job > UINT32_MAX) return false;
    for (const Member& m : members) {
      const auto& local_of = parts_[m.process].local_of;
      auto it = local_of.find(static_cast<uint32_t>(job));
      if (it == local_of.end()) return false;
      traces_[m.process].runs[m.run].*field = it->second;
    }
    return true;
  }

  bool GroupRecord(const std::vector<Member>& members) {
    uint64_t flags = 0, thread = 0, op = 0, count_less_one = 0, size = 0, err = 0;
    int64_t result = 0, stride = 0, a = 0, b = 0;
    if (!in_.U(flags) || flags >= jf::kGroupFlagsEnd || !in_.U(thread) || !in_.U(op) ||
        op > UINT8_MAX || f::Info(static_cast<uint8_t>(op)).name == nullptr ||
        !Target(members, &Run::target)) {
      return false;
    }
    if ((flags & jf::kAux) != 0 && !Target(members, &Run::aux)) return false;
    if (!in_.U(count_less_one) || count_less_one == UINT64_MAX || !in_.U(size)) return false;
    if ((flags & jf::kResultIsSize) != 0) {
      result = static_cast<int64_t>(size);
    } else if (!in_.S(result)) {
      return false;
    }
    if ((flags & jf::kErrno) != 0 && (!in_.U(err) || err == 0 || err > UINT32_MAX)) return false;
    const bool offsets = (flags & jf::kOffsets) != 0, linear = (flags & jf::kLinear) != 0;
    if (linear && !offsets) return false;
    if (offsets && !in_.S(stride)) return false;
    if (linear && (!in_.S(a) || !in_.S(b))) return false;
    uint64_t previous_offset = 0, previous_start = 0;
    for (const Member& m : members) {
      Run& r = traces_[m.process].runs[m.run];
      const ProcessParts& parts = parts_[m.process];
      if (thread >= parts.tids.size()) return false;
      r.tid = parts.tids[thread];
      r.op = static_cast<uint8_t>(op);
      r.count = count_less_one + 1;
      r.has_offset = (flags & jf::kHasOffset) != 0;
      r.stride = stride;
      r.size = size;
      r.result = result;
      r.err = static_cast<uint32_t>(err);
      if (linear) {
        const uint64_t rank = traces_[m.process].process.rank >= 0
                                  ? static_cast<uint64_t>(traces_[m.process].process.rank)
                                  : m.process;
        r.offset = static_cast<int64_t>(static_cast<uint64_t>(a) * rank + static_cast<uint64_t>(b));
      } else if (offsets) {
        int64_t delta = 0;
        if (!In(3, offsets_.S(delta))) return false;
        previous_offset += static_cast<uint64_t>(delta);
        r.offset = static_cast<int64_t>(previous_offset);
      }
      int64_t start = 0;
      uint64_t span = 0;
      if (!In(1, starts_.S(start))) return false;
      previous_start += static_cast<uint64_t>(start);
      r.t_first = previous_start;  // made absolute when every group is read
      if ((flags & jf::kSpanZero) == 0 && !In(1, starts_.U(span))) return false;
      // One thread starts at most one operation per nanosecond.
      if (!In(1, span >= r.count - 1)) return false;
      r.t_last = span;
      if (!In(2, durations_.U(r.duration_sum))) return false;
      r.duration_min = r.duration_max = r.duration_sum;
      if ((flags & jf::kFlat) == 0 &&
          !In(2, durations_.U(r.duration_min) && durations_.U(r.duration_max)))
        return false;
    }
    return true;
  }

  jf::Reader in_;  // the main section
  jf::Reader starts_;
  jf::Reader durations_;
  jf::Reader offsets_;
  int bad_section_ = -1;  // where the first damage found is, when not in main
  const std::string& name_;
  uint64_t n_groups_ = 0;
  uint64_t members_total_ = 0;
  std::vector<uint64_t> holder_;  // the last process whose sequence holds each group
  std::vector<Object> objects_;
  std::vector<std::string> blobs_;
  std::vector<Trace> traces_;
  std::vector<ProcessParts> parts_;
  std::vector<std::vector<Member>> members_;
  int64_t previous_rank_ = 0;
  uint64_t previous_blobs_[4] = {};
  std::string previous_file_;
};

// The job file's stream, out of the one Zstandard frame its frames' payloads make.
Result<std::string> Decompressed(const std::string& compressed, const std::string& name) {
  const unsigned long long size = ZSTD_getFrameContentSize(compressed.data(), compressed.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
      ZSTD_findFrameCompressedSize(compressed.data(), compressed.size()) != compressed.size()) {
    return Status::Error("the frames of the job file " + name +
                         " do not hold one Zstandard frame with its size (damaged)");
  }
  if (size > jf::kMaxExpansion * compressed.size() + jf::kStreamSlack) {
    return Status::Error("the stream of the job file " + name + " claims " + std::to_string(size) +
                         " bytes, more than its " + std::to_string(compressed.size()) +
                         " compressed bytes can hold (damaged)");
  }
  std::string stream(size, '\0');
  const size_t n = ZSTD_decompress(stream.data(), stream.size(), compressed.data(), compressed.size());
  if (ZSTD_isError(n) != 0 || n != size) {
    return Status::Error("the stream of the job file " + name + " does not decompress (" +
                         (ZSTD_isError(n) != 0 ? ZSTD_getErrorName(n) : "shorter than it claims") +
                         "; damaged)");
  }
  return stream;
}

// The stream's four sections; false when their lengths do not add up to the stream.
bool Split(std::string_view stream, std::string_view (&sections)[jf::kSections]) {
  jf::Reader r(stream);
  uint64_t lengths[jf::kSections] = {};
  uint64_t total = 0;
  for (uint64_t& length : lengths) {
    if (!r.U(length) || length > r.Left()) return false;
    total += length;
  }
  if (total != r.Left()) return false;
  size_t at = r.Offset();
  for (int k = 0; k < jf::kSections; ++k) {
    sections[k] = stream.substr(at, lengths[k]);
    at += lengths[k];
  }
  return true;
}

}  // namespace

Result<std::vector<Trace>> ExpandJob(std::string_view bytes, const std::string& name) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  if (bytes.size() < jf::kFileHeaderSize ||
      std::memcmp(data, jf::kFileMagic, sizeof(jf::kFileMagic)) != 0) {
    return Status::Error(
        name + " is not a fathom job file (no FIOJOB header); `fathom io compress` writes them");
  }
  const uint32_t version = f::GetU32(data + 8);
  if (version != jf::kVersion) {
    return Status::Error(name + " is a job file of format version " + std::to_string(version) +
                         ", not the one this fathom reads (" + std::to_string(jf::kVersion) + ")");
  }
  std::string compressed;
  size_t frames = 0;
  size_t at = jf::kFileHeaderSize;
  while (at < bytes.size()) {
    if (bytes.size() - at < jf::kFrameHeaderSize) {
      return Status::Error(name + " ends inside the frame header at offset " + std::to_string(at) +
                           " (cut short)");
    }
    const uint32_t length = f::GetU32(data + at + 4);
    if (f::GetU32(data + at) != jf::kFrameMagic || length > jf::kMaxFramePayload) {
      return Status::Error("no frame at offset " + std::to_string(at) + " of the job file " + name +
                           " (damaged)");
    }
    if (bytes.size() - at - jf::kFrameHeaderSize < length) {
      return Status::Error(name + " ends inside the frame at offset " + std::to_string(at) +
                           " (cut short)");
    }
    const uint8_t* payload = data + at + jf::kFrameHeaderSize;
    if (f::Crc32(payload, length) != f::GetU32(data + at + 8)) {
      return Status::Error("the frame at offset " + std::to_string(at) + " of the job file " +
                           name + " fails its checksum (damaged)");
    }
    ++frames;
    compressed.append(reinterpret_cast<const char*>(payload), length);
    at += jf::kFrameHeaderSize + length;
  }
  if (frames == 0)
    return Status::Error(name + " has no frame after its header at offset 16 (cut short)");
  auto stream = Decompressed(compressed, name);
  if (!stream.ok()) return stream.status();
  std::string_view sections[jf::kSections];
  if (!Split(*stream, sections)) {
    return Status::Error("the stream of the job file " + name +
                         " does not begin with the lengths of its four sections (damaged)");
  }
  return Decoder(sections, name).Decode();
}

Result<std::vector<Trace>> ReadJob(const std::string& path) {
  FATHOM_ASSIGN_OR_RETURN(const std::string bytes, ReadWholeFile(path, "job file"));
  return ExpandJob(bytes, path);
}

bool IsJobFile(const std::string& path) {
  constexpr std::string_view kExtension = ".fiojob";
  return path.size() >= kExtension.size() &&
         path.compare(path.size() - kExtension.size(), kExtension.size(), kExtension) == 0;
}

}  // namespace fathom::iotrace
