// SetThisThreadNice changes the calling thread only, as the kernel reports it.
#include "core/thread_priority.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cerrno>
#include <thread>

namespace fathom {
namespace {

int NiceOf(pid_t tid) {
  errno = 0;
  return getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
}

TEST(ThreadPriority, BackgroundNiceLowersTheCallingThreadOnly) {
  const int before = NiceOf(gettid());
  int inside = -100;
  std::thread background([&] {
    ASSERT_TRUE(SetThisThreadNice(kBackgroundNice));
    inside = NiceOf(gettid());
  });
  background.join();
  EXPECT_EQ(inside, kBackgroundNice);
  EXPECT_EQ(NiceOf(gettid()), before);
}

}  // namespace
}  // namespace fathom
