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
#include "preload_runtime/process_env.h"

namespace fathom::iotrace::preload {
namespace {

using preload_runtime::Clock;
using preload_runtime::GetEnv;
using preload_runtime::JobId;
using preload_runtime::MakeDirs;
using preload_runtime::Rank;

Config g_config;
__thread int t_busy __attribute__((tls_model("initial-exec"))) = 0;
__thread int t_internal __attribute__((tls_model("initial-exec"))) = 0;

uint8_t* PutString(uint8_t* p, const char* s, size_t n) {
  p = format::PutVarint(p, n);
  memcpy(p, s, n);
  return p + n;
}

void Warn(const char* what, const char* path) { preload_runtime::WarnNotTraced("fathom-io", what, path); }

// Makes the trace file and writes its header and the process record.
bool OpenStream(uint64_t anchor_real, uint64_t anchor_mono, const char* job) {
  Config& c = g_config;
  if (!MakeDirs(c.dir)) {
    Warn("cannot make the trace directory", c.dir);
    return false;
  }
  char host[128] = {};
  gethostname(host, sizeof(host) - 1);
  char path[1280];
  const int n = snprintf(path, sizeof(path), "%.1000s/%.120s.%d.%llu.fio", c.dir, host, static_cast<int>(c.pid),
                         static_cast<unsigned long long>(anchor_real));
  if (n <= 0 || static_cast<size_t>(n) >= sizeof(path)) return false;
  uint8_t header[format::kFileHeaderSize];
  format::PutFileHeader(header);
  if (!sink().Create(path, header, sizeof(header))) {
    Warn("cannot make the trace file", path);
    return false;
  }

  static uint8_t record[8192];
  static char exe[1024];
  static char cmdline[4096];
  const ssize_t exe_length = readlink("/proc/self/exe", exe, sizeof(exe));
  const size_t cmdline_length = preload_runtime::ReadSmallFile("/proc/self/cmdline", cmdline, sizeof(cmdline));
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
  sink().WriteFrame(record, static_cast<size_t>(p - record));
  return true;
}

void Prepare() {
  if (!g_config.enabled) return;
  LockWriter();
  LockStates();
  chunks().Lock();
  LockObjects();
}

void Parent() {
  if (!g_config.enabled) return;
  UnlockObjects();
  chunks().Unlock();
  UnlockStates();
  UnlockWriter();
}

void Child() {
  if (!g_config.enabled) return;
  ResetObjectsLock();
  ResetStatesLock();
  chunks().Reset();
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
