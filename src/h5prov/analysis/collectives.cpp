// collectives.cpp — CompareCollectives(): each collective call set beside the same call of the
// other ranks of its job, to find the ranks that hold the others up.
#include <algorithm>
#include <map>
#include <tuple>

#include "fathom/h5prov.h"
#include "h5prov/analysis/analysis_common.h"

namespace fathom::h5prov {
namespace {

constexpr size_t kWorstListed = 10;

// Parallel HDF5 makes these collective over the file's communicator.
bool CollectiveByNature(uint8_t op) {
  return op == format::kFcreate || op == format::kFopen || op == format::kFclose || op == format::kDcreate1 ||
         op == format::kDcreate2;
}

}  // namespace

CollectiveReport CompareCollectives(const std::vector<Trace>& traces) {
  // (job, function, object, k) -> (rank, duration) per rank.
  std::map<std::tuple<std::string, std::string, std::string, uint64_t>, std::vector<std::pair<int64_t, uint64_t>>>
      groups;
  for (const Trace& t : traces) {
    if (t.process.rank < 0) continue;
    std::map<std::pair<std::string, std::string>, uint64_t> seen;  // (function, object) -> calls so far
    std::vector<const Call*> calls;
    for (const Call& c : t.calls) {
      if (c.parent == 0 && (c.transfer == "collective" || CollectiveByNature(c.op))) calls.push_back(&c);
    }
    std::stable_sort(calls.begin(), calls.end(), [](const Call* a, const Call* b) { return a->start < b->start; });
    for (const Call* c : calls) {
      const std::string function = OpName(c->op), object = analysis::ObjectName(t, c->object);
      const uint64_t k = seen[{function, object}]++;
      groups[{t.process.job, function, object, k}].push_back({t.process.rank, c->duration});
    }
  }
  CollectiveReport report;
  std::vector<CollectiveGroup> all;
  for (const auto& [key, ranks] : groups) {
    if (ranks.size() < 2) continue;
    CollectiveGroup g;
    std::tie(g.job, g.function, g.object, g.index) = key;
    g.ranks = ranks.size();
    std::vector<uint64_t> durations;
    for (const auto& [rank, duration] : ranks) durations.push_back(duration);
    const auto slowest = std::max_element(ranks.begin(), ranks.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
    g.min_ns = *std::min_element(durations.begin(), durations.end());
    g.max_ns = slowest->second;
    g.median_ns = analysis::Median(durations);
    g.spread_ns = g.max_ns - g.min_ns;
    g.slowest_rank = slowest->first;
    all.push_back(std::move(g));
  }
  report.groups = all.size();
  std::stable_sort(all.begin(), all.end(),
                   [](const CollectiveGroup& a, const CollectiveGroup& b) { return a.spread_ns > b.spread_ns; });
  if (all.size() > kWorstListed) all.resize(kWorstListed);
  report.worst = std::move(all);
  return report;
}

}  // namespace fathom::h5prov
