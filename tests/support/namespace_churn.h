// namespace_churn.h — a random workload that reshapes a directory tree: nested mkdir -p, file
// creation, renames of populated directories across levels (also into directories made
// moments before), files moved between directories, rm -rf of subtrees.
//
// Paths are drawn from a small namespace (a few directory and file names, a few levels deep)
// so that concurrent workers keep running into each other's directories. Every operation may
// fail because another worker changed the tree first; failures are expected and ignored.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::testing {

struct ChurnOptions {
  uint64_t seed = 1;
  int operations = 2000;  // per worker
  int max_depth = 4;
  // When >= 0, a forked worker reads one byte from this descriptor (a pipe the caller writes a
  // byte per worker into) before it starts: workers can be forked while the calling process
  // has no other thread (a fork beside running threads can leave the child's allocator locked
  // under the sanitizers), and all start together.
  int start_fd = -1;
};

// Runs the workload in the calling process: `operations` random operations below `root`.
void RunNamespaceChurn(const std::string& root, const ChurnOptions& options);

// Forks a worker that runs RunNamespaceChurn and exits 0. Returns its pid; the caller reaps it.
pid_t StartNamespaceChurn(const std::string& root, const ChurnOptions& options);

// `processes` workers (seeds seed, seed+1, ...) of `operations` each, nested at most 4 deep.
std::vector<pid_t> StartChurnWorkers(const std::string& root, uint64_t seed, int operations, int processes = 3);
// Reaps them; true when every one exited 0.
bool ReapChurnWorkers(const std::vector<pid_t>& workers);

}  // namespace fathom::testing
