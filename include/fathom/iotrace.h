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

#include <array>
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
// A preload library `file` in lib/fathom beside the fathom executable (build tree or
// installed), or the file the environment variable `variable` names.
Result<std::string> FindPreloadLibrary(const std::string& file, const char* variable);

}  // namespace fathom::iotrace

// ---- a job's analysis (`fathom io report`) --------------------------------------------------

namespace fathom::iotrace {

// Darshan's access-size buckets (darshan-parser's names): 0-100, 100-1K, 1K-10K, 10K-100K,
// 100K-1M, 1M-4M, 4M-10M, 10M-100M, 100M-1G, 1G+, with Darshan's bounds (a 1 MiB access falls in
// 100K-1M).
inline constexpr int kSizeBuckets = 10;
int SizeBucket(uint64_t size);
const char* SizeBucketName(int bucket);

// darshan-parser's <mount pt> and <fs type> columns, from this machine's mount table (a report
// is read where the traces were written, or the columns say UNKNOWN).
struct Mount {
  std::string point;
  std::string type;
};
std::vector<Mount> Mounts();
// The mount `path` is under (the longest point), or {"UNKNOWN", "UNKNOWN"}.
const Mount& MountOf(const std::vector<Mount>& mounts, const std::string& path);
// A record id for a name: 64-bit FNV-1a (Darshan hashes names otherwise).
uint64_t DarshanRecordId(const std::string& name);

struct LayerTotals {
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t read_ops = 0;
  uint64_t write_ops = 0;
  uint64_t meta_ops = 0;
  uint64_t other_ops = 0;
};

// What one layer (POSIX, STDIO, MPI-IO) moved and did in one second.
struct LayerSecond {
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t data_ops = 0;
  uint64_t meta_ops = 0;
};

// One second of the job (on the wall clock): what was moved and done in it.
struct Second {
  int64_t second = 0;  // seconds since the epoch
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t data_ops = 0;
  uint64_t meta_ops = 0;
  // The same per layer: POSIX, STDIO, MPI-IO (whose bytes reach the file through POSIX calls
  // traced too, so the layers' sums may exceed the totals above).
  std::array<LayerSecond, 3> layers{};
};

struct ProcessSummary {
  std::string host;
  uint64_t pid = 0;
  int64_t rank = -1;
  std::string exe;
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t data_ops = 0;
  uint64_t meta_ops = 0;
  uint64_t io_ns = 0;      // time in data operations
  bool killed = false;     // its last image has no end record
};

// I/O modes (Beacon): per direction, each file's volume is put under the mode its sharing
// shows — 1-1 (one process does this direction's I/O in the whole job), N-N (the file's only
// process is one of several), N-1 (every process of this direction shares the file), N-M
// (a group of them shares it) — and the job's mode is the one that wins Beacon's volume vote:
// the only mode, or with two modes the one above half the volume, or with three or more the
// one above a third; "mixed" when none wins, "none" without I/O.
struct ModeVote {
  uint64_t processes = 0;                 // processes moving data in this direction
  std::map<std::string, uint64_t> volume; // bytes per mode
  std::string mode = "none";
};

struct Phase {
  int64_t first_second = 0;
  int64_t last_second = 0;
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t data_ops = 0;
  uint64_t meta_ops = 0;
  ModeVote read;
  ModeVote write;
};

struct SequentialCounts {  // Darshan's POSIX_SEQ_ and CONSEC_ counters, summed over the files
  uint64_t ops = 0;
  uint64_t sequential = 0;   // offset beyond the last byte of the previous one on the file
  uint64_t consecutive = 0;  // offset just after it
};

struct Finding {
  std::string kind;  // small-io, unaligned-io, shared-file-writes, read-after-write,
                     // metadata-heavy, imbalance, partial, dropped, killed
  std::string text;
};

struct AnalysisOptions {
  bool all_files = false;        // count system files too (see docs/io.md)
  double phase_threshold = 0.01; // a second belongs to a phase above this share of the peak
  int64_t phase_gap = 2;         // seconds of quiet that still join two active stretches
};

struct JobReport {
  std::string job;
  uint64_t images = 0;       // process images (traces)
  uint64_t processes = 0;    // distinct (host, pid)
  uint64_t io_processes = 0; // of them, those that moved data
  std::vector<std::string> hosts;
  uint64_t first_ns = 0;     // wall clock of the first and last operation
  uint64_t last_ns = 0;
  uint64_t files = 0;        // files with data moved
  LayerTotals posix, stdio, mpiio;
  std::map<std::string, uint64_t> operations;  // count per operation name, every layer
  uint64_t meta_ops = 0;
  uint64_t peak_meta_per_second = 0;
  double meta_per_second_in_phases = 0;
  uint64_t read_sizes[kSizeBuckets] = {};   // POSIX reads by size
  uint64_t write_sizes[kSizeBuckets] = {};
  SequentialCounts reads, writes;           // POSIX
  uint64_t unaligned_ops = 0;               // POSIX data operations at an offset not a multiple of 4 KiB
  uint64_t small_ops = 0;                   // POSIX data operations under 4 KiB
  uint64_t posix_data_ops = 0;
  std::vector<Second> series;               // every second from the first to the last operation
  double peak_bandwidth = 0;                // bytes/s, best second
  double mean_bandwidth = 0;                // bytes/s over the seconds of the phases
  double mean_iops = 0;
  std::vector<ProcessSummary> per_process;
  ModeVote read_mode, write_mode;
  std::string mode = "none";                // by the volume of both directions
  std::vector<Phase> phases;
  uint64_t dropped = 0;
  uint64_t partial_calls = 0;
  uint64_t killed = 0;
  std::vector<std::string> problems;
  std::vector<Finding> findings;
};

// Analyses the traces of one job (those of several jobs are refused).
Result<JobReport> AnalyzeJob(const std::vector<Trace>& traces, const AnalysisOptions& options);
// Beacon's vote over the bytes per mode.
std::string VoteMode(const std::map<std::string, uint64_t>& volume);

std::string ReportJson(const JobReport& report);
std::string ReportText(const JobReport& report);

// The job's POSIX and STDIO counters as darshan-parser prints them: one line per counter and
// (file, rank), tab-separated <module> <rank> <record id> <counter> <value> <file name>
// <mount pt> <fs type>, with Darshan's counter names, size buckets, sequential and consecutive
// rules and 4 KiB file alignment. Record ids are a hash of the path (not Darshan's); the mount
// columns come from this machine's mount table. docs/io.md lists the counters given.
std::string DarshanText(const std::vector<Trace>& traces, const AnalysisOptions& options);

}  // namespace fathom::iotrace

// ---- a job's traces in one file, compressed across its processes (`fathom io compress`) ----

namespace fathom::iotrace {

// The second pass (docs/io.md, "Compression across processes"). The runs of a job's traces are
// put in groups: a group is one run that several processes make alike (same thread of theirs,
// operation, file, count, stride, size, result and errno) plus what each member has of its own
// (start times, durations, and the first offset unless it is a·rank + b over the members, for
// any number of them ≥ 2). Files seen by several processes are one object; process records
// that are alike are stored once. Nothing is lost: ExpandJob(CompressJob(t).bytes) == t, field
// by field, for traces as ReadTrace gives them.
//
// Threading: the functions are pure; the results are values.

struct CompressionFigures {
  uint64_t processes = 0;          // traces (process images)
  uint64_t operations = 0;         // raw: one record per operation
  uint64_t raw_bytes = 0;          // operations × kRawRecordBytes
  uint64_t runs = 0;               // first pass: the traces' runs
  uint64_t first_pass_bytes = 0;   // the traces' sizes (Trace::bytes)
  uint64_t groups = 0;             // second pass: the job file's groups
  uint64_t linear_groups = 0;      // of them, those of ≥ 2 members with offsets a·rank + b
  uint64_t second_pass_bytes = 0;  // the job file's size

  double FirstPassRatio() const;   // raw_bytes / first_pass_bytes (0 when undefined)
  double SecondPassRatio() const;  // first_pass_bytes / second_pass_bytes
};

// A raw operation record's size: Darshan's DXT record (offset, length, start, end, 40 bytes).
inline constexpr uint64_t kRawRecordBytes = 40;

struct CompressedJob {
  std::string bytes;  // the job file (a .fiojob)
  CompressionFigures figures;
};

// The job file of `traces` (any processes, in the order given; a Trace's rank is its
// ProcessInfo::rank, or its index in `traces` when it has none).
CompressedJob CompressJob(const std::vector<Trace>& traces);
// The traces of a job file held in memory, in the order they were compressed; `name` names it
// in messages. A file that is not a job file, of a newer version, cut short or damaged anywhere
// is an error naming the file and the offset of the damage (a job file is written whole, so
// nothing of a damaged one is trusted).
Result<std::vector<Trace>> ExpandJob(std::string_view bytes, const std::string& name);
// Reads and expands the job file at `path`.
Result<std::vector<Trace>> ReadJob(const std::string& path);
// True when `path` names a job file (ends in .fiojob).
bool IsJobFile(const std::string& path);

}  // namespace fathom::iotrace
