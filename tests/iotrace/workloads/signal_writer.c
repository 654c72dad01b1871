// signal_writer FILE HANDLER_FILE N: the main thread makes N pwrite of 1 byte to FILE while
// another thread (which blocks the signal) keeps sending SIGUSR1 to the process; the handler
// makes one pwrite of 1 byte to HANDLER_FILE. Prints "handled H": the handler's runs.
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "workload.h"

static int g_handler_fd = -1;
static atomic_long g_handled;
static atomic_int g_done;

static void Handler(int signal) {
  (void)signal;
  const int saved = errno;
  if (pwrite(g_handler_fd, "h", 1, 0) != 1) abort();
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
  CHECK(argc == 4);
  const long n = atol(argv[3]);
  const int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  g_handler_fd = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(g_handler_fd >= 0);
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = Handler;
  action.sa_flags = SA_RESTART;
  CHECK(sigaction(SIGUSR1, &action, NULL) == 0);

  // The sender is made with SIGUSR1 blocked, so that only the other threads can run the handler.
  sigset_t usr1, old;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  CHECK(pthread_sigmask(SIG_BLOCK, &usr1, &old) == 0);
  pthread_t sender;
  CHECK(pthread_create(&sender, NULL, Sender, NULL) == 0);
  CHECK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);

  for (long i = 0; i < n; ++i) CHECK(pwrite(fd, "m", 1, 0) == 1);
  atomic_store(&g_done, 1);
  CHECK(pthread_join(sender, NULL) == 0);
  // A signal still pending runs its handler before the count is read.
  CHECK(pthread_sigmask(SIG_BLOCK, &usr1, NULL) == 0);
  CHECK(close(fd) == 0);
  printf("handled %ld\n", atomic_load(&g_handled));
  return 0;
}
