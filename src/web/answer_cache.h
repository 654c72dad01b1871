// answer_cache.h — answers that read much of a source (histograms, top directories), kept
// per question (the call, its parameters and the caller's grants) with the version of the
// source they were computed at (the catalog's commit count). A kept answer is given again
// while the version has not moved, and for up to `max_stale` after it moved, so a catalog
// that changes all the time costs at most one computation per question per `max_stale`.
// Threads: any; a computation runs outside the lock (two callers of one question may both
// compute it once).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "fathom/status.h"

namespace fathom::web {

class AnswerCache {
 public:
  explicit AnswerCache(std::chrono::milliseconds max_stale = std::chrono::seconds(10),
                       size_t max_answers = 4096)
      : max_stale_(max_stale), max_answers_(max_answers) {}

  Result<std::string> Get(const std::string& question, uint64_t version,
                          const std::function<Result<std::string>()>& compute);

 private:
  struct Kept {
    uint64_t version = 0;
    std::chrono::steady_clock::time_point at;
    std::string answer;
  };
  std::chrono::milliseconds max_stale_;
  size_t max_answers_;
  std::mutex mu_;
  std::map<std::string, Kept> kept_;
};

}  // namespace fathom::web
