// vfork_exec FILE PROGRAM: writes 4 x 10 bytes to FILE, runs PROGRAM with vfork + execv and
// waits for it, writes 4 x 10 bytes more, and prints the child's pid.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char** argv) {
  CHECK(argc == 3);
  const int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 4; ++i) CHECK(write(fd, "0123456789", 10) == 10);
  char* child_argv[] = {argv[2], NULL};
  const pid_t child = vfork();
  CHECK(child >= 0);
  if (child == 0) {
    execv(argv[2], child_argv);
    _exit(127);
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int i = 0; i < 4; ++i) CHECK(write(fd, "0123456789", 10) == 10);
  CHECK(close(fd) == 0);
  printf("child %d\n", (int)child);
  return 0;
}
