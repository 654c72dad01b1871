// h5prov.h — HDF5 provenance traces: what libfathom-h5.so records, read back (docs/h5prov.md).
//
// `fathom h5 run` preloads libfathom-h5.so into a program; every process image that calls
// HDF5 writes one trace file (*.fh5): a process record (who, where, which HDF5), the objects
// it opened or created (files, groups, datasets, attributes, named datatypes: kind, path in
// the file, type, extent, layout, chunking, filters), every call it made to the wrapped HDF5
// functions (start and end on the monotonic clock, the object, names, result, bytes in memory
// and in the file, selection, MPI transfer mode, the HDF5 call it was made from) and, for each
// object, what was counted on it while it was open, written when it closed.
//
// Contract: ReadTrace()/DecodeTrace() give back every record of a file. A file that is not an
// HDF5 trace, or of another format version, is an error naming the file. A trace cut short
// (a process killed while writing) or damaged is read up to the damage and past it where the
// framing allows; each damage is reported in Trace::problems with the file and the offset,
// never skipped silently.
//
// Ownership: a Trace is a value; nothing is shared. Threading: the functions are pure and may
// be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fathom/event.h"
#include "fathom/status.h"

namespace fathom::h5prov {

struct ProcessInfo {
  uint64_t pid = 0;
  uint64_t ppid = 0;
  uint64_t anchor_realtime_ns = 0;   // the wall clock at anchor_monotonic_ns
  uint64_t anchor_monotonic_ns = 0;
  int64_t rank = -1;                 // MPI rank from the launcher's environment, -1 if none
  uint64_t uid = 0;
  uint64_t gid = 0;
  std::string flavour;               // "serial", "openmpi" or "unknown"
  std::string hdf5_version;          // "1.10.8"
  std::string host;
  std::string job;
  std::string exe;
  std::vector<std::string> argv;
};

// One open (or creation) of an HDF5 object. Ids are unique in their trace: a hid_t handed out
// again after a close is another object.
struct Object {
  uint64_t id = 0;
  std::string kind;          // "file", "group", "dataset", "attribute", "datatype"
  uint64_t file = 0;         // the id of its file's object (0 for a file, or unknown)
  int64_t hid = 0;           // the hid_t the program held
  uint64_t address = 0;      // its header's address in the file + 1 (0: unknown)
  std::string path;          // path in the file; for a file, its real path
  std::string name;          // an attribute's name
  uint64_t dev = 0, ino = 0;  // a file's identity
  // Datasets and attributes:
  int64_t type_class = -1;   // H5T_class_t
  uint64_t type_size = 0;
  bool variable_length = false;
  std::vector<uint64_t> dims;
  std::vector<int64_t> maxdims;  // -1: unlimited
  // Datasets:
  std::string layout;        // "compact", "contiguous", "chunked", "virtual" or ""
  std::vector<uint64_t> chunk;
  std::vector<int64_t> filters;  // H5Z filter ids
};

struct Selection {
  std::string kind;          // "none", "points", "regular", "irregular", "all", "chunk"
  uint64_t points = 0;       // elements moved
  std::vector<uint64_t> start, stride, count, block;  // a regular hyperslab, per dimension
  uint64_t blocks = 0;       // an irregular hyperslab's blocks
};

struct Call {
  uint64_t tid = 0;
  uint8_t op = 0;
  uint64_t seq = 0;          // the call's number in its thread
  uint64_t parent = 0;       // seq of the HDF5 call it was made from in the same thread, 0 if none
  uint64_t start = 0;        // monotonic ns
  uint64_t duration = 0;     // ns
  int64_t result = 0;        // what the function returned (a hid_t, herr_t or count)
  bool failed = false;
  uint64_t object = 0;       // the object the call made, opened or is about (0: none, unknown)
  uint64_t location = 0;     // the object its names are relative to (0: none, unknown)
  bool has_name = false, has_name2 = false;
  std::string name, name2;   // the names it was given (docs/h5prov.md lists them per function)
  bool has_data = false;     // reads and writes:
  uint64_t mem_bytes = 0;
  uint64_t file_bytes = 0;
  Selection selection;
  bool variable_length = false;  // bytes count the pointers of variable-length data
  std::string transfer;      // "independent", "collective" or "" (serial HDF5)
};

// What was counted on an object while it was open, written when it closed.
struct Closed {
  uint64_t id = 0;
  std::string how;           // "close", "dec_ref", "with_file", "at_exit", "unseen"
  uint64_t end = 0;          // monotonic ns
  uint64_t reads = 0, writes = 0;
  uint64_t read_mem_bytes = 0, read_file_bytes = 0, write_mem_bytes = 0, write_file_bytes = 0;
  uint64_t read_ns = 0, write_ns = 0;
  uint64_t calls = 0;        // every call counted on it, reads and writes included
  uint64_t inc_refs = 0;
  int64_t stored_size = -1;  // H5Dget_storage_size at close (datasets), -1 unknown
  std::vector<uint64_t> dims;  // the extent at close
};

struct Trace {
  std::string file;
  uint64_t bytes = 0;
  uint64_t frames = 0;
  bool has_process = false;
  ProcessInfo process;
  std::map<uint64_t, Object> objects;   // by id; the path is the last (after H5Olink, after an
                                        // H5Lmove of a link above it while it was open)
  std::vector<Call> calls;              // in the order they were written (per thread: by end)
  std::vector<Closed> closed;
  uint64_t dropped = 0;                 // calls lost for want of a buffer
  bool ended = false;                   // the end record was read (the process exited)
  uint64_t end_calls = 0, end_dropped = 0, end_open_objects = 0;
  std::vector<std::string> problems;    // damage: what, where (file and offset)
};

// Decodes a trace's bytes; `name` names it in messages.
Result<Trace> DecodeTrace(std::string_view bytes, const std::string& name);
Result<Trace> ReadTrace(const std::string& path);
// The trace files (*.fh5) under `path` (a directory, searched recursively) or `path` itself.
Result<std::vector<std::string>> FindTraceFiles(const std::string& path);
// The name of a wrapped function ("H5Dwrite"), or "op<N>".
std::string OpName(uint8_t op);

// The trace as JSON lines: a "process" line, the "object" lines by id, the "call" and "closed"
// lines in trace order, an "end" line, and a "problem" line per problem. docs/h5prov.md lists
// the fields.
std::string TraceJsonLines(const Trace& trace);

// ---- running a program under the tracer (`fathom h5 run`) ---------------------------------

struct RunOptions {
  std::vector<std::string> command;  // argv; argv[0] looked up in PATH
  std::string job;                   // "" : the batch system's job id, else made up
  std::string out = "fathom-h5";     // traces go to out/<job>/
  std::string library;               // "" : libfathom-h5.so next to the running fathom
};

struct RunPlan {
  std::string job;
  std::string dir;                   // absolute: where the traces go
  std::string library;
  std::vector<std::string> env;      // NAME=VALUE to add to the environment
};

// Checks the command can be traced (it exists and is dynamically linked), and works out the
// job, the directory (made) and the environment.
Result<RunPlan> PlanRun(const RunOptions& options);
// libfathom-h5.so beside the fathom executable (build tree or installed), or $FATHOM_H5_LIBRARY.
Result<std::string> FindTracerLibrary();

// ---- the analysis (`fathom h5 report`) ------------------------------------------------------
//
// H5Prov's questions answered from traces: which functions take the time (hot functions), how
// their latencies spread, which calls and ranks straggle, and what each dataset moved. Only
// the program's own calls count (outermost: parent 0); the calls HDF5 makes of itself are
// inside them. Pure functions over values; any thread.

// Latencies of one function: nearest-rank percentiles, and a histogram of log2 buckets
// (bucket b holds durations in [2^b, 2^(b+1)) ns; 0 ns falls in bucket 0).
struct Latency {
  uint64_t count = 0;
  uint64_t total_ns = 0;
  uint64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, max_ns = 0;
  std::map<int, uint64_t> log2_buckets;
};

struct FunctionReport {
  std::string name;          // "H5Dwrite"
  Latency latency;
  uint64_t failed = 0;
  double share = 0;          // of the time in outermost HDF5 calls
};

// A call above its function's straggler threshold: median + 5 MAD, and at least twice the
// median.
struct Straggler {
  std::string function;
  std::string trace;         // the trace file
  int64_t rank = -1;
  uint64_t pid = 0;
  uint64_t duration_ns = 0;
  uint64_t threshold_ns = 0;
  std::string object;        // "file.h5:/grp/ds" when known
};

// A process (rank) whose time in HDF5 is above the threshold over the job's processes.
struct SlowRank {
  std::string trace;
  int64_t rank = -1;
  uint64_t pid = 0;
  uint64_t hdf5_ns = 0;
  uint64_t threshold_ns = 0;
};

struct DatasetReport {
  std::string file;          // the file's real path
  std::string path;          // the dataset's path in the file
  uint64_t reads = 0, writes = 0;
  uint64_t read_bytes = 0, write_bytes = 0;   // in the file
  uint64_t read_ns = 0, write_ns = 0;
  uint64_t switches = 0;     // changes from reading to writing or back, in each process's call order
};

// A collective operation compared across the ranks of a job: the k-th call of one function on
// one object (file and path) in each rank. Collective are the reads and writes whose transfer
// is "collective", and in MPI processes (rank >= 0) H5Fcreate, H5Fopen, H5Fclose, H5Dcreate1
// and H5Dcreate2, which parallel HDF5 makes collective.
struct CollectiveGroup {
  std::string job;
  std::string function;
  std::string object;        // "file.h5" or "file.h5:/path"
  uint64_t index = 0;        // k: 0 for each rank's first such call
  uint64_t ranks = 0;        // how many ranks made it
  uint64_t min_ns = 0, median_ns = 0, max_ns = 0;
  uint64_t spread_ns = 0;    // max - min
  int64_t slowest_rank = -1;
};

struct CollectiveReport {
  uint64_t groups = 0;                  // matched in at least two ranks
  std::vector<CollectiveGroup> worst;   // by spread, the largest first, at most 10
};

// The selections of one dataset's reads and writes, over every process.
struct AccessShape {
  std::vector<uint64_t> count, block;   // of a regular hyperslab, per dimension
  uint64_t accesses = 0;
};

struct DatasetShapes {
  std::string file, path;
  uint64_t all = 0, none = 0, points = 0, regular = 0, irregular = 0, chunk = 0;
  std::vector<AccessShape> common;      // regular hyperslabs by count x block, the most used first, at most 4
};

// HDF5 time of each process in buckets of equal width from the first call of all traces (on
// the wall clock); a call spanning buckets is split between them.
struct TimelineBucket {
  uint64_t read_ns = 0, write_ns = 0, meta_ns = 0;  // metadata: every call that is not a read or write
};

struct ProcessTimeline {
  std::string trace;
  int64_t rank = -1;
  uint64_t pid = 0;
  std::vector<TimelineBucket> buckets;
};

struct Timeline {
  uint64_t start_wall_ns = 0;
  uint64_t bucket_ns = 0;    // 1, 2 or 5 x 10^k ns: the smallest giving at most 50 buckets
  uint64_t buckets = 0;
  std::vector<ProcessTimeline> processes;
};

struct Report {
  uint64_t processes = 0;
  uint64_t calls = 0;        // outermost
  uint64_t hdf5_ns = 0;      // their total time
  std::vector<FunctionReport> functions;  // by total time, the most first
  std::vector<Straggler> stragglers;      // the slowest first, at most 20
  uint64_t straggler_calls = 0;           // how many calls are above their threshold
  std::vector<SlowRank> slow_ranks;
  std::vector<DatasetReport> datasets;    // by bytes moved, the most first
  CollectiveReport collectives;
  std::vector<DatasetShapes> shapes;      // by file, then path
  Timeline timeline;
  std::vector<std::string> problems;      // the traces' damage
};

// The parts of Analyze(), each over the programs' own calls.
CollectiveReport CompareCollectives(const std::vector<Trace>& traces);
std::vector<DatasetShapes> AccessShapes(const std::vector<Trace>& traces);
Timeline BuildTimeline(const std::vector<Trace>& traces);

Report Analyze(const std::vector<Trace>& traces);
std::string ReportJson(const Report& report);
std::string ReportText(const Report& report);

// Every trace of `paths` (trace files, or directories searched for them), read. A path or
// file that cannot be read is left out and said in `errors`; a trace's damage stays in its
// Trace::problems.
std::vector<Trace> ReadTraces(const std::vector<std::string>& paths, std::vector<std::string>* errors);

// ---- lineage (`fathom h5 lineage`) -----------------------------------------------------------
//
// Which process of which job created, wrote or read each dataset, when and with which
// selections, across any number of runs. A dataset is the same across traces when its file is
// (the real path and the device and inode recorded at open) and its object header's address is
// (Object::address; its path when the address is unknown). A file replaced by another one
// (deleted and created again, renamed over) has another inode, so it starts a lineage of its
// own; a file truncated in place (H5F_ACC_TRUNC) keeps its inode and its datasets are matched by
// address. Times are on the wall clock (each process's anchor). Only the programs' own calls
// count (parent 0). Pure functions over values; any thread.

// One process image (one trace).
struct LineageProcess {
  std::string trace;
  std::string job;
  std::string host;
  uint64_t pid = 0;
  int64_t rank = -1;
  uint64_t uid = 0;
  std::vector<std::string> argv;
  uint64_t start_wall_ns = 0, end_wall_ns = 0;  // its first call's start and its last call's end
};

// What one process did to one dataset. The *_ns fields are wall-clock ns, meaningful when the
// counts say so: the reads' when reads > 0, the writes' when created or writes > 0.
struct DatasetUse {
  size_t process = 0;             // index in Lineage::processes
  bool created = false;
  uint64_t opens = 0, reads = 0, writes = 0;
  uint64_t read_bytes = 0, write_bytes = 0;  // in the file
  uint64_t first_ns = 0, last_ns = 0;        // its first call's start and its last call's end
  uint64_t first_read_ns = 0, last_read_ns = 0;      // the first and the last read's start
  uint64_t first_written_ns = 0, last_written_ns = 0;  // the first and last create or write's end
  std::vector<std::string> selections;       // distinct, in order of first use (SelectionText)
};

struct LineageDataset {
  std::string file;               // the file's real path
  uint64_t dev = 0, ino = 0;
  uint64_t address = 0;           // Object::address; 0: matched by path
  std::string path;               // its path in the file
  std::vector<DatasetUse> uses;   // by first_ns
};

// Process `writer` created or wrote `dataset` before process `reader` read it (the end of the
// first create or write is at or before the start of the last read).
struct LineageEdge {
  size_t dataset = 0, writer = 0, reader = 0;   // indexes in Lineage::datasets and ::processes
  uint64_t written_ns = 0, read_ns = 0;         // the writer's first_written_ns, the reader's last_read_ns
};

// Process `process` read dataset `used` and then wrote another dataset, `generated` (its
// first read started before its last write ended).
struct Derivation {
  size_t generated = 0, used = 0, process = 0;
};

struct Lineage {
  std::vector<LineageProcess> processes;   // one per trace, in the traces' order
  std::vector<LineageDataset> datasets;    // by file, then path
  std::vector<LineageEdge> edges;
  std::vector<Derivation> derivations;
};

Lineage BuildLineage(const std::vector<Trace>& traces);
// The lineage of the dataset named "FILE:/path" (FILE its real path): that dataset, the
// datasets it was derived from or that were derived from it, and the processes that used
// them. An error when no dataset has that name.
Result<Lineage> FocusLineage(const Lineage& lineage, const std::string& dataset);
std::string LineageText(const Lineage& lineage);
// W3C PROV-JSON (https://www.w3.org/Submission/prov-json/): entities (files, datasets),
// activities (processes, with prov:startTime and prov:endTime), agents (users, jobs), and
// wasGeneratedBy, used, wasAssociatedWith, wasDerivedFrom and hadMember (file, dataset).
std::string LineageProvJson(const Lineage& lineage);

// A selection as text: "all", "none", "points 5", "regular start=1,2 count=2,3" (stride and
// block when not all 1), "irregular 4 blocks", "chunk".
std::string SelectionText(const Selection& selection);
// Wall-clock ns of a monotonic time of the process.
uint64_t WallNs(const ProcessInfo& process, uint64_t monotonic_ns);

// ---- Darshan's HDF5 counters (`fathom h5 report --darshan-text`) ----------------------------
//
// The counters of Darshan's H5F and H5D modules (log format H5F 3, H5D 2), computed from the
// traces so that they can be set beside a Darshan log. One record per file and per dataset of
// each process; a record that every rank of an MPI job has is reduced to one of rank -1, as
// Darshan reduces shared records (FASTEST/SLOWEST_RANK and the variances then say how the
// ranks differ). docs/h5prov.md says where a figure is computed differently.
struct DarshanRecord {
  std::string module;        // "H5F" or "H5D"
  int64_t rank = 0;          // the MPI rank (0 without MPI), -1 for a shared record
  uint64_t id = 0;           // 64-bit FNV-1a of the name (Darshan hashes it otherwise)
  std::string name;          // H5F: the file's path; H5D: "file:/path"
  uint64_t file_id = 0;      // H5D: the record id of its file (H5D_FILE_REC_ID)
  std::vector<std::pair<std::string, int64_t>> counters;  // in Darshan's order
  std::vector<std::pair<std::string, double>> fcounters;  // seconds since the first call
};

std::vector<DarshanRecord> DarshanRecords(const std::vector<Trace>& traces);
// As darshan-parser prints them: "#<module>\t<rank>\t<record id>\t<counter>\t<value>\t<file name>\t<mount pt>\t<fs type>"
// lines, the mount point and file system from this machine's mount table ("UNKNOWN" when the
// file is under none).
std::string DarshanText(const std::vector<DarshanRecord>& records);

// ---- provenance into the event stream (`fathom h5 events`) --------------------------------
//
// What the program's own HDF5 calls did to its files, as fathom events, so that a store, the
// catalog and rules see them beside the file system's: a successful outermost call that
// creates, writes, reads, extends, deletes, renames, links or copies something in a file is
// an event on the file (`path` its real path, `root` its directory, `source` "h5prov", the
// call's wall-clock start): CREATE for H5Fcreate, ACCESS for reads, MODIFY for everything else.
// `attrs` says what happened inside the file:
//   {"h5":{"event":"DATASET_WRITE","object":"/grp/ds","function":"H5Dwrite","bytes":400,
//          "job":"J","rank":0,"pid":123,"uid":1000,"host":"h"}}
// with event one of FILE_CREATE, GROUP_CREATE, DATASET_CREATE, DATASET_WRITE, DATASET_READ,
// DATASET_EXTEND, ATTRIBUTE_CREATE, ATTRIBUTE_WRITE, ATTRIBUTE_READ, ATTRIBUTE_DELETE,
// ATTRIBUTE_RENAME, DATATYPE_COMMIT, LINK_CREATE, LINK_MOVE, LINK_DELETE, OBJECT_COPY; bytes
// for reads and writes (in the file), "name" for the attribute, link or copy names the call
// was given. Events are in the trace's call order; ids are left to the store.
std::vector<Event> ProvenanceEvents(const Trace& trace);

// Follows the traces of running programs (`fathom h5 events --follow`): each Poll() looks for
// trace files under `paths` (files, or directories searched again each time for new traces),
// decodes the whole frames each file gained since the last poll (a frame is whole once its
// checksum holds: the tracer appends a frame at a time; once a trace's end record is read, the
// rest of the file whatever it holds), and gives the events of their calls as
// ProvenanceEvents() does for the whole trace. A call whose object the trace has not described
// yet (another thread's frame not written yet) waits for it.
//
// Positions make the events exactly-once across restarts when they are stored with them
// (EventStore::Append with positions, in one transaction): for each trace file, source
// "h5prov:" + its path, position the offset in the file up to which every call's event has
// been given. `delivered(source)` tells Poll() a stored position: the calls before it give no
// event again (their objects are still read). A multi-threaded program's call that waited for
// its object holds the position back, and the events given after it in the meantime are given
// again after a restart.
//
// Ownership: a value; one thread polls. Memory: the objects of each trace, not its calls.
class ProvenanceFollower {
 public:
  explicit ProvenanceFollower(std::vector<std::string> paths);
  ~ProvenanceFollower();
  ProvenanceFollower(ProvenanceFollower&&) noexcept;
  ProvenanceFollower& operator=(ProvenanceFollower&&) noexcept;

  struct Pass {
    std::vector<Event> events;
    std::vector<std::pair<std::string, uint64_t>> positions;  // (source, position) of each file that moved
    std::vector<std::string> problems;                        // unreadable files, damage, paths without traces
  };
  // `to_the_end`: read every file to its end, as if each process had exited (traces of runs
  // that are over, some killed before their end record).
  Pass Poll(const std::function<uint64_t(const std::string& source)>& delivered, bool to_the_end = false);

  size_t files() const;  // trace files found so far
  size_t ended() const;  // of which the end record was read (their process exited)

 private:
  struct File;
  std::vector<std::string> paths_;
  std::map<std::string, std::unique_ptr<File>> files_;
};

}  // namespace fathom::h5prov
