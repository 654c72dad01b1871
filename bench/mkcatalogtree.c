// mkcatalogtree — builds a reproducible tree of N entries for the scanner benchmarks.
//
// The same seed gives the same tree. Directories are filled breadth first: each holds a
// uniformly drawn 1..39 entries (mean width 20), of which about 6 % are subdirectories (so
// that the tree keeps growing until N entries exist) and the rest regular files whose sizes
// follow a gamma distribution (shape 2, mean 64 KiB), set with ftruncate() so that they are
// sparse and the tree needs no disk space beyond its inodes. With --wide, all N entries are
// files in DIR itself (one very wide directory). With --varied, files also get what queries
// select on: an extension (.dat .h5 .txt .nc .log .tar), one of ten owners (uid 1000-1009,
// gid 100-102), a modification time up to 400 days old (directories too), and 2 % of them a
// size 64 times larger (so that -size +1M finds some).
//
// Prints one JSON object on stdout: {"entries":N,"dirs":D,"files":F,"bytes":B,"elapsed_s":T}.
// Exit codes: 0 done, 1 a system call failed (the message names it and the path), 2 bad usage.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng_state;

// splitmix64: a small generator whose sequence depends only on the seed.
static uint64_t Next(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double Uniform(void) { return ((double)(Next() >> 11) + 0.5) / 9007199254740992.0; }

// Gamma(shape 2, scale 32 KiB): the sum of two exponentials.
static long long GammaSize(void) {
  return (long long)(-32768.0 * (log(Uniform()) + log(Uniform())));
}

static void Usage(FILE* out) {
  fprintf(out,
          "usage: mkcatalogtree --dir DIR --entries N [--seed S] [--wide] [--varied]\n"
          "\n"
          "Create N entries below DIR (created if missing; it should be empty): directories of\n"
          "mean width 20 and sparse files of gamma-distributed sizes, the same tree for the\n"
          "same seed (default 1). --wide puts all N files in DIR itself. --varied gives files\n"
          "extensions, ten owners, ages up to 400 days and a few large sizes.\n");
}

static int Fail(const char* what, const char* path) {
  fprintf(stderr, "mkcatalogtree: %s %s: %s\n", what, path, strerror(errno));
  return 1;
}

int main(int argc, char** argv) {
  const char* dir = NULL;
  long long entries = -1;
  int wide = 0, varied = 0;
  rng_state = 1;
  static const struct option kOptions[] = {
      {"dir", required_argument, 0, 'd'},  {"entries", required_argument, 0, 'n'},
      {"seed", required_argument, 0, 's'}, {"wide", no_argument, 0, 'w'},
      {"varied", no_argument, 0, 'v'},     {"help", no_argument, 0, 'h'},
      {0, 0, 0, 0}};
  for (int c; (c = getopt_long(argc, argv, "", kOptions, NULL)) != -1;) {
    switch (c) {
      case 'd':
        dir = optarg;
        break;
      case 'n':
        entries = atoll(optarg);
        break;
      case 's':
        rng_state = strtoull(optarg, NULL, 10);
        break;
      case 'w':
        wide = 1;
        break;
      case 'v':
        varied = 1;
        break;
      case 'h':
        Usage(stdout);
        return 0;
      default:
        Usage(stderr);
        return 2;
    }
  }
  if (dir == NULL || entries < 0) {
    Usage(stderr);
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) return Fail("cannot create", dir);

  // Directories waiting to be filled, as paths, in the order they were created.
  size_t cap = 1024, head = 0, tail = 0;
  char** queue = malloc(cap * sizeof *queue);
  queue[tail++] = strdup(dir);
  long long made = 0, dirs = 0, files = 0, bytes = 0;
  char path[4096];
  static const char* const kExtensions[] = {".dat", ".h5", ".txt", ".nc", ".log", ".tar"};
  const time_t now = time(NULL);
  while (made < entries) {
    const char* parent = queue[head < tail ? head : tail - 1];
    if (head < tail) ++head;
    long long width = wide ? entries : 1 + (long long)(Next() % 39);
    for (long long i = 0; i < width && made < entries; ++i, ++made) {
      int n = snprintf(path, sizeof path, "%s/%c%lld", parent, 'a' + (int)(Next() % 26), made);
      if (!wide && Next() % 100 < 6) {
        if (mkdir(path, 0755) != 0) return Fail("cannot create directory", path);
        if (tail == cap) queue = realloc(queue, (cap *= 2) * sizeof *queue);
        queue[tail++] = strdup(path);
        ++dirs;
        continue;
      }
      if (varied) snprintf(path + n, sizeof path - (size_t)n, "%s", kExtensions[Next() % 6]);
      int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
      if (fd < 0) return Fail("cannot create", path);
      long long size = GammaSize();
      if (varied && Next() % 100 < 2) size *= 64;
      if (ftruncate(fd, size) != 0) return Fail("cannot set the size of", path);
      if (varied) {
        if (fchown(fd, 1000 + (uid_t)(Next() % 10), 100 + (gid_t)(Next() % 3)) != 0)
          return Fail("cannot change the owner of", path);
        struct timespec times[2];
        times[0].tv_sec = times[1].tv_sec = now - (time_t)(Next() % (400 * 86400));
        times[0].tv_nsec = times[1].tv_nsec = 0;
        if (futimens(fd, times) != 0) return Fail("cannot set the times of", path);
      }
      close(fd);
      ++files;
      bytes += size;
    }
  }
  // Directories last: their times would move with every name made in them.
  for (size_t i = 0; varied && i < tail; ++i) {
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = now - (time_t)(Next() % (400 * 86400));
    times[0].tv_nsec = times[1].tv_nsec = 0;
    if (utimensat(AT_FDCWD, queue[i], times, 0) != 0) return Fail("cannot set the times of", queue[i]);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("{\"entries\":%lld,\"dirs\":%lld,\"files\":%lld,\"bytes\":%lld,\"elapsed_s\":%.3f}\n",
         made, dirs, files, bytes,
         (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
  for (size_t i = 0; i < tail; ++i) free(queue[i]);
  free(queue);
  return 0;
}
