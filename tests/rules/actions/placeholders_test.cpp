// The placeholders of a command template, the JSON payload of a delivery (hostile and
// non-UTF-8 names included), and what a command's end or a webhook's answer means.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "rules/actions/action.h"
#include "rules/actions/action_test_util.h"
#include "rules/actions/address_check.h"
#include "rules/actions/outcome.h"

namespace fathom::rules {
namespace {

using testing::Delivery;

TEST(PlaceholdersTest, EveryPlaceholderAsAWholeArgumentAndInsideOne) {
  DeliveryContext c = Delivery({"/data/in/a.jpg", "/data/in/sub/b c.png"});
  c.attempt = 3;
  const std::vector<std::string> argv = {"/usr/bin/convert", "{path}", "--out={dir}/thumb-{name}", "{kind}", "{id}",
                                         "{root}", "{delivery_id}", "{attempt}", "{rule}", "{paths}", "{}", "{X}",
                                         "a{b"};
  ASSERT_TRUE(CheckCommandTemplate(argv).ok()) << CheckCommandTemplate(argv).message();
  EXPECT_EQ(ExpandArgv(argv, c),
            (std::vector<std::string>{"/usr/bin/convert", "/data/in/sub/b c.png", "--out=/data/in/sub/thumb-b c.png",
                                      "CLOSE_WRITE", "42", "/data", "dlv_01J9Z3", "3", "thumbnails", "/data/in/a.jpg",
                                      "/data/in/sub/b c.png", "{}", "{X}", "a{b"}));
}

TEST(PlaceholdersTest, AValueThatLooksLikeAPlaceholderIsNotExpandedAgain) {
  DeliveryContext c = Delivery({"/data/{name}{path}"});
  EXPECT_EQ(ExpandArgv({"{path}:{name}"}, c), (std::vector<std::string>{"/data/{name}{path}:{name}{path}"}));
  EXPECT_EQ(ExpandArgv({"{dir}"}, Delivery({"/top"})), (std::vector<std::string>{"/"}));
}

TEST(PlaceholdersTest, UnknownPlaceholdersAndPathsInsideAnArgumentAreErrorsNamingTheIndex) {
  Status unknown = CheckCommandTemplate({"/bin/echo", "{path}", "x{size}y"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.message(),
            "command argument 2 (\"x{size}y\"): unknown placeholder {size} (known: {path} {kind} {id} {root} {name} "
            "{dir} {delivery_id} {attempt} {rule} {paths})");
  Status paths = CheckCommandTemplate({"/bin/echo", "--files={paths}"});
  ASSERT_FALSE(paths.ok());
  EXPECT_EQ(paths.message(),
            "command argument 1 (\"--files={paths}\"): {paths} must be a whole argument (it becomes one argument per path)");
  EXPECT_FALSE(CheckCommandTemplate({}).ok());
}

TEST(PayloadTest, TheDocumentOfABatchWithAttrs) {
  DeliveryContext c = Delivery({"/data/a", "/data/b"});
  c.events[1].mask = kind::kCreate | kind::kIsDir;
  c.events[1].cookie = 9;
  c.events[1].attrs = R"({"uid":1000,"size":5})";
  EXPECT_EQ(DeliveryPayload(c),
            R"({"delivery_id":"dlv_01J9Z3","rule":"thumbnails","attempt":1,"events":[)"
            R"({"id":41,"ts_ns":1732200000123456789,"kinds":["CLOSE_WRITE"],"path":"/data/a","root":"/data","source":"inotify","cookie":0},)"
            R"({"id":42,"ts_ns":1732200000123456789,"kinds":["CREATE","ISDIR"],"path":"/data/b","root":"/data","source":"inotify","cookie":9,"attrs":{"uid":1000,"size":5}}]})");
}

TEST(PayloadTest, HostileNamesAreJsonEscapedAndNonUtf8NamesCarryTheirBytesInBase64) {
  std::vector<std::string> paths;
  for (const std::string& n : testing::HostileNames()) paths.push_back("/data/" + n);
  DeliveryContext c = Delivery(paths);
  auto doc = nlohmann::json::parse(c.payload_json);
  ASSERT_EQ(doc["events"].size(), paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    const auto& e = doc["events"][i];
    if (paths[i].find('\xff') == std::string::npos) {
      EXPECT_EQ(e["path"].get<std::string>(), paths[i]);
      EXPECT_FALSE(e.contains("path_b64"));
    } else {
      EXPECT_EQ(e["path"].get<std::string>(), "/data/\xef\xbf\xbd\xef\xbf\xbd not UTF-8 \xef\xbf\xbd");
      EXPECT_EQ(e["path_b64"].get<std::string>(), "L2RhdGEv//4gbm90IFVURi04IMM=");
    }
  }
  EXPECT_NE(DeliveryPayload(Delivery({"/data/caf\xe9"})).find("\"path\":\"/data/caf\xef\xbf\xbd\""), std::string::npos);
  EXPECT_NE(DeliveryPayload(Delivery({"/data/caf\xe9"})).find(R"("path_b64":"L2RhdGEvY2Fm6Q==")"), std::string::npos);
}

TEST(OutcomeTest, ACommandsEnd) {
  const std::vector<int> retry = {75};
  auto exited = [](int code) { ChildExit e; e.exit_code = code; return e; };
  EXPECT_EQ(CommandOutcome(exited(0), retry, 1).kind, ActionOutcome::kSuccess);
  EXPECT_EQ(CommandOutcome(exited(75), retry, 1).kind, ActionOutcome::kRetry);
  EXPECT_EQ(CommandOutcome(exited(75), {}, 1).kind, ActionOutcome::kPermanent);
  ChildExit late;
  late.timed_out = true;
  late.signal = 9;
  EXPECT_EQ(CommandOutcome(late, retry, 1'500'000'000).message, "timed out after 1500 ms");
  EXPECT_EQ(OutcomeKindName(ActionOutcome::kDisable), std::string("disable"));
}

TEST(OutcomeTest, RetryAfterInSecondsOrAsAnHttpDate) {
  const int64_t now = int64_t{784111777} * 1'000'000'000;  // Sun, 06 Nov 1994 08:49:37 GMT
  EXPECT_EQ(ParseRetryAfter("7", now), 7'000'000'000);
  EXPECT_EQ(ParseRetryAfter(" 120 ", now), 120'000'000'000);
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now), 30'000'000'000);
  EXPECT_EQ(ParseRetryAfter("Sunday, 06-Nov-94 08:50:07 GMT", now), 30'000'000'000);
  EXPECT_EQ(ParseRetryAfter("Sun Nov  6 08:50:07 1994", now), 30'000'000'000);
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now), 0);
  EXPECT_EQ(ParseRetryAfter("soon", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("-5", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("", now), std::nullopt);
}

TEST(OutcomeTest, AWebhooksAnswer) {
  auto answered = [](long status, std::string retry_after = "") {
    HttpAnswer a;
    a.transport = HttpAnswer::kAnswered;
    a.status = status;
    a.retry_after = std::move(retry_after);
    return WebhookOutcome(a, 0);
  };
  EXPECT_EQ(answered(200).kind, ActionOutcome::kSuccess);
  EXPECT_EQ(answered(204).message, "HTTP 204");
  EXPECT_EQ(answered(503).kind, ActionOutcome::kRetry);
  EXPECT_EQ(answered(503).retry_after_ns, std::nullopt);
  EXPECT_EQ(answered(429, "7").retry_after_ns, 7'000'000'000);
  EXPECT_EQ(answered(410).kind, ActionOutcome::kDisable);
  EXPECT_EQ(answered(404).kind, ActionOutcome::kPermanent);
  EXPECT_EQ(answered(301).kind, ActionOutcome::kPermanent);
  HttpAnswer refused;
  refused.transport = HttpAnswer::kUnreachable;
  EXPECT_EQ(WebhookOutcome(refused, 0).kind, ActionOutcome::kRetry);
  refused.transport = HttpAnswer::kBadUrl;
  EXPECT_EQ(WebhookOutcome(refused, 0).kind, ActionOutcome::kPermanent);
}

TEST(AddressCheckTest, LoopbackLinkLocalAndPrivateRanges) {
  for (const char* ip : {"127.0.0.1", "127.255.0.9", "::1", "0.0.0.0", "::", "169.254.169.254", "fe80::1",
                         "::ffff:127.0.0.1"}) {
    EXPECT_FALSE(CheckWebhookAddress(ip, false, true).ok()) << ip;
    EXPECT_TRUE(CheckWebhookAddress(ip, true, false).ok()) << ip;
  }
  for (const char* ip : {"10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "fd00::5", "fc00::1"}) {
    EXPECT_FALSE(CheckWebhookAddress(ip, true, false).ok()) << ip;
    EXPECT_TRUE(CheckWebhookAddress(ip, false, true).ok()) << ip;
  }
  for (const char* ip : {"8.8.8.8", "172.32.0.1", "172.15.0.1", "2001:db8::1", "::ffff:8.8.8.8"}) {
    EXPECT_TRUE(CheckWebhookAddress(ip, false, false).ok()) << ip;
  }
  EXPECT_EQ(CheckWebhookAddress("127.0.0.1", false, false).message(),
            "refused to connect to 127.0.0.1: a loopback address (allow_loopback permits it)");
  EXPECT_EQ(CheckWebhookAddress("192.168.1.1", false, false).message(),
            "refused to connect to 192.168.1.1: a private address (allow_private permits it)");
}

}  // namespace
}  // namespace fathom::rules
