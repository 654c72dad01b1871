// subprocess.h — run a program (usually build/fathom) with its stdout and stderr captured.
//
// Lines are read with a deadline so that a test that waits for output cannot hang forever.
// The destructor kills (SIGKILL) and reaps a child still running. One thread per object.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace fathom::testing {

class Subprocess {
 public:
  // Starts argv[0] (looked up in PATH) with argv; stdin is /dev/null.
  explicit Subprocess(std::vector<std::string> argv);
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  // Next stdout line (without '\n'), or nullopt at EOF or when `timeout` passes.
  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout);
  // Up to `n` stdout lines, each awaited for at most `per_line` (fewer on EOF or timeout).
  std::vector<std::string> ReadLines(size_t n, std::chrono::milliseconds per_line = std::chrono::seconds(10));
  // Reads stderr until a line containing `needle` appears; false on EOF or timeout.
  bool WaitForStderr(const std::string& needle, std::chrono::milliseconds timeout);
  // Reads stderr for up to `timeout` (so that a chatty child never blocks on a full pipe).
  void DrainStderr(std::chrono::milliseconds timeout);
  // Everything read from stderr so far (including lines consumed by WaitForStderr).
  const std::string& stderr_text() const { return err_text_; }
  // Reads all remaining stdout until EOF (or timeout) and returns the lines.
  std::vector<std::string> ReadAllLines(std::chrono::milliseconds timeout);
  void Signal(int sig);
  // Waits for exit; returns the exit code, or 128+signal if killed. Drains stderr.
  int Wait();

 private:
  bool FillBuffer(int fd, std::string& buf, std::chrono::steady_clock::time_point deadline);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_buf_;
  size_t out_pos_ = 0;  // start of the first unread byte in out_buf_
  std::string err_buf_;
  std::string err_text_;
  std::optional<int> exit_code_;
};

// Runs argv to completion; returns {exit code, stdout, stderr}.
struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
RunResult Run(std::vector<std::string> argv, std::chrono::milliseconds timeout = std::chrono::seconds(60));

// The newline-terminated lines of `text` (a last line without '\n' is left out).
std::vector<std::string> Lines(const std::string& text);
// The same, sorted (to compare outputs whose order differs, e.g. readdir order).
std::vector<std::string> SortedLines(const std::string& text);

// Whether `text` holds a version number: three dot-separated runs of digits ("0.1.0").
bool HasVersionNumber(const std::string& text);

// Path of the built CLI.
std::string FathomBinary();

}  // namespace fathom::testing
