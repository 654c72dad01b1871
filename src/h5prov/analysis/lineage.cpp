// lineage.cpp — BuildLineage(), FocusLineage(), LineageText(): who created, wrote and read each
// dataset across runs, and the edges between them.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "fathom/h5prov.h"
#include "h5prov/analysis/analysis_common.h"

namespace fathom::h5prov {
namespace {

using analysis::ClassOf;
using format::OpClass;

// A dataset's identity across traces: its file's, and its address (or its path when the
// address is unknown).
using DatasetKey = std::tuple<std::string, uint64_t, uint64_t, uint64_t, std::string>;

LineageProcess ProcessOf(const Trace& t) {
  LineageProcess p;
  p.trace = t.file;
  p.job = t.process.job;
  p.host = t.process.host;
  p.pid = t.process.pid;
  p.rank = t.process.rank;
  p.uid = t.process.uid;
  p.argv = t.process.argv;
  return p;
}

void Stretch(uint64_t* first, uint64_t* last, bool had, uint64_t from, uint64_t to) {
  *first = had ? std::min(*first, from) : from;
  *last = had ? std::max(*last, to) : to;
}

// Records call `c` (of the program, on dataset use `u`) from `start` to `end` on the wall clock.
void Count(const Call& c, uint64_t start, uint64_t end, DatasetUse* u) {
  const bool generated_before = u->created || u->writes > 0;
  switch (ClassOf(c)) {
    case OpClass::kCreate:
      ++u->opens;
      u->created = true;
      Stretch(&u->first_written_ns, &u->last_written_ns, generated_before, end, end);
      return;
    case OpClass::kOpen:
      ++u->opens;
      return;
    case OpClass::kRead:
      if (!c.has_data) return;
      Stretch(&u->first_read_ns, &u->last_read_ns, u->reads > 0, start, start);
      ++u->reads;
      u->read_bytes += c.file_bytes;
      break;
    case OpClass::kWrite:
      if (!c.has_data) return;
      Stretch(&u->first_written_ns, &u->last_written_ns, generated_before, end, end);
      ++u->writes;
      u->write_bytes += c.file_bytes;
      break;
    default:
      return;
  }
  const std::string selection = SelectionText(c.selection);
  if (std::find(u->selections.begin(), u->selections.end(), selection) == u->selections.end()) {
    u->selections.push_back(selection);
  }
}

std::string DatasetName(const LineageDataset& d) { return d.file + ":" + d.path; }

std::string ProcessName(const LineageProcess& p) {
  char b[256];
  std::snprintf(b, sizeof(b), "job %s pid %llu rank %lld (%s, uid %llu)", p.job.c_str(),
                static_cast<unsigned long long>(p.pid), static_cast<long long>(p.rank), p.host.c_str(),
                static_cast<unsigned long long>(p.uid));
  return b;
}

}  // namespace

Lineage BuildLineage(const std::vector<Trace>& traces) {
  Lineage lineage;
  std::map<DatasetKey, std::pair<LineageDataset, std::map<size_t, DatasetUse>>> found;
  for (size_t i = 0; i < traces.size(); ++i) {
    const Trace& t = traces[i];
    LineageProcess process = ProcessOf(t);
    bool any_call = false;
    for (const Call& c : t.calls) {
      if (c.parent != 0) continue;
      const uint64_t start = WallNs(t.process, c.start), end = start + c.duration;
      Stretch(&process.start_wall_ns, &process.end_wall_ns, any_call, start, end);
      any_call = true;
      const Object* o = analysis::FindObject(t, c.object);
      if (c.failed || o == nullptr || o->kind != "dataset") continue;
      const Object* file = analysis::FileOf(t, *o);
      const std::string file_path = file != nullptr ? file->path : "";
      const uint64_t dev = file != nullptr ? file->dev : 0, ino = file != nullptr ? file->ino : 0;
      auto& [dataset, uses] = found[{file_path, dev, ino, o->address, o->address != 0 ? "" : o->path}];
      dataset.file = file_path;
      dataset.dev = dev;
      dataset.ino = ino;
      dataset.address = o->address;
      if (!o->path.empty()) dataset.path = o->path;
      auto [use, added] = uses.try_emplace(i);
      use->second.process = i;
      Stretch(&use->second.first_ns, &use->second.last_ns, !added, start, end);
      Count(c, start, end, &use->second);
    }
    lineage.processes.push_back(std::move(process));
  }
  for (auto& [key, entry] : found) {
    auto& [dataset, uses] = entry;
    for (auto& [process, use] : uses) dataset.uses.push_back(std::move(use));
    std::sort(dataset.uses.begin(), dataset.uses.end(), [](const DatasetUse& a, const DatasetUse& b) {
      return std::tie(a.first_ns, a.process) < std::tie(b.first_ns, b.process);
    });
    lineage.datasets.push_back(std::move(dataset));
  }
  std::sort(lineage.datasets.begin(), lineage.datasets.end(), [](const LineageDataset& a, const LineageDataset& b) {
    return std::tie(a.file, a.path, a.dev, a.ino, a.address) < std::tie(b.file, b.path, b.dev, b.ino, b.address);
  });

  std::map<size_t, std::vector<std::pair<size_t, const DatasetUse*>>> by_process;
  for (size_t d = 0; d < lineage.datasets.size(); ++d) {
    const std::vector<DatasetUse>& uses = lineage.datasets[d].uses;
    for (const DatasetUse& w : uses) {
      by_process[w.process].push_back({d, &w});
      if (!w.created && w.writes == 0) continue;
      for (const DatasetUse& r : uses) {
        if (r.process != w.process && r.reads > 0 && w.first_written_ns <= r.last_read_ns) {
          lineage.edges.push_back({d, w.process, r.process, w.first_written_ns, r.last_read_ns});
        }
      }
    }
  }
  for (const auto& [process, uses] : by_process) {
    for (const auto& [generated, w] : uses) {
      if (w->writes == 0) continue;
      for (const auto& [used, r] : uses) {
        if (used != generated && r->reads > 0 && r->first_read_ns <= w->last_written_ns) {
          lineage.derivations.push_back({generated, used, process});
        }
      }
    }
  }
  return lineage;
}

Result<Lineage> FocusLineage(const Lineage& lineage, const std::string& name) {
  size_t focus = lineage.datasets.size();
  for (size_t d = 0; d < lineage.datasets.size(); ++d) {
    if (DatasetName(lineage.datasets[d]) == name) focus = d;
  }
  if (focus == lineage.datasets.size()) {
    return Status::Error("no dataset " + name + " in the traces (name it as FILE:/path, FILE its real path)");
  }
  std::set<size_t> kept = {focus};
  for (const Derivation& v : lineage.derivations) {
    if (v.generated == focus) kept.insert(v.used);
    if (v.used == focus) kept.insert(v.generated);
  }
  std::map<size_t, size_t> dataset_index, process_index;  // old index -> new
  for (size_t d : kept) {
    const size_t now = dataset_index.size();
    dataset_index[d] = now;
    for (const DatasetUse& u : lineage.datasets[d].uses) process_index.try_emplace(u.process, 0);
  }
  size_t next = 0;
  for (auto& [old, now] : process_index) now = next++;

  Lineage out;
  for (const auto& [old, now] : process_index) out.processes.push_back(lineage.processes[old]);
  for (size_t d : kept) {
    LineageDataset dataset = lineage.datasets[d];
    for (DatasetUse& u : dataset.uses) u.process = process_index[u.process];
    out.datasets.push_back(std::move(dataset));
  }
  for (const LineageEdge& e : lineage.edges) {
    if (e.dataset != focus) continue;
    out.edges.push_back({dataset_index[e.dataset], process_index[e.writer], process_index[e.reader], e.written_ns,
                         e.read_ns});
  }
  for (const Derivation& v : lineage.derivations) {
    if (v.generated != focus && v.used != focus) continue;
    out.derivations.push_back({dataset_index[v.generated], dataset_index[v.used], process_index[v.process]});
  }
  return out;
}

std::string LineageText(const Lineage& lineage) {
  std::string out;
  char line[512];
  for (const LineageDataset& d : lineage.datasets) {
    std::snprintf(line, sizeof(line), "%s  (device %llu inode %llu, address %llu)\n", DatasetName(d).c_str(),
                  static_cast<unsigned long long>(d.dev), static_cast<unsigned long long>(d.ino),
                  static_cast<unsigned long long>(d.address));
    out += line;
    for (const DatasetUse& u : d.uses) {
      std::string what;
      if (u.created) what += "created, ";
      if (u.writes > 0) what += "wrote " + std::to_string(u.write_bytes) + " B in " + std::to_string(u.writes) + " call(s), ";
      if (u.reads > 0) what += "read " + std::to_string(u.read_bytes) + " B in " + std::to_string(u.reads) + " call(s), ";
      if (what.empty()) what = "opened, ";
      what.resize(what.size() - 2);
      out += "  " + ProcessName(lineage.processes[u.process]) + " " + analysis::IsoTime(u.first_ns) + " .. " +
             analysis::IsoTime(u.last_ns) + ": " + what;
      for (size_t s = 0; s < u.selections.size(); ++s) out += (s == 0 ? "; selections: " : ", ") + u.selections[s];
      out += "\n";
    }
  }
  if (!lineage.edges.empty()) out += "\nWriter -> reader\n";
  for (const LineageEdge& e : lineage.edges) {
    out += "  " + DatasetName(lineage.datasets[e.dataset]) + ": " + ProcessName(lineage.processes[e.writer]) +
           " wrote it at " + analysis::IsoTime(e.written_ns) + " -> " + ProcessName(lineage.processes[e.reader]) +
           " read it at " + analysis::IsoTime(e.read_ns) + "\n";
  }
  if (!lineage.derivations.empty()) out += "\nDerived datasets\n";
  for (const Derivation& v : lineage.derivations) {
    out += "  " + DatasetName(lineage.datasets[v.generated]) + " from " + DatasetName(lineage.datasets[v.used]) +
           " by " + ProcessName(lineage.processes[v.process]) + "\n";
  }
  return out;
}

}  // namespace fathom::h5prov
