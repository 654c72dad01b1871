// meta_workload DIR: in DIR (which exists), 1000 files made (open O_CREAT + close), each
// stat'ed, then unlinked; 10 directories made, each renamed, then removed; 5 stat of a
// missing name, each failing with ENOENT as the program must see it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  char path[4096], other[4096];
  for (int i = 0; i < 1000; ++i) {
    snprintf(path, sizeof(path), "%s/f%04d", argv[1], i);
    const int fd = open(path, O_CREAT | O_WRONLY, 0644);
    CHECK(fd >= 0);
    CHECK(close(fd) == 0);
  }
  for (int i = 0; i < 1000; ++i) {
    snprintf(path, sizeof(path), "%s/f%04d", argv[1], i);
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
  }
  for (int i = 0; i < 1000; ++i) {
    snprintf(path, sizeof(path), "%s/f%04d", argv[1], i);
    CHECK(unlink(path) == 0);
  }
  for (int i = 0; i < 10; ++i) {
    snprintf(path, sizeof(path), "%s/d%d", argv[1], i);
    snprintf(other, sizeof(other), "%s/e%d", argv[1], i);
    CHECK(mkdir(path, 0755) == 0);
    CHECK(rename(path, other) == 0);
    CHECK(rmdir(other) == 0);
  }
  snprintf(path, sizeof(path), "%s/missing", argv[1]);
  for (int i = 0; i < 5; ++i) {
    struct stat st;
    errno = 0;
    if (stat(path, &st) != -1 || errno != ENOENT) {
      fprintf(stderr, "stat of a missing file: errno %d, not ENOENT\n", errno);
      return 4;
    }
  }
  return 0;
}
