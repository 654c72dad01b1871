// answer_cache.cpp — AnswerCache.
#include "web/answer_cache.h"

namespace fathom::web {

Result<std::string> AnswerCache::Get(const std::string& question, uint64_t version,
                                     const std::function<Result<std::string>()>& compute) {
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = kept_.find(question);
    if (it != kept_.end() && (it->second.version == version || now - it->second.at < max_stale_)) {
      return it->second.answer;
    }
  }
  FATHOM_ASSIGN_OR_RETURN(std::string answer, compute());
  std::lock_guard<std::mutex> lock(mu_);
  if (kept_.size() >= max_answers_) kept_.clear();
  kept_[question] = {version, now, answer};
  return answer;
}

}  // namespace fathom::web
