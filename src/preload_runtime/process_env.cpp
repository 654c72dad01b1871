// process_env.cpp — a preloaded tracer's view of its process.
#include "preload_runtime/process_env.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <initializer_list>

namespace fathom::preload_runtime {

uint64_t Clock(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void GetEnv(const char* name, char* out, size_t size) {
  out[0] = '\0';
  const char* value = getenv(name);
  if (value != nullptr && strlen(value) < size) strcpy(out, value);
}

void JobId(char* out, size_t size) {
  for (const char* name : {"FATHOM_JOB_ID", "SLURM_JOB_ID", "PBS_JOBID"}) {
    GetEnv(name, out, size);
    if (out[0] != '\0') return;
  }
  snprintf(out, size, "session-%ld", static_cast<long>(getsid(0)));
}

long Rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* value = getenv(name);
    if (value != nullptr && *value != '\0') return strtol(value, nullptr, 10);
  }
  return -1;
}

bool MakeDirs(const char* dir) {
  char path[1024];
  if (strlen(dir) >= sizeof(path)) {
    errno = ENAMETOOLONG;
    return false;
  }
  strcpy(path, dir);
  for (char* p = path + 1;; ++p) {
    if (*p == '/' || *p == '\0') {
      const char saved = *p;
      *p = '\0';
      if (syscall(SYS_mkdirat, AT_FDCWD, path, 0755) != 0 && errno != EEXIST) return false;
      *p = saved;
      if (saved == '\0') return true;
    }
  }
}

size_t ReadSmallFile(const char* path, char* out, size_t size) {
  const int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0));
  if (fd < 0) return 0;
  size_t total = 0;
  while (total < size) {
    const long n = syscall(SYS_read, fd, out + total, size - total);
    if (n <= 0) break;
    total += static_cast<size_t>(n);
  }
  syscall(SYS_close, fd);
  while (total > 0 && out[total - 1] == '\0') --total;
  return total;
}

void WarnNotTraced(const char* prefix, const char* what, const char* path) {
  char line[1600];
  const int n = snprintf(line, sizeof(line), "%s: %s %s: %s; this process is not traced\n", prefix, what, path,
                         strerror(errno));
  if (n > 0) syscall(SYS_write, 2, line, static_cast<size_t>(n) < sizeof(line) ? n : sizeof(line) - 1);
}

}  // namespace fathom::preload_runtime
