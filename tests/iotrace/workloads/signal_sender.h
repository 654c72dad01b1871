// signal_sender.h — what the signal workloads share: SIGUSR1 runs a handler that counts its
// runs in g_handled, and a thread (which blocks the signal, so only the program's threads run
// the handler) sends one signal at a time: the next once the handler has run, so that the
// program's own calls keep going between them however fast that thread runs.
#pragma once

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "workload.h"

static atomic_long g_handled;
static atomic_int g_done;

static void* SignalSender(void* arg) {
  (void)arg;
  while (!atomic_load(&g_done)) {
    const long seen = atomic_load(&g_handled);
    kill(getpid(), SIGUSR1);
    while (atomic_load(&g_handled) == seen && !atomic_load(&g_done)) sched_yield();
  }
  return NULL;
}

// Installs `handler` for SIGUSR1 and starts the sender.
static pthread_t StartSignalSender(void (*handler)(int)) {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  CHECK(sigaction(SIGUSR1, &action, NULL) == 0);
  sigset_t usr1, old;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  CHECK(pthread_sigmask(SIG_BLOCK, &usr1, &old) == 0);
  pthread_t sender;
  CHECK(pthread_create(&sender, NULL, SignalSender, NULL) == 0);
  CHECK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
  return sender;
}

// Stops the sender and lets a signal still pending run its handler before the count is read.
static long StopSignalSender(pthread_t sender) {
  atomic_store(&g_done, 1);
  CHECK(pthread_join(sender, NULL) == 0);
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  CHECK(pthread_sigmask(SIG_BLOCK, &usr1, NULL) == 0);
  return atomic_load(&g_handled);
}
