// errno_keeper FILE: failing calls, each checked for the errno the program must see:
// read on a write-only descriptor (EBADF), read on -1 (EBADF), open of a missing file
// (ENOENT), fwrite to a read-only stream (EBADF), lseek on a pipe (ESPIPE).
#include <fcntl.h>
#include <unistd.h>

#include "workload.h"

#define EXPECT_ERRNO(call, expected)                                                       \
  do {                                                                                   \
    errno = 0;                                                                           \
    (void)(call);                                                                        \
    if (errno != (expected)) {                                                           \
      fprintf(stderr, "%s: errno %d, not %d\n", #call, errno, expected);                 \
      exit(4);                                                                           \
    }                                                                                    \
  } while (0)

int main(int argc, char** argv) {
  CHECK(argc == 2);
  char buffer[16];
  const int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  EXPECT_ERRNO(read(fd, buffer, sizeof(buffer)), EBADF);
  EXPECT_ERRNO(read(-1, buffer, sizeof(buffer)), EBADF);
  char missing[4096];
  snprintf(missing, sizeof(missing), "%s.missing", argv[1]);
  EXPECT_ERRNO(open(missing, O_RDONLY), ENOENT);
  FILE* in = fopen(argv[1], "r");
  CHECK(in != NULL);
  EXPECT_ERRNO(fwrite("x", 1, 1, in), EBADF);
  CHECK(fclose(in) == 0);
  int pipe_fds[2];
  CHECK(pipe(pipe_fds) == 0);
  EXPECT_ERRNO(lseek(pipe_fds[0], 0, SEEK_SET), ESPIPE);
  CHECK(close(fd) == 0);
  return 0;
}
