// signal_waiter.h — turns SIGINT/SIGTERM/SIGHUP into a callback on an ordinary thread.
//
// Construct it before starting any other thread: it blocks those signals in the calling
// thread (threads started later inherit the mask) and waits for them on its own thread
// (through a signalfd), so the callback may lock, log and call Stop() on anything. The
// destructor wakes that thread (an eventfd) and joins it at once.
#pragma once

#include <functional>
#include <thread>

namespace fathom::cli {

class SignalWaiter {
 public:
  explicit SignalWaiter(std::function<void(int signal)> on_signal);
  ~SignalWaiter();
  SignalWaiter(const SignalWaiter&) = delete;
  SignalWaiter& operator=(const SignalWaiter&) = delete;

 private:
  int signal_fd_ = -1;
  int wake_fd_ = -1;
  std::thread thread_;
};

}  // namespace fathom::cli
