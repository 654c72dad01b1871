// `fathom collect --bus` and `fathom subscribe --bus` against a real nats-server: a watched
// tree's events reach a subscriber through JetStream, and the stream gets the retention the
// collector was given.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bus/bus_test_util.h"
#include "support/fs_ops.h"
#include "support/nats_server.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

using namespace std::chrono_literals;

TEST(NatsCli, CollectedTreeReachesASubscriberAndTheStreamKeepsTheGivenRetention) {
  NatsServers nats(NatsServerOptions{.nodes = 1, .max_payload = 8 << 20});
  TempDir dir;
  const std::string tree = dir / "tree";
  std::filesystem::create_directory(tree);
  Subprocess collect({FathomBinary(), "collect", "-r", tree, "--bus", nats.url(0), "--name", "tree",
                      "--stream", "SITE", "--max-age", "2d", "--max-bytes", "1073741824"});
  ASSERT_TRUE(collect.WaitForStderr("watches established", 20s)) << collect.stderr_text();
  for (int i = 0; i < 5; ++i) std::ofstream(tree + "/f" + std::to_string(i)) << i;

  Subprocess subscribe({FathomBinary(), "subscribe", "--bus", nats.url(0), "--stream", "SITE", "--since", "0",
                        "--path", tree, "-r", "--event", "CREATE", "--format", "inotify", "-n", "5"});
  const auto lines = subscribe.ReadLines(5, 20s);
  std::vector<std::string> expected;
  for (int i = 0; i < 5; ++i) expected.push_back(tree + " CREATE /f" + std::to_string(i));
  EXPECT_EQ(lines, expected) << subscribe.stderr_text() << collect.stderr_text();
  EXPECT_EQ(subscribe.Wait(), 0) << subscribe.stderr_text();

  bus::testing::StreamInspector inspect(nats.url(0));
  jsStreamInfo* si = inspect.Info("SITE");
  ASSERT_NE(si, nullptr);
  EXPECT_EQ(si->Config->MaxAge, int64_t{2} * 86400 * 1'000'000'000);
  EXPECT_EQ(si->Config->MaxBytes, int64_t{1} << 30);
  jsStreamInfo_Destroy(si);
  collect.Signal(SIGTERM);
  EXPECT_EQ(collect.Wait(), 0) << collect.stderr_text();
}

}  // namespace
}  // namespace fathom::testing
