// sizes_writer FILE: write() of every size from 1 to 127 bytes, one after the other.
#include <fcntl.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  char buffer[127];
  memset(buffer, 'a', sizeof(buffer));
  const int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (size_t size = 1; size <= 127; ++size) CHECK(write(fd, buffer, size) == (ssize_t)size);
  CHECK(close(fd) == 0);
  return 0;
}
