// darshan_counters.cpp — DarshanRecords(), DarshanText(): the counters of Darshan's H5F and
// H5D modules computed from HDF5 traces, printed as darshan-parser prints them.
//
// Darshan's rules, followed here: only calls that succeeded count; a dataset's bytes are the
// file selection's points times the dataset's type size (file_bytes); H5S_ALL counts in none of
// the *_SELECTS; the four commonest accesses are keyed by size and, for a regular hyperslab, the
// count x block and the stride of the last five dimensions (D1 the last), the most frequent
// first (ties: the larger size); times accumulate without overlap (a call starting before the
// previous one of its kind ended adds only what goes past it); timestamps are seconds since the
// first call of all the traces.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "fathom/h5prov.h"
#include "fathom/iotrace.h"
#include "h5prov/analysis/analysis_common.h"

namespace fathom::h5prov {
namespace {

using analysis::ClassOf;
using format::OpClass;

constexpr int kDims = 5;  // Darshan's H5D_MAX_NDIMS
constexpr size_t kCommonAccesses = 4;
constexpr double kUnset = std::numeric_limits<double>::infinity();

// An access as Darshan keys it: size, then count x block and stride of the last 5 dimensions.
using AccessKey = std::array<int64_t, 1 + 2 * kDims>;

// First and last times of one kind of call: start of the first, end of the last.
struct Span {
  double first = kUnset, last = 0;
  void Add(double start, double end) {
    first = std::min(first, start);
    last = std::max(last, end);
  }
  void Merge(const Span& o) { Add(o.first, o.last); }
  double First() const { return first == kUnset ? 0 : first; }
};

// A cumulative time without overlap, as Darshan's DARSHAN_TIMER_INC_NO_OVERLAP.
struct Timer {
  double total = 0, last_end = 0;
  void Add(double start, double end) {
    total += std::max(0.0, end - std::max(start, last_end));
    last_end = std::max(last_end, end);
  }
};

struct FileRec {
  int64_t opens = 0, flushes = 0, use_mpiio = 0;
  Span open, close;
  Timer meta;
};

struct DatasetRec {
  int64_t opens = 0, reads = 0, writes = 0, flushes = 0, bytes_read = 0, bytes_written = 0, switches = 0;
  int64_t regular = 0, irregular = 0, points = 0, max_read_size = 0, max_write_size = 0;
  std::array<int64_t, iotrace::kSizeBuckets> read_sizes{}, write_sizes{};
  std::map<AccessKey, int64_t> accesses;
  int64_t ndims = 0, npoints = 0, type_size = 0, collective = 0, deprecated = 0;
  std::array<int64_t, kDims> chunk{};
  Span open, read, write, close;
  Timer read_time, write_time, meta;
  double max_read_time = 0, max_write_time = 0;
  int last_io = 0;  // 1 read, 2 write
  std::string file;
};

// A record of one process, or shared by the ranks of a job.
template <typename Rec>
struct Keyed {
  Rec rec;
  int64_t rank = 0;
  std::string job;
  // Per rank (one entry unless shared): time in I/O and metadata, bytes moved. Set by Reduce().
  std::vector<std::tuple<int64_t, double, int64_t>> rank_time_bytes;
};

double Seconds(uint64_t wall_ns, uint64_t origin_ns) {
  return static_cast<double>(wall_ns - origin_ns) / 1e9;
}

AccessKey KeyOf(const Call& c) {
  AccessKey key{};
  key[0] = static_cast<int64_t>(c.file_bytes);
  if (c.selection.kind != "regular") return key;
  const size_t n = c.selection.count.size();
  for (size_t i = 0; i < std::min<size_t>(n, kDims); ++i) {
    const size_t dim = n - 1 - i;  // D1 is the last dimension
    key[1 + i] = static_cast<int64_t>(c.selection.count[dim] * c.selection.block[dim]);
    key[1 + kDims + i] = static_cast<int64_t>(c.selection.stride[dim]);
  }
  return key;
}

void CountAccess(const Call& c, bool write, double start, double end, DatasetRec* d) {
  const int64_t bytes = static_cast<int64_t>(c.file_bytes);
  const double elapsed = end - start;
  if (d->last_io == (write ? 1 : 2)) ++d->switches;
  d->last_io = write ? 2 : 1;
  if (c.selection.kind == "regular") ++d->regular;
  if (c.selection.kind == "irregular") ++d->irregular;
  if (c.selection.kind == "points") ++d->points;
  ++d->accesses[KeyOf(c)];
  if (c.transfer == "collective") d->collective = 1;
  ++(write ? d->write_sizes : d->read_sizes)[iotrace::SizeBucket(c.file_bytes)];
  if (write) {
    ++d->writes;
    d->bytes_written += bytes;
    d->write.Add(start, end);
    d->write_time.Add(start, end);
    if (elapsed > d->max_write_time) std::tie(d->max_write_time, d->max_write_size) = std::tuple(elapsed, bytes);
  } else {
    ++d->reads;
    d->bytes_read += bytes;
    d->read.Add(start, end);
    d->read_time.Add(start, end);
    if (elapsed > d->max_read_time) std::tie(d->max_read_time, d->max_read_size) = std::tuple(elapsed, bytes);
  }
}

void DescribeDataset(const Object& o, uint8_t op, DatasetRec* d) {
  d->deprecated = op == format::kDcreate1 || op == format::kDopen1 ? 1 : 0;
  d->ndims = static_cast<int64_t>(o.dims.size());
  d->npoints = o.dims.empty() ? 0 : 1;
  for (uint64_t n : o.dims) d->npoints *= static_cast<int64_t>(n);
  d->type_size = static_cast<int64_t>(o.type_size);
  d->chunk = {};
  for (size_t i = 0; i < std::min<size_t>(o.chunk.size(), kDims); ++i) {
    d->chunk[i] = static_cast<int64_t>(o.chunk[o.chunk.size() - 1 - i]);
  }
}

struct Records {
  std::map<std::pair<size_t, std::string>, Keyed<FileRec>> files;        // (trace, path)
  std::map<std::pair<size_t, std::string>, Keyed<DatasetRec>> datasets;  // (trace, "file:/path")
};

void CountTrace(const Trace& t, size_t index, uint64_t origin_ns, Records* out) {
  std::vector<const Call*> calls;
  for (const Call& c : t.calls) {
    if (c.parent == 0 && !c.failed) calls.push_back(&c);
  }
  std::stable_sort(calls.begin(), calls.end(), [](const Call* a, const Call* b) { return a->start < b->start; });
  const int64_t rank = std::max<int64_t>(t.process.rank, 0);
  const bool mpiio = t.process.flavour == "openmpi" && t.process.rank >= 0;
  for (const Call* c : calls) {
    const Object* o = analysis::FindObject(t, c->object);
    if (o == nullptr) continue;
    const Object* file = analysis::FileOf(t, *o);
    const std::string file_path = file != nullptr ? file->path : "";
    const double start = Seconds(WallNs(t.process, c->start), origin_ns);
    const double end = start + static_cast<double>(c->duration) / 1e9;
    const OpClass op_class = ClassOf(*c);
    if (o->kind == "file" || c->op == format::kFflush) {
      Keyed<FileRec>& k = out->files[{index, file_path}];
      k.rank = rank;
      k.job = t.process.job;
      FileRec& f = k.rec;
      f.use_mpiio = mpiio ? 1 : 0;
      if (c->op == format::kFflush) {
        ++f.flushes;
      } else if (op_class == OpClass::kOpen || op_class == OpClass::kCreate) {
        ++f.opens;
        f.open.Add(start, end);
      } else if (op_class == OpClass::kClose) {
        f.close.Add(start, end);
      } else {
        continue;
      }
      f.meta.Add(start, end);
      continue;
    }
    if (o->kind != "dataset") continue;
    Keyed<DatasetRec>& k = out->datasets[{index, file_path + ":" + o->path}];
    k.rank = rank;
    k.job = t.process.job;
    DatasetRec& d = k.rec;
    d.file = file_path;
    if (op_class == OpClass::kRead || op_class == OpClass::kWrite) {
      if (c->has_data) CountAccess(*c, op_class == OpClass::kWrite, start, end, &d);
      continue;
    }
    if (op_class == OpClass::kOpen || op_class == OpClass::kCreate) {
      ++d.opens;
      d.open.Add(start, end);
      DescribeDataset(*o, c->op, &d);
    } else if (op_class == OpClass::kClose) {
      d.close.Add(start, end);
    } else if (c->op == format::kDflush) {
      ++d.flushes;
    } else {
      continue;
    }
    d.meta.Add(start, end);
  }
}

double IoTime(const DatasetRec& d) { return d.read_time.total + d.write_time.total + d.meta.total; }
double IoTime(const FileRec& f) { return f.meta.total; }
int64_t Bytes(const DatasetRec& d) { return d.bytes_read + d.bytes_written; }
int64_t Bytes(const FileRec&) { return 0; }

void Merge(const FileRec& a, FileRec* into) {
  into->opens += a.opens;
  into->flushes += a.flushes;
  into->use_mpiio = std::max(into->use_mpiio, a.use_mpiio);
  into->open.Merge(a.open);
  into->close.Merge(a.close);
  into->meta.total += a.meta.total;
}

void Merge(const DatasetRec& a, DatasetRec* into) {
  for (auto [field, from] : {std::pair{&into->opens, a.opens}, {&into->reads, a.reads}, {&into->writes, a.writes},
                             {&into->flushes, a.flushes}, {&into->bytes_read, a.bytes_read},
                             {&into->bytes_written, a.bytes_written}, {&into->switches, a.switches},
                             {&into->regular, a.regular}, {&into->irregular, a.irregular},
                             {&into->points, a.points}}) {
    *field += from;
  }
  for (int b = 0; b < iotrace::kSizeBuckets; ++b) {
    into->read_sizes[b] += a.read_sizes[b];
    into->write_sizes[b] += a.write_sizes[b];
  }
  for (const auto& [key, n] : a.accesses) into->accesses[key] += n;
  into->collective = std::max(into->collective, a.collective);
  into->deprecated = std::max(into->deprecated, a.deprecated);
  for (auto [span, from] : {std::pair{&into->open, &a.open}, {&into->read, &a.read}, {&into->write, &a.write},
                            {&into->close, &a.close}}) {
    span->Merge(*from);
  }
  into->read_time.total += a.read_time.total;
  into->write_time.total += a.write_time.total;
  into->meta.total += a.meta.total;
  if (a.max_read_time > into->max_read_time) {
    std::tie(into->max_read_time, into->max_read_size) = std::tuple(a.max_read_time, a.max_read_size);
  }
  if (a.max_write_time > into->max_write_time) {
    std::tie(into->max_write_time, into->max_write_size) = std::tuple(a.max_write_time, a.max_write_size);
  }
}

// The records by name; those that every rank of an MPI job has reduced to one of rank -1.
template <typename Rec>
std::vector<std::pair<std::string, Keyed<Rec>>> Reduce(
    const std::map<std::pair<size_t, std::string>, Keyed<Rec>>& records, const std::vector<Trace>& traces) {
  std::map<std::string, std::set<int64_t>> job_ranks;
  for (const Trace& t : traces) {
    if (t.process.rank >= 0) job_ranks[t.process.job].insert(t.process.rank);
  }
  std::map<std::pair<std::string, std::string>, std::vector<const Keyed<Rec>*>> by_name;  // (name, job)
  for (const auto& [key, k] : records) by_name[{key.second, k.job}].push_back(&k);
  std::vector<std::pair<std::string, Keyed<Rec>>> out;
  for (const auto& [key, list] : by_name) {
    std::set<int64_t> ranks;
    for (const Keyed<Rec>* k : list) ranks.insert(k->rank);
    const auto all = job_ranks.find(key.second);
    const bool shared = all != job_ranks.end() && all->second.size() >= 2 && ranks == all->second &&
                        list.size() == ranks.size();
    for (const Keyed<Rec>* k : list) {
      if (!shared || k == list.front()) {
        out.push_back({key.first, *k});
        out.back().second.rank_time_bytes = {{k->rank, IoTime(k->rec), Bytes(k->rec)}};
        if (shared) out.back().second.rank = -1;
        continue;
      }
      Keyed<Rec>& into = out.back().second;
      into.rank_time_bytes.push_back({k->rank, IoTime(k->rec), Bytes(k->rec)});
      Merge(k->rec, &into.rec);
    }
  }
  return out;
}

struct RankFigures {
  int64_t fastest_rank = 0, fastest_bytes = 0, slowest_rank = 0, slowest_bytes = 0;
  double fastest_time = 0, slowest_time = 0, variance_time = 0, variance_bytes = 0;
};

RankFigures FiguresOf(const std::vector<std::tuple<int64_t, double, int64_t>>& ranks) {
  RankFigures r;
  const auto by_time = [](const auto& a, const auto& b) { return std::get<1>(a) < std::get<1>(b); };
  const auto& fastest = *std::min_element(ranks.begin(), ranks.end(), by_time);
  const auto& slowest = *std::max_element(ranks.begin(), ranks.end(), by_time);
  std::tie(r.fastest_rank, r.fastest_time, r.fastest_bytes) = fastest;
  std::tie(r.slowest_rank, r.slowest_time, r.slowest_bytes) = slowest;
  if (ranks.size() < 2) return r;
  double time_sum = 0, time_squares = 0, bytes_sum = 0, bytes_squares = 0;
  for (const auto& [rank, time, bytes] : ranks) {
    time_sum += time;
    time_squares += time * time;
    bytes_sum += static_cast<double>(bytes);
    bytes_squares += static_cast<double>(bytes) * static_cast<double>(bytes);
  }
  const double n = static_cast<double>(ranks.size());
  r.variance_time = time_squares / n - (time_sum / n) * (time_sum / n);
  r.variance_bytes = bytes_squares / n - (bytes_sum / n) * (bytes_sum / n);
  return r;
}

DarshanRecord FileRecord(const std::string& name, const Keyed<FileRec>& k) {
  const FileRec& f = k.rec;
  DarshanRecord r{"H5F", k.rank, iotrace::DarshanRecordId(name), name, 0, {}, {}};
  r.counters = {{"H5F_OPENS", f.opens}, {"H5F_FLUSHES", f.flushes}, {"H5F_USE_MPIIO", f.use_mpiio}};
  r.fcounters = {{"H5F_F_OPEN_START_TIMESTAMP", f.open.First()}, {"H5F_F_CLOSE_START_TIMESTAMP", f.close.First()},
                 {"H5F_F_OPEN_END_TIMESTAMP", f.open.last},      {"H5F_F_CLOSE_END_TIMESTAMP", f.close.last},
                 {"H5F_F_META_TIME", f.meta.total}};
  return r;
}

DarshanRecord DatasetRecord(const std::string& name, const Keyed<DatasetRec>& k) {
  const DatasetRec& d = k.rec;
  DarshanRecord r{"H5D", k.rank, iotrace::DarshanRecordId(name), name, iotrace::DarshanRecordId(d.file), {}, {}};
  r.counters = {{"H5D_OPENS", d.opens},
                {"H5D_READS", d.reads},
                {"H5D_WRITES", d.writes},
                {"H5D_FLUSHES", d.flushes},
                {"H5D_BYTES_READ", d.bytes_read},
                {"H5D_BYTES_WRITTEN", d.bytes_written},
                {"H5D_RW_SWITCHES", d.switches},
                {"H5D_REGULAR_HYPERSLAB_SELECTS", d.regular},
                {"H5D_IRREGULAR_HYPERSLAB_SELECTS", d.irregular},
                {"H5D_POINT_SELECTS", d.points},
                {"H5D_MAX_READ_TIME_SIZE", d.max_read_size},
                {"H5D_MAX_WRITE_TIME_SIZE", d.max_write_size}};
  for (const char* direction : {"READ", "WRITE"}) {
    const auto& sizes = direction[0] == 'R' ? d.read_sizes : d.write_sizes;
    for (int b = 0; b < iotrace::kSizeBuckets; ++b) {
      r.counters.push_back({std::string("H5D_SIZE_") + direction + "_AGG_" + iotrace::SizeBucketName(b), sizes[b]});
    }
  }
  std::vector<std::pair<AccessKey, int64_t>> common(d.accesses.begin(), d.accesses.end());
  std::sort(common.begin(), common.end(), [](const auto& a, const auto& b) {
    return std::tie(b.second, b.first) < std::tie(a.second, a.first);
  });
  common.resize(kCommonAccesses, {AccessKey{}, 0});
  for (size_t i = 0; i < kCommonAccesses; ++i) {
    const std::string prefix = "H5D_ACCESS" + std::to_string(i + 1) + "_";
    r.counters.push_back({prefix + "ACCESS", common[i].first[0]});
    for (int dim = 0; dim < kDims; ++dim) {
      r.counters.push_back({prefix + "LENGTH_D" + std::to_string(dim + 1), common[i].first[1 + dim]});
    }
    for (int dim = 0; dim < kDims; ++dim) {
      r.counters.push_back({prefix + "STRIDE_D" + std::to_string(dim + 1), common[i].first[1 + kDims + dim]});
    }
  }
  for (size_t i = 0; i < kCommonAccesses; ++i) {
    r.counters.push_back({"H5D_ACCESS" + std::to_string(i + 1) + "_COUNT", common[i].second});
  }
  r.counters.push_back({"H5D_DATASPACE_NDIMS", d.ndims});
  r.counters.push_back({"H5D_DATASPACE_NPOINTS", d.npoints});
  r.counters.push_back({"H5D_DATATYPE_SIZE", d.type_size});
  for (int dim = 0; dim < kDims; ++dim) r.counters.push_back({"H5D_CHUNK_SIZE_D" + std::to_string(dim + 1), d.chunk[dim]});
  const RankFigures ranks = FiguresOf(k.rank_time_bytes);
  r.counters.push_back({"H5D_USE_MPIIO_COLLECTIVE", d.collective});
  r.counters.push_back({"H5D_USE_DEPRECATED", d.deprecated});
  r.counters.push_back({"H5D_FASTEST_RANK", ranks.fastest_rank});
  r.counters.push_back({"H5D_FASTEST_RANK_BYTES", ranks.fastest_bytes});
  r.counters.push_back({"H5D_SLOWEST_RANK", ranks.slowest_rank});
  r.counters.push_back({"H5D_SLOWEST_RANK_BYTES", ranks.slowest_bytes});
  r.fcounters = {{"H5D_F_OPEN_START_TIMESTAMP", d.open.First()},   {"H5D_F_READ_START_TIMESTAMP", d.read.First()},
                 {"H5D_F_WRITE_START_TIMESTAMP", d.write.First()}, {"H5D_F_CLOSE_START_TIMESTAMP", d.close.First()},
                 {"H5D_F_OPEN_END_TIMESTAMP", d.open.last},        {"H5D_F_READ_END_TIMESTAMP", d.read.last},
                 {"H5D_F_WRITE_END_TIMESTAMP", d.write.last},      {"H5D_F_CLOSE_END_TIMESTAMP", d.close.last},
                 {"H5D_F_READ_TIME", d.read_time.total},           {"H5D_F_WRITE_TIME", d.write_time.total},
                 {"H5D_F_META_TIME", d.meta.total},                {"H5D_F_MAX_READ_TIME", d.max_read_time},
                 {"H5D_F_MAX_WRITE_TIME", d.max_write_time},       {"H5D_F_FASTEST_RANK_TIME", ranks.fastest_time},
                 {"H5D_F_SLOWEST_RANK_TIME", ranks.slowest_time},  {"H5D_F_VARIANCE_RANK_TIME", ranks.variance_time},
                 {"H5D_F_VARIANCE_RANK_BYTES", ranks.variance_bytes}};
  return r;
}

}  // namespace

std::vector<DarshanRecord> DarshanRecords(const std::vector<Trace>& traces) {
  uint64_t origin_ns = std::numeric_limits<uint64_t>::max();
  for (const Trace& t : traces) {
    for (const Call& c : t.calls) origin_ns = std::min(origin_ns, WallNs(t.process, c.start));
  }
  Records records;
  for (size_t i = 0; i < traces.size(); ++i) CountTrace(traces[i], i, origin_ns, &records);
  std::vector<DarshanRecord> out;
  for (const auto& [name, k] : Reduce(records.files, traces)) out.push_back(FileRecord(name, k));
  for (const auto& [name, k] : Reduce(records.datasets, traces)) out.push_back(DatasetRecord(name, k));
  std::stable_sort(out.begin(), out.end(), [](const DarshanRecord& a, const DarshanRecord& b) {
    return std::tie(b.module, a.name, a.rank) < std::tie(a.module, b.name, b.rank);  // H5F first
  });
  return out;
}

std::string DarshanText(const std::vector<DarshanRecord>& records) {
  const std::vector<iotrace::Mount> mounts = iotrace::Mounts();
  std::string out;
  const char* module = "";
  char line[1024];
  for (const DarshanRecord& r : records) {
    if (r.module != module) {
      module = r.module == "H5F" ? "H5F" : "H5D";
      out += std::string(out.empty() ? "" : "\n") + "# *******************************************************\n# " +
             module + " module data\n# *******************************************************\n";
      out += "\n#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs type>\n";
    }
    const std::string file = r.module == "H5F" ? r.name : r.name.substr(0, r.name.rfind(":/"));
    const iotrace::Mount& mount = iotrace::MountOf(mounts, file);
    const auto print = [&](const std::string& counter, const std::string& value) {
      std::snprintf(line, sizeof(line), "%s\t%lld\t%llu\t%s\t%s\t%s\t%s\t%s\n", module, static_cast<long long>(r.rank),
                    static_cast<unsigned long long>(r.id), counter.c_str(), value.c_str(), r.name.c_str(),
                    mount.point.c_str(), mount.type.c_str());
      out += line;
    };
    for (const auto& [name, value] : r.counters) print(name, std::to_string(value));
    for (const auto& [name, value] : r.fcounters) {
      char v[64];
      std::snprintf(v, sizeof(v), "%f", value);
      print(name, v);
    }
    if (r.module == "H5D") print("H5D_FILE_REC_ID", std::to_string(r.file_id));
  }
  return out;
}

}  // namespace fathom::h5prov
