/* rules_action_recorder — the trivial action of rules_benchmark: appends one line per path
 * argument to LOG, "NOW_NS PATH\n" (CLOCK_REALTIME), each line in one write(2) to a file opened
 * with O_APPEND, so that several recorders running at once never mix their lines.
 *
 * Usage: rules_action_recorder LOG PATH...
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rules_action_recorder LOG PATH...\n");
    return 2;
  }
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    perror(argv[1]);
    return 1;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  const long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
  for (int i = 2; i < argc; ++i) {
    size_t n = strlen(argv[i]);
    char* line = malloc(n + 32);
    if (line == NULL) return 1;
    int len = snprintf(line, n + 32, "%lld %s\n", now, argv[i]);
    if (write(fd, line, (size_t)len) != len) {
      perror(argv[1]);
      return 1;
    }
    free(line);
  }
  return close(fd) == 0 ? 0 : 1;
}
