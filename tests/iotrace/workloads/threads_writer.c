// threads_writer DIR: 4 threads, each writing 10,000 records of 16 bytes to DIR/thread<i>.
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "workload.h"

static const char* g_dir;

static void* Writer(void* arg) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/thread%d", g_dir, (int)(long)arg);
  const int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 10000; ++i) CHECK(write(fd, "0123456789abcdef", 16) == 16);
  CHECK(close(fd) == 0);
  return NULL;
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  g_dir = argv[1];
  pthread_t threads[4];
  for (long i = 0; i < 4; ++i) CHECK(pthread_create(&threads[i], NULL, Writer, (void*)i) == 0);
  for (int i = 0; i < 4; ++i) CHECK(pthread_join(threads[i], NULL) == 0);
  return 0;
}
