// evaluate_performance — the load generator of FSMonitor's Evaluate_Performance_Script (§V-B),
// in C so that the generator, not the interpreter, sets the pace.
//
// P processes (fork) each repeat one cycle as fast as they can: open(O_CREAT|O_WRONLY) a file
// whose name is unique to the process and the iteration, write a few bytes, close, unlink. Each
// cycle makes exactly four inotify events: CREATE, MODIFY, CLOSE_WRITE, DELETE. The processes
// start together (a pipe closed by the parent releases them); the run ends after a total number
// of cycles (--cycles, split evenly) or after a duration (--seconds).
//
// Prints one JSON object on stdout:
//   {"procs":P,"cycles":N,"events":4N,"elapsed_s":T,"events_per_s":4N/T,"dir":"D","prefix":"p"}
// File names are DIR/PREFIX<process>_<iteration>, so a monitor's output can be matched to them.
// Exit codes: 0 done, 1 a system call failed (the message names it and the path), 2 bad usage.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kMaxProcs = 1024, kPayloadBytes = 64 };

struct Config {
  const char* dir;
  const char* prefix;
  long procs;
  long long cycles;   // total over all processes; 0 when --seconds is used
  double seconds;     // 0 when --cycles is used
};

static void Usage(FILE* out) {
  fprintf(out,
          "usage: evaluate_performance --dir DIR (--cycles N | --seconds S) [--procs P] [--prefix NAME]\n"
          "\n"
          "Repeatedly create, write, close and delete files in DIR (FSMonitor's\n"
          "Evaluate_Performance_Script): every cycle makes 4 events (CREATE, MODIFY,\n"
          "CLOSE_WRITE, DELETE). Prints a JSON summary on stdout.\n"
          "\n"
          "  --dir DIR       directory to work in (must exist)\n"
          "  --cycles N      total cycles, split evenly over the processes\n"
          "  --seconds S     run for S seconds instead of a fixed number of cycles\n"
          "  --procs P       generator processes (default 1)\n"
          "  --prefix NAME   file name prefix (default \"ep\"): files are DIR/NAME<proc>_<i>\n");
}

static double MonotonicSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int ParseArgs(int argc, char** argv, struct Config* c) {
  static const struct option kOptions[] = {
      {"dir", required_argument, NULL, 'd'},    {"procs", required_argument, NULL, 'p'},
      {"cycles", required_argument, NULL, 'c'}, {"seconds", required_argument, NULL, 's'},
      {"prefix", required_argument, NULL, 'x'}, {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  c->dir = NULL;
  c->prefix = "ep";
  c->procs = 1;
  c->cycles = 0;
  c->seconds = 0;
  int opt;
  char* end = NULL;
  while ((opt = getopt_long(argc, argv, "d:p:c:s:x:h", kOptions, NULL)) != -1) {
    switch (opt) {
      case 'd': c->dir = optarg; break;
      case 'x': c->prefix = optarg; break;
      case 'p':
        c->procs = strtol(optarg, &end, 10);
        if (*end != '\0' || c->procs < 1 || c->procs > kMaxProcs) {
          fprintf(stderr, "evaluate_performance: bad --procs '%s' (1..%d)\n", optarg, kMaxProcs);
          return 2;
        }
        break;
      case 'c':
        c->cycles = strtoll(optarg, &end, 10);
        if (*end != '\0' || c->cycles < 1) {
          fprintf(stderr, "evaluate_performance: bad --cycles '%s' (a positive integer)\n", optarg);
          return 2;
        }
        break;
      case 's':
        c->seconds = strtod(optarg, &end);
        if (*end != '\0' || !(c->seconds > 0)) {
          fprintf(stderr, "evaluate_performance: bad --seconds '%s' (a positive number)\n", optarg);
          return 2;
        }
        break;
      case 'h': Usage(stdout); exit(0);
      default: Usage(stderr); return 2;
    }
  }
  if (optind != argc || c->dir == NULL || (c->cycles == 0) == (c->seconds == 0)) {
    Usage(stderr);
    return 2;
  }
  if (strchr(c->prefix, '/') != NULL || c->prefix[0] == '\0') {
    fprintf(stderr, "evaluate_performance: bad --prefix '%s' (a non-empty file name part)\n", c->prefix);
    return 2;
  }
  struct stat st;
  if (stat(c->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "evaluate_performance: '%s' is not a directory (create it first)\n", c->dir);
    return 2;
  }
  return 0;
}

// One cycle on DIR/PREFIX<proc>_<i>; returns 0, or 1 after printing what failed.
static int Cycle(int dirfd, const struct Config* c, long proc, long long i, const char* payload) {
  char name[256];
  snprintf(name, sizeof name, "%s%ld_%lld", c->prefix, proc, i);
  int fd = openat(dirfd, name, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "evaluate_performance: open %s/%s: %s\n", c->dir, name, strerror(errno));
    return 1;
  }
  if (write(fd, payload, kPayloadBytes) != kPayloadBytes) {
    fprintf(stderr, "evaluate_performance: write %s/%s: %s\n", c->dir, name, strerror(errno));
    close(fd);
    return 1;
  }
  if (close(fd) != 0) {
    fprintf(stderr, "evaluate_performance: close %s/%s: %s\n", c->dir, name, strerror(errno));
    return 1;
  }
  if (unlinkat(dirfd, name, 0) != 0) {
    fprintf(stderr, "evaluate_performance: unlink %s/%s: %s\n", c->dir, name, strerror(errno));
    return 1;
  }
  return 0;
}

// The body of one generator process: waits for the start signal, then cycles.
static int RunWorker(const struct Config* c, long proc, int start_fd, long long* done) {
  char payload[kPayloadBytes];
  memset(payload, 'x', sizeof payload);
  int dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0) {
    fprintf(stderr, "evaluate_performance: open directory %s: %s\n", c->dir, strerror(errno));
    return 1;
  }
  char byte;
  while (read(start_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  long long limit = 0;
  if (c->cycles > 0) {
    limit = c->cycles / c->procs + (proc < c->cycles % c->procs ? 1 : 0);
  }
  double deadline = MonotonicSeconds() + c->seconds;
  long long i = 0;
  int rc = 0;
  for (;; ++i) {
    if (limit > 0 ? i >= limit : ((i & 63) == 0 && MonotonicSeconds() >= deadline)) break;
    if (Cycle(dirfd, c, proc, i, payload) != 0) {
      rc = 1;
      break;
    }
  }
  *done = i;
  close(dirfd);
  return rc;
}

// Writes `s` as a JSON string literal.
static void PrintJsonString(const char* s) {
  putchar('"');
  for (const unsigned char* p = (const unsigned char*)s; *p != '\0'; ++p) {
    if (*p == '"' || *p == '\\') {
      printf("\\%c", *p);
    } else if (*p < 0x20) {
      printf("\\u%04x", *p);
    } else {
      putchar(*p);
    }
  }
  putchar('"');
}

int main(int argc, char** argv) {
  struct Config c;
  int rc = ParseArgs(argc, argv, &c);
  if (rc != 0) return rc;

  // One counter per process, shared with the parent.
  size_t counters_size = sizeof(long long) * (size_t)c.procs;
  long long* done = mmap(NULL, counters_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (done == MAP_FAILED) {
    fprintf(stderr, "evaluate_performance: mmap of %zu bytes: %s\n", counters_size, strerror(errno));
    return 1;
  }
  int start[2];
  if (pipe2(start, O_CLOEXEC) != 0) {
    fprintf(stderr, "evaluate_performance: pipe: %s\n", strerror(errno));
    return 1;
  }
  pid_t pids[kMaxProcs];
  for (long p = 0; p < c.procs; ++p) {
    pid_t pid = fork();
    if (pid < 0) {
      fprintf(stderr, "evaluate_performance: fork: %s\n", strerror(errno));
      for (long q = 0; q < p; ++q) kill(pids[q], SIGKILL);
      return 1;
    }
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed generator takes its workers with it
      close(start[1]);
      _exit(RunWorker(&c, p, start[0], &done[p]));
    }
    pids[p] = pid;
  }
  close(start[0]);
  double t0 = MonotonicSeconds();
  close(start[1]);  // releases every worker at once
  int failed = 0;
  for (long p = 0; p < c.procs; ++p) {
    int status = 0;
    while (waitpid(pids[p], &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
  }
  double elapsed = MonotonicSeconds() - t0;
  long long cycles = 0;
  for (long p = 0; p < c.procs; ++p) cycles += done[p];
  long long events = 4 * cycles;
  printf("{\"procs\":%ld,\"cycles\":%lld,\"events\":%lld,\"elapsed_s\":%.6f,\"events_per_s\":%.1f,\"dir\":",
         c.procs, cycles, events, elapsed, elapsed > 0 ? (double)events / elapsed : 0.0);
  PrintJsonString(c.dir);
  printf(",\"prefix\":");
  PrintJsonString(c.prefix);
  printf("}\n");
  return failed;
}
