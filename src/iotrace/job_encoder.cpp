// job_encoder.cpp — CompressJob: a job's traces into one job file (src/iotrace/job_format.h).
#include <algorithm>
#include <compare>
#include <map>
#include <new>
#include <tuple>

#include <zstd.h>

#include "fathom/iotrace.h"
#include "iotrace/job_format.h"

namespace fathom::iotrace {
namespace {

namespace f = format;
namespace jf = jobformat;

uint64_t ZzDelta(uint64_t value, uint64_t previous) {
  return f::Zigzag(static_cast<int64_t>(value - previous));
}

// An object as a run names it: a job object id, or (job 0) the process's own id.
struct TargetKey {
  uint32_t job = 0;
  uint32_t local = 0;
  auto operator<=>(const TargetKey&) const = default;
};

// What the members of a group share. `occurrence` tells apart a process's runs that are alike.
struct Template {
  uint32_t thread = 0;
  uint8_t op = 0;
  TargetKey target;
  TargetKey aux;
  uint64_t count = 0;
  bool has_offset = false;
  int64_t stride = 0;
  uint64_t size = 0;
  int64_t result = 0;
  uint32_t err = 0;
  uint64_t occurrence = 0;
  auto operator<=>(const Template&) const = default;
};

struct Member {
  uint32_t process = 0;
  uint32_t run = 0;
};

struct Group {
  Template shape;
  std::vector<Member> members;
};

struct ProcessPlan {
  std::map<uint32_t, uint32_t> job_of;  // the trace's object ids → job object ids
  std::vector<uint64_t> tids;           // in order of first run
  std::vector<uint32_t> groups;         // the group of each run
  std::vector<uint64_t> starts;         // each run's t_first less the previous run's
  int64_t rank = 0;
  uint64_t blobs[4] = {};  // identity, objects, threads, sequence
};

class Encoder {
 public:
  explicit Encoder(const std::vector<Trace>& traces) : traces_(traces), plans_(traces.size()) {}

  CompressedJob Encode() {
    for (uint32_t p = 0; p < traces_.size(); ++p) Plan(p);
    jf::Writer& main = sections_[0];
    main.U(objects_.size());
    main.U(blobs_.size());
    main.U(traces_.size());
    main.U(groups_.size());
    std::string previous_path;
    for (const Object* o : objects_) {
      main.U(o->dev);
      main.U(o->ino);
      main.FrontCoded(o->path, previous_path);
    }
    for (const std::string* blob : blobs_) main.Str(*blob);
    WriteProcesses(main);
    uint64_t linear = 0;
    for (const Group& g : groups_) linear += WriteGroup(g) ? 1 : 0;

    jf::Writer stream;
    for (jf::Writer& section : sections_) stream.U(section.out().size());
    for (jf::Writer& section : sections_) stream.out() += section.out();

    CompressedJob job;
    job.bytes = Framed(Compressed(stream.out()));
    CompressionFigures& fig = job.figures;
    fig.processes = traces_.size();
    for (const Trace& t : traces_) {
      fig.operations += t.Operations();
      fig.runs += t.runs.size();
      fig.first_pass_bytes += t.bytes;
    }
    fig.raw_bytes = fig.operations * kRawRecordBytes;
    fig.groups = groups_.size();
    fig.linear_groups = linear;
    fig.second_pass_bytes = job.bytes.size();
    return job;
  }

 private:
  TargetKey Key(const ProcessPlan& plan, uint32_t id) const {
    auto it = plan.job_of.find(id);
    return it != plan.job_of.end() ? TargetKey{it->second, 0} : TargetKey{0, id};
  }

  uint64_t Blob(std::string bytes) {
    auto [it, added] = blob_index_.emplace(std::move(bytes), blobs_.size());
    if (added) blobs_.push_back(&it->first);
    return it->second;
  }

  void Plan(uint32_t p) {
    const Trace& trace = traces_[p];
    ProcessPlan& plan = plans_[p];
    plan.rank = trace.process.rank >= 0 ? trace.process.rank : static_cast<int64_t>(p);

    // Objects: alike across processes is one job object; a process's second id for an object
    // alike to one of its own is another job object, so that ids map back one to one.
    std::map<std::tuple<uint64_t, uint64_t, std::string>, uint64_t> seen;
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> spans;  // local, job, length
    for (const auto& [id, o] : trace.objects) {
      const uint64_t occurrence = seen[{o.dev, o.ino, o.path}]++;
      auto [it, added] = object_ids_.emplace(std::make_tuple(o.dev, o.ino, o.path, occurrence),
                                             static_cast<uint32_t>(objects_.size() + 1));
      if (added) objects_.push_back(&o);
      plan.job_of[id] = it->second;
      if (!spans.empty()) {
        auto& [local, job, length] = spans.back();
        if (local + length == id && job + length == it->second) {
          ++length;
          continue;
        }
      }
      spans.emplace_back(id, it->second, 1);
    }
    // The map as spans of consecutive ids on both sides.
    jf::Writer objects;
    objects.U(spans.size());
    uint32_t next_local = 0, next_job = 0;
    for (const auto& [local, job, length] : spans) {
      objects.U(static_cast<uint32_t>(local - next_local));
      objects.S(static_cast<int64_t>(job) - next_job);
      objects.U(length - 1);
      next_local = local + length;
      next_job = job + length;
    }
    plan.blobs[1] = Blob(std::move(objects.out()));

    std::map<uint64_t, uint32_t> thread_of;
    std::map<Template, uint64_t> occurrences;
    uint64_t previous_start = trace.process.anchor_monotonic_ns;
    for (uint32_t i = 0; i < trace.runs.size(); ++i) {
      const Run& r = trace.runs[i];
      auto [thread, added] = thread_of.emplace(r.tid, static_cast<uint32_t>(plan.tids.size()));
      if (added) plan.tids.push_back(r.tid);
      Template t{thread->second,
                 r.op,
                 Key(plan, r.target),
                 r.aux != 0 ? Key(plan, r.aux) : TargetKey{},
                 r.count,
                 r.has_offset,
                 r.stride,
                 r.size,
                 r.result,
                 r.err,
                 0};
      t.occurrence = occurrences[t]++;
      auto [group, fresh] = group_of_.emplace(t, static_cast<uint32_t>(groups_.size()));
      if (fresh) groups_.push_back({t, {}});
      groups_[group->second].members.push_back({p, i});
      plan.groups.push_back(group->second);
      plan.starts.push_back(r.t_first - previous_start);
      previous_start = r.t_first;
    }

    jf::Writer identity;
    const ProcessInfo& info = trace.process;
    identity.U(info.uid);
    identity.U(info.gid);
    identity.Str(info.host);
    identity.Str(info.job);
    identity.Str(info.exe);
    identity.U(info.argv.size());
    for (const std::string& a : info.argv) identity.Str(a);
    plan.blobs[0] = Blob(std::move(identity.out()));

    jf::Writer threads;
    threads.U(plan.tids.size());
    for (uint64_t tid : plan.tids) threads.U(ZzDelta(tid, info.pid));
    plan.blobs[2] = Blob(std::move(threads.out()));

    // The sequence: ranges of consecutive group numbers.
    std::vector<std::pair<uint32_t, uint32_t>> ranges;  // first, length
    for (uint32_t g : plan.groups) {
      if (!ranges.empty() && ranges.back().first + ranges.back().second == g) {
        ++ranges.back().second;
      } else {
        ranges.push_back({g, 1});
      }
    }
    jf::Writer sequence;
    sequence.U(ranges.size());
    uint32_t next = 0;
    for (const auto& [first, length] : ranges) {
      sequence.S(static_cast<int64_t>(first) - next);
      sequence.U(length - 1);
      next = first + length;
    }
    plan.blobs[3] = Blob(std::move(sequence.out()));
  }

  void WriteProcesses(jf::Writer& w) {
    const Trace none;
    const Trace* previous = &none;
    int64_t previous_rank = 0;
    uint64_t previous_blobs[4] = {};
    std::string previous_file;
    for (uint32_t p = 0; p < traces_.size(); ++p) {
      const Trace& t = traces_[p];
      const ProcessInfo& info = t.process;
      const uint64_t end = t.end == End::kExit ? 1 : t.end == End::kExec ? 2 : 0;
      w.U((t.has_process ? jf::kHasProcess : 0) | (info.uncompressed ? jf::kUncompressed : 0) |
          end << jf::kEndShift);
      w.U(ZzDelta(info.pid, previous->process.pid));
      w.U(ZzDelta(info.ppid, info.pid));
      w.U(ZzDelta(info.anchor_realtime_ns, previous->process.anchor_realtime_ns));
      w.U(ZzDelta(info.anchor_monotonic_ns, previous->process.anchor_monotonic_ns));
      w.U(info.quantum_ns);
      w.U(ZzDelta(static_cast<uint64_t>(info.rank), static_cast<uint64_t>(previous_rank)));
      previous_rank = info.rank;
      for (int b = 0; b < 4; ++b) {
        w.U(ZzDelta(plans_[p].blobs[b], previous_blobs[b]));
        previous_blobs[b] = plans_[p].blobs[b];
      }
      w.FrontCoded(t.file, previous_file);
      for (uint64_t v :
           {t.dropped_buffer_full, t.dropped_in_signal_handler, t.dropped_too_many_threads,
            t.io_uring_calls, t.aio_calls, t.end_operations, t.end_dropped, t.frames, t.bytes}) {
        w.U(v);
      }
      w.U(t.problems.size());
      for (const std::string& problem : t.problems) w.Str(problem);
      previous = &t;
    }
  }

  void WriteTarget(jf::Writer& w, TargetKey key) {
    w.U(key.job);
    if (key.job == 0) w.U(key.local);
  }

  // Writes a group; true when its offsets are a·rank + b over two members or more.
  bool WriteGroup(const Group& g) {
    jf::Writer& w = sections_[0];
    jf::Writer& starts = sections_[1];
    jf::Writer& durations = sections_[2];
    jf::Writer& member_offsets = sections_[3];
    const Template& t = g.shape;
    std::vector<const Run*> runs;
    for (const Member& m : g.members) runs.push_back(&traces_[m.process].runs[m.run]);
    bool offsets = t.stride != 0, span_zero = true, flat = true;
    for (const Run* r : runs) {
      offsets |= r->offset != 0;
      span_zero &= r->t_last == r->t_first;
      flat &= r->duration_min == r->duration_sum && r->duration_max == r->duration_sum;
    }
    int64_t a = 0, b = 0;
    const bool linear = offsets && FitLinear(g, a, b);
    uint64_t flags = (t.has_offset ? jf::kHasOffset : 0) | (offsets ? jf::kOffsets : 0) |
                     (linear ? jf::kLinear : 0) |
                     (t.result == static_cast<int64_t>(t.size) ? jf::kResultIsSize : 0) |
                     (t.err != 0 ? jf::kErrno : 0) | (t.aux != TargetKey{} ? jf::kAux : 0) |
                     (span_zero ? jf::kSpanZero : 0) | (flat ? jf::kFlat : 0);
    w.U(flags);
    w.U(t.thread);
    w.U(t.op);
    WriteTarget(w, t.target);
    if ((flags & jf::kAux) != 0) WriteTarget(w, t.aux);
    w.U(t.count - 1);
    w.U(t.size);
    if ((flags & jf::kResultIsSize) == 0) w.S(t.result);
    if ((flags & jf::kErrno) != 0) w.U(t.err);
    if (offsets) w.S(t.stride);
    if (linear) {
      w.S(a);
      w.S(b);
    }
    int64_t previous_offset = 0;
    uint64_t previous_start = 0;
    for (size_t m = 0; m < runs.size(); ++m) {
      const Run& r = *runs[m];
      if (offsets && !linear) {
        member_offsets.U(
            ZzDelta(static_cast<uint64_t>(r.offset), static_cast<uint64_t>(previous_offset)));
        previous_offset = r.offset;
      }
      const uint64_t start = plans_[g.members[m].process].starts[g.members[m].run];
      starts.U(ZzDelta(start, previous_start));
      previous_start = start;
      if (!span_zero) starts.U(r.t_last - r.t_first);
      durations.U(r.duration_sum);
      if (!flat) {
        durations.U(r.duration_min);
        durations.U(r.duration_max);
      }
    }
    return linear && runs.size() >= 2;
  }

  // Offsets of the form a·rank + b over every member.
  bool FitLinear(const Group& g, int64_t& a, int64_t& b) const {
    if (g.members.size() < 2) return false;
    auto rank = [&](const Member& m) { return static_cast<__int128>(plans_[m.process].rank); };
    auto offset = [&](const Member& m) {
      return static_cast<__int128>(traces_[m.process].runs[m.run].offset);
    };
    const Member& first = g.members.front();
    __int128 slope = 0;
    for (const Member& m : g.members) {
      const __int128 dx = rank(m) - rank(first);
      if (dx == 0) continue;
      const __int128 dy = offset(m) - offset(first);
      if (dy % dx != 0) return false;
      slope = dy / dx;
      break;
    }
    const __int128 intercept = offset(first) - slope * rank(first);
    if (slope < INT64_MIN || slope > INT64_MAX || intercept < INT64_MIN || intercept > INT64_MAX) {
      return false;
    }
    for (const Member& m : g.members) {
      if (slope * rank(m) + intercept != offset(m)) return false;
    }
    a = static_cast<int64_t>(slope);
    b = static_cast<int64_t>(intercept);
    return true;
  }

  // The stream as one Zstandard frame that gives its content size.
  static std::string Compressed(const std::string& stream) {
    std::string out(ZSTD_compressBound(stream.size()), '\0');
    const size_t n =
        ZSTD_compress(out.data(), out.size(), stream.data(), stream.size(), jf::kZstdLevel);
    // Compressing into a buffer of ZSTD_compressBound bytes cannot fail but for lack of memory.
    if (ZSTD_isError(n) != 0) throw std::bad_alloc();
    out.resize(n);
    return out;
  }

  static std::string Framed(const std::string& stream) {
    std::string file(jf::kFileHeaderSize, '\0');
    auto* header = reinterpret_cast<uint8_t*>(file.data());
    std::copy(jf::kFileMagic, jf::kFileMagic + sizeof(jf::kFileMagic), header);
    f::PutU32(header + 8, jf::kVersion);
    size_t at = 0;
    do {
      const size_t length = std::min<size_t>(stream.size() - at, jf::kMaxFramePayload);
      uint8_t frame[jf::kFrameHeaderSize];
      const auto* payload = reinterpret_cast<const uint8_t*>(stream.data() + at);
      f::PutU32(frame, jf::kFrameMagic);
      f::PutU32(frame + 4, static_cast<uint32_t>(length));
      f::PutU32(frame + 8, f::Crc32(payload, length));
      file.append(reinterpret_cast<const char*>(frame), sizeof(frame));
      file.append(stream, at, length);
      at += length;
    } while (at < stream.size());
    return file;
  }

  const std::vector<Trace>& traces_;
  std::vector<ProcessPlan> plans_;
  jf::Writer sections_[jf::kSections];  // main, starts, durations, offsets
  std::map<std::tuple<uint64_t, uint64_t, std::string, uint64_t>, uint32_t> object_ids_;
  std::vector<const Object*> objects_;
  std::map<std::string, uint64_t> blob_index_;
  std::vector<const std::string*> blobs_;
  std::map<Template, uint32_t> group_of_;
  std::vector<Group> groups_;
};

}  // namespace

double CompressionFigures::FirstPassRatio() const {
  return first_pass_bytes > 0
             ? static_cast<double>(raw_bytes) / static_cast<double>(first_pass_bytes)
             : 0;
}

double CompressionFigures::SecondPassRatio() const {
  return second_pass_bytes > 0
             ? static_cast<double>(first_pass_bytes) / static_cast<double>(second_pass_bytes)
             : 0;
}

CompressedJob CompressJob(const std::vector<Trace>& traces) { return Encoder(traces).Encode(); }

}  // namespace fathom::iotrace
