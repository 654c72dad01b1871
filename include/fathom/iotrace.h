// iotrace.h — I/O traces of programs: what libfathom-io.so records, read back (docs/io.md).
//
// `fathom io run` preloads libfathom-io.so into a program; every process image writes one
// trace file: its process record, the files and names it touched (objects), and its
// operations compressed into runs (same op, target, size, result and errno; offsets of a
// constant stride; one time quantum). ReadTrace() decodes a file; Expand() gives back every
// operation of its runs.
//
// What a run keeps exactly: each operation's op, target, offset, size, result, errno, thread
// and quantum, and its order among the operations of the same thread on the same target and
// op; the first and last start times and the sum, least and greatest of the durations. In an
// expansion the operations between the first and the last of a run are spread evenly between
// their start times, and each has the run's mean duration.
//
// Errors: a file that is not a trace (or of a newer version) is an error naming the file. A
// trace cut short (a process killed while writing) or damaged is read up to the damage; the
// damage is reported in Trace::problems with its offset, never silently skipped.
//
// Threading: the functions are pure; a Trace is a value.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fathom/status.h"

namespace fathom::iotrace {

struct ProcessInfo {
  uint64_t pid = 0;
  uint64_t ppid = 0;
  uint64_t anchor_realtime_ns = 0;   // the wall clock at anchor_monotonic_ns
  uint64_t anchor_monotonic_ns = 0;
  uint64_t quantum_ns = 0;
  int64_t rank = -1;                 // MPI rank from the launcher's environment, -1 if none
  bool uncompressed = false;         // recorded with FATHOM_IO_COMPRESS=0
  uint64_t uid = 0;
  uint64_t gid = 0;
  std::string host;
  std::string job;
  std::string exe;
  std::vector<std::string> argv;
};

// A file (dev, ino and the path it was first seen by) or a name (dev = ino = 0: a path an
// operation named without a file behind it, such as unlink's).
struct Object {
  uint64_t dev = 0;
  uint64_t ino = 0;
  std::string path;
};

struct Run {
  uint64_t tid = 0;
  uint8_t op = 0;
  uint32_t target = 0;
  uint32_t aux = 0;          // a second path's object (rename, link...), 0 if none
  uint64_t t_first = 0;      // monotonic ns of the process
  uint64_t t_last = 0;
  uint64_t count = 1;
  bool has_offset = false;
  int64_t offset = 0;
  int64_t stride = 0;
  uint64_t size = 0;         // bytes asked for; open flags for opens; the length for truncates
  int64_t result = 0;        // bytes moved for data operations; 0 or -1 for the others
  uint32_t err = 0;
  uint64_t duration_sum = 0;
  uint64_t duration_min = 0;
  uint64_t duration_max = 0;
};

struct Operation {
  uint64_t tid = 0;
  uint8_t op = 0;
  uint32_t target = 0;
  uint32_t aux = 0;
  uint64_t start = 0;
  uint64_t duration = 0;
  bool has_offset = false;
  int64_t offset = 0;
  uint64_t size = 0;
  int64_t result = 0;
  uint32_t err = 0;
};

enum class End { kNone, kExit, kExec };

struct Trace {
  std::string file;
  bool has_process = false;
  ProcessInfo process;
  std::map<uint32_t, Object> objects;
  std::vector<Run> runs;           // in the order they were written
  uint64_t dropped_buffer_full = 0;
  uint64_t dropped_in_signal_handler = 0;
  uint64_t dropped_too_many_threads = 0;
  uint64_t io_uring_calls = 0;     // calls seen but not measured: the trace is partial
  uint64_t aio_calls = 0;
  End end = End::kNone;            // kNone: the process was killed (or still runs)
  uint64_t end_operations = 0;     // the tracer's totals at the end record
  uint64_t end_dropped = 0;
  uint64_t frames = 0;
  uint64_t bytes = 0;
  std::vector<std::string> problems;  // damage found, with offsets

  uint64_t Dropped() const {
    return dropped_buffer_full + dropped_in_signal_handler + dropped_too_many_threads;
  }
  uint64_t Operations() const;  // operations in the runs
};

// Decodes a trace held in memory; `name` names it in messages.
Result<Trace> DecodeTrace(std::string_view bytes, const std::string& name);
// Reads and decodes the trace file at `path`.
Result<Trace> ReadTrace(const std::string& path);
// The trace files (*.fio) at `path`: the file itself, or those under a directory (a job's,
// or a directory of jobs), sorted by name.
Result<std::vector<std::string>> FindTraceFiles(const std::string& path);

// Every operation of the trace's runs, ordered by start time (then thread).
std::vector<Operation> Expand(const Trace& trace);

// The name of an operation code ("read", "fwrite", "MPI_File_write_at"...), "op<N>" if unknown.
std::string OpName(uint8_t op);

}  // namespace fathom::iotrace

namespace fathom::iotrace {

// The trace as one line of JSON: process, objects, runs (and with `expand`, every operation),
// drops, partial observation, end and problems. docs/io.md lists the fields.
std::string TraceJson(const Trace& trace, bool expand);

// ---- running a program under the tracer (`fathom io run`) ---------------------------------

struct RunOptions {
  std::vector<std::string> command;  // argv; argv[0] looked up in PATH
  std::string job;                   // "" : the batch system's job id, else made up
  std::string out = "fathom-io";     // traces go to out/<job>/
  uint64_t quantum_ms = 1000;
  bool compress = true;
  std::string library;               // "" : libfathom-io.so next to the running fathom
};

struct RunPlan {
  std::string job;
  std::string dir;                   // absolute: where the traces go
  std::string library;
  std::vector<std::string> env;      // NAME=VALUE to add to the environment
};

// Checks the command can be traced (it exists and is dynamically linked: a static program
// ignores LD_PRELOAD) and works out the job, the directory and the environment.
Result<RunPlan> PlanRun(const RunOptions& options);
// libfathom-io.so beside the fathom executable (build tree or installed), or $FATHOM_IO_LIBRARY.
Result<std::string> FindTracerLibrary();

}  // namespace fathom::iotrace
