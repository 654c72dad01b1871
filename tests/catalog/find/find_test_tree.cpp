// find_test_tree.cpp — scratch mounts, generated trees, captured runs.
#include "catalog/find/find_test_tree.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <stdexcept>
#include <tuple>

namespace fathom::catalog::find_testing {
namespace {

void Check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what + ": " + std::strerror(errno));
}

const std::vector<std::string>& Names() {
  static const std::vector<std::string> kNames = {
      "a", "b.txt", "C.TXT", "sp ace", "new\nline", "#hash", "q?m", "co,ma", "st*r", "-dash",
      "--dd", "\xc3\xa9t\xc3\xa9", "bad\xff\xfe", ".hid", "UP", "[br]", "back\\sl", "x", "y.dat",
      "zz", "tab\there", "d1", "d2"};
  return kNames;
}

int64_t LocalMidnightTomorrow(int64_t now_s) {
  time_t t = static_cast<time_t>(now_s + 86400);
  std::tm tm{};
  localtime_r(&t, &tm);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  tm.tm_isdst = -1;
  return mktime(&tm);
}

int64_t Local(int year, int mon, int day, int hour) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_isdst = -1;
  return mktime(&tm);
}

void Place(const std::string& parent, const PlacedTimes& placed) {
  timespec ts[2];
  for (int i = 0; i < 2; ++i) {
    ts[i].tv_sec = static_cast<time_t>(placed.sec[i]);
    ts[i].tv_nsec = placed.nsec[i];
  }
  std::string abs = parent + "/" + placed.rel;
  Check(utimensat(AT_FDCWD, abs.c_str(), ts, AT_SYMLINK_NOFOLLOW) == 0, "utimensat " + placed.rel);
}

class Builder {
 public:
  Builder(uint64_t seed, int64_t now_s) : rng_(seed), now_s_(now_s) {}

  GeneratedTree Build(const std::string& root) {
    size_t slash = root.rfind('/');
    parent_ = root.substr(0, slash);
    std::string top = root.substr(slash + 1);
    Check(mkdir(root.c_str(), 0755) == 0, "mkdir " + root);
    tree_.dirs.push_back(top);
    all_.push_back(top);
    Fill(top, 1);
    for (const auto& rel : all_) Own(rel);
    for (const auto& rel : all_) Times(rel);
    return tree_;
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  template <typename T>
  const T& Any(const std::vector<T>& v) { return v[static_cast<size_t>(Pick(static_cast<int>(v.size())))]; }
  std::string Abs(const std::string& rel) const { return parent_ + "/" + rel; }

  void Fill(const std::string& dir, int depth) {
    int n = 2 + Pick(depth == 1 ? 6 : 4);
    std::vector<std::string> used;
    for (int i = 0; i < n; ++i) {
      std::string name = Any(Names());
      if (std::find(used.begin(), used.end(), name) != used.end()) continue;
      used.push_back(name);
      std::string rel = dir + "/" + name;
      int kind = Pick(100);
      if (kind < 22 && depth < 4) {
        Check(mkdir(Abs(rel).c_str(), 0755) == 0, "mkdir " + rel);
        tree_.dirs.push_back(rel);
        all_.push_back(rel);
        if (Pick(4) != 0) Fill(rel, depth + 1);  // else an empty directory
      } else if (kind < 34) {
        static const std::vector<std::string> kTargets = {"x", "../x", "nowhere", "d1", ".", "b.txt"};
        std::string target = Pick(5) == 0 && !tree_.files.empty() ? Abs(Any(tree_.files)) : Any(kTargets);
        Check(symlink(target.c_str(), Abs(rel).c_str()) == 0, "symlink " + rel);
        tree_.links.push_back(rel);
        all_.push_back(rel);
      } else if (kind < 40 && !tree_.files.empty()) {
        Check(link(Abs(Any(tree_.files)).c_str(), Abs(rel).c_str()) == 0, "link " + rel);
        tree_.files.push_back(rel);
      } else if (kind < 44) {
        Check(mkfifo(Abs(rel).c_str(), 0644) == 0, "mkfifo " + rel);
        all_.push_back(rel);
      } else {
        MakeFile(rel);
      }
    }
  }

  void MakeFile(const std::string& rel) {
    static const std::vector<int64_t> kSizes = {0, 0, 1, 100, 511, 512, 513, 1023, 1024, 1025, 4096, 5000,
                                                1048575, 1048576, 1048577, 2097153, 3000000};
    int64_t size = Any(kSizes);
    int fd = open(Abs(rel).c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    Check(fd >= 0, "open " + rel);
    if (size <= 8192) {
      std::string data(static_cast<size_t>(size), 'z');
      Check(write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()), "write " + rel);
    } else {
      // Sparse: a few bytes at the start (or none), the rest a hole.
      if (Pick(2) == 0) Check(write(fd, "head", 4) == 4, "write " + rel);
      Check(ftruncate(fd, size) == 0, "ftruncate " + rel);
    }
    close(fd);
    tree_.files.push_back(rel);
    all_.push_back(rel);
  }

  void Own(const std::string& rel) {
    static const std::vector<uint32_t> kUids = {0, 0, 1, 2, 65534, 12345};
    static const std::vector<uint32_t> kGids = {0, 0, 1, 4, 65534, 23456};
    static const std::vector<mode_t> kModes = {0644, 0755, 0600, 0700, 0444, 0777, 04755, 02755,
                                               01777, 0640, 0000, 0111, 0620, 06711, 0664};
    std::string abs = Abs(rel);
    Check(lchown(abs.c_str(), Any(kUids), Any(kGids)) == 0, "lchown " + rel);
    struct stat st {};
    Check(lstat(abs.c_str(), &st) == 0, "lstat " + rel);
    if (!S_ISLNK(st.st_mode)) Check(chmod(abs.c_str(), Any(kModes)) == 0, "chmod " + rel);
  }

  // A time and whether it is an age (placed relative to now_s_).
  std::pair<int64_t, bool> AnyTime() {
    int64_t midnight = LocalMidnightTomorrow(now_s_);
    int64_t y2024 = Local(2024, 1, 1, 0);
    switch (Pick(7)) {
      case 0: return {now_s_ - Pick(4) * 86400 + (Pick(2) ? 40 : -40), true};     // near day boundaries
      case 1: return {now_s_ - Pick(4) * 86400 - (3000 + Pick(80000)), true};     // inside a day
      case 2: return {now_s_ - Pick(12) * 60 + (Pick(2) ? 15 : -15), true};      // near minute boundaries
      case 3: return {midnight - Pick(4) * 86400 + (Pick(2) ? 40 : -40), false}; // near local midnights
      case 4: return {y2024 + (Pick(3) - 1), false};                             // around 2024-01-01 00:00
      case 5: return {Local(2023, 6, 15, 12) - Pick(400) * 86400, false};        // long ago
      default: return {now_s_ + 3000 + Pick(100000), true};                      // in the future
    }
  }

  void Times(const std::string& rel) {
    PlacedTimes placed;
    placed.rel = rel;
    for (int i = 0; i < 2; ++i) {
      std::tie(placed.sec[i], placed.follows_now[i]) = AnyTime();
      placed.nsec[i] = Pick(3) == 0 ? 0 : Pick(1000000000);
    }
    Place(parent_, placed);
    tree_.times.push_back(placed);
  }

  std::mt19937_64 rng_;
  int64_t now_s_;
  std::string parent_;
  GeneratedTree tree_;
  std::vector<std::string> all_;  // every name whose owner, mode and times are set
};

}  // namespace

ScratchMount::ScratchMount() {
  char tmpl[] = "/tmp/fathom-find-XXXXXX";
  Check(mkdtemp(tmpl) != nullptr, "mkdtemp");
  path_ = tmpl;
  mounted_ = mount("tmpfs", path_.c_str(), "tmpfs", MS_NOATIME, "size=64m,mode=0755") == 0;
}

ScratchMount::~ScratchMount() {
  if (mounted_) umount2(path_.c_str(), MNT_DETACH);
  rmdir(path_.c_str());
}

GeneratedTree BuildTree(const std::string& root, uint64_t seed, int64_t now_s) {
  return Builder(seed, now_s).Build(root);
}

void ShiftAges(const std::string& parent, GeneratedTree& tree, int64_t delta_s) {
  for (auto& placed : tree.times) {
    for (int i = 0; i < 2; ++i)
      if (placed.follows_now[i]) placed.sec[i] += delta_s;
    Place(parent, placed);
  }
}

Captured RunCaptured(const std::vector<std::string>& argv, const std::string& cwd) {
  int out[2], err[2];
  Check(pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0, "pipe");
  pid_t pid = fork();
  Check(pid >= 0, "fork");
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    setenv("LC_ALL", "C", 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  Captured c;
  // Reads both pipes without letting either fill up.
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&c.out, &c.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, 30000) <= 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[65536];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        sinks[i]->append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return c;
}

std::vector<std::string> SortedRecords(const std::string& out, char sep) {
  std::vector<std::string> records;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find(sep, start);
    if (end == std::string::npos) end = out.size();
    records.push_back(out.substr(start, end - start));
    start = end + 1;
  }
  std::sort(records.begin(), records.end());
  return records;
}

std::string Describe(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    s += s.empty() ? "'" : " '";
    for (unsigned char c : a) {
      if (c == '\n') s += "\\n";
      else if (c == '\t') s += "\\t";
      else if (c == '\'') s += "'\\''";
      else if (c < 0x20 || c >= 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        s += buf;
      } else {
        s += static_cast<char>(c);
      }
    }
    s += "'";
  }
  return s;
}

}  // namespace fathom::catalog::find_testing
