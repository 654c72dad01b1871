// `fathom io run --publish`, `fathom io publish` and `fathom io fetch` end to end: the traces of
// real workloads reach NATS while they run, come back byte for byte and report the same; a
// server stopped and restarted during the run still gets every byte once; with no server, the
// command's exit status and the files are kept and `fathom io publish` sends them later.
#include <gtest/gtest.h>

#include <thread>

#include "bus/bus_test_util.h"
#include "fathom/io_transport.h"
#include "iotrace/traced_run.h"
#include "iotrace/transport/trace_files.h"
#include "support/nats_server.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::iotrace {
namespace {

using namespace std::chrono_literals;
using namespace testing;
using fathom::testing::FathomBinary;
using fathom::testing::NatsServers;

using fathom::testing::RunResult;
using fathom::testing::Subprocess;
using fathom::testing::TempDir;

std::vector<std::string> PublishedRun(const std::string& url, const std::string& out,
                                      const std::string& script,
                                      const std::vector<std::string>& options = {}) {
  std::vector<std::string> argv = {FathomBinary(), "io", "run",   "--publish", url,
                                   "--job",        "J",  "--out", out};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", "sh", "-c", script});
  return argv;
}

RunResult Fetch(const std::string& url, const std::string& out) {
  return fathom::testing::Run(
      {FathomBinary(), "io", "fetch", "--from", url, "--job", "J", "--out", out}, 60s);
}

std::string ReportJson(const std::string& dir) {
  RunResult report = fathom::testing::Run({FathomBinary(), "io", "report", "--json", dir});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  return report.out;
}

// The summary line's end: where the traces are and how many bytes went to `url`.
std::string Summary(const std::string& dir, uint64_t bytes, const std::string& url) {
  return "; traces in " + dir + "; " + std::to_string(bytes) + " bytes published to " + url + "\n";
}

TEST(IoTransportCli, RunPublishesEveryTraceFileAndFetchRebuildsThemByteForByte) {
  NatsServers nats;
  TempDir dir;
  const std::string script = Workload("threads_writer") + " " + dir.path() + " && " +
                             Workload("fork_writer") + " " + (dir / "parent") + " " +
                             (dir / "child");
  RunResult run =
      fathom::testing::Run(PublishedRun(nats.url(0), dir / "out", script, {"--no-compress"}), 120s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto files = FilesIn(dir / "out/J");
  ASSERT_GE(files.size(), 3u);
  uint64_t largest = 0;
  for (const auto& [name, bytes] : files) largest = std::max<uint64_t>(largest, bytes.size());
  EXPECT_GT(largest, 256u * 1024) << "a trace of several messages";
  EXPECT_NE(run.err.find(Summary(dir / "out/J", TotalBytes(files), nats.url(0))), std::string::npos)
      << run.err;

  bus::testing::StreamInspector inspect(nats.url(0));
  const uint64_t messages = inspect.Messages("FATHOM_IO");
  RunResult fetch = Fetch(nats.url(0), dir / "back");
  ASSERT_EQ(fetch.exit_code, 0) << fetch.err;
  EXPECT_EQ(fetch.out, "fathom io fetch: job J: " + std::to_string(files.size()) + " file(s), " +
                           std::to_string(TotalBytes(files)) + " bytes from " +
                           std::to_string(messages) + " message(s) written to " + (dir / "back/J") +
                           "\n");
  EXPECT_EQ(FilesIn(dir / "back/J"), files);
  EXPECT_EQ(ReportJson(dir / "back/J"), ReportJson(dir / "out/J"));
}

TEST(IoTransportCli, ServerStoppedAndRestartedDuringTheRunStillGetsEveryByteOnce) {
  NatsServers nats;
  TempDir dir;
  const std::string script = "i=0; while [ $i -lt 30 ]; do " + Workload("sizes_writer") + " " +
                             (dir / "data") + "; sleep 0.1; i=$((i+1)); done";
  Subprocess run(PublishedRun(nats.url(0), dir / "out", script, {"--quantum-ms", "100"}));
  {
    bus::testing::StreamInspector inspect(nats.url(0));
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (inspect.Messages("FATHOM_IO") == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(50ms);
    }
    ASSERT_GT(inspect.Messages("FATHOM_IO"), 0u);
  }
  nats.Kill(0);
  std::this_thread::sleep_for(1500ms);
  nats.Restart(0);
  ASSERT_EQ(run.Wait(), 0) << run.stderr_text();

  const auto files = FilesIn(dir / "out/J");
  ASSERT_GE(files.size(), 60u);  // sizes_writer and sleep, 30 times, and sh
  EXPECT_NE(run.stderr_text().find(Summary(dir / "out/J", TotalBytes(files), nats.url(0))),
            std::string::npos)
      << run.stderr_text();
  auto fetched = FetchJobTraces(nats.url(0), "J", dir / "back");
  ASSERT_TRUE(fetched.ok()) << fetched.status().message();
  EXPECT_EQ(fetched->files, files.size());
  EXPECT_EQ(fetched->bytes, TotalBytes(files));  // no range stored twice
  EXPECT_EQ(FilesIn(dir / "back"), files);
  EXPECT_EQ(ReportJson(dir / "back"), ReportJson(dir / "out/J"));
}

TEST(IoTransportCli, UnreachableServerKeepsTheExitStatusAndTheFilesForALaterPublish) {
  TempDir dir;
  const std::string nowhere =
      "nats://127.0.0.1:" + std::to_string(fathom::testing::FreePorts(1)[0]);
  const std::string script = Workload("sizes_writer") + " " + (dir / "data") + "; exit 7";
  RunResult run = fathom::testing::Run(
      PublishedRun(nowhere, dir / "out", script, {"--publish-wait", "1s"}), 60s);
  EXPECT_EQ(run.exit_code, 7) << run.err;
  const std::string job_dir = dir / "out/J";
  const auto files = FilesIn(job_dir);
  ASSERT_GE(files.size(), 2u);  // sh and sizes_writer
  EXPECT_NE(run.err.find(Summary(job_dir, 0, nowhere)), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(
                "fathom io run: error: the traces were not all published: NATS " + nowhere +
                " did not take every trace of job J in time: " + std::to_string(TotalBytes(files)) +
                " bytes of " + std::to_string(files.size()) + " file(s) are not acknowledged"),
            std::string::npos)
      << run.err;
  EXPECT_NE(
      run.err.find("; they are kept in " + job_dir + ": send them later with `fathom io publish " +
                   job_dir + " --to " + nowhere + " --job J`\n"),
      std::string::npos)
      << run.err;

  NatsServers nats;
  RunResult publish = fathom::testing::Run(
      {FathomBinary(), "io", "publish", job_dir, "--to", nats.url(0), "--job", "J"});
  ASSERT_EQ(publish.exit_code, 0) << publish.err;
  EXPECT_EQ(publish.out, "fathom io publish: job J: " + std::to_string(files.size()) +
                             " file(s), " + std::to_string(TotalBytes(files)) +
                             " bytes published in " + std::to_string(files.size()) +
                             " message(s) to " + nats.url(0) + " (0 bytes were there already)\n");
  RunResult fetch = Fetch(nats.url(0), dir / "back");
  ASSERT_EQ(fetch.exit_code, 0) << fetch.err;
  EXPECT_EQ(FilesIn(dir / "back/J"), files);

  RunResult again =
      fathom::testing::Run({FathomBinary(), "io", "publish", job_dir, "--to", nats.url(0)});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "fathom io publish: job J: " + std::to_string(files.size()) +
                           " file(s), 0 bytes published "
                           "in 0 message(s) to " +
                           nats.url(0) + " (" + std::to_string(TotalBytes(files)) +
                           " bytes were there already)\n");
}

}  // namespace
}  // namespace fathom::iotrace
