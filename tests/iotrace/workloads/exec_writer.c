// exec_writer FILE PROGRAM [ARG...]: writes 3 x 10 bytes to FILE, then execs PROGRAM.
#include <fcntl.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char** argv) {
  CHECK(argc >= 3);
  const int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 3; ++i) CHECK(write(fd, "0123456789", 10) == 10);
  CHECK(close(fd) == 0);
  execv(argv[2], argv + 2);
  CHECK(!"execv");
  return 1;
}
