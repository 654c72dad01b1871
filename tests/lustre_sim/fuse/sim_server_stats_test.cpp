// The emulated servers' statistics on a real fathom-lustre-sim mount, read with lctl and with
// fathom's own readers of Lustre's texts: data counted per job on the OSTs of the stripes it
// falls in, metadata on the MDT that serves it, OST objects created and destroyed with their
// file, totals in stats and md_stats, clearing, the
// injected OST delay, and lctl's errors.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "lustre/stats_text.h"
#include "sim_fixture.h"
#include "support/fs_ops.h"

namespace fathom::testing {
namespace {

using lustre::JobStatsText;
using lustre::StatsCounter;

class SimServerStatsTest : public SimMountTest {
 protected:
  void MountWith(int mdts) {
    RunResult r = Mount(mdts, {"--jobid-var", "procname_uid"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // `lctl get_param -n NAME`, which must succeed.
  std::string Param(const std::string& name) {
    RunResult r = Lctl({"get_param", "-n", name});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
  JobStatsText Jobs(const std::string& name) {
    JobStatsText t = lustre::ParseJobStats(Param(name));
    EXPECT_TRUE(t.problems.empty()) << t.problems[0].message;
    return t;
  }
  // The counter `counter` of `job` in `text`; a counter with no sample when the job is absent.
  static StatsCounter Counter(const JobStatsText& text, const std::string& job,
                              const std::string& counter) {
    for (const auto& j : text.jobs) {
      if (j.job_id == job) return j.counters.at(counter);
    }
    return {};
  }
  void Run(std::vector<std::string> argv) {
    RunResult r = fathom::testing::Run(std::move(argv));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

TEST_F(SimServerStatsTest, DataIsCountedPerJobOnTheOstsOfItsStripes) {
  MountWith(1);
  const std::string f = mount() + "/striped";
  ASSERT_EQ(Lfs({"setstripe", "-c", "4", "-S", "64K", f}).exit_code, 0);
  Run({"dd", "if=/dev/zero", "of=" + f, "bs=1M", "count=2", "conv=notrunc"});
  Run({"cat", f});

  for (int ost = 0; ost < 4; ++ost) {
    const std::string name = "obdfilter.testfs-OST000" + std::to_string(ost) + ".job_stats";
    const JobStatsText t = Jobs(name);
    // 2 MiB in 64 KiB stripes over 4 OSTs: 512 KiB on each, in whole stripe pieces.
    const StatsCounter w = Counter(t, "dd.0", "write_bytes");
    EXPECT_EQ(w.sum, 524288u) << name;
    EXPECT_EQ(w.min, 65536u);
    EXPECT_EQ(w.max, 65536u);
    EXPECT_EQ(w.samples, 8u);
    EXPECT_EQ(w.sumsq, uint64_t{8} * 65536 * 65536);
    EXPECT_EQ(w.hist, (std::vector<std::pair<std::string, uint64_t>>{{"64K", 8}}));
    EXPECT_EQ(Counter(t, "dd.0", "write").samples, 8u);
    EXPECT_EQ(Counter(t, "dd.0", "read_bytes").samples, 0u);
    EXPECT_EQ(Counter(t, "cat.0", "read_bytes").sum, 524288u);
    EXPECT_EQ(Counter(t, "cat.0", "write_bytes").samples, 0u);
  }
  // The text is 2.16's, line by line.
  const std::string text = Param("obdfilter.testfs-OST0002.job_stats");
  EXPECT_TRUE(std::regex_search(
      text,
      std::regex("\n  write_bytes:     \\{ samples:           8, unit: bytes, min:    65536, max:  "
                 "  65536, "
                 "sum:           524288, sumsq:        34359738368, hist: \\{ 64K: 8 \\} \\}\n")))
      << text;
  EXPECT_TRUE(
      std::regex_search(text, std::regex("\n  snapshot_time:   [0-9]+\\.[0-9]{9} secs\\.nsecs\n")))
      << text;

  // The OST's totals count every job.
  const lustre::LprocfsStats totals =
      lustre::ParseLprocfsStats(Param("obdfilter.testfs-OST0001.stats"));
  ASSERT_TRUE(totals.problems.empty()) << totals.problems[0].message;
  EXPECT_EQ(totals.counters.at("write_bytes").sum, 524288u);
  EXPECT_EQ(totals.counters.at("read_bytes").sum, 524288u);
  EXPECT_EQ(totals.counters.count("punch"), 0u) << "a counter without samples is not printed";
}

TEST_F(SimServerStatsTest, TruncateIsAPunchOnTheFilesOsts) {
  MountWith(1);
  const std::string f = mount() + "/one";
  ASSERT_EQ(Lfs({"setstripe", "-c", "1", "-i", "3", f}).exit_code, 0);
  Run({"truncate", "-s", "0", f});
  EXPECT_EQ(Counter(Jobs("obdfilter.testfs-OST0003.job_stats"), "truncate.0", "punch").samples, 1u);
  EXPECT_EQ(Counter(Jobs("obdfilter.testfs-OST0000.job_stats"), "truncate.0", "punch").samples, 0u);
  EXPECT_EQ(Counter(Jobs("mdt.testfs-MDT0000.job_stats"), "truncate.0", "setattr").samples, 1u);
}

TEST_F(SimServerStatsTest, AFilesObjectsAreCreatedOnItsOstsAndDestroyedWithItsLastName) {
  MountWith(1);
  const std::string f = mount() + "/two";
  ASSERT_EQ(Lfs({"setstripe", "-c", "2", "-i", "1", f}).exit_code, 0);
  Run({"ln", f, mount() + "/other-name"});
  Run({"rm", mount() + "/other-name"});
  for (const char* ost : {"OST0001", "OST0002"}) {
    const JobStatsText t = Jobs(std::string("obdfilter.testfs-") + ost + ".job_stats");
    EXPECT_EQ(Counter(t, "lfs.0", "create").samples, 1u) << ost;
    EXPECT_EQ(Counter(t, "rm.0", "destroy").samples, 0u) << ost << ": a name is left";
  }
  Run({"rm", f});
  for (const char* ost : {"OST0001", "OST0002"}) {
    EXPECT_EQ(Counter(Jobs(std::string("obdfilter.testfs-") + ost + ".job_stats"), "rm.0", "destroy")
                  .samples,
              1u)
        << ost;
  }
  const JobStatsText ost0 = Jobs("obdfilter.testfs-OST0000.job_stats");
  EXPECT_EQ(Counter(ost0, "lfs.0", "create").samples, 0u);
  EXPECT_EQ(Counter(ost0, "rm.0", "destroy").samples, 0u);

  // A file renamed over is destroyed by the rename.
  const std::string a = mount() + "/a", b = mount() + "/b";
  ASSERT_EQ(Lfs({"setstripe", "-c", "1", "-i", "3", a}).exit_code, 0);
  ASSERT_EQ(Lfs({"setstripe", "-c", "1", "-i", "0", b}).exit_code, 0);
  Run({"mv", a, b});
  EXPECT_EQ(Counter(Jobs("obdfilter.testfs-OST0000.job_stats"), "mv.0", "destroy").samples, 1u);
  EXPECT_EQ(Counter(Jobs("obdfilter.testfs-OST0003.job_stats"), "mv.0", "destroy").samples, 0u);
}

TEST_F(SimServerStatsTest, MetadataIsCountedOnTheMdtThatServesIt) {
  MountWith(2);
  ASSERT_EQ(Lfs({"mkdir", "-i", "1", mount() + "/d"}).exit_code, 0);
  const std::string d = mount() + "/d";
  Run({"mkdir", d + "/sub"});
  Run({"mknod", d + "/n", "p"});
  Run({"mv", d + "/n", d + "/m"});
  Run({"ln", d + "/m", d + "/l"});
  Run({"rm", d + "/l"});
  Run({"mv", d + "/m", mount() + "/top"});
  Run({"rmdir", d + "/sub"});

  const JobStatsText mdt1 = Jobs("mdt.testfs-MDT0001.job_stats");
  EXPECT_EQ(Counter(mdt1, "lfs.0", "mkdir").samples, 1u);
  EXPECT_EQ(Counter(mdt1, "mkdir.0", "mkdir").samples, 1u);
  EXPECT_EQ(Counter(mdt1, "mknod.0", "mknod").samples, 1u);
  EXPECT_EQ(Counter(mdt1, "ln.0", "link").samples, 1u);
  EXPECT_EQ(Counter(mdt1, "rm.0", "unlink").samples, 1u);
  EXPECT_EQ(Counter(mdt1, "rmdir.0", "rmdir").samples, 1u);
  // A rename counts on the target directory's MDT: in d, on MDT1; into the root, on MDT0.
  EXPECT_EQ(Counter(mdt1, "mv.0", "rename").samples, 1u);
  EXPECT_EQ(Counter(mdt1, "mv.0", "samedir_rename").samples, 1u);
  EXPECT_EQ(Counter(mdt1, "mv.0", "crossdir_rename").samples, 0u);
  const JobStatsText mdt0 = Jobs("mdt.testfs-MDT0000.job_stats");
  EXPECT_EQ(Counter(mdt0, "mv.0", "rename").samples, 1u);
  EXPECT_EQ(Counter(mdt0, "mv.0", "crossdir_rename").samples, 1u);
  EXPECT_EQ(Counter(mdt0, "mknod.0", "mknod").samples, 0u);

  const lustre::LprocfsStats md = lustre::ParseLprocfsStats(Param("mdt.testfs-MDT0001.md_stats"));
  ASSERT_TRUE(md.problems.empty()) << md.problems[0].message;
  EXPECT_EQ(md.counters.at("mkdir").samples, 2u);
  EXPECT_EQ(md.counters.at("unlink").samples, 1u);
  EXPECT_EQ(md.counters.at("rename").samples, 1u);
}

TEST_F(SimServerStatsTest, ADelayedOstServesItsRequestsThatMuchSlower) {
  MountWith(1);
  ASSERT_EQ(Lctl({"set_param", "obdfilter.testfs-OST0002.sim_delay_ms=50"}).exit_code, 0);
  EXPECT_EQ(Param("obdfilter.testfs-OST0002.sim_delay_ms"), "50\n");
  EXPECT_EQ(Param("obdfilter.testfs-OST0001.sim_delay_ms"), "0\n");
  ASSERT_EQ(Lfs({"setstripe", "-c", "1", "-i", "2", mount() + "/slow"}).exit_code, 0);
  ASSERT_EQ(Lfs({"setstripe", "-c", "1", "-i", "1", mount() + "/fast"}).exit_code, 0);
  Run({"dd", "if=/dev/zero", "of=" + mount() + "/slow", "bs=64k", "count=4"});
  Run({"dd", "if=/dev/zero", "of=" + mount() + "/fast", "bs=64k", "count=4"});
  const StatsCounter slow = Counter(Jobs("obdfilter.testfs-OST0002.job_stats"), "dd.0", "write");
  const StatsCounter fast = Counter(Jobs("obdfilter.testfs-OST0001.job_stats"), "dd.0", "write");
  ASSERT_EQ(slow.samples, 4u);
  ASSERT_EQ(fast.samples, 4u);
  EXPECT_GE(slow.min, 50000u);
  EXPECT_LT(fast.sum / fast.samples, 25000u);
}

TEST_F(SimServerStatsTest, ClearingEmptiesJobStatsAndBadValuesAreRefused) {
  MountWith(1);
  WriteFile(mount() + "/a", "x");
  WriteFile(mount() + "/b", "y");
  ASSERT_FALSE(Jobs("mdt.testfs-MDT0000.job_stats").jobs.empty());
  RunResult cleared = Lctl({"set_param", "mdt.*.job_stats=clear"});
  ASSERT_EQ(cleared.exit_code, 0) << cleared.err;
  EXPECT_EQ(cleared.out, "mdt.testfs-MDT0000.job_stats=clear\n");
  EXPECT_EQ(Param("mdt.testfs-MDT0000.job_stats"), "job_stats:\n");

  RunResult bad = Lctl({"set_param", "obdfilter.testfs-OST0000.sim_delay_ms=soon"});
  EXPECT_EQ(bad.exit_code, EINVAL);
  EXPECT_EQ(bad.err,
            "error: set_param: setting /proc/fs/lustre/obdfilter/testfs-OST0000/sim_delay_ms=soon: "
            "Invalid argument\n"
            "error: set_param: setting 'obdfilter/testfs-OST0000/sim_delay_ms'='soon': Invalid "
            "argument\n");
  RunResult ro = Lctl({"set_param", "obdfilter.testfs-OST0000.stats=0"});
  EXPECT_EQ(ro.exit_code, EPERM);

  RunResult listed = Lctl({"get_param", "obdfilter.*.stats"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  for (int ost = 0; ost < 4; ++ost) {
    EXPECT_NE(
        listed.out.find("obdfilter.testfs-OST000" + std::to_string(ost) + ".stats=\nsnapshot_time"),
        std::string::npos)
        << listed.out;
  }
}

}  // namespace
}  // namespace fathom::testing
