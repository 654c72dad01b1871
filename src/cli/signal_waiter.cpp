#include "cli/signal_waiter.h"

#include <signal.h>

#include <ctime>

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
  thread_ = std::thread([this, set, cb = std::move(on_signal)] {
    NameThisThread("signals");
    const timespec tick{0, 100'000'000};
    while (!done_) {
      int sig = sigtimedwait(&set, nullptr, &tick);
      if (sig > 0) cb(sig);
    }
  });
}

SignalWaiter::~SignalWaiter() {
  done_ = true;
  thread_.join();
}

}  // namespace fathom::cli
