// rules_trial.cpp — TryRules: match and coalesce stored events as the runner would, and say
// what would fire.
#include "rules/rules_trial.h"

#include <limits>

#include "rules/coalescer.h"
#include "rules/matcher.h"
#include "rules/outbox/outbox.h"

namespace fathom::rules {
namespace {

std::string Ids(const std::vector<uint64_t>& ids) {
  std::string out;
  for (uint64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

}  // namespace

Result<TrialCounts> TryRules(const RuleSet& set, EventStore& store, uint64_t since, bool explain,
                             catalog::Catalog* catalog, const std::function<void(const std::string&)>& line) {
  std::vector<Coalescing> coalescing;
  for (const Rule& r : set.rules) coalescing.push_back(r.coalescing);
  Coalescer coalescer(std::move(coalescing));
  Matcher matcher(set, catalog);
  TrialCounts counts;
  std::vector<size_t> taken;
  std::vector<Group> ready;
  int64_t stream_now = 0;
  const int64_t now = NowNs();
  auto report = [&](int64_t at) {
    ready.clear();
    coalescer.TakeReady(at, ready);
    for (const Group& g : ready) {
      const Rule& rule = set.rules[g.rule];
      ++counts.deliveries;
      line("would fire " + DeliveryId(rule.name, rule.version, g.ids) + ": rule " + rule.name + " on " + g.key +
           " (events " + Ids(g.ids) + ")");
    }
  };
  ReplayQuery query;
  query.since_id = since;
  FATHOM_RETURN_IF_ERROR(store.Replay(query, [&](const Event& e) {
    ++counts.events;
    stream_now = std::max(stream_now, e.ts_ns);
    taken.clear();
    matcher.Match(e, now, taken);
    counts.matched += taken.size();
    for (size_t r : taken) coalescer.Add(r, e);
    if (explain) matcher.ExplainAll(e, now, line);
    report(stream_now);
    return true;
  }));
  // What is still held would fire once its paths are quiet, its sentinels come or its
  // batches fill: shown as if that time had come.
  if (coalescer.held() > 0) line("still settling: " + std::to_string(coalescer.held()) + " paths");
  report(std::numeric_limits<int64_t>::max() / 2);
  return counts;
}

}  // namespace fathom::rules
