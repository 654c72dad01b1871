// A rule's owner: the rule takes only the events on paths the aggregator's client list grants
// to the client of that name (a grant and what lies below it on a component boundary), and
// `--explain` says so; a rules file naming an owner it cannot resolve is refused with the fix.
#include <fstream>

#include <gtest/gtest.h>

#include "rules/matcher.h"
#include "rules/rule_set.h"
#include "security/curve_keys.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

class RuleOwnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto alice = security::GenerateKeyPair().value();
    auto bob = security::GenerateKeyPair().value();
    std::ofstream(dir_ / "clients.yaml") << "clients:\n"
                                         << "  - name: alice\n    key: \"" << alice.public_key << "\"\n"
                                         << "    roles: [subscribe]\n    paths: [/lab/alice]\n"
                                         << "  - name: bob\n    key: \"" << bob.public_key << "\"\n"
                                         << "    roles: [subscribe]\n    paths: [/lab/bob, /shared]\n";
  }

  Result<RuleSet> Load(const std::string& yaml) {
    const std::string file = dir_ / "rules.yaml";
    std::ofstream(file) << yaml;
    return LoadRuleSet(file);
  }

  static Event At(const std::string& path) {
    Event e;
    e.id = 1;
    e.mask = kind::kCloseWrite;
    e.path = path;
    return e;
  }

  ::fathom::testing::TempDir dir_;
};

constexpr const char* kOwned = R"(clients: clients.yaml
rules:
  - name: alices
    path: "/**"
    owner: alice
    action: {command: [/bin/true]}
  - name: bobs
    path: "/**"
    owner: bob
    action: {command: [/bin/true]}
  - name: anyones
    path: "/**"
    action: {command: [/bin/true]}
)";

TEST_F(RuleOwnerTest, AnOwnedRuleTakesOnlyTheEventsGrantedToItsOwner) {
  auto set = Load(kOwned);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->rules[0].owner_paths, std::vector<std::string>{"/lab/alice"});
  Matcher matcher(*set, nullptr);
  auto taken = [&](const std::string& path) {
    std::vector<size_t> out;
    matcher.Match(At(path), 0, out);
    return out;
  };
  EXPECT_EQ(taken("/lab/alice/run1/x.h5"), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(taken("/lab/alice"), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(taken("/lab/bob/y"), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(taken("/shared/z"), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(taken("/lab/alicex/z"), (std::vector<size_t>{2}));
  EXPECT_EQ(taken("/etc/passwd"), (std::vector<size_t>{2}));
  EXPECT_EQ(matcher.Explain(At("/lab/bob/y"), 0, 0), "path /lab/bob/y is not granted to its owner alice");
  EXPECT_EQ(matcher.Explain(At("/lab/alice/y"), 0, 0), "");
}

TEST_F(RuleOwnerTest, AnOwnerThatCannotBeResolvedIsRefusedWithTheFix) {
  auto no_clients = Load("rules:\n  - name: r\n    path: /a\n    owner: alice\n    action: {command: [/bin/true]}\n");
  ASSERT_FALSE(no_clients.ok());
  EXPECT_NE(no_clients.status().message().find(
                "line 4, column 12: rule r, owner: needs clients: (the aggregator's client list) to know what alice "
                "may see"),
            std::string::npos)
      << no_clients.status().message();
  auto unknown = Load("clients: clients.yaml\nrules:\n  - name: r\n    path: /a\n    owner: carol\n"
                      "    action: {command: [/bin/true]}\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("rule r, owner: no client named 'carol' in clients.yaml"),
            std::string::npos)
      << unknown.status().message();
  auto missing = Load("clients: nosuch.yaml\nrules:\n  - name: r\n    path: /a\n    owner: alice\n"
                      "    action: {command: [/bin/true]}\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("line 1, column 10: clients: "), std::string::npos)
      << missing.status().message();
}

}  // namespace
}  // namespace fathom::rules
