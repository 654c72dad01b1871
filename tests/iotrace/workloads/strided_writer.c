// strided_writer FILE: 1000 pwrite of 4096 bytes at offsets 0, 8192, 16384...
#include <fcntl.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  static char block[4096];
  memset(block, 'b', sizeof(block));
  const int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (off_t i = 0; i < 1000; ++i) CHECK(pwrite(fd, block, sizeof(block), i * 8192) == sizeof(block));
  CHECK(close(fd) == 0);
  return 0;
}
