// job_pieces.h — what the job analysis keeps of each run while it reads the traces, for the
// parts computed once every trace is read (modes per phase, sequentiality per file).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fathom/iotrace.h"

namespace fathom::iotrace::analysis {

// Data moved by one run: its second (of the run's first operation), direction, file and
// process (indexes into the analysis' tables) and bytes.
struct DataPiece {
  int64_t second = 0;
  bool write = false;
  size_t file = 0;
  size_t process = 0;
  uint64_t bytes = 0;
};

// A POSIX data run as Darshan's sequentiality counters see it.
struct AccessRun {
  uint64_t start = 0;  // wall ns of its first operation
  int64_t offset = 0;
  int64_t stride = 0;
  uint64_t count = 0;
  int64_t bytes = 0;   // moved by each operation
};

// System files and the MPI runtime's session files, left out unless --all-files.
bool SystemPath(const std::string& path);
// Which file an object is: (dev, ino) and the path it was opened by, or the name.
std::string FileKey(const Object& o);

// Adds the findings to a finished report (findings.cpp).
void AddFindings(JobReport& report, const std::map<size_t, std::pair<uint64_t, uint64_t>>& write_then_read,
                 const std::map<size_t, std::string>& paths, const std::vector<DataPiece>& pieces);

// Beacon's modes for one direction over the pieces within [first_second, last_second].
ModeVote ClassifyModes(const std::vector<DataPiece>& pieces, bool write, int64_t first_second, int64_t last_second);

// Darshan's SEQ and CONSEC counts of one (process, file, direction)'s runs, in time order.
SequentialCounts CountSequential(std::vector<AccessRun> runs);

// How many of the run's `count` offsets (offset + i·stride) are not multiples of `alignment`.
uint64_t UnalignedOffsets(int64_t offset, int64_t stride, uint64_t count, int64_t alignment);

}  // namespace fathom::iotrace::analysis
