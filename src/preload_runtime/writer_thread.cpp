// writer_thread.cpp — the tracer's background writer.
#include "preload_runtime/writer_thread.h"

#include <signal.h>
#include <time.h>

namespace fathom::preload_runtime {

void* WriterThread::Main(void* arg) {
  auto* self = static_cast<WriterThread*>(arg);
  pthread_mutex_lock(&self->mutex_);
  while (!self->stop_) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    const uint64_t at = static_cast<uint64_t>(until.tv_sec) * 1'000'000'000ull +
                        static_cast<uint64_t>(until.tv_nsec) + self->period_ns_;
    until.tv_sec = static_cast<time_t>(at / 1'000'000'000ull);
    until.tv_nsec = static_cast<long>(at % 1'000'000'000ull);
    pthread_cond_timedwait(&self->wake_, &self->mutex_, &until);
    if (self->stop_) break;
    pthread_mutex_unlock(&self->mutex_);
    self->tick_();
    pthread_mutex_lock(&self->mutex_);
  }
  pthread_mutex_unlock(&self->mutex_);
  return nullptr;
}

bool WriterThread::Start(uint64_t period_ns, void (*tick)()) {
  period_ns_ = period_ns;
  tick_ = tick;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&wake_, &attr);
  pthread_condattr_destroy(&attr);
  stop_ = false;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  running_ = pthread_create(&thread_, nullptr, Main, this) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return running_;
}

void WriterThread::Stop() {
  if (!running_) return;
  pthread_mutex_lock(&mutex_);
  stop_ = true;
  pthread_cond_signal(&wake_);
  pthread_mutex_unlock(&mutex_);
  pthread_join(thread_, nullptr);
  running_ = false;
}

void WriterThread::Reset() {
  pthread_mutex_init(&mutex_, nullptr);
  running_ = false;
}

}  // namespace fathom::preload_runtime
