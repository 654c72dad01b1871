#include "support/subprocess.h"

#include <algorithm>
#include <cctype>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace fathom::testing {

Subprocess::Subprocess(std::vector<std::string> argv) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork");
  if (pid_ == 0) {
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
}

Subprocess::~Subprocess() {
  if (!exit_code_) {
    kill(pid_, SIGKILL);
    Wait();
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

bool Subprocess::FillBuffer(int fd, std::string& buf, std::chrono::steady_clock::time_point deadline) {
  if (fd < 0) return false;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() < 0) return false;
  pollfd p{fd, POLLIN, 0};
  int r = poll(&p, 1, static_cast<int>(left.count()));
  if (r <= 0) return false;
  char chunk[65536];
  ssize_t n = read(fd, chunk, sizeof chunk);
  if (n <= 0) return false;
  buf.append(chunk, static_cast<size_t>(n));
  if (&buf == &err_buf_) err_text_.append(chunk, static_cast<size_t>(n));
  return true;
}

std::optional<std::string> Subprocess::ReadLine(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto nl = out_buf_.find('\n', out_pos_);
    if (nl != std::string::npos) {
      std::string line = out_buf_.substr(out_pos_, nl - out_pos_);
      out_pos_ = nl + 1;
      return line;
    }
    out_buf_.erase(0, out_pos_);  // keep only the unfinished line before reading more
    out_pos_ = 0;
    if (!FillBuffer(out_fd_, out_buf_, deadline)) return std::nullopt;
  }
}

std::vector<std::string> Subprocess::ReadLines(size_t n, std::chrono::milliseconds per_line) {
  std::vector<std::string> lines;
  while (lines.size() < n) {
    auto line = ReadLine(per_line);
    if (!line) break;
    lines.push_back(*line);
  }
  return lines;
}

std::vector<std::string> Subprocess::ReadAllLines(std::chrono::milliseconds timeout) {
  std::vector<std::string> lines;
  while (auto line = ReadLine(timeout)) lines.push_back(*line);
  return lines;
}

bool Subprocess::WaitForStderr(const std::string& needle, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto pos = err_buf_.find(needle);
    if (pos != std::string::npos) {
      auto nl = err_buf_.find('\n', pos);
      err_buf_.erase(0, nl == std::string::npos ? err_buf_.size() : nl + 1);
      return true;
    }
    if (!FillBuffer(err_fd_, err_buf_, deadline)) return false;
  }
}

void Subprocess::DrainStderr(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (FillBuffer(err_fd_, err_buf_, deadline)) {
  }
  err_buf_.clear();  // kept in err_text_; WaitForStderr looks only at what comes next
}

void Subprocess::Signal(int sig) { kill(pid_, sig); }

int Subprocess::Wait() {
  if (exit_code_) return *exit_code_;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  DrainStderr(std::chrono::seconds(5));  // so that stderr_text() is complete
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return *exit_code_;
}

RunResult Run(std::vector<std::string> argv, std::chrono::milliseconds timeout) {
  Subprocess p(std::move(argv));
  RunResult r;
  for (const auto& line : p.ReadAllLines(timeout)) r.out += line + "\n";
  r.exit_code = p.Wait();
  r.err = p.stderr_text();
  return r;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines = Lines(text);
  std::sort(lines.begin(), lines.end());
  return lines;
}

bool HasVersionNumber(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    size_t j = i;
    int parts = 0;
    while (parts < 3) {
      const size_t start = j;
      while (j < text.size() && isdigit(static_cast<unsigned char>(text[j]))) ++j;
      if (j == start) break;
      ++parts;
      if (parts < 3 && (j >= text.size() || text[j] != '.')) break;
      if (parts < 3) ++j;
    }
    if (parts == 3) return true;
  }
  return false;
}

std::string FathomBinary() { return FATHOM_BINARY; }

}  // namespace fathom::testing
