// io_modes.cpp — Beacon's I/O modes: each file's sharing, and the job's vote by volume.
#include <numeric>

#include "fathom/iotrace.h"
#include "iotrace/analysis/job_pieces.h"

namespace fathom::iotrace {

std::string VoteMode(const std::map<std::string, uint64_t>& volume) {
  uint64_t total = 0;
  size_t modes = 0;
  for (const auto& [mode, bytes] : volume) {
    if (bytes == 0) continue;
    total += bytes;
    ++modes;
  }
  if (modes == 0) return "none";
  // Beacon's thresholds: the only mode; of two, the one above half; of more, above a third.
  const double threshold = modes == 1 ? 0.0 : modes == 2 ? 0.5 : 0.33;
  std::string winner = "mixed";
  uint64_t best = 0;
  for (const auto& [mode, bytes] : volume) {
    if (bytes > 0 && static_cast<double>(bytes) / static_cast<double>(total) > threshold && bytes > best) {
      winner = mode;
      best = bytes;
    }
  }
  return winner;
}

namespace analysis {

ModeVote ClassifyModes(const std::vector<DataPiece>& pieces, bool write, int64_t first_second, int64_t last_second) {
  // Processes and bytes of each file, in this direction and these seconds.
  std::map<size_t, std::map<size_t, uint64_t>> bytes_of_file;  // file → process → bytes
  std::set<size_t> processes;
  for (const DataPiece& p : pieces) {
    if (p.write != write || p.bytes == 0 || p.second < first_second || p.second > last_second) continue;
    bytes_of_file[p.file][p.process] += p.bytes;
    processes.insert(p.process);
  }
  ModeVote vote;
  vote.processes = processes.size();
  for (const auto& [file, of_process] : bytes_of_file) {
    const size_t sharing = of_process.size();
    const uint64_t bytes = std::accumulate(of_process.begin(), of_process.end(), uint64_t{0},
                                           [](uint64_t sum, const auto& entry) { return sum + entry.second; });
    std::string mode;
    if (vote.processes == 1) {
      mode = "1-1";
    } else if (sharing == 1) {
      mode = "N-N";
    } else if (sharing == vote.processes) {
      mode = "N-1";
    } else {
      mode = "N-M";
    }
    vote.volume[mode] += bytes;
  }
  vote.mode = VoteMode(vote.volume);
  return vote;
}

}  // namespace analysis
}  // namespace fathom::iotrace
