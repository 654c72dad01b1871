// process_env.h — what a preloaded tracer reads of its process at start: the environment, the
// job and MPI rank, clocks, the command line; and how it makes its directory and warns.
// Everything by system calls or plain libc (never functions another preloaded tracer records).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

namespace fathom::preload_runtime {

uint64_t Clock(clockid_t id);  // ns
// The value of environment variable `name` into `out` (empty if unset or too long).
void GetEnv(const char* name, char* out, size_t size);
// The job: FATHOM_JOB_ID (set by `fathom io|h5 run`), then the batch system's (SLURM_JOB_ID,
// PBS_JOBID), else "session-<sid>".
void JobId(char* out, size_t size);
// The MPI rank from the launcher's environment (Open MPI, PMIx, PMI, Slurm); -1 if none.
long Rank();
// mkdir -p; false with errno.
bool MakeDirs(const char* dir);
// Up to `size` bytes of a small file (/proc/self/cmdline), trailing NULs cut.
size_t ReadSmallFile(const char* path, char* out, size_t size);
// "<prefix>: <what> <path>: <strerror(errno)>; this process is not traced" on stderr.
void WarnNotTraced(const char* prefix, const char* what, const char* path);

}  // namespace fathom::preload_runtime
