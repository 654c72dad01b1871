// analysis_common.cpp — see analysis_common.h.
#include "h5prov/analysis/analysis_common.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace fathom::h5prov::analysis {

const Object* FindObject(const Trace& trace, uint64_t id) {
  auto it = trace.objects.find(id);
  return it == trace.objects.end() ? nullptr : &it->second;
}

const Object* FileOf(const Trace& trace, const Object& object) {
  return object.kind == "file" ? &object : FindObject(trace, object.file);
}

std::string ObjectName(const Trace& trace, uint64_t id) {
  const Object* o = FindObject(trace, id);
  if (o == nullptr) return "";
  if (o->kind == "file") return o->path;
  const Object* file = FindObject(trace, o->file);
  const std::string where = file != nullptr ? file->path + ":" : "";
  return where + o->path + (o->name.empty() ? "" : (o->path.empty() ? "" : "@") + o->name);
}

std::optional<DatasetAccess> AccessOf(const Trace& trace, const Call& call) {
  const format::OpClass op_class = ClassOf(call);
  if (call.parent != 0 || !call.has_data || call.failed ||
      (op_class != format::OpClass::kRead && op_class != format::OpClass::kWrite)) {
    return std::nullopt;
  }
  const Object* dataset = FindObject(trace, call.object);
  if (dataset == nullptr || dataset->kind != "dataset") return std::nullopt;
  return DatasetAccess{dataset, FileOf(trace, *dataset), op_class == format::OpClass::kWrite};
}

std::string IsoTime(uint64_t wall_ns) {
  const time_t seconds = static_cast<time_t>(wall_ns / 1000000000);
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  char b[64];
  std::snprintf(b, sizeof(b), "%04d-%02d-%02dT%02d:%02d:%02d.%06lluZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<unsigned long long>(wall_ns % 1000000000 / 1000));
  return b;
}

uint64_t Median(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace fathom::h5prov::analysis

namespace fathom::h5prov {

uint64_t WallNs(const ProcessInfo& process, uint64_t monotonic_ns) {
  return process.anchor_realtime_ns + (monotonic_ns - process.anchor_monotonic_ns);
}

namespace {

std::string Joined(const std::vector<uint64_t>& v) {
  std::string out;
  for (uint64_t x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

bool AllOnes(const std::vector<uint64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](uint64_t x) { return x == 1; });
}

}  // namespace

std::string SelectionText(const Selection& s) {
  if (s.kind == "points") return "points " + std::to_string(s.points);
  if (s.kind == "irregular") return "irregular " + std::to_string(s.blocks) + " blocks";
  if (s.kind != "regular") return s.kind;
  std::string out = "regular start=" + Joined(s.start) + " count=" + Joined(s.count);
  if (!AllOnes(s.stride)) out += " stride=" + Joined(s.stride);
  if (!AllOnes(s.block)) out += " block=" + Joined(s.block);
  return out;
}

}  // namespace fathom::h5prov
