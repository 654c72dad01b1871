// Rules files: the issue's example loads with every key as written; every error names the
// line, the column and the fix; a rule's version follows its content, not its formatting.
#include <gtest/gtest.h>

#include "rules/rule_set.h"

namespace fathom::rules {
namespace {

constexpr const char* kExample = R"yaml(
rules:
  - name: h5-arrived
    kinds: [CLOSE_WRITE, MOVED_TO]
    path: "/lab/raw/**.h5"
    condition: "size > 0"
    action: {command: ["/usr/local/bin/ingest", "--file", "{path}"]}
  - name: notify
    kinds: [CREATE]
    path: "/lab/raw/**"
    action: {webhook: "https://pipeline.example/hooks/raw", secret_file: /etc/fathom/hook.secret}
)yaml";

std::string Error(const std::string& yaml) {
  auto set = ParseRuleSet(yaml, "rules.yaml");
  return set.ok() ? std::string("accepted") : set.status().message();
}

TEST(RuleSetTest, TheIssuesExampleLoadsAsWritten) {
  auto set = ParseRuleSet(kExample, "rules.yaml");
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->rules.size(), 2u);
  const Rule& h5 = set->rules[0];
  EXPECT_EQ(h5.name, "h5-arrived");
  EXPECT_EQ(h5.trigger.kinds, kind::kCloseWrite | kind::kMovedTo);
  EXPECT_EQ(h5.trigger.paths, std::vector<std::string>{"/lab/raw/**.h5"});
  ASSERT_TRUE(h5.trigger.condition.has_value());
  EXPECT_EQ(h5.trigger.attributes, AttributeSource::kLive) << "size needs the entry's attributes";
  const auto& command = std::get<CommandAction>(h5.action);
  EXPECT_EQ(command.argv, (std::vector<std::string>{"/usr/local/bin/ingest", "--file", "{path}"}));
  EXPECT_EQ(h5.version.size(), 32u);
  const Rule& notify = set->rules[1];
  EXPECT_EQ(notify.trigger.attributes, AttributeSource::kNone);
  const auto& hook = std::get<WebhookAction>(notify.action);
  EXPECT_EQ(hook.url, "https://pipeline.example/hooks/raw");
  EXPECT_EQ(hook.secret_files, std::vector<std::string>{"/etc/fathom/hook.secret"});
  EXPECT_EQ(set->outbox, "fathom-rules.db");
}

TEST(RuleSetTest, EveryKeyIsRead) {
  auto set = ParseRuleSet(R"yaml(
outbox: /var/lib/fathom/rules.db
catalog: /var/lib/fathom/catalog.db
concurrency: 8
lease: 2min
rules:
  - name: runs
    kinds: CLOSE_WRITE
    path: [/lab/a/**, /lab/b/**]
    ignore: "**/*.tmp"
    condition: "owner == 0"
    attributes: catalog
    settle: 5s
    max_wait: 1min
    sentinel: "*.done"
    batch: {max_events: 100, max_wait: 10s}
    retry: {max_attempts: 3, max_age: 1h, backoff: 2s, max_backoff: 5min}
    concurrency: 2
    run_as: nobody
    action: {command: [/bin/true, "{paths}"], timeout: 30s, retry_exit_codes: [75, 99]}
)yaml",
                          "rules.yaml");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->outbox, "/var/lib/fathom/rules.db");
  EXPECT_EQ(set->catalog, "/var/lib/fathom/catalog.db");
  EXPECT_EQ(set->concurrency, 8u);
  EXPECT_EQ(set->lease_ns, 120'000'000'000);
  const Rule& r = set->rules.at(0);
  EXPECT_EQ(r.trigger.paths, (std::vector<std::string>{"/lab/a/**", "/lab/b/**"}));
  EXPECT_EQ(r.trigger.ignore, std::vector<std::string>{"**/*.tmp"});
  EXPECT_EQ(r.trigger.attributes, AttributeSource::kCatalog);
  EXPECT_EQ(r.coalescing.settle_ns, 5'000'000'000);
  EXPECT_EQ(r.coalescing.max_wait_ns, 60'000'000'000);
  EXPECT_EQ(r.coalescing.sentinel, "*.done");
  EXPECT_EQ(r.coalescing.batch_max, 100u);
  EXPECT_EQ(r.coalescing.batch_wait_ns, 10'000'000'000);
  EXPECT_EQ(r.retry.max_attempts, 3);
  EXPECT_EQ(r.retry.max_age_ns, 3'600'000'000'000);
  EXPECT_EQ(r.retry.base_ns, 2'000'000'000);
  EXPECT_EQ(r.retry.max_backoff_ns, 300'000'000'000);
  EXPECT_EQ(r.concurrency, 2u);
  const auto& c = std::get<CommandAction>(r.action);
  EXPECT_EQ(c.timeout_ns, 30'000'000'000);
  EXPECT_EQ(c.retry_exit_codes, (std::vector<int>{75, 99}));
  EXPECT_EQ(c.run_as_uid, 65534u);
}

TEST(RuleSetTest, AVersionFollowsTheRuleNotItsFormatting) {
  auto a = ParseRuleSet("rules:\n  - {name: r, path: /x/**, action: {command: [/bin/true]}}\n", "a");
  auto b = ParseRuleSet("# comment\nrules:\n  - name: r\n    path: \"/x/**\"\n    action:\n      command: [/bin/true]\n", "b");
  auto c = ParseRuleSet("rules:\n  - {name: r, path: /y/**, action: {command: [/bin/true]}}\n", "c");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->rules[0].version, b->rules[0].version);
  EXPECT_NE(a->rules[0].version, c->rules[0].version);
}

TEST(RuleSetTest, ErrorsNameTheLineTheColumnAndTheFix) {
  EXPECT_EQ(Error("rules: []\n"), "rules.yaml: line 1, column 1: no rules: give rules: with at least one rule");
  EXPECT_EQ(Error("rulez: []\n"),
            "rules.yaml: line 1, column 1: unknown key 'rulez' (expected rules, outbox, catalog, concurrency, lease, clients, max_cascade, alert_sinks)");
  EXPECT_EQ(Error("rules:\n  - {path: /x/**, action: {command: [/bin/true]}}\n"),
            "rules.yaml: line 2, column 5: a rule needs a name: of letters, digits, '_', '-' and '.'");
  EXPECT_EQ(Error("rules:\n  - {name: r, kinds: [CREAT], action: {command: [/bin/true]}}\n"),
            "rules.yaml: line 2, column 22: rule r, kinds: unknown kind 'CREAT' (expected CREATE, MODIFY, ATTRIB, "
            "CLOSE_WRITE, MOVED_FROM, MOVED_TO, DELETE, DELETE_SELF, MOVE_SELF, ACCESS, OPEN, CLOSE_NOWRITE, "
            "OVERFLOW, CLOSE, MOVE)");
  EXPECT_EQ(Error("rules:\n  - {name: r, path: '*.h5', action: {command: [/bin/true]}}\n"),
            "rules.yaml: line 2, column 21: rule r, path: path glob '*.h5' is relative: events carry absolute "
            "paths; write /DIR/*.h5 or **/*.h5");
  EXPECT_EQ(Error("rules:\n  - {name: r, settle: 5 sec, action: {command: [/bin/true]}}\n"),
            "rules.yaml: line 2, column 23: rule r, settle: expected a duration (e.g. 5s, 10min, 1h)");
  EXPECT_EQ(Error("rules:\n  - {name: r, condition: 'size >> 1', action: {command: [/bin/true]}}\n").substr(0, 42),
            "rules.yaml, rule r: line 2, column 33: fou");
  EXPECT_EQ(Error("rules:\n  - {name: r}\n"),
            "rules.yaml: line 2, column 5: rule r: no action: give action: {command: [...]} or action: {webhook: URL}");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {command: ingest}}\n"),
            "rules.yaml: line 2, column 33: rule r, action, command: expected the program and its arguments as a "
            "list, e.g. [/usr/local/bin/ingest, --file, '{path}'] (no shell runs it)");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {command: [ingest, '{path}']}}\n"),
            "rules.yaml: line 2, column 33: rule r, action, command: the program must be an absolute path (a rule's "
            "command runs with a minimal PATH): write /usr/bin/ingest or the program's path");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {webhook: 'ftp://x'}}\n"),
            "rules.yaml: line 2, column 33: rule r, action, webhook: 'ftp://x' is not an http:// or https:// URL");
  EXPECT_EQ(Error("rules:\n  - {name: r, run_as: nosuchuser1, action: {command: [/bin/true]}}\n"),
            "rules.yaml: line 2, column 23: rule r, run_as: no user 'nosuchuser1' on this system");
  EXPECT_EQ(Error("rules:\n  - {name: r, attributes: catalog, action: {command: [/bin/true]}}\n"),
            "rules.yaml: rule r reads attributes from the catalog, and no catalog is given: add catalog: URI");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {command: [/bin/true]}}\n  - {name: r, action: {command: [/bin/true]}}\n"),
            "rules.yaml: line 3, column 5: rule 'r' is defined twice");
  EXPECT_EQ(Error("rules:\n  - {name: r, batch: {max: 3}, action: {command: [/bin/true]}}\n"),
            "rules.yaml: line 2, column 23: rule r, batch: unknown key 'max' (expected max_events, max_wait)");
}

}  // namespace
}  // namespace fathom::rules
