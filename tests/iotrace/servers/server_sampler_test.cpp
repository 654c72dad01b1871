// ServerSampler with an lctl that prints canned server texts, one set per call (a shell
// script standing for a Lustre server, which cannot run here), and canned /proc files: the
// first read is the baseline, later reads give what grew, a counter that went down gives its
// new value, a job seen for the first time gives its counters, brw_stats rows become
// counters, and a missing lctl is a problem that says what to do.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>

#include "fathom/io_servers.h"
#include "support/temp_dir.h"

namespace fathom::io {
namespace {

class ServerSamplerTest : public ::testing::Test {
 protected:
  // An lctl printing reads/N.txt on its Nth call (1, 2, ...).
  std::string FakeLctl(const std::vector<std::string>& reads) {
    for (size_t i = 0; i < reads.size(); ++i)
      std::ofstream(t_ / ("read" + std::to_string(i + 1) + ".txt")) << reads[i];
    const std::string script = t_ / "lctl";
    std::ofstream(script) << "#!/bin/sh\n"
                             "n=$(cat " +
                                 (t_ / "calls") +
                                 " 2>/dev/null || echo 0); n=$((n + 1)); echo $n > " +
                                 (t_ / "calls") + "\ncat " + t_.path() + "/read$n.txt\n";
    chmod(script.c_str(), 0755);
    return script;
  }
  // (target, job, counter) -> (samples, sum)
  static std::map<std::tuple<std::string, std::string, std::string>, std::pair<uint64_t, uint64_t>>
  ByKey(const SampleRead& read) {
    std::map<std::tuple<std::string, std::string, std::string>, std::pair<uint64_t, uint64_t>> out;
    for (const auto& s : read.samples) out[{s.target, s.job, s.counter}] = {s.samples, s.sum};
    return out;
  }
  testing::TempDir t_;
};

std::string JobStats(uint64_t a_samples, uint64_t a_sum, bool with_b) {
  std::string text =
      "obdfilter.fs-OST0000.job_stats=\njob_stats:\n- job_id:          a.0\n"
      "  snapshot_time:   100.000000000 secs.nsecs\n  start_time:      50.000000000 secs.nsecs\n"
      "  write_bytes:     { samples: " +
      std::to_string(a_samples) + ", unit: bytes, min: 1, max: 9, sum: " + std::to_string(a_sum) +
      ", sumsq: 1 }\n";
  if (with_b)
    text +=
        "- job_id:          b.0\n  snapshot_time:   100.000000000 secs.nsecs\n"
        "  read_bytes:      { samples: 2, unit: bytes, min: 1, max: 9, sum: 10, sumsq: 1 }\n";
  return text;
}

TEST_F(ServerSamplerTest, GrowthResetsAndNewJobsAreCountedAsTheyShouldBe) {
  SamplerOptions options;
  options.lctl = FakeLctl(
      {JobStats(5, 100, false) + "obdfilter.fs-OST0000.stats=\nsnapshot_time 1.0 secs.nsecs\n"
                                 "write_bytes 5 samples [bytes] 1 9 100 1\n",
       JobStats(8, 160, true) + "obdfilter.fs-OST0000.stats=\nsnapshot_time 2.0 secs.nsecs\n"
                                "write_bytes 8 samples [bytes] 1 9 160 1\n",
       JobStats(2, 30, true) + "obdfilter.fs-OST0000.stats=\nsnapshot_time 3.0 secs.nsecs\n"
                               "write_bytes 1 samples [bytes] 1 9 20 1\n"});
  options.diskstats = "";
  options.mountstats = "";
  ServerSampler sampler(options);
  SampleRead first = sampler.Read();
  EXPECT_TRUE(first.problems.empty()) << first.problems[0];
  EXPECT_TRUE(first.samples.empty()) << "the first read is the baseline";

  auto second = ByKey(sampler.Read());
  using K = std::tuple<std::string, std::string, std::string>;
  using V = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(second.at(K("fs-OST0000", "a.0", "write_bytes")), V(3, 60));
  EXPECT_EQ(second.at(K("fs-OST0000", "b.0", "read_bytes")), V(2, 10)) << "a new job counts whole";
  EXPECT_EQ(second.at(K("fs-OST0000", "", "write_bytes")), V(3, 60));
  EXPECT_EQ(second.size(), 3u);

  auto third = ByKey(sampler.Read());
  EXPECT_EQ(third.at(K("fs-OST0000", "a.0", "write_bytes")), V(2, 30))
      << "a reset counts its new value";
  EXPECT_EQ(third.at(K("fs-OST0000", "", "write_bytes")), V(1, 20));
  EXPECT_EQ(third.count(K("fs-OST0000", "b.0", "read_bytes")), 0u) << "no growth, no sample";
}

TEST_F(ServerSamplerTest, BrwStatsRowsBecomeCountersAndLocalFilesAreRead) {
  const std::string brw_header =
      "obdfilter.fs-OST0001.brw_stats=\nsnapshot_time:         1.0 (secs.nsecs)\n\n"
      "                           read      |     write\n"
      "pages per bulk r/w     rpcs  % cum % |  rpcs        % cum %\n";
  SamplerOptions options;
  options.lctl = FakeLctl({brw_header + "256:\t\t         1  50  50   |    4  100 100\n",
                           brw_header + "256:\t\t         3  75  75   |    4  100 100\n"});
  std::ofstream(t_ / "diskstats") << "   8 0 sda 10 0 80 5 4 0 16 2 0 7 7\n";
  options.diskstats = t_ / "diskstats";
  options.mountstats = "";
  ServerSampler sampler(options);
  SampleRead first = sampler.Read();
  ASSERT_TRUE(first.problems.empty()) << first.problems[0];
  std::ofstream(t_ / "diskstats") << "   8 0 sda 12 0 88 9 4 0 16 2 0 7 7\n";
  auto second = ByKey(sampler.Read());
  using K = std::tuple<std::string, std::string, std::string>;
  using V = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(second.at(K("fs-OST0001", "", "read pages per bulk r/w 256")), V(2, 2));
  EXPECT_EQ(second.count(K("fs-OST0001", "", "write pages per bulk r/w 256")), 0u);
  EXPECT_EQ(second.at(K("disk:sda", "", "read_bytes")), V(2, 8 * 512));
  EXPECT_EQ(second.at(K("disk:sda", "", "read")), V(2, 4000));
}

TEST_F(ServerSamplerTest, AMissingLctlIsAProblemThatNamesTheWayOut) {
  SamplerOptions options;
  options.lctl = t_ / "no-lctl";
  options.diskstats = "";
  options.mountstats = t_ / "no-mountstats";
  ServerSampler sampler(options);
  const SampleRead read = sampler.Read();
  ASSERT_EQ(read.problems.size(), 2u);
  EXPECT_EQ(read.problems[0],
            "cannot run " + options.lctl +
                ": No such file or directory (give --lctl PATH, or --lctl '' to read local "
                "statistics only)");
  EXPECT_EQ(read.problems[1], "cannot read " + options.mountstats + ": No such file or directory");
}

}  // namespace
}  // namespace fathom::io
