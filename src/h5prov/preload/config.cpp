// config.cpp — the tracer's life: the start at a process's first HDF5 call (FATHOM_H5=1), a
// new trace in a forked child, the end at exit.
//
// Environment: FATHOM_H5=1 turns recording on; FATHOM_H5_DIR is where the trace files go
// (default fathom-h5/<job>); the job is FATHOM_JOB_ID, SLURM_JOB_ID or PBS_JOBID, else the
// session; the MPI rank comes from the launcher (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK,
// SLURM_PROCID).
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "h5prov/preload/h5_real.h"
#include "h5prov/preload/tracer.h"
#include "preload_runtime/process_env.h"

namespace fathom::h5prov::preload {
namespace {

namespace f = format;
using preload_runtime::Clock;
using preload_runtime::GetEnv;
using preload_runtime::JobId;
using preload_runtime::MakeDirs;
using preload_runtime::Rank;
using preload_runtime::ReadSmallFile;
using preload_runtime::WarnNotTraced;

enum State : int { kUnknown = 0, kStarting = 1, kOn = 2, kOff = 3 };
std::atomic<int> g_state{kUnknown};
pid_t g_pid = 0;
bool g_once = false;  // thread key and fork handlers made
__thread int t_internal __attribute__((tls_model("initial-exec"))) = 0;

void Prepare() {
  if (g_state.load(std::memory_order_acquire) != kOn) return;
  LockWriter();
  LockStates();
  chunks().Lock();
  LockObjects();
}

void Parent() {
  if (g_state.load(std::memory_order_acquire) != kOn) return;
  UnlockObjects();
  chunks().Unlock();
  UnlockStates();
  UnlockWriter();
}

// The child keeps the objects it inherits (their hid_t values stay valid in it; their records
// are in the parent's trace) and starts its own trace at its next HDF5 call.
void Child() {
  if (g_state.load(std::memory_order_acquire) != kOn) return;
  ResetObjectsLock();
  ResetStatesLock();
  chunks().Reset();
  ResetWriter();
  ForgetOtherThreads();
  g_state.store(kUnknown, std::memory_order_release);
}

// Makes the trace file, writes the process record and starts the writer. False: not traced.
bool Start() {
  Internal internal;
  const char* on = getenv("FATHOM_H5");
  if (on == nullptr || strcmp(on, "1") != 0) return false;
  char job[256];
  JobId(job, sizeof(job));
  static char dir[1024];
  char given[1024];
  GetEnv("FATHOM_H5_DIR", given, sizeof(given));
  if (given[0] == '\0') snprintf(given, sizeof(given), "fathom-h5/%.200s", job);
  if (given[0] == '/') {
    strcpy(dir, given);
  } else {
    char cwd[512];
    if (getcwd(cwd, sizeof(cwd)) == nullptr) return false;
    snprintf(dir, sizeof(dir), "%s/%.500s", cwd, given);
  }
  if (!MakeDirs(dir)) {
    WarnNotTraced("fathom-h5", "cannot make the trace directory", dir);
    return false;
  }
  g_pid = getpid();
  const uint64_t anchor_real = Clock(CLOCK_REALTIME);
  const uint64_t anchor_mono = Clock(CLOCK_MONOTONIC);
  char host[128] = {};
  gethostname(host, sizeof(host) - 1);
  char path[1400];
  snprintf(path, sizeof(path), "%s/%.120s.%d.%llu.fh5", dir, host, static_cast<int>(g_pid),
           static_cast<unsigned long long>(anchor_real));
  uint8_t header[f::kFileHeaderSize];
  f::PutFileHeader(header);
  if (!sink().Create(path, header, sizeof(header))) {
    WarnNotTraced("fathom-h5", "cannot make the trace file", path);
    return false;
  }
  unsigned major = 0, minor = 0, release = 0;
  if (auto version = real::H5get_libversion(); version != nullptr) version(&major, &minor, &release);

  static char exe[1024];
  static char cmdline[4096];
  const ssize_t exe_length = readlink("/proc/self/exe", exe, sizeof(exe));
  const size_t cmdline_length = ReadSmallFile("/proc/self/cmdline", cmdline, sizeof(cmdline));
  RecordBuilder r(f::kProcess);
  r.Varint(static_cast<uint64_t>(g_pid));
  r.Varint(static_cast<uint64_t>(getppid()));
  r.Varint(anchor_real);
  r.Varint(anchor_mono);
  r.Signed(Rank());
  r.Varint(getuid());
  r.Varint(getgid());
  r.Varint(real::Flavour());
  r.Varint(major);
  r.Varint(minor);
  r.Varint(release);
  r.String(host);
  r.String(job);
  r.String(exe, exe_length > 0 ? static_cast<size_t>(exe_length) : 0);
  r.String(cmdline, cmdline_length);
  uint8_t payload[8192 + 2 * f::kMaxVarint];
  uint8_t* p = f::PutVarint(payload, 0);  // the process record belongs to no thread
  p = f::PutVarint(p, anchor_mono);
  memcpy(p, r.data(), r.size());
  sink().WriteFrame(payload, static_cast<size_t>(p - payload) + r.size());
  if (!g_once) {
    g_once = true;
    CreateThreadKey();
    pthread_atfork(Prepare, Parent, Child);
  }
  StartWriter();
  return true;
}

__attribute__((destructor)) void Unload() {
  EndImage();
  if (g_state.load(std::memory_order_acquire) == kOn && getpid() == g_pid) g_state.store(kOff, std::memory_order_release);
}

}  // namespace

uint64_t Now() { return Clock(CLOCK_MONOTONIC); }

bool Tracing() {
  if (t_internal != 0) return false;
  int state = g_state.load(std::memory_order_acquire);
  if (state == kOn) return true;
  if (state == kOff) return false;
  int expected = kUnknown;
  if (state == kUnknown && g_state.compare_exchange_strong(expected, kStarting, std::memory_order_acq_rel)) {
    g_state.store(Start() ? kOn : kOff, std::memory_order_release);
  }
  while ((state = g_state.load(std::memory_order_acquire)) == kStarting) sched_yield();
  return state == kOn;
}

void EndImage() {
  if (g_state.load(std::memory_order_acquire) != kOn || getpid() != g_pid) return;
  Internal internal;
  StopWriter();
  const uint64_t open = OpenObjects();
  CloseAllAtExit();
  SweepAll();
  WriteQueued();
  WriteEnd(open);
}

void ResumeImage() {
  if (g_state.load(std::memory_order_acquire) == kOn && getpid() == g_pid) StartWriter();
}

void WarnOnce(std::atomic<bool>& said, const char* what, const char* name) {
  if (said.exchange(true, std::memory_order_relaxed)) return;
  char line[512];
  const int n = snprintf(line, sizeof(line), "fathom-h5: %s %s\n", what, name);
  if (n > 0) syscall(SYS_write, 2, line, static_cast<size_t>(n) < sizeof(line) ? n : sizeof(line) - 1);
}

Internal::Internal() { ++t_internal; }
Internal::~Internal() { --t_internal; }

}  // namespace fathom::h5prov::preload
