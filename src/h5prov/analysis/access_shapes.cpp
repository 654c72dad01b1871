// access_shapes.cpp — AccessShapes(): how each dataset was selected in its reads and writes.
#include <algorithm>
#include <map>
#include <tuple>

#include "fathom/h5prov.h"
#include "h5prov/analysis/analysis_common.h"

namespace fathom::h5prov {
namespace {

constexpr size_t kCommonShapes = 4;

using Shape = std::pair<std::vector<uint64_t>, std::vector<uint64_t>>;  // count, block

}  // namespace

std::vector<DatasetShapes> AccessShapes(const std::vector<Trace>& traces) {
  std::map<std::pair<std::string, std::string>, std::pair<DatasetShapes, std::map<Shape, uint64_t>>> found;
  for (const Trace& t : traces) {
    for (const Call& c : t.calls) {
      const std::optional<analysis::DatasetAccess> access = analysis::AccessOf(t, c);
      if (!access) continue;
      auto& [d, shapes] = found[{analysis::FilePath(*access), access->dataset->path}];
      d.file = analysis::FilePath(*access);
      d.path = access->dataset->path;
      const std::string& kind = c.selection.kind;
      for (auto [name, counter] : {std::pair{"all", &d.all}, {"none", &d.none}, {"points", &d.points},
                                   {"regular", &d.regular}, {"irregular", &d.irregular}, {"chunk", &d.chunk}}) {
        if (kind == name) ++*counter;
      }
      if (kind == "regular") ++shapes[{c.selection.count, c.selection.block}];
    }
  }
  std::vector<DatasetShapes> out;
  for (auto& [key, entry] : found) {
    auto& [d, shapes] = entry;
    for (const auto& [shape, n] : shapes) d.common.push_back({shape.first, shape.second, n});
    std::stable_sort(d.common.begin(), d.common.end(),
                     [](const AccessShape& a, const AccessShape& b) { return a.accesses > b.accesses; });
    if (d.common.size() > kCommonShapes) d.common.resize(kCommonShapes);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace fathom::h5prov
