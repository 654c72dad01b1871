// thread_slots.h — the fixed table of per-thread recording states of a preloaded tracer.
//
// A thread claims a free slot at its first record (no allocation: the table is a global in
// .bss) and frees it when it ends (a pthread key's destructor, `release`, which hands the
// state's buffer over first). More threads than slots: Claim returns nullptr and the caller
// counts what it drops.
//
// State must have `SpinLock lock`, `std::atomic<bool> taken`, `pid_t tid` and `void Begin()`,
// which empties it for a new thread (and every state in a forked child). A state's lock is taken by
// its thread for each record and by the writer for a sweep; the table's lock by sweeps and
// fork only, never by a recording thread.
#pragma once

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload_runtime/spin_lock.h"

namespace fathom::preload_runtime {

template <class State, int kCount>
class ThreadSlots {
 public:
  // A free state for the calling thread, begun, with the thread's key set; nullptr if none.
  State* Claim() {
    for (State& s : states_) {
      bool expected = false;
      if (!s.taken.load(std::memory_order_relaxed) &&
          s.taken.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
        Hold hold(s.lock);
        s.tid = static_cast<pid_t>(syscall(SYS_gettid));
        s.Begin();
        pthread_setspecific(key_, &s);
        return &s;
      }
    }
    return nullptr;
  }
  void Free(State* s) { s->taken.store(false, std::memory_order_release); }

  // Calls `f(state)` for every claimed state, with the table's and the state's locks held.
  template <class F>
  void ForEach(F f) {
    Hold table(lock_);
    for (State& s : states_) {
      if (!s.taken.load(std::memory_order_acquire)) continue;
      Hold hold(s.lock);
      f(s);
    }
  }

  // After fork: only `self` (the calling thread's state, may be null) stays claimed; every
  // state is forgotten.
  void ForgetOthers(State* self) {
    for (State& s : states_) {
      s.lock.Reset();
      s.Begin();
      if (&s != self) s.taken.store(false, std::memory_order_relaxed);
    }
    if (self != nullptr) self->tid = static_cast<pid_t>(syscall(SYS_gettid));
  }

  void CreateKey(void (*release)(void*)) { pthread_key_create(&key_, release); }
  void Lock() { lock_.lock(); }
  void Unlock() { lock_.unlock(); }
  void ResetLock() { lock_.Reset(); }

 private:
  State states_[kCount];
  SpinLock lock_;
  pthread_key_t key_ = 0;
};

}  // namespace fathom::preload_runtime
