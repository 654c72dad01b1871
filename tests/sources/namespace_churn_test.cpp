// Convergence under concurrent namespace churn: three processes reshape a watched tree at random
// (nested mkdir -p, file creation, renames of populated directories across levels, files moved
// between directories, rm -rf), and replaying the source's events from the empty tree must
// rebuild the real final tree exactly — with both backends, several seeds, and with a kernel
// queue so small that inotify overflows (OVERFLOW and the reconciling rescan must converge).
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sources/source_test_util.h"
#include "support/namespace_churn.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

constexpr int kWorkers = 3;

struct ChurnCase {
  std::string backend;  // "inotify" or "fanotify"
  uint64_t seed;
  size_t queue_events;  // fs.inotify.max_queued_events for the source, 0: the system's
};

void PrintTo(const ChurnCase& c, std::ostream* os) {
  *os << c.backend << ", seed " << c.seed << ", queue " << c.queue_events;
}

std::string CaseName(const ::testing::TestParamInfo<ChurnCase>& info) {
  return info.param.backend + "_seed" + std::to_string(info.param.seed) +
         (info.param.queue_events != 0 ? "_queue" + std::to_string(info.param.queue_events) : "");
}

// Sets fs.inotify.max_queued_events for as long as it lives (an inotify instance keeps the
// value it was created with).
class QueueLimit {
 public:
  explicit QueueLimit(size_t events) {
    if (events == 0) return;
    std::ifstream("/proc/sys/fs/inotify/max_queued_events") >> saved_;
    std::ofstream out("/proc/sys/fs/inotify/max_queued_events");
    out << events;
    out.flush();
    set_ = out.good();
  }
  // Whether the limit could be set (root only).
  bool set() const { return set_; }
  ~QueueLimit() {
    if (saved_ != 0) std::ofstream("/proc/sys/fs/inotify/max_queued_events") << saved_;
  }

 private:
  size_t saved_ = 0;
  bool set_ = false;
};

class NamespaceChurn : public ::testing::TestWithParam<ChurnCase> {};

TEST_P(NamespaceChurn, ReplayingTheStreamRebuildsTheFinalTree) {
  const ChurnCase& c = GetParam();
  if (c.backend == "fanotify" && geteuid() != 0) GTEST_SKIP() << "fanotify needs root";
  TempDir dir;
  std::unique_ptr<SourceWatcher> w;
  if (c.backend == "fanotify") {
    w = std::make_unique<FanWatcher>(std::vector<std::string>{dir.path()});
  } else {
    w = std::make_unique<Watcher>(std::vector<std::string>{dir.path()});
  }
  {
    QueueLimit limit(c.queue_events);
    if (c.queue_events != 0 && !limit.set())
      GTEST_SKIP() << "setting fs.inotify.max_queued_events needs root";
    ASSERT_TRUE(w->Start().ok());
  }
  if (c.queue_events != 0) {
    // More events than the queue holds before anything reads it: the overflow is certain, not
    // a matter of how fast the reader happens to be.
    std::filesystem::create_directory(dir.path() + "/before");
    for (size_t i = 0; i < 2 * c.queue_events; ++i)
      std::ofstream(dir.path() + "/before/f" + std::to_string(i)) << i;
  }
  // Workers are forked before the draining thread exists, and start once it runs.
  int start[2];
  ASSERT_EQ(pipe(start), 0);
  std::vector<pid_t> workers;
  for (int i = 0; i < kWorkers; ++i) {
    workers.push_back(StartNamespaceChurn(
        dir.path(), ChurnOptions{.seed = c.seed * 1000 + static_cast<uint64_t>(i),
                                 .operations = 4000,
                                 .max_depth = 4,
                                 .start_fd = start[0]}));
  }
  w->StartBackground();
  const std::string go(kWorkers, 'g');
  ASSERT_EQ(write(start[1], go.data(), go.size()), static_cast<ssize_t>(go.size()));
  close(start[0]);
  close(start[1]);
  for (pid_t pid : workers) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // The tree is final now: wait until the stream has been quiet for a second.
  size_t seen = 0;
  auto last_change = std::chrono::steady_clock::now();
  const auto deadline = last_change + 60s;
  while (std::chrono::steady_clock::now() < deadline &&
         std::chrono::steady_clock::now() - last_change < 1s) {
    std::this_thread::sleep_for(50ms);
    const size_t n = w->Snapshot().size();
    if (n != seen) {
      seen = n;
      last_change = std::chrono::steady_clock::now();
    }
  }
  w->StopBackground();
  const std::vector<Event> events = w->Snapshot();
  const std::set<std::string> real = RealTree(dir.path());
  const std::set<std::string> replayed = Replay({}, events);
  if (const char* dump = getenv("CHURN_DUMP"); dump != nullptr && replayed != real) {
    std::ofstream f(dump);
    for (const auto& e : events)
      f << KindNames(e.mask) << " " << e.cookie << " " << RelativePath(e.root, e.path) << "\n";
  }
  size_t overflows = 0;
  for (const auto& e : events) overflows += (e.mask & kind::kOverflow) != 0;
  EXPECT_EQ(replayed, real) << events.size() << " events, " << overflows << " overflows, "
                            << real.size() << " entries in the final tree\n"
                            << TreeDifferences(real, replayed);
  if (c.queue_events != 0) {
    EXPECT_GT(overflows, 0u) << "the small queue was meant to overflow";
  }
}

// Under the sanitizers (several times slower) fewer seeds run; the release build runs them all.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FATHOM_CHURN_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(FATHOM_CHURN_SANITIZED)
INSTANTIATE_TEST_SUITE_P(Backends, NamespaceChurn,
                         ::testing::Values(ChurnCase{"inotify", 1, 0}, ChurnCase{"inotify", 5, 64},
                                           ChurnCase{"fanotify", 1, 0}),
                         CaseName);
#else
INSTANTIATE_TEST_SUITE_P(Backends, NamespaceChurn,
                         ::testing::Values(ChurnCase{"inotify", 1, 0}, ChurnCase{"inotify", 2, 0},
                                           ChurnCase{"inotify", 3, 0}, ChurnCase{"inotify", 4, 0},
                                           ChurnCase{"inotify", 5, 64}, ChurnCase{"inotify", 6, 64},
                                           ChurnCase{"fanotify", 1, 0}, ChurnCase{"fanotify", 2, 0},
                                           ChurnCase{"fanotify", 3, 0}),
                         CaseName);
#endif

}  // namespace
}  // namespace fathom::testing
