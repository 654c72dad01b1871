// web_security_test.cpp — what `fathom serve` refuses, and that it keeps serving: requests
// without a token or with a wrong, revoked or expired one; path traversal; bad parameters;
// oversized and malformed bodies; a flood of connections; the session cookie; HTTPS.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "web/served_tree.h"

namespace fathom::testing {
namespace {

using nlohmann::json;

class WebSecurity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { served_ = new ServedTree(); }
  static void TearDownTestSuite() {
    delete served_;
    served_ = nullptr;
  }
  static ServedTree* served_;
};
ServedTree* WebSecurity::served_ = nullptr;

void ExpectJsonError(const Reply& r, int status, const std::string& words) {
  EXPECT_EQ(r.status, status) << r.body;
  ASSERT_TRUE(r.json.is_object() && r.json.contains("error")) << r.body;
  EXPECT_NE(r.json["error"].get<std::string>().find(words), std::string::npos) << r.body;
}

TEST_F(WebSecurity, EveryApiCallNeedsAValidToken) {
  for (const char* target : {"/api/v1/whoami", "/api/v1/events", "/api/v1/events/1", "/api/v1/events/stream",
                             "/api/v1/catalog/usage", "/api/v1/catalog/subtree", "/api/v1/overview"}) {
    ExpectJsonError(served_->Get(target, ""), 401, "token");
    ExpectJsonError(served_->Get(target, "fathom_0000"), 401, "token");
    ExpectJsonError(served_->Send("GET", target, {{"Cookie", "fathom_session=wrong"}}), 401, "token");
  }
}

TEST_F(WebSecurity, ASessionCookieStandsForTheTokenUntilItIsCleared) {
  Reply bad = served_->Send("POST", "/api/v1/session", {}, R"({"token": "fathom_nope"})");
  ExpectJsonError(bad, 401, "unknown");
  ExpectJsonError(served_->Send("POST", "/api/v1/session", {}, "{not json"), 400, "token");
  ExpectJsonError(served_->Send("POST", "/api/v1/session", {}, R"({"token": 5})"), 400, "token");
  Reply ok = served_->Send("POST", "/api/v1/session", {}, json{{"token", served_->narrow_token()}}.dump());
  ASSERT_EQ(ok.status, 204) << ok.body;
  std::string cookie = ok.headers.find("Set-Cookie")->second;
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos);
  std::string pair = cookie.substr(0, cookie.find(';'));
  Reply me = served_->Send("GET", "/api/v1/whoami", {{"Cookie", "theme=dark; " + pair}});
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(me.json["user"], "nobody");
  Reply cleared = served_->Send("DELETE", "/api/v1/session", {{"Cookie", pair}});
  EXPECT_EQ(cleared.status, 204);
  EXPECT_NE(cleared.headers.find("Set-Cookie")->second.find("Max-Age=0"), std::string::npos);
}

TEST_F(WebSecurity, RevokedAndExpiredTokensAreRefusedWithinSeconds) {
  RunResult made = testing::Run({FathomBinary(), "token", "create", "--tokens", served_->tokens(), "--user", "temp", "--paths", "/"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::string token = made.out.substr(0, made.out.find('\n'));
  ASSERT_EQ(served_->Get("/api/v1/whoami", token).status, 200);
  RunResult list = testing::Run({FathomBinary(), "token", "list", "--tokens", served_->tokens()});
  ASSERT_EQ(list.exit_code, 0);
  EXPECT_EQ(list.out.find(token), std::string::npos) << "the list shows tokens: " << list.out;
  std::string id;
  for (const std::string& line : Lines(list.out)) {
    if (line.find(" temp ") != std::string::npos) id = line.substr(0, line.find(' '));
  }
  ASSERT_EQ(id.size(), 12u) << list.out;
  RunResult revoked = testing::Run({FathomBinary(), "token", "revoke", "--tokens", served_->tokens(), id.substr(0, 8)});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  int status = 200;
  while (status == 200 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    status = served_->Get("/api/v1/whoami", token).status;
  }
  EXPECT_EQ(status, 401);

  RunResult brief = testing::Run({FathomBinary(), "token", "create", "--tokens", served_->tokens(), "--user", "brief",
                         "--paths", "/", "--expires", "1s"});
  ASSERT_EQ(brief.exit_code, 0) << brief.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(served_->Get("/api/v1/whoami", brief.out.substr(0, brief.out.find('\n'))).status, 401);
}

TEST_F(WebSecurity, TheTokensFileKeepsNoTokenAndBadGrantsAreRefused) {
  std::string text;
  {
    std::ifstream in(served_->tokens(), std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_EQ(text.find(served_->admin_token()), std::string::npos);
  EXPECT_EQ(text.find(served_->admin_token().substr(7)), std::string::npos);
  struct stat st {};
  ASSERT_EQ(stat(served_->tokens().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  RunResult bad = testing::Run({FathomBinary(), "token", "create", "--tokens", served_->tokens(), "--user", "x", "--paths", "/a/../etc"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("'..'"), std::string::npos) << bad.err;
}

TEST_F(WebSecurity, PathTraversalAndBadParametersAreRefusedNamingTheParameter) {
  const std::string& t = served_->admin_token();
  ExpectJsonError(served_->Get("/api/v1/events" + Query({{"prefix", "/tmp/../etc"}}), t), 400, "'prefix'");
  ExpectJsonError(served_->Get("/api/v1/catalog/subtree" + Query({{"path", "../../etc"}}), t), 400, "'path'");
  ExpectJsonError(served_->Get("/api/v1/catalog/subtree" + Query({{"path", served_->tree() + "//a"}}), t), 400, "'path'");
  ExpectJsonError(served_->Get("/api/v1/catalog/usage?by=shoe", t), 400, "'by'");
  ExpectJsonError(served_->Get("/api/v1/events?kinds=CRATE", t), 400, "CRATE");
  ExpectJsonError(served_->Get("/api/v1/events?limit=0", t), 400, "'limit'");
  ExpectJsonError(served_->Get("/api/v1/events?limit=5000", t), 400, "'limit'");
  ExpectJsonError(served_->Get("/api/v1/events?limit=-1", t), 400, "'limit'");
  ExpectJsonError(served_->Get("/api/v1/events?since=yesterday", t), 400, "'since'");
  ExpectJsonError(served_->Get("/api/v1/nothing", t), 404, "no such call");
  Reply traversal = served_->Get("/%2e%2e/%2e%2e/etc/passwd", "");
  EXPECT_EQ(traversal.status, 404);
  EXPECT_EQ(traversal.body.find("root:"), std::string::npos);
}

TEST_F(WebSecurity, OversizedAndMalformedBodiesAreRefused) {
  Reply big = served_->Send("POST", "/api/v1/session", {}, std::string(200 * 1024, 'x'));
  EXPECT_EQ(big.status, 413) << big.body;
  Reply binary = served_->Send("POST", "/api/v1/session", {}, std::string("\xff\xfe\0{", 4));
  ExpectJsonError(binary, 400, "JSON");
  EXPECT_EQ(served_->Get("/api/v1/whoami", served_->admin_token()).status, 200);
}

TEST_F(WebSecurity, AFloodOfConnectionsIsAnsweredOrRefusedAndTheServerKeepsServing) {
  constexpr int kClients = 64;
  constexpr int kEach = 10;
  std::atomic<int> ok{0}, refused{0}, other{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&] {
      for (int j = 0; j < kEach; ++j) {
        Reply r = served_->Get("/api/v1/catalog/summary", served_->admin_token());
        if (r.status == 200) {
          ++ok;
        } else if (r.status == 429) {
          ++refused;
        } else {
          ++other;
        }
      }
    });
  }
  for (std::thread& c : clients) c.join();
  EXPECT_EQ(ok + refused, kClients * kEach);
  EXPECT_EQ(other, 0);
  EXPECT_GT(ok, 0);
  Reply after = served_->Get("/api/v1/catalog/summary", served_->admin_token());
  EXPECT_EQ(after.status, 200);
  // The server counts an answer once it is written: the last ones may follow the client's read.
  const std::string throttled = "fathom_http_requests_total{outcome=\"throttled\"} " + std::to_string(refused.load()) + "\n";
  Reply metrics;
  for (int i = 0; i < 50; ++i) {
    metrics = served_->Get("/metrics", "");
    if (metrics.body.find(throttled) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(metrics.body.find(throttled), std::string::npos) << metrics.body;
}

TEST_F(WebSecurity, TooManyLiveStreamsAreRefusedWith429) {
  // The server allows 4 streams; open them and ask for a fifth.
  std::string url = served_->server().Url();
  std::atomic<bool> stop{false};
  std::atomic<int> open{0};
  std::vector<std::thread> streams;
  for (int i = 0; i < 4; ++i) {
    streams.emplace_back([&] {
      httplib::Client client(url.substr(0, url.size() - 1));
      bool counted = false;
      client.Get("/api/v1/events/stream", {{"Authorization", "Bearer " + served_->admin_token()}},
                 [&](const char*, size_t) {
                   if (!counted) {
                     counted = true;
                     ++open;
                   }
                   return !stop.load();
                 });
    });
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (open < 4 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(open, 4);
  ExpectJsonError(served_->Get("/api/v1/events/stream", served_->admin_token()), 429, "too many open event streams");
  stop = true;
  for (std::thread& s : streams) s.join();
}

TEST_F(WebSecurity, HttpsServesWithTheGivenCertificateAndMetricsCanNeedAToken) {
  TempDir dir;
  std::string cert = dir / "cert.pem", key = dir / "key.pem";
  RunResult made = testing::Run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "1", "-subj", "/CN=127.0.0.1"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  web::ServeOptions options;
  options.listen = "127.0.0.1:0";
  options.catalog = served_->catalog();
  options.tls_cert = cert;
  options.tls_key = key;
  options.metrics_token = "scrape-secret";
  options.quiet = true;
  auto server = web::WebServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status().message();
  std::string url = server.value()->Url();
  ASSERT_EQ(url.rfind("https://127.0.0.1:", 0), 0u) << url;
  httplib::SSLClient client("127.0.0.1", std::stoi(url.substr(url.rfind(':') + 1)));
  client.enable_server_certificate_verification(false);
  auto me = client.Get("/api/v1/whoami", {{"Authorization", "Bearer " + *server.value()->StartupToken()}});
  ASSERT_TRUE(me);
  EXPECT_EQ(me->status, 200);
  EXPECT_NE(me->body.find("\"admin\":true"), std::string::npos) << me->body;
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 401);
  auto scraped = client.Get("/metrics", {{"Authorization", "Bearer scrape-secret"}});
  ASSERT_TRUE(scraped);
  EXPECT_EQ(scraped->status, 200);
  EXPECT_NE(scraped->body.find("fathom_catalog_entries 27"), std::string::npos);
  server.value()->Stop();

  options.tls_key = cert;  // not a key
  auto wrong = web::WebServer::Start(options);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("PEM"), std::string::npos) << wrong.status().message();
}

}  // namespace
}  // namespace fathom::testing
