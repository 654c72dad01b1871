// `lfs changelog` lines: printed byte for byte like lfs, read back, FSMonitor's Table I.
#include "lustre/changelog_text.h"

#include <gtest/gtest.h>

#include <vector>

#include "lustre/changelog_binary.h"

namespace fathom::lustre {
namespace {

constexpr uint64_t kTableIDay = 1552003200ull;  // 2019-03-08 00:00:00 UTC
constexpr uint64_t TableITime(uint32_t h, uint32_t m, uint32_t s, uint64_t ns) {
  return (kTableIDay + h * 3600 + m * 60 + s) * 1'000'000'000 + ns;
}
constexpr Fid F(uint32_t oid) { return Fid{0x300005716, oid, 0}; }

ChangelogRecord Rec(uint64_t index, uint32_t type, uint16_t flags, uint64_t time_ns, Fid t, Fid p,
                    std::string name) {
  ChangelogRecord r;
  r.index = index;
  r.type = type;
  r.flags = flags;
  r.time_ns = time_ns;
  r.tfid = t;
  r.pfid = p;
  r.name = std::move(name);
  return r;
}

// FSMonitor Table I, as records: create hello.txt, modify, rename, mkdir okdir, delete.
std::vector<ChangelogRecord> TableIRecords() {
  std::vector<ChangelogRecord> v;
  v.push_back(Rec(11332885, CL_CREATE, 0x0, TableITime(22, 27, 47, 308560896), F(0x626c), F(0xe7),
                  "hello.txt"));
  v.push_back(Rec(11332886, CL_MTIME, 0x7, TableITime(22, 27, 47, 327910351), F(0x626c), Fid{},
                  "hello.txt"));
  ChangelogRecord rn = Rec(11332887, CL_RENAME, 0x1, TableITime(22, 27, 47, 416587265), F(0x17a),
                           F(0xe7), "hello.txt");
  rn.has_rename = true;
  rn.sfid = F(0x626b);
  rn.spfid = F(0x626c);
  rn.sname = "hi.txt";
  v.push_back(rn);
  v.push_back(
      Rec(11332888, CL_MKDIR, 0x0, TableITime(22, 27, 47, 421587284), F(0x626d), F(0xe7), "okdir"));
  v.push_back(Rec(11332889, CL_UNLINK, 0x0, TableITime(22, 27, 47, 438587347), F(0x626b), F(0xe7),
                  "hi.txt"));
  return v;
}

// What lfs changelog prints for them (space separated, lfs.c's printf).
const std::vector<std::string> kTableILfs = {
    "11332885 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x300005716:0x626c:0x0] "
    "p=[0x300005716:0xe7:0x0] hello.txt",
    "11332886 17MTIME 22:27:47.327910351 2019.03.08 0x7 t=[0x300005716:0x626c:0x0] hello.txt",
    "11332887 08RENME 22:27:47.416587265 2019.03.08 0x1 t=[0x300005716:0x17a:0x0] "
    "p=[0x300005716:0xe7:0x0] hello.txt s=[0x300005716:0x626b:0x0] sp=[0x300005716:0x626c:0x0] "
    "hi.txt",
    "11332888 02MKDIR 22:27:47.421587284 2019.03.08 0x0 t=[0x300005716:0x626d:0x0] "
    "p=[0x300005716:0xe7:0x0] okdir",
    "11332889 06UNLNK 22:27:47.438587347 2019.03.08 0x0 t=[0x300005716:0x626b:0x0] "
    "p=[0x300005716:0xe7:0x0] hi.txt",
};

// The rows as the paper prints them: tab separated, an empty Parent FID column for MTIME,
// and the RENME spread over three lines.
const std::vector<std::string> kTableIPaper = {
    "11332885\t01CREAT\t22:27:47.308560896\t2019.03.08\t0x0\tt=[0x300005716:0x626c:0x0]\t"
    "p=[0x300005716:0xe7:0x0]\thello.txt",
    "11332886\t17MTIME\t22:27:47.327910351\t2019.03.08\t0x7\tt=[0x300005716:0x626c:0x0]\t\t"
    "hello.txt",
    "11332887\t08RENME\t22:27:47.416587265\t2019.03.08\t0x1\tt=[0x300005716:0x17a:0x0]\t"
    "p=[0x300005716:0xe7:0x0]\thello.txt\n"
    "\t\t\t\t\t\ts=[0x300005716:0x626b:0x0]\t\n"
    "\t\t\t\t\t\tsp=[0x300005716:0x626c:0x0]\thi.txt",
    "11332888\t02MKDIR\t22:27:47.421587284\t2019.03.08\t0x0\tt=[0x300005716:0x626d:0x0]\t"
    "p=[0x300005716:0xe7:0x0]\tokdir",
    "11332889\t06UNLNK\t22:27:47.438587347\t2019.03.08\t0x0\tt=[0x300005716:0x626b:0x0]\t"
    "p=[0x300005716:0xe7:0x0]\thi.txt\n",
};

ChangelogRecord Parse(std::string_view line) {
  auto r = ParseRecordText(line);
  EXPECT_TRUE(r.ok()) << line << "\n" << r.status().message();
  return r.ok() ? *r : ChangelogRecord{};
}

TEST(ChangelogText, TableIRecordsPrintExactlyAsLfs) {
  auto recs = TableIRecords();
  for (size_t i = 0; i < recs.size(); ++i) EXPECT_EQ(FormatRecordText(recs[i]), kTableILfs[i]);
}

TEST(ChangelogText, TableITabSeparatedRowsParseToTheRecords) {
  auto recs = TableIRecords();
  for (size_t i = 0; i < recs.size(); ++i) {
    EXPECT_EQ(Parse(kTableIPaper[i]), recs[i]) << kTableIPaper[i];
  }
}

TEST(ChangelogText, LfsLinesParseToTheRecords) {
  auto recs = TableIRecords();
  for (size_t i = 0; i < recs.size(); ++i) EXPECT_EQ(Parse(kTableILfs[i]), recs[i]);
  EXPECT_EQ(Parse(kTableILfs[0] + "\n"), recs[0]);
  EXPECT_EQ(Parse(kTableILfs[0] + "\r\n"), recs[0]);
}

TEST(ChangelogText, ExtensionFieldsPrintInLfsOrder) {
  ChangelogRecord r = TableIRecords()[0];
  r.has_jobid = true;
  r.jobid = "touch.0";
  r.has_extra_flags = true;
  r.extra_flags = CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR;
  r.nid = "0@lo";
  const std::string line =
      "11332885 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x300005716:0x626c:0x0] j=touch.0 "
      "ef=0xf u=0:0 nid=0@lo p=[0x300005716:0xe7:0x0] hello.txt";
  EXPECT_EQ(FormatRecordText(r), line);
  EXPECT_EQ(Parse(line), r);
}

TEST(ChangelogText, RenameWithExtensionsPrintsLikeLfs) {
  ChangelogRecord r = TableIRecords()[2];
  r.name = "hi.txt";
  r.sname = "hello.txt";
  r.sfid = F(0x626c);
  r.spfid = F(0xe7);
  r.has_jobid = true;
  r.jobid = "mv.0";
  r.has_extra_flags = true;
  r.extra_flags = CLFE_UIDGID | CLFE_NID;
  r.uid = 500;
  r.gid = 501;
  r.nid = "192.168.10.4@o2ib1";
  const std::string line =
      "11332887 08RENME 22:27:47.416587265 2019.03.08 0x1 t=[0x300005716:0x17a:0x0] j=mv.0 "
      "ef=0x3 u=500:501 nid=192.168.10.4@o2ib1 p=[0x300005716:0xe7:0x0] hi.txt "
      "s=[0x300005716:0x626c:0x0] sp=[0x300005716:0xe7:0x0] hello.txt";
  EXPECT_EQ(FormatRecordText(r), line);
  EXPECT_EQ(Parse(line), r);
}

TEST(ChangelogText, OpenModeAndXattrPrintLikeLfs) {
  ChangelogRecord r = Rec(5, CL_OPEN, 0, 0, kRootFid, Fid{}, "");
  r.has_extra_flags = true;
  r.extra_flags = CLFE_OPEN | CLFE_XATTR;
  const std::string head =
      "5 10OPEN  00:00:00.000000000 1970.01.01 0x0 t=[0x200000007:0x1:0x0] ef=0xc";
  r.open_flags = 01;
  EXPECT_EQ(FormatRecordText(r), head + " m=r--");
  r.open_flags = 01000;  // MDS_OPEN_TRUNC counts as a write
  EXPECT_EQ(FormatRecordText(r), head + " m=-w-");
  r.open_flags = 01 | 02000;
  EXPECT_EQ(FormatRecordText(r), head + " m=rw-");
  r.open_flags = 04 | 01;  // exec is exclusive
  EXPECT_EQ(FormatRecordText(r), head + " m=--x");
  r.open_flags = 0;
  EXPECT_EQ(FormatRecordText(r), head);
  r.type = CL_GETXATTR;
  r.xattr = "security.selinux";
  EXPECT_EQ(FormatRecordText(r),
            "5 23GXATR 00:00:00.000000000 1970.01.01 0x0 "
            "t=[0x200000007:0x1:0x0] ef=0xc x=security.selinux");
  EXPECT_EQ(Parse(FormatRecordText(r)), r);
  r.open_flags = 01 | 02;
  EXPECT_EQ(Parse(FormatRecordText(r)), r);
}

TEST(ChangelogText, TypeNamesArePaddedToFiveColumns) {
  ChangelogRecord r = Rec(1, CL_HSM, 0, 0, kRootFid, Fid{}, "");
  EXPECT_EQ(FormatRecordText(r).substr(0, 13), "1 16HSM   00:");
  r.type = CL_RESYNC;
  EXPECT_EQ(FormatRecordText(r).substr(0, 12), "1 22RESYNC 0");
  r.type = CL_MARK;
  EXPECT_EQ(FormatRecordText(r).substr(0, 12), "1 00MARK  00");
  r.type = 31;  // lfs passes NULL to %s: glibc prints (null)
  EXPECT_EQ(FormatRecordText(r).substr(0, 12), "1 31(null) 0");
  EXPECT_EQ(Parse(FormatRecordText(r)).type, 31u);
}

TEST(ChangelogText, EveryTypeRoundTripsThroughText) {
  for (uint32_t type = 0; type < CL_LAST; ++type) {
    ChangelogRecord r =
        Rec(type * 1000, type, static_cast<uint16_t>(type), TableITime(1, 2, 3, type),
            Fid{0x200000402, type, 0}, kRootFid, "f" + std::to_string(type));
    r.has_jobid = true;
    r.jobid = "job" + std::to_string(type);
    r.has_extra_flags = true;
    r.extra_flags = CLFE_UIDGID | CLFE_NID | CLFE_NID_BE;
    r.uid = type;
    r.gid = type + 1;
    r.nid = "10.0.0." + std::to_string(type) + "@tcp";
    EXPECT_EQ(Parse(FormatRecordText(r)), r) << FormatRecordText(r);
  }
}

TEST(ChangelogText, NamesWithSpacesSurvive) {
  ChangelogRecord r = TableIRecords()[2];
  r.name = "my new file.txt";
  r.sname = "old  name";
  EXPECT_EQ(Parse(FormatRecordText(r)), r);
  ChangelogRecord c = TableIRecords()[0];
  c.name = "a b\tc";
  EXPECT_EQ(Parse(FormatRecordText(c)), c);
}

TEST(ChangelogText, NameThatLooksLikeAFieldIsStillAName) {
  ChangelogRecord r = TableIRecords()[1];  // no parent FID, so the name follows t=
  r.name = "p=[0:0x0:0x0]";
  EXPECT_EQ(Parse(FormatRecordText(r)), r);
  r.name = "s=[0:0x0:0x1] sp=[0x1:0x1:0x0] x";  // a zero source FID is never printed
  EXPECT_EQ(Parse(FormatRecordText(r)), r);
}

TEST(ChangelogText, RenameWithEmptyNewNameKeepsBothSpaces) {
  ChangelogRecord r = TableIRecords()[2];
  r.name = "";
  const std::string line = FormatRecordText(r);
  EXPECT_NE(line.find("p=[0x300005716:0xe7:0x0]  s=["), std::string::npos) << line;
  EXPECT_EQ(Parse(line), r);
}

TEST(ChangelogText, TextAgreesWithThePackedRecord) {
  // The fields lfs reads from the struct (cr_time, cr_flags & CLF_FLAGMASK, ...) give the
  // same line as the record they were packed from.
  for (const ChangelogRecord& r : TableIRecords()) {
    const std::string bytes = PackRecord(r);
    auto back =
        UnpackRecord(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(FormatRecordText(*back), FormatRecordText(r));
  }
}

TEST(ChangelogText, EpochAndLeapDayPrintCorrectly) {
  ChangelogRecord r = Rec(0, CL_CREATE, 0, 0, kRootFid, Fid{}, "");
  EXPECT_EQ(FormatRecordText(r),
            "0 01CREAT 00:00:00.000000000 1970.01.01 0x0 t=[0x200000007:0x1:0x0]");
  r.time_ns = (951782400ull + 86399) * 1'000'000'000 + 1;  // 2000-02-29 23:59:59
  EXPECT_NE(FormatRecordText(r).find(" 23:59:59.000000001 2000.02.29 "), std::string::npos);
  EXPECT_EQ(Parse(FormatRecordText(r)), r);
}

TEST(ChangelogText, MalformedLinesAreErrorsNamingTheField) {
  const std::string good = kTableILfs[0];
  struct Case {
    std::string line;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"", "index"},
      {"Event ID\tType\tTimestamp", "index"},
      {"x1 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0]", "index"},
      {"1 01MKDIR 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0]", "type"},
      {"1 CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0]", "type"},
      {"1 01CREAT 24:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0]", "time"},
      {"1 01CREAT 22:27:47.30856089 2019.03.08 0x0 t=[0x1:0x2:0x0]", "time"},
      {"1 01CREAT 22:27:47.308560896 2019.02.29 0x0 t=[0x1:0x2:0x0]", "date"},
      {"1 01CREAT 22:27:47.308560896 1969.12.31 0x0 t=[0x1:0x2:0x0]", "date"},
      {"1 01CREAT 22:27:47.308560896 2019.03.08 0x1000 t=[0x1:0x2:0x0]", "flags"},
      {"1 01CREAT 22:27:47.308560896 2019.03.08 7 t=[0x1:0x2:0x0]", "flags"},
      {"1 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2]", "target"},
      {"1 01CREAT 22:27:47.308560896 2019.03.08 0x0", "target"},
      {"1 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0] ef=0x20", "extra flags"},
      {"1 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0] ef=0x1 x", "uid/gid"},
      {"1 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0] ef=0x1 u=1", "uid/gid"},
      {"1 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0] ef=0x2 nid=1.2.3@tcp", "nid"},
      {"1 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0] ef=0x4 m=rwx", "open mode"},
      {std::string("1 01CREAT 22:27:47.308560896 2019.03.08 0x0 t=[0x1:0x2:0x0] a") + '\0' + "b",
       "text"},
  };
  for (const Case& c : cases) {
    auto r = ParseRecordText(c.line);
    ASSERT_FALSE(r.ok()) << "accepted: " << c.line;
    EXPECT_NE(r.status().message().find(c.field), std::string::npos)
        << c.line << " -> " << r.status().message();
  }
}

TEST(ChangelogText, EveryPrefixOfALineParsesOrFailsCleanly) {
  ChangelogRecord r = TableIRecords()[2];
  r.has_jobid = true;
  r.jobid = "mv.0";
  r.has_extra_flags = true;
  r.extra_flags = CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR;
  r.nid = "10.0.0.1@tcp";
  r.open_flags = 3;
  r.xattr = "user.x";
  const std::string line = FormatRecordText(r);
  for (size_t len = 0; len <= line.size(); ++len) {
    std::vector<char> cut(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(len));
    auto res = ParseRecordText(std::string_view(cut.data(), cut.size()));
    if (res.ok()) {
      EXPECT_EQ(res->index, r.index);
    }
  }
  EXPECT_EQ(Parse(line), r);
}

}  // namespace
}  // namespace fathom::lustre
