// config.cpp — the tracer's switches, read from the environment, and its life: start at
// load, a new stream in a forked child, the end at exit.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "iotrace/preload/real_calls.h"
#include "iotrace/preload/tracer.h"

namespace fathom::iotrace::preload {
namespace {

Config g_config;
__thread int t_busy __attribute__((tls_model("initial-exec"))) = 0;
__thread int t_internal __attribute__((tls_model("initial-exec"))) = 0;

// Copies the value of environment variable `name` into out (empty if unset or too long).
void GetEnv(const char* name, char* out, size_t size) {
  out[0] = '\0';
  const char* value = getenv(name);
  if (value != nullptr && strlen(value) < size) strcpy(out, value);
}

uint64_t Clock(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// The job: FATHOM_JOB_ID (set by `fathom io run`), then the batch system's, then the session.
void JobId(char* out, size_t size) {
  const char* names[] = {"FATHOM_JOB_ID", "SLURM_JOB_ID", "PBS_JOBID"};
  for (const char* name : names) {
    GetEnv(name, out, size);
    if (out[0] != '\0') return;
  }
  snprintf(out, size, "session-%ld", static_cast<long>(getsid(0)));
}

long Rank() {
  const char* names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
  for (const char* name : names) {
    const char* value = getenv(name);
    if (value != nullptr && *value != '\0') return strtol(value, nullptr, 10);
  }
  return -1;
}

// mkdir -p with the real calls; false with errno on failure.
bool MakeDirs(const char* dir) {
  char path[sizeof(Config::dir)];
  strcpy(path, dir);
  for (char* p = path + 1;; ++p) {
    if (*p == '/' || *p == '\0') {
      const char saved = *p;
      *p = '\0';
      if (real::mkdir()(path, 0755) != 0 && errno != EEXIST) return false;
      *p = saved;
      if (saved == '\0') return true;
    }
  }
}

// The whole command line from /proc/self/cmdline (NUL-separated), at most `size` bytes.
size_t CommandLine(char* out, size_t size) {
  const int fd = real::open()("/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return 0;
  size_t total = 0;
  while (total < size) {
    const ssize_t n = real::read()(fd, out + total, size - total);
    if (n <= 0) break;
    total += static_cast<size_t>(n);
  }
  real::close()(fd);
  while (total > 0 && out[total - 1] == '\0') --total;
  return total;
}

uint8_t* PutString(uint8_t* p, const char* s, size_t n) {
  p = format::PutVarint(p, n);
  memcpy(p, s, n);
  return p + n;
}

void Warn(const char* what, const char* path) {
  char line[1600];
  const int n = snprintf(line, sizeof(line), "fathom-io: %s %s: %s; this process is not traced\n",
                         what, path, strerror(errno));
  if (n > 0) real::write()(2, line, static_cast<size_t>(n) < sizeof(line) ? n : sizeof(line) - 1);
}

// Makes the trace file and writes its header and the process record.
bool OpenStream(uint64_t anchor_real, uint64_t anchor_mono, const char* job) {
  Config& c = g_config;
  if (!MakeDirs(c.dir)) {
    Warn("cannot make the trace directory", c.dir);
    return false;
  }
  char host[128] = {};
  gethostname(host, sizeof(host) - 1);
  const int n = snprintf(c.path, sizeof(c.path), "%.1000s/%.120s.%d.%llu.fio", c.dir, host,
                         static_cast<int>(c.pid), static_cast<unsigned long long>(anchor_real));
  if (n <= 0 || static_cast<size_t>(n) >= sizeof(c.path)) return false;
  const int fd = real::open()(c.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    Warn("cannot make the trace file", c.path);
    return false;
  }
  uint8_t header[format::kFileHeaderSize];
  format::PutFileHeader(header);
  const bool written = real::write()(fd, header, sizeof(header)) == sizeof(header);
  struct stat st;
  if (real::fstat()(fd, &st) == 0) {
    c.trace_dev = st.st_dev;
    c.trace_ino = st.st_ino;
  }
  real::close()(fd);
  if (!written) {
    Warn("cannot write the trace file", c.path);
    return false;
  }

  static uint8_t record[8192];
  static char exe[1024];
  static char cmdline[4096];
  const ssize_t exe_length = readlink("/proc/self/exe", exe, sizeof(exe));
  const size_t cmdline_length = CommandLine(cmdline, sizeof(cmdline));
  uint8_t* p = record;
  p = format::PutVarint(p, 0);  // tid: the process record belongs to no thread
  p = format::PutVarint(p, anchor_mono);
  *p++ = format::kProcess;
  p = format::PutVarint(p, static_cast<uint64_t>(c.pid));
  p = format::PutVarint(p, static_cast<uint64_t>(getppid()));
  p = format::PutVarint(p, anchor_real);
  p = format::PutVarint(p, anchor_mono);
  p = format::PutVarint(p, c.quantum_ns);
  p = format::PutVarint(p, format::Zigzag(Rank()));
  p = format::PutVarint(p, c.compress ? 0u : static_cast<uint32_t>(format::kProcessUncompressed));
  p = format::PutVarint(p, getuid());
  p = format::PutVarint(p, getgid());
  p = PutString(p, host, strlen(host));
  p = PutString(p, job, strlen(job));
  p = PutString(p, exe, exe_length > 0 ? static_cast<size_t>(exe_length) : 0);
  p = PutString(p, cmdline, cmdline_length);
  WriteFrame(record, static_cast<size_t>(p - record));
  return true;
}

void Prepare() {
  if (!g_config.enabled) return;
  LockWriter();
  LockStates();
  LockChunks();
  LockObjects();
}

void Parent() {
  if (!g_config.enabled) return;
  UnlockObjects();
  UnlockChunks();
  UnlockStates();
  UnlockWriter();
}

void Child() {
  if (!g_config.enabled) return;
  ResetObjectsLock();
  ResetStatesLock();
  ResetChunks();
  ResetWriter();
  ForgetObjects();
  ForgetOtherThreads();
  Start(true);
}

__attribute__((constructor)) void Load() {
  Internal internal;
  Start(false);
  if (g_config.enabled) {
    CreateThreadKey();
    pthread_atfork(Prepare, Parent, Child);
  }
}

__attribute__((destructor)) void Unload() {
  if (!g_config.enabled || getpid() != g_config.pid) return;
  Finish(format::kEndExit);
}

}  // namespace

void SpinLock::Pause() { sched_yield(); }

Config& config() { return g_config; }

bool Active() {
  if (!g_config.enabled || t_internal != 0) return false;
  if (t_busy == 0) return true;
  NoteDropped(format::kDropInSignalHandler);
  return false;
}

Busy::Busy() { ++t_busy; }
Busy::~Busy() { --t_busy; }
Internal::Internal() { ++t_internal; }
Internal::~Internal() { --t_internal; }

uint64_t Now() { return Clock(CLOCK_MONOTONIC); }

void Start(bool child) {
  Config& c = g_config;
  c.enabled = false;
  const char* on = getenv("FATHOM_IO");
  if (on == nullptr || strcmp(on, "1") != 0) return;
  RefreshWorkingDirectory();
  const char* compress = getenv("FATHOM_IO_COMPRESS");
  c.compress = compress == nullptr || strcmp(compress, "0") != 0;
  const char* quantum = getenv("FATHOM_IO_QUANTUM_MS");
  if (quantum != nullptr && strtoull(quantum, nullptr, 10) > 0) {
    c.quantum_ns = strtoull(quantum, nullptr, 10) * 1'000'000ull;
  }
  char job[256];
  JobId(job, sizeof(job));
  if (!child) {
    char dir[sizeof(c.dir)];
    GetEnv("FATHOM_IO_DIR", dir, sizeof(dir));
    if (dir[0] == '\0') snprintf(dir, sizeof(dir), "fathom-io/%s", job);
    if (!AbsolutePath(AT_FDCWD, dir, c.dir, sizeof(c.dir))) return;
  }
  c.pid = getpid();
  const uint64_t anchor_real = Clock(CLOCK_REALTIME);
  const uint64_t anchor_mono = Clock(CLOCK_MONOTONIC);
  c.realtime_minus_monotonic = static_cast<int64_t>(anchor_real - anchor_mono);
  if (!OpenStream(anchor_real, anchor_mono, job)) return;
  c.enabled = true;
  StartWriter();
}

}  // namespace fathom::iotrace::preload
