// Triggers and the daemon: a global usage trigger on a real file system of a known size
// fires at its high mark and its run stops as soon as the low mark is reached; per-user
// triggers act only on the entries of the users over their mark; OST and pool usages come
// from the catalog's Lustre layouts; a periodic trigger runs the whole policy.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>

#include <gtest/gtest.h>

#include "catalog/catalog_test_util.h"
#include "fathom/policy.h"
#include "policy/scan_into.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::policy {
namespace {

// A tmpfs of `size` mounted on a fresh directory.
class SizedMount {
 public:
  explicit SizedMount(const std::string& size) : path_(dir_ / "mnt") {
    testing::MakeDirs(path_);
    mounted_ = mount("tmpfs", path_.c_str(), "tmpfs", MS_NOATIME, ("size=" + size + ",mode=0755").c_str()) == 0;
  }
  ~SizedMount() {
    if (mounted_) umount2(path_.c_str(), MNT_DETACH);
  }
  const std::string& path() const { return path_; }
  bool mounted() const { return mounted_; }

 private:
  testing::TempDir dir_;
  std::string path_;
  bool mounted_ = false;
};

void WriteSized(const std::string& path, size_t bytes, int64_t atime_s) {
  testing::WriteFile(path, std::string(bytes, 'u'));
  struct timespec t[2] = {{atime_s, 0}, {atime_s, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), t, 0), 0);
}

double UsedPercent(const std::string& path) {
  struct statvfs v {};
  EXPECT_EQ(statvfs(path.c_str(), &v), 0);
  const double used = static_cast<double>(v.f_blocks - v.f_bfree);
  return 100.0 * used / (used + static_cast<double>(v.f_bavail));
}

class TriggerTest : public ::testing::Test {
 protected:
  void Scan(const std::string& root) { ScanInto(uri_, root); }

  void Configure(const std::string& yaml) {
    auto config = ParsePolicyConfig(yaml, "test.yaml");
    ASSERT_TRUE(config.ok()) << config.status().message();
    config_ = std::move(config).value();
  }

  std::unique_ptr<catalog::Catalog> Reader() {
    catalog::CatalogOptions options;
    options.uri = uri_;
    options.read_only = true;
    auto c = catalog::Catalog::Open(options);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  // Runs every trigger once; returns the daemon's log.
  std::vector<std::string> DaemonOnce(std::vector<std::string>* acted = nullptr) {
    std::vector<std::string> log;
    DaemonOptions o;
    o.catalog_uri = uri_;
    o.once = true;
    o.log = [&](const std::string& line) { log.push_back(line); };
    o.report = [acted](const JournalAction& a, std::string_view note) {
      if (acted != nullptr) acted->push_back(std::string(note) + " " + a.path);
    };
    Status s = RunDaemon(config_, o);
    EXPECT_TRUE(s.ok()) << s.message();
    return log;
  }

  testing::TempDir dir_;
  std::string uri_ = dir_ / "catalog.db";
  PolicyConfig config_;
};

// 4 MiB of tmpfs; 36 files of 100 KiB (25 pages each) fill 87.9 %. Down to 50 %: 16 files
// (15 would leave 51.3 %), the 16 read longest ago.
TEST_F(TriggerTest, GlobalUsageFiresAtTheHighMarkAndItsRunStopsAtTheLowMark) {
  SizedMount fs("4m");
  ASSERT_TRUE(fs.mounted()) << "tests run as root and mount a tmpfs";
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  for (int i = 0; i < 36; ++i) WriteSized(fs.path() + "/f" + std::to_string(i), 100 << 10, now - 1000 * (36 - i));
  ASSERT_NEAR(UsedPercent(fs.path()), 87.9, 0.1);
  Scan(fs.path());
  Configure(R"yaml(
policies:
  purge:
    default_action: delete
    sort: last_access
    rules: [{name: all, condition: "type == file"}]
    trigger: {on: global_usage, high: 85%, low: 50%, check_every: 1h}
  quiet:
    default_action: delete
    rules: [{name: all, condition: "type == file"}]
    trigger: {on: global_usage, high: 90%, low: 50%, check_every: 1h}
)yaml");
  auto reader = Reader();
  auto quiet = EvaluateTrigger(config_.Find("quiet")->triggers[0], *reader);
  ASSERT_TRUE(quiet.ok()) << quiet.status().message();
  EXPECT_TRUE(quiet->empty()) << "87.9 % is under a high mark of 90 %";

  std::vector<std::string> acted;
  const std::vector<std::string> log = DaemonOnce(&acted);
  ASSERT_EQ(acted.size(), 16u) << ::testing::PrintToString(log);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(acted[static_cast<size_t>(i)], "delete " + fs.path() + "/f" + std::to_string(i));
  EXPECT_NEAR(UsedPercent(fs.path()), 48.8, 0.1);
  EXPECT_EQ(log.front(), "policy purge: file system of " + fs.path() + ": 87.9%, at or over 85% (down to 50%): running on path:" + fs.path());
  EXPECT_EQ(log.back(), "policy quiet: no usage at or over its high mark");
}

TEST_F(TriggerTest, UserUsageActsOnlyOnTheEntriesOfTheUsersOverTheirMark) {
  const std::string root = dir_ / "tree";
  for (uint32_t uid : {20001u, 20002u, 20003u}) {
    const std::string dir = root + "/u" + std::to_string(uid);
    testing::MakeDirs(dir);
    const int files = uid == 20003 ? 2 : 10;
    for (int i = 0; i < files; ++i) {
      const std::string f = dir + "/f" + std::to_string(i);
      testing::WriteFile(f, "");
      ASSERT_EQ(truncate(f.c_str(), 1 << 20), 0);
      ASSERT_EQ(chown(f.c_str(), uid, 0), 0);
    }
  }
  Scan(root);
  Configure(R"yaml(
policies:
  quota:
    default_action: delete
    sort: size
    rules: [{name: all, condition: "type == file"}]
    trigger: {on: user_usage, high: 5MB, low: 2MB, check_every: 1h}
)yaml");
  auto reader = Reader();
  auto firings = EvaluateTrigger(config_.Find("quota")->triggers[0], *reader);
  ASSERT_TRUE(firings.ok()) << firings.status().message();
  ASSERT_EQ(firings->size(), 2u);
  EXPECT_EQ((*firings)[0].target, "user:20001");
  EXPECT_EQ((*firings)[0].goal_volume, 8 << 20);
  EXPECT_EQ((*firings)[0].why, "user 20001: 10.00 MB, at or over 5.00 MB (down to 2.00 MB)");
  EXPECT_EQ((*firings)[1].target, "user:20002");

  std::vector<std::string> acted;
  DaemonOnce(&acted);
  EXPECT_EQ(acted.size(), 16u);
  for (const std::string& a : acted) {
    EXPECT_TRUE(a.starts_with("delete " + root + "/u20001/") || a.starts_with("delete " + root + "/u20002/")) << a;
  }
  for (uint32_t uid : {20001u, 20002u, 20003u}) {
    size_t left = 0;
    for (const auto& e : std::filesystem::directory_iterator(root + "/u" + std::to_string(uid))) left += e.is_regular_file();
    EXPECT_EQ(left, 2u) << "user " << uid;
  }
}

TEST_F(TriggerTest, OstAndPoolUsagesComeFromTheCatalogsLustreLayouts) {
  {
    catalog::CatalogOptions options;
    options.uri = uri_;
    auto writer = catalog::Catalog::Open(options);
    ASSERT_TRUE(writer.ok()) << writer.status().message();
    auto batch = (*writer)->Begin();
    ASSERT_TRUE(batch.ok());
    auto root = (*batch)->PutRoot("/lustre", testing::DirAttrs(1), {1, 0});
    ASSERT_TRUE(root.ok());
    // Three files of 6 MiB over OSTs 0 and 1 (3 MiB each), one of 4 MiB on OST 2 in pool fast.
    for (int i = 0; i < 4; ++i) {
      catalog::Attrs a = testing::FileAttrs(10 + i, i < 3 ? 6 << 20 : 4 << 20);
      catalog::LustreInfo l;
      l.fid = "[0x200000400:0x" + std::to_string(i + 1) + ":0x0]";
      l.osts = i < 3 ? std::vector<uint32_t>{0, 1} : std::vector<uint32_t>{2};
      l.stripe_count = static_cast<uint32_t>(l.osts.size());
      l.pool = i < 3 ? "slow" : "fast";
      a.lustre = l;
      ASSERT_TRUE((*batch)->Put(*root, "f" + std::to_string(i), a, {1, 0}).ok());
    }
    ASSERT_TRUE((*batch)->Commit().ok());
  }
  Configure(R"yaml(
policies:
  osts:
    default_action: log
    rules: [{name: all}]
    trigger: {on: ost_usage, high: 50%, low: 20%, capacity: 16MB, check_every: 1h}
  pools:
    default_action: log
    rules: [{name: all}]
    trigger: {on: pool_usage, high: 10MB, low: 1MB, check_every: 1h, targets: [slow, fast]}
)yaml");
  auto reader = Reader();
  auto osts = EvaluateTrigger(config_.Find("osts")->triggers[0], *reader);
  ASSERT_TRUE(osts.ok()) << osts.status().message();
  ASSERT_EQ(osts->size(), 2u) << "OSTs 0 and 1 hold 9 MiB of 16 MiB; OST 2 4 MiB";
  EXPECT_EQ((*osts)[0].target, "ost:0");
  EXPECT_EQ((*osts)[0].why, "OST 0: 56.2%, at or over 50% (down to 20%)");
  EXPECT_EQ((*osts)[0].goal_volume, (9 << 20) - static_cast<int64_t>(0.2 * (16 << 20)));
  EXPECT_EQ((*osts)[1].target, "ost:1");
  auto pools = EvaluateTrigger(config_.Find("pools")->triggers[0], *reader);
  ASSERT_TRUE(pools.ok()) << pools.status().message();
  ASSERT_EQ(pools->size(), 1u);
  EXPECT_EQ((*pools)[0].target, "pool:slow");
  EXPECT_EQ((*pools)[0].goal_volume, (18 << 20) - (1 << 20));
}

TEST_F(TriggerTest, APeriodicTriggerRunsTheWholePolicyAndAConfigurationWithoutTriggersIsRefused) {
  const std::string root = dir_ / "tree";
  testing::MakeDirs(root);
  testing::WriteFile(root + "/a.log", "x");
  Scan(root);
  Configure(R"yaml(
policies:
  logs:
    default_action: log
    rules: [{name: logs, condition: "name == '*.log'"}]
    trigger: {on: periodic, check_every: 1h}
)yaml");
  std::vector<std::string> acted;
  DaemonOnce(&acted);
  EXPECT_EQ(acted, std::vector<std::string>{"log " + root + "/a.log"});

  Configure("policies:\n  p:\n    default_action: log\n    rules: [{name: r}]\n");
  DaemonOptions o;
  o.catalog_uri = uri_;
  o.once = true;
  Status s = RunDaemon(config_, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "test.yaml: no policy has a trigger and there is no alert: give one (trigger: {on: ...}, alerts: ...)");
  auto refused = ParsePolicyConfig(
      "policies:\n  p:\n    default_action: log\n    rules: [{name: r}]\n"
      "    trigger: {on: ost_usage, high: 80%, low: 50%, check_every: 1h}\n",
      "t.yaml");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("a percentage of an OST or a pool needs its capacity (capacity: 100TB)"),
            std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace fathom::policy
