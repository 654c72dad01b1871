// provenance_events.cpp — ProvenanceEvents(): a trace's changes and reads of HDF5 objects as
// fathom events (fathom/h5prov.h says which and how).
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "fathom/h5prov.h"
#include "h5prov/h5_format.h"

namespace fathom::h5prov {
namespace {

namespace f = format;

struct EventKind {
  const char* name;
  uint32_t mask;
};

std::optional<EventKind> KindOfCall(uint8_t op) {
  switch (op) {
    case f::kFcreate: return EventKind{"FILE_CREATE", kind::kCreate};
    case f::kGcreate1: case f::kGcreate2: case f::kGcreateAnon: return EventKind{"GROUP_CREATE", kind::kModify};
    case f::kDcreate1: case f::kDcreate2: case f::kDcreateAnon: return EventKind{"DATASET_CREATE", kind::kModify};
    case f::kDwrite: case f::kDwriteChunk: case f::kDOwriteChunk: return EventKind{"DATASET_WRITE", kind::kModify};
    case f::kDread: case f::kDreadChunk: case f::kDOreadChunk: return EventKind{"DATASET_READ", kind::kAccess};
    case f::kDsetExtent: case f::kDextend: return EventKind{"DATASET_EXTEND", kind::kModify};
    case f::kAcreate1: case f::kAcreate2: case f::kAcreateByName:
      return EventKind{"ATTRIBUTE_CREATE", kind::kModify};
    case f::kAwrite: return EventKind{"ATTRIBUTE_WRITE", kind::kModify};
    case f::kAread: return EventKind{"ATTRIBUTE_READ", kind::kAccess};
    case f::kAdelete: case f::kAdeleteByName: case f::kAdeleteByIdx:
      return EventKind{"ATTRIBUTE_DELETE", kind::kModify};
    case f::kArename: case f::kArenameByName: return EventKind{"ATTRIBUTE_RENAME", kind::kModify};
    case f::kTcommit1: case f::kTcommit2: case f::kTcommitAnon: return EventKind{"DATATYPE_COMMIT", kind::kModify};
    case f::kLcreateHard: case f::kLcreateSoft: case f::kLcreateExternal: case f::kLcreateUd: case f::kOlink:
      return EventKind{"LINK_CREATE", kind::kModify};
    case f::kLmove: return EventKind{"LINK_MOVE", kind::kModify};
    case f::kLdelete: case f::kLdeleteByIdx: return EventKind{"LINK_DELETE", kind::kModify};
    case f::kOcopy: case f::kLcopy: return EventKind{"OBJECT_COPY", kind::kModify};
    default: return std::nullopt;
  }
}

const Object* Find(const Trace& trace, uint64_t id) {
  auto it = trace.objects.find(id);
  return it == trace.objects.end() ? nullptr : &it->second;
}

// The file an object is in (itself for a file).
const Object* FileOf(const Trace& trace, const Object* o) {
  if (o == nullptr) return nullptr;
  return o->kind == "file" ? o : Find(trace, o->file);
}

}  // namespace

std::vector<Event> ProvenanceEvents(const Trace& trace) {
  std::vector<Event> events;
  for (const Call& c : trace.calls) {
    if (c.failed || c.parent != 0) continue;
    const auto kind = KindOfCall(c.op);
    if (!kind) continue;
    const Object* object = Find(trace, c.object);
    const Object* location = Find(trace, c.location);
    const Object* file = FileOf(trace, object != nullptr ? object : location);
    if (file == nullptr || file->path.empty()) continue;  // no file to put the event on

    nlohmann::json h5 = {{"event", kind->name}, {"function", OpName(c.op)}};
    const Object* about = object != nullptr ? object : location;
    if (about != nullptr) h5["object"] = about->kind == "file" ? "/" : about->path;
    if (about != nullptr && about->kind == "attribute") {
      h5["name"] = about->name;
    } else if (c.op != f::kFcreate && c.has_name) {
      h5["name"] = c.name;
    }
    if (c.has_name2 && kind->name != std::string_view("ATTRIBUTE_CREATE")) h5["new_name"] = c.name2;
    if (c.has_data) h5["bytes"] = c.file_bytes;
    h5["job"] = trace.process.job;
    h5["rank"] = trace.process.rank;
    h5["pid"] = trace.process.pid;
    h5["uid"] = trace.process.uid;
    h5["host"] = trace.process.host;

    Event e;
    e.ts_ns = static_cast<int64_t>(WallNs(trace.process, c.start));
    e.mask = kind->mask;
    e.path = file->path;
    e.root = std::filesystem::path(file->path).parent_path().string();
    if (e.root.empty()) e.root = "/";
    e.source = "h5prov";
    e.attrs = nlohmann::json({{"h5", h5}}).dump();
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace fathom::h5prov
