// The hand-over queue between the pipeline's reader and writer threads.
#include "pipeline/event_queue.h"

#include <gtest/gtest.h>

#include <thread>

namespace fathom::internal {
namespace {

std::vector<Event> Events(size_t n, const std::string& prefix) {
  std::vector<Event> v;
  for (size_t i = 0; i < n; ++i) {
    Event e;
    e.path = prefix + std::to_string(i);
    v.push_back(std::move(e));
  }
  return v;
}

struct BatchSpec {
  size_t count;
  const char* prefix;
  uint64_t position;
};

// Pushes each batch (events prefix0, prefix1, ...) in order; Push() leaves the vector empty.
void PushAll(EventQueue& q, std::initializer_list<BatchSpec> batches) {
  for (const auto& b : batches) {
    auto events = Events(b.count, b.prefix);
    ASSERT_TRUE(q.Push(events, b.position));
    EXPECT_TRUE(events.empty());
  }
}

TEST(EventQueue, PopTakesWholeBatchesInOrderWithTheirHighestPosition) {
  EventQueue q(100);
  PushAll(q, {{3, "/a", 7}, {2, "/b", 0}, {4, "/c", 9}});
  std::vector<Event> out = Events(1, "/stale");
  uint64_t position = 0;
  ASSERT_TRUE(q.Pop(out, 5, position));  // a and b fit in 5; c would not
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].path, "/a0");
  EXPECT_EQ(out[4].path, "/b1");
  EXPECT_EQ(position, 7u);
  ASSERT_TRUE(q.Pop(out, 5, position));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].path, "/c0");
  EXPECT_EQ(position, 9u);
}

TEST(EventQueue, ABatchWithoutPositionLargerThanMaxIsHandedOutMaxAtATime) {
  EventQueue q(100);
  PushAll(q, {{10, "/k", 0}, {2, "/n", 0}, {7, "/p", 5}});
  std::vector<Event> out;
  uint64_t position = 1;
  std::vector<std::string> paths;
  // 4 + 4 of the big batch, then its last 2 with the 2 after it.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(q.Pop(out, 4, position));
    EXPECT_EQ(out.size(), 4u) << "pop " << i;
    EXPECT_EQ(position, 0u);
    for (const auto& e : out) paths.push_back(e.path);
  }
  ASSERT_EQ(paths.size(), 12u);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(paths[i], "/k" + std::to_string(i));
  EXPECT_EQ(paths[10], "/n0");
  EXPECT_EQ(paths[11], "/n1");
  // A batch with a position goes whole, however large: its position covers all its events.
  ASSERT_TRUE(q.Pop(out, 4, position));
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0].path, "/p0");
  EXPECT_EQ(position, 5u);
}

TEST(EventQueue, VectorsPopGaveUpComeBackToThePusherWithTheirCapacity) {
  EventQueue q(10000);
  auto big = Events(1000, "/x");
  const Event* big_storage = big.data();
  ASSERT_TRUE(q.Push(big));
  std::vector<Event> out;
  uint64_t position = 0;
  ASSERT_TRUE(q.Pop(out, 5000, position));
  EXPECT_EQ(out.data(), big_storage);  // moved through, not copied

  auto next = Events(10, "/y");
  ASSERT_TRUE(q.Push(next));
  ASSERT_TRUE(q.Pop(out, 5000, position));  // gives back the 1,000-event vector, emptied
  ASSERT_EQ(out.size(), 10u);
  std::vector<Event> batch = Events(1, "/z");
  ASSERT_TRUE(q.Push(batch));
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(batch.data(), big_storage);
  EXPECT_GE(batch.capacity(), 1000u);
}

TEST(EventQueue, PushWaitsWhileFullAndCloseEndsBothSides) {
  EventQueue q(2);
  auto first = Events(2, "/f");
  ASSERT_TRUE(q.Push(first));
  std::atomic<bool> pushed{false};
  std::thread pusher([&] {
    auto more = Events(1, "/m");
    pushed = q.Push(more);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(pushed);  // back-pressure: blocked, nothing dropped
  std::vector<Event> out;
  uint64_t position = 0;
  ASSERT_TRUE(q.Pop(out, 100, position));
  pusher.join();
  EXPECT_TRUE(pushed);
  q.Close();
  ASSERT_TRUE(q.Pop(out, 100, position));  // what was left
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].path, "/m0");
  EXPECT_FALSE(q.Pop(out, 100, position));
  auto late = Events(1, "/l");
  EXPECT_FALSE(q.Push(late));
}

}  // namespace
}  // namespace fathom::internal
