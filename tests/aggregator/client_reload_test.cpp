// SIGHUP makes a running `fathom aggregate` read its client list again (real processes).
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>

#include "aggregator/aggregator_harness.h"
#include "support/subprocess.h"

namespace fathom::testing {
namespace {

void WriteClients(const std::string& path, const std::vector<std::string>& entries) {
  std::ofstream out(path);
  out << "clients:\n";
  for (const auto& e : entries) out << e;
}

std::string ClientEntry(const std::string& name, const std::string& role) {
  return "  - name: " + name + "\n    key: " + name + ".pub\n    roles: [" + role + "]\n";
}

TEST(ClientReloadTest, SighupReloadsClientsKeepingAdmittedConnections) {
  TempDir dir;
  for (const char* name : {"server", "col", "sub", "added", "removed"}) {
    ASSERT_EQ(testing::Run({FathomBinary(), "keygen", "-o", dir / name}).exit_code, 0);
  }
  const std::string clients = dir / "clients.yaml";
  WriteClients(clients, {ClientEntry("col", "collect"), ClientEntry("sub", "subscribe"), ClientEntry("removed", "subscribe")});
  const std::string endpoint = FreeLoopbackEndpoint(dir.path());
  Subprocess agg({FathomBinary(), "aggregate", "--listen", endpoint, "--store", "sqlite:" + (dir / "events.db"),
                  "--key", dir / "server.key", "--clients", clients, "--sync", "normal"});
  ASSERT_TRUE(agg.WaitForStderr("aggregating on", 10s)) << agg.stderr_text();

  const auto server = security::LoadKeyFile(dir / "server.pub").value();
  const auto col = security::LoadKeyFile(dir / "col.key").value();
  const auto added = security::LoadKeyFile(dir / "added.key").value();
  const auto removed = security::LoadKeyFile(dir / "removed.key").value();
  Subprocess sub({FathomBinary(), "subscribe", "--from", endpoint, "--since", "0", "--key", dir / "sub.key",
                  "--server-key", dir / "server.pub"});
  RawClient collector(endpoint, &col, server.public_key);
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(SendBatch(collector, "col", 0, 1, {MakeEvent("/data/one")})));
  EXPECT_EQ(sub.ReadLine(10s), "/data CREATE /one");
  RawClient leaving(endpoint, &removed, server.public_key);
  leaving.Send(wire::Subscribe{});
  auto subscribed = leaving.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(subscribed && std::holds_alternative<wire::Subscribed>(*subscribed));

  WriteClients(clients, {ClientEntry("col", "collect"), ClientEntry("sub", "subscribe"), ClientEntry("added", "subscribe")});
  agg.Signal(SIGHUP);
  ASSERT_TRUE(agg.WaitForStderr("client list replaced: 3 clients admitted; 1 subscriptions ended", 10s))
      << agg.stderr_text();
  // The removed key's subscription ends; a new connection with it is refused at the handshake.
  auto ended = leaving.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(ended && std::holds_alternative<wire::Error>(*ended));
  EXPECT_EQ(std::get<wire::Error>(*ended).code, wire::ErrorCode::kNotPermitted);
  auto refused = testing::Run({FathomBinary(), "subscribe", "--from", endpoint, "-t", "10", "--key",
                               dir / "removed.key", "--server-key", dir / "server.pub"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("refused this client's key"), std::string::npos) << refused.err;
  // The subscriber that stays listed keeps its connection and receives on.
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(SendBatch(collector, "col", 1, 2, {MakeEvent("/data/two")})));
  EXPECT_EQ(sub.ReadLine(10s), "/data CREATE /two");
  // The newly listed key is admitted.
  RawClient newcomer(endpoint, &added, server.public_key);
  newcomer.Send(wire::Subscribe{});
  auto welcome = newcomer.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(welcome && std::holds_alternative<wire::Subscribed>(*welcome));

  // A list that does not load is reported, and the one in use stays.
  std::ofstream(clients) << "clients:\n  - name: [broken\n";
  agg.Signal(SIGHUP);
  ASSERT_TRUE(agg.WaitForStderr("SIGHUP: kept the client list in use", 10s)) << agg.stderr_text();
  RawClient again(endpoint, &added, server.public_key);
  again.Send(wire::Subscribe{});
  auto still = again.ReceiveSkippingHeartbeats();
  ASSERT_TRUE(still && std::holds_alternative<wire::Subscribed>(*still));
  ASSERT_TRUE(std::holds_alternative<wire::BatchAck>(SendBatch(collector, "col", 2, 3, {MakeEvent("/data/three")})));
  EXPECT_EQ(sub.ReadLine(10s), "/data CREATE /three");

  agg.Signal(SIGTERM);
  EXPECT_EQ(agg.Wait(), 0) << agg.stderr_text();
}

}  // namespace
}  // namespace fathom::testing
