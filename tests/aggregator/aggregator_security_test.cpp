// CURVE keys, the client list, ZAP refusals and hostile frames against a real aggregator.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "aggregator/aggregator_harness.h"

namespace fathom::testing {
namespace {

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(CurveKeysTest, KeyFilesRoundTripAndAreNeverOverwritten) {
  TempDir dir;
  auto keys = security::GenerateKeyPair();
  ASSERT_TRUE(keys.ok());
  ASSERT_TRUE(security::WriteKeyFiles(keys.value(), dir / "server").ok());
  struct stat st;
  ASSERT_EQ(::stat((dir / "server.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto loaded = security::LoadKeyFile(dir / "server.key");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->public_key, keys->public_key);
  EXPECT_EQ(loaded->secret_key, keys->secret_key);
  auto pub = security::LoadKeyFile(dir / "server.pub");
  ASSERT_TRUE(pub.ok());
  EXPECT_TRUE(pub->secret_key.empty());
  EXPECT_EQ(security::LoadPublicKey(dir / "server.pub").value(), keys->public_key);
  EXPECT_EQ(security::LoadPublicKey(keys->public_key).value(), keys->public_key);
  Status again = security::WriteKeyFiles(keys.value(), dir / "server");
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("already exists"), std::string::npos);
}

TEST(CurveKeysTest, BadKeyFileNamesTheFileAndLine) {
  TempDir dir;
  WriteFile(dir / "bad.pub", "# comment\npublic-key = too-short\n");
  auto loaded = security::LoadKeyFile(dir / "bad.pub");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find(dir / "bad.pub:2"), std::string::npos)
      << loaded.status().message();
  EXPECT_NE(loaded.status().message().find("fathom keygen"), std::string::npos);
}

TEST(ClientListTest, LoadsKeysFromTextAndRelativePubFiles) {
  TempDir dir;
  auto a = security::GenerateKeyPair().value();
  auto b = security::GenerateKeyPair().value();
  ASSERT_TRUE(security::WriteKeyFiles(b, dir / "b").ok());
  WriteFile(dir / "clients.yaml", "clients:\n"
                                  "  - name: a\n"
                                  "    key: \"" + a.public_key + "\"\n"
                                  "    roles: [collect]\n"
                                  "  - name: b\n"
                                  "    key: b.pub\n"
                                  "    roles: [subscribe, collect]\n"
                                  "    paths: [/lustre/proj/, /scratch]\n");
  auto list = security::ClientList::Load(dir / "clients.yaml");
  ASSERT_TRUE(list.ok()) << list.status().message();
  const auto* ga = list->Find(a.public_key);
  const auto* gb = list->Find(b.public_key);
  ASSERT_TRUE(ga && gb);
  EXPECT_EQ(ga->roles, security::role::kCollect);
  EXPECT_TRUE(ga->Grants("/anything"));
  EXPECT_EQ(gb->roles, security::role::kAll);
  EXPECT_TRUE(gb->Grants("/lustre/proj"));
  EXPECT_TRUE(gb->Grants("/lustre/proj/x/y"));
  EXPECT_FALSE(gb->Grants("/lustre/project"));
  EXPECT_FALSE(gb->Grants("/lustre"));
  EXPECT_TRUE(gb->Grants("/scratch/u"));
}

TEST(ClientListTest, ErrorsNameTheFileTheLineAndTheFix) {
  TempDir dir;
  WriteFile(dir / "broken.yaml", "clients:\n  - name: a\n    key: [unclosed\n");
  auto broken = security::ClientList::Load(dir / "broken.yaml");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find(dir / "broken.yaml:"), std::string::npos)
      << broken.status().message();
  auto key = security::GenerateKeyPair().value();
  WriteFile(dir / "role.yaml", "clients:\n  - name: a\n    key: \"" + key.public_key + "\"" +
                                   "\n    roles: [collect, publish]\n");
  auto role = security::ClientList::Load(dir / "role.yaml");
  ASSERT_FALSE(role.ok());
  EXPECT_NE(role.status().message().find(dir / "role.yaml:4"), std::string::npos)
      << role.status().message();
  EXPECT_NE(role.status().message().find("the roles are collect and subscribe"),
            std::string::npos);
  WriteFile(dir / "nokey.yaml", "clients:\n  - name: a\n    key: missing.pub\n    roles: [collect]\n");
  auto nokey = security::ClientList::Load(dir / "nokey.yaml");
  ASSERT_FALSE(nokey.ok());
  EXPECT_NE(nokey.status().message().find(dir / "nokey.yaml:3"), std::string::npos)
      << nokey.status().message();
}

class AggregatorSecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = spdlog::default_logger();
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
  }
  void TearDown() override { spdlog::set_default_logger(previous_); }
  std::string Log() {
    spdlog::default_logger()->flush();
    return log_.str();
  }

  std::ostringstream log_;
  std::shared_ptr<spdlog::logger> previous_;
  TempDir dir_;
  TestKeys keys_;
};

TEST_F(AggregatorSecurityTest, UnknownClientKeyIsRefusedAndLogged) {
  TestAggregator agg(SecureOptions(keys_, dir_ / "events.db"));
  RawClient stranger(agg.endpoint(), &keys_.stranger, keys_.server.public_key);
  stranger.Send(wire::Hello{"mdt0"});
  EXPECT_FALSE(stranger.Receive(1500ms).has_value());
  EXPECT_NE(Log().find("refused client key " + keys_.stranger.public_key + " from 127.0.0.1: "
                       "not in the aggregator's client list"),
            std::string::npos)
      << Log();
  EXPECT_GE(agg.get().Stats().refused_clients, 1u);
  RawClient known(agg.endpoint(), &keys_.collector, keys_.server.public_key);
  EXPECT_EQ(Hello(known, "mdt0"), 0u);
}

TEST_F(AggregatorSecurityTest, ClientWithTheWrongServerKeyGetsNoAnswer) {
  TestAggregator agg(SecureOptions(keys_, dir_ / "events.db"));
  RawClient wrong(agg.endpoint(), &keys_.collector, keys_.stranger.public_key);
  wrong.Send(wire::Hello{"mdt0"});
  EXPECT_FALSE(wrong.Receive(1500ms).has_value());
  RawClient plain(agg.endpoint(), nullptr, "");
  plain.Send(wire::Hello{"mdt0"});
  EXPECT_FALSE(plain.Receive(500ms).has_value());
}

TEST_F(AggregatorSecurityTest, InsecureAggregatorServesPlainClients) {
  aggregator::AggregatorOptions o;
  o.listen = "tcp://127.0.0.1:*";
  o.store.path = dir_ / "events.db";
  o.insecure = true;
  TestAggregator agg(o);
  RawClient plain(agg.endpoint(), nullptr, "");
  EXPECT_EQ(Hello(plain, "mdt0"), 0u);
  EXPECT_NE(Log().find("--insecure"), std::string::npos);
}

TEST_F(AggregatorSecurityTest, HostileFramesGetErrorsAndTheAggregatorKeepsServing) {
  auto options = SecureOptions(keys_, dir_ / "events.db");
  options.max_frame_bytes = 1 << 20;
  TestAggregator agg(options);
  RawClient c(agg.endpoint(), &keys_.reader, keys_.server.public_key);
  auto expect_error = [&](const std::string& frame, wire::ErrorCode code) {
    c.SendRaw(frame);
    auto m = c.Receive();
    ASSERT_TRUE(m && std::holds_alternative<wire::Error>(*m));
    EXPECT_EQ(std::get<wire::Error>(*m).code, code) << std::get<wire::Error>(*m).message;
  };
  const std::string batch = wire::Encode(wire::Batch{"mdt0", 0, 3, MakeEvents("/data/a", 3)});
  expect_error(batch.substr(0, batch.size() / 2), wire::ErrorCode::kMalformed);
  std::string other_version = batch;
  other_version[2] = static_cast<char>(wire::kWireVersion + 7);
  expect_error(other_version, wire::ErrorCode::kVersion);
  expect_error("this is not a fathom frame at all", wire::ErrorCode::kMalformed);
  expect_error("", wire::ErrorCode::kMalformed);
  expect_error(wire::Encode(wire::Welcome{3}), wire::ErrorCode::kMalformed);
  std::string lengths = wire::Encode(wire::Hello{"x"});
  lengths.back() = '\xff';
  lengths += std::string(8, '\xff');
  expect_error(lengths, wire::ErrorCode::kMalformed);
  c.SendFrames({wire::Encode(wire::Hello{"mdt0"}), wire::Encode(wire::Hello{"mdt1"})});
  auto several = c.Receive();
  ASSERT_TRUE(several && std::holds_alternative<wire::Error>(*several));
  EXPECT_EQ(std::get<wire::Error>(*several).code, wire::ErrorCode::kMalformed);
  {
    RawClient huge(agg.endpoint(), &keys_.reader, keys_.server.public_key);
    huge.SendRaw(std::string(2 << 20, 'x'));
    EXPECT_FALSE(huge.Receive(500ms).has_value());
  }
  EXPECT_EQ(Hello(c, "mdt0"), 0u);
  auto answer = SendBatch(c, "mdt0", 0, 3, MakeEvents("/data/a", 3));
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(answer));
  EXPECT_EQ(std::get<wire::BatchAck>(answer).last_id, 3u);
}

}  // namespace
}  // namespace fathom::testing
