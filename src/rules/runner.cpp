// runner.cpp — Runner::Run: read, match, coalesce, record with the cursor, acknowledge.
#include "rules/runner.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include "policy/alert_sinks.h"
#include "rules/coalescer.h"
#include "rules/actions/event_json.h"
#include "rules/loop_guards.h"
#include "rules/matcher.h"
#include "rules/workers.h"

namespace fathom::rules {
namespace {

// A tripped breaker, in the log and to every configured alert sink.
void Announce(const RuleSet& set, const std::string& rule, const std::string& reason, int64_t now_ns,
              const std::function<void(const std::string&)>& log) {
  if (log) log("rules: rule " + rule + " is paused: " + reason);
  const std::vector<policy::AlertEvent> events = {{"rules breaker", rule, reason, true}};
  const policy::AlertSinks& sinks = set.alert_sinks;
  std::vector<Status> sent;
  if (!sinks.log_file.empty()) sent.push_back(policy::SendToLog(sinks.log_file, events, now_ns));
  if (sinks.mail) sent.push_back(policy::SendMail(*sinks.mail, events, now_ns));
  if (sinks.webhook) sent.push_back(policy::SendWebhook(*sinks.webhook, events, now_ns));
  for (const Status& s : sent) {
    if (!s.ok() && log) log("rules: the alert that rule " + rule + " is paused was not sent: " + s.message());
  }
}

}  // namespace

Runner::Runner(const RuleSet& set, Outbox& outbox, catalog::Catalog* catalog, RunnerOptions options)
    : set_(set), outbox_(outbox), catalog_(catalog), options_(std::move(options)) {}

Status Runner::Run(catalog::EventFeed& feed, const std::atomic<bool>& stop) {
  auto clock = [&] { return options_.clock ? options_.clock() : NowNs(); };
  for (const Rule& r : set_.rules) {
    // A root runner runs commands as their rules' users; as root only when a rule says so.
    const auto* command = std::get_if<CommandAction>(&r.action);
    if (command != nullptr && command->run_as_uid.value_or(geteuid()) == 0 && !command->allow_root) {
      return Status::Error(set_.source + ": rule " + r.name +
                           ": its command would run as root (the runner runs as root): give run_as: USER, or "
                           "allow_root: true in its action to run it as root");
    }
    if (const auto* hook = std::get_if<WebhookAction>(&r.action)) {
      Status s = CheckWebhookAction(*hook);
      if (!s.ok()) return Status::Error(set_.source + ": rule " + r.name + ": " + s.message());
    }
  }
  std::vector<Coalescing> coalescing;
  for (const Rule& r : set_.rules) coalescing.push_back(r.coalescing);
  Coalescer coalescer(std::move(coalescing));
  Matcher matcher(set_, catalog_);
  LoopGuards guards(set_, processes_);
  std::map<uint64_t, int> depths;  // events made by actions: the depth of the deliveries they make
  Workers workers(set_, outbox_, options_, counters_, processes_);
  workers.Start(set_.concurrency);

  FATHOM_ASSIGN_OR_RETURN(uint64_t cursor, outbox_.Cursor(options_.name));
  uint64_t last_read = cursor;
  catalog::FeedBatch batch;
  std::vector<size_t> taken;
  std::vector<Group> ready;
  Status failed;
  while (!stop.load()) {
    // Paused rules (a breaker here, `fathom rules resume` from anywhere).
    FATHOM_ASSIGN_OR_RETURN(std::vector<PausedRule> paused, outbox_.Paused());
    std::set<std::string> paused_names;
    for (const PausedRule& p : paused) paused_names.insert(p.rule);
    for (size_t r = 0; r < set_.rules.size(); ++r) guards.SetPaused(r, paused_names.count(set_.rules[r].name) != 0);
    workers.SetPaused(std::move(paused_names));
    // Back-pressure: no reading while the actions are far behind.
    FATHOM_ASSIGN_OR_RETURN(uint64_t unfinished, outbox_.Unfinished());
    if (unfinished >= options_.max_unfinished) {
      std::this_thread::sleep_for(options_.wait);
      continue;
    }
    // An idle read waits no longer than the next settle window or batch due to close.
    std::chrono::milliseconds wait = options_.wait;
    if (!coalescer.empty()) {
      if (const std::optional<int64_t> due = coalescer.NextDue()) {
        const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(*due - clock()));
        wait = std::clamp(until + std::chrono::milliseconds(1), std::chrono::milliseconds(1), options_.wait);
      }
    }
    failed = feed.Next(batch, options_.max_batch, wait);
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
      if (options_.explain && options_.log) matcher.ExplainAll(e, now, options_.log);
      const std::optional<EventCause> cause = guards.CauseOf(e);
      for (size_t r : taken) {
        if (cause && guards.Ignores(r, *cause)) {
          ++counters_.own_ignored;
          if (options_.explain && options_.log) {
            options_.log("event " + std::to_string(e.id) + ": rule " + set_.rules[r].name +
                         " leaves it alone: its own action made it" +
                         (cause->delivery.empty() ? " (outputs)" : " (delivery " + cause->delivery + ")"));
          }
          continue;
        }
        coalescer.Add(r, e);
        ++counters_.matched;
      }
      if (cause) depths[e.id] = cause->depth + 1;
    }
    // Reading a backlog, the stream's time settles paths; caught up, the wall clock does.
    const bool caught_up = batch.events.size() < options_.max_batch;
    ready.clear();
    coalescer.TakeReady(caught_up ? clock() : stream_now, ready);
    std::vector<NewDelivery> deliveries;
    std::vector<std::pair<std::string, std::string>> trips;  // (rule, why)
    for (Group& g : ready) {
      const Rule& rule = set_.rules[g.rule];
      int depth = 0;
      for (uint64_t id : g.ids) {
        auto it = depths.find(id);
        if (it != depths.end()) depth = std::max(depth, it->second);
      }
      const int64_t created = clock();
      LoopGuards::Admission admitted = guards.Admit(g.rule, g.key, depth, created);
      if (!admitted.dead_reason.empty()) ++counters_.too_deep;
      if (admitted.not_before_ns > created) ++counters_.rate_limited;
      if (!admitted.trip.empty()) trips.emplace_back(rule.name, admitted.trip);
      deliveries.push_back({rule.name, rule.version, std::move(g.ids), std::move(g.key), EventsJson(g.events), created,
                            depth, admitted.not_before_ns, std::move(admitted.dead_reason)});
    }
    const std::optional<uint64_t> held = coalescer.HeldFrom();
    const uint64_t through = held ? std::min(*held - 1, last_read) : last_read;
    // A tripped rule is paused before its deliveries are recorded: none of them starts.
    for (const auto& [rule, why] : trips) {
      failed = outbox_.Pause(rule, why, clock());
      if (!failed.ok()) break;
      workers.Pause(rule);
      Announce(set_, rule, why, clock(), options_.log);
    }
    if (!failed.ok()) break;
    if (!deliveries.empty() || through != cursor) {
      failed = outbox_.Record(deliveries, options_.name, through);
      if (!failed.ok()) break;
      counters_.recorded += deliveries.size();
      depths.erase(depths.begin(), depths.upper_bound(through));
      if (through != cursor) {
        cursor = through;
        failed = feed.Acknowledge(cursor);
        if (!failed.ok()) break;
      }
      workers.Wake();
    }
    if (options_.until_idle && batch.events.empty() && coalescer.empty()) {
      FATHOM_ASSIGN_OR_RETURN(uint64_t left, outbox_.Unfinished());
      if (left == 0 && workers.running() == 0) break;
    }
  }
  workers.Stop();
  return failed;
}

}  // namespace fathom::rules
