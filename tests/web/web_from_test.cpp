// web_from_test.cpp — `fathom serve --from ENDPOINT`: the events of a running aggregator
// (`fathom aggregate`, fed by `fathom collect` watching a real tree with inotify) searched,
// looked up and streamed without a store of the server's own; the aggregator's counters in the
// overview, /metrics and /readyz; grants applied to its events; and a clear 503 once the
// aggregator is gone.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "aggregator/aggregator_harness.h"
#include "web/served_tree.h"

namespace fathom::testing {
namespace {

using nlohmann::json;

// The value of the series `name` (with its labels, as printed) in Prometheus text, or -1.
double Series(const std::string& text, const std::string& name) {
  size_t at = text.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + name.size() + 2));
}

// The sum of the series whose name and labels begin with `start` (e.g. every source of a kind).
double SumOf(const std::string& text, const std::string& start) {
  double sum = 0;
  for (size_t at = text.find("\n" + start); at != std::string::npos; at = text.find("\n" + start, at + 1)) {
    sum += std::stod(text.substr(text.find(' ', at) + 1));
  }
  return sum;
}

class WebFrom : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    tree_ = *dir_ / "tree";
    mkdir(tree_.c_str(), 0755);
    mkdir((tree_ + "/a").c_str(), 0755);
    mkdir((tree_ + "/b").c_str(), 0755);
    endpoint_ = FreeLoopbackEndpoint(dir_->path());
    aggregate_ = new Subprocess({FathomBinary(), "aggregate", "--listen", endpoint_, "--store",
                                 "sqlite:" + (*dir_ / "events.db"), "--insecure"});
    ASSERT_TRUE(aggregate_->WaitForStderr("aggregating on", 20s)) << aggregate_->stderr_text();
    collect_ = new Subprocess({FathomBinary(), "collect", "-r", tree_, "--name", "tree", "--to", endpoint_,
                               "--insecure"});
    ASSERT_TRUE(collect_->WaitForStderr("watches established", 20s)) << collect_->stderr_text();
    for (int i = 1; i <= 5; ++i) std::ofstream(tree_ + "/a/f" + std::to_string(i)) << "data";
    for (int i = 1; i <= 3; ++i) std::ofstream(tree_ + "/b/g" + std::to_string(i)) << "data";
    std::string tokens = *dir_ / "tokens.db";
    admin_ = TokenFor(tokens, {"--user", "root", "--paths", "/", "--admin"});
    narrow_ = TokenFor(tokens, {"--user", "nobody", "--paths", tree_ + "/b"});
    web::ServeOptions options;
    options.listen = "127.0.0.1:0";
    options.from = endpoint_;
    options.tokens = tokens;
    options.quiet = true;
    auto started = web::WebServer::Start(options);
    ASSERT_TRUE(started.ok()) << started.status().message();
    server_ = std::move(started).value().release();
    // Every file's CLOSE_WRITE has reached the aggregator (and so the server's history).
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && Paths(tree_, "CLOSE_WRITE", admin_).size() < 8) {
      std::this_thread::sleep_for(100ms);
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    delete collect_;
    delete aggregate_;
    delete dir_;
  }
  static Reply Get(const std::string& target, const std::string& token) {
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return ServedTree::SendTo(*server_, "GET", target, headers);
  }
  // The paths of the events under `prefix` of `kind`, as the API lists them to `token`.
  static std::set<std::string> Paths(const std::string& prefix, const std::string& kind, const std::string& token) {
    Reply r = Get("/api/v1/events" + Query({{"prefix", prefix}, {"kinds", kind}, {"limit", "1000"}}), token);
    std::set<std::string> out;
    if (r.status != 200) return out;
    for (const auto& e : r.json["events"]) out.insert(e["path"].get<std::string>());
    return out;
  }

  static TempDir* dir_;
  static std::string tree_, endpoint_, admin_, narrow_;
  static Subprocess *aggregate_, *collect_;
  static web::WebServer* server_;
};
TempDir* WebFrom::dir_ = nullptr;
std::string WebFrom::tree_, WebFrom::endpoint_, WebFrom::admin_, WebFrom::narrow_;
Subprocess* WebFrom::aggregate_ = nullptr;
Subprocess* WebFrom::collect_ = nullptr;
web::WebServer* WebFrom::server_ = nullptr;

TEST_F(WebFrom, SearchingFindsTheAggregatorsEventsOfEachFileMade) {
  std::set<std::string> expected;
  for (int i = 1; i <= 5; ++i) expected.insert(tree_ + "/a/f" + std::to_string(i));
  EXPECT_EQ(Paths(tree_ + "/a", "CREATE", admin_), expected);
  Reply r = Get("/api/v1/events" + Query({{"prefix", tree_ + "/b"}, {"limit", "1000"}}), admin_);
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_FALSE(r.json["events"].empty());
  for (const auto& e : r.json["events"]) {
    EXPECT_EQ(e["path"].get<std::string>().rfind(tree_ + "/b/", 0), 0u) << e;
    EXPECT_EQ(e["root"], tree_) << e;
  }
  EXPECT_EQ(r.json["first_id"], 1);
}

TEST_F(WebFrom, OneEventByIdIsTheOneTheSearchListed) {
  Reply list = Get("/api/v1/events" + Query({{"prefix", tree_ + "/a"}, {"limit", "1"}}), admin_);
  ASSERT_EQ(list.status, 200) << list.body;
  ASSERT_EQ(list.json["events"].size(), 1u);
  uint64_t id = list.json["events"][0]["id"];
  Reply one = Get("/api/v1/events/" + std::to_string(id), admin_);
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.json, list.json["events"][0]);
  EXPECT_EQ(Get("/api/v1/events/" + std::to_string(id + 1000000), admin_).status, 404);
}

TEST_F(WebFrom, ATokenGrantedOneDirectorySeesOnlyItsEvents) {
  EXPECT_EQ(Paths(tree_ + "/a", "CREATE", narrow_), std::set<std::string>{});
  EXPECT_EQ(Paths(tree_ + "/b", "CREATE", narrow_),
            (std::set<std::string>{tree_ + "/b/g1", tree_ + "/b/g2", tree_ + "/b/g3"}));
  Reply list = Get("/api/v1/events" + Query({{"prefix", tree_ + "/a"}, {"limit", "1"}}), admin_);
  ASSERT_EQ(list.status, 200);
  uint64_t id = list.json["events"][0]["id"];
  EXPECT_EQ(Get("/api/v1/events/" + std::to_string(id), narrow_).status, 404);
}

TEST_F(WebFrom, TheLiveStreamCarriesAFileMadeWhileItIsOpen) {
  std::string url = server_->Url();
  httplib::Client client(url.substr(0, url.size() - 1));
  client.set_read_timeout(30, 0);
  const std::string live = tree_ + "/b/live.txt";
  std::string text;
  bool connected = false;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  client.Get("/api/v1/events/stream", {{"Authorization", "Bearer " + narrow_}}, [&](const char* data, size_t n) {
    text.append(data, n);
    if (!connected) {
      connected = true;
      std::ofstream(live) << "now";
    }
    return text.find("\"path\":\"" + live + "\"") == std::string::npos && std::chrono::steady_clock::now() < deadline;
  });
  EXPECT_NE(text.find("\"path\":\"" + live + "\""), std::string::npos) << text;
  EXPECT_EQ(text.find(tree_ + "/a/"), std::string::npos) << "a stream of a token granted b/ carried a/: " << text;
}

TEST_F(WebFrom, OverviewAndMetricsCarryTheAggregatorsCounters) {
  Reply overview = Get("/api/v1/overview", admin_);
  ASSERT_EQ(overview.status, 200) << overview.body;
  const json& agg = overview.json["aggregator"];
  ASSERT_TRUE(agg.is_object()) << overview.body;
  EXPECT_EQ(agg["endpoint"], endpoint_);
  EXPECT_EQ(agg["first_id"], 1);
  EXPECT_GE(agg["last_id"].get<uint64_t>(), 16u);  // 8 files: CREATE and CLOSE_WRITE each
  EXPECT_EQ(agg["collectors"], 1);
  EXPECT_EQ(overview.json["store"], nullptr);
  EXPECT_EQ(overview.json["errors"], json::array());
  uint64_t creates = 0;
  for (const auto& s : overview.json["rates"]["series"]) {
    if (s["kind"] == "CREATE")
      for (const auto& p : s["points"]) creates += p[1].get<uint64_t>();
  }
  EXPECT_GE(creates, 8u) << overview.json["rates"];

  Reply m = Get("/metrics", "");
  ASSERT_EQ(m.status, 200);
  EXPECT_EQ(Series(m.body, "fathom_aggregator_up"), 1) << m.body;
  EXPECT_EQ(Series(m.body, "fathom_aggregator_first_id"), 1) << m.body;
  const double last = Series(m.body, "fathom_aggregator_last_id");
  EXPECT_GE(last, agg["last_id"].get<double>()) << m.body;
  EXPECT_GE(Series(m.body, "fathom_aggregator_events_total{state=\"committed\"}"), last) << m.body;
  EXPECT_EQ(Series(m.body, "fathom_aggregator_commit_failures_total"), 0) << m.body;
  EXPECT_GE(Series(m.body, "fathom_aggregator_queue_events"), 0) << m.body;
  EXPECT_GT(Series(m.body, "fathom_aggregator_commit_latency_seconds{stat=\"max\"}"), 0) << m.body;
  EXPECT_EQ(Series(m.body, "fathom_aggregator_collectors"), 1) << m.body;
  // The stream of the token granted b/ carried b/live.txt's events: its CREATE among them.
  EXPECT_GE(SumOf(m.body, "fathom_events_out_total{kind=\"CREATE\","), 1) << m.body;
  EXPECT_EQ(Get("/readyz", "").status, 200);
}

// Events that reach the aggregator after the server started are counted as they come in;
// those it held before are not (they are the seed of the rates).
TEST_F(WebFrom, EventsInCountsWhatReachedTheAggregatorSinceTheServerStarted) {
  // Per source: the collector watches with fanotify as root, with inotify otherwise.
  const std::string creates = "fathom_events_in_total{kind=\"CREATE\",";
  const double before = SumOf(Get("/metrics", "").body, creates);
  std::ofstream(tree_ + "/a/after.txt") << "x";
  std::ofstream(tree_ + "/a/after2.txt") << "x";
  double now = before;
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (now < before + 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
    now = SumOf(Get("/metrics", "").body, creates);
  }
  EXPECT_EQ(now, before + 2) << Get("/metrics", "").body;
  // The seed (eight files' CREATE before the start) is left out: only the files made since.
  EXPECT_EQ(now, 3) << "b/live.txt, a/after.txt, a/after2.txt and no more";
}

// Last: stops the aggregator.
TEST_F(WebFrom, ZAnAggregatorThatIsGoneMakesReadyzAndSearches503WithItsEndpoint) {
  collect_->Signal(SIGTERM);
  collect_->Wait();
  aggregate_->Signal(SIGTERM);
  ASSERT_EQ(aggregate_->Wait(), 0) << aggregate_->stderr_text();
  Reply ready = Get("/readyz", "");
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_NE(ready.json["error"].get<std::string>().find(endpoint_), std::string::npos) << ready.body;
  Reply search = Get("/api/v1/events" + Query({{"prefix", tree_}}), admin_);
  EXPECT_EQ(search.status, 503) << search.body;
  EXPECT_NE(search.json["error"].get<std::string>().find(endpoint_), std::string::npos) << search.body;
  Reply m = Get("/metrics", "");
  EXPECT_EQ(Series(m.body, "fathom_aggregator_up"), 0) << m.body;
}

TEST(WebFromCli, AnEndpointThatIsNoAggregatorsIsRefusedNamingTheForms) {
  RunResult r = testing::Run({FathomBinary(), "serve", "--from", "nats://127.0.0.1:4222", "--insecure"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--from nats://127.0.0.1:4222 is not an aggregator's endpoint (tcp://HOST:PORT or ipc:///PATH)"),
            std::string::npos)
      << r.err;
  RunResult nokeys = testing::Run({FathomBinary(), "serve", "--from", "tcp://127.0.0.1:1"});
  EXPECT_EQ(nokeys.exit_code, 2) << nokeys.err;
  EXPECT_NE(nokeys.err.find("--insecure"), std::string::npos) << nokeys.err;
}

}  // namespace
}  // namespace fathom::testing
