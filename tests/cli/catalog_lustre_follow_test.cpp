// The catalog kept from a 4-MDT Lustre file system (fathom-lustre-sim, a real FUSE mount):
// `fathom scan` of the mount, one `fathom collect` per MDT into one `fathom aggregate --store`
// (CURVE keys made with `fathom keygen`), a workload that spreads directories over the MDTs
// with `lfs mkdir -i N` — nested mkdir -p, files written, renames of populated directories
// across levels and across MDTs, hard links between directories on different MDTs, deep
// rm -rf — fixed cases and random operations with fixed seeds; then `fathom catalog follow
// --until-idle` on the aggregated store. Once the stream is applied, `fathom catalog verify`
// finds no difference between the catalog and the mount and `fathom catalog check` finds every
// kept statistic right. Also, alone: a file made in a directory that another MDT's record
// renamed (the collector of the directory's MDT never reads that rename); a rename stored
// before the rename of its old parent that the collector placed it through; a file renamed
// on another MDT and then written, whose write names its old path.
#include <gtest/gtest.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <random>
#include <thread>

#include "client/distributed_env.h"
#include "fathom/store.h"
#include "sources/lustre/lustre_test_env.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"

namespace fathom::testing {
namespace {

constexpr int kMdts = 4;

std::string LfsBinary() { return std::string(FATHOM_BUILD_DIR) + "/lustre/lfs"; }

// `lfs mkdir -i MDT PATH`; true when it made the directory.
bool LfsMkdir(const std::string& path, int mdt) {
  RunResult r = Run({LfsBinary(), "mkdir", "-i", std::to_string(mdt), path});
  return r.exit_code == 0;
}

// Writes `size` bytes at the end of `path` (creating it); false when it cannot be opened.
bool Append(const std::string& path, size_t size, bool truncate = false) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | (truncate ? O_TRUNC : O_APPEND), 0644);
  if (fd < 0) return false;
  const std::string data(size, 'x');
  const bool ok = write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size());
  close(fd);
  return ok;
}

// rm -rf: children first, as rm does.
void RemoveTree(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    unlink(path.c_str());
    return;
  }
  std::vector<std::string> names;
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  for (const auto& name : names) RemoveTree(path + "/" + name);
  rmdir(path.c_str());
}

// The directories and files below `root` (relative paths, "" for the root), depth first.
void Walk(const std::string& root, const std::string& rel, std::vector<std::string>& dirs,
          std::vector<std::string>& files) {
  dirs.push_back(rel);
  DIR* d = opendir((root + rel).c_str());
  if (d == nullptr) return;
  std::vector<std::pair<std::string, bool>> entries;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    entries.emplace_back(name, e->d_type == DT_DIR);
  }
  closedir(d);
  std::sort(entries.begin(), entries.end());  // the same order whatever readdir gives
  for (const auto& [name, is_dir] : entries) {
    if (is_dir) {
      Walk(root, rel + "/" + name, dirs, files);
    } else {
      files.push_back(rel + "/" + name);
    }
  }
}

int Depth(const std::string& rel) { return static_cast<int>(std::count(rel.begin(), rel.end(), '/')); }

// Random operations below `m` (the mount): every operation may fail (a rename into its own
// subtree, a name taken) and failures are ignored; names come from small pools so that they
// collide (renames over files, links beside their targets).
void RandomWorkload(const std::string& m, uint64_t seed, int operations) {
  std::mt19937_64 rng(seed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto dir_name = [&] { return "d" + std::to_string(pick(6)); };
  auto file_name = [&] { return "f" + std::to_string(pick(8)); };
  for (int op = 0; op < operations; ++op) {
    std::vector<std::string> dirs, files;
    Walk(m, "", dirs, files);
    // Directories not too deep to grow below.
    std::vector<std::string> shallow;
    for (const auto& d : dirs) {
      if (Depth(d) < 6) shallow.push_back(d);
    }
    const std::string dir = shallow[pick(shallow.size())];
    const int what = static_cast<int>(pick(100));
    if (what < 10) {
      LfsMkdir(m + dir + "/" + dir_name(), static_cast<int>(pick(kMdts)));
    } else if (what < 24) {
      std::string path = m + dir;
      for (size_t level = 0, n = 1 + pick(3); level < n; ++level) path += "/" + dir_name();
      std::error_code ignored;
      std::filesystem::create_directories(path, ignored);
    } else if (what < 46) {
      Append(m + dir + "/" + file_name(), 1 + pick(5000), pick(2) == 0);
    } else if (what < 60) {
      if (dirs.size() < 2) continue;
      const std::string from = dirs[1 + pick(dirs.size() - 1)];
      rename((m + from).c_str(), (m + dir + "/" + dir_name()).c_str());
    } else if (what < 68) {
      if (files.empty()) continue;
      rename((m + files[pick(files.size())]).c_str(), (m + dir + "/" + file_name()).c_str());
    } else if (what < 80) {
      if (files.empty()) continue;
      link((m + files[pick(files.size())]).c_str(), (m + dir + "/h" + std::to_string(pick(6))).c_str());
    } else if (what < 88) {
      if (files.empty()) continue;
      unlink((m + files[pick(files.size())]).c_str());
    } else if (what < 93) {
      // rm -rf of a subtree at least two levels down (keeps the top-level directories busy).
      std::vector<std::string> deep;
      for (const auto& d : dirs) {
        if (Depth(d) >= 2) deep.push_back(d);
      }
      if (!deep.empty()) RemoveTree(m + deep[pick(deep.size())]);
    } else if (what < 97) {
      if (files.empty()) continue;
      chmod((m + files[pick(files.size())]).c_str(), pick(2) == 0 ? 0600 : 0644);
    } else {
      if (dirs.size() < 2) continue;
      const std::string victim = dirs[1 + pick(dirs.size() - 1)];
      if (Depth(victim) >= 2) RemoveTree(m + victim);
    }
  }
}

class CatalogLustreFollowTest : public ::testing::Test {
 protected:
  RunResult Fathom(std::vector<std::string> args, std::chrono::milliseconds timeout = 120s) {
    args.insert(args.begin(), FathomBinary());
    return fathom::testing::Run(std::move(args), timeout);
  }

  // The changelog's last index on each MDT.
  std::vector<uint64_t> LastIndexes() {
    std::vector<uint64_t> out(kMdts, 0);
    auto state = lustre_sim::SimState::Open(fs_.state_dir());
    EXPECT_TRUE(state.ok()) << state.status().message();
    if (!state.ok()) return out;
    for (int mdt = 0; mdt < kMdts; ++mdt) {
      auto last = (*state)->LastIndex(mdt);
      EXPECT_TRUE(last.ok()) << last.status().message();
      if (last.ok()) out[mdt] = *last;
    }
    return out;
  }

  // The position the aggregator's store holds for each collector.
  std::vector<uint64_t> StoredPositions() {
    std::vector<uint64_t> out(kMdts, 0);
    StoreOptions options;
    options.path = env_.store_path();
    options.read_only = true;
    if (access(options.path.c_str(), F_OK) != 0) return out;
    auto store = EventStore::Open(options);
    if (!store.ok()) return out;
    for (int mdt = 0; mdt < kMdts; ++mdt) {
      auto position = (*store)->Position("mdt" + std::to_string(mdt));
      if (position.ok()) out[mdt] = *position;
    }
    return out;
  }

  // Waits until the aggregator stored every record of `mdts` (all by default) and nothing
  // more came for a while (a release's CLOSE can be logged after the workload returned).
  bool WaitUntilEverythingIsStored(std::vector<int> mdts = {0, 1, 2, 3}) {
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    int quiet = 0;
    std::vector<uint64_t> before;
    while (std::chrono::steady_clock::now() < deadline) {
      env_.DrainLog();
      const auto all_last = LastIndexes();
      const auto all_stored = StoredPositions();
      std::vector<uint64_t> last, stored;
      for (int mdt : mdts) {
        last.push_back(all_last[static_cast<size_t>(mdt)]);
        stored.push_back(all_stored[static_cast<size_t>(mdt)]);
      }
      quiet = stored == last && last == before ? quiet + 1 : 0;
      if (quiet >= 4) return true;
      before = last;
      std::this_thread::sleep_for(250ms);
    }
    ADD_FAILURE() << "the aggregator did not store every record in time";
    return false;
  }

  void StartCollector(int mdt) {
    const std::string device = "simfs-MDT000" + std::to_string(mdt);
    auto& c = collectors_[static_cast<size_t>(mdt)];
    c = std::make_unique<Subprocess>(env_.Collect(
        "mdt" + std::to_string(mdt), {"--source", "lustre:" + device, "--mount", fs_.mount(), "--changelog-user",
                                      users_[static_cast<size_t>(mdt)], "--lustre-library", LibraryPath()}));
    ASSERT_TRUE(c->WaitForStderr("watches established", 20s)) << c->stderr_text();
  }

  void StopCollector(int mdt) {
    auto& c = collectors_[static_cast<size_t>(mdt)];
    if (!c) return;
    c->Signal(SIGTERM);
    EXPECT_EQ(c->Wait(), 0) << c->stderr_text();
    c.reset();
  }

  // /on0 on MDT0 and /on1 on MDT1, scanned into the catalog; then the collectors start.
  void ScanDirectoriesOnTwoMdtsAndCollect() {
    const std::string m = fs_.mount();
    ASSERT_TRUE(LfsMkdir(m + "/on0", 0));
    ASSERT_TRUE(LfsMkdir(m + "/on1", 1));
    auto scanned = Fathom({"scan", "-q", "--catalog", catalog_, m});
    ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
    ASSERT_NO_FATAL_FAILURE(StartCollectors());
  }

  void StartCollectors() {
    ASSERT_TRUE(env_.Start());
    collectors_.resize(kMdts);
    for (int mdt = 0; mdt < kMdts; ++mdt) ASSERT_NO_FATAL_FAILURE(StartCollector(mdt));
  }

  void StopCollectors() {
    for (auto& c : collectors_) {
      if (c) c->Signal(SIGTERM);
    }
    for (auto& c : collectors_) {
      if (c) {
        EXPECT_EQ(c->Wait(), 0) << c->stderr_text();
      }
    }
    collectors_.clear();
  }

  // Follows the aggregated store to its end, then expects the catalog to match the mount.
  void FollowAndExpectNoDrift() {
    auto follow = Fathom({"catalog", "follow", "--catalog", catalog_, "--store", env_.store_path(), "--until-idle"});
    ASSERT_EQ(follow.exit_code, 0) << follow.err;
    // The closing line: "catalog: N events applied (last id ...)".
    const size_t end = follow.err.find(" events applied");
    ASSERT_NE(end, std::string::npos) << follow.err;
    size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(follow.err[begin - 1]))) --begin;
    ASSERT_LT(begin, end) << follow.err;
    EXPECT_GT(std::stoull(follow.err.substr(begin, end - begin)), 0u) << follow.err;
    auto verify = Fathom({"catalog", "verify", "--catalog", catalog_, fs_.mount()});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err << "\nfollow: " << follow.err;
    EXPECT_EQ(verify.out, "");
    auto check = Fathom({"catalog", "check", "--catalog", catalog_});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }

  // Top-level directories m0..m3 on MDT0..MDT3, each with a populated subtree.
  void SeedTree() {
    const std::string m = fs_.mount();
    for (int mdt = 0; mdt < kMdts; ++mdt) {
      const std::string top = m + "/m" + std::to_string(mdt);
      ASSERT_TRUE(LfsMkdir(top, mdt)) << top;
      MakeDirs(top + "/a/b");
      for (int f = 0; f < 4; ++f) {
        WriteFile(top + "/f" + std::to_string(f), "seed");
        WriteFile(top + "/a/b/g" + std::to_string(f), "seed");
      }
    }
  }

  // The fixed cases: nested mkdir -p, a directory placed on another MDT than its parent's,
  // renames of populated directories across levels and MDTs, hard links between MDTs, deep
  // rm -rf.
  void FixedCases() {
    const std::string m = fs_.mount();
    // Nested mkdir -p with files at every level, in MDT1's directory.
    MakeDirs(m + "/m1/n1/n2/n3/n4");
    for (const char* level : {"/m1/n1", "/m1/n1/n2", "/m1/n1/n2/n3", "/m1/n1/n2/n3/n4"}) {
      WriteFile(m + level + "/file", "level");
    }
    // A directory on MDT2 inside MDT1's tree, populated, with a nested tree of its own.
    ASSERT_TRUE(LfsMkdir(m + "/m1/n1/n2/on2", 2));
    MakeDirs(m + "/m1/n1/n2/on2/x/y");
    WriteFile(m + "/m1/n1/n2/on2/x/y/z", "on mdt2");
    // A populated directory renamed up a level and onto another MDT.
    Rename(m + "/m1/n1/n2", m + "/m3/n2");
    // One renamed down several levels onto another MDT.
    MakeDirs(m + "/m2/deep/x/y");
    Rename(m + "/m0/a", m + "/m2/deep/x/y/a");
    // A top-level directory (its MDT's root of work) renamed into another MDT's tree.
    ASSERT_TRUE(LfsMkdir(m + "/top3", 3));
    MakeDirs(m + "/top3/p/q");
    WriteFile(m + "/top3/p/q/r", "top");
    Rename(m + "/top3", m + "/m0/top3");
    // Hard links between directories on different MDTs; then the original names go, and a
    // directory holding a link is renamed across MDTs.
    ASSERT_EQ(link((m + "/m0/f0").c_str(), (m + "/m1/link-of-m0-f0").c_str()), 0);
    ASSERT_EQ(link((m + "/m0/f0").c_str(), (m + "/m3/n2/link-of-m0-f0").c_str()), 0);
    ASSERT_EQ(link((m + "/m2/f1").c_str(), (m + "/m3/link-of-m2-f1").c_str()), 0);
    ASSERT_EQ(unlink((m + "/m2/f1").c_str()), 0);
    Append(m + "/m1/link-of-m0-f0", 100);
    Rename(m + "/m3/n2", m + "/m2/deep/n2");
    ASSERT_EQ(unlink((m + "/m0/f0").c_str()), 0);
    // A file renamed across MDTs over another file.
    Rename(m + "/m3/f2", m + "/m1/f2");
    // Deep rm -rf: a tree spanning two MDTs, and a tree moved in from another MDT.
    RemoveTree(m + "/m2/deep/x");
    RemoveTree(m + "/m2/deep/n2/n3");
    RemoveTree(m + "/m0/top3");
    // The rest stays for the random workload to reshape.
    MakeDirs(m + "/m3/after/rm");
    WriteFile(m + "/m3/after/rm/f", "x");
  }

  void SetUp() override {
    ASSERT_TRUE(fs_.mounted());
    for (int mdt = 0; mdt < kMdts; ++mdt) users_.push_back(RegisterUser(fs_.state_dir(), mdt));
    catalog_ = fs_.dir() / "catalog.db";
  }

  void TearDown() override {
    for (auto& c : collectors_) {
      if (!c) continue;
      c->Signal(SIGKILL);
      c->Wait();
    }
    collectors_.clear();
    env_.Kill();
  }

  MountedFs fs_{kMdts};
  AggregatorEnv env_;
  std::vector<std::string> users_;
  std::vector<std::unique_ptr<Subprocess>> collectors_;
  std::string catalog_;
};

class CatalogLustreFollow : public CatalogLustreFollowTest, public ::testing::WithParamInterface<uint64_t> {};

// A directory made on MDT0 in an MDT0 directory, renamed into an MDT1 directory (the RENME
// is logged on MDT1), then given a file (the CREAT is logged on MDT0, the directory's MDT):
// MDT0's collector never saw the rename, yet the file must reach the catalog at its path.
TEST_F(CatalogLustreFollowTest, FileMadeInADirectoryRenamedOnAnotherMdtReachesTheCatalog) {
  const std::string m = fs_.mount();
  ASSERT_NO_FATAL_FAILURE(ScanDirectoriesOnTwoMdtsAndCollect());
  MakeDirs(m + "/on0/dir/sub");
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  Rename(m + "/on0/dir", m + "/on1/dir");
  // The rename is stored before the creation is read: the stream holds them in that order.
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  WriteFile(m + "/on1/dir/f", "x");
  WriteFile(m + "/on1/dir/sub/g", "x");
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  StopCollectors();
  FollowAndExpectNoDrift();
}

// A directory (p, on MDT1) renamed from /on0 to /on3 (logged on MDT3) while MDT3's collector
// is down, and a populated directory then renamed out of it into /on2 (logged on MDT2, whose
// collector places the old name at p's present path, /on3/p): the stream holds the second
// rename before the first. The first must still carry what the catalog knows below
// /on0/p/d1 (d1 and d4, created there and gone from there when read) to /on2/d1: it is
// applied in the directory its parent FID names in the catalog, not at the path given.
TEST_F(CatalogLustreFollowTest, RenameStoredBeforeItsParentsRenameIsAppliedWhereTheParentIs) {
  const std::string m = fs_.mount();
  for (int mdt : {0, 2, 3}) ASSERT_TRUE(LfsMkdir(m + "/on" + std::to_string(mdt), mdt));
  ASSERT_TRUE(LfsMkdir(m + "/on0/p", 1));
  auto scanned = Fathom({"scan", "-q", "--catalog", catalog_, m});
  ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  ASSERT_NO_FATAL_FAILURE(StartCollectors());
  MakeDirs(m + "/on0/p/d1/d4");
  WriteFile(m + "/on0/p/d1/d4/f", "x");
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  StopCollector(3);
  Rename(m + "/on0/p", m + "/on3/p");
  Rename(m + "/on3/p/d1", m + "/on2/d1");
  ASSERT_TRUE(WaitUntilEverythingIsStored({0, 1, 2}));
  ASSERT_NO_FATAL_FAILURE(StartCollector(3));
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  StopCollectors();
  FollowAndExpectNoDrift();
}

// A file made in /on0 (MDT0, whose collector learns its name from the creation), renamed to
// /on1 (logged on MDT1) and applied, then written (logged on MDT0, whose collector still
// names it /on0/f): the follower reads it through MOUNT/.lustre/fid/[FID] and updates it at
// /on1/f, where the catalog holds it.
TEST_F(CatalogLustreFollowTest, FileRenamedOnAnotherMdtThenWrittenIsUpdatedThroughItsFid) {
  const std::string m = fs_.mount();
  ASSERT_NO_FATAL_FAILURE(ScanDirectoriesOnTwoMdtsAndCollect());
  WriteFile(m + "/on0/f", "x");
  Rename(m + "/on0/f", m + "/on1/f");
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  auto first = Fathom({"catalog", "follow", "--catalog", catalog_, "--store", env_.store_path(), "--until-idle"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_TRUE(Append(m + "/on1/f", 4096));
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  StopCollectors();
  // The write's records name the old path (the renaming MDT's record was never MDT0's).
  auto events = Fathom({"events", "--store", env_.store_path()});
  ASSERT_EQ(events.exit_code, 0) << events.err;
  EXPECT_NE(events.out.find("MODIFY /on0/f"), std::string::npos) << events.out;
  FollowAndExpectNoDrift();
}

// Objects made after the scan get Lustre's view from the follower too (it loads the Lustre
// library as the scan does): the FID and MDT lfs prints, and a file's layout (here one
// striped over a pool by its directory's default), so find -fid/-mdt/-pool/-ost see them.
TEST_F(CatalogLustreFollowTest, ObjectsMadeAfterTheScanGetTheirFidMdtAndLayout) {
  const std::string m = fs_.mount();
  const std::string lctl = std::string(FATHOM_BUILD_DIR) + "/lustre/lctl";
  ASSERT_EQ(fathom::testing::Run({lctl, "pool_new", "simfs.fast"}).exit_code, 0);
  ASSERT_EQ(fathom::testing::Run({lctl, "pool_add", "simfs.fast", "simfs-OST[0002-0003]"}).exit_code, 0);
  ASSERT_TRUE(LfsMkdir(m + "/on1", 1));
  auto scanned = Fathom({"scan", "-q", "--catalog", catalog_, "--lustre-library", LibraryPath(), m});
  ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  ASSERT_NO_FATAL_FAILURE(StartCollectors());
  ASSERT_TRUE(LfsMkdir(m + "/on1/d", 3));
  ASSERT_EQ(fathom::testing::Run({LfsBinary(), "setstripe", "-p", "fast", "-c", "2", m + "/on1/d"}).exit_code, 0);
  WriteFile(m + "/on1/d/f", "data");
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  StopCollectors();
  auto follow = Fathom({"catalog", "follow", "--catalog", catalog_, "--store", env_.store_path(), "--until-idle",
                        "--lustre-library", LibraryPath()});
  ASSERT_EQ(follow.exit_code, 0) << follow.err;
  auto lfs = [&](std::vector<std::string> args) {
    args.insert(args.begin(), LfsBinary());
    RunResult r = fathom::testing::Run(std::move(args));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.out;
  };
  for (const std::string rel : {"/on1/d", "/on1/d/f"}) {
    SCOPED_TRACE(rel);
    auto found = Fathom({"find", "--catalog", catalog_, m + rel, "-maxdepth", "0", "-fid", lfs({"path2fid", m + rel}),
                         "-mdt", rel == "/on1/d" ? "3" : lfs({"getstripe", "-m", m + rel})});
    EXPECT_EQ(found.out, m + rel + "\n") << found.err;
  }
  auto pooled = Fathom({"find", "--catalog", catalog_, m, "-pool", "fast"});
  EXPECT_EQ(pooled.out, m + "/on1/d/f\n") << pooled.err;
  for (const std::string ost : {"2", "3"}) {
    auto on = Fathom({"find", "--catalog", catalog_, m, "-ost", ost});
    EXPECT_EQ(on.out, m + "/on1/d/f\n") << on.err;
  }
  auto verify = Fathom({"catalog", "verify", "--catalog", catalog_, m});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

TEST_F(CatalogLustreFollowTest, FixedCasesAcrossFourMdtsConvergeExactly) {
  ASSERT_NO_FATAL_FAILURE(SeedTree());
  auto scanned = Fathom({"scan", "-q", "--catalog", catalog_, fs_.mount()});
  ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  ASSERT_NO_FATAL_FAILURE(StartCollectors());
  ASSERT_NO_FATAL_FAILURE(FixedCases());
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  const auto last = LastIndexes();
  for (int mdt = 0; mdt < kMdts; ++mdt) EXPECT_GT(last[mdt], 0u) << "MDT" << mdt << " logged nothing";
  StopCollectors();
  FollowAndExpectNoDrift();
}

// The fixed cases, then random operations from fixed seeds. Collectors store their MDTs'
// records in whatever order their batches reach the aggregator, so renames across MDTs land
// in the stream before or after records placed through the paths they made (seed 4505
// reached RenameStoredBeforeItsParentsRenameIsAppliedWhereTheParentIs's case, and a
// populated directory the catalog never held renamed by an MDT that logs no ISDIR for it:
// EventApplierTest.ARenamedDirectoryTheCatalogLackedIsSettledWithItsContents).
TEST_P(CatalogLustreFollow, RandomWorkloadAcrossFourMdtsConvergesExactly) {
  ASSERT_NO_FATAL_FAILURE(SeedTree());
  auto scanned = Fathom({"scan", "-q", "--catalog", catalog_, fs_.mount()});
  ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
  ASSERT_NO_FATAL_FAILURE(StartCollectors());
  ASSERT_NO_FATAL_FAILURE(FixedCases());
  RandomWorkload(fs_.mount(), GetParam(), 300);
  ASSERT_TRUE(WaitUntilEverythingIsStored());
  StopCollectors();
  FollowAndExpectNoDrift();
}

INSTANTIATE_TEST_SUITE_P(Seeds, CatalogLustreFollow, ::testing::Values(4101u, 4202u, 4303u, 4404u, 4505u, 4606u),
                         [](const ::testing::TestParamInfo<uint64_t>& info) {
                           return "seed" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace fathom::testing
