// darshan_text.cpp — a job's POSIX and STDIO counters in darshan-parser's text, one line per
// counter and (file, rank), with Darshan's names, size buckets and sequentiality rules, so
// that a site can put them beside `darshan-parser` output line by line.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "fathom/iotrace.h"
#include "iotrace/analysis/job_pieces.h"
#include "iotrace/trace_format.h"

namespace fathom::iotrace {

std::vector<Mount> Mounts() {
  std::vector<Mount> mounts;
  std::ifstream in("/proc/self/mounts");
  std::string device, point, type, rest;
  while (in >> device >> point >> type && std::getline(in, rest)) mounts.push_back({point, type});
  return mounts;
}

const Mount& MountOf(const std::vector<Mount>& mounts, const std::string& path) {
  static const Mount kUnknown{"UNKNOWN", "UNKNOWN"};
  const Mount* best = &kUnknown;
  for (const Mount& m : mounts) {
    const bool under = path.rfind(m.point, 0) == 0 &&
                       (m.point == "/" || path.size() == m.point.size() || path[m.point.size()] == '/');
    if (under && (best == &kUnknown || m.point.size() >= best->point.size())) best = &m;
  }
  return *best;
}

uint64_t DarshanRecordId(const std::string& path) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : path) h = (h ^ c) * 1099511628211ull;
  return h;
}

namespace {

namespace f = format;

struct Record {
  int64_t rank = 0;
  std::string path;
  std::map<std::string, uint64_t> counters;
  std::map<std::string, double> fcounters;
  std::vector<analysis::AccessRun> reads, writes;
  std::map<uint64_t, uint64_t> access_sizes;
  bool posix = false;
  bool stdio = false;
};

// Which Darshan counter an operation counts in, if any.
const char* PosixCounter(uint8_t op) {
  switch (op) {
    case f::kOpen:
    case f::kCreat:
      return "POSIX_OPENS";
    case f::kDup:
      return "POSIX_DUPS";
    case f::kLseek:
      return "POSIX_SEEKS";
    case f::kStat:
    case f::kLstat:
    case f::kFstat:
    case f::kFstatat:
    case f::kStatx:
      return "POSIX_STATS";
    case f::kMmap:
      return "POSIX_MMAPS";
    case f::kFsync:
      return "POSIX_FSYNCS";
    case f::kFdatasync:
      return "POSIX_FDSYNCS";
    default:
      return nullptr;
  }
}
const char* StdioCounter(uint8_t op) {
  switch (op) {
    case f::kFopen:
      return "STDIO_OPENS";
    case f::kFdopen:
      return "STDIO_FDOPENS";
    case f::kFseek:
      return "STDIO_SEEKS";
    case f::kFflush:
      return "STDIO_FLUSHES";
    default:
      return nullptr;
  }
}
bool PosixData(uint8_t op) {
  return op == f::kRead || op == f::kPread || op == f::kReadv || op == f::kPreadv || op == f::kWrite ||
         op == f::kPwrite || op == f::kWritev || op == f::kPwritev;
}

void Add(Record& r, const Run& run, const f::OpInfo& info) {
  const bool stdio = info.layer == f::Layer::kStdio;
  const std::string prefix = stdio ? "STDIO_" : "POSIX_";
  const double seconds = static_cast<double>(run.duration_sum) / 1e9;
  const bool data = stdio ? (info.op_class == f::OpClass::kRead || info.op_class == f::OpClass::kWrite)
                          : PosixData(run.op);
  if (!data) {
    const char* counter = stdio ? StdioCounter(run.op) : PosixCounter(run.op);
    if (counter != nullptr && run.result >= 0) r.counters[counter] += run.count;
    if (run.op != f::kMmap) r.fcounters[prefix + "F_META_TIME"] += seconds;
    return;
  }
  const bool write = info.op_class == f::OpClass::kWrite;
  r.counters[prefix + (write ? "WRITES" : "READS")] += run.count;
  r.fcounters[prefix + (write ? "F_WRITE_TIME" : "F_READ_TIME")] += seconds;
  if (run.result <= 0) return;
  const uint64_t bytes = static_cast<uint64_t>(run.result);
  r.counters[prefix + (write ? "BYTES_WRITTEN" : "BYTES_READ")] += run.count * bytes;
  if (run.has_offset) {
    const int64_t last = std::max(run.offset, run.offset + static_cast<int64_t>(run.count - 1) * run.stride);
    uint64_t& max_byte = r.counters[prefix + (write ? "MAX_BYTE_WRITTEN" : "MAX_BYTE_READ")];
    max_byte = std::max(max_byte, static_cast<uint64_t>(last) + bytes - 1);
  }
  if (stdio) return;
  r.counters[std::string("POSIX_SIZE_") + (write ? "WRITE_" : "READ_") + SizeBucketName(SizeBucket(bytes))] +=
      run.count;
  r.access_sizes[bytes] += run.count;
  if (run.has_offset) {
    (write ? r.writes : r.reads).push_back({run.t_first, run.offset, run.stride, run.count, run.result});
    r.counters["POSIX_FILE_NOT_ALIGNED"] += analysis::UnalignedOffsets(run.offset, run.stride, run.count, 4096);
  }
}

// Darshan's POSIX counters in its order, those fathom counts.
const char* const kPosixOrder[] = {
    "POSIX_OPENS", "POSIX_DUPS", "POSIX_READS", "POSIX_WRITES", "POSIX_SEEKS", "POSIX_STATS", "POSIX_MMAPS",
    "POSIX_FSYNCS", "POSIX_FDSYNCS", "POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN", "POSIX_MAX_BYTE_READ",
    "POSIX_MAX_BYTE_WRITTEN", "POSIX_CONSEC_READS", "POSIX_CONSEC_WRITES", "POSIX_SEQ_READS", "POSIX_SEQ_WRITES",
    "POSIX_FILE_NOT_ALIGNED", "POSIX_FILE_ALIGNMENT"};
const char* const kStdioOrder[] = {"STDIO_OPENS", "STDIO_FDOPENS", "STDIO_READS", "STDIO_WRITES", "STDIO_SEEKS",
                                   "STDIO_FLUSHES", "STDIO_BYTES_WRITTEN", "STDIO_BYTES_READ",
                                   "STDIO_MAX_BYTE_READ", "STDIO_MAX_BYTE_WRITTEN"};

}  // namespace

std::string DarshanText(const std::vector<Trace>& traces, const AnalysisOptions& options) {
  std::map<std::pair<std::string, std::string>, Record> records;  // (host:pid, file) → record
  std::ostringstream header;
  std::set<std::string> processes;
  for (const Trace& t : traces) {
    const std::string process = t.process.host + ":" + std::to_string(t.process.pid);
    bool touched = false;
    for (const Run& run : t.runs) {
      const f::OpInfo info = f::Info(run.op);
      if (info.layer == f::Layer::kMpiIo) continue;
      auto object = t.objects.find(run.target);
      if (object == t.objects.end() || (object->second.dev == 0 && object->second.ino == 0)) continue;
      if (!options.all_files && analysis::SystemPath(object->second.path)) continue;
      Record& r = records[{process, analysis::FileKey(object->second)}];
      r.rank = t.process.rank >= 0 ? t.process.rank : 0;
      r.path = object->second.path;
      (info.layer == f::Layer::kStdio ? r.stdio : r.posix) = true;
      Add(r, run, info);
      touched = true;
    }
    if (touched && processes.insert(process).second) {
      std::string argv;
      for (const std::string& a : t.process.argv) argv += (argv.empty() ? "" : " ") + a;
      header << "# exe (rank " << t.process.rank << ", pid " << t.process.pid << ", host " << t.process.host
             << "): " << argv << "\n";
    }
  }
  const std::vector<Mount> mounts = Mounts();
  std::ostringstream out;
  out << "# darshan-parser's POSIX and STDIO counters, by fathom io report --darshan-text (record ids are "
         "fathom's)\n";
  out << "# jobid: " << (traces.empty() ? "" : traces.front().process.job) << "\n";
  out << "# nprocs: " << processes.size() << "\n" << header.str();
  out << "#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs type>\n";
  char value[64];
  for (auto& entry : records) {
    Record& r = entry.second;
    const Mount& mount = MountOf(mounts, r.path);
    const uint64_t id = DarshanRecordId(r.path);
    auto line = [&](const char* module, const std::string& counter, const char* text) {
      out << module << '\t' << r.rank << '\t' << id << '\t' << counter << '\t' << text << '\t' << r.path << '\t'
          << mount.point << '\t' << mount.type << '\n';
    };
    if (r.posix) {
      const SequentialCounts reads = analysis::CountSequential(r.reads);
      const SequentialCounts writes = analysis::CountSequential(r.writes);
      r.counters["POSIX_CONSEC_READS"] = reads.consecutive;
      r.counters["POSIX_SEQ_READS"] = reads.sequential;
      r.counters["POSIX_CONSEC_WRITES"] = writes.consecutive;
      r.counters["POSIX_SEQ_WRITES"] = writes.sequential;
      r.counters["POSIX_FILE_ALIGNMENT"] = 4096;
      for (const char* name : kPosixOrder) {
        std::snprintf(value, sizeof(value), "%llu", static_cast<unsigned long long>(r.counters[name]));
        line("POSIX", name, value);
      }
      for (const char* direction : {"READ_", "WRITE_"}) {
        for (int b = 0; b < kSizeBuckets; ++b) {
          const std::string name = std::string("POSIX_SIZE_") + direction + SizeBucketName(b);
          std::snprintf(value, sizeof(value), "%llu", static_cast<unsigned long long>(r.counters[name]));
          line("POSIX", name, value);
        }
      }
      // The four commonest access sizes, most frequent first (ties: the larger size).
      std::vector<std::pair<uint64_t, uint64_t>> common(r.access_sizes.begin(), r.access_sizes.end());
      std::sort(common.begin(), common.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first > b.first;
      });
      for (size_t i = 0; i < 4; ++i) {
        const auto entry = i < common.size() ? common[i] : std::pair<uint64_t, uint64_t>{0, 0};
        std::snprintf(value, sizeof(value), "%llu", static_cast<unsigned long long>(entry.first));
        line("POSIX", "POSIX_ACCESS" + std::to_string(i + 1) + "_ACCESS", value);
        std::snprintf(value, sizeof(value), "%llu", static_cast<unsigned long long>(entry.second));
        line("POSIX", "POSIX_ACCESS" + std::to_string(i + 1) + "_COUNT", value);
      }
      for (const char* name : {"POSIX_F_READ_TIME", "POSIX_F_WRITE_TIME", "POSIX_F_META_TIME"}) {
        std::snprintf(value, sizeof(value), "%f", r.fcounters[name]);
        line("POSIX", name, value);
      }
    }
    if (r.stdio) {
      for (const char* name : kStdioOrder) {
        std::snprintf(value, sizeof(value), "%llu", static_cast<unsigned long long>(r.counters[name]));
        line("STDIO", name, value);
      }
      for (const char* name : {"STDIO_F_READ_TIME", "STDIO_F_WRITE_TIME", "STDIO_F_META_TIME"}) {
        std::snprintf(value, sizeof(value), "%f", r.fcounters[name]);
        line("STDIO", name, value);
      }
    }
  }
  return out.str();
}

}  // namespace fathom::iotrace
