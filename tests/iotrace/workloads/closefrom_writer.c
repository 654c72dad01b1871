// closefrom_writer FILE: 10 writes of 10 bytes to FILE; closefrom(3); FILE opened again for
// appending, 10 writes; close_range(3, ~0U, 0); opened again, 10 writes; the descriptor is
// left for the exit to close. FILE ends with 300 bytes.
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "workload.h"

static void WriteTen(const char* path, int flags) {
  const int fd = open(path, flags, 0644);
  CHECK(fd >= 3);
  for (int i = 0; i < 10; ++i) CHECK(write(fd, "0123456789", 10) == 10);
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  WriteTen(argv[1], O_CREAT | O_WRONLY | O_TRUNC);
  CHECK(open("/dev/null", O_RDONLY) >= 3);
  closefrom(3);
  WriteTen(argv[1], O_WRONLY | O_APPEND);
  CHECK(close_range(3, ~0U, 0) == 0);
  WriteTen(argv[1], O_WRONLY | O_APPEND);
  return 0;
}
