#define _GNU_SOURCE
// signal_closer FILE N: the main thread closes every descriptor from 1000 up (close_range) and
// dup2's and closes one, N times, while another thread (which blocks the signal) keeps sending
// SIGUSR1; the handler opens FILE, writes a byte and closes it. A tracer that took a lock in
// those calls without marking the thread would wait forever in the handler for the lock its
// own thread holds: alarm(20) ends such a run with SIGALRM. Prints "handled H".
#include <fcntl.h>
#include <unistd.h>

#include "signal_sender.h"

#define CLOSE_ALL (~0U)

static const char* g_path;

static void Handler(int signal) {
  (void)signal;
  const int saved = errno;
  const int fd = open(g_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0 || write(fd, "h", 1) != 1 || close(fd) != 0) abort();
  atomic_fetch_add(&g_handled, 1);
  errno = saved;
}

int main(int argc, char** argv) {
  CHECK(argc == 3);
  g_path = argv[1];
  const long n = atol(argv[2]);
  alarm(20);
  const pthread_t sender = StartSignalSender(Handler);

  const int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
  CHECK(fd >= 0);
  for (long i = 0; i < n; ++i) {
    CHECK(close_range(1000, CLOSE_ALL, 0) == 0);
    CHECK(dup2(fd, 1001) == 1001);
    CHECK(close(1001) == 0);
  }
  const long handled = StopSignalSender(sender);
  printf("handled %ld\n", handled);
  return 0;
}
