// prov_json.cpp — LineageProvJson(): a lineage as W3C PROV-JSON.
//
// Identifiers: files "fathom:file/DEV.INO" (their real path when the identity is unknown),
// datasets "fathom:dataset/DEV.INO/ADDRESS" (or .../PATH when the address is unknown),
// processes "fathom:process/JOB/HOST/PID", agents "fathom:user/UID" and "fathom:job/JOB";
// relations are blank nodes "_:wgb1", "_:u1", ... numbered in order.
#include <nlohmann/json.hpp>

#include "fathom/h5prov.h"
#include "h5prov/analysis/analysis_common.h"

namespace fathom::h5prov {
namespace {

using nlohmann::json;
using analysis::IsoTime;

std::string FileId(const LineageDataset& d) {
  if (d.dev == 0 && d.ino == 0) return "fathom:file" + d.file;
  return "fathom:file/" + std::to_string(d.dev) + "." + std::to_string(d.ino);
}

std::string DatasetId(const LineageDataset& d) {
  const std::string file = FileId(d).substr(std::string("fathom:file").size());
  return "fathom:dataset" + file + (d.address != 0 ? "/" + std::to_string(d.address) : d.path);
}

std::string ProcessId(const LineageProcess& p) {
  return "fathom:process/" + p.job + "/" + p.host + "/" + std::to_string(p.pid);
}

// Adds relation `value` of `kind` under the next blank-node id with `prefix`.
void Relate(json* doc, const char* kind, const char* prefix, json value) {
  json& relations = (*doc)[kind];
  relations[std::string("_:") + prefix + std::to_string(relations.size() + 1)] = std::move(value);
}

}  // namespace

std::string LineageProvJson(const Lineage& lineage) {
  json doc = {{"prefix", {{"fathom", "urn:fathom:h5:"}, {"xsd", "http://www.w3.org/2001/XMLSchema#"}}},
              {"entity", json::object()},
              {"activity", json::object()},
              {"agent", json::object()}};
  std::vector<bool> active(lineage.processes.size(), false);
  for (const LineageDataset& d : lineage.datasets) {
    doc["entity"][FileId(d)] = {{"prov:type", "fathom:file"}, {"fathom:path", d.file}, {"fathom:dev", d.dev},
                                {"fathom:ino", d.ino}};
    doc["entity"][DatasetId(d)] = {{"prov:type", "fathom:dataset"}, {"prov:label", d.file + ":" + d.path},
                                   {"fathom:file", d.file}, {"fathom:path", d.path}, {"fathom:address", d.address}};
    Relate(&doc, "hadMember", "hm", {{"prov:collection", FileId(d)}, {"prov:entity", DatasetId(d)}});
    for (const DatasetUse& u : d.uses) active[u.process] = true;
  }
  for (size_t i = 0; i < lineage.processes.size(); ++i) {
    if (!active[i]) continue;
    const LineageProcess& p = lineage.processes[i];
    std::string command;
    for (const std::string& arg : p.argv) command += (command.empty() ? "" : " ") + arg;
    doc["activity"][ProcessId(p)] = {{"prov:type", "fathom:process"}, {"prov:startTime", IsoTime(p.start_wall_ns)},
                                     {"prov:endTime", IsoTime(p.end_wall_ns)}, {"fathom:pid", p.pid},
                                     {"fathom:rank", p.rank}, {"fathom:host", p.host}, {"fathom:command", command}};
    const std::string user = "fathom:user/" + std::to_string(p.uid), job = "fathom:job/" + p.job;
    doc["agent"][user] = {{"prov:type", "prov:Person"}, {"fathom:uid", p.uid}};
    doc["agent"][job] = {{"prov:type", "prov:SoftwareAgent"}, {"fathom:job", p.job}};
    Relate(&doc, "wasAssociatedWith", "waw", {{"prov:activity", ProcessId(p)}, {"prov:agent", user}});
    Relate(&doc, "wasAssociatedWith", "waw", {{"prov:activity", ProcessId(p)}, {"prov:agent", job}});
  }
  for (const LineageDataset& d : lineage.datasets) {
    for (const DatasetUse& u : d.uses) {
      const std::string activity = ProcessId(lineage.processes[u.process]);
      if (u.created || u.writes > 0) {
        Relate(&doc, "wasGeneratedBy", "wgb",
               {{"prov:entity", DatasetId(d)}, {"prov:activity", activity}, {"prov:time", IsoTime(u.first_written_ns)}});
      }
      if (u.reads > 0) {
        Relate(&doc, "used", "u",
               {{"prov:activity", activity}, {"prov:entity", DatasetId(d)}, {"prov:time", IsoTime(u.first_read_ns)}});
      }
    }
  }
  for (const Derivation& v : lineage.derivations) {
    Relate(&doc, "wasDerivedFrom", "wdf",
           {{"prov:generatedEntity", DatasetId(lineage.datasets[v.generated])},
            {"prov:usedEntity", DatasetId(lineage.datasets[v.used])},
            {"prov:activity", ProcessId(lineage.processes[v.process])}});
  }
  return doc.dump(2) + "\n";
}

}  // namespace fathom::h5prov
