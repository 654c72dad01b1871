// runner.cpp — Runner::Run: read, match, coalesce, record with the cursor, acknowledge.
#include "rules/runner.h"

#include <sys/stat.h>

#include <algorithm>
#include <thread>

#include "rules/coalescer.h"
#include "rules/event_json.h"
#include "rules/trigger_condition.h"
#include "rules/workers.h"

namespace fathom::rules {
namespace {

// The attributes of an event's entry, each source read once per event.
class EntryAttributes {
 public:
  EntryAttributes(const Event& event, catalog::Catalog* catalog) : event_(event), catalog_(catalog) {}

  const catalog::Attrs* Of(AttributeSource source) {
    switch (source) {
      case AttributeSource::kNone: return nullptr;
      case AttributeSource::kLive:
        if (!live_read_) {
          live_read_ = true;
          struct stat st {};
          if (lstat(event_.path.c_str(), &st) == 0) live_ = catalog::AttrsFromStat(st);
        }
        return live_ ? &*live_ : nullptr;
      case AttributeSource::kCatalog:
        if (!catalog_read_ && catalog_ != nullptr) {
          catalog_read_ = true;
          auto node = catalog_->Stat(event_.path);
          if (node.ok() && node->has_value()) cataloged_ = (*node)->attrs;
        }
        return cataloged_ ? &*cataloged_ : nullptr;
    }
    return nullptr;
  }

 private:
  const Event& event_;
  catalog::Catalog* catalog_;
  bool live_read_ = false, catalog_read_ = false;
  std::optional<catalog::Attrs> live_, cataloged_;
};

}  // namespace

Runner::Runner(const RuleSet& set, Outbox& outbox, catalog::Catalog* catalog, RunnerOptions options)
    : set_(set), outbox_(outbox), catalog_(catalog), options_(std::move(options)) {}

Status Runner::Run(catalog::EventFeed& feed, const std::atomic<bool>& stop) {
  auto clock = [&] { return options_.clock ? options_.clock() : NowNs(); };
  std::vector<const Trigger*> triggers;
  std::vector<Coalescing> coalescing;
  for (const Rule& r : set_.rules) {
    triggers.push_back(&r.trigger);
    coalescing.push_back(r.coalescing);
  }
  const RuleIndex index(triggers);
  Coalescer coalescer(std::move(coalescing));
  NameCache names;
  Workers workers(set_, outbox_, options_, counters_);
  workers.Start(set_.concurrency);

  FATHOM_ASSIGN_OR_RETURN(uint64_t cursor, outbox_.Cursor(options_.name));
  uint64_t last_read = cursor;
  catalog::FeedBatch batch;
  std::vector<size_t> candidates;
  std::vector<Group> ready;
  Status failed;
  while (!stop.load()) {
    // Back-pressure: no reading while the actions are far behind.
    FATHOM_ASSIGN_OR_RETURN(std::vector<Outbox::RuleCounts> counts, outbox_.Counts());
    uint64_t unfinished = 0;
    for (const auto& c : counts) unfinished += c.pending + c.running;
    if (unfinished >= options_.max_unfinished) {
      std::this_thread::sleep_for(options_.wait);
      continue;
    }
    failed = feed.Next(batch, options_.max_batch, options_.wait);
    if (!failed.ok()) break;
    if (batch.lost_before && options_.log) {
      options_.log("rules: events after " + std::to_string(last_read) +
                   " were purged from the stream before the rules read them: their actions cannot run");
    }
    int64_t stream_now = 0;
    const int64_t now = clock();
    for (const Event& e : batch.events) {
      ++counters_.events;
      last_read = std::max(last_read, e.id);
      stream_now = std::max(stream_now, e.ts_ns);
      candidates.clear();
      index.Candidates(e, candidates);
      EntryAttributes attributes(e, catalog_);
      for (size_t r : candidates) {
        const Trigger& t = set_.rules[r].trigger;
        if (!MatchesCondition(t, e, attributes.Of(t.attributes), names, now, nullptr)) continue;
        ++counters_.matched;
        coalescer.Add(r, e);
      }
    }
    // Reading a backlog, the stream's time settles paths; caught up, the wall clock does.
    const bool caught_up = batch.events.size() < options_.max_batch;
    ready.clear();
    coalescer.TakeReady(caught_up ? clock() : stream_now, ready);
    std::vector<NewDelivery> deliveries;
    for (Group& g : ready) {
      const Rule& rule = set_.rules[g.rule];
      deliveries.push_back({rule.name, rule.version, std::move(g.ids), std::move(g.key), EventsJson(g.events), clock()});
    }
    const std::optional<uint64_t> held = coalescer.HeldFrom();
    const uint64_t through = held ? std::min(*held - 1, last_read) : last_read;
    if (!deliveries.empty() || through != cursor) {
      failed = outbox_.Record(deliveries, options_.name, through);
      if (!failed.ok()) break;
      counters_.recorded += deliveries.size();
      if (through != cursor) {
        cursor = through;
        failed = feed.Acknowledge(cursor);
        if (!failed.ok()) break;
      }
      workers.Wake();
    }
    if (options_.until_idle && batch.events.empty() && coalescer.held() == 0) {
      bool idle = workers.running() == 0;
      FATHOM_ASSIGN_OR_RETURN(std::vector<Outbox::RuleCounts> after, outbox_.Counts());
      for (const auto& c : after) idle = idle && c.pending == 0 && c.running == 0;
      if (idle) break;
    }
  }
  workers.Stop();
  return failed;
}

}  // namespace fathom::rules
