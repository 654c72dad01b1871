// The real liblustreapi.so from build/lustre, loaded with dlopen, against real state files:
// reading, filtering and clearing stored changelogs, fid2path/path2fid, follow mode, and
// the generated logs of fast mode.
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <thread>

#include "lustre/changelog_binary.h"
#include "lustre/lustre_abi.h"
#include "lustre_sim/api/fast_mode.h"
#include "lustre_sim/state/registry.h"
#include "lustre_sim/state/sim_state.h"
#include "lustre_sim/lustreapi_loader.h"
#include "support/temp_dir.h"

namespace fathom::lustre_sim {
namespace {

using lustre::ChangelogRecord;
using lustre::FormatFid;
using lustre::kRootFid;
using Clock = std::chrono::steady_clock;

constexpr int kReadFlags = CHANGELOG_FLAG_JOBID | CHANGELOG_FLAG_EXTRA_FLAGS;
constexpr auto kAllExtra = static_cast<changelog_send_extra_flag>(
    CHANGELOG_EXTRA_FLAG_UIDGID | CHANGELOG_EXTRA_FLAG_NID | CHANGELOG_EXTRA_FLAG_OMODE | CHANGELOG_EXTRA_FLAG_XATTR);

class LustreApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("FATHOM_LUSTRE_SIM_RUNDIR", (tmp_ / "run").c_str(), 1);
    ASSERT_NO_FATAL_FAILURE(api_.Load());
  }

  // A "mounted" file system: its state and registry entry (the mount point is a plain dir).
  std::unique_ptr<SimState> Mount(const std::string& fsname, int mdts) {
    SimConfig config;
    config.fsname = fsname;
    config.mdts = mdts;
    auto state = SimState::CreateOrOpen(tmp_ / (fsname + ".state"), config);
    EXPECT_TRUE(state.ok()) << state.status().message();
    mount_ = tmp_ / (fsname + ".mnt");
    std::filesystem::create_directories(mount_);
    RegistryEntry entry{fsname, "fuse", mount_, tmp_ / (fsname + ".state")};
    EXPECT_TRUE(WriteRegistryEntry(entry).ok());
    return std::move(state).value();
  }

  void* Start(const std::string& device, int flags, long long startrec) {
    void* priv = nullptr;
    int rc = api_.start(&priv, static_cast<changelog_send_flag>(flags), device.c_str(), startrec);
    EXPECT_EQ(rc, 0) << device;
    if (rc == 0) {
      EXPECT_EQ(api_.set_xflags(priv, kAllExtra), 0);
    }
    return priv;
  }

  // Every record until recv returns 1 (or `max`), unpacked.
  std::vector<ChangelogRecord> Drain(void* priv, size_t max = SIZE_MAX) {
    std::vector<ChangelogRecord> out;
    while (out.size() < max) {
      changelog_rec* rec = nullptr;
      int rc = api_.recv(priv, &rec);
      if (rc == 1) break;
      EXPECT_EQ(rc, 0);
      if (rc != 0) break;
      auto unpacked = lustre::UnpackRecord(rec);
      EXPECT_TRUE(unpacked.ok()) << unpacked.status().message();
      if (unpacked.ok()) out.push_back(*unpacked);
      api_.free_rec(&rec);
    }
    return out;
  }

  std::string Fid2Path(const std::string& device, const Fid& fid, int* linkno = nullptr, int* rc = nullptr) {
    char buf[4096];
    long long recno = -1;
    int link = 0;
    int result = api_.fid2path(device.c_str(), FormatFid(fid).c_str(), buf, sizeof(buf), &recno,
                               linkno != nullptr ? linkno : &link);
    if (rc != nullptr) *rc = result;
    return result == 0 ? std::string(buf) : "<error " + std::to_string(result) + ">";
  }

  testing::TempDir tmp_;
  std::string mount_;
  testing::LustreApi api_;
};

Caller Bob() { return Caller{2000, 200, "cp.2000"}; }

TEST_F(LustreApiTest, ExportsOnlyLlapiSymbols) {
  EXPECT_EQ(dlsym(api_.lib, "_ZN6fathom6lustre9FormatFidERKNS0_3FidE"), nullptr);
  EXPECT_EQ(dlsym(api_.lib, "_ZN6fathom11lustre_sim8SimState4OpenERKNSt7__cxx1112basic_stringIcSt11char_"
                            "traitsIcESaIcEEE"), nullptr);
}

TEST_F(LustreApiTest, RecvHandsOutTheStoredRecordsThenEnds) {
  auto state = Mount("testfs", 2);
  ASSERT_TRUE(state->RegisterUser(0).ok());
  auto d = state->Create(Bob(), kRootFid, "d", ObjectType::kDirectory, 0);
  auto f = state->Create(Bob(), d->fid, "f", ObjectType::kFile);
  ASSERT_TRUE(state->Record(Bob(), CL_SETXATTR, f->fid, RecordDetails{0, 0, "user.x"}).ok());
  ASSERT_TRUE(state->Rename(Bob(), d->fid, "f", kRootFid, "g").ok());
  std::vector<ChangelogRecord> stored;
  ASSERT_TRUE(state->Read(0, 0, 100, stored).ok());
  ASSERT_EQ(stored.size(), 4u);

  void* priv = Start("testfs-MDT0000", kReadFlags, 0);
  EXPECT_GE(api_.get_fd(priv), 0);
  auto got = Drain(priv);
  ASSERT_EQ(got.size(), 4u);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], stored[i]) << i;
  EXPECT_EQ(got[3].sname, "f");
  EXPECT_EQ(got[2].xattr, "user.x");
  EXPECT_EQ(api_.fini(&priv), 0);
  EXPECT_EQ(priv, nullptr);

  // Without JOBID / EXTRA_FLAGS the extensions are left out; startrec skips older records.
  priv = nullptr;
  ASSERT_EQ(api_.start(&priv, static_cast<changelog_send_flag>(0), "testfs-MDT0000", 3), 0);
  auto bare = Drain(priv);
  ASSERT_EQ(bare.size(), 2u);
  EXPECT_EQ(bare[0].index, 3u);
  EXPECT_FALSE(bare[0].has_jobid);
  EXPECT_FALSE(bare[0].has_extra_flags);
  EXPECT_TRUE(bare[1].has_rename);
  api_.fini(&priv);
  EXPECT_EQ(api_.start(&priv, static_cast<changelog_send_flag>(0), "testfs-MDT0007", 0), -ENOENT);
  EXPECT_EQ(api_.start(&priv, static_cast<changelog_send_flag>(0), "nofs-MDT0000", 0), -ENOENT);
}

TEST_F(LustreApiTest, StartUserFiltersByMaskAndClearFreesRecords) {
  auto state = Mount("testfs", 1);
  auto cl1 = state->RegisterUser(0, (1ull << CL_CREATE));
  auto cl2 = state->RegisterUser(0);
  ASSERT_TRUE(cl1.ok() && cl2.ok());
  auto f = state->Create(Bob(), kRootFid, "f", ObjectType::kFile);
  ASSERT_TRUE(state->Record(Bob(), CL_CLOSE, f->fid).ok());
  ASSERT_TRUE(state->Create(Bob(), kRootFid, "g", ObjectType::kFile).ok());

  void* priv = nullptr;
  ASSERT_EQ(api_.start_user(&priv, static_cast<changelog_send_flag>(kReadFlags), "testfs-MDT0000", "cl1", 0, 0), 0);
  auto creates = Drain(priv);
  api_.fini(&priv);
  ASSERT_EQ(creates.size(), 2u);
  EXPECT_EQ(creates[1].name, "g");
  ASSERT_EQ(api_.start_user(&priv, static_cast<changelog_send_flag>(kReadFlags), "testfs-MDT0000", "cl1",
                            1ull << CL_CLOSE, 0), 0);
  EXPECT_EQ(Drain(priv).size(), 1u);
  api_.fini(&priv);
  EXPECT_EQ(api_.start_user(&priv, static_cast<changelog_send_flag>(0), "testfs-MDT0000", "cl7", 0, 0), -ENOENT);

  EXPECT_EQ(api_.clear("testfs-MDT0000", "cl1", 4), -EINVAL);   // past the last record
  EXPECT_EQ(api_.clear("testfs-MDT0000", "cl1", -1), -EINVAL);
  EXPECT_EQ(api_.clear("testfs-MDT0000", "cl5", 1), -ENOENT);
  EXPECT_EQ(api_.clear("testfs-MDT0000", "cl1", 3), 0);
  priv = Start("testfs-MDT0000", kReadFlags, 0);
  EXPECT_EQ(Drain(priv).size(), 3u);                              // cl2 still holds them
  api_.fini(&priv);
  EXPECT_EQ(api_.clear("testfs-MDT0000", "cl2-reader", 2), 0);
  priv = Start("testfs-MDT0000", kReadFlags, 0);
  auto left = Drain(priv);
  api_.fini(&priv);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].index, 3u);
}

TEST_F(LustreApiTest, Fid2PathIteratesHardLinksAndRejectsDeletedFids) {
  auto state = Mount("testfs", 2);
  auto d = state->Create(Bob(), kRootFid, "d", ObjectType::kDirectory);
  auto e = state->Create(Bob(), kRootFid, "e", ObjectType::kDirectory);
  auto f = state->Create(Bob(), d->fid, "f", ObjectType::kFile);
  ASSERT_TRUE(e.ok() && f.ok());
  ASSERT_TRUE(state->Link(Bob(), f->fid, e->fid, "link").ok());
  ASSERT_TRUE(state->Link(Bob(), f->fid, kRootFid, "top").ok());

  std::vector<std::string> seen;
  int linkno = 0;
  for (int i = 0; i < 3; ++i) {
    int before = linkno;
    seen.push_back(Fid2Path("testfs", f->fid, &linkno));
    if (i < 2) {
      EXPECT_EQ(linkno, before + 1);
    }
  }
  EXPECT_EQ(linkno, 2);  // the last link leaves linkno where it was
  std::vector<std::string> expected{"d/f", "e/link", "top"};
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(Fid2Path(mount_, f->fid), "d/f");                     // by mount path
  EXPECT_EQ(Fid2Path("testfs-MDT0001", e->fid), "e");
  EXPECT_EQ(Fid2Path("testfs", kRootFid), "");
  char buf[64];
  long long recno = 0;
  int link = 0;
  std::string bare = FormatFid(d->fid).substr(1, FormatFid(d->fid).size() - 2);
  EXPECT_EQ(api_.fid2path("testfs", bare.c_str(), buf, sizeof(buf), &recno, &link), 0);
  EXPECT_STREQ(buf, "d");
  EXPECT_EQ(api_.fid2path("testfs", "[0x1:zz]", buf, sizeof(buf), &recno, &link), -EINVAL);
  EXPECT_EQ(api_.fid2path("otherfs", FormatFid(d->fid).c_str(), buf, sizeof(buf), &recno, &link), -ENODEV);
  EXPECT_EQ(api_.fid2path("testfs", FormatFid(d->fid).c_str(), buf, 2, &recno, &link), -EOVERFLOW);

  ASSERT_TRUE(state->Unlink(Bob(), d->fid, "f").ok());
  ASSERT_TRUE(state->Unlink(Bob(), e->fid, "link").ok());
  ASSERT_TRUE(state->Unlink(Bob(), kRootFid, "top").ok());
  int rc = 0;
  Fid2Path("testfs", f->fid, nullptr, &rc);
  EXPECT_EQ(rc, -ENOENT);
}

TEST_F(LustreApiTest, Path2FidResolvesPathsUnderTheMount) {
  auto state = Mount("testfs", 1);
  auto d = state->Create(Bob(), kRootFid, "dir", ObjectType::kDirectory);
  auto f = state->Create(Bob(), d->fid, "file", ObjectType::kFile);
  ASSERT_TRUE(f.ok());
  lu_fid fid{};
  ASSERT_EQ(api_.path2fid((mount_ + "/dir/file").c_str(), &fid), 0);
  EXPECT_EQ(lustre::FromAbi(fid), f->fid);
  ASSERT_EQ(api_.path2fid(mount_.c_str(), &fid), 0);
  EXPECT_EQ(lustre::FromAbi(fid), kRootFid);
  EXPECT_EQ(api_.path2fid((mount_ + "/dir/missing").c_str(), &fid), -ENOENT);
  EXPECT_EQ(api_.path2fid(tmp_.path().c_str(), &fid), -ENOTSUP);   // exists, not Lustre
}

TEST_F(LustreApiTest, GetObdCountGivesTheMdtCountOfTheMountedFileSystem) {
  auto state = Mount("testfs", 4);
  auto d = state->Create(Bob(), kRootFid, "dir", ObjectType::kDirectory);
  ASSERT_TRUE(d.ok());
  int count = -1;
  ASSERT_EQ(api_.get_obd_count(mount_.data(), &count, 1), 0);
  EXPECT_EQ(count, 4);
  const std::string inside = mount_ + "/dir";
  std::string path = inside;
  ASSERT_EQ(api_.get_obd_count(path.data(), &count, 1), 0);
  EXPECT_EQ(count, 4);
  ASSERT_EQ(api_.get_obd_count(mount_.data(), &count, 0), 0);
  EXPECT_EQ(count, 4);  // the default OST count
  std::string elsewhere = tmp_.path();
  EXPECT_EQ(api_.get_obd_count(elsewhere.data(), &count, 1), -ENODEV);
}

TEST_F(LustreApiTest, FollowModeBlocksUntilEachNewRecordArrives) {
  auto state = Mount("testfs", 1);
  ASSERT_TRUE(state->RegisterUser(0).ok());
  void* priv = Start("testfs-MDT0000", kReadFlags | CHANGELOG_FLAG_FOLLOW, 0);
  constexpr int kRounds = 20;
  std::atomic<int> received{0};
  std::thread reader([&] {
    for (int i = 0; i < kRounds; ++i) {
      changelog_rec* rec = nullptr;
      if (api_.recv(priv, &rec) != 0) return;
      if (rec->cr_index != static_cast<uint64_t>(i + 1)) return;
      api_.free_rec(&rec);
      received = i + 1;
    }
  });
  for (int i = 0; i < kRounds; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // let the reader block in recv
    ASSERT_EQ(received.load(), i) << "a record arrived before it was written";
    ASSERT_TRUE(state->Create(Bob(), kRootFid, "f" + std::to_string(i), ObjectType::kFile).ok());
    auto deadline = Clock::now() + std::chrono::seconds(5);
    while (received.load() <= i && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::microseconds(100));
    ASSERT_EQ(received.load(), i + 1) << "no record within 5 s";
  }
  reader.join();
  api_.fini(&priv);
}

// fid2path answers from the records as a reader applies them.
struct Model {
  std::map<Fid, std::string> paths{{kRootFid, ""}};
  void Apply(const ChangelogRecord& r) {
    auto join = [&](const Fid& parent, const std::string& name) {
      const std::string& base = paths[parent];
      return base.empty() ? name : base + "/" + name;
    };
    switch (r.type) {
      case CL_CREATE: case CL_MKDIR: paths[r.tfid] = join(r.pfid, r.name); break;
      case CL_RENAME: paths[r.sfid] = join(r.pfid, r.name); break;
      case CL_UNLINK: paths.erase(r.tfid); break;
      default: break;
    }
  }
};

TEST_F(LustreApiTest, FastModeIsDeterministicAndFid2PathFollowsTheRecords) {
  FastModeConfig config{"fastfs", 2, tmp_ / "fast.state", 0};
  ASSERT_TRUE(SetupFastMode(config).ok());
  // The only reader in this process: fid2path answers as of the record it just received.
  Model model;
  size_t checked_live = 0, checked_gone = 0;
  std::vector<ChangelogRecord> first;
  void* b = Start("fastfs-MDT0001", kReadFlags, 0);
  for (size_t i = 0; i < 20000; ++i) {
    auto one = Drain(b, 1);
    ASSERT_EQ(one.size(), 1u);
    first.push_back(one[0]);
    const ChangelogRecord& r = first.back();
    EXPECT_EQ(r.index, i + 1);
    EXPECT_TRUE(r.has_jobid && !r.jobid.empty());
    EXPECT_EQ(r.nid, "0@lo");
    model.Apply(r);
    Fid subject = r.type == CL_RENAME ? r.sfid : r.tfid;
    if (i % 7 != 0) continue;
    int rc = 0;
    std::string path = Fid2Path("fastfs", subject, nullptr, &rc);
    auto known = model.paths.find(subject);
    if (known != model.paths.end()) {
      EXPECT_EQ(path, known->second) << "record " << r.index;
      ++checked_live;
    } else {
      EXPECT_EQ(rc, -ENOENT) << "record " << r.index;
      ++checked_gone;
    }
  }
  api_.fini(&b);
  // A second reader sees exactly the same log.
  void* a = Start("fastfs-MDT0001", kReadFlags, 0);
  auto again = Drain(a, 20000);
  api_.fini(&a);
  ASSERT_EQ(again.size(), first.size());
  for (size_t i = 0; i < first.size(); ++i) ASSERT_EQ(again[i], first[i]) << i;
  EXPECT_GT(checked_live, 1000u);
  EXPECT_GT(checked_gone, 100u);
  std::map<uint32_t, int> types;
  for (const auto& r : first) types[r.type]++;
  for (uint32_t t : {CL_MKDIR, CL_CREATE, CL_MTIME, CL_CLOSE, CL_RENAME, CL_UNLINK, CL_SETATTR}) {
    EXPECT_GT(types[t], 0) << t;
  }
  // MDT0 generates its own namespace with FIDs from its own sequence.
  void* c = Start("fastfs-MDT0000", kReadFlags, 0);
  auto mdt0 = Drain(c, 3);
  api_.fini(&c);
  EXPECT_EQ(mdt0[0].name, "mdt0");
  EXPECT_EQ(first[0].name, "mdt1");
  EXPECT_NE(mdt0[1].tfid.seq, first[1].tfid.seq);
}

TEST_F(LustreApiTest, FastModeUsersPersistAndARestartedReaderContinuesExactly) {
  FastModeConfig config{"fastfs", 1, tmp_ / "fast.state", 5000};
  ASSERT_TRUE(SetupFastMode(config).ok());
  {
    auto state = SimState::Open(config.state_dir);
    ASSERT_TRUE(state.ok());
    ASSERT_EQ((*state)->RegisterUser(0).value(), "cl1");
  }
  void* priv = Start("fastfs-MDT0000", kReadFlags, 0);
  auto all = Drain(priv);
  api_.fini(&priv);
  ASSERT_EQ(all.size(), 5000u);                                     // bounded: recv returns 1 after
  EXPECT_EQ(api_.clear("fastfs-MDT0000", "cl1", 3000), 0);
  EXPECT_EQ(api_.clear("fastfs-MDT0000", "cl1", 5001), -EINVAL);
  // Set up again (as after a restart): same time base, same users.
  ASSERT_TRUE(TeardownFastMode("fastfs").ok());
  ASSERT_TRUE(SetupFastMode(config).ok());
  auto state = SimState::Open(config.state_dir);
  auto users = (*state)->Users(0);
  ASSERT_EQ(users->size(), 1u);
  uint64_t resume = (*users)[0].cleared + 1;
  EXPECT_EQ(resume, 3001u);
  priv = Start("fastfs-MDT0000", kReadFlags, static_cast<long long>(resume));
  auto rest = Drain(priv);
  api_.fini(&priv);
  ASSERT_EQ(rest.size(), 2000u);
  for (size_t i = 0; i < rest.size(); ++i) ASSERT_EQ(rest[i], all[3000 + i]) << i;
}

TEST_F(LustreApiTest, FastModeHandsOutAMillionConsecutiveRecords) {
  FastModeConfig config{"fastfs", 1, tmp_ / "fast.state", 0};
  ASSERT_TRUE(SetupFastMode(config).ok());
  void* priv = Start("fastfs-MDT0000", kReadFlags, 0);
  constexpr uint64_t kRecords = 1000000;
  for (uint64_t i = 0; i < kRecords; ++i) {
    changelog_rec* rec = nullptr;
    ASSERT_EQ(api_.recv(priv, &rec), 0);
    ASSERT_EQ(rec->cr_index, i + 1);
    api_.free_rec(&rec);
  }
  api_.fini(&priv);
}

}  // namespace
}  // namespace fathom::lustre_sim
