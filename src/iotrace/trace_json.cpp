// trace_json.cpp — a trace as JSON (`fathom io dump --json`).
#include <nlohmann/json.hpp>

#include "fathom/iotrace.h"

namespace fathom::iotrace {
namespace {

using nlohmann::json;

const char* EndName(End end) {
  switch (end) {
    case End::kExit:
      return "exit";
    case End::kExec:
      return "exec";
    case End::kNone:
      break;
  }
  return "none";
}

// Fields shared by a run and an operation.
void Common(json& j, uint8_t op, uint32_t target, uint32_t aux, bool has_offset, int64_t offset,
            uint64_t size, int64_t result, uint32_t err) {
  j["op"] = OpName(op);
  j["target"] = target;
  if (aux != 0) j["aux"] = aux;
  if (has_offset) j["offset"] = offset;
  j["size"] = size;
  j["result"] = result;
  if (err != 0) j["errno"] = err;
}

}  // namespace

std::string TraceJson(const Trace& trace, bool expand) {
  json j;
  j["file"] = trace.file;
  if (trace.has_process) {
    const ProcessInfo& p = trace.process;
    j["process"] = {{"pid", p.pid},
                    {"ppid", p.ppid},
                    {"host", p.host},
                    {"job", p.job},
                    {"rank", p.rank},
                    {"uid", p.uid},
                    {"gid", p.gid},
                    {"exe", p.exe},
                    {"argv", p.argv},
                    {"anchor_realtime_ns", p.anchor_realtime_ns},
                    {"anchor_monotonic_ns", p.anchor_monotonic_ns},
                    {"quantum_ns", p.quantum_ns},
                    {"compressed", !p.uncompressed}};
  }
  json objects = json::array();
  for (const auto& [id, o] : trace.objects) {
    objects.push_back({{"id", id}, {"dev", o.dev}, {"ino", o.ino}, {"path", o.path}});
  }
  j["objects"] = std::move(objects);
  json runs = json::array();
  for (const Run& r : trace.runs) {
    json run = {{"tid", r.tid}, {"t_first", r.t_first}, {"count", r.count}};
    Common(run, r.op, r.target, r.aux, r.has_offset, r.offset, r.size, r.result, r.err);
    if (r.count > 1) {
      run["t_last"] = r.t_last;
      if (r.has_offset) run["stride"] = r.stride;
    }
    run["duration_sum"] = r.duration_sum;
    run["duration_min"] = r.duration_min;
    run["duration_max"] = r.duration_max;
    runs.push_back(std::move(run));
  }
  j["runs"] = std::move(runs);
  if (expand) {
    json ops = json::array();
    for (const Operation& o : Expand(trace)) {
      json op = {{"tid", o.tid}, {"start", o.start}, {"duration", o.duration}};
      Common(op, o.op, o.target, o.aux, o.has_offset, o.offset, o.size, o.result, o.err);
      ops.push_back(std::move(op));
    }
    j["operations"] = std::move(ops);
  }
  j["operation_count"] = trace.Operations();
  j["dropped"] = {{"buffer_full", trace.dropped_buffer_full},
                  {"in_signal_handler", trace.dropped_in_signal_handler},
                  {"too_many_threads", trace.dropped_too_many_threads}};
  j["partial"] = {{"io_uring_calls", trace.io_uring_calls}, {"aio_calls", trace.aio_calls}};
  j["end"] = EndName(trace.end);
  j["end_operations"] = trace.end_operations;
  j["end_dropped"] = trace.end_dropped;
  j["frames"] = trace.frames;
  j["bytes"] = trace.bytes;
  j["problems"] = trace.problems;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace fathom::iotrace
