// fs_ops.h — file-system workloads shared by the tests, done with plain system calls so
// that the kernel events they cause are exactly known.
#pragma once

#include <string>
#include <vector>

namespace fathom::testing {

// open(O_CREAT|O_WRONLY|O_TRUNC), write `content`, close. Throws on failure.
void WriteFile(const std::string& path, const std::string& content);
// mkdir -p.
void MakeDirs(const std::string& path);
// rename(2), throws on failure.
void Rename(const std::string& from, const std::string& to);

// The FSMonitor paper's Evaluate_Output_Script inside `dir`: create hello.txt (written),
// rename it to hi.txt, mkdir okdir, move hi.txt into okdir, remove okdir recursively.
void RunEvaluateOutputScript(const std::string& dir);
// What `fathom watch --format inotify` must print for it (FSMonitor Table II, in fathom's
// default kinds), with `root` as the watched directory.
std::vector<std::string> ExpectedTableII(const std::string& root);

}  // namespace fathom::testing
