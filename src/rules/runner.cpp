// runner.cpp — Runner::Run: read, match, coalesce, record with the cursor, acknowledge.
#include "rules/runner.h"

#include <algorithm>
#include <thread>

#include "rules/coalescer.h"
#include "rules/actions/event_json.h"
#include "rules/matcher.h"
#include "rules/workers.h"

namespace fathom::rules {

Runner::Runner(const RuleSet& set, Outbox& outbox, catalog::Catalog* catalog, RunnerOptions options)
    : set_(set), outbox_(outbox), catalog_(catalog), options_(std::move(options)) {}

Status Runner::Run(catalog::EventFeed& feed, const std::atomic<bool>& stop) {
  auto clock = [&] { return options_.clock ? options_.clock() : NowNs(); };
  for (const Rule& r : set_.rules) {
    if (const auto* hook = std::get_if<WebhookAction>(&r.action)) {
      Status s = CheckWebhookAction(*hook);
      if (!s.ok()) return Status::Error(set_.source + ": rule " + r.name + ": " + s.message());
    }
  }
  std::vector<Coalescing> coalescing;
  for (const Rule& r : set_.rules) coalescing.push_back(r.coalescing);
  Coalescer coalescer(std::move(coalescing));
  Matcher matcher(set_, catalog_);
  Workers workers(set_, outbox_, options_, counters_);
  workers.Start(set_.concurrency);

  FATHOM_ASSIGN_OR_RETURN(uint64_t cursor, outbox_.Cursor(options_.name));
  uint64_t last_read = cursor;
  catalog::FeedBatch batch;
  std::vector<size_t> taken;
  std::vector<Group> ready;
  Status failed;
  while (!stop.load()) {
    // Back-pressure: no reading while the actions are far behind.
    FATHOM_ASSIGN_OR_RETURN(uint64_t unfinished, outbox_.Unfinished());
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
      taken.clear();
      matcher.Match(e, now, taken);
      for (size_t r : taken) coalescer.Add(r, e);
      counters_.matched += taken.size();
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
      FATHOM_ASSIGN_OR_RETURN(uint64_t left, outbox_.Unfinished());
      if (left == 0 && workers.running() == 0) break;
    }
  }
  workers.Stop();
  return failed;
}

}  // namespace fathom::rules
