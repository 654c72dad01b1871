// workload.h — what the traced test programs share: a failed step ends the program with
// status 3 and a message, so that a test sees a workload that did not do its job.
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(condition)                                                                 \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      fprintf(stderr, "%s:%d: %s failed (errno %d: %s)\n", __FILE__, __LINE__, #condition, \
              errno, strerror(errno));                                                   \
      exit(3);                                                                           \
    }                                                                                    \
  } while (0)
