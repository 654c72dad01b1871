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

TEST(EventQueue, PopTakesWholeBatchesInOrderWithTheirHighestPosition) {
  EventQueue q(100);
  auto a = Events(3, "/a");
  auto b = Events(2, "/b");
  auto c = Events(4, "/c");
  ASSERT_TRUE(q.Push(a, 7));
  ASSERT_TRUE(q.Push(b, 0));
  ASSERT_TRUE(q.Push(c, 9));
  EXPECT_TRUE(a.empty());
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
  auto big = Events(10, "/k");
  auto after = Events(2, "/n");
  auto positioned = Events(7, "/p");
  ASSERT_TRUE(q.Push(big, 0));
  ASSERT_TRUE(q.Push(after, 0));
  ASSERT_TRUE(q.Push(positioned, 5));
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
