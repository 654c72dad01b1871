// answer_cache_test.cpp — kept answers: reused while the version holds, and for a bounded time
// after it moved.
#include "web/answer_cache.h"

#include <gtest/gtest.h>

#include <thread>

namespace fathom::web {
namespace {

TEST(WebAnswerCache, AnAnswerIsReusedWhileItsVersionHoldsAndRecomputedAfterMaxStale) {
  AnswerCache cache(std::chrono::milliseconds(100));
  int computed = 0;
  auto compute = [&]() -> Result<std::string> { return "answer " + std::to_string(++computed); };
  EXPECT_EQ(cache.Get("q", 1, compute).value(), "answer 1");
  EXPECT_EQ(cache.Get("q", 1, compute).value(), "answer 1");
  EXPECT_EQ(cache.Get("other", 1, compute).value(), "answer 2");
  // The version moved: the kept answer serves until it is 100 ms old.
  EXPECT_EQ(cache.Get("q", 2, compute).value(), "answer 1");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_EQ(cache.Get("q", 2, compute).value(), "answer 3");
  EXPECT_EQ(cache.Get("q", 2, compute).value(), "answer 3");
}

TEST(WebAnswerCache, AFailedComputationIsNotKept) {
  AnswerCache cache;
  bool fail = true;
  auto compute = [&]() -> Result<std::string> {
    if (fail) return Status::Error("catalog gone");
    return std::string("fine");
  };
  EXPECT_FALSE(cache.Get("q", 1, compute).ok());
  fail = false;
  EXPECT_EQ(cache.Get("q", 1, compute).value(), "fine");
}

}  // namespace
}  // namespace fathom::web
