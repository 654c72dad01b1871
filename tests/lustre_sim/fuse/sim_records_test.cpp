// fathom-lustre-sim on a real FUSE mount: the records real operations leave, placement on
// MDTs, FID stability, jobids and changelog users.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <map>

#include "lustre/changelog_text.h"
#include "lustre/fid.h"
#include "sim_fixture.h"
#include "support/fs_ops.h"

namespace fathom::testing {
namespace {

using lustre::ChangelogRecord;
using lustre::Fid;
using lustre::kRootFid;

std::vector<std::string> TypeNames(const std::vector<ChangelogRecord>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) out.emplace_back(*lustre::RecordTypeName(r.type));
  return out;
}

class SimRecordsTest : public SimMountTest {};

TEST_F(SimRecordsTest, EvaluateOutputScriptGivesTableOneRecords) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  RegisterEverywhere(1);
  RunEvaluateOutputScript(mount());
  auto records = Changelog(0);
  ASSERT_THAT(TypeNames(records),
              ::testing::ElementsAre("CREAT", "MTIME", "CLOSE", "RENME", "MKDIR", "RENME", "UNLNK", "RMDIR"));
  const Fid file = records[0].tfid;
  const Fid okdir = records[4].tfid;
  EXPECT_EQ(records[0].pfid, kRootFid);
  EXPECT_EQ(records[0].name, "hello.txt");
  EXPECT_EQ(records[1].tfid, file);
  EXPECT_EQ(records[1].flags, 0x7);  // la_valid ATIME|MTIME|CTIME, as in Table I
  EXPECT_EQ(records[2].tfid, file);
  // hello.txt -> hi.txt in the root.
  EXPECT_TRUE(records[3].has_rename);
  EXPECT_EQ(records[3].pfid, kRootFid);
  EXPECT_EQ(records[3].name, "hi.txt");
  EXPECT_EQ(records[3].sfid, file);
  EXPECT_EQ(records[3].spfid, kRootFid);
  EXPECT_EQ(records[3].sname, "hello.txt");
  EXPECT_EQ(records[4].pfid, kRootFid);
  EXPECT_EQ(records[4].name, "okdir");
  // hi.txt moved into okdir.
  EXPECT_EQ(records[5].pfid, okdir);
  EXPECT_EQ(records[5].name, "hi.txt");
  EXPECT_EQ(records[5].sfid, file);
  EXPECT_EQ(records[5].spfid, kRootFid);
  EXPECT_EQ(records[6].tfid, file);
  EXPECT_EQ(records[6].pfid, okdir);
  EXPECT_EQ(records[6].name, "hi.txt");
  EXPECT_EQ(records[7].tfid, okdir);
  EXPECT_EQ(records[7].pfid, kRootFid);
  EXPECT_EQ(records[7].name, "okdir");
  for (size_t i = 1; i < records.size(); ++i) EXPECT_GT(records[i].index, records[i - 1].index);
}

TEST_F(SimRecordsTest, FidsAndInodeNumbersSurviveRemount) {
  ASSERT_EQ(Mount(2).exit_code, 0);
  MakeDirs(mount() + "/dir/sub");
  WriteFile(mount() + "/dir/sub/file", "data");
  Fid before = PathFid("dir/sub/file");
  struct stat st1{};
  ASSERT_EQ(stat((mount() + "/dir/sub/file").c_str(), &st1), 0);
  auto u = Umount();
  ASSERT_EQ(u.exit_code, 0) << u.err;
  struct stat st{};
  ASSERT_NE(stat((mount() + "/dir").c_str(), &st), 0) << "still mounted after umount";
  auto m = Mount(2);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(PathFid("dir/sub/file"), before);
  struct stat st2{};
  ASSERT_EQ(stat((mount() + "/dir/sub/file").c_str(), &st2), 0);
  EXPECT_EQ(st1.st_ino, st2.st_ino);
  // New objects never reuse a FID.
  WriteFile(mount() + "/dir/sub/other", "x");
  EXPECT_NE(PathFid("dir/sub/other"), before);
}

TEST_F(SimRecordsTest, FourMdtsPlaceDirectoriesAndLogEachRecordOnceOnTheRightMdt) {
  ASSERT_EQ(Mount(4).exit_code, 0);
  RegisterEverywhere(4);
  for (const char* d : {"d0", "d1", "d2", "d3", "d4"}) MakeDirs(mount() + "/" + d);
  auto placed = Lfs({"getdirstripe", "-m", mount() + "/d0", mount() + "/d1", mount() + "/d2", mount() + "/d3",
                     mount() + "/d4"});
  ASSERT_EQ(placed.exit_code, 0) << placed.err;
  EXPECT_EQ(placed.out, "0\n1\n2\n3\n0\n");
  auto made = Lfs({"mkdir", "-i", "3", mount() + "/d1/on3"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(Lfs({"getdirstripe", "-m", mount() + "/d1/on3"}).out, "3\n");
  MakeDirs(mount() + "/d2/child");  // a child directory stays on its parent's MDT
  EXPECT_EQ(Lfs({"getdirstripe", "-m", mount() + "/d2/child"}).out, "2\n");
  WriteFile(mount() + "/d1/on3/file", "x");
  EXPECT_EQ(Lfs({"getstripe", "-m", mount() + "/d1/on3/file"}).out, "3\n");
  Fid file = PathFid("d1/on3/file");
  Fid on3 = PathFid("d1/on3");

  std::map<std::string, std::vector<int>> where;  // "TYPE name" -> MDTs holding it
  for (int mdt = 0; mdt < 4; ++mdt) {
    for (const auto& r : Changelog(mdt)) {
      where[std::string(*lustre::RecordTypeName(r.type)) + " " + r.name].push_back(mdt);
    }
  }
  EXPECT_THAT(where["MKDIR d0"], ::testing::ElementsAre(0));
  EXPECT_THAT(where["MKDIR d3"], ::testing::ElementsAre(0));  // namespace records: parent's MDT
  EXPECT_THAT(where["MKDIR on3"], ::testing::ElementsAre(1));
  EXPECT_THAT(where["MKDIR child"], ::testing::ElementsAre(2));
  EXPECT_THAT(where["CREAT file"], ::testing::ElementsAre(3));
  for (const auto& r : Changelog(3)) {
    if (r.type == CL_CREATE) {
      EXPECT_EQ(r.tfid, file);
      EXPECT_EQ(r.pfid, on3);
    }
  }
  // Wrong index: Lustre's message and errno.
  auto bad = Lfs({"mkdir", "-i", "7", mount() + "/d1/nowhere"});
  EXPECT_EQ(bad.exit_code, EINVAL);
  EXPECT_THAT(bad.err, ::testing::HasSubstr("lfs setdirstripe: cannot create dir"));
}

TEST_F(SimRecordsTest, HardLinksShareOneFidAndFid2pathListsEveryLink) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  RegisterEverywhere(1);
  MakeDirs(mount() + "/a");
  MakeDirs(mount() + "/b");
  WriteFile(mount() + "/a/f", "x");
  ASSERT_EQ(link((mount() + "/a/f").c_str(), (mount() + "/b/g").c_str()), 0);
  struct stat s1{}, s2{};
  ASSERT_EQ(stat((mount() + "/a/f").c_str(), &s1), 0);
  ASSERT_EQ(stat((mount() + "/b/g").c_str(), &s2), 0);
  EXPECT_EQ(s1.st_ino, s2.st_ino);
  EXPECT_EQ(s1.st_nlink, 2u);
  Fid fid = PathFid("a/f");
  EXPECT_EQ(PathFid("b/g"), fid);
  auto byname = Lfs({"fid2path", "testfs", lustre::FormatFid(fid)});
  EXPECT_EQ(byname.out, "a/f\nb/g\n");
  auto bymount = Lfs({"fid2path", mount(), lustre::FormatFid(fid)});
  EXPECT_EQ(bymount.out, mount() + "/a/f\n" + mount() + "/b/g\n");
  EXPECT_EQ(Lfs({"fid2path", "-l", "1", "testfs", lustre::FormatFid(fid)}).out, "b/g\n");
  EXPECT_EQ(Lfs({"fid2path", "testfs", lustre::FormatFid(kRootFid)}).out, "/\n");
  auto records = Changelog(0);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(*lustre::RecordTypeName(records.back().type), "HLINK");
  EXPECT_EQ(records.back().tfid, fid);
  EXPECT_EQ(records.back().name, "g");
  ASSERT_EQ(unlink((mount() + "/a/f").c_str()), 0);
  ASSERT_EQ(unlink((mount() + "/b/g").c_str()), 0);
  auto gone = Lfs({"fid2path", "testfs", lustre::FormatFid(fid)});
  EXPECT_EQ(gone.exit_code, ENOENT);
  EXPECT_EQ(gone.err, "lfs fid2path: cannot find testfs " + lustre::FormatFid(fid) + ": No such file or directory\n");
  records = Changelog(0);
  ASSERT_GE(records.size(), 2u);
  EXPECT_EQ(records[records.size() - 2].flags & CLF_UNLINK_LAST, 0);
  EXPECT_EQ(records.back().flags & CLF_UNLINK_LAST, CLF_UNLINK_LAST);
}

// A shell redirection and dd close a duplicate of the file before writing through the other
// descriptor: the close comes at the last one, after the write, as Lustre sends it.
TEST_F(SimRecordsTest, ShellRedirectionAndDdLogCreatMtimeCloseInThatOrder) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  RegisterEverywhere(1);
  auto echoed = testing::Run({"/bin/sh", "-c", "echo hi > " + mount() + "/echoed"});
  ASSERT_EQ(echoed.exit_code, 0) << echoed.err;
  auto dd = testing::Run({"/bin/dd", "if=/dev/zero", "of=" + mount() + "/dd", "bs=3", "count=1"});
  ASSERT_EQ(dd.exit_code, 0) << dd.err;
  auto records = Changelog(0);
  ASSERT_THAT(TypeNames(records),
              ::testing::ElementsAre("CREAT", "MTIME", "CLOSE", "CREAT", "MTIME", "CLOSE"));
  EXPECT_EQ(records[0].name, "echoed");
  EXPECT_EQ(records[1].tfid, records[0].tfid);
  EXPECT_EQ(records[2].tfid, records[0].tfid);
  EXPECT_EQ(records[3].name, "dd");
  EXPECT_EQ(records[4].tfid, records[3].tfid);
  EXPECT_EQ(records[5].tfid, records[3].tfid);
}

// Lustre's MDT names the parent (p=) only in a setattr that changes a regular file's mtime,
// and names its oldest link's; fid2path lists the links oldest first (the link EA order).
TEST_F(SimRecordsTest, OnlyMtimeSetattrsOfFilesCarryTheOldestLinksParent) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  MakeDirs(mount() + "/w/z");
  WriteFile(mount() + "/w/z/f1.txt", "x");
  ASSERT_EQ(link((mount() + "/w/z/f1.txt").c_str(), (mount() + "/w/hl.txt").c_str()), 0);
  const Fid file = PathFid("w/z/f1.txt");
  const Fid z = PathFid("w/z");
  const Fid w = PathFid("w");
  RegisterEverywhere(1);
  ASSERT_EQ(chmod((mount() + "/w/z/f1.txt").c_str(), 0600), 0);         // SATTR
  ASSERT_EQ(utimes((mount() + "/w/hl.txt").c_str(), nullptr), 0);       // MTIME
  ASSERT_EQ(truncate((mount() + "/w/hl.txt").c_str(), 0), 0);           // TRUNC
  ASSERT_EQ(utimes((mount() + "/w").c_str(), nullptr), 0);              // MTIME of a directory
  auto records = Changelog(0);
  ASSERT_THAT(TypeNames(records), ::testing::ElementsAre("SATTR", "MTIME", "TRUNC", "MTIME"));
  EXPECT_EQ(records[0].tfid, file);
  EXPECT_TRUE(records[0].pfid.zero()) << lustre::FormatFid(records[0].pfid);
  EXPECT_EQ(records[1].pfid, z);
  EXPECT_EQ(records[2].pfid, z);
  EXPECT_EQ(records[3].tfid, w);
  EXPECT_TRUE(records[3].pfid.zero()) << lustre::FormatFid(records[3].pfid);
  auto paths = Lfs({"fid2path", "testfs", lustre::FormatFid(file)});
  ASSERT_EQ(paths.exit_code, 0) << paths.err;
  EXPECT_EQ(paths.out, "w/z/f1.txt\nw/hl.txt\n");
  // A renamed link becomes the newest.
  Rename(mount() + "/w/z/f1.txt", mount() + "/w/z/f2.txt");
  EXPECT_EQ(Lfs({"fid2path", "testfs", lustre::FormatFid(file)}).out, "w/hl.txt\nw/z/f2.txt\n");
}

// A stock Lustre client has jobid_var=disable: its records carry no j= at all.
TEST_F(SimRecordsTest, DefaultJobidVarIsDisableSoRecordsCarryNoJobid) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  RegisterEverywhere(1);
  EXPECT_EQ(Lctl({"get_param", "jobid_var"}).out, "jobid_var=disable\n");
  WriteFile(mount() + "/f", "x");
  auto text = Lfs({"changelog", "testfs-MDT0000"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, ::testing::Not(::testing::HasSubstr(" j=")));
  auto records = Changelog(0);
  ASSERT_FALSE(records.empty());
  for (const auto& r : records) EXPECT_FALSE(r.has_jobid) << r.index;
}

TEST_F(SimRecordsTest, JobidVarProcnameUidGivesCommandDotUid) {
  ASSERT_EQ(Mount(1, {"--jobid-var", "procname_uid"}).exit_code, 0);
  RegisterEverywhere(1);
  auto touched = testing::Run({"/usr/bin/touch", mount() + "/f"});
  ASSERT_EQ(touched.exit_code, 0) << touched.err;
  auto records = Changelog(0);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records[0].jobid, "touch." + std::to_string(getuid()));
}

TEST_F(SimRecordsTest, JobidComesFromTheVariableNamedByJobidVar) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  RegisterEverywhere(1);
  auto set = Lctl({"set_param", "jobid_var=MYJOB"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(set.out, "jobid_var=MYJOB\n");
  EXPECT_EQ(Lctl({"get_param", "jobid_var"}).out, "jobid_var=MYJOB\n");
  auto touched = testing::Run({"/usr/bin/env", "MYJOB=job-42", "/usr/bin/touch", mount() + "/withjob"});
  ASSERT_EQ(touched.exit_code, 0) << touched.err;
  auto plain = testing::Run({"/usr/bin/env", "-u", "MYJOB", "/usr/bin/touch", mount() + "/nojob"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  std::map<std::string, std::string> jobs;
  for (const auto& r : Changelog(0)) {
    if (r.type == CL_CREATE) jobs[r.name] = r.jobid;
  }
  EXPECT_EQ(jobs["withjob"], "job-42");
  EXPECT_EQ(jobs["nojob"], "touch." + std::to_string(getuid()));  // jobid_name's %e.%u
}

TEST_F(SimRecordsTest, ClearingByOneUserKeepsRecordsForTheOther) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  auto r1 = Lctl({"--device", "testfs-MDT0000", "changelog_register"});
  auto r2 = Lctl({"--device", "testfs-MDT0000", "changelog_register"});
  EXPECT_EQ(r1.out, "testfs-MDT0000: Registered changelog userid 'cl1'\n");
  EXPECT_EQ(r2.out, "testfs-MDT0000: Registered changelog userid 'cl2'\n");
  for (int i = 0; i < 3; ++i) MakeDirs(mount() + "/dir" + std::to_string(i));
  auto before = Changelog(0);
  ASSERT_EQ(before.size(), 3u);
  auto cleared = Lfs({"changelog_clear", "testfs-MDT0000", "cl1", std::to_string(before.back().index)});
  ASSERT_EQ(cleared.exit_code, 0) << cleared.err;
  EXPECT_EQ(Changelog(0).size(), 3u) << "cl2 has not cleared: records stay";
  auto users = Lctl({"get_param", "-n", "mdd.testfs-MDT0000.changelog_users"});
  EXPECT_THAT(users.out, ::testing::HasSubstr("current_index: " + std::to_string(before.back().index)));
  EXPECT_THAT(users.out, ::testing::ContainsRegex("cl1 +" + std::to_string(before.back().index) + " \\("));
  ASSERT_EQ(Lfs({"changelog_clear", "testfs-MDT0000", "cl2", "0"}).exit_code, 0);
  EXPECT_TRUE(Changelog(0).empty());
  auto nouser = Lfs({"changelog_clear", "testfs-MDT0000", "cl9", "0"});
  EXPECT_EQ(nouser.exit_code, ENOENT);
  EXPECT_EQ(nouser.err, "changelog_clear: no changelog user: cl9\n");
  auto dereg = Lctl({"--device", "testfs-MDT0000", "changelog_deregister", "cl1"});
  EXPECT_EQ(dereg.out, "testfs-MDT0000: Deregistered changelog user #1\n");
}

TEST_F(SimRecordsTest, MaskDecidesWhichRecordsAreLogged) {
  ASSERT_EQ(Mount(1).exit_code, 0);
  RegisterEverywhere(1);
  auto set = Lctl({"set_param", "mdd.testfs-MDT0000.changelog_mask=+OPEN"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  auto mask = Lctl({"get_param", "mdd.*.changelog_mask"});
  EXPECT_THAT(mask.out, ::testing::StartsWith("mdd.testfs-MDT0000.changelog_mask=MARK CREAT MKDIR"));
  EXPECT_THAT(mask.out, ::testing::HasSubstr(" OPEN "));
  WriteFile(mount() + "/f", "x");
  ASSERT_EQ(chmod((mount() + "/f").c_str(), 0600), 0);
  ASSERT_EQ(truncate((mount() + "/f").c_str(), 0), 0);
  ASSERT_EQ(setxattr((mount() + "/f").c_str(), "user.k", "v", 1, 0), 0);
  auto records = Changelog(0);
  EXPECT_THAT(TypeNames(records),
              ::testing::ElementsAre("CREAT", "OPEN", "MTIME", "CLOSE", "SATTR", "TRUNC", "XATTR"));
  EXPECT_EQ(records[4].flags, 0x14);  // LA_MODE|LA_CTIME
  EXPECT_EQ(records[6].xattr, "user.k");
  auto bad = Lctl({"set_param", "mdd.testfs-MDT0000.changelog_mask=NOPE"});
  EXPECT_EQ(bad.exit_code, EINVAL);
}

}  // namespace
}  // namespace fathom::testing
