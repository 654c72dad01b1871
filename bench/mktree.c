// mktree — builds a directory tree of a given size quickly, for the setup-cost benchmark.
//
// The shape is that of a real project tree, wide and deep: a complete tree with fan-out F in
// breadth-first order, so directory k (1..N) is child number (k-1) % F of directory (k-1) / F
// (directory 0 is DIR itself) and is named d<child>. 1,000,000 directories with fan-out 10 are
// six levels deep. Levels are built one after the other; within a level, J processes (fork)
// share the parents, each creating its parents' children with mkdirat().
//
// Prints one JSON object on stdout: {"dirs":N,"fanout":F,"depth":D,"elapsed_s":T,"dir":"DIR"}.
// Directories that already exist are accepted, so an interrupted run can be completed.
// Exit codes: 0 done, 1 a system call failed (the message names it and the path), 2 bad usage.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kMaxJobs = 256, kMaxPath = 4096 };

struct Config {
  const char* dir;
  long long dirs;
  long long fanout;
  long jobs;
};

static void Usage(FILE* out) {
  fprintf(out,
          "usage: mktree --dir DIR --dirs N [--fanout F] [--jobs J]\n"
          "\n"
          "Create N directories below DIR (created if missing) as a complete tree with\n"
          "fan-out F, breadth first. Prints a JSON summary on stdout.\n"
          "\n"
          "  --dir DIR     root of the tree\n"
          "  --dirs N      directories to create below DIR\n"
          "  --fanout F    children per directory (default 10)\n"
          "  --jobs J      processes creating directories in parallel (default: online CPUs)\n");
}

static double MonotonicSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// Writes the path of directory `k` (relative to the root, "." for the root) into buf.
static void RelativePath(long long k, long long fanout, char* buf, size_t size) {
  long long chain[64];
  int n = 0;
  while (k > 0 && n < 64) {
    chain[n++] = k;
    k = (k - 1) / fanout;
  }
  size_t len = 0;
  buf[0] = '.';
  buf[1] = '\0';
  len = 1;
  for (int i = n - 1; i >= 0; --i) {
    int w = snprintf(buf + len, size - len, "/d%lld", (chain[i] - 1) % fanout);
    if (w < 0 || (size_t)w >= size - len) return;
    len += (size_t)w;
  }
}

// Creates the children of parents [first, last) that fall to this job; 0 or 1 on failure.
static int BuildParents(const struct Config* c, int rootfd, long long first, long long last, long job) {
  char path[kMaxPath];
  char name[32];
  for (long long p = first + job; p < last; p += c->jobs) {
    long long child0 = p * c->fanout + 1;
    if (child0 > c->dirs) break;
    RelativePath(p, c->fanout, path, sizeof path);
    int fd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      fprintf(stderr, "mktree: open %s/%s: %s\n", c->dir, path, strerror(errno));
      return 1;
    }
    for (long long k = child0; k < child0 + c->fanout && k <= c->dirs; ++k) {
      snprintf(name, sizeof name, "d%lld", (k - 1) % c->fanout);
      if (mkdirat(fd, name, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "mktree: mkdir %s/%s/%s: %s\n", c->dir, path, name, strerror(errno));
        close(fd);
        return 1;
      }
    }
    close(fd);
  }
  return 0;
}

static int ParseArgs(int argc, char** argv, struct Config* c) {
  static const struct option kOptions[] = {
      {"dir", required_argument, NULL, 'd'},  {"dirs", required_argument, NULL, 'n'},
      {"fanout", required_argument, NULL, 'f'}, {"jobs", required_argument, NULL, 'j'},
      {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0}};
  c->dir = NULL;
  c->dirs = 0;
  c->fanout = 10;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  c->jobs = cpus > 0 ? (cpus < kMaxJobs ? cpus : kMaxJobs) : 1;
  int opt;
  char* end = NULL;
  while ((opt = getopt_long(argc, argv, "d:n:f:j:h", kOptions, NULL)) != -1) {
    switch (opt) {
      case 'd': c->dir = optarg; break;
      case 'n':
        c->dirs = strtoll(optarg, &end, 10);
        if (*end != '\0' || c->dirs < 1) {
          fprintf(stderr, "mktree: bad --dirs '%s' (a positive integer)\n", optarg);
          return 2;
        }
        break;
      case 'f':
        c->fanout = strtoll(optarg, &end, 10);
        if (*end != '\0' || c->fanout < 2 || c->fanout > 1000000) {
          fprintf(stderr, "mktree: bad --fanout '%s' (2..1000000)\n", optarg);
          return 2;
        }
        break;
      case 'j':
        c->jobs = strtol(optarg, &end, 10);
        if (*end != '\0' || c->jobs < 1 || c->jobs > kMaxJobs) {
          fprintf(stderr, "mktree: bad --jobs '%s' (1..%d)\n", optarg, kMaxJobs);
          return 2;
        }
        break;
      case 'h': Usage(stdout); exit(0);
      default: Usage(stderr); return 2;
    }
  }
  if (optind != argc || c->dir == NULL || c->dirs == 0) {
    Usage(stderr);
    return 2;
  }
  return 0;
}

int main(int argc, char** argv) {
  struct Config c;
  int rc = ParseArgs(argc, argv, &c);
  if (rc != 0) return rc;
  if (mkdir(c.dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "mktree: mkdir %s: %s\n", c.dir, strerror(errno));
    return 1;
  }
  int rootfd = open(c.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0) {
    fprintf(stderr, "mktree: open %s: %s (is it a directory?)\n", c.dir, strerror(errno));
    return 1;
  }
  double t0 = MonotonicSeconds();
  // Level L holds directories [first, last); its parents are the previous level.
  long long first = 0, last = 1;
  int depth = 0;
  while (first * c.fanout + 1 <= c.dirs) {
    pid_t pids[kMaxJobs];
    long started = 0;
    int failed = 0;
    for (long j = 0; j < c.jobs; ++j) {
      pid_t pid = fork();
      if (pid < 0) {
        fprintf(stderr, "mktree: fork: %s\n", strerror(errno));
        failed = 1;
        break;
      }
      if (pid == 0) _exit(BuildParents(&c, rootfd, first, last, j));
      pids[started++] = pid;
    }
    for (long j = 0; j < started; ++j) {
      int status = 0;
      while (waitpid(pids[j], &status, 0) < 0 && errno == EINTR) {
      }
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
    }
    if (failed) return 1;
    long long next_first = last;
    long long next_last = last * c.fanout + 1;
    first = next_first;
    last = next_last;
    ++depth;
  }
  double elapsed = MonotonicSeconds() - t0;
  close(rootfd);
  printf("{\"dirs\":%lld,\"fanout\":%lld,\"depth\":%d,\"elapsed_s\":%.3f,\"dir\":\"", c.dirs, c.fanout, depth,
         elapsed);
  for (const char* p = c.dir; *p != '\0'; ++p) {
    if (*p == '"' || *p == '\\') putchar('\\');
    putchar(*p);
  }
  printf("\"}\n");
  return 0;
}
