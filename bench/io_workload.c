/* io_workload — the I/O the tracer's benchmark measures (bench/io_trace_benchmark.cpp).
 *
 *   io_workload stdio FILE N      N one-byte fwrite, then N one-byte fread of them
 *   io_workload bigio FILE MIB    MIB writes of 1 MiB, fsync, then MIB reads of 1 MiB
 *   io_workload meta DIR N        create (open O_CREAT + close), stat and unlink N files
 *   io_workload small FILE N      N writes of 64 bytes with write(2), then N pread of them
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int Fail(const char* what) {
  perror(what);
  return 1;
}

static int Stdio(const char* file, long n) {
  FILE* out = fopen(file, "w");
  if (out == NULL) return Fail(file);
  for (long i = 0; i < n; ++i) {
    if (fwrite("x", 1, 1, out) != 1) return Fail("fwrite");
  }
  if (fclose(out) != 0) return Fail("fclose");
  FILE* in = fopen(file, "r");
  if (in == NULL) return Fail(file);
  char c;
  for (long i = 0; i < n; ++i) {
    if (fread(&c, 1, 1, in) != 1) return Fail("fread");
  }
  fclose(in);
  return 0;
}

static int BigIo(const char* file, long mib) {
  static char block[1 << 20];
  memset(block, 'x', sizeof(block));
  int fd = open(file, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) return Fail(file);
  for (long i = 0; i < mib; ++i) {
    if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block)) return Fail("write");
  }
  if (fsync(fd) != 0) return Fail("fsync");
  close(fd);
  fd = open(file, O_RDONLY);
  if (fd < 0) return Fail(file);
  for (long i = 0; i < mib; ++i) {
    if (read(fd, block, sizeof(block)) != (ssize_t)sizeof(block)) return Fail("read");
  }
  close(fd);
  return 0;
}

static int Meta(const char* dir, long n) {
  char path[4096];
  struct stat st;
  for (long i = 0; i < n; ++i) {
    snprintf(path, sizeof(path), "%s/f%07ld", dir, i);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0) return Fail(path);
    close(fd);
  }
  for (long i = 0; i < n; ++i) {
    snprintf(path, sizeof(path), "%s/f%07ld", dir, i);
    if (stat(path, &st) != 0) return Fail(path);
  }
  for (long i = 0; i < n; ++i) {
    snprintf(path, sizeof(path), "%s/f%07ld", dir, i);
    if (unlink(path) != 0) return Fail(path);
  }
  return 0;
}

static int Small(const char* file, long n) {
  char record[64];
  memset(record, 'r', sizeof(record));
  int fd = open(file, O_CREAT | O_TRUNC | O_RDWR, 0644);
  if (fd < 0) return Fail(file);
  for (long i = 0; i < n; ++i) {
    if (write(fd, record, sizeof(record)) != (ssize_t)sizeof(record)) return Fail("write");
  }
  for (long i = 0; i < n; ++i) {
    if (pread(fd, record, sizeof(record), i * (long)sizeof(record)) != (ssize_t)sizeof(record)) return Fail("pread");
  }
  close(fd);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: io_workload stdio|bigio|meta|small PATH N\n");
    return 2;
  }
  const long n = strtol(argv[3], NULL, 10);
  if (strcmp(argv[1], "stdio") == 0) return Stdio(argv[2], n);
  if (strcmp(argv[1], "bigio") == 0) return BigIo(argv[2], n);
  if (strcmp(argv[1], "meta") == 0) return Meta(argv[2], n);
  if (strcmp(argv[1], "small") == 0) return Small(argv[2], n);
  fprintf(stderr, "io_workload: unknown workload %s\n", argv[1]);
  return 2;
}
