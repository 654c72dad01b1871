// No loss under load: two processes run 100,000 create/write/close/unlink cycles each in the
// watched directory while the test thread drains the source; every CREATE and DELETE must be
// reported exactly once, and the kernel queue must never overflow.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>

#include "sources/source_test_util.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

constexpr int kProcs = 2;
constexpr int kCyclesPerProc = 100'000;

double ThreadCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Index of "p<proc>-<i>" in [0, kProcs * kCyclesPerProc), or -1.
int NameIndex(std::string_view name) {
  int proc = 0;
  int i = 0;
  if (name.size() < 4 || name[0] != 'p') return -1;
  auto dash = name.find('-');
  if (dash == std::string_view::npos) return -1;
  if (std::from_chars(name.data() + 1, name.data() + dash, proc).ec != std::errc()) return -1;
  if (std::from_chars(name.data() + dash + 1, name.data() + name.size(), i).ec != std::errc())
    return -1;
  if (proc < 0 || proc >= kProcs || i < 0 || i >= kCyclesPerProc) return -1;
  return proc * kCyclesPerProc + i;
}

TEST(InotifyNoLoss, EveryCreateAndDeleteOfTwoHundredThousandCyclesIsReported) {
  TempDir dir;
  Watcher w({dir.path()}, /*recursive=*/true, kind::kDefault);
  ASSERT_TRUE(w.Start().ok());
  constexpr int kTotal = kProcs * kCyclesPerProc;
  std::vector<uint8_t> created(kTotal, 0);
  std::vector<uint8_t> deleted(kTotal, 0);
  uint64_t creates = 0;
  uint64_t deletes = 0;
  uint64_t all_events = 0;
  uint64_t bad = 0;
  const std::string prefix = dir.path() + "/";

  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = ThreadCpuSeconds();
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) kids.push_back(StartCreateDeleteCycles(dir.path(), p, kCyclesPerProc));
  // This thread drains the source as the pipeline's reader thread does, with the same raised
  // CPU priority (when permitted; set after forking so that the generators keep theirs).
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), -10);
  int running = kProcs;
  std::vector<Event> batch;
  const auto deadline = t0 + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(w.source().Wait(std::chrono::milliseconds(50)).ok());
    batch.clear();
    ASSERT_TRUE(w.source().Drain(batch).ok());
    all_events += batch.size();
    for (const auto& e : batch) {
      const bool create = e.mask == kind::kCreate;
      const bool del = e.mask == kind::kDelete;
      if (!create && !del) continue;
      int idx = e.path.starts_with(prefix)
                    ? NameIndex(std::string_view(e.path).substr(prefix.size()))
                    : -1;
      if (idx < 0) {
        ++bad;
        continue;
      }
      auto& seen = create ? created[idx] : deleted[idx];
      if (seen++ != 0) ++bad;
      ++(create ? creates : deletes);
    }
    for (auto& pid : kids) {
      int status = 0;
      if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        pid = -1;
        --running;
      }
    }
    if (running == 0 && creates == kTotal && deletes == kTotal) break;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = ThreadCpuSeconds() - cpu0;
  for (pid_t pid : kids) {
    if (pid > 0) waitpid(pid, nullptr, 0);
  }
  const SourceStats stats = w.source().Stats();
  EXPECT_EQ(stats.overflows, 0u) << "the source fell behind the kernel queue";
  EXPECT_EQ(creates, static_cast<uint64_t>(kTotal));
  EXPECT_EQ(deletes, static_cast<uint64_t>(kTotal));
  EXPECT_EQ(bad, 0u) << "unexpected names or duplicates";
  // The wall-clock rate is the generators'; the draining thread's CPU time per event bounds
  // what the source itself can sustain.
  std::printf(
      "inotify source: %llu events in %.2f s = %.0f events/s (%.0f cycles/s); "
      "draining thread CPU %.2f s = %.0f events per CPU second\n",
      static_cast<unsigned long long>(all_events), seconds, all_events / seconds, kTotal / seconds,
      cpu, all_events / cpu);
}

}  // namespace
}  // namespace fathom::testing
