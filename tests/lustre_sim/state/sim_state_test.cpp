// SimState against real SQLite files: namespace and records for every operation, DNE
// placement, FID stability, users/masks/clear, and a second process clearing concurrently.
#include "lustre_sim/state/sim_state.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace fathom::lustre_sim {
namespace {

using lustre::FormatFid;
using lustre::kRootFid;

Caller Alice() { return Caller{1000, 100, "touch.1000"}; }

std::unique_ptr<SimState> MustOpen(const std::string& dir, int mdts = 1, const std::string& fsname = "testfs") {
  SimConfig config;
  config.fsname = fsname;
  config.mdts = mdts;
  auto state = SimState::CreateOrOpen(dir, config);
  EXPECT_TRUE(state.ok()) << state.status().message();
  return std::move(state).value();
}

std::vector<ChangelogRecord> ReadAll(SimState& state, int mdt) {
  std::vector<ChangelogRecord> out;
  Status status = state.Read(mdt, 0, 100000, out);
  EXPECT_TRUE(status.ok()) << status.message();
  return out;
}

TEST(SimStateTest, EveryNamespaceOperationLogsItsRecord) {
  testing::TempDir tmp;
  auto state = MustOpen(tmp.path());
  ASSERT_TRUE(state->RegisterUser(0).ok());
  auto dir = state->Create(Alice(), kRootFid, "d", ObjectType::kDirectory);
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  auto file = state->Create(Alice(), dir->fid, "f", ObjectType::kFile);
  ASSERT_TRUE(file.ok());
  auto sym = state->Create(Alice(), dir->fid, "s", ObjectType::kSymlink);
  auto node = state->Create(Alice(), dir->fid, "n", ObjectType::kNode);
  ASSERT_TRUE(sym.ok() && node.ok());
  ASSERT_TRUE(state->Link(Alice(), file->fid, kRootFid, "hard").ok());
  ASSERT_TRUE(state->Record(Alice(), CL_CLOSE, file->fid, RecordDetails{0, 0x42, ""}).ok());
  ASSERT_TRUE(state->Record(Alice(), CL_MTIME, file->fid, RecordDetails{0x7, 0, ""}).ok());
  ASSERT_TRUE(state->Unlink(Alice(), dir->fid, "f").ok());      // one link remains
  ASSERT_TRUE(state->Unlink(Alice(), kRootFid, "hard").ok());   // the last one
  ASSERT_TRUE(state->Unlink(Alice(), dir->fid, "n").ok());
  ASSERT_TRUE(state->Unlink(Alice(), dir->fid, "s").ok());
  ASSERT_TRUE(state->Unlink(Alice(), kRootFid, "d").ok());

  auto records = ReadAll(*state, 0);
  ASSERT_EQ(records.size(), 12u);
  const uint32_t types[] = {CL_MKDIR, CL_CREATE, CL_SOFTLINK, CL_MKNOD, CL_HARDLINK, CL_CLOSE,
                            CL_MTIME, CL_UNLINK, CL_UNLINK, CL_UNLINK, CL_UNLINK, CL_RMDIR};
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].index, i + 1);
    EXPECT_EQ(records[i].type, types[i]) << i;
    EXPECT_EQ(records[i].uid, 1000u);
    EXPECT_EQ(records[i].gid, 100u);
    EXPECT_EQ(records[i].jobid, "touch.1000");
    EXPECT_EQ(records[i].nid, "0@lo");
    EXPECT_EQ(records[i].prev, 0u);
    EXPECT_GT(records[i].time_ns, 1600000000ull * 1000000000ull);
  }
  EXPECT_EQ(records[0].tfid, dir->fid);
  EXPECT_EQ(records[0].pfid, kRootFid);
  EXPECT_EQ(records[0].name, "d");
  EXPECT_EQ(records[4].tfid, file->fid);
  EXPECT_EQ(records[4].pfid, kRootFid);
  EXPECT_EQ(records[4].name, "hard");
  // CLOSE carries no parent and no name; MTIME (la_valid with MTIME) carries the parent of
  // the file's oldest link, d/f (the hard link came later).
  EXPECT_TRUE(records[5].pfid.zero());
  EXPECT_EQ(records[5].name, "");
  EXPECT_EQ(records[5].flags, 0x42);
  EXPECT_EQ(records[6].pfid, dir->fid);
  EXPECT_EQ(records[6].name, "");
  EXPECT_EQ(records[7].flags, 0);                 // a link remains
  EXPECT_EQ(records[8].flags, CLF_UNLINK_LAST);   // the last link went
  EXPECT_EQ(records[8].name, "hard");
  EXPECT_EQ(records[11].flags, CLF_UNLINK_LAST);
  EXPECT_FALSE(state->Get(file->fid).ok());
  EXPECT_EQ(StatusErrno(state->Get(file->fid).status()), ENOENT);
}

TEST(SimStateTest, RenameOverwriteNamesTargetAndFlagsItsLastLink) {
  testing::TempDir tmp;
  auto state = MustOpen(tmp.path());
  ASSERT_TRUE(state->RegisterUser(0).ok());
  auto a = state->Create(Alice(), kRootFid, "a", ObjectType::kFile);
  auto b = state->Create(Alice(), kRootFid, "b", ObjectType::kFile);
  auto c = state->Create(Alice(), kRootFid, "c", ObjectType::kFile);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_TRUE(state->Link(Alice(), c->fid, kRootFid, "c2").ok());
  ASSERT_TRUE(state->Rename(Alice(), kRootFid, "a", kRootFid, "b").ok());   // b loses its only link
  ASSERT_TRUE(state->Rename(Alice(), kRootFid, "b", kRootFid, "c").ok());   // c keeps c2
  ASSERT_TRUE(state->Rename(Alice(), kRootFid, "c", kRootFid, "fresh").ok());
  auto records = ReadAll(*state, 0);
  ASSERT_EQ(records.size(), 7u);
  const auto& over = records[4];
  EXPECT_EQ(over.type, CL_RENAME);
  EXPECT_EQ(over.tfid, b->fid);
  EXPECT_EQ(over.flags, CLF_RENAME_LAST);
  EXPECT_TRUE(over.has_rename);
  EXPECT_EQ(over.sfid, a->fid);
  EXPECT_EQ(over.spfid, kRootFid);
  EXPECT_EQ(over.sname, "a");
  EXPECT_EQ(over.name, "b");
  EXPECT_EQ(records[5].tfid, c->fid);
  EXPECT_EQ(records[5].flags, 0);
  EXPECT_TRUE(records[6].tfid.zero());
  EXPECT_EQ(records[6].sname, "c");
  EXPECT_EQ(records[6].name, "fresh");
  EXPECT_FALSE(state->Get(b->fid).ok());
  EXPECT_EQ(state->Paths(c->fid), std::vector<std::string>{"/c2"});
  EXPECT_EQ(state->Paths(a->fid), std::vector<std::string>{"/fresh"});
}

TEST(SimStateTest, NamespaceErrorsCarryKernelErrnos) {
  testing::TempDir tmp;
  auto state = MustOpen(tmp.path());
  auto d = state->Create(Alice(), kRootFid, "d", ObjectType::kDirectory);
  auto f = state->Create(Alice(), d->fid, "f", ObjectType::kFile);
  ASSERT_TRUE(d.ok() && f.ok());
  EXPECT_EQ(StatusErrno(state->Create(Alice(), kRootFid, "d", ObjectType::kFile).status()), EEXIST);
  EXPECT_EQ(StatusErrno(state->Unlink(Alice(), kRootFid, "d")), ENOTEMPTY);
  EXPECT_EQ(StatusErrno(state->Unlink(Alice(), kRootFid, "nope")), ENOENT);
  EXPECT_EQ(StatusErrno(state->Create(Alice(), f->fid, "x", ObjectType::kFile).status()), ENOTDIR);
  EXPECT_EQ(StatusErrno(state->Link(Alice(), d->fid, kRootFid, "dl")), EPERM);
  EXPECT_EQ(StatusErrno(state->Rename(Alice(), kRootFid, "d", d->fid, "inside")), EINVAL);
  EXPECT_EQ(StatusErrno(state->Create(Alice(), kRootFid, std::string(300, 'x'), ObjectType::kFile).status()),
            ENAMETOOLONG);
  auto resolved = state->Resolve("/d/f");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->fid, f->fid);
  EXPECT_EQ(StatusErrno(state->Resolve("/d/missing").status()), ENOENT);
}

TEST(SimStateTest, RecordsGoToTheMdtOfTheParentOrTheObject) {
  testing::TempDir tmp;
  auto state = MustOpen(tmp.path(), 4);
  for (int mdt = 0; mdt < 4; ++mdt) ASSERT_TRUE(state->RegisterUser(mdt).ok());
  std::vector<Entry> dirs;
  for (int i = 0; i < 5; ++i) {
    auto d = state->Create(Alice(), kRootFid, "d" + std::to_string(i), ObjectType::kDirectory);
    ASSERT_TRUE(d.ok());
    dirs.push_back(*d);
  }
  // Children of the root go round-robin; their FIDs come from their MDT's sequence.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(dirs[i].mdt, i % 4);
    EXPECT_EQ(dirs[i].fid.seq, 0x200000400ull + static_cast<uint64_t>(i % 4) * 0x40000000ull) << i;
  }
  auto explicit_dir = state->Create(Alice(), dirs[1].fid, "on3", ObjectType::kDirectory, 3);
  ASSERT_TRUE(explicit_dir.ok());
  EXPECT_EQ(explicit_dir->mdt, 3);
  auto sub = state->Create(Alice(), dirs[2].fid, "sub", ObjectType::kDirectory);
  EXPECT_EQ(sub->mdt, 2);
  auto file = state->Create(Alice(), explicit_dir->fid, "f", ObjectType::kFile);
  EXPECT_EQ(file->mdt, 3);
  ASSERT_TRUE(state->Record(Alice(), CL_CLOSE, file->fid).ok());
  ASSERT_TRUE(state->Rename(Alice(), explicit_dir->fid, "f", dirs[2].fid, "moved").ok());
  ASSERT_TRUE(state->Record(Alice(), CL_SETATTR, file->fid, RecordDetails{0x10, 0, ""}).ok());

  // MDT0 holds the root: all five MKDIRs of its children.
  auto r0 = ReadAll(*state, 0);
  ASSERT_EQ(r0.size(), 5u);
  // MDT1 holds d1: the MKDIR of on3 (placed on MDT3) is logged where its parent lives.
  auto r1 = ReadAll(*state, 1);
  ASSERT_EQ(r1.size(), 1u);
  EXPECT_EQ(r1[0].tfid, explicit_dir->fid);
  // MDT2: MKDIR sub, and the rename into d2 (the target parent).
  auto r2 = ReadAll(*state, 2);
  ASSERT_EQ(r2.size(), 2u);
  EXPECT_EQ(r2[1].type, CL_RENAME);
  EXPECT_EQ(r2[1].spfid, explicit_dir->fid);
  // MDT3: CREAT in on3, CLOSE and SATTR of the file that lives there.
  auto r3 = ReadAll(*state, 3);
  ASSERT_EQ(r3.size(), 3u);
  EXPECT_EQ(r3[0].type, CL_CREATE);
  EXPECT_EQ(r3[1].type, CL_CLOSE);
  EXPECT_EQ(r3[2].type, CL_SETATTR);
  EXPECT_EQ(r3[2].flags, 0x10);
  EXPECT_TRUE(r3[2].pfid.zero());  // a chmod does not change the mtime: no parent
  for (int mdt = 0; mdt < 4; ++mdt) EXPECT_EQ(state->LastIndex(mdt).value(), ReadAll(*state, mdt).back().index);
}

TEST(SimStateTest, FidsAndIndexesSurviveCloseAndReopen) {
  testing::TempDir tmp;
  Fid fid;
  {
    auto state = MustOpen(tmp.path(), 2);
    ASSERT_TRUE(state->RegisterUser(1).ok());
    auto d = state->Create(Alice(), kRootFid, "a", ObjectType::kDirectory, 1);
    auto f = state->Create(Alice(), d->fid, "file", ObjectType::kFile);
    ASSERT_TRUE(f.ok());
    fid = f->fid;
  }
  SimConfig wrong;
  wrong.fsname = "testfs";
  wrong.mdts = 3;
  EXPECT_FALSE(SimState::CreateOrOpen(tmp.path(), wrong).ok());
  auto reopened = SimState::Open(tmp.path());
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  auto& state = *reopened;
  EXPECT_EQ(state->config().fsname, "testfs");
  EXPECT_EQ(state->config().mdts, 2);
  auto again = state->Resolve("/a/file");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->fid, fid);
  auto a = state->Resolve("/a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->mdt, 1);
  auto next = state->Create(Alice(), a->fid, "second", ObjectType::kFile);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->fid.seq, fid.seq);
  EXPECT_GT(next->fid.oid, fid.oid);         // allocation continues past the reservation, never reuses
  EXPECT_EQ(state->LastIndex(1).value(), 2u);
  EXPECT_EQ(ReadAll(*state, 1).back().index, 2u);
  EXPECT_FALSE(SimState::Open(tmp / "nothing-here").ok());
}

TEST(SimStateTest, RecordsStayUntilEveryUserClearedThem) {
  testing::TempDir tmp;
  auto state = MustOpen(tmp.path());
  ASSERT_TRUE(state->Create(Alice(), kRootFid, "unlogged", ObjectType::kFile).ok());
  EXPECT_EQ(state->LastIndex(0).value(), 0u);  // no user: nothing logged
  auto cl1 = state->RegisterUser(0);
  auto cl2 = state->RegisterUser(0);
  ASSERT_EQ(*cl1, "cl1");
  ASSERT_EQ(*cl2, "cl2");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(state->Create(Alice(), kRootFid, "f" + std::to_string(i), ObjectType::kFile).ok());
  ASSERT_TRUE(state->Clear(0, "cl1", 3).ok());
  EXPECT_EQ(ReadAll(*state, 0).size(), 5u);  // cl2 has not cleared
  ASSERT_TRUE(state->Clear(0, "cl2", 2).ok());
  auto left = ReadAll(*state, 0);
  ASSERT_EQ(left.size(), 3u);
  EXPECT_EQ(left.front().index, 3u);
  EXPECT_EQ(StatusErrno(state->Clear(0, "cl1", 6)), EINVAL);   // past the last record
  EXPECT_EQ(StatusErrno(state->Clear(0, "cl1", 2)), EINVAL);   // behind its own position
  EXPECT_EQ(StatusErrno(state->Clear(0, "cl9", 1)), ENOENT);
  ASSERT_TRUE(state->Clear(0, "cl2", 0).ok());                 // 0: everything
  EXPECT_EQ(ReadAll(*state, 0).front().index, 4u);
  auto users = state->Users(0);
  ASSERT_EQ(users->size(), 2u);
  EXPECT_EQ((*users)[0].cleared, 3u);
  EXPECT_EQ((*users)[1].cleared, 5u);
  EXPECT_EQ((*users)[0].mask, CHANGELOG_DEFMASK);
  ASSERT_TRUE(state->DeregisterUser(0, "cl1").ok());
  EXPECT_TRUE(ReadAll(*state, 0).empty());                      // cl2 cleared everything
  ASSERT_TRUE(state->Create(Alice(), kRootFid, "g", ObjectType::kFile).ok());
  ASSERT_TRUE(state->DeregisterUser(0, "cl2").ok());
  EXPECT_TRUE(ReadAll(*state, 0).empty());                      // last user gone: all freed
  auto cl3 = state->RegisterUser(0);
  EXPECT_EQ(*cl3, "cl3");                                       // ids are never reused
  ASSERT_TRUE(state->Create(Alice(), kRootFid, "h", ObjectType::kFile).ok());
  EXPECT_EQ(ReadAll(*state, 0).front().index, 7u);              // indexes are never reused
}

TEST(SimStateTest, MdtMaskFiltersWhatIsLogged) {
  testing::TempDir tmp;
  auto state = MustOpen(tmp.path());
  EXPECT_EQ(state->Mask(0).value(), CHANGELOG_DEFMASK);
  ASSERT_TRUE(state->RegisterUser(0, (1ull << CL_CREATE)).ok());
  auto f = state->Create(Alice(), kRootFid, "f", ObjectType::kFile);
  ASSERT_TRUE(state->Record(Alice(), CL_ATIME, f->fid).ok());  // not in the default mask
  ASSERT_TRUE(state->Record(Alice(), CL_OPEN, f->fid, RecordDetails{0, 0100, ""}).ok());
  ASSERT_TRUE(state->SetMask(0, CHANGELOG_DEFMASK | (1ull << CL_OPEN)).ok());
  ASSERT_TRUE(state->Record(Alice(), CL_OPEN, f->fid, RecordDetails{0, 0100, ""}).ok());
  ASSERT_TRUE(state->Record(Alice(), CL_SETXATTR, f->fid, RecordDetails{0, 0, "user.tag"}).ok());
  auto records = ReadAll(*state, 0);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].type, CL_OPEN);
  EXPECT_EQ(records[1].open_flags, 0100u);
  EXPECT_TRUE(records[1].extra_flags & CLFE_OPEN);
  EXPECT_EQ(records[2].xattr, "user.tag");
  EXPECT_EQ((state->Users(0).value())[0].mask, (1ull << CL_CREATE) | CHANGELOG_MINMASK);
}

TEST(SimStateTest, AnotherProcessClearsWhileThisOneWrites) {
  testing::TempDir tmp;
  auto state = MustOpen(tmp.path());
  ASSERT_TRUE(state->RegisterUser(0).ok());
  constexpr int kFiles = 400;
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto mine = SimState::Open(tmp.path());
    if (!mine.ok()) _exit(2);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    uint64_t cleared = 0;
    while (cleared < kFiles && std::chrono::steady_clock::now() < deadline) {
      auto last = (*mine)->LastIndex(0);
      if (!last.ok()) _exit(3);
      if (*last > cleared) {
        Status status = (*mine)->Clear(0, "cl1", *last);
        if (!status.ok()) _exit(4);
        cleared = *last;
      }
    }
    _exit(cleared == kFiles ? 0 : 5);
  }
  for (int i = 0; i < kFiles; ++i) {
    Status status = state->Create(Alice(), kRootFid, "f" + std::to_string(i), ObjectType::kFile).status();
    ASSERT_TRUE(status.ok()) << status.message();
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus));
  EXPECT_EQ(WEXITSTATUS(wstatus), 0);
  EXPECT_TRUE(ReadAll(*state, 0).empty());
  EXPECT_EQ((state->Users(0).value())[0].cleared, static_cast<uint64_t>(kFiles));
  // The writer sees the other process's user registration (cached counters are refreshed).
  auto other = SimState::Open(tmp.path());
  ASSERT_TRUE((*other)->RegisterUser(0).ok());
  ASSERT_TRUE(state->Create(Alice(), kRootFid, "after", ObjectType::kFile).ok());
  EXPECT_EQ((state->Users(0).value()).size(), 2u);
  EXPECT_EQ(ReadAll(*state, 0).size(), 1u);
}

TEST(SimStateTest, ThousandsOfOperationsLogExactlyOneRecordEachInOrder) {
  testing::TempDir tmp;
  auto state = MustOpen(tmp.path(), 2);
  ASSERT_TRUE(state->RegisterUser(0).ok());
  ASSERT_TRUE(state->RegisterUser(1).ok());
  auto dir = state->Create(Alice(), kRootFid, "many", ObjectType::kDirectory);
  ASSERT_TRUE(dir.ok());
  constexpr int kOps = 2000;
  for (int i = 0; i < kOps; ++i) {
    std::string name = "f" + std::to_string(i);
    auto f = state->Create(Alice(), dir->fid, name, ObjectType::kFile);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(state->Record(Alice(), CL_CLOSE, f->fid).ok());
    ASSERT_TRUE(state->Rename(Alice(), dir->fid, name, dir->fid, "r" + name).ok());
    ASSERT_TRUE(state->Unlink(Alice(), dir->fid, "r" + name).ok());
  }
  const auto records = ReadAll(*state, 0);
  ASSERT_EQ(records.size(), static_cast<size_t>(1 + 4 * kOps));
  for (size_t i = 0; i < records.size(); ++i) ASSERT_EQ(records[i].index, i + 1);
  const uint32_t cycle[] = {CL_CREATE, CL_CLOSE, CL_RENAME, CL_UNLINK};
  for (size_t i = 1; i < records.size(); ++i) ASSERT_EQ(records[i].type, cycle[(i - 1) % 4]) << i;
}

TEST(SimStateTest, LayoutsFollowPoolsAndDefaultsAndGoWithTheLastLink) {
  testing::TempDir tmp;
  auto state = MustOpen(tmp.path());
  EXPECT_EQ(state->config().osts, 4);
  ASSERT_TRUE(state->PoolNew("even").ok());
  ASSERT_TRUE(state->PoolAdd("even", 0).ok());
  ASSERT_TRUE(state->PoolAdd("even", 2).ok());
  EXPECT_EQ(StatusErrno(state->PoolAdd("even", 4)), EINVAL);  // no OST 4
  EXPECT_EQ(StatusErrno(state->PoolNew("bad.name")), EINVAL);
  auto dir = state->Create(Alice(), kRootFid, "d", ObjectType::kDirectory);
  ASSERT_TRUE(dir.ok());
  LayoutSpec spec;
  spec.stripe_count = -1;
  spec.pool = "even";
  ASSERT_TRUE(state->SetDirLayout(Alice(), dir->fid, spec).ok());
  auto sub = state->Create(Alice(), dir->fid, "sub", ObjectType::kDirectory);
  auto file = state->Create(Alice(), sub->fid, "f", ObjectType::kFile);
  ASSERT_TRUE(file.ok()) << file.status().message();
  auto layout = state->GetLayout(file->fid);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->stripe_count, 2u);
  EXPECT_EQ(layout->stripe_size, kDefaultStripeSize);
  EXPECT_EQ(layout->pool, "even");
  EXPECT_EQ(layout->osts, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(StatusErrno(state->GetLayout(dir->fid).status()), ENODATA);
  EXPECT_EQ(StatusErrno(state->PoolDestroy("even")), ENOTEMPTY);
  // The layout goes with the file's last link.
  ASSERT_TRUE(state->Unlink(Alice(), sub->fid, "f").ok());
  EXPECT_EQ(StatusErrno(state->GetLayout(file->fid).status()), ENODATA);
  // Reopened: the OST count, pools and defaults are kept.
  state.reset();
  state = MustOpen(tmp.path());
  EXPECT_EQ(state->config().osts, 4);
  auto members = state->PoolOsts("even");
  ASSERT_TRUE(members.ok());
  EXPECT_EQ(*members, (std::vector<uint32_t>{0, 2}));
  auto kept = state->GetDirLayout(dir->fid);
  ASSERT_TRUE(kept.ok() && kept->has_value());
  EXPECT_EQ((*kept)->pool, "even");
  SimConfig other;
  other.fsname = "testfs";
  other.osts = 8;
  EXPECT_EQ(StatusErrno(SimState::CreateOrOpen(tmp.path(), other).status()), EINVAL);
}

}  // namespace
}  // namespace fathom::lustre_sim
