// trace_json.cpp — an HDF5 trace as JSON lines (`fathom h5 dump`; docs/h5prov.md).
#include <nlohmann/json.hpp>

#include "fathom/h5prov.h"

namespace fathom::h5prov {
namespace {

using json = nlohmann::ordered_json;

json ProcessJson(const Trace& trace) {
  const ProcessInfo& p = trace.process;
  return {{"type", "process"}, {"file", trace.file},   {"pid", p.pid},
          {"ppid", p.ppid},    {"rank", p.rank},       {"uid", p.uid},
          {"gid", p.gid},      {"host", p.host},       {"job", p.job},
          {"exe", p.exe},      {"argv", p.argv},       {"hdf5_version", p.hdf5_version},
          {"flavour", p.flavour}, {"anchor_realtime_ns", p.anchor_realtime_ns},
          {"anchor_monotonic_ns", p.anchor_monotonic_ns}};
}

json ObjectJson(const Object& o) {
  json j = {{"type", "object"}, {"id", o.id}, {"kind", o.kind}, {"file", o.file}, {"hid", o.hid}, {"path", o.path}};
  if (!o.name.empty()) j["name"] = o.name;
  if (o.address != 0) j["address"] = o.address - 1;
  if (o.kind == "file") {
    j["dev"] = o.dev;
    j["ino"] = o.ino;
  }
  if (o.kind == "dataset" || o.kind == "attribute") {
    j["type_class"] = o.type_class;
    j["type_size"] = o.type_size;
    j["variable_length"] = o.variable_length;
    j["dims"] = o.dims;
    j["maxdims"] = o.maxdims;
  }
  if (o.kind == "dataset") {
    j["layout"] = o.layout;
    j["chunk"] = o.chunk;
    j["filters"] = o.filters;
  }
  return j;
}

json CallJson(const Trace& trace, const Call& c) {
  const ProcessInfo& p = trace.process;
  json j = {{"type", "call"},
            {"op", OpName(c.op)},
            {"pid", p.pid},
            {"tid", c.tid},
            {"rank", p.rank},
            {"uid", p.uid},
            {"job", p.job},
            {"seq", c.seq},
            {"parent", c.parent},
            {"start_ns", c.start},
            {"end_ns", c.start + c.duration},
            {"wall_ns", p.anchor_realtime_ns + (c.start - p.anchor_monotonic_ns)},
            {"duration_ns", c.duration},
            {"result", c.result},
            {"failed", c.failed}};
  if (c.object != 0) j["object"] = c.object;
  if (c.location != 0) j["location"] = c.location;
  if (c.has_name) j["name"] = c.name;
  if (c.has_name2) j["name2"] = c.name2;
  if (c.has_data) {
    j["mem_bytes"] = c.mem_bytes;
    j["file_bytes"] = c.file_bytes;
    json s = {{"kind", c.selection.kind}, {"points", c.selection.points}};
    if (c.selection.kind == "regular") {
      s["start"] = c.selection.start;
      s["stride"] = c.selection.stride;
      s["count"] = c.selection.count;
      s["block"] = c.selection.block;
    }
    if (c.selection.kind == "irregular") s["blocks"] = c.selection.blocks;
    j["selection"] = s;
    if (c.variable_length) j["variable_length"] = true;
    if (!c.transfer.empty()) j["transfer"] = c.transfer;
  }
  return j;
}

json ClosedJson(const Closed& c) {
  json j = {{"type", "closed"},
            {"id", c.id},
            {"how", c.how},
            {"end_ns", c.end},
            {"reads", c.reads},
            {"writes", c.writes},
            {"read_mem_bytes", c.read_mem_bytes},
            {"read_file_bytes", c.read_file_bytes},
            {"write_mem_bytes", c.write_mem_bytes},
            {"write_file_bytes", c.write_file_bytes},
            {"read_ns", c.read_ns},
            {"write_ns", c.write_ns},
            {"calls", c.calls},
            {"inc_refs", c.inc_refs}};
  if (c.stored_size >= 0) j["stored_size"] = c.stored_size;
  if (!c.dims.empty()) j["dims"] = c.dims;
  return j;
}

void Line(std::string& out, const json& j) {
  out += j.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '\n';
}

}  // namespace

std::string TraceJsonLines(const Trace& trace) {
  std::string out;
  if (trace.has_process) Line(out, ProcessJson(trace));
  for (const auto& [id, object] : trace.objects) Line(out, ObjectJson(object));
  for (const Call& c : trace.calls) Line(out, CallJson(trace, c));
  for (const Closed& c : trace.closed) Line(out, ClosedJson(c));
  Line(out, {{"type", "end"},
             {"file", trace.file},
             {"ended", trace.ended},
             {"calls", trace.calls.size()},
             {"dropped", trace.dropped},
             {"open_at_exit", trace.end_open_objects}});
  for (const std::string& problem : trace.problems) Line(out, {{"type", "problem"}, {"message", problem}});
  return out;
}

}  // namespace fathom::h5prov
