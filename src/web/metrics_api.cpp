// metrics_api.cpp — /metrics (Prometheus text format, with prometheus-cpp's registry and
// serializer), /healthz and /readyz. The sources' numbers (the aggregator's too) are read at
// each scrape; the request counters and latencies are kept by the server (docs/web.md lists
// the series).
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <sys/stat.h>

#include <array>

#include "fathom/policy.h"
#include "rules/outbox/outbox.h"
#include "rules/rule_set.h"
#include "web/serve_context.h"
#include "web/source_state.h"

namespace fathom::web {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;

void Gauge(prometheus::Registry& r, const std::string& name, const std::string& help, double value,
           const std::map<std::string, std::string>& labels = {}) {
  BuildGauge().Name(name).Help(help).Register(r).Add(labels).Set(value);
}

// A counter per (source, kind).
void KindCounter(prometheus::Registry& r, const std::string& name, const std::string& help, const KindCounts::Map& counts) {
  auto& family = BuildCounter().Name(name).Help(help).Register(r);
  for (const auto& [key, n] : counts) {
    family.Add({{"source", key.first}, {"kind", key.second}}).Increment(static_cast<double>(n));
  }
}

void AddStoreSeries(ServeContext& ctx, prometheus::Registry& r, std::optional<uint64_t>& last_id) {
  auto state = ReadStoreState(ctx);
  Gauge(r, "fathom_store_up", "1 when the event store reads", state.ok() ? 1 : 0);
  if (!state.ok()) return;
  last_id = state->last_id;
  Gauge(r, "fathom_store_last_id", "The highest event id the store assigned", static_cast<double>(state->last_id));
  Gauge(r, "fathom_store_first_id", "The retention floor: the oldest event id the store holds",
        static_cast<double>(state->first_id));
  Gauge(r, "fathom_store_bytes", "Bytes of the store file and its write-ahead log", static_cast<double>(state->bytes));
  auto& lag = BuildGauge().Name("fathom_consumer_lag_events").Help("Events stored after a durable consumer's position").Register(r);
  for (const auto& [name, pos] : state->consumers) {
    lag.Add({{"consumer", name}}).Set(static_cast<double>(state->last_id > pos ? state->last_id - pos : 0));
  }
}

// The events the tail read since the server started (from the store, or from the aggregator).
void AddTailSeries(ServeContext& ctx, prometheus::Registry& r) {
  KindCounter(r, "fathom_events_in_total",
              "Events that reached the store (or the aggregator) since this server started, per source and kind",
              ctx.tail->Totals());
}

// The counters of the aggregator given to --from.
void AddAggregatorSeries(ServeContext& ctx, prometheus::Registry& r, std::optional<uint64_t>& last_id) {
  auto counters = ReadAggregatorState(ctx);
  Gauge(r, "fathom_aggregator_up", "1 when the aggregator (--from) answers for its counters", counters.ok() ? 1 : 0);
  if (!counters.ok()) return;
  const nlohmann::json& c = *counters;
  auto number = [&c](const char* key) { return static_cast<double>(c.value(key, uint64_t{0})); };
  if (!last_id) last_id = c.value("last_id", uint64_t{0});
  Gauge(r, "fathom_aggregator_last_id", "The newest event id the aggregator committed", number("last_id"));
  Gauge(r, "fathom_aggregator_first_id", "The retention floor: the oldest event id the aggregator's store holds",
        number("first_id"));
  Gauge(r, "fathom_aggregator_queue_events", "Events the aggregator received and has not committed yet",
        number("queued_events"));
  auto& latency = BuildGauge().Name("fathom_aggregator_commit_latency_seconds")
                      .Help("The aggregator's store commits: the last one, the mean and the longest")
                      .Register(r);
  for (const char* stat : {"last", "mean", "max"}) {
    latency.Add({{"stat", stat}}).Set(number(("commit_latency_us_" + std::string(stat)).c_str()) / 1e6);
  }
  auto& events = BuildCounter().Name("fathom_aggregator_events_total")
                     .Help("Events through the aggregator since it started: received, committed, sent to subscribers")
                     .Register(r);
  for (const char* what : {"received", "committed", "sent"}) {
    events.Add({{"state", what}}).Increment(number(("events_" + std::string(what)).c_str()));
  }
  BuildCounter().Name("fathom_aggregator_commit_failures_total").Help("Store commits of the aggregator that failed")
      .Register(r).Add({}).Increment(number("commit_failures"));
  Gauge(r, "fathom_aggregator_collectors", "Collectors connected to the aggregator", number("collectors"));
  Gauge(r, "fathom_aggregator_consumers", "Subscribers connected to the aggregator", number("consumers"));
}

// The I/O traces of --io: jobs and trace files found in the directory.
void AddTraceSeries(ServeContext& ctx, prometheus::Registry& r) {
  auto jobs = ctx.io_jobs->Jobs();
  Gauge(r, "fathom_io_traces_up", "1 when the directory of I/O traces (--io) reads", jobs.ok() ? 1 : 0);
  if (!jobs.ok()) return;
  size_t files = 0;
  for (const auto& [job, paths] : *jobs) files += paths.size();
  Gauge(r, "fathom_io_jobs", "Jobs whose I/O traces are in the --io directory", static_cast<double>(jobs->size()));
  Gauge(r, "fathom_io_trace_files", "I/O trace files (one per traced process) in the --io directory",
        static_cast<double>(files));
}

void AddCatalogSeries(ServeContext& ctx, prometheus::Registry& r, std::optional<uint64_t> last_id) {
  auto state = ReadCatalogState(ctx, last_id);
  Gauge(r, "fathom_catalog_up", "1 when the catalog reads", state.ok() ? 1 : 0);
  if (!state.ok()) return;
  Gauge(r, "fathom_catalog_entries", "Objects in the catalog", static_cast<double>(state->info.entries));
  Gauge(r, "fathom_catalog_names", "Names in the catalog", static_cast<double>(state->info.names));
  Gauge(r, "fathom_catalog_removed_entries", "Removed objects kept for undelete", static_cast<double>(state->info.removed));
  Gauge(r, "fathom_catalog_bytes", "Size of the catalog's database", static_cast<double>(state->info.bytes));
  BuildCounter().Name("fathom_catalog_commits_total").Help("Batches committed to the catalog").Register(r).Add({}).Increment(
      static_cast<double>(state->commits));
  if (state->lag_events) {
    Gauge(r, "fathom_catalog_lag_events", "Stored events the catalog's follower has not applied",
          static_cast<double>(*state->lag_events), {{"follower", ctx.options.catalog_stream}});
  }
}

// The policies' journal (in the catalog): runs per policy and state ("unfinished" for a run
// that never ended), and their actions per outcome (done, failed, skipped: the runs' tallies).
void AddPolicySeries(ServeContext& ctx, prometheus::Registry& r) {
  using Key = std::pair<std::string, std::string>;
  std::map<Key, uint64_t> runs, actions;
  auto journal = policy::ActionJournal::Open(ctx.options.catalog, true);
  Status read = !journal.ok() ? journal.status() : (*journal)->Runs("", 0, [&](const policy::RunRecord& run) {
    ++runs[{run.policy, run.finished_ns == 0 ? "unfinished" : std::string(policy::StateName(run.state))}];
    actions[{run.policy, "done"}] += run.actions;
    actions[{run.policy, "failed"}] += run.failed;
    actions[{run.policy, "skipped"}] += run.skipped;
    return true;
  });
  Gauge(r, "fathom_policy_journal_up", "1 when the policies' journal reads", read.ok() ? 1 : 0);
  if (!read.ok()) return;
  auto& run_family =
      BuildCounter().Name("fathom_policy_runs_total").Help("Policy runs in the journal, per policy and state").Register(r);
  for (const auto& [key, n] : runs) {
    run_family.Add({{"policy", key.first}, {"state", key.second}}).Increment(static_cast<double>(n));
  }
  auto& action_family = BuildCounter().Name("fathom_policy_actions_total")
                            .Help("Entries the journaled runs acted upon (done), failed on, or skipped, per policy")
                            .Register(r);
  for (const auto& [key, n] : actions) {
    action_family.Add({{"policy", key.first}, {"state", key.second}}).Increment(static_cast<double>(n));
  }
}

// The rules' outbox: deliveries per rule and state (every rule of the file, 0 when it has none).
void AddRuleSeries(ServeContext& ctx, prometheus::Registry& r) {
  auto set = rules::LoadRuleSet(ctx.options.rules);
  std::vector<rules::Outbox::RuleCounts> counts;
  Status read = set.status();
  struct stat st {};
  if (read.ok() && stat(set->outbox.c_str(), &st) == 0) {  // none yet: the runner makes it
    auto outbox = rules::Outbox::Open(set->outbox, true);
    auto got = outbox.ok() ? (*outbox)->Counts() : Result<std::vector<rules::Outbox::RuleCounts>>(outbox.status());
    read = got.status();
    if (got.ok()) counts = std::move(got).value();
  }
  Gauge(r, "fathom_rules_outbox_up", "1 when the rules file and its outbox read", read.ok() ? 1 : 0);
  if (!read.ok()) return;
  auto& family = BuildGauge().Name("fathom_rule_deliveries").Help("Deliveries in the rules' outbox, per rule and state").Register(r);
  using S = rules::DeliveryState;
  auto add = [&](const std::string& rule, const std::array<uint64_t, 5>& n) {
    for (S state : {S::kPending, S::kRunning, S::kWaiting, S::kSucceeded, S::kDead}) {
      family.Add({{"rule", rule}, {"state", std::string(rules::StateName(state))}})
          .Set(static_cast<double>(n[static_cast<size_t>(state)]));
    }
  };
  for (const rules::Rule& rule : set->rules) add(rule.name, {});
  for (const rules::Outbox::RuleCounts& c : counts) add(c.rule, {c.pending, c.running, c.waiting, c.succeeded, c.dead});
}

void AddServerSeries(ServeContext& ctx, prometheus::Registry& r) {
  auto& requests = BuildCounter().Name("fathom_http_requests_total").Help("Requests answered, by outcome").Register(r);
  const RequestCounters& c = ctx.counters;
  requests.Add({{"outcome", "served"}}).Increment(static_cast<double>(c.served.load()));
  requests.Add({{"outcome", "unauthorized"}}).Increment(static_cast<double>(c.refused_auth.load()));
  requests.Add({{"outcome", "bad_request"}}).Increment(static_cast<double>(c.bad_requests.load()));
  requests.Add({{"outcome", "throttled"}}).Increment(static_cast<double>(c.throttled.load()));
  requests.Add({{"outcome", "failed"}}).Increment(static_cast<double>(c.failed.load()));
  Gauge(r, "fathom_http_requests_in_flight", "Requests being answered", c.in_flight.load());
  Gauge(r, "fathom_http_event_streams", "Open event streams", c.streams.load());
  KindCounter(r, "fathom_events_out_total",
              "Events written to the live event streams since this server started, per source and kind",
              c.events_out.Get());
}

void Metrics(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!ctx.options.metrics_token.empty() &&
      req.get_header_value("Authorization") != "Bearer " + ctx.options.metrics_token) {
    ReplyError(res, 401, "/metrics needs the token given to --metrics-token: 'Authorization: Bearer TOKEN'");
    return;
  }
  prometheus::Registry r;
  std::optional<uint64_t> last_id;
  if (ctx.stores) AddStoreSeries(ctx, r, last_id);
  if (!ctx.options.from.empty()) AddAggregatorSeries(ctx, r, last_id);
  if (ctx.tail) AddTailSeries(ctx, r);
  if (ctx.io_jobs) AddTraceSeries(ctx, r);
  if (ctx.catalogs) AddCatalogSeries(ctx, r, last_id);
  if (!ctx.options.policies.empty() && !ctx.options.catalog.empty()) AddPolicySeries(ctx, r);
  if (!ctx.options.rules.empty()) AddRuleSeries(ctx, r);
  AddServerSeries(ctx, r);
  res.set_content(prometheus::TextSerializer().Serialize(r.Collect()), "text/plain; version=0.0.4");
}

void Ready(ServeContext& ctx, httplib::Response& res) {
  std::optional<uint64_t> last_id;
  if (ctx.stores) {
    auto s = ReadStoreState(ctx);
    if (!s.ok()) return ReplyError(res, 503, s.status().message());
    last_id = s->last_id;
  }
  if (!ctx.options.from.empty()) {
    auto a = ReadAggregatorState(ctx);
    if (!a.ok()) return ReplyError(res, 503, a.status().message());
  }
  if (ctx.catalogs) {
    auto c = ReadCatalogState(ctx, last_id);
    if (!c.ok()) return ReplyError(res, 503, c.status().message());
  }
  res.set_content("ready\n", "text/plain");
}

}  // namespace

void AddMetricsRoutes(httplib::Server& server, ServeContext& ctx) {
  server.Get("/metrics", [&ctx](const httplib::Request& req, httplib::Response& res) { Metrics(ctx, req, res); });
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });
  server.Get("/readyz", [&ctx](const httplib::Request&, httplib::Response& res) { Ready(ctx, res); });
}

}  // namespace fathom::web
