// The local statistics readers and lctl's output splitter: exact values from texts in the
// kernel's and lctl's formats, problems with their line numbers, and this machine's own
// /proc/diskstats read against /sys/block.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "iotrace/servers/lctl_output.h"
#include "iotrace/servers/local_stats_text.h"

namespace fathom::io {
namespace {

TEST(LctlOutput, OneLineAndManyLineValuesAreCutAtTheirNames) {
  const auto params = SplitLctlOutput(
      "obdfilter.testfs-OST0000.job_stats=\n"
      "job_stats:\n"
      "- job_id:          dd.0\n"
      "  write_bytes:     { samples: 1, unit: bytes, min: 4096, max: 4096, sum: 4096, sumsq: "
      "16777216 }\n"
      "obdfilter.testfs-OST0001.job_stats=\n"
      "job_stats:\n"
      "jobid_var=procname_uid\n"
      "obdfilter.testfs-OST0000.exports.10.0.0.7@tcp.stats=\n"
      "read_bytes                2 samples [bytes] 4096 4096 8192 33554432\n"
      "mdt.testfs-MDT0000.md_stats=\n"
      "snapshot_time             1.000000000 secs.nsecs\n"
      "open                      3 samples [usecs] 1 2 5 9\n");
  ASSERT_EQ(params.size(), 5u);
  EXPECT_EQ(params[0].name, "obdfilter.testfs-OST0000.job_stats");
  EXPECT_EQ(params[0].target, "testfs-OST0000");
  EXPECT_EQ(params[0].leaf, "job_stats");
  EXPECT_EQ(params[0].value,
            "job_stats:\n- job_id:          dd.0\n"
            "  write_bytes:     { samples: 1, unit: bytes, min: 4096, max: 4096, sum: 4096, sumsq: "
            "16777216 }");
  EXPECT_EQ(params[1].value, "job_stats:");
  EXPECT_EQ(params[2].name, "jobid_var");
  EXPECT_EQ(params[2].target, "");
  EXPECT_EQ(params[2].value, "procname_uid");
  EXPECT_EQ(params[3].target, "testfs-OST0000.exports.10.0.0.7@tcp");
  EXPECT_EQ(params[3].leaf, "stats");
  EXPECT_EQ(params[4].target, "testfs-MDT0000");
  EXPECT_EQ(params[4].leaf, "md_stats");
}

TEST(Diskstats, EachDeviceGivesBytesAndTimeOfItsReadsAndWrites) {
  // A 4.18+ line (15 counters after the name) and a 2.6 one (11).
  const LocalStats s = ParseDiskstats(
      "   8       0 sda 120 3 2048 40 60 1 4096 90 0 100 130 0 0 0 0\n"
      " 259       0 nvme0n1 5 0 80 7 9 0 160 11 0 12 18\n");
  ASSERT_TRUE(s.problems.empty()) << s.problems[0].message;
  ASSERT_EQ(s.targets.size(), 2u);
  const auto& sda = s.targets.at("disk:sda");
  EXPECT_EQ(sda.at("read_bytes").samples, 120u);
  EXPECT_EQ(sda.at("read_bytes").sum, 2048u * 512);
  EXPECT_EQ(sda.at("read").sum, 40000u);
  EXPECT_EQ(sda.at("write_bytes").samples, 60u);
  EXPECT_EQ(sda.at("write_bytes").sum, 4096u * 512);
  EXPECT_EQ(sda.at("write").sum, 90000u);
  EXPECT_EQ(s.targets.at("disk:nvme0n1").at("write_bytes").sum, 160u * 512);
}

TEST(Diskstats, AShortOrNonNumericLineIsAProblemWithItsNumber) {
  const LocalStats s = ParseDiskstats(
      "   8 0 sda 1 2 3\n   8 1 sda1 1 2 3 4 5 6 7 8 9 10 x\n   8 2 sda2 1 2 3 4 5 6 7 8 9 10 "
      "11\n");
  ASSERT_EQ(s.problems.size(), 2u);
  EXPECT_EQ(s.problems[0].line, 1u);
  EXPECT_EQ(s.problems[1].line, 2u);
  EXPECT_EQ(s.targets.count("disk:sda2"), 1u);
}

TEST(Diskstats, ThisMachinesDevicesAreTheOnesInSysBlock) {
  std::ifstream in("/proc/diskstats");
  std::stringstream text;
  text << in.rdbuf();
  const LocalStats s = ParseDiskstats(text.str());
  EXPECT_TRUE(s.problems.empty());
  std::set<std::string> sys;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/block")) {
    sys.insert("disk:" + entry.path().filename().string());
  }
  for (const auto& name : sys) EXPECT_EQ(s.targets.count(name), 1u) << name;
}

TEST(Mountstats, NfsMountsGiveServerBytesAndPerOperationTimes) {
  const LocalStats s = ParseMountstats(
      "device proc mounted on /proc with fstype proc\n"
      "device srv:/export mounted on /mnt/data with fstype nfs4 statvers=1.1\n"
      "\topts:\trw,vers=4.2,rsize=1048576\n"
      "\tage:\t3600\n"
      "\tbytes:\t100 200 0 0 4096 8192 1 2\n"
      "\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n"
      "\tper-op statistics\n"
      "\t        NULL: 0 0 0 0 0 0 0 0\n"
      "\t        READ: 4 4 0 512 4608 1 20 25 0\n"
      "\t       WRITE: 2 2 0 8400 272 0 30 33\n"
      "\t     GETATTR: 9 9 0 1200 2000 0 3 4\n"
      "device tmpfs mounted on /tmp with fstype tmpfs\n");
  ASSERT_TRUE(s.problems.empty()) << s.problems[0].message;
  ASSERT_EQ(s.targets.size(), 1u);
  const auto& m = s.targets.at("nfs:srv:/export");
  EXPECT_EQ(m.at("read_bytes").sum, 4096u);
  EXPECT_EQ(m.at("read_bytes").samples, 4u);
  EXPECT_EQ(m.at("write_bytes").sum, 8192u);
  EXPECT_EQ(m.at("write_bytes").samples, 2u);
  EXPECT_EQ(m.at("read").sum, 25000u);
  EXPECT_EQ(m.at("write").sum, 33000u);
  EXPECT_EQ(m.at("getattr").samples, 9u);
  EXPECT_EQ(m.at("getattr").sum, 4000u);
}

TEST(Mountstats, ABadCounterLineIsAProblemAndTheRestIsRead) {
  const LocalStats s = ParseMountstats(
      "device a:/x mounted on /a with fstype nfs statvers=1.1\n"
      "\tbytes:\t1 2 3\n"
      "\tper-op statistics\n"
      "\t        READ: 1 1 0 1 1 0 1\n"
      "\t       WRITE: 1 1 0 1 1 0 1 7\n");
  ASSERT_EQ(s.problems.size(), 2u);
  EXPECT_EQ(s.problems[0].line, 2u);
  EXPECT_EQ(s.problems[1].line, 4u);
  EXPECT_EQ(s.targets.at("nfs:a:/x").at("write").sum, 7000u);
}

}  // namespace
}  // namespace fathom::io
