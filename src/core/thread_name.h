// thread_name.h — names the calling thread, as `top -H`, `ps -L` and perf show it.
#pragma once

#include <pthread.h>

namespace fathom {

// `name` is cut to the kernel's 15 characters.
inline void NameThisThread(const char* name) {
  char cut[16] = {};
  for (int i = 0; i < 15 && name[i] != '\0'; ++i) cut[i] = name[i];
  pthread_setname_np(pthread_self(), cut);
}

}  // namespace fathom
