// trace_jobs.h — the jobs of a directory of I/O traces (`fathom io run --out DIR`: one
// directory of *.fio per job, or a compressed JOB.fiojob), each analysed once and kept until
// its files change (their count, sizes or times): a job's summary for the list, its report
// for its page, and its owner (the uid of its processes) for the grants.
// Ownership: owns what it keeps. Threads: any (one lock; an analysis runs outside it).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fathom/status.h"

namespace fathom::web {

struct TraceJob {
  std::string job;           // the directory's or job file's name
  uint32_t uid = 0;          // of its first process
  std::string summary_json;  // what the list shows of it
  std::string report_json;   // its whole report (iotrace::ReportJson)
  int64_t last_ns = 0;       // its last operation
  std::string error;         // why its traces could not be analysed ("" when they were)
};

// What changes when the files of a set change: their number, sizes and modification times.
struct FilesSignature {
  uint64_t files = 0;
  uint64_t bytes = 0;
  int64_t newest_ns = 0;
  bool operator==(const FilesSignature&) const = default;
};
FilesSignature SignatureOf(const std::vector<std::string>& files);

class TraceJobs {
 public:
  explicit TraceJobs(std::string dir) : dir_(std::move(dir)) {}
  // Every job of the directory, the newest first (analysing those new or changed).
  Result<std::vector<TraceJob>> List();
  // One job, or nullopt when the directory has no such job.
  Result<std::optional<TraceJob>> Find(const std::string& job);
  // The trace files of each job the directory holds now (a listing; nothing is read).
  Result<std::map<std::string, std::vector<std::string>>> Jobs() const;

 private:
  Result<TraceJob> Analysed(const std::string& job, const std::vector<std::string>& files);

  std::string dir_;
  std::mutex mu_;
  std::map<std::string, std::pair<FilesSignature, TraceJob>> kept_;
};

}  // namespace fathom::web
