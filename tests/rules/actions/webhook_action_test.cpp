// Webhooks delivered to a real HTTP server on loopback (cpp-httplib) started by the test:
// each kind of answer and what it means (Retry-After in seconds and as an HTTP-date, 410
// disables, a redirect is not followed), a port nobody listens on, Standard Webhooks
// signatures checked with the openssl command for one and two secrets, the same webhook-id on
// every attempt, retry_statuses and permanent_statuses over the defaults, hostile names in
// the body, loopback refused unless allowed (no request arrives), a secret file others
// could read refused, and `include: [stat, sha256]` (each event with its file's attributes
// and content digest, compared with stat(2) and the sha256sum command, or why not).
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "rules/actions/action.h"
#include "rules/actions/action_test_util.h"
#include "support/http_receiver.h"
#include "support/temp_dir.h"

namespace fathom::rules {
namespace {

using testing::Delivery;

std::string Shell(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  char buf[256];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

class WebhookActionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    secret_ = dir_ / "hook.secret";
    std::ofstream(secret_) << "whsec_c2VjcmV0LWtleS1vZi10aGUtdGVzdA==\n";  // "secret-key-of-the-test"
    ASSERT_EQ(chmod(secret_.c_str(), 0600), 0);
    action_.url = hook_.url();
    action_.secret_files = {secret_};
    action_.allow_loopback = true;
    action_.timeout_ns = 5'000'000'000;
  }
  ActionOutcome Send(const DeliveryContext& c = Delivery({"/data/a"})) { return RunWebhookAction(action_, c); }

  // "v1,BASE64" of HMAC-SHA256(key, id.timestamp.body), computed by the openssl command.
  std::string OpensslSignature(const httplib::Request& req, const std::string& key) {
    std::ofstream(dir_ / "signed", std::ios::binary)
        << req.get_header_value("webhook-id") << "." << req.get_header_value("webhook-timestamp") << "." << req.body;
    return "v1," + Shell("openssl dgst -sha256 -mac HMAC -macopt key:" + key + " -binary < " + (dir_ / "signed") +
                         " | base64 -w0");
  }

  fathom::testing::TempDir dir_;
  fathom::testing::HttpReceiver hook_{{"/hook", "/elsewhere"}};
  std::string secret_;
  WebhookAction action_;
};

TEST_F(WebhookActionTest, SuccessIsA2xxAndTheRequestIsSignedJsonWithTheDeliveryId) {
  hook_.Answer(200);
  const DeliveryContext c = Delivery({"/data/a"});
  ActionOutcome out = Send(c);
  EXPECT_EQ(out.kind, ActionOutcome::kSuccess) << out.message;
  EXPECT_EQ(out.message, "HTTP 200");
  hook_.Answer(204);
  EXPECT_EQ(Send(c).kind, ActionOutcome::kSuccess);
  auto requests = hook_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  const httplib::Request& req = requests[0];
  EXPECT_EQ(req.get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(req.get_header_value("webhook-id"), "dlv_01J9Z3");
  EXPECT_NEAR(std::stoll(req.get_header_value("webhook-timestamp")), std::time(nullptr), 5);
  EXPECT_EQ(req.body, c.payload_json);
  EXPECT_EQ(req.get_header_value("webhook-signature"), OpensslSignature(req, "secret-key-of-the-test"));
}

TEST_F(WebhookActionTest, TheSameWebhookIdOnEveryAttempt) {
  hook_.Answer(503);
  DeliveryContext c = Delivery({"/data/a"});
  EXPECT_EQ(Send(c).kind, ActionOutcome::kRetry);
  c.attempt = 2;
  c.payload_json = DeliveryPayload(c);
  hook_.Answer(200);
  EXPECT_EQ(Send(c).kind, ActionOutcome::kSuccess);
  auto requests = hook_.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].get_header_value("webhook-id"), "dlv_01J9Z3");
  EXPECT_EQ(requests[1].get_header_value("webhook-id"), "dlv_01J9Z3");
  EXPECT_EQ(nlohmann::json::parse(requests[1].body)["attempt"], 2);
}

TEST_F(WebhookActionTest, TwoSecretsDuringARotationGiveTwoSignatures) {
  const std::string raw = dir_ / "new.secret";
  std::ofstream(raw) << "the-new-raw-secret";
  ASSERT_EQ(chmod(raw.c_str(), 0400), 0);
  action_.secret_files = {secret_, raw};
  ASSERT_EQ(Send().kind, ActionOutcome::kSuccess);
  auto requests = hook_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].get_header_value("webhook-signature"),
            OpensslSignature(requests[0], "secret-key-of-the-test") + " " +
                OpensslSignature(requests[0], "the-new-raw-secret"));
}

TEST_F(WebhookActionTest, RetryDisableAndPermanentAnswers) {
  hook_.Answer(503);
  ActionOutcome unavailable = Send();
  EXPECT_EQ(unavailable.kind, ActionOutcome::kRetry);
  EXPECT_EQ(unavailable.message, "HTTP 503");
  EXPECT_EQ(unavailable.retry_after_ns, std::nullopt);
  hook_.Answer(429, {{"Retry-After", "7"}});
  ActionOutcome busy = Send();
  EXPECT_EQ(busy.kind, ActionOutcome::kRetry);
  EXPECT_EQ(busy.retry_after_ns, 7'000'000'000);
  // An HTTP-date 30 s ahead.
  const time_t at = std::time(nullptr) + 30;
  std::tm tm{};
  gmtime_r(&at, &tm);
  char date[64];
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  hook_.Answer(503, {{"Retry-After", date}});
  ActionOutcome dated = Send();
  EXPECT_EQ(dated.kind, ActionOutcome::kRetry);
  ASSERT_TRUE(dated.retry_after_ns.has_value()) << date;
  EXPECT_GE(*dated.retry_after_ns, 28'000'000'000);
  EXPECT_LE(*dated.retry_after_ns, 30'000'000'000);
  hook_.Answer(410);
  ActionOutcome gone = Send();
  EXPECT_EQ(gone.kind, ActionOutcome::kDisable);
  EXPECT_EQ(gone.message, "HTTP 410: the endpoint is gone, disable it");
  hook_.Answer(404);
  ActionOutcome missing = Send();
  EXPECT_EQ(missing.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(missing.message, "HTTP 404");
  EXPECT_EQ(hook_.Requests().size(), 5u);
}

TEST_F(WebhookActionTest, RetryAndPermanentStatusesOverrideTheDefaults) {
  action_.retry_statuses = {404, 410};
  action_.permanent_statuses = {503, 429};
  hook_.Answer(404, {{"Retry-After", "9"}});
  ActionOutcome missing = Send();
  EXPECT_EQ(missing.kind, ActionOutcome::kRetry);
  EXPECT_EQ(missing.message, "HTTP 404");
  EXPECT_EQ(missing.retry_after_ns, 9'000'000'000);
  hook_.Answer(410);
  ActionOutcome gone = Send();
  EXPECT_EQ(gone.kind, ActionOutcome::kRetry) << "retried, not disabled";
  EXPECT_EQ(gone.message, "HTTP 410");
  hook_.Answer(503, {{"Retry-After", "9"}});
  ActionOutcome unavailable = Send();
  EXPECT_EQ(unavailable.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(unavailable.message, "HTTP 503 (permanent_statuses)");
  hook_.Answer(429);
  EXPECT_EQ(Send().kind, ActionOutcome::kPermanent);
  // Statuses in neither list keep their defaults.
  hook_.Answer(500);
  EXPECT_EQ(Send().kind, ActionOutcome::kRetry);
  hook_.Answer(403);
  EXPECT_EQ(Send().kind, ActionOutcome::kPermanent);
  hook_.Answer(202);
  EXPECT_EQ(Send().kind, ActionOutcome::kSuccess);
  EXPECT_EQ(hook_.Requests().size(), 7u);
}

TEST_F(WebhookActionTest, ARedirectIsPermanentAndNotFollowed) {
  hook_.Answer(302, {{"Location", hook_.url("/elsewhere")}});
  ActionOutcome out = Send();
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, "HTTP 302: redirects are not followed (Location: " + hook_.url("/elsewhere") + ")");
  auto requests = hook_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/hook");
}

TEST_F(WebhookActionTest, NoServerOnThePortIsARetry) {
  // A port that was free a moment ago: bound, then closed.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  action_.url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/hook";
  ActionOutcome out = Send();
  EXPECT_EQ(out.kind, ActionOutcome::kRetry);
  EXPECT_NE(out.message.find("onnect"), std::string::npos) << out.message;
  action_.url = "http://no-such-host.invalid/hook";
  EXPECT_EQ(Send().kind, ActionOutcome::kRetry);
  action_.url = "ftp://127.0.0.1/hook";
  EXPECT_EQ(Send().kind, ActionOutcome::kPermanent);
}

TEST_F(WebhookActionTest, LoopbackIsRefusedUnlessAllowedAndNoRequestArrives) {
  action_.allow_loopback = false;
  action_.allow_private = true;
  ActionOutcome out = Send();
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, "refused to connect to 127.0.0.1: a loopback address (allow_loopback permits it)");
  action_.url = "http://localhost:" + std::to_string(hook_.port()) + "/hook";
  EXPECT_EQ(Send().kind, ActionOutcome::kPermanent);
  EXPECT_TRUE(hook_.Requests().empty());
  action_.allow_loopback = true;
  EXPECT_EQ(Send().kind, ActionOutcome::kSuccess);
  EXPECT_EQ(hook_.Requests().size(), 1u);
}

TEST_F(WebhookActionTest, ASecretFileOthersCanReadIsRefusedAndNeverShown) {
  ASSERT_EQ(chmod(secret_.c_str(), 0644), 0);
  ActionOutcome out = Send();
  EXPECT_EQ(out.kind, ActionOutcome::kPermanent);
  EXPECT_EQ(out.message, "the webhook secret file " + secret_ +
                             " has mode 0644: it must not be accessible to group or others (chmod 600 " + secret_ + ")");
  EXPECT_EQ(out.message.find("c2VjcmV0"), std::string::npos);
  EXPECT_TRUE(hook_.Requests().empty());
  EXPECT_EQ(CheckWebhookAction(action_).message(), out.message);
  ASSERT_EQ(chmod(secret_.c_str(), 0600), 0);
  EXPECT_TRUE(CheckWebhookAction(action_).ok());
  action_.secret_files = {};
  EXPECT_EQ(Send().kind, ActionOutcome::kPermanent);
  EXPECT_EQ(CheckWebhookAction(action_).message(), "a webhook needs one secret file, or two while a secret is rotated");
  action_.secret_files = {secret_};
  action_.url = "file:///etc/passwd";
  EXPECT_EQ(CheckWebhookAction(action_).message(),
            "webhook URL \"file:///etc/passwd\": only http:// and https:// are supported");
}

TEST_F(WebhookActionTest, HostileNamesArriveJsonEscapedWithTheirExactBytes) {
  std::vector<std::string> paths;
  for (const std::string& n : testing::HostileNames()) paths.push_back("/data/" + n);
  const DeliveryContext c = Delivery(paths);
  ASSERT_EQ(Send(c).kind, ActionOutcome::kSuccess);
  auto requests = hook_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, c.payload_json);
  auto doc = nlohmann::json::parse(requests[0].body);
  ASSERT_EQ(doc["events"].size(), paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    const auto& e = doc["events"][i];
    if (e.contains("path_b64")) {
      const std::string b64 = e["path_b64"];
      EXPECT_EQ(Shell("printf '%s' '" + b64 + "' | base64 -d"), paths[i]);
    } else {
      EXPECT_EQ(e["path"].get<std::string>(), paths[i]);
    }
  }
}

TEST_F(WebhookActionTest, IncludeGivesEachEventItsFilesAttributesAndDigestReadWhenSent) {
  const std::string file = dir_ / "raw.h5";
  std::ofstream(file) << "hello\n";
  ASSERT_EQ(chmod(file.c_str(), 0640), 0);
  const timeval times[2] = {{1700000000, 0}, {1700000001, 500000}};
  ASSERT_EQ(utimes(file.c_str(), times), 0);
  ASSERT_EQ(symlink("raw.h5", (dir_ / "link").c_str()), 0);
  action_.include_stat = true;
  action_.include_sha256 = true;
  ASSERT_EQ(Send(Delivery({file, dir_ / "link", dir_ / "gone.h5", dir_.path()})).kind, ActionOutcome::kSuccess);
  auto requests = hook_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto events = nlohmann::json::parse(requests[0].body)["events"];
  ASSERT_EQ(events.size(), 4u);
  struct stat st {};
  ASSERT_EQ(lstat(file.c_str(), &st), 0);
  const auto& f = events[0]["file"];
  EXPECT_EQ(f["type"], "file");
  EXPECT_EQ(f["size"], 6);
  EXPECT_EQ(f["blocks"], st.st_blocks);
  EXPECT_EQ(f["mode"], "0640");
  EXPECT_EQ(f["uid"], st.st_uid);
  EXPECT_EQ(f["gid"], st.st_gid);
  EXPECT_EQ(f["mtime_ns"], int64_t{1700000001500000000});
  EXPECT_EQ(f["ctime_ns"], static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec);
  EXPECT_EQ(f["sha256"], Shell("sha256sum < " + file + " | cut -c1-64 | tr -d '\\n'"));
  EXPECT_EQ(f["sha256"], "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  // A symbolic link is described, not followed, and has no digest; a gone file says so.
  EXPECT_EQ(events[1]["file"]["type"], "symlink");
  EXPECT_FALSE(events[1]["file"].contains("sha256"));
  EXPECT_EQ(events[2]["file"], nlohmann::json::parse(R"({"error":"gone"})"));
  EXPECT_EQ(events[3]["file"]["type"], "dir");
  EXPECT_FALSE(events[3]["file"].contains("sha256"));
  // Without include, no file facts: the body is the recorded payload.
  action_.include_stat = action_.include_sha256 = false;
  ASSERT_EQ(Send(Delivery({file})).kind, ActionOutcome::kSuccess);
  EXPECT_FALSE(nlohmann::json::parse(hook_.Requests()[1].body)["events"][0].contains("file"));
}

}  // namespace
}  // namespace fathom::rules
