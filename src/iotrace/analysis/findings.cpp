// findings.cpp — what a job's report says in plain words, and the rule behind each finding
// (docs/io.md lists them).
#include <algorithm>
#include <cstdio>

#include "iotrace/analysis/job_pieces.h"

namespace fathom::iotrace::analysis {
namespace {

std::string Percent(uint64_t part, uint64_t whole) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.0f%%", whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return text;
}

std::string Seconds(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f s", static_cast<double>(ns) / 1e9);
  return text;
}

std::string Who(const ProcessSummary& p) {
  return p.host + ":" + std::to_string(p.pid) + (p.rank >= 0 ? " (rank " + std::to_string(p.rank) + ")" : "");
}

}  // namespace

void AddFindings(JobReport& report, const std::map<size_t, std::pair<uint64_t, uint64_t>>& write_then_read,
                 const std::map<size_t, std::string>& paths, const std::vector<DataPiece>& pieces) {
  auto add = [&](const char* kind, std::string text) { report.findings.push_back({kind, std::move(text)}); };
  const uint64_t data_ops = report.posix.read_ops + report.posix.write_ops + report.stdio.read_ops +
                            report.stdio.write_ops + report.mpiio.read_ops + report.mpiio.write_ops;

  // Small and unaligned POSIX requests: half or more of at least 100.
  if (report.posix_data_ops >= 100 && 2 * report.small_ops >= report.posix_data_ops) {
    add("small-io", std::to_string(report.small_ops) + " of the " + std::to_string(report.posix_data_ops) +
                        " POSIX reads and writes (" + Percent(report.small_ops, report.posix_data_ops) +
                        ") ask for less than 4 KiB: gather them into larger requests (a bigger buffer, or MPI-IO "
                        "collective buffering)");
  }
  if (report.posix_data_ops >= 100 && 2 * report.unaligned_ops >= report.posix_data_ops) {
    add("unaligned-io", std::to_string(report.unaligned_ops) + " of the " + std::to_string(report.posix_data_ops) +
                            " POSIX reads and writes (" + Percent(report.unaligned_ops, report.posix_data_ops) +
                            ") start at an offset that is not a multiple of 4 KiB");
  }

  // Files written by more than one process.
  std::map<size_t, std::set<size_t>> writers;
  std::map<size_t, uint64_t> written;
  for (const DataPiece& p : pieces) {
    if (!p.write) continue;
    writers[p.file].insert(p.process);
    written[p.file] += p.bytes;
  }
  size_t shared = 0, widest = 0;
  size_t widest_file = 0;
  for (const auto& [file, processes] : writers) {
    if (processes.size() < 2) continue;
    ++shared;
    if (processes.size() > widest) {
      widest = processes.size();
      widest_file = file;
    }
  }
  if (shared > 0) {
    add("shared-file-writes",
        std::to_string(widest) + " processes write one file, " + paths.at(widest_file) + " (" +
            std::to_string(written[widest_file]) + " bytes)" +
            (shared > 1 ? ", and " + std::to_string(shared - 1) + " more files are written by several processes" : "") +
            ": writes to a shared file are slow and disturb other jobs' I/O; write a file per process, or per "
            "group of processes (N-M)");
  }

  // Data read back after the job wrote it.
  for (const auto& [file, times] : write_then_read) {
    if (times.first != 0 && times.second > times.first) {
      add("read-after-write", paths.at(file) + " is written and then read back by the job: keep the data in "
                              "memory, or on node-local storage, between the two");
    }
  }

  // Metadata-heavy (Beacon's high-MDOPS): at least 1,000 metadata operations, more than data
  // operations.
  if (report.meta_ops >= 1000 && report.meta_ops > data_ops) {
    add("metadata-heavy", std::to_string(report.meta_ops) + " metadata operations (up to " +
                              std::to_string(report.peak_meta_per_second) + " in one second) against " +
                              std::to_string(data_ops) +
                              " data operations: on a parallel file system each one is a request to a metadata "
                              "server; keep many small files in fewer, larger ones, or work on node-local storage");
  }

  // Imbalance between the processes that move data: the slowest spends at least twice the
  // fastest's time in I/O, and at least 0.1 s.
  const ProcessSummary* fastest = nullptr;
  const ProcessSummary* slowest = nullptr;
  for (const ProcessSummary& p : report.per_process) {
    if (p.read_bytes + p.write_bytes == 0) continue;
    if (fastest == nullptr || p.io_ns < fastest->io_ns) fastest = &p;
    if (slowest == nullptr || p.io_ns > slowest->io_ns) slowest = &p;
  }
  if (fastest != nullptr && fastest != slowest && slowest->io_ns >= 100'000'000 &&
      slowest->io_ns >= 2 * fastest->io_ns) {
    char ratio[32];
    std::snprintf(ratio, sizeof(ratio), "%.1f", fastest->io_ns == 0 ? 0.0 : static_cast<double>(slowest->io_ns) / static_cast<double>(fastest->io_ns));
    add("imbalance", "the slowest process, " + Who(*slowest) + ", spends " + Seconds(slowest->io_ns) + " in I/O, " +
                         (fastest->io_ns == 0 ? std::string("far more than") : std::string(ratio) + "× as long as") +
                         " the fastest, " + Who(*fastest) + " (" + Seconds(fastest->io_ns) + ")");
  }

  if (report.partial_calls > 0) {
    add("partial", std::to_string(report.partial_calls) +
                       " io_uring or asynchronous I/O calls were seen but not measured: the figures leave that I/O out");
  }
  if (report.dropped > 0) {
    add("dropped", std::to_string(report.dropped) +
                       " operations were not recorded (the tracer's buffers were full, or they came from a signal "
                       "handler): the figures leave them out");
  }
  if (report.killed > 0) {
    add("killed", std::to_string(report.killed) +
                      " processes ended without an end record (killed): their last quantum of I/O may be missing");
  }
}

}  // namespace fathom::iotrace::analysis
