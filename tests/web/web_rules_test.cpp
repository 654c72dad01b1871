// web_rules_test.cpp — /api/v1/rules over a real run (served_tree.h): a rules file whose
// `ingest` rule succeeds and whose `reject` rule fails (`false`, one attempt) on every file
// closed in the watched tree, driven by `fathom rules run` over the store `fathom watch`
// wrote; then the rules with their counts, the deliveries and dead letters newest first,
// what a token granting one subtree sees, the replay of a dead delivery by an admin only,
// /metrics, and the answers of a server without the rules file or before the outbox exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "fathom/event.h"
#include "fathom/store.h"
#include "rules/outbox/outbox.h"
#include "rules/rule_set.h"
#include "web/served_tree.h"

namespace fathom::testing {
namespace {

using nlohmann::json;

class WebRules : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    served_ = new ServedTree({.policies = "", .rules = "rules.yaml"});
    const std::string t = served_->tree();
    std::ofstream(served_->File("rules.yaml")) << "outbox: " << served_->File("rules.db") << "\n"
                                               << "rules:\n"
                                               << "  - name: ingest\n"
                                               << "    kinds: [CLOSE_WRITE]\n"
                                               << "    path: \"" << t << "/**\"\n"
                                               << "    action: {command: [/bin/true], allow_root: true}\n"
                                               << "  - name: reject\n"
                                               << "    kinds: [CLOSE_WRITE]\n"
                                               << "    path: \"" << t << "/**\"\n"
                                               << "    retry: {max_attempts: 1}\n"
                                               << "    action: {command: [/bin/false], allow_root: true}\n";
    RunRules();
    // The files closed in the tree after the watch started, by their CLOSE_WRITE's id.
    StoreOptions so;
    so.path = served_->store();
    so.read_only = true;
    auto store = EventStore::Open(so);
    if (!store.ok()) throw std::runtime_error(store.status().message());
    Status s = (*store)->Replay({}, [&](const Event& e) {
      if (e.mask & kind::kCloseWrite) closed_[e.id] = e.path;
      return true;
    });
    if (!s.ok()) throw std::runtime_error(s.message());
    auto set = rules::LoadRuleSet(served_->File("rules.yaml"));
    if (!set.ok()) throw std::runtime_error(set.status().message());
    for (const rules::Rule& r : set->rules) versions_[r.name] = r.version;
  }
  static void TearDownTestSuite() {
    delete served_;
    served_ = nullptr;
  }

  static void RunRules() {
    RunResult r = testing::Run({FathomBinary(), "rules", "run", "--config", served_->File("rules.yaml"), "--store",
                       served_->store(), "--until-idle"});
    if (r.exit_code != 0) throw std::runtime_error("fathom rules run failed: " + r.err);
  }
  static Reply Admin(const std::string& target) { return served_->Get(target, served_->admin_token()); }
  static Reply Narrow(const std::string& target) { return served_->Get(target, served_->narrow_token()); }
  static Reply Post(const std::string& target, const std::string& token) {
    return served_->Send("POST", target, {{"Authorization", "Bearer " + token}});
  }
  // The delivery of `rule` for the event that closed `path`.
  static std::string DeliveryOf(const std::string& rule, const std::string& path) {
    for (const auto& [id, p] : closed_) {
      if (p == path) {
        std::vector<uint64_t> ids = {id};
        return rules::DeliveryId(rule, versions_[rule], ids);
      }
    }
    throw std::runtime_error("no CLOSE_WRITE of " + path);
  }
  static uint64_t ClosedId(const std::string& path) {
    for (const auto& [id, p] : closed_) {
      if (p == path) return id;
    }
    return 0;
  }

  static ServedTree* served_;
  static std::map<uint64_t, std::string> closed_;
  static std::map<std::string, std::string> versions_;
};
ServedTree* WebRules::served_ = nullptr;
std::map<uint64_t, std::string> WebRules::closed_;
std::map<std::string, std::string> WebRules::versions_;

std::vector<std::string> Field(const json& rows, const char* name) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r[name].is_string() ? r[name].get<std::string>() : r[name].dump());
  return out;
}

TEST_F(WebRules, TheFilesClosedInTheTreeAreTheOnesTheRulesSaw) {
  std::vector<std::string> paths;
  for (const auto& [id, p] : closed_) paths.push_back(p);
  EXPECT_EQ(paths, (std::vector<std::string>{served_->Path("a/b/deep.dat"), served_->Path("c/old.txt"),
                                             served_->Path("c/mid.txt"), served_->Path("c/gone.txt")}));
}

TEST_F(WebRules, EachRuleIsListedWithItsDeliveriesCountedByState) {
  Reply r = Admin("/api/v1/rules");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json["source"], served_->File("rules.yaml"));
  EXPECT_EQ(r.json["outbox"], served_->File("rules.db"));
  EXPECT_EQ(r.json["outbox_exists"], true);
  ASSERT_EQ(r.json["rules"].size(), 2u) << r.body;
  const json& ingest = r.json["rules"][0];
  EXPECT_EQ(ingest["name"], "ingest");
  EXPECT_EQ(ingest["defined"], true);
  EXPECT_EQ(ingest["version"], versions_["ingest"]);
  EXPECT_EQ(ingest["kinds"], json::array({"CLOSE_WRITE"}));
  EXPECT_EQ(ingest["paths"], json::array({served_->tree() + "/**"}));
  EXPECT_EQ(ingest["ignore"], json::array());
  EXPECT_EQ(ingest["condition"], nullptr);
  EXPECT_EQ(ingest["action"], "command");
  EXPECT_EQ(ingest["max_attempts"], 10);
  EXPECT_EQ(ingest["counts"],
            json({{"pending", 0}, {"running", 0}, {"waiting", 0}, {"succeeded", 4}, {"dead", 0}, {"retried", 0}}));
  EXPECT_EQ(ingest["last_event"], closed_.rbegin()->first);
  EXPECT_EQ(ingest["last_result"], "exit 0");
  EXPECT_EQ(ingest["paused"], nullptr);
  EXPECT_EQ(ingest["webhook_disabled"], nullptr);
  const json& reject = r.json["rules"][1];
  EXPECT_EQ(reject["name"], "reject");
  EXPECT_EQ(reject["max_attempts"], 1);
  EXPECT_EQ(reject["counts"],
            json({{"pending", 0}, {"running", 0}, {"waiting", 0}, {"succeeded", 0}, {"dead", 4}, {"retried", 0}}));
  EXPECT_EQ(reject["last_result"], "exit 1");
}

TEST_F(WebRules, ANarrowTokenSeesAndCountsTheDeliveriesOfItsPathsOnly) {
  Reply r = Narrow("/api/v1/rules");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.json["rules"].size(), 2u) << r.body;
  EXPECT_EQ(r.json["rules"][0]["counts"]["succeeded"], 1);  // a/b/deep.dat
  EXPECT_EQ(r.json["rules"][0]["last_event"], ClosedId(served_->Path("a/b/deep.dat")));
  EXPECT_EQ(r.json["rules"][1]["counts"]["dead"], 1);
  Reply mine = Narrow("/api/v1/rules/deliveries");
  ASSERT_EQ(mine.status, 200) << mine.body;
  EXPECT_EQ(Field(mine.json["deliveries"], "path"),
            (std::vector<std::string>{served_->Path("a/b/deep.dat"), served_->Path("a/b/deep.dat")}));
  Reply dead = Narrow("/api/v1/rules/dead");
  ASSERT_EQ(dead.status, 200) << dead.body;
  EXPECT_EQ(Field(dead.json["deliveries"], "id"),
            (std::vector<std::string>{DeliveryOf("reject", served_->Path("a/b/deep.dat"))}));
}

TEST_F(WebRules, DeliveriesAreNewestFirstWithTheirStateAttemptsAndResultAndPage) {
  Reply r = Admin("/api/v1/rules/deliveries");
  ASSERT_EQ(r.status, 200) << r.body;
  const json& d = r.json["deliveries"];
  ASSERT_EQ(d.size(), 8u) << r.body;
  EXPECT_EQ(r.json["next"], nullptr);
  std::vector<uint64_t> seqs;
  for (const auto& x : d) {
    seqs.push_back(x["seq"]);
    const std::string rule = x["rule"];
    const std::string path = x["path"];
    EXPECT_EQ(x["id"], DeliveryOf(rule, path)) << x;
    EXPECT_EQ(x["rule_version"], versions_[rule]);
    EXPECT_EQ(x["paths"], json::array({path}));
    EXPECT_EQ(x["event_ids"], json::array({ClosedId(path)}));
    EXPECT_EQ(x["state"], rule == "ingest" ? "succeeded" : "dead") << x;
    EXPECT_EQ(x["attempts"], 1);
    EXPECT_EQ(x["last_result"], rule == "ingest" ? "exit 0" : "exit 1");
    EXPECT_EQ(x["next_ns"], nullptr);
    EXPECT_EQ(x["lease_until_ns"], nullptr);
    EXPECT_GE(x["finished_ns"].get<int64_t>(), x["created_ns"].get<int64_t>());
  }
  EXPECT_TRUE(std::is_sorted(seqs.rbegin(), seqs.rend())) << r.body;
  EXPECT_EQ(seqs.front(), 8u);
  EXPECT_EQ(seqs.back(), 1u);

  std::vector<std::string> paged;
  std::string cursor;
  for (int page = 0; page < 10; ++page) {
    std::vector<std::pair<std::string, std::string>> q = {{"limit", "3"}};
    if (!cursor.empty()) q.push_back({"before", cursor});
    Reply p = Admin("/api/v1/rules/deliveries" + Query(q));
    ASSERT_EQ(p.status, 200) << p.body;
    for (const auto& x : p.json["deliveries"]) paged.push_back(x["id"]);
    if (p.json["next"].is_null()) break;
    cursor = std::to_string(p.json["next"]["before"].get<uint64_t>());
  }
  EXPECT_EQ(paged, Field(d, "id"));

  Reply dead = Admin("/api/v1/rules/deliveries?rule=reject&state=dead");
  EXPECT_EQ(Field(dead.json["deliveries"], "rule"), std::vector<std::string>(4, "reject"));
  EXPECT_EQ(Admin("/api/v1/rules/deliveries?rule=ingest&state=dead").json["deliveries"], json::array());
  Reply bad = Admin("/api/v1/rules/deliveries?state=lost");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.json["error"], "'state' must be one of pending, running, waiting, succeeded, dead, not 'lost'");
}

TEST_F(WebRules, TheDeadLettersAreTheFailedRulesDeliveries) {
  Reply r = Admin("/api/v1/rules/dead");
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<std::string> paths = Field(r.json["deliveries"], "path");
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{served_->Path("a/b/deep.dat"), served_->Path("c/gone.txt"),
                                             served_->Path("c/mid.txt"), served_->Path("c/old.txt")}));
  Reply one = Admin("/api/v1/rules/dead?rule=reject&limit=1");
  ASSERT_EQ(one.json["deliveries"].size(), 1u);
  EXPECT_EQ(one.json["next"], json({{"before", one.json["deliveries"][0]["seq"]}}));
}

TEST_F(WebRules, AnAdminReplaysADeadDeliveryAndTheRunnerRunsItAgain) {
  const std::string deep = DeliveryOf("reject", served_->Path("a/b/deep.dat"));
  const std::string target = "/api/v1/rules/deliveries/" + deep + "/replay";
  Reply refused = Post(target, served_->narrow_token());
  EXPECT_EQ(refused.status, 403);
  Reply unknown = Post("/api/v1/rules/deliveries/fd_00000000000000000000000000000000/replay", served_->admin_token());
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.json["error"], "no delivery fd_00000000000000000000000000000000 in " + served_->File("rules.db") +
                                       " among those you may see");
  // An admin granted a/ only knows nothing of c/'s deliveries.
  RunResult made = testing::Run({FathomBinary(), "token", "create", "--tokens", served_->tokens(), "--user", "alice",
                                 "--paths", served_->Path("a"), "--admin"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string narrow_admin = made.out.substr(0, made.out.find('\n'));
  const std::string old = DeliveryOf("reject", served_->Path("c/old.txt"));
  Reply foreign = Post("/api/v1/rules/deliveries/" + old + "/replay", narrow_admin);
  EXPECT_EQ(foreign.status, 404);
  EXPECT_EQ(foreign.json["error"],
            "no delivery " + old + " in " + served_->File("rules.db") + " among those you may see");
  Reply alive = Post("/api/v1/rules/deliveries/" + DeliveryOf("ingest", served_->Path("a/b/deep.dat")) + "/replay",
                     served_->admin_token());
  EXPECT_EQ(alive.status, 409);
  EXPECT_EQ(alive.json["error"], "delivery " + DeliveryOf("ingest", served_->Path("a/b/deep.dat")) +
                                     " is succeeded, not dead: only dead deliveries are replayed");

  Reply done = Post(target, served_->admin_token());
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(done.json["delivery"]["id"], deep);
  EXPECT_EQ(done.json["delivery"]["state"], "pending");
  EXPECT_EQ(done.json["delivery"]["attempts"], 0);
  auto outbox = rules::Outbox::Open(served_->File("rules.db"), true);
  ASSERT_TRUE(outbox.ok()) << outbox.status().message();
  auto got = (*outbox)->Get(deep);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->state, rules::DeliveryState::kPending);
  Reply rules_now = Admin("/api/v1/rules");
  EXPECT_EQ(rules_now.json["rules"][1]["counts"]["dead"], 3);
  EXPECT_EQ(rules_now.json["rules"][1]["counts"]["pending"], 1);
  EXPECT_EQ(Admin("/api/v1/rules/dead").json["deliveries"].size(), 3u);

  // The runner takes it again: it fails again and is dead after one more attempt.
  RunRules();
  Reply after = Admin("/api/v1/rules/dead?rule=reject");
  ASSERT_EQ(after.json["deliveries"].size(), 4u) << after.body;
  for (const auto& x : after.json["deliveries"]) {
    EXPECT_EQ(x["attempts"], 1) << x;  // counted afresh from the replay
    EXPECT_EQ(x["last_result"], "exit 1");
  }
  EXPECT_EQ(Admin("/api/v1/rules").json["rules"][1]["counts"]["dead"], 4);
}

TEST_F(WebRules, MetricsGiveTheDeliveriesPerRuleAndState) {
  Reply r = served_->Get("/metrics", "");
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("fathom_rules_outbox_up 1"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("fathom_rule_deliveries{rule=\"ingest\",state=\"succeeded\"} 4"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("fathom_rule_deliveries{rule=\"reject\",state=\"dead\"} 4"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("fathom_rule_deliveries{rule=\"reject\",state=\"pending\"} 0"), std::string::npos) << r.body;
}

TEST_F(WebRules, WithoutTheRulesFileTheCallsSayWhichOptionIsMissingAndANewOutboxIsEmpty) {
  httplib::Headers admin = {{"Authorization", "Bearer " + served_->admin_token()}};
  web::ServeOptions without = served_->options();
  without.rules.clear();
  auto plain = web::WebServer::Start(without);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  for (const char* call : {"/api/v1/rules", "/api/v1/rules/deliveries", "/api/v1/rules/dead"}) {
    Reply r = ServedTree::SendTo(**plain, "GET", call, admin);
    EXPECT_EQ(r.status, 503) << call;
    EXPECT_EQ(r.json["error"], "this server has no rules file (fathom serve --rules FILE)") << call;
  }
  EXPECT_EQ(ServedTree::SendTo(**plain, "POST", "/api/v1/rules/deliveries/fd_1/replay", admin).status, 503);

  // A rules file whose runner never ran: its rules, nothing delivered yet.
  std::ofstream(served_->File("fresh.yaml")) << "outbox: " << served_->File("fresh.db") << "\n"
                                             << "rules:\n"
                                             << "  - name: notify\n"
                                             << "    path: \"/nowhere/**\"\n"
                                             << "    action: {command: [/bin/true], allow_root: true}\n";
  web::ServeOptions fresh = served_->options();
  fresh.rules = served_->File("fresh.yaml");
  auto second = web::WebServer::Start(fresh);
  ASSERT_TRUE(second.ok()) << second.status().message();
  Reply r = ServedTree::SendTo(**second, "GET", "/api/v1/rules", admin);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json["outbox_exists"], false);
  EXPECT_EQ(r.json["rules"][0]["name"], "notify");
  EXPECT_EQ(r.json["rules"][0]["counts"]["pending"], 0);
  EXPECT_EQ(r.json["rules"][0]["last_event"], nullptr);
  Reply none = ServedTree::SendTo(**second, "GET", "/api/v1/rules/deliveries", admin);
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(none.json["deliveries"], json::array());
}

}  // namespace
}  // namespace fathom::testing
