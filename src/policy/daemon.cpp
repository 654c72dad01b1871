// daemon.cpp — RunDaemon: every trigger on its own schedule; a run per firing. The alerts on
// theirs, and soon after the catalog changed (its count of commits moved).
#include <chrono>
#include <thread>

#include "fathom/event.h"
#include "fathom/policy.h"

namespace fathom::policy {
namespace {

using Clock = std::chrono::steady_clock;

// A policy's trigger, or (policy null) the alerts.
struct Scheduled {
  const Policy* policy;
  const Trigger* trigger;
  Clock::time_point due;
  int64_t every_ns;
};


Result<std::unique_ptr<catalog::Catalog>> OpenReader(const DaemonOptions& o) {
  catalog::CatalogOptions copts;
  copts.uri = o.catalog_uri;
  copts.read_only = true;
  return catalog::Catalog::Open(copts);
}

// One check of the alerts; when it succeeds, `commits` is the catalog's count of commits
// before it (what the check saw at least), for the change watch.
Status CheckAlertsNow(const PolicyConfig& config, const DaemonOptions& o, std::string_view why, uint64_t& commits) {
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Catalog> catalog, OpenReader(o));
  FATHOM_ASSIGN_OR_RETURN(const uint64_t before, catalog->Commits());
  FATHOM_ASSIGN_OR_RETURN(AlertCheck check, CheckAlerts(config, *catalog, o.catalog_uri, NowNs()));
  commits = before;
  if (o.log) {
    size_t raised = 0;
    for (const AlertEvent& e : check.events) raised += e.raised;
    o.log("alerts (" + std::string(why) + "): " + std::to_string(raised) + " raised, " +
          std::to_string(check.events.size() - raised) + " cleared, " + std::to_string(check.active) + " active");
    for (const std::string& e : check.errors) o.log("alerts: not delivered (sent again at the next check): " + e);
  }
  return Status::Ok();
}

// Evaluates one trigger and runs its policy for each firing.
Status Evaluate(const PolicyConfig& config, const Scheduled& s, const DaemonOptions& o) {
  auto log = [&](const std::string& line) {
    if (o.log) o.log(line);
  };
  catalog::CatalogOptions copts;
  copts.uri = o.catalog_uri;
  copts.read_only = true;
  FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<catalog::Catalog> catalog, catalog::Catalog::Open(copts));
  FATHOM_ASSIGN_OR_RETURN(std::vector<Firing> firings, EvaluateTrigger(*s.trigger, *catalog));
  if (firings.empty()) log("policy " + s.policy->name + ": no usage at or over its high mark");
  for (const Firing& f : firings) {
    if (o.stop && o.stop()) break;
    log("policy " + s.policy->name + ": " + f.why + ": running" + (f.target.empty() ? "" : " on " + f.target));
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<ActionJournal> journal, ActionJournal::Open(o.catalog_uri, false));
    RunOptions run;
    run.target = f.target;
    run.goal_volume = f.goal_volume;
    run.goal_count = f.goal_count;
    run.stop = o.stop;
    run.report = o.report;
    auto summary = RunPolicy(config, *s.policy, *catalog, journal.get(), run);
    if (!summary.ok()) {
      log("policy " + s.policy->name + ": run failed: " + summary.status().message());
      continue;
    }
    const RunRecord& r = summary->run;
    log("policy " + s.policy->name + ": run " + std::to_string(r.id) + " " + std::string(StateName(r.state)) + ": " +
        std::to_string(r.actions) + " actions, " + std::to_string(r.failed) + " failed, " + std::to_string(r.skipped) +
        " skipped, " + std::to_string(r.volume) + " bytes" + (r.message.empty() ? "" : "; " + r.message));
  }
  return Status::Ok();
}

// Whether the catalog committed anything since the alerts' last check: its count of commits,
// read through a reader kept open between looks (opened again after an error).
class ChangeWatch {
 public:
  explicit ChangeWatch(const DaemonOptions& o) : o_(o) {}
  bool Changed(uint64_t checked) {
    if (reader_ == nullptr) {
      auto opened = OpenReader(o_);
      if (!opened.ok()) return false;  // the next check on schedule says why
      reader_ = std::move(*opened);
    }
    auto commits = reader_->Commits();
    if (!commits.ok()) {
      reader_.reset();
      return false;
    }
    return *commits != checked;
  }

 private:
  const DaemonOptions& o_;
  std::unique_ptr<catalog::Catalog> reader_;
};

}  // namespace

Status RunDaemon(const PolicyConfig& config, const DaemonOptions& o) {
  std::vector<Scheduled> schedule;
  const Clock::time_point start = Clock::now();
  for (const Policy& p : config.policies) {
    for (const Trigger& t : p.triggers) schedule.push_back({&p, &t, start, t.check_every_ns});
  }
  if (!config.alerts.empty()) schedule.push_back({nullptr, nullptr, start, config.alert_check_every_ns});
  if (schedule.empty()) {
    return Status::Error(config.source + ": no policy has a trigger and there is no alert: give one (trigger: {on: ...}, "
                                         "alerts: ...)");
  }
  // Alerts on change: the count of commits looked at every alert_on_change; a move since the
  // last check brings the next check forward to now.
  const bool watch = !config.alerts.empty() && config.alert_on_change_ns > 0;
  ChangeWatch changes(o);
  uint64_t checked_commits = 0;
  Clock::time_point look = start + std::chrono::nanoseconds(config.alert_on_change_ns);
  bool on_change = false;
  for (;;) {
    Clock::time_point next = Clock::time_point::max();
    if (watch && !o.once && Clock::now() >= look) {
      on_change = changes.Changed(checked_commits);
      look = Clock::now() + std::chrono::nanoseconds(config.alert_on_change_ns);
    }
    for (Scheduled& s : schedule) {
      if (o.stop && o.stop()) return Status::Ok();
      if (s.policy == nullptr && on_change) s.due = std::min(s.due, Clock::now());
      if (Clock::now() >= s.due) {
        const std::string_view why = on_change ? "the catalog changed" : "on schedule";
        Status st = s.policy != nullptr ? Evaluate(config, s, o) : CheckAlertsNow(config, o, why, checked_commits);
        if (s.policy == nullptr) on_change = false;
        if (!st.ok() && o.log) o.log((s.policy != nullptr ? "policy " + s.policy->name : std::string("alerts")) + ": " + st.message());
        s.due = Clock::now() + std::chrono::nanoseconds(s.every_ns);
      }
      next = std::min(next, s.due);
    }
    if (watch) next = std::min(next, look);
    if (o.once) return Status::Ok();
    while (Clock::now() < next) {
      if (o.stop && o.stop()) return Status::Ok();
      std::this_thread::sleep_for(std::min<Clock::duration>(next - Clock::now(), std::chrono::milliseconds(200)));
    }
  }
}

}  // namespace fathom::policy
