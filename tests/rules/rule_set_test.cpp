// Rules files: the issue's example loads with every key as written; every error names the
// line, the column and the fix; a rule's version follows its content, not its formatting.
#include <gtest/gtest.h>

#include "condition/glob.h"
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
            "rules.yaml: line 1, column 1: unknown key 'rulez' (expected rules, outbox, catalog, concurrency, lease, "
            "clients, max_cascade, alert_sinks, endpoint_concurrency)");
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
            "rules.yaml: line 2, column 5: rule r: no action: give action: {command: [...]}, {webhook: URL}, "
            "{copy: {to: DIRECTORY}} or {mail: {to: [ADDRESS]}}");
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

TEST(RuleSetTest, CopyMailOutcomeListsAndEndpointConcurrencyAreRead) {
  auto set = ParseRuleSet(R"yaml(
endpoint_concurrency: 2
rules:
  - name: archive
    action: {copy: {to: /archive/raw, checksum: sha256}}
  - name: archive-unchecked
    action: {copy: {to: /archive/raw/, checksum: none}}
  - name: tell-ops
    action:
      mail: {to: [ops@example.org, root], subject: "raw data arrived", from: fathom@example.org,
             sendmail: /usr/lib/sendmail, timeout: 20s}
  - name: tell-one
    action: {mail: {to: ops@example.org}}
  - name: ingest
    action: {command: [/bin/true], retry_exit_codes: [75, 99], permanent_exit_codes: [3, 64]}
  - name: notify
    endpoint_concurrency: 1
    action: {webhook: "https://hooks.example/raw", secret_file: /etc/fathom/hook.secret,
             retry_statuses: [404, 410], permanent_statuses: [503], include: [stat, sha256]}
  - name: plain
    action: {webhook: "https://hooks.example/raw", secret_file: /etc/fathom/hook.secret, include: stat}
)yaml",
                          "rules.yaml");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->endpoint_concurrency, 2u);
  const auto& archive = std::get<CopyAction>(set->rules.at(0).action);
  EXPECT_EQ(archive.to, "/archive/raw");
  EXPECT_TRUE(archive.verify);
  const auto& unchecked = std::get<CopyAction>(set->rules.at(1).action);
  EXPECT_EQ(unchecked.to, "/archive/raw/");
  EXPECT_FALSE(unchecked.verify);
  // What a copy writes is its rule's own output.
  EXPECT_EQ(set->rules.at(0).guard.outputs, std::vector<std::string>{"/archive/raw/**"});
  EXPECT_EQ(set->rules.at(1).guard.outputs, std::vector<std::string>{"/archive/raw/**"});
  auto wild = ParseRuleSet("rules:\n  - {name: r, outputs: /x/*.sum, action: {copy: {to: '/a*[1]/'}}}\n", "rules.yaml");
  ASSERT_TRUE(wild.ok()) << wild.status().message();
  EXPECT_EQ(wild->rules[0].guard.outputs, (std::vector<std::string>{"/x/*.sum", "/a\\*\\[1\\]/**"}));
  const auto below = condition::Glob::Compile(wild->rules[0].guard.outputs[1], condition::Glob::Mode::kPath);
  EXPECT_TRUE(below.Matches("/a*[1]/x/y.h5"));
  EXPECT_FALSE(below.Matches("/ab1/x/y.h5"));
  EXPECT_FALSE(below.Matches("/a*1/x"));
  const auto& mail = std::get<MailAction>(set->rules.at(2).action);
  EXPECT_EQ(mail.to, (std::vector<std::string>{"ops@example.org", "root"}));
  EXPECT_EQ(mail.subject, "raw data arrived");
  EXPECT_EQ(mail.from, "fathom@example.org");
  EXPECT_EQ(mail.sendmail, "/usr/lib/sendmail");
  EXPECT_EQ(mail.timeout_ns, 20'000'000'000);
  const auto& one = std::get<MailAction>(set->rules.at(3).action);
  EXPECT_EQ(one.to, std::vector<std::string>{"ops@example.org"});
  EXPECT_EQ(one.subject, "");
  EXPECT_EQ(one.sendmail, "/usr/sbin/sendmail");
  const auto& ingest = std::get<CommandAction>(set->rules.at(4).action);
  EXPECT_EQ(ingest.retry_exit_codes, (std::vector<int>{75, 99}));
  EXPECT_EQ(ingest.permanent_exit_codes, (std::vector<int>{3, 64}));
  const auto& notify = std::get<WebhookAction>(set->rules.at(5).action);
  EXPECT_EQ(notify.retry_statuses, (std::vector<int>{404, 410}));
  EXPECT_TRUE(notify.include_stat);
  EXPECT_TRUE(notify.include_sha256);
  const auto& plain = std::get<WebhookAction>(set->rules.at(6).action);
  EXPECT_TRUE(plain.include_stat);
  EXPECT_FALSE(plain.include_sha256);
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {webhook: 'https://x/', include: [stat, md5]}}\n"),
            "rules.yaml: line 2, column 56: rule r, action, include: unknown 'md5' (expected stat, sha256)");
  EXPECT_EQ(notify.permanent_statuses, std::vector<int>{503});
  EXPECT_EQ(set->rules.at(5).endpoint_concurrency, 1u);
  EXPECT_EQ(set->rules.at(4).endpoint_concurrency, 0u) << "the rules file's";
  auto defaults = ParseRuleSet("rules:\n  - {name: r, action: {command: [/bin/true]}}\n", "rules.yaml");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->endpoint_concurrency, 4u);
  EXPECT_TRUE(std::get<CommandAction>(defaults->rules[0].action).permanent_exit_codes.empty());
}

TEST(RuleSetTest, ErrorsOfTheCopyAndMailActionsAndOutcomeLists) {
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {copy: {checksum: sha256}}}\n"),
            "rules.yaml: line 2, column 30: rule r, action, copy: no destination: give to: DIRECTORY");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {copy: {to: archive}}}\n"),
            "rules.yaml: line 2, column 35: rule r, action, copy, to: 'archive' is not an absolute directory");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {copy: {to: /a, checksum: md5}}}\n"),
            "rules.yaml: line 2, column 49: rule r, action, copy, checksum: expected sha256 (read the copy back and "
            "compare) or none");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {copy: {to: /a, mode: fast}}}\n"),
            "rules.yaml: line 2, column 39: rule r, action, copy: unknown key 'mode' (expected to, checksum)");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {copy: /a}}\n"),
            "rules.yaml: line 2, column 30: rule r, action, copy: expected {to: DIRECTORY, checksum: sha256 or none}");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {copy: {to: /a}, timeout: 5s}}\n"),
            "rules.yaml: line 2, column 23: rule r, action: copy takes its settings inside: {copy: {to: DIR, "
            "checksum: sha256}}");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {copy: {to: /a}, command: [/bin/true]}}\n"),
            "rules.yaml: line 2, column 23: rule r, action: give one of command, webhook, copy and mail");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {mail: {subject: hello}}}\n"),
            "rules.yaml: line 2, column 30: rule r, action, mail: no recipient: give to: [ADDRESS...]");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {mail: {to: root, subject: \"two\\nlines\"}}}\n"),
            "rules.yaml: line 2, column 50: rule r, action, mail, subject: expected one line of text");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {mail: {to: root, sendmail: sendmail}}}\n"),
            "rules.yaml: line 2, column 51: rule r, action, mail, sendmail: 'sendmail' is not an absolute path");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {command: [/bin/true], permanent_exit_codes: [0]}}\n"),
            "rules.yaml: line 2, column 68: rule r, action, permanent_exit_codes: '0' is not a failing exit status "
            "(1 to 255)");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {command: [/bin/true], retry_exit_codes: [300]}}\n"),
            "rules.yaml: line 2, column 64: rule r, action, retry_exit_codes: '300' is not an exit status (0 to 255)");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {command: [/bin/true], retry_exit_codes: [3], "
                  "permanent_exit_codes: [3]}}\n"),
            "rules.yaml: line 2, column 91: rule r, action: 3 is in both retry_exit_codes and permanent_exit_codes: "
            "give it in one");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {webhook: 'https://x/', retry_statuses: [200]}}\n"),
            "rules.yaml: line 2, column 63: rule r, action, retry_statuses: '200' is not an HTTP status other than "
            "2xx (300 to 599)");
  EXPECT_EQ(Error("rules:\n  - {name: r, action: {webhook: 'https://x/', retry_statuses: [404], "
                  "permanent_statuses: [404]}}\n"),
            "rules.yaml: line 2, column 90: rule r, action: 404 is in both retry_statuses and permanent_statuses: "
            "give it in one");
  EXPECT_EQ(Error("endpoint_concurrency: 0\nrules:\n  - {name: r, action: {command: [/bin/true]}}\n"),
            "rules.yaml: line 1, column 23: endpoint_concurrency: expected a positive whole number");
  EXPECT_EQ(Error("rules:\n  - {name: r, endpoint_concurrency: 2, action: {command: [/bin/true]}}\n"),
            "rules.yaml: line 2, column 37: rule r, endpoint_concurrency: only a webhook has an endpoint");
}

}  // namespace
}  // namespace fathom::rules
