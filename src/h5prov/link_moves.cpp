// link_moves.cpp — objects renamed by the H5Lmove calls of a trace.
#include "h5prov/link_moves.h"

#include <map>
#include <optional>

#include "h5prov/h5_format.h"

namespace fathom::h5prov {
namespace {

namespace f = format;

uint64_t FileOf(const Object& o) { return o.kind == "file" ? o.id : o.file; }

// The absolute path `name` names relative to `loc` (a file's root, or a group).
std::optional<std::string> PathAt(const Trace& trace, uint64_t loc, const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (name.front() == '/') return name;
  auto it = trace.objects.find(loc);
  if (it == trace.objects.end()) return std::nullopt;
  const Object& o = it->second;
  if (o.kind == "file") return "/" + name;
  if (o.path.empty()) return std::nullopt;  // an anonymous object: no path to be under
  return (o.path == "/" ? "" : o.path) + "/" + name;
}

}  // namespace

void ApplyLinkMoves(Trace& trace) {
  std::map<uint64_t, uint64_t> opened;
  ApplyLinkMoves(trace, opened);
}

void ApplyLinkMoves(Trace& trace, std::map<uint64_t, uint64_t>& opened) {
  // When each object was opened (its first call) and closed.
  std::map<uint64_t, uint64_t> closed;
  bool moves = false;
  for (const Call& c : trace.calls) {
    if (c.object != 0 && !opened.count(c.object)) opened[c.object] = c.start;
    moves = moves || (c.op == f::kLmove && !c.failed);
  }
  if (!moves) return;
  for (const Closed& c : trace.closed) closed[c.id] = c.end;
  for (const Call& c : trace.calls) {
    if (c.op != f::kLmove || c.failed || !c.has_name || !c.has_name2) continue;
    const auto from = PathAt(trace, c.location, c.name);
    const auto to = PathAt(trace, c.object, c.name2);
    auto loc = trace.objects.find(c.location);
    if (!from || !to || loc == trace.objects.end()) continue;
    const uint64_t file = FileOf(loc->second);
    for (auto& [id, o] : trace.objects) {
      if (o.kind == "file" || FileOf(o) != file) continue;
      auto open = opened.find(id);
      auto close = closed.find(id);
      if (open == opened.end() || open->second > c.start) continue;        // opened after the move
      if (close != closed.end() && close->second < c.start) continue;      // closed before it
      if (o.path == *from) {
        o.path = *to;
      } else if (o.path.size() > from->size() && o.path.compare(0, from->size(), *from) == 0 &&
                 o.path[from->size()] == '/') {
        o.path = *to + o.path.substr(from->size());
      }
    }
  }
}

}  // namespace fathom::h5prov
