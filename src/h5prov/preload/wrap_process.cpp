// wrap_process.cpp — the ends of a process image that skip the library's destructor: exec
// (the image is replaced) and _exit (no exit handlers). What the buffers hold is written first.
#include <unistd.h>

#include "h5prov/preload/h5_real.h"
#include "h5prov/preload/tracer.h"

using namespace fathom::h5prov::preload;

namespace {

#define FATHOM_H5_NEXT(fn)                                                          \
  inline decltype(&::fn) Next_##fn() {                                              \
    static real::Slot<decltype(&::fn)> slot;                                        \
    return real::Resolve(slot, #fn);                                                \
  }
FATHOM_H5_NEXT(execve)
FATHOM_H5_NEXT(execv)
FATHOM_H5_NEXT(execvp)
FATHOM_H5_NEXT(execvpe)
FATHOM_H5_NEXT(fexecve)
FATHOM_H5_NEXT(_exit)
FATHOM_H5_NEXT(_Exit)
#undef FATHOM_H5_NEXT

// Ends the image before an exec; resumes recording if the exec fails.
template <typename Real>
int Exec(Real call_real) {
  EndImage();
  const int r = call_real();
  ResumeImage();
  return r;
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

int execve(const char* path, char* const argv[], char* const envp[]) {
  return Exec([&] { return Next_execve()(path, argv, envp); });
}
int execv(const char* path, char* const argv[]) {
  return Exec([&] { return Next_execv()(path, argv); });
}
int execvp(const char* file, char* const argv[]) {
  return Exec([&] { return Next_execvp()(file, argv); });
}
int execvpe(const char* file, char* const argv[], char* const envp[]) {
  return Exec([&] { return Next_execvpe()(file, argv, envp); });
}
int fexecve(int fd, char* const argv[], char* const envp[]) {
  return Exec([&] { return Next_fexecve()(fd, argv, envp); });
}

void _exit(int status) {
  EndImage();
  Next__exit()(status);
  __builtin_unreachable();
}
void _Exit(int status) {
  EndImage();
  Next__Exit()(status);
  __builtin_unreachable();
}

}  // extern "C"
#pragma GCC visibility pop
