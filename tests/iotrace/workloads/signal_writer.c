// signal_writer FILE HANDLER_FILE N: the main thread makes N pwrite of 1 byte to FILE while
// another thread (which blocks the signal) keeps sending SIGUSR1 to the process; the handler
// makes one pwrite of 1 byte to HANDLER_FILE. Prints "handled H": the handler's runs.
#include <fcntl.h>
#include <unistd.h>

#include "signal_sender.h"

static int g_handler_fd = -1;

static void Handler(int signal) {
  (void)signal;
  const int saved = errno;
  if (pwrite(g_handler_fd, "h", 1, 0) != 1) abort();
  atomic_fetch_add(&g_handled, 1);
  errno = saved;
}

int main(int argc, char** argv) {
  CHECK(argc == 4);
  const long n = atol(argv[3]);
  const int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  g_handler_fd = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(g_handler_fd >= 0);
  const pthread_t sender = StartSignalSender(Handler);

  for (long i = 0; i < n; ++i) CHECK(pwrite(fd, "m", 1, 0) == 1);
  const long handled = StopSignalSender(sender);
  CHECK(close(fd) == 0);
  printf("handled %ld\n", handled);
  return 0;
}
