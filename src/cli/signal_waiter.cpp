#include "cli/signal_waiter.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/thread_name.h"

namespace fathom::cli {
namespace {

sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

SignalWaiter::SignalWaiter(std::function<void(int)> on_signal) {
  sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal_fd_ = signalfd(-1, &set, SFD_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_CLOEXEC);
  if (signal_fd_ < 0 || wake_fd_ < 0) {
    // Without them the signals keep their default action (the process ends), not ignored.
    std::fprintf(stderr, "fathom: cannot wait for signals (%s): SIGINT and SIGTERM end the process at once\n",
                 std::strerror(errno));
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    return;
  }
  thread_ = std::thread([this, cb = std::move(on_signal)] {
    NameThisThread("signals");
    pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    for (;;) {
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      signalfd_siginfo info{};
      if (read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        cb(static_cast<int>(info.ssi_signo));
      }
    }
  });
}

SignalWaiter::~SignalWaiter() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    if (write(wake_fd_, &one, sizeof one) != static_cast<ssize_t>(sizeof one)) std::perror("fathom: signal waiter");
    thread_.join();
  }
  if (signal_fd_ >= 0) close(signal_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

}  // namespace fathom::cli
