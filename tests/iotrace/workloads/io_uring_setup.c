// io_uring_setup: calls io_uring_setup through syscall(2), whether or not the kernel lets it
// succeed; the tracer cannot see io_uring's I/O, so it must mark the trace partial.
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workload.h"

int main(void) {
  struct io_uring_params params;
  memset(&params, 0, sizeof(params));
  const long fd = syscall(SYS_io_uring_setup, 4, &params);
  if (fd >= 0) close((int)fd);
  return 0;
}
