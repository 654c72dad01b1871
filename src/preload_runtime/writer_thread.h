// writer_thread.h — the background thread of a preloaded tracer: every period (or when woken)
// it calls the tracer's `tick`, which hands the threads' buffers over and writes them.
//
// The thread blocks every signal, so that the program's handlers never run on it (their calls
// would be taken for the tracer's own). Its deadlines are on the monotonic clock.
//
// Threading: Start and Stop from one thread at a time (the tracer's start, exit and exec);
// Wake from any thread. Lock/Unlock hold the thread between ticks over a fork (the child has
// no writer: Reset, then Start again).
#pragma once

#include <pthread.h>
#include <stdint.h>

namespace fathom::preload_runtime {

class WriterThread {
 public:
  // False if the thread could not be made.
  bool Start(uint64_t period_ns, void (*tick)());
  void Stop();  // waits for the thread to end; nothing if none runs
  void Wake() { pthread_cond_signal(&wake_); }
  void Lock() { pthread_mutex_lock(&mutex_); }
  void Unlock() { pthread_mutex_unlock(&mutex_); }
  void Reset();

 private:
  static void* Main(void* self);

  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t wake_ = PTHREAD_COND_INITIALIZER;
  uint64_t period_ns_ = 0;
  void (*tick_)() = nullptr;
  bool stop_ = false;
  bool running_ = false;
  pthread_t thread_{};
};

}  // namespace fathom::preload_runtime
