// h5_trace_builder.h — traces made by hand for the analysis tests: a process on the wall clock
// from 2027-01-15T08:00:00Z (monotonic 0), a file /data/f.h5 (object 1, device 7, inode 42)
// holding a dataset /grp/ds (object 2), and calls one after the other from monotonic 1000 ns.
// Also what the lineage tests share: the relations of a PROV-JSON document.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "fathom/h5prov.h"
#include "h5prov/h5_format.h"

namespace fathom::h5prov::testing {

inline constexpr uint64_t kEpochNs = 1800000000ull * 1000000000ull;  // 2027-01-15T08:00:00Z

struct TraceBuilder {
  Trace t;
  uint64_t seq = 0;
  uint64_t clock = 1000;  // the next call's start (monotonic ns)

  TraceBuilder(const std::string& file, int64_t rank, uint64_t pid, const std::string& job = "job") {
    t.file = file;
    t.process.rank = rank;
    t.process.pid = pid;
    t.process.job = job;
    t.process.host = "node1";
    t.process.uid = 1000;
    t.process.anchor_realtime_ns = kEpochNs;
    Object& container = AddObject(1, "file", 0, "/data/f.h5");
    container.dev = 7;
    container.ino = 42;
    AddObject(2, "dataset", 1, "/grp/ds");
  }
  Object& AddObject(uint64_t id, const std::string& kind, uint64_t file, const std::string& path) {
    Object& o = t.objects[id];
    o.id = id;
    o.kind = kind;
    o.file = file;
    o.path = path;
    return o;
  }
  // A call starting when the previous one ended (or at At()).
  TraceBuilder& Add(uint8_t op, uint64_t duration, uint64_t object = 0, uint64_t file_bytes = 0,
                    uint64_t parent = 0) {
    Call c;
    c.op = op;
    c.seq = ++seq;
    c.parent = parent;
    c.start = clock;
    c.duration = duration;
    c.object = object;
    c.has_data = file_bytes > 0;
    c.file_bytes = file_bytes;
    c.mem_bytes = file_bytes;
    t.calls.push_back(c);
    clock += duration;
    return *this;
  }
  TraceBuilder& At(uint64_t start) {
    clock = start;
    return *this;
  }
  // The last call's selection: kind, and for "regular" count and block (start 0, stride 1).
  TraceBuilder& Select(const std::string& kind, std::vector<uint64_t> count = {}, std::vector<uint64_t> block = {}) {
    Selection& s = t.calls.back().selection;
    s.kind = kind;
    s.start.assign(count.size(), 0);
    s.stride.assign(count.size(), 1);
    s.count = std::move(count);
    s.block = std::move(block);
    return *this;
  }
  TraceBuilder& Transfer(const std::string& mode) {
    t.calls.back().transfer = mode;
    return *this;
  }
};

// The relations of PROV-JSON section `section` as (first, second) pairs of the named fields.
inline std::multiset<std::pair<std::string, std::string>> ProvRelations(const nlohmann::json& doc,
                                                                        const char* section, const char* first,
                                                                        const char* second) {
  std::multiset<std::pair<std::string, std::string>> out;
  if (!doc.contains(section)) return out;
  for (const auto& [id, value] : doc[section].items()) {
    out.insert({value[first].get<std::string>(), value[second].get<std::string>()});
  }
  return out;
}

}  // namespace fathom::h5prov::testing
