// steady_writer FILE: prints "pid P", then writes 64 bytes to FILE every 50 us or so until it
// is killed, printing "count C" (the writes done) every 10 ms. Gives up after 60 s.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static double Seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  const int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  setvbuf(stdout, NULL, _IONBF, 0);
  printf("pid %d\n", (int)getpid());
  char record[64];
  memset(record, 'r', sizeof(record));
  const double start = Seconds();
  double reported = start;
  const struct timespec pause = {0, 50000};
  for (long count = 1; Seconds() - start < 60; ++count) {
    CHECK(write(fd, record, sizeof(record)) == sizeof(record));
    if (Seconds() - reported >= 0.01) {
      printf("count %ld\n", count);
      reported = Seconds();
    }
    nanosleep(&pause, NULL);
  }
  return 5;
}
