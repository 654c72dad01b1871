// `fathom rules run|test|status|deliveries|dead|replay|resume|purge|enable` — event-driven rules
// (src/rules/, docs/rules.md).
#include <atomic>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/feed_args.h"
#include "cli/signal_waiter.h"
#include "fathom/store.h"
#include "rules/outbox/outbox.h"
#include "rules/rule_set.h"
#include "rules/rules_tables.h"
#include "rules/rules_trial.h"
#include "rules/runner.h"

namespace fathom::cli {
namespace {

struct RulesArgs {
  std::string config;
  std::string outbox;  // overrides the rules file's outbox:
  FeedArgs feed;
  bool until_idle = false;
  uint64_t since = 0;
  bool explain = false;
  std::string rule;
  bool failed = false;
  size_t limit = 100;
  std::string id;
  bool all = false;
  bool csv = false, json = false, no_header = false;
};

void Print(const catalog::report::Table& table, const RulesArgs& a) {
  const auto format = a.json  ? catalog::report::TableFormat::kJson
                      : a.csv ? catalog::report::TableFormat::kCsv
                              : catalog::report::TableFormat::kText;
  std::string text = catalog::report::Render(table, format, !a.no_header);
  if (!text.empty() && text.back() != '\n') text += '\n';
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// The outbox: --outbox, else the rules file's (when --config is given), else the default.
Result<std::string> OutboxPath(const RulesArgs& a, const rules::RuleSet* set) {
  if (!a.outbox.empty()) return a.outbox;
  if (set != nullptr) return set->outbox;
  return rules::RuleSet{}.outbox;
}

Result<std::unique_ptr<catalog::Catalog>> CatalogFor(const rules::RuleSet& set) {
  if (set.catalog.empty()) return std::unique_ptr<catalog::Catalog>();
  return OpenCatalog(set.catalog, true);
}

int RunRules(const RulesArgs& a) {
  auto set = rules::LoadRuleSet(a.config);
  if (!set.ok()) return Fail("rules run", set.status().message(), kExitUsage);
  auto path = OutboxPath(a, &*set);
  auto outbox = rules::Outbox::Open(*path);
  if (!outbox.ok()) return Fail("rules run", outbox.status().message(), kExitFailure);
  auto cursor = (*outbox)->Cursor(a.feed.name);
  if (!cursor.ok()) return Fail("rules run", cursor.status().message(), kExitFailure);
  auto feed = OpenFeed(a.feed, *cursor);
  if (!feed.ok()) return Fail("rules run", feed.status().message(), kExitUsage);
  auto catalog = CatalogFor(*set);
  if (!catalog.ok()) return Fail("rules run", catalog.status().message(), kExitFailure);
  std::atomic<bool> stop{false};
  catalog::EventFeed* feed_ptr = feed->get();
  SignalWaiter signals([&](int) {
    stop = true;
    feed_ptr->Stop();
  });
  rules::RunnerOptions options;
  options.name = a.feed.name;
  options.until_idle = a.until_idle;
  options.explain = a.explain;
  options.log = [](const std::string& line) { std::fprintf(stderr, "fathom: %s\n", line.c_str()); };
  rules::Runner runner(*set, **outbox, catalog->get(), options);
  std::fprintf(stderr, "fathom: rules: %zu rules from %s, outbox %s, reading after event %llu\n", set->rules.size(),
               a.config.c_str(), path->c_str(), static_cast<unsigned long long>(*cursor));
  Status s = runner.Run(**feed, stop);
  const rules::RunnerCounters& c = runner.counters();
  auto n = [](const std::atomic<uint64_t>& v) { return static_cast<unsigned long long>(v.load()); };
  std::fprintf(stderr, "fathom: rules: %llu events read, %llu matched, %llu deliveries recorded, %llu succeeded, "
               "%llu to retry, %llu dead; %llu left alone as the rules' own, %llu past max_cascade, "
               "%llu delayed by rate limits\n",
               n(c.events), n(c.matched), n(c.recorded), n(c.succeeded), n(c.retried), n(c.dead), n(c.own_ignored),
               n(c.too_deep), n(c.rate_limited));
  if (!s.ok()) return Fail("rules run", s.message(), kExitFailure);
  return kExitOk;
}

int TestRules(const RulesArgs& a) {
  auto set = rules::LoadRuleSet(a.config);
  if (!set.ok()) return Fail("rules test", set.status().message(), kExitUsage);
  if (a.feed.store.empty()) return Fail("rules test", "give the stored history to try the rules on: --store FILE", kExitUsage);
  auto file = StoreFile(a.feed.store);
  if (!file.ok()) return Fail("rules test", file.status().message(), kExitUsage);
  StoreOptions so;
  so.path = *file;
  so.read_only = true;
  auto store = EventStore::Open(so);
  if (!store.ok()) return Fail("rules test", store.status().message(), kExitFailure);
  auto catalog = CatalogFor(*set);
  if (!catalog.ok()) return Fail("rules test", catalog.status().message(), kExitFailure);
  auto counts = rules::TryRules(*set, **store, a.since, a.explain, catalog->get(),
                                [](const std::string& line) { std::printf("%s\n", line.c_str()); });
  std::fflush(stdout);
  if (!counts.ok()) return Fail("rules test", counts.status().message(), kExitFailure);
  std::fprintf(stderr, "fathom: rules test: %llu events, %llu matches, %llu deliveries would be made (nothing ran)\n",
               static_cast<unsigned long long>(counts->events), static_cast<unsigned long long>(counts->matched),
               static_cast<unsigned long long>(counts->deliveries));
  return kExitOk;
}

// The outbox of the rules file, read-only (status, deliveries) or to change (replay, purge).
Result<std::unique_ptr<rules::Outbox>> OpenOutbox(const RulesArgs& a, bool read_only,
                                                  std::optional<rules::RuleSet>& set) {
  if (!a.config.empty()) {
    FATHOM_ASSIGN_OR_RETURN(rules::RuleSet loaded, rules::LoadRuleSet(a.config));
    set = std::move(loaded);
  }
  FATHOM_ASSIGN_OR_RETURN(std::string path, OutboxPath(a, set ? &*set : nullptr));
  return rules::Outbox::Open(path, read_only);
}

int Status_(const RulesArgs& a) {
  std::optional<rules::RuleSet> set;
  auto outbox = OpenOutbox(a, true, set);
  if (!outbox.ok()) return Fail("rules status", outbox.status().message(), kExitFailure);
  uint64_t newest = 0;
  if (!a.feed.store.empty()) {
    auto file = StoreFile(a.feed.store);
    StoreOptions so;
    so.path = file.ok() ? *file : a.feed.store;
    so.read_only = true;
    auto store = EventStore::Open(so);
    if (!store.ok()) return Fail("rules status", store.status().message(), kExitFailure);
    auto last = (*store)->LastId();
    if (last.ok()) newest = *last;
  }
  auto table = rules::StatusTable(**outbox, set ? &*set : nullptr, a.feed.name, newest);
  if (!table.ok()) return Fail("rules status", table.status().message(), kExitFailure);
  Print(*table, a);
  return kExitOk;
}

int Deliveries(const RulesArgs& a, const std::vector<rules::DeliveryState>& states, const char* command) {
  std::optional<rules::RuleSet> set;
  auto outbox = OpenOutbox(a, true, set);
  if (!outbox.ok()) return Fail(command, outbox.status().message(), kExitFailure);
  auto table = rules::DeliveryTable(**outbox, a.rule, states, a.limit);
  if (!table.ok()) return Fail(command, table.status().message(), kExitFailure);
  Print(*table, a);
  return kExitOk;
}

int Replay(const RulesArgs& a) {
  if (a.all == !a.id.empty()) return Fail("rules replay", "give a delivery id or --all (with --rule R)", kExitUsage);
  std::optional<rules::RuleSet> set;
  auto outbox = OpenOutbox(a, false, set);
  if (!outbox.ok()) return Fail("rules replay", outbox.status().message(), kExitFailure);
  if (!a.id.empty()) {
    Status s = (*outbox)->Replay(a.id);
    if (!s.ok()) return Fail("rules replay", s.message(), kExitFailure);
    std::fprintf(stderr, "fathom: delivery %s is pending again\n", a.id.c_str());
    return kExitOk;
  }
  auto n = (*outbox)->ReplayAllDead(a.rule);
  if (!n.ok()) return Fail("rules replay", n.status().message(), kExitFailure);
  std::fprintf(stderr, "fathom: %zu dead deliveries are pending again\n", *n);
  return kExitOk;
}

int Resume(const RulesArgs& a) {
  std::optional<rules::RuleSet> set;
  auto outbox = OpenOutbox(a, false, set);
  if (!outbox.ok()) return Fail("rules resume", outbox.status().message(), kExitFailure);
  auto was = (*outbox)->Resume(a.rule);
  if (!was.ok()) return Fail("rules resume", was.status().message(), kExitFailure);
  if (!*was) return Fail("rules resume", "rule " + a.rule + " is not paused (`fathom rules status` shows the paused ones)",
                         kExitFailure);
  std::fprintf(stderr, "fathom: rule %s resumed: its deliveries run again\n", a.rule.c_str());
  return kExitOk;
}

int Purge(const RulesArgs& a) {
  std::optional<rules::RuleSet> set;
  auto outbox = OpenOutbox(a, false, set);
  if (!outbox.ok()) return Fail("rules purge", outbox.status().message(), kExitFailure);
  auto n = (*outbox)->PurgeDead(a.rule);
  if (!n.ok()) return Fail("rules purge", n.status().message(), kExitFailure);
  std::fprintf(stderr, "fathom: %zu dead deliveries deleted\n", *n);
  return kExitOk;
}

int Enable(const RulesArgs& a) {
  std::optional<rules::RuleSet> set;
  auto outbox = OpenOutbox(a, false, set);
  if (!outbox.ok()) return Fail("rules enable", outbox.status().message(), kExitFailure);
  auto n = (*outbox)->EnableEndpoints(a.rule);
  if (!n.ok()) return Fail("rules enable", n.status().message(), kExitFailure);
  if (*n == 0) {
    return Fail("rules enable", "rule " + a.rule + " has no disabled endpoint in " + (*outbox)->path() +
                                    " (`fathom rules status` shows them)",
                kExitFailure);
  }
  std::fprintf(stderr,
               "fathom: rule %s: its webhook is enabled again; `fathom rules replay --rule %s --all` runs its dead "
               "deliveries\n",
               a.rule.c_str(), a.rule.c_str());
  return kExitOk;
}

void AddOutputOptions(CLI::App& cmd, RulesArgs& a) {
  cmd.add_flag("--csv", a.csv, "Comma-separated values");
  cmd.add_flag("--json", a.json, "One JSON document");
  cmd.add_flag("--no-header", a.no_header, "No header line");
}

void AddOutboxOptions(CLI::App& cmd, RulesArgs& a) {
  cmd.add_option("--config", a.config, "The rules file (its outbox: and rule names)")->type_name("FILE");
  cmd.add_option("--outbox", a.outbox, "The outbox file (default: the rules file's outbox:, else fathom-rules.db)")
      ->type_name("FILE");
}

}  // namespace

CommandRunner AddRulesCommand(CLI::App& app) {
  auto a = std::make_shared<RulesArgs>();
  CLI::App* cmd = app.add_subcommand("rules", "Event-driven rules: actions run for matching events, at least once");
  cmd->require_subcommand(1);
  cmd->footer(
      "\nExamples:\n"
      "  fathom rules test --config rules.yaml --store events.db --explain\n"
      "  fathom rules run --config rules.yaml --store events.db\n"
      "  fathom rules status --config rules.yaml --store events.db\n"
      "  fathom rules dead --config rules.yaml\n"
      "  fathom rules replay --config rules.yaml --all --rule notify\n"
      "  fathom rules resume --config rules.yaml notify\n"
      "  fathom rules enable --config rules.yaml notify\n"
      "See docs/rules.md.");

  CLI::App* run = cmd->add_subcommand(
      "run", "Read the event stream as a durable consumer and run each matching event's action, at least once");
  run->add_option("--config", a->config, "The rules file")->required()->type_name("FILE");
  run->add_option("--outbox", a->outbox, "The outbox file (default: the rules file's outbox:)")->type_name("FILE");
  AddFeedOptions(*run, a->feed, "rules", "the outbox");
  run->add_flag("--until-idle", a->until_idle,
                "Stop once every event the stream holds is delivered, or waiting to be retried");
  run->add_flag("--explain", a->explain, "Log, for every event read and every rule, why the rule takes it or not");

  CLI::App* test = cmd->add_subcommand(
      "test", "Try the rules on stored history: what would have fired, and with --explain why (nothing runs)");
  test->add_option("--config", a->config, "The rules file")->required()->type_name("FILE");
  test->add_option("--store", a->feed.store, "The store holding the history (FILE or sqlite:FILE)")
      ->required()
      ->type_name("FILE");
  test->add_option("--since", a->since, "Only events after this id")->type_name("ID");
  test->add_flag("--explain", a->explain, "For every event and rule, why the rule takes it or not");

  CLI::App* status = cmd->add_subcommand("status", "Per rule: deliveries by state, retries, last event and result; the cursor's lag");
  AddOutboxOptions(*status, *a);
  status->add_option("--name", a->feed.name, "The consumer whose cursor is shown")->default_str("rules");
  status->add_option("--store", a->feed.store, "The store it reads: also show the newest id and the lag")
      ->type_name("FILE");
  AddOutputOptions(*status, *a);
  a->feed.name = "rules";

  CLI::App* deliveries = cmd->add_subcommand("deliveries", "The deliveries, newest first");
  AddOutboxOptions(*deliveries, *a);
  deliveries->add_option("--rule", a->rule, "Only this rule's");
  deliveries->add_flag("--failed", a->failed, "Only those waiting to be retried or dead");
  deliveries->add_option("--limit", a->limit, "At most this many (0: all)")->default_str("100");
  AddOutputOptions(*deliveries, *a);

  CLI::App* dead = cmd->add_subcommand("dead", "The dead deliveries (the dead-letter list), newest first");
  AddOutboxOptions(*dead, *a);
  dead->add_option("--rule", a->rule, "Only this rule's");
  dead->add_option("--limit", a->limit, "At most this many (0: all)")->default_str("100");
  AddOutputOptions(*dead, *a);

  CLI::App* replay = cmd->add_subcommand("replay", "Make dead deliveries pending again (attempts from 0)");
  AddOutboxOptions(*replay, *a);
  replay->add_option("ID", a->id, "The delivery (fd_...)");
  replay->add_flag("--all", a->all, "Every dead delivery (of --rule)");
  replay->add_option("--rule", a->rule, "Only this rule's");

  CLI::App* resume = cmd->add_subcommand("resume", "Run a paused rule's deliveries again (after its breaker tripped)");
  AddOutboxOptions(*resume, *a);
  resume->add_option("RULE", a->rule, "The rule")->required();

  CLI::App* purge = cmd->add_subcommand("purge", "Delete the dead deliveries");
  AddOutboxOptions(*purge, *a);
  purge->add_option("--rule", a->rule, "Only this rule's");

  CLI::App* enable = cmd->add_subcommand("enable", "Call a rule's webhook again after it answered 410 Gone");
  AddOutboxOptions(*enable, *a);
  enable->add_option("RULE", a->rule, "The rule")->required();

  return [a, run, test, status, deliveries, dead, replay, resume, purge, enable]() -> int {
    if (run->parsed()) return RunRules(*a);
    if (test->parsed()) return TestRules(*a);
    if (status->parsed()) return Status_(*a);
    if (deliveries->parsed()) {
      using State = rules::DeliveryState;
      return Deliveries(*a, a->failed ? std::vector<State>{State::kWaiting, State::kDead} : std::vector<State>{},
                        "rules deliveries");
    }
    if (dead->parsed()) return Deliveries(*a, {rules::DeliveryState::kDead}, "rules dead");
    if (replay->parsed()) return Replay(*a);
    if (resume->parsed()) return Resume(*a);
    if (purge->parsed()) return Purge(*a);
    if (enable->parsed()) return Enable(*a);
    return kExitUsage;
  };
}

}  // namespace fathom::cli
