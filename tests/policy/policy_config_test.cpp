// The policy configuration's file classes: conditions, unions, intersections and complements,
// classes named inside conditions, and every error with its file, line and column.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "fathom/policy.h"

namespace fathom::policy {
namespace {

constexpr int64_t kNow = int64_t{1800000000} * 1000000000;

PolicyConfig Parse(std::string_view yaml) {
  auto config = ParsePolicyConfig(yaml, "policies.yaml");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? std::move(config).value() : PolicyConfig{};
}

std::string Error(std::string_view yaml) {
  auto config = ParsePolicyConfig(yaml, "policies.yaml");
  EXPECT_FALSE(config.ok()) << yaml;
  return config.ok() ? "" : config.status().message();
}

catalog::Attrs File(int64_t size) {
  catalog::Attrs a;
  a.mode = S_IFREG | 0644;
  a.size = size;
  a.mtime_ns = a.atime_ns = a.ctime_ns = kNow;
  return a;
}

constexpr const char* kClasses = R"(
fileclasses:
  tmp: "type == file and name == '*.tmp'"
  big: "size > 1M"
  keep: "tree == /scratch/keep"
  big_tmp: {inter: [big, tmp]}
  either: {union: [big, tmp]}
  loose: {not: keep}
  named: "fileclass == big_tmp and not fileclass == keep"
)";

TEST(PolicyConfigTest, ClassesCombineAsUnionsIntersectionsAndComplements) {
  const PolicyConfig config = Parse(kClasses);
  const FileClasses& c = config.fileclasses;
  EXPECT_EQ(c.Names(), (std::vector<std::string>{"big", "big_tmp", "either", "keep", "loose", "named", "tmp"}));
  const catalog::Attrs small = File(10), large = File(int64_t{5} << 20);
  auto in = [&](std::string_view cls, std::string_view path, const catalog::Attrs& a) {
    condition::Subject s;
    s.path = path;
    s.attrs = &a;
    return c.Contains(cls, s, kNow);
  };
  EXPECT_TRUE(in("tmp", "/scratch/a.tmp", small));
  EXPECT_FALSE(in("big_tmp", "/scratch/a.tmp", small));
  EXPECT_TRUE(in("big_tmp", "/scratch/a.tmp", large));
  EXPECT_TRUE(in("either", "/scratch/a.dat", large));
  EXPECT_FALSE(in("either", "/scratch/a.dat", small));
  EXPECT_TRUE(in("loose", "/scratch/a.dat", small));
  EXPECT_FALSE(in("loose", "/scratch/keep/a.dat", small));
  EXPECT_TRUE(in("named", "/scratch/x/a.tmp", large));
  EXPECT_FALSE(in("named", "/scratch/keep/a.tmp", large));
  EXPECT_FALSE(in("undefined", "/scratch/a.tmp", large));
  catalog::Selection sel;
  c.Narrow("big_tmp", sel, kNow);
  EXPECT_EQ(sel.min_size, (int64_t{1} << 20) + 1);
  EXPECT_EQ(sel.type, static_cast<uint32_t>(S_IFREG));
  EXPECT_EQ(sel.name_tests.size(), 1u);
  catalog::Selection none;
  c.Narrow("either", none, kNow);
  EXPECT_FALSE(none.min_size || none.type);
}

TEST(PolicyConfigTest, AnEmptyFileHasNoClasses) {
  EXPECT_TRUE(Parse("").fileclasses.Names().empty());
  EXPECT_TRUE(Parse("fileclasses:\n").fileclasses.Names().empty());
}

TEST(PolicyConfigTest, ErrorsNameTheFileLineAndColumn) {
  EXPECT_EQ(Error("fileclasses:\n  a: \"size > 1 and colour == red\"\n"),
            "policies.yaml, fileclass a: line 2, column 20: found 'colour', expected a criterion (tree path name "
            "iname type mode owner group projid size blocks depth dircount nlink last_access last_mod last_mdchange "
            "creation rm_time ost_pool ost_index mdt_index fileclass xattr.NAME)");
  EXPECT_EQ(Error("fileclasses:\n  a: size > 12Q\n"),
            "policies.yaml, fileclass a: line 2, column 13: found '12Q', expected a size for size (a number, then "
            "B K M G T P or E, or KB MB ...)");
  EXPECT_EQ(Error("fileclasses:\n  a: [x\n"),
            "policies.yaml: line 3, column 1: not valid YAML here: end of sequence flow not found");
  EXPECT_EQ(Error("fileclasses:\n  ? [a, b]\n  : size > 1\n"),
            "policies.yaml: line 2, column 5: not valid YAML here: bad conversion");
  EXPECT_EQ(Error("filclasses:\n  a: size > 1\n"),
            "policies.yaml: line 1, column 1: unknown section 'filclasses' (expected fileclasses, policies, alerts, "
            "alert_sinks, alert_check_every, alert_on_change)");
  EXPECT_EQ(Error("fileclasses:\n  a: {union: [b]}\n"),
            "policies.yaml: line 2, column 6: fileclass 'a' names 'b', which is not defined (defined: a)");
  EXPECT_EQ(Error("fileclasses:\n  a: {union: [b]}\n  b: \"fileclass == a\"\n"),
            "policies.yaml: line 2, column 6: fileclass 'a' is defined through itself (a -> b -> a)");
  EXPECT_EQ(Error("fileclasses:\n  a: \"fileclass == a\"\n"),
            "policies.yaml: line 2, column 6: fileclass 'a' is defined through itself (a -> a)");
  EXPECT_EQ(Error("fileclasses:\n  a: {both: [b]}\n"),
            "policies.yaml: line 2, column 7: fileclass 'a': expected a condition, or one of {union: [CLASS...]}, "
            "{inter: [CLASS...]}, {not: CLASS}");
  EXPECT_EQ(Error("fileclasses:\n  a: {inter: []}\n"),
            "policies.yaml: line 2, column 14: fileclass 'a': inter: expected a list of class names");
  EXPECT_EQ(Error("fileclasses:\n  a b: size > 1\n"),
            "policies.yaml: line 2, column 3: fileclass name 'a b': use letters, digits, '_', '-' and '.'");
  EXPECT_EQ(Error("fileclasses: [a]\n"),
            "policies.yaml: line 1, column 14: fileclasses: expected a mapping of class names");
}

constexpr const char* kPolicies = R"(
fileclasses:
  scratch_tmp: "type == file and name == '*.tmp'"
  protected: "tree == /scratch/keep"
policies:
  purge:
    default_action: delete
    scope: "tree == /scratch"
    sort: last_access
    ignore: ["owner == root"]
    ignore_fileclass: [protected]
    rules:
      - name: old_tmp
        target_fileclass: scratch_tmp
        condition: "last_mod > 30d"
      - name: rest
        condition: "last_access > 60d"
        action: {move: /scratch/.trash}
    max_action_count: 1000
    max_action_volume: 10TB
    rate_limit: 600/min
    suspend_error_pct: 5%
    trigger: {on: global_usage, high: 85%, low: 80%, check_every: 15min}
  archive:
    default_action: {copy: {to: /archive, verify: true}}
    rules: [{name: all}]
    triggers:
      - {on: periodic, check_every: 1d}
      - {on: user_usage, high: 2TB, low: 1TB, check_every: 1h, targets: [alice, bob]}
  notify:
    default_action: {command: [/usr/bin/logger, "purged {path}"], timeout: 10s}
    rules: [{name: any}]
)";

TEST(PolicyConfigTest, PoliciesReadEveryKey) {
  const PolicyConfig config = Parse(kPolicies);
  ASSERT_EQ(config.policies.size(), 3u);
  const Policy& purge = *config.Find("purge");
  EXPECT_EQ(purge.default_action.kind, Action::Kind::kDelete);
  EXPECT_EQ(purge.scope->ToString(), "tree == '/scratch'");
  EXPECT_EQ(purge.sort, Policy::Sort::kLastAccess);
  ASSERT_EQ(purge.ignore.size(), 1u);
  EXPECT_EQ(purge.ignore_fileclasses, std::vector<std::string>{"protected"});
  ASSERT_EQ(purge.rules.size(), 2u);
  EXPECT_EQ(purge.rules[0].target_fileclasses, std::vector<std::string>{"scratch_tmp"});
  EXPECT_EQ(purge.rules[1].action->kind, Action::Kind::kMove);
  EXPECT_EQ(purge.rules[1].action->destination, "/scratch/.trash");
  EXPECT_EQ(purge.max_action_count, 1000u);
  EXPECT_EQ(purge.max_action_volume, int64_t{10} << 40);
  EXPECT_EQ(purge.max_actions_per_second, 10.0);
  EXPECT_EQ(purge.suspend_error_pct, 5.0);
  ASSERT_EQ(purge.triggers.size(), 1u);
  EXPECT_EQ(purge.triggers[0].on, Trigger::On::kGlobalUsage);
  EXPECT_EQ(purge.triggers[0].high->unit, Threshold::Unit::kPercent);
  EXPECT_EQ(purge.triggers[0].high->value, 85.0);
  EXPECT_EQ(purge.triggers[0].check_every_ns, int64_t{900} * 1000000000);
  const Policy& archive = *config.Find("archive");
  EXPECT_EQ(archive.default_action.kind, Action::Kind::kCopy);
  EXPECT_EQ(archive.default_action.destination, "/archive");
  ASSERT_EQ(archive.triggers.size(), 2u);
  EXPECT_EQ(archive.triggers[1].high->unit, Threshold::Unit::kBytes);
  EXPECT_EQ(archive.triggers[1].targets, (std::vector<std::string>{"alice", "bob"}));
  const Policy& notify = *config.Find("notify");
  EXPECT_EQ(notify.default_action.argv, (std::vector<std::string>{"/usr/bin/logger", "purged {path}"}));
  EXPECT_EQ(notify.default_action.timeout_ns, int64_t{10} * 1000000000);
  EXPECT_EQ(config.Find("none"), nullptr);
}

TEST(PolicyConfigTest, DecideFollowsScopeIgnoreAndTheFirstRuleThatTargetsTheEntry) {
  const PolicyConfig config = Parse(kPolicies);
  const Policy& purge = *config.Find("purge");
  auto decide = [&](std::string_view path, const catalog::Attrs& a) {
    condition::Subject s;
    s.path = path;
    s.attrs = &a;
    return Decide(purge, config.fileclasses, s, kNow);
  };
  catalog::Attrs old_tmp = File(10);
  old_tmp.uid = 1000;
  old_tmp.mtime_ns = old_tmp.atime_ns = kNow - int64_t{40} * 86400 * 1000000000;
  catalog::Attrs new_tmp = File(10);
  new_tmp.uid = 1000;
  Decision d = decide("/scratch/a.tmp", old_tmp);
  EXPECT_EQ(d.outcome, Decision::Outcome::kAct);
  EXPECT_EQ(d.why, "rule old_tmp");
  EXPECT_EQ(d.action->kind, Action::Kind::kDelete);
  d = decide("/scratch/b.tmp", new_tmp);  // old_tmp targets it: its condition decides, no later rule
  EXPECT_EQ(d.outcome, Decision::Outcome::kConditionFalse);
  EXPECT_EQ(d.rule->name, "old_tmp");
  d = decide("/scratch/keep/a.tmp", old_tmp);
  EXPECT_EQ(d.outcome, Decision::Outcome::kIgnored);
  EXPECT_EQ(d.why, "ignored: in fileclass protected");
  d = decide("/home/a.tmp", old_tmp);
  EXPECT_EQ(d.outcome, Decision::Outcome::kOutOfScope);
  catalog::Attrs rooted = old_tmp;
  rooted.uid = 0;
  EXPECT_EQ(decide("/scratch/a.tmp", rooted).outcome, Decision::Outcome::kIgnored);
  catalog::Attrs cold = File(10);
  cold.uid = 1000;
  cold.atime_ns = kNow - int64_t{90} * 86400 * 1000000000;
  d = decide("/scratch/a.dat", cold);
  EXPECT_EQ(d.outcome, Decision::Outcome::kAct);
  EXPECT_EQ(d.action->kind, Action::Kind::kMove);
}

TEST(PolicyConfigTest, PolicyErrorsNameTheirPlace) {
  EXPECT_EQ(Error("policies:\n  p:\n    rules: [{name: r}]\n"),
            "policies.yaml: line 3, column 5: policy p: no default_action (delete, rmdir, log, {move: DIR}, "
            "{copy: DIR}, {command: [...]})");
  EXPECT_EQ(Error("policies:\n  p:\n    default_action: shred\n    rules: [{name: r}]\n"),
            "policies.yaml: line 3, column 21: policy p: default_action: expected delete, rmdir, log, {move: DIR}, "
            "{copy: DIR}, {copy: {to: DIR, verify: true}} or {command: [PROGRAM, ARG...], timeout: DURATION}");
  EXPECT_EQ(Error("policies:\n  p:\n    default_action: delete\n    rules: [{name: r}]\n    colour: red\n"),
            "policies.yaml: line 5, column 5: policy p: unknown key 'colour' (expected default_action, scope, "
            "ignore, ignore_fileclass, rules, sort, max_action_count, max_action_volume, rate_limit, "
            "suspend_error_pct, pre_run_command, post_run_command, trigger)");
  EXPECT_EQ(Error("policies:\n  p:\n    default_action: delete\n    rules: [{name: r}]\n"
                  "    trigger: {on: global_usage, high: 80%, low: 85%, check_every: 1h}\n"),
            "policies.yaml: line 5, column 14: policy p: trigger: low must be below high (it acts from the high "
            "mark down to the low mark)");
  EXPECT_EQ(Error("policies:\n  p:\n    default_action: delete\n    rules: [{name: r}]\n"
                  "    trigger: {on: global_usage, high: 80%, low: 1TB, check_every: 1h}\n"),
            "policies.yaml: line 5, column 14: policy p: trigger: high and low must be in the same unit");
  EXPECT_EQ(Error("policies:\n  p:\n    default_action: delete\n    rules:\n      - name: r\n"
                  "        condition: \"last_mod > soon\"\n"),
            "policies.yaml, policy p, rule r: line 6, column 32: found 'soon', expected a duration for last_mod "
            "(a number, then s min h d w or y)");
  EXPECT_EQ(Error("policies:\n  p:\n    default_action: delete\n    rules: [{name: r, target_fileclass: nope}]\n"),
            "policies.yaml: line 2, column 3: policy p names fileclass 'nope', which is not defined (defined: none)");
  EXPECT_EQ(Error("policies:\n  p:\n    default_action: {move: trash}\n    rules: [{name: r}]\n"),
            "policies.yaml: line 3, column 28: policy p: default_action: move: expected an absolute directory");
}

// The commented example of the documentation loads whole.
TEST(PolicyConfigTest, TheExampleConfigurationLoads) {
  auto config = LoadPolicyConfig(FATHOM_SOURCE_DIR "/examples/policies/policies.yaml");
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->fileclasses.Names().size(), 8u);
  ASSERT_EQ(config->policies.size(), 3u);
  EXPECT_EQ(config->policies[0].triggers.size(), 2u);
  EXPECT_EQ(config->policies[1].default_action.kind, Action::Kind::kMove);
  ASSERT_EQ(config->alerts.size(), 3u);
  EXPECT_TRUE(config->alerts[2].usage.has_value());
  EXPECT_EQ(config->alert_sinks.mail->to, std::vector<std::string>{"storage-admins@example.org"});
  EXPECT_EQ(config->alert_check_every_ns, 300'000'000'000);
}

TEST(PolicyConfigTest, AMissingFileIsNamedWithWhereToLook) {
  auto config = LoadPolicyConfig("/nonexistent/policies.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("/nonexistent/policies.yaml: cannot read it (check the path given to --config)"),
            std::string::npos)
      << config.status().message();
}

}  // namespace
}  // namespace fathom::policy
