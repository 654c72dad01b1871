// `fathom policy check|run|log` — policies on the catalog (src/policy/, docs/policies.md).
#include <atomic>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "condition/units.h"
#include "fathom/event.h"
#include "fathom/policy.h"
#include "policy/policy_tables.h"

namespace fathom::cli {
namespace {

struct PolicyArgs {
  std::string config;
  std::string catalog;
  std::string name;                // check: "" = every policy
  std::string target;
  bool dry_run = false;
  bool list = false;
  std::string max_actions, max_volume;
  std::string since;
  int64_t run = 0;
  bool runs = false;
  bool once = false;
  size_t limit = 0;
  bool csv = false, json = false, no_header = false;
};

catalog::report::TableFormat FormatOf(const PolicyArgs& a) {
  return a.json ? catalog::report::TableFormat::kJson
         : a.csv ? catalog::report::TableFormat::kCsv
                 : catalog::report::TableFormat::kText;
}

void Print(const catalog::report::Table& table, const PolicyArgs& a) {
  std::string text = catalog::report::Render(table, FormatOf(a), !a.no_header);
  if (!text.empty() && text.back() != '\n') text += '\n';
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

Result<policy::PolicyConfig> Load(const PolicyArgs& a) {
  auto config = policy::LoadPolicyConfig(a.config);
  if (!config.ok()) return config.status();
  if (!a.name.empty() && config->Find(a.name) == nullptr) {
    std::string known;
    for (const policy::Policy& p : config->policies) known += (known.empty() ? "" : ", ") + p.name;
    return Status::Error("no policy '" + a.name + "' in " + a.config + " (defined: " + (known.empty() ? "none" : known) + ")");
  }
  return config;
}

int RunCheck(const PolicyArgs& a) {
  auto config = Load(a);
  if (!config.ok()) return Fail("policy check", config.status().message(), kExitUsage);
  auto catalog = OpenCatalog(a.catalog, true);
  if (!catalog.ok()) return Fail("policy check", catalog.status().message(), kExitFailure);
  const int64_t now = NowNs();
  for (const policy::Policy& p : config->policies) {
    if (!a.name.empty() && p.name != a.name) continue;
    auto check = policy::CheckPolicy(*config, p, **catalog, a.target, now);
    if (!check.ok()) return Fail("policy check", check.status().message(), kExitFailure);
    Print(policy::CheckTable(*check), a);
  }
  return kExitOk;
}

int RunRun(const PolicyArgs& a) {
  auto config = Load(a);
  if (!config.ok()) return Fail("policy run", config.status().message(), kExitUsage);
  policy::RunOptions options;
  options.dry_run = a.dry_run;
  options.target = a.target;
  if (!a.max_actions.empty()) {
    auto n = condition::ParseCount(a.max_actions);
    if (!n) return Fail("policy run", "--max-actions '" + a.max_actions + "': expected a whole number", kExitUsage);
    options.max_actions = static_cast<uint64_t>(*n);
  }
  if (!a.max_volume.empty()) {
    auto n = condition::ParseSize(a.max_volume);
    if (!n) return Fail("policy run", "--max-volume '" + a.max_volume + "': expected a size (e.g. 500GB)", kExitUsage);
    options.max_volume = *n;
  }
  auto catalog = OpenCatalog(a.catalog, true);
  if (!catalog.ok()) return Fail("policy run", catalog.status().message(), kExitFailure);
  std::unique_ptr<policy::ActionJournal> journal;
  if (!a.dry_run) {
    auto opened = policy::ActionJournal::Open(a.catalog, false);
    if (!opened.ok()) return Fail("policy run", opened.status().message(), kExitFailure);
    journal = std::move(opened).value();
  }
  std::atomic<bool> stop{false};
  SignalWaiter signals([&](int) { stop = true; });
  options.stop = [&] { return stop.load(); };
  const bool list = a.list || a.dry_run;
  options.report = [&](const policy::JournalAction& act, std::string_view note) {
    if (!list) return;
    std::string line = std::string(note) + " " + act.path;
    if (!act.destination.empty()) line += " -> " + act.destination;
    if (!act.rule.empty()) line += " (rule " + act.rule + ")";
    std::cout << line << '\n';
  };
  auto summary = policy::RunPolicy(*config, *config->Find(a.name), **catalog, journal.get(), options);
  std::cout.flush();
  if (!summary.ok()) return Fail("policy run", summary.status().message(), kExitFailure);
  const policy::RunRecord& r = summary->run;
  std::fprintf(stderr, "fathom: policy %s%s%s: %llu candidates, %llu %s, %llu failed, %llu skipped, %s%s%s\n",
               r.policy.c_str(), a.dry_run ? " (dry run)" : "",
               summary->resumed ? (" (run " + std::to_string(r.id) + " resumed)").c_str() : "",
               static_cast<unsigned long long>(summary->decided), static_cast<unsigned long long>(r.actions),
               a.dry_run ? "would be acted upon" : "done", static_cast<unsigned long long>(r.failed),
               static_cast<unsigned long long>(r.skipped),
               catalog::report::FormatFileSize(static_cast<uint64_t>(r.volume)).c_str(),
               r.message.empty() ? "" : "; ", r.message.c_str());
  return r.state == policy::RunRecord::State::kFailed || r.state == policy::RunRecord::State::kSuspended ? kExitFailure
                                                                                                           : kExitOk;
}

int RunDaemonCommand(const PolicyArgs& a) {
  auto config = Load(a);
  if (!config.ok()) return Fail("policy daemon", config.status().message(), kExitUsage);
  std::atomic<bool> stop{false};
  SignalWaiter signals([&](int) { stop = true; });
  policy::DaemonOptions options;
  options.catalog_uri = a.catalog;
  options.once = a.once;
  options.stop = [&] { return stop.load(); };
  options.log = [](const std::string& line) { std::fprintf(stderr, "fathom: %s\n", line.c_str()); };
  if (a.list) {
    options.report = [](const policy::JournalAction& act, std::string_view note) {
      std::printf("%.*s %s%s%s\n", static_cast<int>(note.size()), note.data(), act.path.c_str(),
                  act.destination.empty() ? "" : " -> ", act.destination.c_str());
      std::fflush(stdout);
    };
  }
  Status s = policy::RunDaemon(*config, options);
  if (!s.ok()) return Fail("policy daemon", s.message(), kExitUsage);
  return kExitOk;
}

int RunAlerts(const PolicyArgs& a) {
  auto config = Load(a);
  if (!config.ok()) return Fail("policy alerts", config.status().message(), kExitUsage);
  if (config->alerts.empty()) return Fail("policy alerts", a.config + " defines no alert (alerts: ...)", kExitUsage);
  auto catalog = OpenCatalog(a.catalog, true);
  if (!catalog.ok()) return Fail("policy alerts", catalog.status().message(), kExitFailure);
  auto check = policy::CheckAlerts(*config, **catalog, a.catalog, NowNs());
  if (!check.ok()) return Fail("policy alerts", check.status().message(), kExitFailure);
  for (const policy::AlertEvent& e : check->events) {
    std::printf("%s %s: %s%s%s%s\n", e.raised ? "raised" : "cleared", e.alert.c_str(), e.key.c_str(),
                e.detail.empty() ? "" : " (", e.detail.c_str(), e.detail.empty() ? "" : ")");
  }
  std::fflush(stdout);
  std::fprintf(stderr, "fathom: %llu alerts active\n", static_cast<unsigned long long>(check->active));
  for (const std::string& e : check->errors) {
    std::fprintf(stderr, "fathom: policy alerts: not delivered (sent again at the next check): %s\n", e.c_str());
  }
  return check->errors.empty() ? kExitOk : kExitFailure;
}

int RunLog(const PolicyArgs& a) {
  auto since = ParseSince(a.since);
  if (!since.ok()) return Fail("policy log", since.status().message(), kExitUsage);
  auto journal = policy::ActionJournal::Open(a.catalog, true);
  if (!journal.ok()) return Fail("policy log", journal.status().message(), kExitFailure);
  if (a.runs) {
    auto table = policy::RunTable(**journal, a.name, *since);
    if (!table.ok()) return Fail("policy log", table.status().message(), kExitFailure);
    Print(*table, a);
    return kExitOk;
  }
  policy::ActionQuery q;
  q.policy = a.name;
  q.since_ns = *since;
  if (a.run != 0) q.run = a.run;
  auto table = policy::ActionTable(**journal, q, a.limit);
  if (!table.ok()) return Fail("policy log", table.status().message(), kExitFailure);
  Print(*table, a);
  return kExitOk;
}

std::string DefaultConfig() {
  const char* env = std::getenv("FATHOM_CONFIG");
  return env != nullptr && *env != '\0' ? env : "/etc/fathom/policies.yaml";
}

void AddShared(CLI::App& cmd, PolicyArgs& a, bool config) {
  if (config) {
    cmd.add_option("--config", a.config, "The policy configuration (default $FATHOM_CONFIG, else /etc/fathom/policies.yaml)")
        ->type_name("FILE");
  }
  AddCatalogOption(cmd, a.catalog);
}

void AddTableOptions(CLI::App& cmd, PolicyArgs& a) {
  auto* csv = cmd.add_flag("-c,--csv", a.csv, "Comma-separated values, raw numbers");
  cmd.add_flag("--json", a.json, "One JSON object")->excludes(csv);
  cmd.add_flag("-q,--no-header", a.no_header, "No column header nor total");
}

}  // namespace

CommandRunner AddPolicyCommand(CLI::App& app) {
  auto a = std::make_shared<PolicyArgs>();
  a->config = DefaultConfig();
  CLI::App* cmd = app.add_subcommand("policy", "Check, run, schedule and audit the policies and alerts of a configuration on the catalog");
  cmd->require_subcommand(1);
  cmd->footer(
      "Examples:\n"
      "  fathom policy check --config policies.yaml --catalog scratch.db\n"
      "  fathom policy run purge --dry-run --config policies.yaml --catalog scratch.db\n"
      "  fathom policy run purge --target user:alice --max-volume 500GB --config policies.yaml\n"
      "  fathom policy daemon --config policies.yaml --catalog scratch.db\n"
      "  fathom policy alerts --config policies.yaml --catalog scratch.db\n"
      "  fathom policy log --since 7d --catalog scratch.db\n\n"
      "See docs/policies.md.");

  CLI::App* check = cmd->add_subcommand(
      "check", "Validate the configuration and show, per policy and rule, how many entries it would act upon now");
  AddShared(*check, *a, true);
  check->add_option("POLICY", a->name, "Only this policy (default: every one)");
  check->add_option("--target", a->target, "Only user:U, group:G, ost:N, pool:P, class:C or path:DIR");
  AddTableOptions(*check, *a);

  CLI::App* run = cmd->add_subcommand("run", "Run a policy now: act on its entries, journaled in the catalog");
  AddShared(*run, *a, true);
  run->add_option("POLICY", a->name, "The policy to run")->required();
  run->add_flag("-n,--dry-run", a->dry_run, "Show what would be done; change nothing, write nothing, run no command");
  run->add_option("--target", a->target, "Only user:U, group:G, ost:N, pool:P, class:C or path:DIR");
  run->add_option("--max-actions", a->max_actions, "Stop after N actions (beside the policy's max_action_count)")
      ->type_name("N");
  run->add_option("--max-volume", a->max_volume, "Stop once entries of this total size were acted upon (e.g. 500GB)")
      ->type_name("SIZE");
  run->add_flag("-l,--list", a->list, "Print each action (a dry run always does)");

  CLI::App* daemon = cmd->add_subcommand(
      "daemon",
      "Evaluate every policy's triggers on their schedules and run the policies they fire; check the alerts on "
      "theirs (alert_check_every) and soon after each change of the catalog (alert_on_change)");
  AddShared(*daemon, *a, true);
  daemon->add_flag("--once", a->once, "Evaluate each trigger once, run what fires, and exit (for cron)");
  daemon->add_flag("-l,--list", a->list, "Print each action");

  CLI::App* alerts = cmd->add_subcommand(
      "alerts", "Check the alerts once: raise what newly matches, clear what no longer does, send both to the sinks");
  AddShared(*alerts, *a, true);

  CLI::App* log = cmd->add_subcommand("log", "Show the action journal (newest first), or the runs (--runs)");
  AddShared(*log, *a, false);
  log->add_option("POLICY", a->name, "Only this policy");
  log->add_option("--since", a->since, "Only since TIME: a date (2026-11-20, 2026-11-20 14:30) or an age (7d, 12h)")
      ->type_name("TIME");
  log->add_option("--run", a->run, "Only the actions of this run")->type_name("ID");
  log->add_flag("--runs", a->runs, "List the runs instead of the actions");
  log->add_option("--limit", a->limit, "At most N actions")->type_name("N");
  AddTableOptions(*log, *a);

  return [a, check, run, daemon, alerts, log] {
    if (check->parsed()) return RunCheck(*a);
    if (run->parsed()) return RunRun(*a);
    if (daemon->parsed()) return RunDaemonCommand(*a);
    if (alerts->parsed()) return RunAlerts(*a);
    if (log->parsed()) return RunLog(*a);
    return kExitUsage;
  };
}

}  // namespace fathom::cli
