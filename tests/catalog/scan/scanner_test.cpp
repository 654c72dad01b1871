// The scanner's own guarantees, in process: chunks of wide directories, a directory's entry
// before its chunks, counters, back-pressure from a slow sink, churn during a scan, stop().
#include "catalog/scan/scanner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "catalog/scan/scan_test_trees.h"
#include "fathom/event.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::testing {
namespace {

using namespace std::chrono_literals;
using scan::ScanChunk;
using scan::Scanner;
using scan::ScanOptions;

void MakeEmptyFiles(const std::string& dir, int n) {
  MakeDirs(dir);
  for (int i = 0; i < n; ++i) {
    int fd = open((dir + "/f" + std::to_string(i)).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    close(fd);
  }
}

TEST(ScannerTest, WideDirectoryArrivesInChunksWithEveryNameOnce) {
  TempDir t;
  MakeEmptyFiles(t / "wide", 50'000);
  ScanOptions options;
  options.threads = 2;
  options.chunk_entries = 1000;
  Scanner scanner(options);
  CollectingSink sink;
  ASSERT_TRUE(scanner.Run({t / "wide"}, sink).ok());

  std::set<std::string> names;
  size_t firsts = 0, lasts = 0;
  for (const ScanChunk& c : sink.chunks) {
    EXPECT_EQ(c.path, t / "wide");
    EXPECT_LE(c.entries.size(), 1000u);
    firsts += c.first;
    lasts += c.last;
    for (const auto& e : c.entries) EXPECT_TRUE(names.insert(e.name).second) << e.name;
  }
  EXPECT_EQ(names.size(), 50'000u);
  EXPECT_GE(sink.chunks.size(), 50u);
  EXPECT_EQ(firsts, 1u);
  EXPECT_EQ(lasts, 1u);
  EXPECT_TRUE(sink.chunks.front().first);
  EXPECT_TRUE(sink.chunks.back().last);
  EXPECT_EQ(scanner.Progress().entries, 50'000u);
}

TEST(ScannerTest, DirectoryEntryReachesTheSinkBeforeTheDirectorysChunks) {
  TempDir t;
  MakeAwkwardTree(t.path());
  ScanOptions options;
  options.threads = 4;
  options.chunk_entries = 5;
  options.pending_directories = 2;  // most directories are read by the worker that found them
  Scanner scanner(options);
  CollectingSink sink;
  const int64_t before = NowNs();
  ASSERT_TRUE(scanner.Run({t.path()}, sink).ok());
  const int64_t after = NowNs();

  struct Found {
    uint64_t parent;
    std::string path;
  };
  std::map<uint64_t, Found> found;  // dir_token -> where its entry was seen
  std::set<uint64_t> finished;
  for (const ScanChunk& c : sink.chunks) {
    if (c.parent_token == 0) {
      EXPECT_EQ(c.path, t.path());
    } else {
      auto it = found.find(c.dir_token);
      ASSERT_NE(it, found.end()) << "chunk of " << c.path << " before its entry";
      EXPECT_EQ(it->second.parent, c.parent_token);
      EXPECT_EQ(it->second.path, c.path);
    }
    EXPECT_FALSE(finished.contains(c.dir_token)) << c.path << " had a chunk after its last";
    if (c.last) finished.insert(c.dir_token);
    EXPECT_GE(c.observation.time_ns, before);
    EXPECT_LE(c.observation.time_ns, after);
    for (const auto& e : c.entries) {
      EXPECT_EQ(e.dir_token != 0, S_ISDIR(e.attrs.mode)) << e.name;
      if (e.dir_token != 0) found[e.dir_token] = {c.dir_token, c.path + "/" + e.name};
    }
  }
  EXPECT_EQ(finished.size(), found.size() + 1);  // every directory, and the root, finished
}

TEST(ScannerTest, ProgressCountsEntriesDirectoriesAndBytes) {
  TempDir t;
  MakeDirs(t / "a/b");
  WriteFile(t / "a/one", std::string(1000, 'x'));
  WriteFile(t / "a/b/two", std::string(234, 'y'));
  ASSERT_EQ(symlink("one", (t / "a/ln").c_str()), 0);
  Scanner scanner(ScanOptions{.threads = 2});
  CollectingSink sink;
  ASSERT_TRUE(scanner.Run({t / "a"}, sink).ok());
  struct stat b;
  ASSERT_EQ(lstat((t / "a/b").c_str(), &b), 0);
  const scan::ScanProgress p = scanner.Progress();
  EXPECT_EQ(p.entries, 4u);           // one, b, ln, b/two
  EXPECT_EQ(p.directories_done, 2u);  // a, a/b
  EXPECT_EQ(p.directories_pending, 0u);
  EXPECT_EQ(p.errors, 0u);
  EXPECT_EQ(p.vanished, 0u);
  EXPECT_EQ(p.bytes, static_cast<uint64_t>(1000 + 234 + 3 + b.st_size));
  EXPECT_GT(p.elapsed.count(), 0);
  const auto& ln = [&]() -> const scan::ScanEntry& {
    for (const auto& c : sink.chunks)
      for (const auto& e : c.entries)
        if (e.name == "ln") return e;
    throw std::runtime_error("ln not reported");
  }();
  EXPECT_EQ(ln.attrs.symlink, "one");
  EXPECT_TRUE(S_ISLNK(ln.attrs.mode));
}

TEST(ScannerTest, RootThatIsNotAnAbsoluteDirectoryIsRefusedWithItsName) {
  TempDir t;
  WriteFile(t / "file", "");
  Scanner scanner;
  CollectingSink sink;
  Status relative = scanner.Run({"relative/dir"}, sink);
  EXPECT_FALSE(relative.ok());
  EXPECT_NE(relative.message().find("'relative/dir': give an absolute path"), std::string::npos);
  Status file = scanner.Run({t / "file"}, sink);
  EXPECT_FALSE(file.ok());
  EXPECT_NE(file.message().find("cannot scan " + t / "file"), std::string::npos) << file.message();
  EXPECT_TRUE(sink.chunks.empty());
}

// A sink that holds the scan back: workers must stop listing once the queue is full.
class SlowSink : public scan::ScanSink {
 public:
  void OnChunk(ScanChunk&&) override {
    std::this_thread::sleep_for(2ms);
    ++chunks;
  }
  void OnProblem(scan::ScanProblem&&) override {}
  std::atomic<int> chunks{0};
};

TEST(ScannerTest, SlowSinkHoldsTheWorkersBackToTheQueueBound) {
  TempDir t;
  MakeEmptyFiles(t / "wide", 1000);
  ScanOptions options;
  options.threads = 2;
  options.chunk_entries = 10;
  options.queued_chunks = 4;
  Scanner scanner(options);
  SlowSink sink;
  uint64_t worst_lead = 0;
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done) {
      const uint64_t listed = scanner.Progress().entries;
      const uint64_t consumed = static_cast<uint64_t>(sink.chunks.load()) * 10;
      if (listed > consumed) worst_lead = std::max(worst_lead, listed - consumed);
      std::this_thread::sleep_for(1ms);
    }
  });
  ASSERT_TRUE(scanner.Run({t / "wide"}, sink).ok());
  done = true;
  watcher.join();
  // Listed but not consumed: the queue (4 chunks), the batch the sink works through (4), one
  // chunk per blocked worker (2), and one of slack for the two counters' read order.
  EXPECT_LE(worst_lead, 11u * 10u);
  EXPECT_GT(worst_lead, 0u);
  EXPECT_EQ(scanner.Progress().entries, 1000u);
}

TEST(ScannerTest, StopEndsTheScanPromptlyAndSaysItIsPartial) {
  TempDir t;
  MakeEmptyFiles(t / "wide", 1000);
  ScanOptions options;
  options.threads = 2;
  options.chunk_entries = 1;
  Scanner scanner(options);
  SlowSink sink;  // 2 ms a chunk: 2 s for the whole directory
  std::chrono::steady_clock::time_point stopped_at;
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    stopped_at = std::chrono::steady_clock::now();
    scanner.Stop();
  });
  Status st = scanner.Run({t / "wide"}, sink);
  const auto returned_at = std::chrono::steady_clock::now();
  stopper.join();
  EXPECT_EQ(st.code(), std::make_error_code(std::errc::operation_canceled)) << st.message();
  EXPECT_LT(returned_at - stopped_at, 200ms);
  EXPECT_LT(sink.chunks.load(), 1000);
}

// Another process renames, creates and deletes files and directories under `dir` until killed.
pid_t StartChurn(const std::string& dir) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  for (long i = 0;; ++i) {
    const std::string a = dir + "/d" + std::to_string(i % 50);
    const std::string b = dir + "/e" + std::to_string(i % 50);
    mkdir(a.c_str(), 0755);
    for (int j = 0; j < 5; ++j)
      close(open((a + "/f" + std::to_string(j)).c_str(), O_CREAT | O_WRONLY, 0644));
    rename(a.c_str(), b.c_str());
    for (int j = 0; j < 5; ++j) unlink((b + "/f" + std::to_string(j)).c_str());
    rmdir(b.c_str());
  }
}

TEST(ScannerTest, ScanDuringRenamesCreatesAndDeletesReportsTheStablePartWhole) {
  TempDir t;
  MakeDirs(t / "churn");
  MakeAwkwardTree(t / "stable");
  std::vector<std::string> want;
  std::string err;
  ASSERT_EQ(RunRecords({"find", t / "stable", "-printf", "%p\\0"}, t.path(), want, err), 0);
  pid_t churn = StartChurn(t / "churn");
  ASSERT_GT(churn, 0);
  for (int round = 0; round < 20; ++round) {
    ScanOptions options;
    options.threads = 3;
    options.chunk_entries = 3;
    Scanner scanner(options);
    CollectingSink sink;
    ASSERT_TRUE(scanner.Run({t.path()}, sink).ok());
    EXPECT_EQ(scanner.Progress().errors, 0u);
    for (const auto& problem : sink.problems) ADD_FAILURE() << problem.message;
    std::vector<std::string> stable;
    for (const auto& c : sink.chunks) {
      for (const auto& e : c.entries) {
        const std::string p = c.path + "/" + e.name;
        if (p.starts_with(t / "stable")) stable.push_back(p);
      }
    }
    std::sort(stable.begin(), stable.end());
    EXPECT_EQ(stable, want) << "round " << round;
  }
  kill(churn, SIGKILL);
  waitpid(churn, nullptr, 0);
}

}  // namespace
}  // namespace fathom::testing
