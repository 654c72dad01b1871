// wrap_process.cpp — the ends of a process image (exec, _exit), and the I/O interfaces the
// tracer sees but cannot measure (io_uring, AIO): their calls are counted, so that a trace of
// a program that uses them says it is partial instead of silently undercounting.
#include <aio.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "iotrace/preload/real_calls.h"
#include "iotrace/preload/tracer.h"

using namespace fathom::iotrace::preload;
namespace f = fathom::iotrace::format;

namespace {

// Writes everything before the image is replaced, and keeps the writer from starting a frame
// the exec would cut. A vfork child (another pid in the parent's memory) writes nothing.
class ExecGuard {
 public:
  ExecGuard() : active_(config().enabled && getpid() == config().pid) {
    if (!active_) return;
    Finish(f::kEndExec);
    LockWriter();
  }
  ~ExecGuard() {  // the exec failed
    if (active_) UnlockWriter();
  }
  ExecGuard(const ExecGuard&) = delete;
  ExecGuard& operator=(const ExecGuard&) = delete;

 private:
  bool active_;
};

void BeforeExit() {
  if (config().enabled && getpid() == config().pid) Finish(f::kEndExit);
}

// The arguments of an execl-style call, up to the terminating null pointer.
size_t CountArgs(const char* first, va_list ap) {
  size_t n = 1;
  if (first == nullptr) return 0;
  va_list copy;
  va_copy(copy, ap);
  while (va_arg(copy, char*) != nullptr) ++n;
  va_end(copy);
  return n;
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

int execve(const char* path, char* const argv[], char* const envp[]) {
  ExecGuard guard;
  return real::execve()(path, argv, envp);
}
int execv(const char* path, char* const argv[]) {
  ExecGuard guard;
  return real::execv()(path, argv);
}
int execvp(const char* file, char* const argv[]) {
  ExecGuard guard;
  return real::execvp()(file, argv);
}
int execvpe(const char* file, char* const argv[], char* const envp[]) {
  ExecGuard guard;
  return real::execvpe()(file, argv, envp);
}
int fexecve(int fd, char* const argv[], char* const envp[]) {
  ExecGuard guard;
  return real::fexecve()(fd, argv, envp);
}
int execveat(int dirfd, const char* path, char* const argv[], char* const envp[], int flags) {
  ExecGuard guard;
  return real::execveat()(dirfd, path, argv, envp, flags);
}

// The execl forms: their arguments up to the null pointer become an argv for `exec`; execle's
// environment follows the null pointer.
#define FATHOM_EXECL_ARGV(arg, ap, argv, envp)         \
  const size_t n_ = CountArgs(arg, ap);                 \
  char* argv[n_ + 1];                                   \
  argv[0] = const_cast<char*>(arg);                     \
  for (size_t i = 1; i < n_; ++i) argv[i] = va_arg(ap, char*); \
  argv[n_] = nullptr;                                   \
  if (envp != nullptr && n_ > 0) va_arg(ap, char*);     \
  if (envp != nullptr) *envp = va_arg(ap, char* const*)

int execl(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char* const** no_env = nullptr;
  FATHOM_EXECL_ARGV(arg, ap, argv, no_env);
  va_end(ap);
  return execv(path, argv);
}
int execlp(const char* file, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char* const** no_env = nullptr;
  FATHOM_EXECL_ARGV(arg, ap, argv, no_env);
  va_end(ap);
  return execvp(file, argv);
}
int execle(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char* const* env = nullptr;
  char* const** envp = &env;
  FATHOM_EXECL_ARGV(arg, ap, argv, envp);
  va_end(ap);
  return execve(path, argv, env);
}
#undef FATHOM_EXECL_ARGV

void _exit(int status) {
  BeforeExit();
  real::exit_()(status);
  __builtin_unreachable();
}
void _Exit(int status) {
  BeforeExit();
  real::Exit_()(status);
  __builtin_unreachable();
}

long syscall(long number, ...) noexcept {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& x : a) x = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_io_uring_setup) NotePartial(f::kPartialIoUring);
  if (number == SYS_io_submit) NotePartial(f::kPartialAio);
  return real::syscall()(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int io_uring_queue_init(unsigned entries, void* ring, unsigned flags) {
  NotePartial(f::kPartialIoUring);
  return real::io_uring_queue_init()(entries, ring, flags);
}
int io_uring_queue_init_params(unsigned entries, void* ring, void* params) {
  NotePartial(f::kPartialIoUring);
  return real::io_uring_queue_init_params()(entries, ring, params);
}
int io_submit(void* context, long n, void* requests) {
  NotePartial(f::kPartialAio);
  return real::io_submit()(context, n, requests);
}

int aio_read(struct aiocb* request) noexcept {
  NotePartial(f::kPartialAio);
  return real::aio_read()(request);
}
int aio_write(struct aiocb* request) noexcept {
  NotePartial(f::kPartialAio);
  return real::aio_write()(request);
}
int aio_read64(struct aiocb64* request) noexcept {
  NotePartial(f::kPartialAio);
  return real::aio_read64()(request);
}
int aio_write64(struct aiocb64* request) noexcept {
  NotePartial(f::kPartialAio);
  return real::aio_write64()(request);
}
int lio_listio(int mode, struct aiocb* const list[], int n, struct sigevent* event) noexcept {
  NotePartial(f::kPartialAio);
  return real::lio_listio()(mode, list, n, event);
}
int lio_listio64(int mode, struct aiocb64* const list[], int n, struct sigevent* event) noexcept {
  NotePartial(f::kPartialAio);
  return real::lio_listio64()(mode, list, n, event);
}

}  // extern "C"
#pragma GCC visibility pop
