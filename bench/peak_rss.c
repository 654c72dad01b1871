/* peak-rss — runs a program and reports its peak resident set.
 *
 * Usage: peak-rss FD PROGRAM [ARG...]: runs PROGRAM (searched in PATH) with the same stdin,
 * stdout and stderr, then writes "MAXRSS_KB STATUS\n" to descriptor FD (STATUS as wait4
 * gives it; -1 when PROGRAM could not be run) and exits 0.
 *
 * A process that spawns a program from a large address space (a benchmark holding a million
 * lines of output) hands its own high-water mark on: Linux counts, at exec, the memory the
 * child shared with its parent in the child's peak. Spawned from this small process, a
 * program's figure is its own. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: peak-rss FD PROGRAM [ARG...]\n");
    return 2;
  }
  const int fd = atoi(argv[1]);
  pid_t pid = 0;
  long maxrss = 0;
  int status = -1;
  if (posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ) == 0) {
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) == pid) maxrss = ru.ru_maxrss;
  }
  dprintf(fd, "%ld %d\n", maxrss, status);
  return 0;
}
