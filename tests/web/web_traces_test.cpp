// web_traces_test.cpp — /api/v1/jobs and /api/v1/h5 over real traces: a job traced by
// `fathom io run` as root and one as uid 1000, an HDF5 program under `fathom h5 run`. The API's
// reports are compared with the CLI's (`fathom io report --json`, `fathom h5 report --json`,
// `fathom h5 lineage --prov-json`), and a token of uid 1000 sees only its own job.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "fathom/event.h"
#include "fathom/io_servers.h"
#include "web/served_tree.h"

namespace fathom::testing {
namespace {

using nlohmann::json;

class WebTraces : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    io_ = *dir_ / "io";
    h5_ = *dir_ / "h5";
    mkdir(io_.c_str(), 0777);
    chmod(io_.c_str(), 0777);
    chmod(dir_->path().c_str(), 0777);
    std::string out = *dir_ / "out";
    mkdir(out.c_str(), 0777);
    chmod(out.c_str(), 0777);
    RunResult root = testing::Run({FathomBinary(), "io", "run", "--job", "rootjob", "--out", io_, "--", "dd", "if=/dev/zero",
                          "of=" + out + "/root.dat", "bs=4096", "count=256", "status=none"});
    ASSERT_EQ(root.exit_code, 0) << root.err;
    RunResult user = testing::Run({"setpriv", "--reuid=1000", "--regid=1000", "--clear-groups", FathomBinary(), "io", "run",
                          "--job", "userjob", "--out", io_, "--", "dd", "if=/dev/zero", "of=" + out + "/user.dat",
                          "bs=8192", "count=16", "status=none"});
    ASSERT_EQ(user.exit_code, 0) << user.err;
    RunResult h5 = testing::Run({FathomBinary(), "h5", "run", "--job", "h5job", "--out", h5_, "--",
                        std::string(FATHOM_BUILD_DIR) + "/tests/h5-workloads/known_ops", *dir_ / "known.h5"});
    ASSERT_EQ(h5.exit_code, 0) << h5.err;
    // Four OSTs' samples of the last minutes: OST0002 took four times as long for the same volume.
    samples_ = *dir_ / "samples.db";
    auto store = io::SampleStore::Open(samples_, true);
    ASSERT_TRUE(store.ok()) << store.status().message();
    std::vector<io::ServerSample> samples;
    const int64_t start = fathom::NowNs() - int64_t{600} * 1'000'000'000;
    for (int ost = 0; ost < 4; ++ost) {
      const int seconds = ost == 2 ? 40 : 10;
      const uint64_t mib = ost == 2 ? 25 : 100, usecs = ost == 2 ? 40000 : 1000 + 10 * ost;
      for (int i = 0; i < seconds; ++i) {
        const int64_t ts = start + (i + 1) * int64_t{1'000'000'000};
        const std::string target = "fs-OST000" + std::to_string(ost);
        samples.push_back({ts, 1'000'000'000, target, "", "write_bytes", "bytes", mib * 16, mib << 20});
        samples.push_back({ts, 1'000'000'000, target, "", "write", "usecs", mib * 16, mib * usecs});
      }
    }
    ASSERT_TRUE(store.value()->Append(samples).ok());
    std::string tokens = *dir_ / "tokens.db";
    admin_ = TokenFor(tokens, {"--user", "root", "--paths", "/", "--admin"});
    user_ = TokenFor(tokens, {"--user", "1000", "--paths", out});
    web::ServeOptions options;
    options.listen = "127.0.0.1:0";
    options.io = io_;
    options.h5 = h5_;
    options.io_samples = samples_;
    options.tokens = tokens;
    options.quiet = true;
    auto started = web::WebServer::Start(options);
    ASSERT_TRUE(started.ok()) << started.status().message();
    server_ = std::move(started).value().release();
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  static json Get(const std::string& target, const std::string& token, int expected = 200) {
    std::string url = server_->Url();
    httplib::Client client(url.substr(0, url.size() - 1));
    client.set_read_timeout(60, 0);
    auto r = client.Get(target.c_str(), {{"Authorization", "Bearer " + token}});
    EXPECT_TRUE(r);
    if (!r) return nullptr;
    EXPECT_EQ(r->status, expected) << target << ": " << r->body;
    return json::parse(r->body, nullptr, false);
  }
  static json CliJson(const std::vector<std::string>& argv) {
    RunResult r = testing::Run(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }

  static TempDir* dir_;
  static std::string io_, h5_, samples_, admin_, user_;
  static web::WebServer* server_;
};
TempDir* WebTraces::dir_ = nullptr;
std::string WebTraces::io_, WebTraces::h5_, WebTraces::samples_, WebTraces::admin_, WebTraces::user_;
web::WebServer* WebTraces::server_ = nullptr;

TEST_F(WebTraces, TheJobListSummarisesEachJobAndATokenOfOneUserSeesItsOwnOnly) {
  json all = Get("/api/v1/jobs", admin_);
  std::map<std::string, json> jobs;
  for (const auto& j : all["jobs"]) jobs[j["job"]] = j;
  ASSERT_TRUE(jobs.count("rootjob") && jobs.count("userjob")) << all;
  EXPECT_EQ(jobs["rootjob"]["write_bytes"], 256 * 4096);
  EXPECT_EQ(jobs["rootjob"]["uid"], 0);
  EXPECT_EQ(jobs["userjob"]["write_bytes"], 16 * 8192);
  EXPECT_EQ(jobs["userjob"]["uid"], 1000);
  EXPECT_EQ(jobs["rootjob"]["processes"], 1);
  json mine = Get("/api/v1/jobs", user_);
  ASSERT_EQ(mine["jobs"].size(), 1u) << mine;
  EXPECT_EQ(mine["jobs"][0]["job"], "userjob");
  Get("/api/v1/jobs/rootjob", user_, 404);
  json page = Get("/api/v1/jobs?limit=1", admin_);
  EXPECT_EQ(page["jobs"].size(), 1u);
  EXPECT_EQ(page["next"]["offset"], 1);
}

TEST_F(WebTraces, AJobsReportIsTheCommandLinesWithItsSeriesByLayer) {
  json api = Get("/api/v1/jobs/rootjob", admin_);
  json cli = CliJson({FathomBinary(), "io", "report", "--json", io_ + "/rootjob"});
  ASSERT_TRUE(cli.is_object());
  EXPECT_EQ(api["report"], cli);
  uint64_t posix_written = 0;
  for (const auto& s : api["report"]["series"]) {
    if (s["layers"].contains("posix")) posix_written += s["layers"]["posix"]["write_bytes"].get<uint64_t>();
  }
  EXPECT_EQ(posix_written, 256u * 4096);
  EXPECT_EQ(api["summary"]["job"], "rootjob");
  Get("/api/v1/jobs/nosuchjob", admin_, 404);
}

TEST_F(WebTraces, TheHdf5ReportAndLineageAreTheCommandLines) {
  json report = Get("/api/v1/h5/report", admin_);
  EXPECT_EQ(report, CliJson({FathomBinary(), "h5", "report", "--json", h5_}));
  EXPECT_GT(report["calls"].get<uint64_t>(), 0u);
  json lineage = Get("/api/v1/h5/lineage", admin_);
  EXPECT_EQ(lineage["prov"], CliJson({FathomBinary(), "h5", "lineage", "--prov-json", h5_}));
  // uid 1000 ran no HDF5 program: it sees a report of nothing.
  json none = Get("/api/v1/h5/report", user_);
  EXPECT_EQ(none["calls"], 0);
}

TEST_F(WebTraces, TheSlowTargetOfTheServersSamplesIsAnAnomalyShownToThoseWhoSeeEverything) {
  json found = Get("/api/v1/jobs/anomalies", admin_);
  ASSERT_EQ(found["anomalies"].size(), 1u) << found;
  EXPECT_EQ(found["anomalies"][0]["target"], "fs-OST0002");
  EXPECT_EQ(found["anomalies"][0]["rule"], "beacon+z-score");
  EXPECT_EQ(found["anomalies"][0]["bytes"], 1000u << 20);
  EXPECT_EQ(found["anomalies"][0]["duration"], "1h");
  EXPECT_EQ(found["anomalies"][0]["last_ns"].get<int64_t>() - found["anomalies"][0]["first_ns"].get<int64_t>(),
            int64_t{40} * 1'000'000'000);
  // Found across jobs: not one of uid 1000's.
  EXPECT_EQ(Get("/api/v1/jobs/anomalies", user_)["anomalies"], json::array());
  EXPECT_EQ(Get("/api/v1/jobs/anomalies?since=0&until=1000", admin_)["anomalies"], json::array());
}

TEST_F(WebTraces, WithoutTheDirectoriesTheCallsSayWhichOptionIsMissing) {
  web::ServeOptions options;
  options.listen = "127.0.0.1:0";
  options.quiet = true;
  auto bare = web::WebServer::Start(options);
  ASSERT_TRUE(bare.ok());
  std::string url = bare.value()->Url();
  httplib::Client client(url.substr(0, url.size() - 1));
  httplib::Headers auth = {{"Authorization", "Bearer " + *bare.value()->StartupToken()}};
  auto jobs = client.Get("/api/v1/jobs", auth);
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->status, 503);
  EXPECT_NE(jobs->body.find("--io DIR"), std::string::npos) << jobs->body;
  auto h5 = client.Get("/api/v1/h5/report", auth);
  ASSERT_TRUE(h5);
  EXPECT_EQ(h5->status, 503);
  EXPECT_NE(h5->body.find("--h5 DIR"), std::string::npos) << h5->body;
  auto anomalies = client.Get("/api/v1/jobs/anomalies", auth);
  ASSERT_TRUE(anomalies);
  EXPECT_EQ(anomalies->status, 503);
  EXPECT_NE(anomalies->body.find("--io-samples"), std::string::npos) << anomalies->body;
}

}  // namespace
}  // namespace fathom::testing
