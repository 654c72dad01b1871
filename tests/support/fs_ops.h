// fs_ops.h — file-system workloads shared by the tests, done with plain system calls so
// that the kernel events they cause are exactly known.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace fathom::testing {

// open(O_CREAT|O_WRONLY|O_TRUNC), write `content`, close. Throws on failure.
void WriteFile(const std::string& path, const std::string& content);
// The whole content of the file at `path` ("" when it cannot be read).
std::string ReadFile(const std::string& path);
// mkdir -p.
void MakeDirs(const std::string& path);
// rename(2), throws on failure.
void Rename(const std::string& from, const std::string& to);

// Forks a process that runs `cycles` create/write/close/unlink cycles on files named
// DIR/p<proc>-<i> (4 events each: CREATE, MODIFY, CLOSE_WRITE, DELETE) and exits 0, or 1 on
// any failure. Returns its pid; the caller reaps it.
pid_t StartCreateDeleteCycles(const std::string& dir, int proc, int cycles);

// The FSMonitor paper's Evaluate_Output_Script inside `dir`: create hello.txt (written),
// rename it to hi.txt, mkdir okdir, move hi.txt into okdir, remove okdir recursively.
void RunEvaluateOutputScript(const std::string& dir);
// The same script as separate steps, each with the number of Table II lines it causes, for
// running it at a pace where every step is seen before the next one (with inotify, a file
// moved into a directory before the directory's watch lands cannot be seen by any watcher).
struct ScriptStep {
  std::function<void()> run;
  size_t lines;
};
std::vector<ScriptStep> EvaluateOutputScriptSteps(const std::string& dir);

// What `fathom watch --format inotify` must print for it (FSMonitor Table II, in fathom's
// default kinds), with `root` as the watched directory.
std::vector<std::string> ExpectedTableII(const std::string& root);

}  // namespace fathom::testing
