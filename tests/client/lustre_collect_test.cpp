// `fathom collect --source lustre:...` on a FUSE mount of fathom-lustre-sim: the changelog is
// cleared only up to what the aggregator acknowledged, never while it is unreachable. A second changelog user that never
// clears keeps every record, to check that each is stored exactly once.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "client/distributed_env.h"
#include "sources/lustre/lustre_test_env.h"
#include "support/fs_ops.h"

namespace fathom::testing {
namespace {

uint64_t StoredPosition(const std::string& db, const std::string& collector) {
  StoreOptions options;
  options.path = db;
  options.read_only = true;
  auto store = EventStore::Open(options);
  if (!store.ok()) return 0;  // not created yet
  auto position = (*store)->Position(collector);
  return position.ok() ? *position : 0;
}

uint64_t LastIndex(const std::string& state_dir) {
  auto state = lustre_sim::SimState::Open(state_dir);
  EXPECT_TRUE(state.ok()) << state.status().message();
  if (!state.ok()) return 0;
  auto last = (*state)->LastIndex(0);
  EXPECT_TRUE(last.ok()) << last.status().message();
  return last.ok() ? *last : 0;
}

// Waits until `done` holds or 30 s passed.
bool Eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(100ms);
  }
  return true;
}

TEST(LustreCollect, ChangelogIsClearedOnlyAfterTheAggregatorAcknowledged) {
  MountedFs fs;
  ASSERT_TRUE(fs.mounted());
  const std::string user = RegisterUser(fs.state_dir());
  const std::string other = RegisterUser(fs.state_dir());  // never clears
  AggregatorEnv env;
  ASSERT_TRUE(env.Start());
  Subprocess collect(env.Collect("mdt0", {"--source", "lustre:simfs-MDT0000", "--mount", fs.mount(),
                                          "--changelog-user", user, "--lustre-library", LibraryPath()}));
  ASSERT_TRUE(collect.WaitForStderr("watches established", 20s)) << collect.stderr_text();

  MakeDirs(fs.mount() + "/a");
  for (int i = 0; i < 10; ++i) WriteFile(fs.mount() + "/a/f" + std::to_string(i), "x");
  // Close records are logged when the file system sees the close, a little after close(2):
  // the last index is read again until the store has caught up with it.
  uint64_t last = 0;
  auto caught_up = [&] {
    last = LastIndex(fs.state_dir());
    return StoredPosition(env.store_path(), "mdt0") == last;
  };
  ASSERT_TRUE(Eventually(caught_up)) << collect.stderr_text();
  EXPECT_LE(ClearedBy(fs.state_dir(), user), last);

  // The aggregator is gone: what is read cannot be committed, so nothing more is cleared.
  env.Kill();
  const uint64_t stored_before = last;
  for (int i = 0; i < 10; ++i) WriteFile(fs.mount() + "/a/g" + std::to_string(i), "x");
  last = LastIndex(fs.state_dir());
  ASSERT_GT(last, stored_before);
  std::this_thread::sleep_for(1500ms);
  EXPECT_LE(ClearedBy(fs.state_dir(), user), stored_before) << "cleared records no aggregator acknowledged";
  EXPECT_EQ(StoredPosition(env.store_path(), "mdt0"), stored_before);

  ASSERT_TRUE(env.Start());
  ASSERT_TRUE(Eventually(caught_up)) << collect.stderr_text();
  EXPECT_LE(ClearedBy(fs.state_dir(), user), last);
  // Clearing is batched; a stopping collector clears what was acknowledged.
  collect.Signal(SIGTERM);
  EXPECT_EQ(collect.Wait(), 0) << collect.stderr_text();
  EXPECT_EQ(ClearedBy(fs.state_dir(), user), last);
  EXPECT_EQ(ClearedBy(fs.state_dir(), other), 0u);
  env.Kill();

  // Every record of the changelog is stored exactly once (one event per record here).
  StoreOptions options;
  options.path = env.store_path();
  options.read_only = true;
  auto store = EventStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::map<uint64_t, int> per_record;
  ASSERT_TRUE((*store)->Replay({}, [&](const Event& e) {
    ++per_record[nlohmann::json::parse(e.attrs)["recno"].get<uint64_t>()];
    return true;
  }).ok());
  EXPECT_EQ(per_record.size(), last);
  for (const auto& [recno, n] : per_record) EXPECT_EQ(n, 1) << "record " << recno << " stored " << n << " times";
}

}  // namespace
}  // namespace fathom::testing
