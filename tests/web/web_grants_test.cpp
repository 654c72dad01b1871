// web_grants_test.cpp — a token granting one subtree sees nothing of other paths: not their
// events (search, by id, live), not their catalog entries, totals or removed entries.
#include <gtest/gtest.h>

#include <fstream>

#include "fathom/event.h"
#include "web/served_tree.h"

namespace fathom::testing {
namespace {

using nlohmann::json;

class WebGrants : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { served_ = new ServedTree(); }
  static void TearDownTestSuite() {
    delete served_;
    served_ = nullptr;
  }
  static Reply Narrow(const std::string& target) { return served_->Get(target, served_->narrow_token()); }
  static ServedTree* served_;
};
ServedTree* WebGrants::served_ = nullptr;

TEST_F(WebGrants, WhoAmIShowsTheUserAndItsOneGrant) {
  Reply r = Narrow("/api/v1/whoami");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json["user"], "nobody");
  EXPECT_EQ(r.json["admin"], false);
  EXPECT_EQ(r.json["paths"], json::array({served_->Path("a")}));
}

TEST_F(WebGrants, EventsOutsideTheGrantAreNeitherListedNorGivenById) {
  Reply all = served_->Get("/api/v1/events?limit=1000", served_->admin_token());
  Reply mine = Narrow("/api/v1/events?limit=1000");
  ASSERT_EQ(mine.status, 200) << mine.body;
  size_t expected = 0;
  uint64_t foreign_id = 0;
  for (const auto& e : all.json["events"]) {
    if (PathUnder(e["path"].get<std::string>(), served_->Path("a"))) {
      ++expected;
    } else {
      foreign_id = e["id"];
    }
  }
  EXPECT_GT(expected, 0u);
  EXPECT_EQ(mine.json["events"].size(), expected);
  for (const auto& e : mine.json["events"]) EXPECT_TRUE(PathUnder(e["path"].get<std::string>(), served_->Path("a"))) << e;
  ASSERT_NE(foreign_id, 0u);
  EXPECT_EQ(Narrow("/api/v1/events/" + std::to_string(foreign_id)).status, 404);
  EXPECT_EQ(served_->Get("/api/v1/events/" + std::to_string(foreign_id), served_->admin_token()).status, 200);
}

TEST_F(WebGrants, TheLiveStreamCarriesGrantedPathsOnly) {
  std::string url = served_->server().Url();
  httplib::Client client(url.substr(0, url.size() - 1));
  client.set_read_timeout(30, 0);
  std::string hidden = served_->Path("c/hidden.txt");
  std::string seen = served_->Path("a/seen.txt");
  std::string text;
  bool made = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  client.Get("/api/v1/events/stream", {{"Authorization", "Bearer " + served_->narrow_token()}},
             [&](const char* data, size_t n) {
               text.append(data, n);
               if (!made) {
                 made = true;
                 std::ofstream(hidden) << "x";  // first: the stream reaches seen.txt after it
                 std::ofstream(seen) << "y";
               }
               return text.find(seen) == std::string::npos && std::chrono::steady_clock::now() < deadline;
             });
  EXPECT_NE(text.find("\"path\":\"" + seen + "\""), std::string::npos) << text;
  EXPECT_EQ(text.find("hidden.txt"), std::string::npos) << text;
}

TEST_F(WebGrants, CatalogAnswersAreSummedOverTheGrantedSubtreeOnly) {
  Reply usage = Narrow("/api/v1/catalog/usage?by=user");
  ASSERT_EQ(usage.status, 200) << usage.body;
  std::map<uint32_t, uint64_t> counts;
  for (const auto& row : usage.json["rows"]) counts[row["id"].get<uint32_t>()] = row["count"];
  EXPECT_EQ(counts, (std::map<uint32_t, uint64_t>{{0, 20}, {1000, 2}, {1001, 1}}));  // a/, a/b/ and 18 files

  Reply profile = Narrow("/api/v1/catalog/size-profile");
  ASSERT_EQ(profile.status, 200) << profile.body;
  std::vector<uint64_t> buckets;
  for (const auto& b : profile.json["buckets"]) buckets.push_back(b["count"]);
  EXPECT_EQ(buckets, (std::vector<uint64_t>{0, 0, 10, 10, 1, 0, 0, 0, 0, 0}));

  Reply top = Narrow("/api/v1/catalog/top-dirs");
  ASSERT_EQ(top.status, 200) << top.body;
  std::vector<std::string> dirs;
  for (const auto& d : top.json["dirs"]) dirs.push_back(d["path"]);
  EXPECT_EQ(dirs, (std::vector<std::string>{served_->Path("a"), served_->Path("a/b")}));

  Reply summary = Narrow("/api/v1/catalog/summary");
  ASSERT_EQ(summary.status, 200) << summary.body;
  EXPECT_EQ(summary.json["entries"], 23);
  EXPECT_EQ(summary.json["roots"], json::array());
  EXPECT_EQ(summary.json["removed"], nullptr);

  Reply removed = Narrow("/api/v1/catalog/removed");
  ASSERT_EQ(removed.status, 200);
  EXPECT_EQ(removed.json["removed"], json::array());  // c/gone.txt is not granted
}

TEST_F(WebGrants, TheSubtreeOfAnotherPathIsNotFoundAndItsParentShowsOnlyTheWayToTheGrant) {
  EXPECT_EQ(Narrow("/api/v1/catalog/subtree" + Query({{"path", served_->Path("c")}})).status, 404);
  Reply parent = Narrow("/api/v1/catalog/subtree" + Query({{"path", served_->tree()}}));
  ASSERT_EQ(parent.status, 200) << parent.body;
  EXPECT_EQ(parent.json["totals"], nullptr);
  ASSERT_EQ(parent.json["children"].size(), 1u) << parent.body;
  EXPECT_EQ(parent.json["children"][0]["path"], served_->Path("a"));
  Reply root = Narrow("/api/v1/catalog/subtree?path=/");
  ASSERT_EQ(root.status, 200) << root.body;
  ASSERT_EQ(root.json["children"].size(), 1u);
  EXPECT_EQ(root.json["children"][0]["path"], served_->tree());
  EXPECT_EQ(root.json["children"][0]["totals"], nullptr);
}

TEST_F(WebGrants, TheOverviewHidesTheWholeCatalogAndOtherPathsRates) {
  Reply r = Narrow("/api/v1/overview");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(r.json["catalog"].contains("entries")) << r.body;
  EXPECT_EQ(r.json["rates"]["series"], json::array());
}

}  // namespace
}  // namespace fathom::testing
