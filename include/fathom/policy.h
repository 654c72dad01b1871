// policy.h — fathom's policy configuration (docs/policies.md): one YAML file whose
// `fileclasses:` name conditions in the condition language (fathom/condition.h), combinable
// as unions, intersections and complements of other classes:
//
//   fileclasses:
//     scratch_tmp: "type == file and name == '*.tmp'"
//     protected:   "tree == /scratch/keep"
//     big:         "size > 1GB"
//     big_tmp:     {inter: [big, scratch_tmp]}
//     unprotected: {not: protected}
//     cleanable:   {union: [scratch_tmp, big_tmp]}
//
// A class may also name another inside its condition (`fileclass == big`). Loading checks
// the whole file before anything uses it: YAML syntax, unknown keys, every condition,
// every class named (it must be defined), and that no class is defined through itself;
// errors name the file, the line and the column.
//
// Ownership: a PolicyConfig owns its classes; FileClasses is immutable once loaded, so its
// methods may be called from several threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/condition.h"
#include "fathom/status.h"

namespace fathom::policy {

class FileClasses {
 public:
  struct Definition;  // file_classes.cpp

  FileClasses();
  ~FileClasses();
  FileClasses(FileClasses&&) noexcept;
  FileClasses& operator=(FileClasses&&) noexcept;

  bool Has(std::string_view name) const;
  std::vector<std::string> Names() const;  // sorted
  // Whether the subject is in class `name` (false for a class not defined). The subject's
  // own in_class is ignored: classes named inside conditions are answered by these classes.
  bool Contains(std::string_view name, const condition::Subject& subject, int64_t now_ns) const;
  // The catalog index bounds every member of `name` satisfies (nothing for unions and
  // complements).
  void Narrow(std::string_view name, catalog::Selection& selection, int64_t now_ns) const;

 private:
  friend class ConfigLoader;
  std::map<std::string, std::unique_ptr<Definition>, std::less<>> classes_;
};

// Ok when `classes` (read from `source`) define `name`; else an error naming the classes
// defined: `SOURCE defines no file class "NAME" (it defines: a, b)`.
Status RequireClass(const FileClasses& classes, std::string_view source, std::string_view name);

// What a policy does to an entry it selects. Commands run without a shell: each argument is
// one word, and `{path}`, `{fid}`, `{uid}`, `{gid}`, `{size}`, `{name}` and `{parent}` are
// replaced inside it by the entry's values.
struct Action {
  enum class Kind { kDelete, kRmdir, kMove, kCopy, kCommand, kLog } kind = Kind::kLog;
  std::string destination;                 // kMove, kCopy: a directory
  bool verify = true;                      // kCopy: compare checksums after copying
  std::vector<std::string> argv;           // kCommand
  int64_t timeout_ns = 300'000'000'000;    // kCommand: killed past it
};

// A rule: the entries of its target classes (any entry without one) that satisfy its
// condition get its action (else the policy's default).
struct Rule {
  std::string name;
  std::vector<std::string> target_fileclasses;
  std::optional<condition::Condition> condition;
  std::optional<Action> action;
};

// When a policy runs: on a schedule, or when a usage passes its high mark (then it acts until
// the usage is back under the low mark). Usage thresholds are a percentage of the capacity,
// a volume in bytes, or a count of entries.
struct Threshold {
  enum class Unit { kPercent, kBytes, kEntries } unit = Unit::kPercent;
  double value = 0;
};
struct Trigger {
  enum class On { kPeriodic, kGlobalUsage, kUserUsage, kGroupUsage, kOstUsage, kPoolUsage } on = On::kPeriodic;
  int64_t check_every_ns = 0;
  std::optional<Threshold> high, low;      // usage triggers
  // Which users, groups, OST indexes or pools ({} = each); for global_usage, paths on the
  // file systems to watch ({} = those holding the catalog's roots).
  std::vector<std::string> targets;
  // What a percentage is of: required for ost_usage and pool_usage (each OST's or pool's
  // size); for user_usage and group_usage a quota-like limit instead of the file system's size.
  std::optional<int64_t> capacity;
};

struct Policy {
  std::string name;
  Action default_action;
  std::optional<condition::Condition> scope;         // entries outside it are never considered
  std::vector<condition::Condition> ignore;          // entries matching any are left alone
  std::vector<std::string> ignore_fileclasses;
  std::vector<Rule> rules;                           // the first whose targets hold the entry decides
  enum class Sort { kNone, kLastAccess, kLastMod, kCreation, kSize } sort = Sort::kNone;
  std::optional<uint64_t> max_action_count;
  std::optional<int64_t> max_action_volume;          // bytes
  std::optional<double> max_actions_per_second;
  double suspend_error_pct = 0;                      // 0: never suspend
  std::vector<std::string> pre_run_command, post_run_command;
  std::vector<Trigger> triggers;
};

// What a policy decides for one entry, and why (for `policy check` and dry runs).
struct Decision {
  enum class Outcome { kOutOfScope, kIgnored, kNoRule, kConditionFalse, kAct } outcome = Outcome::kNoRule;
  const Rule* rule = nullptr;      // the rule whose targets hold the entry
  const Action* action = nullptr;  // kAct: the rule's action or the policy's default
  std::string why;                 // "ignored by fileclass protected", "rule old_tmp"...
};
Decision Decide(const Policy& policy, const FileClasses& classes, const condition::Subject& subject,
                int64_t now_ns);

// An alert: a condition on entries, or a usage at or over a high mark (a trigger's
// measurement); raised once per (alert, entry or usage) until it clears (docs/policies.md).
struct AlertRule {
  std::string name;
  std::optional<condition::Condition> condition;   // on entries
  std::optional<Trigger> usage;                    // on a usage (its high mark only)
  std::vector<std::string> sinks;                  // log, mail, webhook ({} = every sink configured)
};

// Where alerts go: a log file, e-mail through the local sendmail interface (sendmail -t -oi),
// an HTTP POST of JSON (signed as Standard Webhooks when given a secret).
struct AlertSinks {
  std::string log_file;
  struct Mail {
    std::vector<std::string> to;
    std::string from = "fathom";
    std::string sendmail = "/usr/sbin/sendmail";
  };
  std::optional<Mail> mail;
  struct Webhook {
    std::string url;
    std::string secret_file;             // "": unsigned
    int64_t timeout_ns = 10'000'000'000;
  };
  std::optional<Webhook> webhook;
};

struct PolicyConfig {
  std::string source;  // the file, for messages
  FileClasses fileclasses;
  std::vector<Policy> policies;
  std::vector<AlertRule> alerts;
  AlertSinks alert_sinks;
  int64_t alert_check_every_ns = 60'000'000'000;   // alert_check_every
  int64_t alert_on_change_ns = 5'000'000'000;      // alert_on_change (0: off)
  const Policy* Find(std::string_view name) const;
};

// Reads and checks `path`; the error names the file, line and column, and what is wrong.
Result<PolicyConfig> LoadPolicyConfig(const std::string& path);
// The same from text; `source` names it in errors.
Result<PolicyConfig> ParsePolicyConfig(std::string_view yaml, std::string_view source);

// ---------------------------------------------------------------------------------------
// The action journal: every run of a policy and every action it takes, kept in the catalog's
// own database (tables policy_runs and policy_actions, beside the catalog's; docs/policies.md).
// An action is written as started, durably, before it touches the file system, and as done
// or failed after; a run killed between the two is resumed by the next run of its policy,
// which settles each started action from the live file system before going on.
//
// Ownership: the journal owns its own connection to the database. Threading: one thread at a
// time. Any number of readers may read it while one runner writes.

struct RunRecord {
  enum class State { kRunning, kDone, kSuspended, kLimited, kFailed };
  int64_t id = 0;
  std::string policy;
  std::string user;                // who ran it
  std::string host;
  std::string target;              // --target ("" : every entry)
  int64_t started_ns = 0;
  int64_t finished_ns = 0;         // 0 while running (or killed)
  State state = State::kRunning;
  uint64_t actions = 0;            // done
  uint64_t failed = 0;
  uint64_t skipped = 0;            // no longer there, changed, or no longer matching
  int64_t volume = 0;              // bytes of the entries acted upon
  std::string message;             // why it ended so (suspended, a limit, an error)
};
std::string_view StateName(RunRecord::State state);

struct JournalAction {
  enum class State { kStarted, kDone, kFailed };
  int64_t id = 0;
  int64_t run = 0;
  std::string policy;
  std::string rule;
  std::string action;              // delete, rmdir, move, copy, command, log
  std::string path;                // the entry's path when acted upon
  std::string destination;         // move, copy: where it went
  uint64_t dev = 0, ino = 0;       // its identity
  std::string fid;                 // Lustre's, where known
  uint32_t uid = 0, gid = 0;
  int64_t size = 0;
  State state = State::kStarted;
  std::string result;              // the error, or what the action reported
  int64_t started_ns = 0;
  int64_t finished_ns = 0;
};
std::string_view StateName(JournalAction::State state);

// Which actions to read, newest first.
struct ActionQuery {
  std::optional<int64_t> run;
  std::string policy;              // "": every policy
  int64_t since_ns = 0;            // started at or after
  std::string path;                // "": any; else this path or, with `fid`, this FID
  std::string action;              // "": any kind
  std::optional<JournalAction::State> state;
  std::optional<int64_t> before_id;  // only actions with a smaller id (the next page's cursor)
  size_t limit = 0;                  // at most this many (0: all)
};

class ActionJournal {
 public:
  virtual ~ActionJournal() = default;
  // The journal in the catalog at `catalog_uri` (sqlite:FILE, FILE, postgresql://...): the
  // catalog must exist; its journal tables are made on first use by a writer.
  static Result<std::unique_ptr<ActionJournal>> Open(const std::string& catalog_uri, bool read_only);

  // Takes the lock of `policy`'s runs on this catalog for the journal's life: two runners of
  // one policy never run at once (the second gets an error naming the policy). A runner that
  // dies releases it.
  virtual Status Lock(std::string_view policy) = 0;
  // The newest run of `policy` that never ended (its runner was killed), if any.
  virtual Result<std::optional<RunRecord>> Unfinished(std::string_view policy) = 0;
  // Records a new run (its id is set).
  virtual Status BeginRun(RunRecord& run) = 0;
  // Records a run's counts and state (its end when finished_ns is set).
  virtual Status UpdateRun(const RunRecord& run) = 0;
  // Records actions as started (their ids are set), all in one transaction: durable when
  // this returns.
  virtual Status Started(std::span<JournalAction> actions) = 0;
  // Records how started actions ended (by id: state, result, finished_ns), in one
  // transaction: durable when this returns.
  virtual Status Finished(std::span<const JournalAction> actions) = 0;
  virtual Status Actions(const ActionQuery& query, const std::function<bool(const JournalAction&)>& fn) = 0;
  // Runs started at or after `since_ns` ("" policy: all), newest first.
  virtual Status Runs(std::string_view policy, int64_t since_ns,
                      const std::function<bool(const RunRecord&)>& fn) = 0;
};

// ---------------------------------------------------------------------------------------
// Running a policy: its candidates are selected from the catalog through its indexes (the
// policy's scope, rules and target narrow the selection), decided (Decide), sorted, then each
// is checked again on the live file system (reached without following any symbolic link; it
// must be the same object, and still be decided the same way) and acted upon, journaled
// before and after. Limits (count, volume, rate) and suspend_error_pct end a run early.

struct RunOptions {
  bool dry_run = false;            // decide and report; write nothing anywhere, run nothing
  // Only these entries: user:U, group:G, ost:N, pool:P, class:C, path:P (a tree).
  std::string target;
  std::optional<uint64_t> max_actions;  // beside the policy's own limits: the lower wins
  std::optional<int64_t> max_volume;
  // Stop once this much has been acted upon (bytes; a usage trigger's goal), if set.
  std::optional<int64_t> goal_volume;
  std::optional<uint64_t> goal_count;
  int64_t now_ns = 0;              // ages are taken at this time (0: the clock at the start)
  std::string user, host;          // recorded in the journal (empty: the process's)
  // Told of each candidate acted upon or skipped (and, in a dry run, of what would be done).
  std::function<void(const JournalAction& action, std::string_view note)> report;
  // Asked between actions; true stops the run (a signal).
  std::function<bool()> stop;
};

struct RunSummary {
  RunRecord run;                   // in a dry run: the counts it would have (id 0)
  uint64_t candidates = 0;         // entries the catalog selected
  uint64_t decided = 0;            // of them, decided to be acted upon
  uint64_t resumed_actions = 0;    // started actions of a killed run settled first
  bool resumed = false;            // a killed run was continued
};

// Runs `policy` of `config` on `catalog` (read-only is enough), journaling in `journal`
// (null for a dry run). Errors are of the run as a whole (the catalog cannot be read, the
// journal cannot be written, the pre-run command failed); actions' failures are counted.
Result<RunSummary> RunPolicy(const PolicyConfig& config, const Policy& policy, catalog::Catalog& catalog,
                             ActionJournal* journal, const RunOptions& options);

// ---------------------------------------------------------------------------------------
// Triggers: when a policy runs by itself, and on what. A usage trigger measures, when
// evaluated, the file systems holding the catalog's roots (global_usage: statvfs, as df) or
// the catalog's kept accounting (user_usage, group_usage: the sizes of each owner's entries;
// a percentage is of the file system's capacity) or its Lustre layouts (ost_usage: each
// file's size shared among its OSTs; pool_usage), and asks for a run of the policy on each
// user, group, OST, pool or file system at or over its high mark, with the goal of bringing
// it down to its low mark. A periodic trigger asks for a run of the whole policy.

struct Firing {
  std::string target;                   // RunOptions::target ("": the whole policy)
  std::optional<int64_t> goal_volume;   // bytes to act upon to reach the low mark
  std::optional<uint64_t> goal_count;   // entries to act upon to reach it
  std::string why;                      // "user 1001: 6.00 GB, at or over 5.00 GB (down to 2.00 GB)"
};
Result<std::vector<Firing>> EvaluateTrigger(const Trigger& trigger, catalog::Catalog& catalog);

// `fathom policy daemon`: evaluates every trigger of every policy at start and then every
// check_every, and runs the policy for each firing (journaled like any run); checks the
// alerts at start and then every alert_check_every. The catalog is
// opened again for each evaluation, so that it sees what a follower applied meanwhile.
struct DaemonOptions {
  std::string catalog_uri;
  bool once = false;                    // evaluate each trigger once, act, and return
  std::function<bool()> stop;           // asked often; true ends the daemon
  std::function<void(const std::string&)> log;
  std::function<void(const JournalAction&, std::string_view)> report;  // of every run
};
Status RunDaemon(const PolicyConfig& config, const DaemonOptions& options);

// ---------------------------------------------------------------------------------------
// Alerts: each alert's matches now (the entries its condition holds for, through the
// catalog's indexes; or the usages at or over its high mark) compared with those it raised
// before, kept in the catalog's database (table alert_state): a new match is raised once, a
// match gone is cleared. What a check raised or cleared is sent to the sinks in one batched
// message per sink; what a sink could not take is sent again by the next check.

struct AlertEvent {
  std::string alert;
  std::string key;      // the entry's path, or the usage's target (user:alice)
  std::string detail;   // "size 1.10 TB, owner alice", or the usage measured
  bool raised = true;   // false: cleared
};
struct AlertCheck {
  std::vector<AlertEvent> events;  // raised and cleared by this check, and sent again
  uint64_t active = 0;             // alerts raised and not cleared after the check
  std::vector<std::string> errors; // sinks that failed (their events are sent next time)
};
Result<AlertCheck> CheckAlerts(const PolicyConfig& config, catalog::Catalog& catalog, const std::string& catalog_uri,
                               int64_t now_ns);

// An alert raised and not cleared, as the last check left it.
struct ActiveAlert {
  std::string alert;
  std::string key;         // the entry's path, or the usage's target (user:alice)
  std::string detail;
  int64_t raised_ns = 0;
  bool notified = false;   // delivered to its sinks (false: sent again at the next check)
};
// The alerts raised and not cleared in the catalog at `catalog_uri`, by alert and key, read
// without writing anything; none when no check ever ran there.
Result<std::vector<ActiveAlert>> ActiveAlerts(const std::string& catalog_uri);

// What `fathom policy check` shows: for each policy, how many entries each rule would act
// upon now, leave because its condition is false, and how many are ignored or untargeted.
struct RuleCount {
  std::string rule;
  uint64_t act = 0, condition_false = 0;
  int64_t act_volume = 0;
};
struct PolicyCheck {
  std::string policy;
  uint64_t selected = 0, out_of_scope = 0, ignored = 0, no_rule = 0;
  std::vector<RuleCount> rules;     // in the policy's order
  std::map<std::string, uint64_t> ignored_by;  // the reason (condition or class) -> entries
};
Result<PolicyCheck> CheckPolicy(const PolicyConfig& config, const Policy& policy, catalog::Catalog& catalog,
                                const std::string& target, int64_t now_ns);

}  // namespace fathom::policy
