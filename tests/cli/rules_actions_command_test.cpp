// `fathom rules` through the binary with the newer actions and limits, on real stores, real
// files and a real HTTP server on loopback (cpp-httplib) that holds each request a while and
// counts how many it holds at once: webhooks of two rules to one server never overlap with
// endpoint_concurrency 1 (in the file, or on one of the rules) and do with 2; a webhook answering 410 Gone stays disabled across a
// restart of the runner (its deliveries dead, the server not called) until `rules enable`, and
// `rules status` shows it; copy and mail rules run end to end.
//
// No mail transfer agent can run here: a script implementing the sendmail interface
// (`sendmail -t -oi`, the message on stdin) stands for one and keeps what it was given.
#include <sys/stat.h>

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "fathom/store.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;

size_t CountOf(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// An HTTP server on a loopback port whose POSTs take `hold` each and are answered `status`;
// it keeps how many requests it held at most at once, and each request's path.
class SlowServer {
 public:
  explicit SlowServer(std::chrono::milliseconds hold) : hold_(hold) {
    server_.Post(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
      const int now = ++in_flight_;
      {
        std::lock_guard<std::mutex> lock(mu_);
        most_ = std::max(most_, now);
        paths_.push_back(req.path);
      }
      std::this_thread::sleep_for(hold_);
      --in_flight_;
      res.status = status_.load();
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~SlowServer() {
    server_.stop();
    thread_.join();
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  void Answer(int status) { status_ = status; }
  int most() {
    std::lock_guard<std::mutex> lock(mu_);
    return most_;
  }
  std::vector<std::string> paths() {
    std::lock_guard<std::mutex> lock(mu_);
    return paths_;
  }

 private:
  httplib::Server server_;
  std::chrono::milliseconds hold_;
  std::atomic<int> status_{204};
  std::atomic<int> in_flight_{0};
  std::mutex mu_;
  int most_ = 0;                    // guarded by mu_
  std::vector<std::string> paths_;  // guarded by mu_
  int port_ = 0;
  std::thread thread_;
};

class RulesActionsCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = dir_ / "events.db";
    outbox_ = dir_ / "rules.db";
    rules_ = dir_ / "rules.yaml";
    secret_ = dir_ / "hook.secret";
    std::ofstream(secret_) << "the-secret-of-the-test\n";
    chmod(secret_.c_str(), 0600);
  }

  // A CLOSE_WRITE event for each of `paths`.
  void AppendEvents(const std::vector<std::string>& paths) {
    StoreOptions options;
    options.path = store_;
    options.sync_full = false;
    auto store = EventStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    std::vector<Event> batch;
    for (const std::string& p : paths) {
      Event e;
      e.ts_ns = NowNs();
      e.mask = kind::kCloseWrite;
      e.root = dir_.path();
      e.path = p;
      e.source = "inotify";
      batch.push_back(e);
    }
    ASSERT_TRUE((*store)->Append(batch).ok());
  }

  std::vector<std::string> Files(const std::string& dir, size_t n) const {
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) out.push_back(dir_ / (dir + "/f" + std::to_string(i) + ".h5"));
    return out;
  }

  // A rule of a webhook to `url` for the files under `dir`.
  std::string WebhookRule(const std::string& name, const std::string& dir, const std::string& url,
                          size_t concurrency, const std::string& extra = "") const {
    return "  - name: " + name + "\n    kinds: [CLOSE_WRITE]\n    path: \"" + dir_ / dir + "/**\"\n" +
           "    concurrency: " + std::to_string(concurrency) + "\n    retry: {max_attempts: 1}\n" + extra +
           "    action: {webhook: \"" + url + "\", secret_file: " + secret_ + ", allow_loopback: true}\n";
  }

  void WriteRules(const std::string& settings, const std::string& rules) {
    std::ofstream(rules_) << "outbox: " << outbox_ << "\n" << settings << "rules:\n" << rules;
  }

  testing::RunResult Fathom(std::vector<std::string> args) {
    args.insert(args.begin(), testing::FathomBinary());
    return testing::Run(std::move(args), 120s);
  }
  testing::RunResult RunUntilIdle() {
    return Fathom({"rules", "run", "--config", rules_, "--store", store_, "--until-idle"});
  }

  testing::TempDir dir_;
  std::string store_, outbox_, rules_, secret_;
};

TEST_F(RulesActionsCommandTest, WebhooksOfTwoRulesToOneServerNeverOverlapWithEndpointConcurrency1) {
  SlowServer server(300ms);
  std::vector<std::string> paths = Files("a", 4);
  for (const std::string& p : Files("b", 4)) paths.push_back(p);
  AppendEvents(paths);
  WriteRules("concurrency: 8\nendpoint_concurrency: 1\n",
             WebhookRule("to-a", "a", server.url("/a"), 4) + WebhookRule("to-b", "b", server.url("/b"), 4));
  auto run = RunUntilIdle();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("8 succeeded, 0 to retry, 0 dead"), std::string::npos) << run.err;
  EXPECT_EQ(server.paths().size(), 8u);
  EXPECT_EQ(server.most(), 1) << "requests to one endpoint overlapped";
}

TEST_F(RulesActionsCommandTest, WebhooksOfTwoRulesToOneServerOverlapUpToEndpointConcurrency2) {
  SlowServer server(300ms);
  std::vector<std::string> paths = Files("a", 4);
  for (const std::string& p : Files("b", 4)) paths.push_back(p);
  AppendEvents(paths);
  WriteRules("concurrency: 8\nendpoint_concurrency: 2\n",
             WebhookRule("to-a", "a", server.url("/a"), 4) + WebhookRule("to-b", "b", server.url("/b"), 4));
  auto run = RunUntilIdle();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("8 succeeded, 0 to retry, 0 dead"), std::string::npos) << run.err;
  const std::vector<std::string> requested = server.paths();
  EXPECT_EQ(requested.size(), 8u);
  EXPECT_EQ(std::count(requested.begin(), requested.end(), "/a"), 4);
  EXPECT_EQ(server.most(), 2) << "two at once, never more";
}

TEST_F(RulesActionsCommandTest, ARulesEndpointConcurrencyBoundsItsEndpointForEveryRuleCallingIt) {
  SlowServer server(300ms);
  std::vector<std::string> paths = Files("a", 4);
  for (const std::string& p : Files("b", 4)) paths.push_back(p);
  AppendEvents(paths);
  WriteRules("concurrency: 8\nendpoint_concurrency: 4\n",
             WebhookRule("to-a", "a", server.url("/a"), 4, "    endpoint_concurrency: 1\n") +
                 WebhookRule("to-b", "b", server.url("/b"), 4));
  auto run = RunUntilIdle();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("8 succeeded, 0 to retry, 0 dead"), std::string::npos) << run.err;
  EXPECT_EQ(server.paths().size(), 8u);
  EXPECT_EQ(server.most(), 1) << "the smallest bound of the rules calling the endpoint";
}

TEST_F(RulesActionsCommandTest, AnEndpointGoneStaysDisabledAcrossARestartUntilEnabled) {
  SlowServer server(0ms);
  server.Answer(410);
  AppendEvents(Files("raw", 3));
  const std::string url = server.url("/gone");
  WriteRules("", WebhookRule("notify", "raw", url, 1));
  auto run = RunUntilIdle();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("0 succeeded, 0 to retry, 3 dead"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("its webhook " + url + " is disabled until `fathom rules enable notify`"), std::string::npos)
      << run.err;
  EXPECT_EQ(server.paths().size(), 1u) << "called once, then no more";
  auto dead = Fathom({"rules", "dead", "--config", rules_, "--csv", "--no-header"});
  ASSERT_EQ(dead.exit_code, 0) << dead.err;
  const std::string disabled = "the webhook " + url +
                               " is disabled (HTTP 410: the endpoint is gone, disable it): `fathom rules enable "
                               "notify` enables it, then `fathom rules replay --rule notify --all` runs this "
                               "delivery again";
  EXPECT_EQ(CountOf(dead.out, "HTTP 410: the endpoint is gone, disable it"), 3u) << dead.out;
  EXPECT_EQ(CountOf(dead.out, disabled), 2u) << dead.out;
  auto status = Fathom({"rules", "status", "--config", rules_, "--csv"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find(", disabled\n"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find(url + " since "), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("(HTTP 410: the endpoint is gone, disable it)"), std::string::npos) << status.out;

  // The server is back, the runner restarted on new events: the endpoint stays disabled.
  server.Answer(204);
  AppendEvents({dir_ / "raw/late0.h5", dir_ / "raw/late1.h5"});
  auto restarted = RunUntilIdle();
  ASSERT_EQ(restarted.exit_code, 0) << restarted.err;
  EXPECT_NE(restarted.err.find("0 succeeded, 0 to retry, 2 dead"), std::string::npos) << restarted.err;
  EXPECT_EQ(server.paths().size(), 1u) << "a disabled endpoint is not called after a restart";

  auto enable = Fathom({"rules", "enable", "--config", rules_, "notify"});
  ASSERT_EQ(enable.exit_code, 0) << enable.err;
  EXPECT_EQ(enable.err,
            "fathom: rule notify: its webhook is enabled again; `fathom rules replay --rule notify --all` runs its "
            "dead deliveries\n");
  auto again = Fathom({"rules", "enable", "--config", rules_, "notify"});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("rule notify has no disabled endpoint in " + outbox_), std::string::npos) << again.err;
  auto status_after = Fathom({"rules", "status", "--config", rules_, "--csv"});
  EXPECT_EQ(status_after.out.find(" since "), std::string::npos) << status_after.out;
  auto replay = Fathom({"rules", "replay", "--config", rules_, "--all", "--rule", "notify"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_NE(replay.err.find("5 dead deliveries are pending again"), std::string::npos) << replay.err;
  auto rerun = RunUntilIdle();
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_NE(rerun.err.find("5 succeeded, 0 to retry, 0 dead"), std::string::npos) << rerun.err;
  EXPECT_EQ(server.paths().size(), 6u);
}

TEST_F(RulesActionsCommandTest, CopyAndMailRulesRunEndToEnd) {
  const std::string mail_dir = dir_ / "mail";
  std::filesystem::create_directories(mail_dir);
  const std::string sendmail = dir_ / "sendmail";
  std::ofstream(sendmail) << "#!/bin/sh\n"
                             "[ \"$1 $2\" = \"-t -oi\" ] || exit 64\n"
                             "cat > " << mail_dir << "/$(date +%s%N).eml\n";
  chmod(sendmail.c_str(), 0755);
  std::vector<std::string> files = Files("raw", 3);
  std::filesystem::create_directories(dir_ / "raw");
  for (const std::string& f : files) std::ofstream(f) << "content of " << f;
  AppendEvents(files);
  const std::string archive = dir_ / "archive";
  WriteRules("",
             "  - name: archive\n    kinds: [CLOSE_WRITE]\n    path: \"" + dir_ / "raw/**" + "\"\n" +
                 "    action: {copy: {to: " + archive + ", checksum: sha256}}\n" +
                 "  - name: tell-ops\n    kinds: [CLOSE_WRITE]\n    path: \"" + dir_ / "raw/**" + "\"\n" +
                 "    action: {mail: {to: [ops@example.org], subject: \"raw data arrived\", sendmail: " + sendmail +
                 "}}\n");
  auto run = RunUntilIdle();
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("6 succeeded, 0 to retry, 0 dead"), std::string::npos) << run.err;
  for (const std::string& f : files) EXPECT_EQ(testing::ReadFile(archive + f), "content of " + f) << f;
  std::string mails;
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(mail_dir)) {
    const std::string m = testing::ReadFile(entry.path());
    EXPECT_EQ(m.rfind("To: ops@example.org\nFrom: fathom\nSubject: raw data arrived\nX-Fathom-Delivery: fd_", 0), 0u)
        << m;
    mails += m;
    ++count;
  }
  EXPECT_EQ(count, 3u);
  for (const std::string& f : files) {
    EXPECT_EQ(CountOf(mails, "CLOSE_WRITE \"" + f + "\" (event "), 1u) << mails;
  }
  // Each mail carries its delivery's id.
  auto deliveries = Fathom({"rules", "deliveries", "--config", rules_, "--rule", "tell-ops", "--csv", "--no-header"});
  ASSERT_EQ(deliveries.exit_code, 0) << deliveries.err;
  std::istringstream rows(deliveries.out);
  size_t ids = 0;
  for (std::string row; std::getline(rows, row); ++ids) {
    const std::string id = row.substr(0, row.find(','));
    EXPECT_EQ(CountOf(mails, "X-Fathom-Delivery: " + id + "\n"), 1u) << id << "\n" << mails;
  }
  EXPECT_EQ(ids, 3u);
  // Run again over the same events: nothing new; the copies stay as they are.
  auto again = RunUntilIdle();
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("0 events read"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace fathom
