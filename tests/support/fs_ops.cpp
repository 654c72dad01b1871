#include "support/fs_ops.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fathom::testing {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& content) {
  int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("open " + path);
  if (!content.empty() && write(fd, content.data(), content.size()) != static_cast<ssize_t>(content.size())) {
    close(fd);
    throw std::runtime_error("write " + path);
  }
  close(fd);
}

void MakeDirs(const std::string& path) { std::filesystem::create_directories(path); }

void Rename(const std::string& from, const std::string& to) {
  if (rename(from.c_str(), to.c_str()) != 0) throw std::runtime_error("rename " + from + " -> " + to);
}

pid_t StartCreateDeleteCycles(const std::string& dir, int proc, int cycles) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  char path[512];
  for (int i = 0; i < cycles; ++i) {
    snprintf(path, sizeof path, "%s/p%d-%d", dir.c_str(), proc, i);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, "x", 1) != 1) _exit(1);
    close(fd);
    if (unlink(path) != 0) _exit(1);
  }
  _exit(0);
}

std::vector<ScriptStep> EvaluateOutputScriptSteps(const std::string& dir) {
  return {
      {[dir] { WriteFile(dir + "/hello.txt", "hello world\n"); }, 3},
      {[dir] { Rename(dir + "/hello.txt", dir + "/hi.txt"); }, 2},
      {[dir] {
         if (mkdir((dir + "/okdir").c_str(), 0755) != 0) throw std::runtime_error("mkdir okdir");
       },
       1},
      {[dir] { Rename(dir + "/hi.txt", dir + "/okdir/hi.txt"); }, 2},
      {[dir] {
         if (unlink((dir + "/okdir/hi.txt").c_str()) != 0) throw std::runtime_error("unlink");
       },
       1},
      {[dir] {
         if (rmdir((dir + "/okdir").c_str()) != 0) throw std::runtime_error("rmdir");
       },
       1},
  };
}

void RunEvaluateOutputScript(const std::string& dir) {
  for (const auto& step : EvaluateOutputScriptSteps(dir)) step.run();
}

std::vector<std::string> ExpectedTableII(const std::string& root) {
  return {
      root + " CREATE /hello.txt",
      root + " MODIFY /hello.txt",
      root + " CLOSE_WRITE /hello.txt",
      root + " MOVED_FROM /hello.txt",
      root + " MOVED_TO /hi.txt",
      root + " CREATE,ISDIR /okdir",
      root + " MOVED_FROM /hi.txt",
      root + " MOVED_TO /okdir/hi.txt",
      root + " DELETE /okdir/hi.txt",
      root + " DELETE,ISDIR /okdir",
  };
}

}  // namespace fathom::testing
