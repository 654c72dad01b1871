// run_policy.cpp — RunPolicy: resume a killed run, select and decide candidates, sort them,
// then check each on the live file system and act, journaled before and after, within the
// run's limits.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>
#include <tuple>

#include "core/account_names.h"
#include "fathom/event.h"
#include "policy/candidates.h"
#include "policy/live_entry.h"
#include "policy/perform.h"
#include "policy/run_command.h"

namespace fathom::policy {
namespace {

using Key = std::tuple<uint64_t, uint64_t, std::string>;  // dev, ino, path


std::string HostName() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

struct Item {
  std::string path;
  catalog::Attrs attrs;
};

void SortItems(std::vector<Item>& items, Policy::Sort sort) {
  auto key = [sort](const Item& i) -> int64_t {
    switch (sort) {
      case Policy::Sort::kLastAccess: return i.attrs.atime_ns;
      case Policy::Sort::kLastMod: return i.attrs.mtime_ns;
      case Policy::Sort::kCreation: return i.attrs.ctime_ns;
      case Policy::Sort::kSize: return -i.attrs.size;  // the largest first
      case Policy::Sort::kNone: return 0;
    }
    return 0;
  };
  std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
    const int64_t ka = key(a), kb = key(b);
    return ka != kb ? ka < kb : a.path < b.path;
  });
}

class Runner {
 public:
  Runner(const PolicyConfig& config, const Policy& policy, ActionJournal* journal, const RunOptions& options)
      : config_(config), policy_(policy), journal_(journal), options_(options) {}

  Result<RunSummary> Run(catalog::Catalog& catalog) {
    now_ = options_.now_ns != 0 ? options_.now_ns : NowNs();
    FATHOM_ASSIGN_OR_RETURN(target_, TargetCondition(options_.target, config_.fileclasses, config_.source));
    RunRecord& run = summary_.run;
    run.policy = policy_.name;
    run.user = options_.user.empty() ? names_.UserName(getuid()).value_or(std::to_string(getuid())) : options_.user;
    run.host = options_.host.empty() ? HostName() : options_.host;
    run.target = options_.target;
    run.started_ns = NowNs();
    if (!options_.dry_run) {
      FATHOM_RETURN_IF_ERROR(journal_->Lock(policy_.name));
      FATHOM_RETURN_IF_ERROR(Resume());
      if (!summary_.resumed) FATHOM_RETURN_IF_ERROR(journal_->BeginRun(run));
      if (!policy_.pre_run_command.empty()) {
        Status pre = RunCommand(policy_.pre_run_command, kCommandTimeoutNs);
        if (!pre.ok()) return End(RunRecord::State::kFailed, "pre_run_command: " + pre.message(), pre);
      }
    }
    std::vector<Item> items;
    FATHOM_RETURN_IF_ERROR(ForEachDecided(config_, policy_, catalog, target_, now_, true, names_,
                                          [&](const catalog::Visit& v, const Decision& d) {
                                            ++summary_.candidates;
                                            if (d.outcome == Decision::Outcome::kAct) {
                                              items.push_back({std::string(v.path), v.node.attrs});
                                            }
                                            return true;
                                          }));
    summary_.decided = items.size();
    SortItems(items, policy_.sort);
    for (size_t next = 0; next < items.size();) {
      if (std::optional<std::string> why = Limit(0, 0)) {
        if (!why->empty()) return End(RunRecord::State::kLimited, *why, Status::Ok());
        return End(RunRecord::State::kDone, "its goal was reached", Status::Ok());
      }
      if (std::optional<std::string> why = Interrupted()) return End(RunRecord::State::kSuspended, *why, Status::Ok());
      // The next batch: entries checked on the live file system, within the limits as if
      // every action of the batch succeeded.
      std::vector<Pending> batch;
      int64_t batch_volume = 0;
      while (next < items.size() && batch.size() < kBatch && !Limit(batch.size(), batch_volume) && !Stopped()) {
        const Item& item = items[next++];
        if (done_before_.count(Key{item.attrs.dev, item.attrs.ino, item.path}) != 0) continue;
        std::optional<Pending> p = Prepare(item);
        if (!p) continue;
        batch_volume += p->record.size;
        batch.push_back(std::move(*p));
      }
      FATHOM_RETURN_IF_ERROR(Execute(batch));
    }
    if (std::optional<std::string> why = Interrupted()) return End(RunRecord::State::kSuspended, *why, Status::Ok());
    return End(RunRecord::State::kDone, "", Status::Ok());
  }

 private:
  static constexpr int64_t kCommandTimeoutNs = 3600LL * 1'000'000'000;
  static constexpr uint64_t kSuspendAfter = 10;  // actions tried before the error rate counts
  static constexpr size_t kBatch = 256;          // actions journaled per transaction

  // Continues a run of this policy whose runner was killed: each started action is settled
  // from the file system; the entries done are not acted upon again.
  Status Resume() {
    FATHOM_ASSIGN_OR_RETURN(std::optional<RunRecord> killed, journal_->Unfinished(policy_.name));
    if (!killed) return Status::Ok();
    summary_.resumed = true;
    summary_.run = *killed;
    std::vector<JournalAction> started;
    ActionQuery of_run;
    of_run.run = killed->id;
    FATHOM_RETURN_IF_ERROR(journal_->Actions(of_run, [&](const JournalAction& a) {
      if (a.state == JournalAction::State::kStarted) started.push_back(a);
      if (a.state == JournalAction::State::kDone) done_before_.insert(Key{a.dev, a.ino, a.path});
      return true;
    }));
    for (JournalAction& a : started) {
      ++summary_.resumed_actions;
      a.finished_ns = NowNs();
      switch (SettleStarted(a)) {
        case Settled::kDone:
          a.state = JournalAction::State::kDone;
          a.result = "took effect before the runner stopped";
          done_before_.insert(Key{a.dev, a.ino, a.path});
          ++summary_.run.actions;
          summary_.run.volume += a.size;
          break;
        case Settled::kNotDone:
          a.state = JournalAction::State::kFailed;
          a.result = "interrupted before it took effect; decided again";
          break;
        case Settled::kUnknown:
          a.state = JournalAction::State::kFailed;
          a.result = "interrupted: whether it took effect is unknown; decided again";
          break;
      }
    }
    FATHOM_RETURN_IF_ERROR(journal_->Finished(started));
    return journal_->UpdateRun(summary_.run);
  }

  // Why the run must end before the next action, were `planned` more actions of
  // `planned_volume` bytes done: a limit ("..."), its goal (""), or nothing.
  std::optional<std::string> Limit(uint64_t planned, int64_t planned_volume) const {
    RunRecord run = summary_.run;
    run.actions += planned;
    run.volume += planned_volume;
    std::optional<uint64_t> max_count = policy_.max_action_count;
    if (options_.max_actions && (!max_count || *options_.max_actions < *max_count)) max_count = options_.max_actions;
    std::optional<int64_t> max_volume = policy_.max_action_volume;
    if (options_.max_volume && (!max_volume || *options_.max_volume < *max_volume)) max_volume = options_.max_volume;
    if (max_count && run.actions >= *max_count) return "the limit of " + std::to_string(*max_count) + " actions was reached";
    if (max_volume && run.volume >= *max_volume) return "the limit of " + std::to_string(*max_volume) + " bytes was reached";
    if (options_.goal_volume && run.volume >= *options_.goal_volume) return std::string();
    if (options_.goal_count && run.actions >= *options_.goal_count) return std::string();
    return std::nullopt;
  }

  bool Stopped() const { return options_.stop && options_.stop(); }

  // Why the run is cut short: a signal, or too many failures; nothing when it goes on.
  std::optional<std::string> Interrupted() const {
    const RunRecord& run = summary_.run;
    if (Stopped()) return "stopped by a signal";
    if (!Suspended()) return std::nullopt;
    return std::to_string(run.failed) + " of " + std::to_string(run.failed + run.actions) +
           " actions failed, more than suspend_error_pct " + std::to_string(policy_.suspend_error_pct) + "%";
  }

  bool Suspended() const {
    const RunRecord& run = summary_.run;
    const uint64_t tried = run.actions + run.failed;
    return policy_.suspend_error_pct > 0 && tried >= kSuspendAfter &&
           static_cast<double>(run.failed) * 100.0 > policy_.suspend_error_pct * static_cast<double>(tried);
  }

  void Report(const JournalAction& a, std::string_view note) {
    if (options_.report) options_.report(a, note);
  }

  void Skip(JournalAction& a, std::string_view why) {
    ++summary_.run.skipped;
    Report(a, why);
  }

  // Rate limit: one action per 1/rate seconds.
  void Pace() {
    if (!policy_.max_actions_per_second || *policy_.max_actions_per_second <= 0) return;
    const auto gap = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(1.0 / *policy_.max_actions_per_second));
    const auto now = std::chrono::steady_clock::now();
    if (next_slot_ > now) std::this_thread::sleep_until(next_slot_);
    next_slot_ = std::max(now, next_slot_) + gap;
  }

  // An action decided again on the live file system, journaled and performed by Execute.
  struct Pending {
    JournalAction record;
    LiveEntry entry;
    const Action* action = nullptr;
  };

  // Checks `item` on the live file system and decides it again: the action to take, or
  // nothing (skipped, failed, or reported in a dry run).
  std::optional<Pending> Prepare(const Item& item) {
    JournalAction a;
    a.run = summary_.run.id;
    a.policy = policy_.name;
    a.path = item.path;
    a.dev = item.attrs.dev;
    a.ino = item.attrs.ino;
    a.uid = item.attrs.uid;
    a.gid = item.attrs.gid;
    a.size = item.attrs.size;
    if (item.attrs.lustre) a.fid = item.attrs.lustre->fid;
    auto live = OpenLive(item.path);
    if (!live.ok()) {
      ++summary_.run.failed;
      Report(a, live.status().message());
      return std::nullopt;
    }
    LiveEntry& e = *live;
    if (e.absent == LiveEntry::Absent::kGone) return Skip(a, "skipped: no longer there"), std::nullopt;
    if (e.absent == LiveEntry::Absent::kThroughLink) {
      return Skip(a, "skipped: a directory of its path is now a symbolic link"), std::nullopt;
    }
    if (static_cast<uint64_t>(e.st.st_dev) != a.dev || static_cast<uint64_t>(e.st.st_ino) != a.ino) {
      return Skip(a, "skipped: the path now leads to another object"), std::nullopt;
    }
    catalog::Attrs now_attrs = catalog::AttrsFromStat(e.st);
    now_attrs.lustre = item.attrs.lustre;
    now_attrs.projid = item.attrs.projid;
    const Decision d = Decide(policy_, config_.fileclasses, SubjectOf(item.path, now_attrs, names_), now_);
    if (d.outcome != Decision::Outcome::kAct) return Skip(a, "skipped: no longer matches (" + d.why + ")"), std::nullopt;
    a.rule = d.rule != nullptr ? d.rule->name : "";
    a.action = std::string(ActionName(d.action->kind));
    a.destination = DestinationOf(*d.action, item.path);
    a.uid = now_attrs.uid;
    a.gid = now_attrs.gid;
    a.size = now_attrs.size;
    a.started_ns = NowNs();
    if (options_.dry_run) {
      ++summary_.run.actions;
      summary_.run.volume += a.size;
      Report(a, "would " + a.action);
      return std::nullopt;
    }
    return Pending{std::move(a), std::move(e), d.action};
  }

  // Journals the batch as started (one transaction), performs each action, and journals how
  // each ended (one transaction). Actions left when the run is stopped or suspended are
  // journaled as not attempted (and not counted).
  Status Execute(std::vector<Pending>& batch) {
    if (batch.empty()) return Status::Ok();
    std::vector<JournalAction> records;
    records.reserve(batch.size());
    for (Pending& p : batch) records.push_back(p.record);
    FATHOM_RETURN_IF_ERROR(journal_->Started(records));
    for (size_t k = 0; k < batch.size(); ++k) {
      JournalAction& a = records[k];
      if (Stopped() || Suspended()) {
        a.state = JournalAction::State::kFailed;
        a.result = Stopped() ? "not attempted: the run was stopped" : "not attempted: the run was suspended";
        a.finished_ns = NowNs();
        continue;
      }
      Pace();
      Result<std::string> done = Perform(*batch[k].action, batch[k].entry, a);
      a.finished_ns = NowNs();
      a.state = done.ok() ? JournalAction::State::kDone : JournalAction::State::kFailed;
      a.result = done.ok() ? *done : done.status().message();
      if (done.ok()) {
        ++summary_.run.actions;
        summary_.run.volume += a.size;
      } else {
        ++summary_.run.failed;
      }
      Report(a, done.ok() ? a.action : "failed: " + a.result);
    }
    FATHOM_RETURN_IF_ERROR(journal_->Finished(records));
    if (NowNs() - last_update_ns_ > 1'000'000'000) {
      last_update_ns_ = NowNs();
      FATHOM_RETURN_IF_ERROR(journal_->UpdateRun(summary_.run));
    }
    return Status::Ok();
  }

  // Records the run's end (not in a dry run) and runs the post-run command.
  Result<RunSummary> End(RunRecord::State state, std::string message, Status error) {
    RunRecord& run = summary_.run;
    run.state = state;
    run.message = std::move(message);
    run.finished_ns = NowNs();
    if (options_.dry_run) return summary_;
    if (error.ok() && !policy_.post_run_command.empty()) {
      Status post = RunCommand(policy_.post_run_command, kCommandTimeoutNs);
      if (!post.ok()) run.message += (run.message.empty() ? "" : "; ") + std::string("post_run_command: ") + post.message();
    }
    FATHOM_RETURN_IF_ERROR(journal_->UpdateRun(run));
    if (!error.ok()) return error;
    return summary_;
  }

  const PolicyConfig& config_;
  const Policy& policy_;
  ActionJournal* journal_;
  const RunOptions& options_;
  std::optional<condition::Condition> target_;
  int64_t now_ = 0;
  NameCache names_;
  RunSummary summary_;
  std::set<Key> done_before_;
  std::chrono::steady_clock::time_point next_slot_{};
  int64_t last_update_ns_ = 0;
};

}  // namespace

Result<RunSummary> RunPolicy(const PolicyConfig& config, const Policy& policy, catalog::Catalog& catalog,
                             ActionJournal* journal, const RunOptions& options) {
  if (!options.dry_run && journal == nullptr) return Status::Error("a policy run needs the action journal");
  Runner runner(config, policy, journal, options);
  return runner.Run(catalog);
}

Result<PolicyCheck> CheckPolicy(const PolicyConfig& config, const Policy& policy, catalog::Catalog& catalog,
                                const std::string& target_text, int64_t now_ns) {
  FATHOM_ASSIGN_OR_RETURN(std::optional<condition::Condition> target, TargetCondition(target_text, config.fileclasses, config.source));
  PolicyCheck check;
  check.policy = policy.name;
  for (const Rule& r : policy.rules) check.rules.push_back({r.name});
  NameCache names;
  FATHOM_RETURN_IF_ERROR(ForEachDecided(config, policy, catalog, target, now_ns, false, names,
                                        [&](const catalog::Visit& v, const Decision& d) {
                                          ++check.selected;
                                          using O = Decision::Outcome;
                                          if (d.outcome == O::kOutOfScope) ++check.out_of_scope;
                                          if (d.outcome == O::kIgnored) {
                                            ++check.ignored;
                                            ++check.ignored_by[d.why];
                                          }
                                          if (d.outcome == O::kNoRule) ++check.no_rule;
                                          if (d.rule != nullptr) {
                                            RuleCount& c = check.rules[static_cast<size_t>(d.rule - policy.rules.data())];
                                            if (d.outcome == O::kAct) {
                                              ++c.act;
                                              c.act_volume += v.node.attrs.size;
                                            } else {
                                              ++c.condition_false;
                                            }
                                          }
                                          return true;
                                        }));
  return check;
}

}  // namespace fathom::policy
