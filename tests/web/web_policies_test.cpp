// web_policies_test.cpp — /api/v1/policies over a real run (served_tree.h): a policies file
// with a purge run by `fathom policy run` and alerts checked by `fathom policy alerts`, then
// the definitions, the last runs, the open alerts, the journal's runs and actions, dry-run
// previews, runs on demand by admins, what a token granting one subtree sees, /metrics, and
// the 503 of a server without the policies file or the catalog.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "fathom/condition.h"
#include "web/http_reply.h"
#include "web/served_tree.h"

namespace fathom::testing {
namespace {

using nlohmann::json;

constexpr int64_t kHourNs = 3600LL * 1'000'000'000;

class WebPolicies : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    served_ = new ServedTree({.policies = "policies.yaml", .rules = ""});
    const std::string t = served_->tree();
    std::ofstream(served_->File("policies.yaml"))
        << "fileclasses:\n"
        << "  in_a: \"tree == " << t << "/a and type == file\"\n"
        << "  in_c: \"tree == " << t << "/c and type == file\"\n"
        << "policies:\n"
        << "  purge:\n"
        << "    default_action: delete\n"
        << "    scope: \"tree == " << t << "\"\n"
        << "    sort: size\n"
        << "    rules:\n"
        << "      - name: stale\n"
        << "        target_fileclass: in_c\n"
        << "        condition: \"last_mod > 30d\"\n"
        << "      - name: small\n"
        << "        target_fileclass: in_a\n"
        << "        condition: \"size <= 200\"\n"
        << "    trigger: {on: periodic, check_every: 1h}\n"
        << "  tidy:\n"
        << "    default_action: log\n"
        << "    scope: \"tree == " << t << "\"\n"
        << "    sort: size\n"
        << "    rules:\n"
        << "      - name: big\n"
        << "        target_fileclass: in_a\n"
        << "        condition: \"size >= 1800\"\n"
        << "      - name: recent\n"
        << "        target_fileclass: in_c\n"
        << "        condition: \"last_mod > 5d and last_mod < 100d\"\n"
        << "  idle:\n"
        << "    default_action: log\n"
        << "    rules:\n"
        << "      - name: huge\n"
        << "        condition: \"size > 1TB\"\n"
        << "        action: {move: " << served_->File("trash") << "}\n"
        << "    trigger: {on: global_usage, high: 99%, low: 98%, check_every: 1d}\n"
        << "  slow:\n"
        << "    default_action: log\n"
        << "    rules: [{name: none, condition: \"size > 1TB\"}]\n"
        << "    pre_run_command: [/bin/sleep, \"2\"]\n"
        << "  broken:\n"
        << "    default_action: log\n"
        << "    rules: [{name: none, condition: \"size > 1TB\"}]\n"
        << "    pre_run_command: [/bin/false]\n"
        << "alerts:\n"
        << "  big_in_a:\n"
        << "    condition: \"tree == " << t << "/a and size > 50000\"\n"
        << "  old_in_c:\n"
        << "    condition: \"tree == " << t << "/c and type == file and last_mod > 5d\"\n"
        << "alert_sinks:\n"
        << "  log: " << served_->File("alerts.log") << "\n";
    // The alerts first (c/old.txt is still there), then the purge: a/f2, a/f1, c/old.txt.
    Fathom({"policy", "alerts"});
    Fathom({"policy", "run", "purge"});
    narrow_admin_ = Token({"--user", "alice", "--paths", served_->Path("a"), "--admin"});
  }
  static void TearDownTestSuite() {
    delete served_;
    served_ = nullptr;
  }

  static void Fathom(std::vector<std::string> args) {
    args.insert(args.begin(), FathomBinary());
    args.insert(args.end(), {"--config", served_->File("policies.yaml"), "--catalog", served_->catalog()});
    RunResult r = testing::Run(args);
    if (r.exit_code != 0) throw std::runtime_error(args[1] + " " + args[2] + " failed: " + r.err);
  }
  static std::string Token(std::vector<std::string> args) {
    std::vector<std::string> argv = {FathomBinary(), "token", "create", "--tokens", served_->tokens()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = testing::Run(argv);
    if (r.exit_code != 0) throw std::runtime_error("fathom token create failed: " + r.err);
    return r.out.substr(0, r.out.find('\n'));
  }
  static Reply Admin(const std::string& target) { return served_->Get(target, served_->admin_token()); }
  static Reply Narrow(const std::string& target) { return served_->Get(target, served_->narrow_token()); }
  static Reply Post(const std::string& target, const std::string& token, const std::string& body = "") {
    return served_->Send("POST", target, {{"Authorization", "Bearer " + token}}, body);
  }
  static std::string Canonical(const std::string& text) { return condition::Condition::Parse(text)->ToString(); }
  static std::string Hostname() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return host;
  }

  static ServedTree* served_;
  static std::string narrow_admin_;
};
ServedTree* WebPolicies::served_ = nullptr;
std::string WebPolicies::narrow_admin_;

std::vector<std::string> Field(const json& rows, const char* name) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r[name].is_string() ? r[name].get<std::string>() : r[name].dump());
  return out;
}

const json& PolicyNamed(const json& list, const std::string& name) {
  for (const auto& p : list["policies"]) {
    if (p["name"] == name) return p;
  }
  throw std::runtime_error("no policy " + name + " in " + list.dump());
}

TEST_F(WebPolicies, TheListHoldsEachDefinitionItsLastRunAndNextRunAndTheOpenAlerts) {
  Reply r = Admin("/api/v1/policies");
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string t = served_->tree();
  EXPECT_EQ(r.json["source"], served_->File("policies.yaml"));
  EXPECT_EQ(Field(r.json["policies"], "name"), (std::vector<std::string>{"purge", "tidy", "idle", "slow", "broken"}));
  EXPECT_EQ(r.json["fileclasses"], json::array({"in_a", "in_c"}));

  const json& purge = PolicyNamed(r.json, "purge");
  EXPECT_EQ(purge["default_action"], json({{"kind", "delete"}}));
  EXPECT_EQ(purge["scope"], Canonical("tree == " + t));
  EXPECT_EQ(purge["sort"], "size");
  EXPECT_EQ(purge["rules"], json::array({{{"name", "stale"},
                                          {"target_fileclasses", {"in_c"}},
                                          {"condition", Canonical("last_mod > 30d")},
                                          {"action", {{"kind", "delete"}}}},
                                         {{"name", "small"},
                                          {"target_fileclasses", {"in_a"}},
                                          {"condition", Canonical("size <= 200")},
                                          {"action", {{"kind", "delete"}}}}}));
  EXPECT_EQ(purge["triggers"], json::array({{{"on", "periodic"},
                                             {"check_every_ns", kHourNs},
                                             {"high", nullptr},
                                             {"low", nullptr},
                                             {"targets", json::array()},
                                             {"capacity", nullptr}}}));
  const json& last = purge["last_run"];
  ASSERT_TRUE(last.is_object()) << purge;
  EXPECT_EQ(last["id"], 1);
  EXPECT_EQ(last["policy"], "purge");
  EXPECT_EQ(last["user"], "root");
  EXPECT_EQ(last["host"], Hostname());
  EXPECT_EQ(last["target"], "");
  EXPECT_EQ(last["state"], "done");
  EXPECT_EQ(last["actions"], 3);
  EXPECT_EQ(last["failed"], 0);
  EXPECT_EQ(last["skipped"], 0);
  EXPECT_EQ(last["volume"], 310);
  EXPECT_EQ(last["message"], "");
  const int64_t started = last["started_ns"];
  EXPECT_EQ(last["started"], web::IsoTime(started));
  EXPECT_GE(last["finished_ns"].get<int64_t>(), started);
  EXPECT_EQ(purge["next_run_ns"], started + kHourNs);
  EXPECT_EQ(purge["next_run"], web::IsoTime(started + kHourNs));

  const json& idle = PolicyNamed(r.json, "idle");
  EXPECT_EQ(idle["scope"], nullptr);
  EXPECT_EQ(idle["default_action"], json({{"kind", "log"}}));
  EXPECT_EQ(idle["rules"][0]["action"], json({{"kind", "move"}, {"destination", served_->File("trash")}}));
  EXPECT_EQ(idle["triggers"][0]["on"], "global_usage");
  EXPECT_EQ(idle["triggers"][0]["check_every_ns"], 24 * kHourNs);
  EXPECT_EQ(idle["triggers"][0]["high"], json({{"value", 99.0}, {"unit", "percent"}}));
  EXPECT_EQ(idle["triggers"][0]["low"], json({{"value", 98.0}, {"unit", "percent"}}));
  EXPECT_EQ(idle["last_run"], nullptr);
  EXPECT_EQ(idle["next_run"], nullptr);  // no periodic trigger, no run

  EXPECT_EQ(Field(r.json["alerts"], "name"), (std::vector<std::string>{"big_in_a", "old_in_c"}));
  EXPECT_EQ(r.json["alerts"][0]["open"], 1);
  EXPECT_EQ(r.json["alerts"][1]["open"], 2);
  EXPECT_EQ(r.json["open_alerts_total"], 3);
  EXPECT_EQ(Field(r.json["open_alerts"], "key"),
            (std::vector<std::string>{served_->Path("a/b/deep.dat"), served_->Path("c/mid.txt"),
                                      served_->Path("c/old.txt")}));
  EXPECT_EQ(Field(r.json["open_alerts"], "alert"), (std::vector<std::string>{"big_in_a", "old_in_c", "old_in_c"}));
  for (const auto& a : r.json["open_alerts"]) EXPECT_EQ(a["notified"], true) << a;  // the log sink took them
  EXPECT_NE(r.json["open_alerts"][0]["detail"].get<std::string>().find("owner "), std::string::npos);
}

TEST_F(WebPolicies, ANarrowTokenSeesTheActionsAndAlertsOfItsPathsAndCountsOverThem) {
  Reply r = Narrow("/api/v1/policies");
  ASSERT_EQ(r.status, 200) << r.body;
  const json& last = PolicyNamed(r.json, "purge")["last_run"];
  EXPECT_EQ(last["actions"], 2);  // a/f2 and a/f1, not c/old.txt
  EXPECT_EQ(last["volume"], 300);
  EXPECT_EQ(last["failed"], 0);
  EXPECT_EQ(last["skipped"], nullptr);
  EXPECT_EQ(r.json["open_alerts_total"], 1);
  EXPECT_EQ(Field(r.json["open_alerts"], "key"), (std::vector<std::string>{served_->Path("a/b/deep.dat")}));
  EXPECT_EQ(r.json["alerts"][1]["open"], 0);

  Reply actions = Narrow("/api/v1/policies/actions?policy=purge");
  ASSERT_EQ(actions.status, 200) << actions.body;
  EXPECT_EQ(Field(actions.json["actions"], "path"),
            (std::vector<std::string>{served_->Path("a/f1"), served_->Path("a/f2")}));
  EXPECT_EQ(Narrow("/api/v1/policies/actions" + Query({{"path", served_->Path("c")}})).json["actions"], json::array());
}

TEST_F(WebPolicies, ActionsAreNewestFirstWithTheirResultsFilteredAndPaged) {
  Reply all = Admin("/api/v1/policies/actions?policy=purge");
  ASSERT_EQ(all.status, 200) << all.body;
  const json& a = all.json["actions"];
  EXPECT_EQ(Field(a, "path"), (std::vector<std::string>{served_->Path("c/old.txt"), served_->Path("a/f1"),
                                                         served_->Path("a/f2")}));
  EXPECT_EQ(Field(a, "id"), (std::vector<std::string>{"3", "2", "1"}));
  EXPECT_EQ(Field(a, "rule"), (std::vector<std::string>{"stale", "small", "small"}));
  EXPECT_EQ(Field(a, "size"), (std::vector<std::string>{"10", "100", "200"}));
  for (const auto& x : a) {
    EXPECT_EQ(x["run"], 1);
    EXPECT_EQ(x["action"], "delete");
    EXPECT_EQ(x["state"], "done");
    EXPECT_EQ(x["result"], "");
    EXPECT_EQ(x["destination"], "");
    EXPECT_EQ(x["started"], web::IsoTime(x["started_ns"]));
    EXPECT_GE(x["finished_ns"].get<int64_t>(), x["started_ns"].get<int64_t>());
  }
  EXPECT_EQ(a[1]["uid"], 1000);
  EXPECT_EQ(all.json["next"], nullptr);

  std::vector<std::string> paged;
  std::string cursor;
  for (int page = 0; page < 10; ++page) {
    std::vector<std::pair<std::string, std::string>> q = {{"limit", "1"}};
    if (!cursor.empty()) q.push_back({"before_id", cursor});
    Reply r = Admin("/api/v1/policies/actions" + Query(q));
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_EQ(r.json["actions"].size(), 1u) << r.body;
    paged.push_back(r.json["actions"][0]["path"]);
    if (r.json["next"].is_null()) break;
    cursor = std::to_string(r.json["next"]["before_id"].get<int64_t>());
  }
  EXPECT_EQ(paged, Field(a, "path"));

  EXPECT_EQ(Field(Admin("/api/v1/policies/actions" + Query({{"path", served_->Path("c")}})).json["actions"], "path"),
            (std::vector<std::string>{served_->Path("c/old.txt")}));
  EXPECT_EQ(Admin("/api/v1/policies/actions?policy=purge&run=1&state=done").json["actions"].size(), 3u);
  EXPECT_EQ(Admin("/api/v1/policies/actions?policy=purge&state=failed").json["actions"], json::array());
  Reply bad = Admin("/api/v1/policies/actions?state=gone");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.json["error"], "'state' must be one of started, done, failed, not 'gone'");
}

TEST_F(WebPolicies, RunsOfAPolicyAreListedNewestFirstAndAnUnknownPolicyIsNotFound) {
  Reply r = Admin("/api/v1/policies/purge/runs");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.json["runs"].size(), 1u);
  EXPECT_EQ(r.json["runs"][0]["id"], 1);
  EXPECT_EQ(r.json["runs"][0]["actions"], 3);
  EXPECT_EQ(r.json["next"], nullptr);
  Reply later = Admin("/api/v1/policies/purge/runs" + Query({{"since", "2200-01-01T00:00:00Z"}}));
  ASSERT_EQ(later.status, 200) << later.body;
  EXPECT_EQ(later.json["runs"], json::array());
  Reply unknown = Admin("/api/v1/policies/purg/runs");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.json["error"],
            "no policy 'purg' in " + served_->File("policies.yaml") + " (defined: purge, tidy, idle, slow, broken)");
}

TEST_F(WebPolicies, APreviewListsWhatARunWouldDoAndTheCheckTotalsWithoutChangingAnything) {
  Reply r = Admin("/api/v1/policies/tidy/preview");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Field(r.json["actions"], "path"),
            (std::vector<std::string>{served_->Path("a/b/deep.dat"), served_->Path("a/f20"), served_->Path("a/f19"),
                                      served_->Path("a/f18"), served_->Path("c/mid.txt")}));
  EXPECT_EQ(Field(r.json["actions"], "rule"), (std::vector<std::string>{"big", "big", "big", "big", "recent"}));
  EXPECT_EQ(Field(r.json["actions"], "size"), (std::vector<std::string>{"70000", "2000", "1900", "1800", "5"}));
  EXPECT_EQ(r.json["actions"][0]["action"], "log");
  EXPECT_EQ(r.json["actions"][0]["uid"], 1001);
  EXPECT_EQ(r.json["skipped"], json::array());
  EXPECT_EQ(r.json["truncated"], false);
  // The catalog still holds what the purge removed (no scan since): a/f1, a/f2, c/old.txt.
  EXPECT_EQ(r.json["totals"], json({{"selected", 27},
                                    {"out_of_scope", 0},
                                    {"ignored", 0},
                                    {"no_rule", 4},
                                    {"rules",
                                     {{{"rule", "big"}, {"act", 4}, {"volume", 75700}, {"condition_false", 17}},
                                      {{"rule", "recent"}, {"act", 1}, {"volume", 5}, {"condition_false", 1}}}},
                                    {"ignored_by", json::object()}}));

  Reply two = Admin("/api/v1/policies/tidy/preview?limit=2");
  ASSERT_EQ(two.status, 200) << two.body;
  EXPECT_EQ(Field(two.json["actions"], "path"),
            (std::vector<std::string>{served_->Path("a/b/deep.dat"), served_->Path("a/f20")}));
  EXPECT_EQ(two.json["truncated"], true);

  // The purge's entries are gone from the file system: a run would skip each.
  Reply purge = Admin("/api/v1/policies/purge/preview");
  ASSERT_EQ(purge.status, 200) << purge.body;
  EXPECT_EQ(purge.json["actions"], json::array());
  EXPECT_EQ(Field(purge.json["skipped"], "path"),
            (std::vector<std::string>{served_->Path("a/f2"), served_->Path("a/f1"), served_->Path("c/old.txt")}));
  EXPECT_EQ(purge.json["skipped"][0]["why"], "skipped: no longer there");
  EXPECT_EQ(purge.json["totals"]["rules"][0]["act"], 1);
  EXPECT_EQ(purge.json["totals"]["rules"][1]["act"], 2);

  Reply bad = Admin("/api/v1/policies/tidy/preview?target=colour:red");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.json["error"].get<std::string>().find("expected user:USER"), std::string::npos) << bad.body;
  // A preview journals nothing.
  EXPECT_EQ(Admin("/api/v1/policies/purge/runs").json["runs"].size(), 1u);
}

TEST_F(WebPolicies, ANarrowPreviewCoversItsGrantedSubtreeOnly) {
  Reply r = Narrow("/api/v1/policies/tidy/preview");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Field(r.json["actions"], "path"), (std::vector<std::string>{served_->Path("a/b/deep.dat"),
                                                                         served_->Path("a/f20"), served_->Path("a/f19"),
                                                                         served_->Path("a/f18")}));
  EXPECT_EQ(r.json["totals"]["selected"], 23);  // a, a/b, 20 files and deep.dat
  EXPECT_EQ(r.json["totals"]["no_rule"], 2);
  EXPECT_EQ(r.json["totals"]["rules"][0],
            json({{"rule", "big"}, {"act", 4}, {"volume", 75700}, {"condition_false", 17}}));
  EXPECT_EQ(r.json["totals"]["rules"][1],
            json({{"rule", "recent"}, {"act", 0}, {"volume", 0}, {"condition_false", 0}}));
  Reply other = Narrow("/api/v1/policies/tidy/preview" + Query({{"target", "path:" + served_->Path("c")}}));
  ASSERT_EQ(other.status, 200) << other.body;
  EXPECT_EQ(other.json["actions"], json::array());
  EXPECT_EQ(other.json["totals"]["selected"], 0);
  Reply by_user = Narrow("/api/v1/policies/tidy/preview?target=user:root");
  EXPECT_EQ(by_user.status, 403);
  EXPECT_EQ(by_user.json["error"],
            "a token without the grant / may only give a target path:DIR (an absolute path), not 'user:root'");
}

TEST_F(WebPolicies, ARunIsForAdminsAndIsJournaled) {
  Reply refused = Post("/api/v1/policies/tidy/run", served_->narrow_token());
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.json["error"], "this action needs an admin token (fathom token create --admin)");
  EXPECT_EQ(Post("/api/v1/policies/tidy/run", served_->admin_token(), "[1]").status, 400);
  Reply unknown_key = Post("/api/v1/policies/tidy/run", served_->admin_token(), R"({"dry_run": true})");
  EXPECT_EQ(unknown_key.status, 400);
  EXPECT_EQ(unknown_key.json["error"],
            "unknown key 'dry_run': the body must be a JSON object: {\"target\": \"path:DIR\", \"max_actions\": N}, "
            "both optional");
  Reply zero = Post("/api/v1/policies/tidy/run", served_->admin_token(), R"({"max_actions": 0})");
  EXPECT_EQ(zero.status, 400);
  EXPECT_EQ(zero.json["error"], "'max_actions' must be a whole number from 1, not 0");
  EXPECT_EQ(Post("/api/v1/policies/nothing/run", served_->admin_token()).status, 404);

  Reply run = Post("/api/v1/policies/tidy/run", served_->admin_token(), R"({"max_actions": 2})");
  ASSERT_EQ(run.status, 200) << run.body;
  const json& rec = run.json["run"];
  EXPECT_EQ(rec["policy"], "tidy");
  EXPECT_EQ(rec["user"], "root");
  EXPECT_EQ(rec["state"], "limited");
  EXPECT_EQ(rec["message"], "the limit of 2 actions was reached");
  EXPECT_EQ(rec["actions"], 2);
  EXPECT_EQ(rec["volume"], 72000);
  EXPECT_EQ(run.json["decided"], 5);
  EXPECT_EQ(run.json["resumed"], false);
  const int64_t id = rec["id"];
  Reply actions = Admin("/api/v1/policies/actions" + Query({{"run", std::to_string(id)}}));
  ASSERT_EQ(actions.status, 200) << actions.body;
  EXPECT_EQ(Field(actions.json["actions"], "path"),
            (std::vector<std::string>{served_->Path("a/f20"), served_->Path("a/b/deep.dat")}));
  EXPECT_EQ(Field(actions.json["actions"], "state"), (std::vector<std::string>{"done", "done"}));
  EXPECT_EQ(Field(actions.json["actions"], "action"), (std::vector<std::string>{"log", "log"}));
  Reply list = Admin("/api/v1/policies");
  EXPECT_EQ(PolicyNamed(list.json, "tidy")["last_run"]["id"], id);
  EXPECT_EQ(PolicyNamed(list.json, "tidy")["next_run"], nullptr);

  // An admin granted one subtree runs on it only.
  Reply whole = Post("/api/v1/policies/tidy/run", narrow_admin_);
  EXPECT_EQ(whole.status, 403);
  EXPECT_EQ(whole.json["error"],
            "a token without the grant / may only run a policy on one of its granted paths: give "
            "{\"target\": \"path:DIR\"} with DIR under a grant");
  const std::string body = json({{"target", "path:" + served_->Path("a")}}).dump();
  Reply mine = Post("/api/v1/policies/tidy/run", narrow_admin_, body);
  ASSERT_EQ(mine.status, 200) << mine.body;
  EXPECT_EQ(mine.json["run"]["user"], "alice");
  EXPECT_EQ(mine.json["run"]["target"], "path:" + served_->Path("a"));
  EXPECT_EQ(mine.json["run"]["state"], "done");
  EXPECT_EQ(mine.json["run"]["actions"], 4);
  EXPECT_EQ(mine.json["run"]["id"], id + 1);
  Reply runs = Admin("/api/v1/policies/tidy/runs");
  EXPECT_EQ(Field(runs.json["runs"], "id"), (std::vector<std::string>{std::to_string(id + 1), std::to_string(id)}));
  Reply first = Admin("/api/v1/policies/tidy/runs?limit=1");
  EXPECT_EQ(first.json["next"], json({{"before_id", id + 1}}));
}

TEST_F(WebPolicies, ARunOfAPolicyAlreadyRunningIsRefusedAndARunThatFailsIsJournaledAsFailed) {
  Subprocess slow({FathomBinary(), "policy", "run", "slow", "--config", served_->File("policies.yaml"), "--catalog",
                   served_->catalog()});
  // Its run is journaled, unfinished, while its pre-run command sleeps.
  Reply runs;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    runs = Admin("/api/v1/policies/slow/runs");
    if (runs.status == 200 && !runs.json["runs"].empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(runs.json["runs"].size(), 1u) << runs.body;
  EXPECT_EQ(runs.json["runs"][0]["state"], "unfinished");
  EXPECT_EQ(runs.json["runs"][0]["finished"], nullptr);
  Reply busy = Post("/api/v1/policies/slow/run", served_->admin_token());
  EXPECT_EQ(busy.status, 409);
  EXPECT_EQ(busy.json["error"],
            "policy slow is already running on this catalog (another `fathom policy run`, or the daemon): wait for "
            "it to end, or stop it");
  EXPECT_EQ(slow.Wait(), 0) << slow.stderr_text();
  EXPECT_EQ(Admin("/api/v1/policies/slow/runs").json["runs"][0]["state"], "done");

  Reply broken = Post("/api/v1/policies/broken/run", served_->admin_token());
  EXPECT_EQ(broken.status, 500);
  EXPECT_EQ(broken.json["error"], "policy broken: the run failed: command `/bin/false` exited with status 1");
  Reply failed = Admin("/api/v1/policies/broken/runs");
  ASSERT_EQ(failed.json["runs"].size(), 1u) << failed.body;
  EXPECT_EQ(failed.json["runs"][0]["state"], "failed");
  EXPECT_EQ(failed.json["runs"][0]["message"], "pre_run_command: command `/bin/false` exited with status 1");
}

TEST_F(WebPolicies, MetricsCountTheJournaledRunsAndActions) {
  Reply r = served_->Get("/metrics", "");
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("fathom_policy_journal_up 1"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("fathom_policy_runs_total{policy=\"purge\",state=\"done\"} 1"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("fathom_policy_actions_total{policy=\"purge\",state=\"done\"} 3"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("fathom_policy_actions_total{policy=\"purge\",state=\"failed\"} 0"), std::string::npos);
}

TEST_F(WebPolicies, WithoutThePoliciesFileOrTheCatalogTheCallsSayWhichOptionIsMissing) {
  web::ServeOptions without = served_->options();
  without.policies.clear();
  auto plain = web::WebServer::Start(without);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  httplib::Headers admin = {{"Authorization", "Bearer " + served_->admin_token()}};
  for (const char* call : {"/api/v1/policies", "/api/v1/policies/purge/runs", "/api/v1/policies/purge/preview"}) {
    Reply r = ServedTree::SendTo(**plain, "GET", call, admin);
    EXPECT_EQ(r.status, 503) << call;
    EXPECT_EQ(r.json["error"], "this server has no policies file (fathom serve --policies FILE)") << call;
  }
  EXPECT_EQ(ServedTree::SendTo(**plain, "POST", "/api/v1/policies/purge/run", admin).status, 503);

  web::ServeOptions no_catalog = served_->options();
  no_catalog.catalog.clear();
  auto bare = web::WebServer::Start(no_catalog);
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  Reply runs = ServedTree::SendTo(**bare, "GET", "/api/v1/policies/purge/runs", admin);
  EXPECT_EQ(runs.status, 503);
  EXPECT_EQ(runs.json["error"],
            "this server has no catalog, which holds the policies' journal (fathom serve --catalog URI)");
  Reply preview = ServedTree::SendTo(**bare, "GET", "/api/v1/policies/purge/preview", admin);
  EXPECT_EQ(preview.status, 503);
  EXPECT_EQ(preview.json["error"], "this server has no catalog (fathom serve --catalog URI)");
}

}  // namespace
}  // namespace fathom::testing
