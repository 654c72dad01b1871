#define _GNU_SOURCE
// signal_closer FILE N: the main thread closes every descriptor from 1000 up (close_range) and
// dup2's and closes one, N times, while another thread (which blocks the signal) keeps sending
// SIGUSR1; the handler opens FILE, writes a byte and closes it. A tracer that took a lock in
// those calls without marking the thread would wait forever in the handler for the lock its
// own thread holds: alarm(20) ends such a run with SIGALRM. Prints "handled H".
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "workload.h"

#define CLOSE_ALL (~0U)

static const char* g_path;
static atomic_long g_handled;
static atomic_int g_done;

static void Handler(int signal) {
  (void)signal;
  const int saved = errno;
  const int fd = open(g_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0 || write(fd, "h", 1) != 1 || close(fd) != 0) abort();
  atomic_fetch_add(&g_handled, 1);
  errno = saved;
}

// One signal at a time: the next is sent once the handler has run, so that the program's own
// calls keep going between them however fast this thread runs.
static void* Sender(void* arg) {
  (void)arg;
  while (!atomic_load(&g_done)) {
    const long seen = atomic_load(&g_handled);
    kill(getpid(), SIGUSR1);
    while (atomic_load(&g_handled) == seen && !atomic_load(&g_done)) sched_yield();
  }
  return NULL;
}

int main(int argc, char** argv) {
  CHECK(argc == 3);
  g_path = argv[1];
  const long n = atol(argv[2]);
  alarm(20);
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = Handler;
  action.sa_flags = SA_RESTART;
  CHECK(sigaction(SIGUSR1, &action, NULL) == 0);
  sigset_t usr1, old;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  CHECK(pthread_sigmask(SIG_BLOCK, &usr1, &old) == 0);
  pthread_t sender;
  CHECK(pthread_create(&sender, NULL, Sender, NULL) == 0);
  CHECK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);

  const int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
  CHECK(fd >= 0);
  for (long i = 0; i < n; ++i) {
    CHECK(close_range(1000, CLOSE_ALL, 0) == 0);
    CHECK(dup2(fd, 1001) == 1001);
    CHECK(close(1001) == 0);
  }
  atomic_store(&g_done, 1);
  CHECK(pthread_join(sender, NULL) == 0);
  CHECK(pthread_sigmask(SIG_BLOCK, &usr1, NULL) == 0);
  printf("handled %ld\n", atomic_load(&g_handled));
  return 0;
}
