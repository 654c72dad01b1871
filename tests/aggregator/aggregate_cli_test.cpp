// `fathom keygen` and `fathom aggregate` from the command line.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "aggregator/aggregator_harness.h"
#include "support/subprocess.h"

namespace fathom::testing {
namespace {

TEST(AggregateCliTest, KeygenWritesKeyFilesAndPrintsThePublicKey) {
  TempDir dir;
  auto run = testing::Run({FathomBinary(), "keygen", "-o", dir / "server"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto keys = security::LoadKeyFile(dir / "server.key");
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  EXPECT_EQ(run.out, keys->public_key + "\n");
  auto again = testing::Run({FathomBinary(), "keygen", "-o", dir / "server"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
}

TEST(AggregateCliTest, MissingKeySaysHowToMakeOne) {
  TempDir dir;
  auto run = testing::Run({FathomBinary(), "aggregate", "--listen", "tcp://127.0.0.1:*", "--store",
                           "sqlite:" + (dir / "e.db")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("fathom keygen"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("--insecure"), std::string::npos) << run.err;
  auto bad_store = testing::Run({FathomBinary(), "aggregate", "--listen", "tcp://127.0.0.1:*",
                                 "--store", "postgres://db/events", "--insecure"},
                                std::chrono::seconds(20));
  EXPECT_EQ(bad_store.exit_code, 2);
  EXPECT_NE(bad_store.err.find("sqlite:FILE or FILE"), std::string::npos) << bad_store.err;
}

TEST(AggregateCliTest, AggregateServesAKeyedCollectorAndStopsOnSigterm) {
  TempDir dir;
  ASSERT_EQ(testing::Run({FathomBinary(), "keygen", "-o", dir / "server"}).exit_code, 0);
  ASSERT_EQ(testing::Run({FathomBinary(), "keygen", "-o", dir / "mdt0"}).exit_code, 0);
  std::ofstream(dir / "clients.yaml") << "clients:\n  - name: mdt0\n    key: mdt0.pub\n"
                                         "    roles: [collect]\n";
  const std::string endpoint = FreeLoopbackEndpoint(dir.path());
  Subprocess agg({FathomBinary(), "aggregate", "--listen", endpoint, "--store",
                  "sqlite:" + (dir / "events.db"), "--key", dir / "server.key", "--clients",
                  dir / "clients.yaml", "--stats-interval", "1"});
  ASSERT_TRUE(agg.WaitForStderr("aggregating on", 10s)) << agg.stderr_text();
  auto server = security::LoadKeyFile(dir / "server.pub").value();
  auto mdt0 = security::LoadKeyFile(dir / "mdt0.key").value();
  RawClient c(endpoint, &mdt0, server.public_key);
  auto answer = SendBatch(c, "mdt0", 0, 2, MakeEvents("/data/a", 2));
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(answer));
  EXPECT_EQ(std::get<wire::BatchAck>(answer).last_id, 2u);
  EXPECT_TRUE(agg.WaitForStderr("\"events_committed\":2", 5s)) << agg.stderr_text();
  agg.Signal(SIGTERM);
  EXPECT_EQ(agg.Wait(), 0) << agg.stderr_text();
}

// A client with --insecure against a CURVE aggregator, and one with keys against an insecure
// aggregator, are told at once which side to change (not that the aggregator is unreachable).
TEST(AggregateCliTest, ClientAndAggregatorDisagreeingOnCurveAreToldWhatToChange) {
  TempDir dir;
  TestKeys keys;
  ASSERT_TRUE(security::WriteKeyFiles(keys.reader, dir / "reader").ok());
  ASSERT_TRUE(security::WriteKeyFiles(keys.server, dir / "server").ok());
  {
    TestAggregator secure(SecureOptions(keys, dir / "secure.db"));
    auto run = testing::Run(
        {FathomBinary(), "subscribe", "--from", secure.endpoint(), "--insecure", "-t", "20"}, 40s);
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.err.find("the aggregator at " + secure.endpoint() +
                           " requires CURVE: give --key CLIENT.key and --server-key SERVER.pub"),
              std::string::npos)
        << run.err;
  }
  aggregator::AggregatorOptions o;
  o.listen = "tcp://127.0.0.1:*";
  o.insecure = true;
  o.store.path = dir / "insecure.db";
  TestAggregator insecure(o);
  for (const char* command : {"subscribe", "collect"}) {
    std::vector<std::string> argv{FathomBinary(), command};
    if (std::string(command) == "collect")
      argv.insert(argv.end(), {"-r", dir.path(), "--name", "tree", "--to"});
    else
      argv.push_back("--from");
    argv.insert(argv.end(), {insecure.endpoint(), "--key", dir / "reader.key", "--server-key",
                             dir / "server.pub", "-t", "20"});
    auto run = testing::Run(argv, 40s);
    EXPECT_EQ(run.exit_code, 1) << command << ": " << run.err;
    EXPECT_NE(run.err.find("the aggregator at " + insecure.endpoint() +
                           " runs without CURVE (--insecure): drop --key and --server-key"),
              std::string::npos)
        << command << ": " << run.err;
  }
}

}  // namespace
}  // namespace fathom::testing
