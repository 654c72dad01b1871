// web_api_test.cpp — the REST API of `fathom serve` over a real run (served_tree.h): events
// searched and paged, one event, the live stream, the catalog's answers computed from the
// tree the test made, the overview, /metrics and the health checks.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <set>
#include <thread>

#include "fathom/store.h"
#include "web/served_tree.h"

namespace fathom::testing {
namespace {

using nlohmann::json;

class WebApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { served_ = new ServedTree(); }
  static void TearDownTestSuite() {
    delete served_;
    served_ = nullptr;
  }
  static Reply Admin(const std::string& target) { return served_->Get(target, served_->admin_token()); }
  static ServedTree* served_;
};
ServedTree* WebApi::served_ = nullptr;

std::vector<std::string> PathsOf(const json& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e["path"]);
  return out;
}

TEST_F(WebApi, EventsUnderAPrefixOfOneKindAreExactlyThoseStored) {
  Reply r = Admin("/api/v1/events" + Query({{"prefix", served_->Path("c")}, {"kinds", "DELETE"}}));
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.json["events"].size(), 1u) << r.body;
  EXPECT_EQ(r.json["events"][0]["path"], served_->Path("c/gone.txt"));
  EXPECT_EQ(r.json["events"][0]["kinds"], json::array({"DELETE"}));
  EXPECT_EQ(r.json["events"][0]["root"], served_->tree());
  EXPECT_EQ(r.json["next"], nullptr);
}

TEST_F(WebApi, EventPagesFollowTheirCursorNewestFirstWithoutGapsOrRepeats) {
  std::string prefix = served_->Path("c");
  Reply all = Admin("/api/v1/events" + Query({{"prefix", prefix}, {"limit", "1000"}}));
  ASSERT_EQ(all.status, 200);
  std::vector<uint64_t> expected;
  for (const auto& e : all.json["events"]) expected.push_back(e["id"]);
  ASSERT_GE(expected.size(), 6u) << all.body;  // old, mid, gone: each at least CREATE and CLOSE_WRITE
  std::vector<uint64_t> paged;
  std::string cursor;
  for (int page = 0; page < 100; ++page) {
    std::vector<std::pair<std::string, std::string>> q = {{"prefix", prefix}, {"limit", "2"}};
    if (!cursor.empty()) q.push_back({"before_id", cursor});
    Reply r = Admin("/api/v1/events" + Query(q));
    ASSERT_EQ(r.status, 200) << r.body;
    for (const auto& e : r.json["events"]) paged.push_back(e["id"]);
    if (r.json["next"].is_null()) break;
    cursor = std::to_string(r.json["next"]["before_id"].get<uint64_t>());
  }
  EXPECT_EQ(paged, expected);
  EXPECT_TRUE(std::is_sorted(paged.rbegin(), paged.rend()));
  EXPECT_EQ(std::set<uint64_t>(paged.begin(), paged.end()).size(), paged.size());
}

TEST_F(WebApi, EventsInATimeRangeAreThoseWhoseTimeLiesInIt) {
  Reply all = Admin("/api/v1/events?limit=1000");
  ASSERT_EQ(all.status, 200);
  const json& events = all.json["events"];
  ASSERT_GE(events.size(), 3u);
  int64_t since = events[events.size() - 1]["ts_ns"].get<int64_t>() + 1;
  int64_t until = events[0]["ts_ns"].get<int64_t>();
  size_t expected = 0;
  for (const auto& e : events) expected += e["ts_ns"].get<int64_t>() >= since && e["ts_ns"].get<int64_t>() < until;
  Reply r = Admin("/api/v1/events" + Query({{"since", std::to_string(since)}, {"until", std::to_string(until)},
                                            {"limit", "1000"}}));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json["events"].size(), expected);
  for (const auto& e : r.json["events"]) {
    EXPECT_GE(e["ts_ns"].get<int64_t>(), since);
    EXPECT_LT(e["ts_ns"].get<int64_t>(), until);
  }
}

TEST_F(WebApi, OneEventByItsIdAndAMissingOneIs404) {
  Reply list = Admin("/api/v1/events?limit=1");
  ASSERT_EQ(list.status, 200);
  uint64_t id = list.json["events"][0]["id"];
  Reply one = Admin("/api/v1/events/" + std::to_string(id));
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.json, list.json["events"][0]);
  Reply missing = Admin("/api/v1/events/" + std::to_string(id + 1000000));
  EXPECT_EQ(missing.status, 404);
  EXPECT_TRUE(missing.json.contains("error"));
}

// Reads the event stream until `until` returns true for the text received or `timeout` passes.
std::string ReadStream(const ServedTree& served, const std::string& target, const std::string& token,
                       const std::function<void()>& after_connect, const std::function<bool(const std::string&)>& until,
                       std::chrono::seconds timeout) {
  std::string url = const_cast<ServedTree&>(served).server().Url();
  httplib::Client client(url.substr(0, url.size() - 1));
  client.set_read_timeout(timeout.count(), 0);
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool connected = false;
  httplib::Headers headers = {{"Authorization", "Bearer " + token}};
  client.Get(target.c_str(), headers, [&](const char* data, size_t n) {
    text.append(data, n);
    if (!connected) {
      connected = true;
      after_connect();
    }
    return !until(text) && std::chrono::steady_clock::now() < deadline;
  });
  return text;
}

TEST_F(WebApi, TheLiveStreamCarriesAFileMadeWhileItIsOpenAndTheRates) {
  std::string live = served_->Path("a/live.txt");
  std::string text = ReadStream(
      *served_, "/api/v1/events/stream", served_->admin_token(),
      [&] { std::ofstream(live) << "now"; },
      [&](const std::string& t) {
        return t.find("\"path\":\"" + live + "\"") != std::string::npos && t.find("event: rates") != std::string::npos;
      },
      std::chrono::seconds(30));
  EXPECT_NE(text.find("event: events\ndata: ["), std::string::npos) << text;
  EXPECT_NE(text.find("\"path\":\"" + live + "\""), std::string::npos) << text;
  EXPECT_NE(text.find("event: rates\ndata: {"), std::string::npos) << text;
}

TEST_F(WebApi, UsageByUserCountsTheTreesOwners) {
  Reply r = Admin("/api/v1/catalog/usage?by=user");
  ASSERT_EQ(r.status, 200) << r.body;
  std::map<uint32_t, json> rows;
  for (const auto& row : r.json["rows"]) rows[row["id"].get<uint32_t>()] = row;
  ASSERT_TRUE(rows.count(1000) && rows.count(1001)) << r.body;
  EXPECT_EQ(rows[1000]["count"], 2);
  EXPECT_EQ(rows[1000]["size"], 300);
  EXPECT_EQ(rows[1001]["count"], 1);
  EXPECT_EQ(rows[1001]["size"], 70000);
  // root: a/f3..f20, c/old.txt, c/mid.txt and the four directories.
  EXPECT_EQ(rows[0]["count"], 24);
  EXPECT_EQ(r.json["rows"][0]["id"], 1001);  // largest volume first
}

TEST_F(WebApi, UsageByTypeCountsFilesAndDirectories) {
  Reply r = Admin("/api/v1/catalog/usage?by=type");
  ASSERT_EQ(r.status, 200) << r.body;
  std::map<std::string, uint64_t> counts;
  for (const auto& row : r.json["rows"]) counts[row["key"]] = row["count"];
  EXPECT_EQ(counts["file"], 23u);
  EXPECT_EQ(counts["dir"], 4u);
}

TEST_F(WebApi, TheSizeProfileHasRobinhoodsTenBucketsWithTheTreesCounts) {
  Reply r = Admin("/api/v1/catalog/size-profile");
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<uint64_t> counts;
  for (const auto& b : r.json["buckets"]) counts.push_back(b["count"]);
  EXPECT_EQ(counts, (std::vector<uint64_t>{0, 2, 10, 10, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(r.json["buckets"][2]["min"], 32);
  EXPECT_EQ(r.json["buckets"][2]["max"], 1023);
  EXPECT_EQ(r.json["buckets"][9]["max"], nullptr);
  Reply under = Admin("/api/v1/catalog/size-profile" + Query({{"path", served_->Path("c")}}));
  ASSERT_EQ(under.status, 200) << under.body;
  EXPECT_EQ(under.json["buckets"][1]["count"], 2);
  EXPECT_EQ(under.json["buckets"][2]["count"], 0);
}

TEST_F(WebApi, TheAgeHistogramPutsEachFileInItsRange) {
  Reply r = Admin("/api/v1/catalog/age-histogram?time=mtime");
  ASSERT_EQ(r.status, 200) << r.body;
  std::map<std::string, json> ranges;
  for (const auto& range : r.json["ranges"]) ranges[range["label"]] = range;
  EXPECT_EQ(ranges["0~1d"]["count"], 21);
  EXPECT_EQ(ranges["1w~30d"]["count"], 1);
  EXPECT_EQ(ranges["1w~30d"]["size"], 5);
  EXPECT_EQ(ranges["1y~2y"]["count"], 1);
  EXPECT_EQ(ranges["1y~2y"]["size"], 10);
  EXPECT_EQ(ranges["+2y"]["count"], 0);
}

TEST_F(WebApi, TopDirectoriesAreOrderedByTheirSubtreeTotals) {
  Reply by_count = Admin("/api/v1/catalog/top-dirs?by=count");
  ASSERT_EQ(by_count.status, 200) << by_count.body;
  std::vector<std::string> paths;
  for (const auto& d : by_count.json["dirs"]) paths.push_back(d["path"]);
  EXPECT_EQ(paths, (std::vector<std::string>{served_->tree(), served_->Path("a"), served_->Path("c"),
                                             served_->Path("a/b")}));
  EXPECT_EQ(by_count.json["dirs"][0]["entries"], 27);
  EXPECT_EQ(by_count.json["dirs"][1]["size"], 91000 + 2 * 4096);
  Reply top1 = Admin("/api/v1/catalog/top-dirs?by=size&limit=1");
  ASSERT_EQ(top1.json["dirs"].size(), 1u);
  EXPECT_EQ(top1.json["dirs"][0]["path"], served_->tree());
}

TEST_F(WebApi, ASubtreeGivesItsTotalsAndPagesOfChildren) {
  Reply r = Admin("/api/v1/catalog/subtree" + Query({{"path", served_->Path("a")}, {"limit", "5"}}));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json["totals"]["files"], 21);
  EXPECT_EQ(r.json["totals"]["dirs"], 2);
  EXPECT_EQ(PathsOf(r.json["children"]),
            (std::vector<std::string>{served_->Path("a/b"), served_->Path("a/f1"), served_->Path("a/f10"),
                                      served_->Path("a/f11"), served_->Path("a/f12")}));
  EXPECT_EQ(r.json["children"][0]["type"], "dir");
  EXPECT_EQ(r.json["children"][0]["totals"]["files"], 1);
  EXPECT_EQ(r.json["children"][1]["uid"], 1000);
  EXPECT_EQ(r.json["next"]["offset"], 5);
  Reply page2 = Admin("/api/v1/catalog/subtree" + Query({{"path", served_->Path("a")}, {"offset", "19"}}));
  ASSERT_EQ(page2.status, 200);
  EXPECT_EQ(PathsOf(page2.json["children"]), (std::vector<std::string>{served_->Path("a/f8"), served_->Path("a/f9")}));
  EXPECT_EQ(page2.json["next"], nullptr);
  Reply none = Admin("/api/v1/catalog/subtree" + Query({{"path", served_->Path("nothing")}}));
  EXPECT_EQ(none.status, 404);
}

TEST_F(WebApi, RemovedEntriesListWhatTheSecondScanFoundGone) {
  Reply r = Admin("/api/v1/catalog/removed" + Query({{"path", served_->tree()}}));
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.json["removed"].size(), 1u) << r.body;
  EXPECT_EQ(r.json["removed"][0]["path"], served_->Path("c/gone.txt"));
  EXPECT_EQ(r.json["removed"][0]["size"], 7);
  EXPECT_EQ(r.json["removed"][0]["type"], "file");
}

TEST_F(WebApi, TheSummaryAndOverviewAgreeWithTheSources) {
  StoreOptions so;
  so.path = served_->store();
  so.read_only = true;
  auto store = EventStore::Open(so);
  ASSERT_TRUE(store.ok());
  Reply summary = Admin("/api/v1/catalog/summary");
  ASSERT_EQ(summary.status, 200) << summary.body;
  EXPECT_EQ(summary.json["entries"], 27);
  EXPECT_EQ(summary.json["roots"], json::array({served_->tree()}));
  EXPECT_EQ(summary.json["totals"]["files"], 23);
  Reply overview = Admin("/api/v1/overview");
  ASSERT_EQ(overview.status, 200) << overview.body;
  EXPECT_GE(overview.json["store"]["last_id"].get<uint64_t>(), 6u);
  EXPECT_LE(overview.json["store"]["last_id"].get<uint64_t>(), store.value()->LastId().value());
  EXPECT_EQ(overview.json["store"]["first_id"], 1);
  EXPECT_EQ(overview.json["catalog"]["entries"], 27);
  EXPECT_EQ(overview.json["errors"], json::array());
  // The rates count the stored events of the last minutes: CREATE of the tree's new files.
  uint64_t creates = 0;
  for (const auto& s : overview.json["rates"]["series"]) {
    if (s["kind"] != "CREATE") continue;
    for (const auto& p : s["points"]) creates += p[1].get<uint64_t>();
  }
  EXPECT_GE(creates, 4u);  // deep.dat, old.txt, mid.txt, gone.txt
}

TEST_F(WebApi, MetricsGiveTheSourcesNumbersInPrometheusText) {
  Reply m = served_->Get("/metrics", "");
  ASSERT_EQ(m.status, 200);
  EXPECT_NE(m.body.find("# TYPE fathom_store_last_id gauge"), std::string::npos) << m.body;
  EXPECT_NE(m.body.find("fathom_catalog_entries 27\n"), std::string::npos) << m.body;
  EXPECT_NE(m.body.find("fathom_store_first_id 1\n"), std::string::npos) << m.body;
  EXPECT_NE(m.body.find("fathom_store_up 1\n"), std::string::npos) << m.body;
  EXPECT_NE(m.body.find("fathom_http_requests_total{outcome=\"served\"}"), std::string::npos);
  EXPECT_EQ(served_->Get("/healthz", "").status, 200);
  Reply ready = served_->Get("/readyz", "");
  EXPECT_EQ(ready.status, 200) << ready.body;
}

}  // namespace
}  // namespace fathom::testing
