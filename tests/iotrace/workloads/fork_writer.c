// fork_writer PARENT_FILE CHILD_FILE: the parent writes 5 x 100 bytes to PARENT_FILE, forks;
// the child writes 10 x 200 bytes to CHILD_FILE and exits; the parent waits for it, writes
// 20 x 100 bytes more and prints the child's pid.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char** argv) {
  CHECK(argc == 3);
  char block[200];
  memset(block, 'f', sizeof(block));
  const int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 5; ++i) CHECK(write(fd, block, 100) == 100);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    const int out = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(out >= 0);
    for (int i = 0; i < 10; ++i) CHECK(write(out, block, 200) == 200);
    CHECK(close(out) == 0);
    exit(0);
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int i = 0; i < 20; ++i) CHECK(write(fd, block, 100) == 100);
  CHECK(close(fd) == 0);
  printf("child %d\n", (int)child);
  return 0;
}
