// -t ends `fathom subscribe` and `fathom collect` also while nothing answers at the far end
// (an aggregator or a NATS bus that is down), with exit code 1 and a message naming it.
#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>

#include "support/nats_server.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

using namespace std::chrono_literals;

// Generous: without the time limit honoured these commands would run on for a minute or more.
constexpr auto kMustEndWithin = 30s;

std::string NobodyAt(const std::string& scheme) { return scheme + "://127.0.0.1:" + std::to_string(FreePorts(1)[0]); }

// Runs argv; a child still running after kMustEndWithin is killed (exit code 137).
RunResult RunBounded(std::vector<std::string> argv) {
  Subprocess p(std::move(argv));
  RunResult r;
  for (const auto& line : p.ReadAllLines(kMustEndWithin)) r.out += line + "\n";
  p.Signal(SIGKILL);  // no effect on a child that closed its output by exiting
  r.exit_code = p.Wait();
  r.err = p.stderr_text();
  return r;
}

size_t CountLines(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(TimeLimitTest, SubscribeEndsAtItsTimeLimitWhenNoAggregatorAnswers) {
  const std::string endpoint = NobodyAt("tcp");
  auto run = RunBounded({FathomBinary(), "subscribe", "--from", endpoint, "--insecure", "-t", "1"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("fathom subscribe: the aggregator at " + endpoint +
                         " did not answer within the time limit (-t 1 s)"),
            std::string::npos)
      << run.err;
}

TEST(TimeLimitTest, CollectEndsAtItsTimeLimitWhenNoAggregatorAnswers) {
  TempDir dir;
  const std::string endpoint = NobodyAt("tcp");
  auto run = RunBounded({FathomBinary(), "collect", "-r", dir.path(), "--to", endpoint, "--insecure", "--name",
                         "tree", "-t", "1"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("fathom collect: the time limit (-t 1 s) passed before " + endpoint + " took every event"),
            std::string::npos)
      << run.err;
}

TEST(TimeLimitTest, NatsSubscribeEndsAtItsTimeLimitAndLogsRetriesSparingly) {
  const std::string url = NobodyAt("nats");
  auto run = RunBounded({FathomBinary(), "subscribe", "--bus", url, "-t", "2"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("fathom subscribe: the NATS bus at " + url + " did not answer within the time limit (-t 2 s)"),
            std::string::npos)
      << run.err;
  // The first failure at once, the next ones after 1 s, 3 s, 7 s...: at most 2 lines in 2 s.
  EXPECT_NE(run.err.find("retrying (1 attempt failed so far)"), std::string::npos) << run.err;
  EXPECT_LE(CountLines(run.err, "retrying"), 2u) << run.err;
}

TEST(TimeLimitTest, NatsCollectEndsAtItsTimeLimitWhenTheBusIsDown) {
  TempDir dir;
  const std::string url = NobodyAt("nats");
  auto run = RunBounded({FathomBinary(), "collect", "-r", dir.path(), "--bus", url, "--name", "tree", "-t", "1"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("fathom collect: the time limit (-t 1 s) passed before " + url + " took every event"),
            std::string::npos)
      << run.err;
  EXPECT_LE(CountLines(run.err, "retrying"), 2u) << run.err;
}

}  // namespace
}  // namespace fathom::testing
