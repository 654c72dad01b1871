// Alerts on real catalogs of real trees, delivered to a log file, to e-mail through the
// sendmail interface, and to a real HTTP server on loopback (cpp-httplib): the issue's three
// examples (a file over 1 TB under /home, world-writable files in a project tree, a user over
// 90 % of a quota-like limit), each raised once until it clears, a batched message per sink,
// signatures as Standard Webhooks define them (checked with the openssl command), and a
// webhook that fails getting everything again at the next check.
//
// No mail transfer agent can run here: a script implementing the sendmail interface
// (`sendmail -t -oi`, the message on stdin) stands for one and keeps what it was given.
#include <sys/stat.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/find/find_test_tree.h"
#include "fathom/policy.h"
#include "policy/alert_sinks.h"
#include "policy/scan_into.h"
#include "support/fs_ops.h"
#include "support/http_receiver.h"
#include "support/temp_dir.h"

namespace fathom::policy {
namespace {

using catalog::find_testing::RunCaptured;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

using Receiver = testing::HttpReceiver;

class AlertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_ / "fs";
    testing::MakeDirs(root_ + "/home/alice");
    testing::MakeDirs(root_ + "/proj/p1");
    testing::WriteFile(root_ + "/home/alice/huge.dat", "");
    ASSERT_EQ(truncate((root_ + "/home/alice/huge.dat").c_str(), (int64_t{1} << 40) + (int64_t{100} << 30)), 0);
    testing::WriteFile(root_ + "/home/alice/small.dat", "x");
    testing::WriteFile(root_ + "/proj/p1/open.txt", "o");
    testing::WriteFile(root_ + "/proj/p1/shut.txt", "s");
    testing::WriteFile(root_ + "/proj/p1/open.sh", "#!");
    ASSERT_EQ(chmod((root_ + "/proj/p1/open.txt").c_str(), 0666), 0);
    ASSERT_EQ(chmod((root_ + "/proj/p1/open.sh").c_str(), 0777), 0);
    ASSERT_EQ(chmod((root_ + "/proj/p1/shut.txt").c_str(), 0644), 0);
    // User 20001: 9.5 MiB of a 10 MiB limit (95 %).
    testing::MakeDirs(root_ + "/quota");
    testing::WriteFile(root_ + "/quota/q", "");
    ASSERT_EQ(truncate((root_ + "/quota/q").c_str(), 9728 << 10), 0);
    ASSERT_EQ(chown((root_ + "/quota/q").c_str(), 20001, 0), 0);
    mail_dir_ = dir_ / "mail";
    testing::MakeDirs(mail_dir_);
    sendmail_ = dir_ / "sendmail";
    std::ofstream(sendmail_) << "#!/bin/sh\n"
                                "[ \"$1 $2\" = \"-t -oi\" ] || exit 64\n"
                                "cat > " << mail_dir_ << "/$(date +%s%N).eml\n";
    ASSERT_EQ(chmod(sendmail_.c_str(), 0755), 0);
    secret_ = dir_ / "hook.secret";
    std::ofstream(secret_) << "whsec_" << "c2VjcmV0LWtleS1vZi10aGUtdGVzdA==" << "\n";  // "secret-key-of-the-test"
    Rescan();
  }

  void Rescan() { ScanInto(uri_, root_); }

  std::string Yaml(const std::string& url) {
    return "alerts:\n"
           "  huge_in_home:\n"
           "    condition: \"tree == " + root_ + "/home and type == file and size > 1TB\"\n"
           "  world_writable:\n"
           "    condition: \"tree == " + root_ + "/proj and type == file and mode == /0002\"\n"
           "    sinks: [log, webhook]\n"
           "  quota:\n"
           "    usage: {on: user_usage, targets: ['20001'], capacity: 10MB, high: 90%}\n"
           "alert_sinks:\n"
           "  log: " + log_ + "\n"
           "  mail: {to: [storage-admins@example.org, root], from: fathom@example.org, sendmail: " + sendmail_ + "}\n"
           "  webhook: {url: '" + url + "', secret_file: " + secret_ + ", timeout: 5s}\n";
  }

  // One alert, huge files in /home, to the log; checked every hour, and on change as given.
  std::string HugeInHome(const std::string& on_change) {
    return "alerts:\n"
           "  huge_in_home:\n"
           "    condition: \"tree == " + root_ + "/home and type == file and size > 1TB\"\n"
           "alert_sinks:\n"
           "  log: " + log_ + "\n"
           "alert_check_every: 1h\n"
           "alert_on_change: " + on_change + "\n";
  }

  Result<AlertCheck> Check(const std::string& yaml) {
    auto config = ParsePolicyConfig(yaml, "alerts.yaml");
    if (!config.ok()) return config.status();
    catalog::CatalogOptions options;
    options.uri = uri_;
    options.read_only = true;
    auto reader = catalog::Catalog::Open(options);
    if (!reader.ok()) return reader.status();
    return CheckAlerts(*config, **reader, uri_, NowNs());
  }

  std::vector<std::string> Mails() {
    std::vector<std::string> out;
    for (const std::string& f : catalog::find_testing::SortedRecords(
             RunCaptured({"/usr/bin/find", mail_dir_, "-type", "f"}, "/").out)) {
      out.push_back(testing::ReadFile(f));
    }
    return out;
  }

  testing::TempDir dir_;
  std::string root_, mail_dir_, sendmail_, secret_;
  std::string uri_ = dir_ / "catalog.db";
  std::string log_ = dir_ / "alerts.log";
};

TEST_F(AlertTest, TheIssuesExamplesAreRaisedOnceBatchedPerSinkAndClearedWhenFixed) {
  Receiver hook;
  const std::string yaml = Yaml(hook.url());
  auto first = Check(yaml);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->errors.empty()) << ::testing::PrintToString(first->errors);
  std::vector<std::string> raised;
  for (const AlertEvent& e : first->events) raised.push_back((e.raised ? "+" : "-") + e.alert + " " + e.key);
  EXPECT_EQ(raised, (std::vector<std::string>{"+huge_in_home " + root_ + "/home/alice/huge.dat", "+quota user:20001",
                                              "+world_writable " + root_ + "/proj/p1/open.sh",
                                              "+world_writable " + root_ + "/proj/p1/open.txt"}));
  EXPECT_EQ(first->active, 4u);

  // The log: one line per event.
  const std::string log = testing::ReadFile(log_);
  EXPECT_NE(log.find(" raised huge_in_home: " + root_ + "/home/alice/huge.dat (size 1.10 TB, owner root, mode 0644)\n"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find(" raised quota: user:20001 (user 20001: 95.0%, at or over 90%)\n"), std::string::npos) << log;
  // One mail for the check, without the alert routed elsewhere (world_writable: log, webhook).
  auto mails = Mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_NE(mails[0].find("To: storage-admins@example.org, root\nFrom: fathom@example.org\n"
                          "Subject: fathom: 2 alerts raised\n"),
            std::string::npos)
      << mails[0];
  EXPECT_EQ(mails[0].find("world_writable"), std::string::npos) << mails[0];
  // One webhook request, signed.
  auto requests = hook.Requests();
  ASSERT_EQ(requests.size(), 1u);
  const httplib::Request& req = requests[0];
  auto body = nlohmann::json::parse(req.body);
  EXPECT_EQ(body["type"], "fathom.alerts");
  EXPECT_EQ(body["events"].size(), 4u);
  const std::string id = req.get_header_value("webhook-id");
  const std::string ts = req.get_header_value("webhook-timestamp");
  std::ofstream(dir_ / "signed") << id << "." << ts << "." << req.body;
  auto openssl = RunCaptured({"/bin/sh", "-c",
                              "openssl dgst -sha256 -mac HMAC -macopt key:secret-key-of-the-test -binary < " +
                                  (dir_ / "signed") + " | base64 -w0"},
                             "/");
  ASSERT_EQ(openssl.exit_code, 0) << openssl.err;
  EXPECT_EQ(req.get_header_value("webhook-signature"), "v1," + openssl.out);

  // Nothing new: nothing sent.
  auto second = Check(yaml);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->events.empty());
  EXPECT_EQ(hook.Requests().size(), 1u);
  EXPECT_EQ(Mails().size(), 1u);

  // Fixed: open.txt no longer world-writable; the catalog learns it; the alert clears.
  ASSERT_EQ(chmod((root_ + "/proj/p1/open.txt").c_str(), 0640), 0);
  Rescan();
  auto third = Check(yaml);
  ASSERT_TRUE(third.ok()) << third.status().message();
  ASSERT_EQ(third->events.size(), 1u);
  EXPECT_FALSE(third->events[0].raised);
  EXPECT_EQ(third->events[0].key, root_ + "/proj/p1/open.txt");
  EXPECT_EQ(third->active, 3u);
  EXPECT_NE(testing::ReadFile(log_).find(" cleared world_writable: " + root_ + "/proj/p1/open.txt"), std::string::npos);
}

TEST_F(AlertTest, AFailingWebhookGetsItsEventsAgainAtTheNextCheck) {
  Receiver hook;
  hook.Answer(500);
  const std::string yaml = Yaml(hook.url());
  auto first = Check(yaml);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->errors.size(), 1u);
  EXPECT_EQ(first->errors[0], "webhook " + hook.url() + ": the server answered HTTP 500 (only 2xx counts as delivered)");
  hook.Answer(200);
  auto second = Check(yaml);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->errors.empty());
  EXPECT_EQ(second->events.size(), 4u) << "the four undelivered raises are sent again";
  auto requests = hook.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(requests[1].body)["events"].size(), 4u);
  auto third = Check(yaml);
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE(third->events.empty());
}

TEST_F(AlertTest, ManyMatchesOfOneAlertAreSummarisedInOneMessage) {
  for (int i = 0; i < 150; ++i) {
    const std::string f = root_ + "/proj/p1/w" + std::to_string(i);
    testing::WriteFile(f, "w");
    ASSERT_EQ(chmod(f.c_str(), 0666), 0);
  }
  Rescan();
  auto check = Check(Yaml("http://127.0.0.1:9/unused"));  // the webhook is down: its error is reported
  ASSERT_TRUE(check.ok()) << check.status().message();
  const std::string log = testing::ReadFile(log_);
  size_t lines = 0;
  for (char c : log) lines += c == '\n';
  EXPECT_EQ(lines, 154u) << "the log has every event";
  // world_writable is not routed to mail: send its events there directly to see the summary.
  std::vector<AlertEvent> events;
  for (int i = 0; i < 150; ++i) events.push_back({"world_writable", "/p/w" + std::to_string(i), "", true});
  AlertSinks::Mail mail;
  mail.to = {"root"};
  mail.sendmail = sendmail_;
  ASSERT_TRUE(SendMail(mail, events, NowNs()).ok());
  auto mails = Mails();
  ASSERT_EQ(mails.size(), 2u);
  const std::string& m = mails[1].find("150 alerts raised") != std::string::npos ? mails[1] : mails[0];
  EXPECT_NE(m.find("Subject: fathom: 150 alerts raised\n"), std::string::npos) << m;
  EXPECT_NE(m.find("raised world_writable: /p/w99\n"), std::string::npos);
  EXPECT_EQ(m.find("raised world_writable: /p/w100\n"), std::string::npos);
  EXPECT_NE(m.find("... and 50 more raised world_writable\n"), std::string::npos) << m;
}

// The daemon on a thread, its log lines kept; stopped and joined on destruction.
class DaemonThread {
 public:
  DaemonThread(const std::string& yaml, const std::string& uri) {
    auto config = ParsePolicyConfig(yaml, "alerts.yaml");
    EXPECT_TRUE(config.ok()) << config.status().message();
    if (!config.ok()) return;
    config_ = std::move(config).value();
    DaemonOptions o;
    o.catalog_uri = uri;
    o.stop = [this] { return stop_.load(); };
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(line);
    };
    thread_ = std::thread([this, o] { status_ = RunDaemon(config_, o); });
  }
  ~DaemonThread() {
    stop_ = true;
    if (!thread_.joinable()) return;
    thread_.join();
    EXPECT_TRUE(status_.ok()) << status_.message();
  }
  // The alert checks' lines so far.
  std::vector<std::string> Checks() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const std::string& l : lines_) {
      if (l.rfind("alerts (", 0) == 0) out.push_back(l);
    }
    return out;
  }
  // Waits up to 20 s for a check line equal to `line`, after the first `after` checks.
  bool WaitFor(const std::string& line, size_t after) {
    for (int i = 0; i < 2000; ++i) {
      auto checks = Checks();
      if (std::find(checks.begin() + std::min(after, checks.size()), checks.end(), line) != checks.end()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

 private:
  PolicyConfig config_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::string> lines_;
  Status status_;
  std::thread thread_;
};

TEST_F(AlertTest, TheDaemonChecksSoonAfterTheCatalogChangesAndNotWhileItIsQuiet) {
  DaemonThread daemon(HugeInHome("1s"), uri_);
  ASSERT_TRUE(daemon.WaitFor("alerts (on schedule): 1 raised, 0 cleared, 1 active", 0)) << ::testing::PrintToString(daemon.Checks());
  // Quiet: two looks at the catalog, no check (the next on schedule is an hour away).
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(daemon.Checks().size(), 1u) << ::testing::PrintToString(daemon.Checks());

  // A new match: raised by the check the scan's commits bring, not an hour later.
  const std::string huge2 = root_ + "/home/alice/huge2.dat";
  testing::WriteFile(huge2, "");
  ASSERT_EQ(truncate(huge2.c_str(), int64_t{2} << 40), 0);
  Rescan();
  ASSERT_TRUE(daemon.WaitFor("alerts (the catalog changed): 1 raised, 0 cleared, 2 active", 1))
      << ::testing::PrintToString(daemon.Checks());
  EXPECT_NE(testing::ReadFile(log_).find(" raised huge_in_home: " + huge2 + " (size 2.00 TB"), std::string::npos) << testing::ReadFile(log_);

  // Fixed: cleared the same way.
  const size_t before = daemon.Checks().size();
  ASSERT_EQ(unlink((root_ + "/home/alice/huge.dat").c_str()), 0);
  Rescan();
  ASSERT_TRUE(daemon.WaitFor("alerts (the catalog changed): 0 raised, 1 cleared, 1 active", before))
      << ::testing::PrintToString(daemon.Checks());
  EXPECT_NE(testing::ReadFile(log_).find(" cleared huge_in_home: " + root_ + "/home/alice/huge.dat"), std::string::npos);
}

TEST_F(AlertTest, WithAlertOnChangeOffTheDaemonChecksOnScheduleOnly) {
  DaemonThread daemon(HugeInHome("off"), uri_);
  ASSERT_TRUE(daemon.WaitFor("alerts (on schedule): 1 raised, 0 cleared, 1 active", 0));
  ASSERT_EQ(unlink((root_ + "/home/alice/huge.dat").c_str()), 0);
  Rescan();
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(daemon.Checks().size(), 1u) << ::testing::PrintToString(daemon.Checks());
}

TEST_F(AlertTest, BadAlertConfigurationsNameTheLineAndTheFix) {
  auto error = [](const std::string& yaml) {
    auto c = ParsePolicyConfig(yaml, "a.yaml");
    return c.ok() ? std::string("accepted") : c.status().message();
  };
  EXPECT_EQ(error("alerts:\n  a: {condition: \"size > 1\"}\n"),
            "a.yaml: line 2, column 6: alert a: no alert_sinks configured (log:, mail: or webhook:)");
  EXPECT_EQ(error("alert_sinks: {log: /tmp/x}\nalerts:\n  a: {condition: \"size > 1\", usage: {on: user_usage, high: 1GB}}\n"),
            "a.yaml: line 3, column 6: alert a: give either a condition on entries or a usage, not both");
  EXPECT_EQ(error("alert_sinks: {log: /tmp/x}\nalerts:\n  a: {condition: \"size > 1\", sinks: [mail]}\n"),
            "a.yaml: line 3, column 6: alert a: sink 'mail' is not configured in alert_sinks");
  EXPECT_EQ(error("alert_sinks: {log: /tmp/x}\nalerts:\n  a: {usage: {on: user_usage, high: 1GB, low: 1MB}}\n"),
            "a.yaml: line 3, column 14: alert a: usage: an alert has a high mark only (raised at or over it, cleared "
            "under it)");
  EXPECT_EQ(error("alert_sinks: {webhook: ftp://x}\n"),
            "a.yaml: line 1, column 24: alert_sinks: webhook: expected a URL (http:// or https://) or {url: ..., "
            "secret_file: ...}");
}

}  // namespace
}  // namespace fathom::policy
