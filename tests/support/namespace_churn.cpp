#include "support/namespace_churn.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <random>

namespace fathom::testing {
namespace {

constexpr const char* kDirNames[] = {"a", "b", "c", "dd"};
constexpr const char* kFileNames[] = {"f", "g", "h.txt"};

class Churn {
 public:
  Churn(const std::string& root, const ChurnOptions& options)
      : root_(root), options_(options), rng_(options.seed) {}

  void Run() {
    for (int i = 0; i < options_.operations; ++i) {
      switch (Pick(12)) {
        case 0:
        case 1:
          MakeNested();
          break;
        case 2:
        case 3:
        case 4:
          CreateFile();
          break;
        case 5:
        case 6:
          RenameDir();
          break;
        case 7:
        case 8:
          MoveFile();
          break;
        case 9:
        case 10:
          MoveFreshTree();
          break;
        default:
          RemoveTree();
          break;
      }
    }
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // A directory path below the root, `depth` levels deep (0: the root itself).
  std::string DirPath(int depth) {
    std::string p = root_;
    for (int i = 0; i < depth; ++i) {
      p += '/';
      p += kDirNames[Pick(std::size(kDirNames))];
    }
    return p;
  }
  std::string AnyDir() { return DirPath(Pick(options_.max_depth)); }
  std::string FilePath() { return AnyDir() + "/" + kFileNames[Pick(std::size(kFileNames))]; }

  void MakeNested() {
    const std::string path = DirPath(1 + Pick(options_.max_depth));
    for (size_t slash = root_.size() + 1; slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      mkdir(path.substr(0, slash).c_str(), 0755);
    }
    mkdir(path.c_str(), 0755);
    // Sometimes fill the new directory at once, before any watch can land on it.
    if (Pick(2) == 0) Write(path + "/" + kFileNames[Pick(std::size(kFileNames))]);
  }
  void CreateFile() { Write(FilePath()); }
  void Write(const std::string& path) {
    int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    (void)!write(fd, "x", 1);
    close(fd);
  }
  void RenameDir() {
    const std::string from = DirPath(1 + Pick(options_.max_depth - 1));
    std::string to_parent = AnyDir();
    // Sometimes into a directory made just now.
    if (Pick(3) == 0) {
      to_parent = DirPath(1 + Pick(options_.max_depth - 1));
      mkdir(to_parent.c_str(), 0755);
    }
    rename(from.c_str(), (to_parent + "/" + kDirNames[Pick(std::size(kDirNames))]).c_str());
  }
  // A directory made and filled (a file, a subdirectory with a file) and at once renamed into
  // a directory made just before: all of it happens before any watch can land on it.
  void MoveFreshTree() {
    const std::string fresh = DirPath(1 + Pick(options_.max_depth - 1));
    if (mkdir(fresh.c_str(), 0755) != 0) return;
    Write(fresh + "/" + kFileNames[Pick(std::size(kFileNames))]);
    const std::string sub = fresh + "/" + kDirNames[Pick(std::size(kDirNames))];
    mkdir(sub.c_str(), 0755);
    Write(sub + "/" + kFileNames[Pick(std::size(kFileNames))]);
    const std::string to_parent = DirPath(1 + Pick(options_.max_depth - 1));
    mkdir(to_parent.c_str(), 0755);
    rename(fresh.c_str(), (to_parent + "/" + kDirNames[Pick(std::size(kDirNames))]).c_str());
  }
  void MoveFile() { rename(FilePath().c_str(), FilePath().c_str()); }
  void RemoveTree() {
    const std::string path = DirPath(1 + Pick(options_.max_depth - 1));
    nftw(
        path.c_str(),
        [](const char* p, const struct stat*, int type, FTW*) {
          (type == FTW_DP ? rmdir(p) : unlink(p));
          return 0;
        },
        16, FTW_DEPTH | FTW_PHYS);
  }

  std::string root_;
  ChurnOptions options_;
  std::mt19937_64 rng_;
};

}  // namespace

void RunNamespaceChurn(const std::string& root, const ChurnOptions& options) {
  Churn(root, options).Run();
}

pid_t StartNamespaceChurn(const std::string& root, const ChurnOptions& options) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (options.start_fd >= 0) {
    char go = 0;
    if (read(options.start_fd, &go, 1) != 1) _exit(1);
  }
  RunNamespaceChurn(root, options);
  _exit(0);
}

std::vector<pid_t> StartChurnWorkers(const std::string& root, uint64_t seed, int operations, int processes) {
  std::vector<pid_t> workers;
  for (int i = 0; i < processes; ++i) {
    workers.push_back(StartNamespaceChurn(
        root, ChurnOptions{.seed = seed + static_cast<uint64_t>(i), .operations = operations, .max_depth = 4}));
  }
  return workers;
}

bool ReapChurnWorkers(const std::vector<pid_t>& workers) {
  bool all_ok = true;
  for (pid_t pid : workers) {
    int status = 0;
    all_ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && all_ok;
  }
  return all_ok;
}

}  // namespace fathom::testing
