// real_calls.h — the functions the tracer wraps, as the next library (libc) defines them.
//
// Each is looked up once with dlsym(RTLD_NEXT) on first use, so that a wrapper called before
// the tracer's constructor (from another library's) still works.
#pragma once

#include <aio.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>

namespace fathom::iotrace::preload::real {

void* Find(const char* name, const char* version);

template <typename F>
F Resolve(std::atomic<F>& slot, const char* name, const char* version = nullptr) {
  F f = slot.load(std::memory_order_relaxed);
  if (f == nullptr) {
    f = reinterpret_cast<F>(Find(name, version));
    slot.store(f, std::memory_order_relaxed);
  }
  return f;
}

#define FATHOM_REAL_TYPED(fn, type, symbol, version) \
  inline type fn() {                                 \
    static std::atomic<type> slot{nullptr};          \
    return ::fathom::iotrace::preload::real::Resolve(slot, symbol, version); \
  }
#define FATHOM_REAL(fn) FATHOM_REAL_TYPED(fn, decltype(&::fn), #fn, nullptr)

FATHOM_REAL(open)
FATHOM_REAL(open64)
FATHOM_REAL(openat)
FATHOM_REAL(openat64)
FATHOM_REAL(read)
FATHOM_REAL(write)
FATHOM_REAL(close)
FATHOM_REAL(close_range)
FATHOM_REAL(closefrom)
FATHOM_REAL(pread)
FATHOM_REAL(pread64)
FATHOM_REAL(pwrite)
FATHOM_REAL(pwrite64)
FATHOM_REAL(readv)
FATHOM_REAL(writev)
FATHOM_REAL(preadv)
FATHOM_REAL(preadv64)
FATHOM_REAL(pwritev)
FATHOM_REAL(pwritev64)
FATHOM_REAL(preadv2)
FATHOM_REAL(pwritev2)
FATHOM_REAL(lseek)
FATHOM_REAL(lseek64)
FATHOM_REAL(fsync)
FATHOM_REAL(fdatasync)
FATHOM_REAL(ftruncate)
FATHOM_REAL(ftruncate64)
FATHOM_REAL(fallocate)
FATHOM_REAL(fallocate64)
FATHOM_REAL(dup)
FATHOM_REAL(dup2)
FATHOM_REAL(dup3)
FATHOM_REAL(fcntl)
FATHOM_REAL(fcntl64)
FATHOM_REAL(mmap)
FATHOM_REAL(copy_file_range)
FATHOM_REAL(sendfile)
FATHOM_REAL(stat)
FATHOM_REAL(stat64)
FATHOM_REAL(lstat)
FATHOM_REAL(lstat64)
FATHOM_REAL(fstat)
FATHOM_REAL(fstat64)
FATHOM_REAL(fstatat)
FATHOM_REAL(fstatat64)
FATHOM_REAL(statx)
FATHOM_REAL(mkdir)
FATHOM_REAL(mkdirat)
FATHOM_REAL(rmdir)
FATHOM_REAL(unlink)
FATHOM_REAL(unlinkat)
FATHOM_REAL(rename)
FATHOM_REAL(renameat)
FATHOM_REAL(renameat2)
FATHOM_REAL(link)
FATHOM_REAL(linkat)
FATHOM_REAL(symlink)
FATHOM_REAL(symlinkat)
FATHOM_REAL(truncate)
FATHOM_REAL(truncate64)
FATHOM_REAL(opendir)
FATHOM_REAL(readdir)
FATHOM_REAL(readdir64)
FATHOM_REAL(closedir)
FATHOM_REAL(chdir)
FATHOM_REAL(fchdir)
FATHOM_REAL(fopen)
FATHOM_REAL(fopen64)
FATHOM_REAL(fdopen)
FATHOM_REAL(fclose)
FATHOM_REAL(fread)
FATHOM_REAL(fwrite)
FATHOM_REAL(fgets)
FATHOM_REAL(fputs)
FATHOM_REAL(vfprintf)
FATHOM_REAL(fseek)
FATHOM_REAL(fseeko)
FATHOM_REAL(fseeko64)
FATHOM_REAL(ftello)
FATHOM_REAL(rewind)
FATHOM_REAL(fflush)
FATHOM_REAL(fgetc)
FATHOM_REAL(fputc)
FATHOM_REAL(execve)
FATHOM_REAL(execv)
FATHOM_REAL(execvp)
FATHOM_REAL(execvpe)
FATHOM_REAL(fexecve)
FATHOM_REAL(execveat)
FATHOM_REAL(syscall)
FATHOM_REAL(aio_read)
FATHOM_REAL(aio_write)
FATHOM_REAL(aio_read64)
FATHOM_REAL(aio_write64)
FATHOM_REAL(lio_listio)
FATHOM_REAL(lio_listio64)
using ExitFn = void (*)(int);
using VfprintfChkFn = int (*)(FILE*, int, const char*, va_list);
using VfscanfFn = int (*)(FILE*, const char*, va_list);
using UringInitFn = int (*)(unsigned, void*, unsigned);
using UringInitParamsFn = int (*)(unsigned, void*, void*);
using IoSubmitFn = int (*)(void*, long, void*);
FATHOM_REAL_TYPED(exit_, ExitFn, "_exit", nullptr)
FATHOM_REAL_TYPED(Exit_, ExitFn, "_Exit", nullptr)
FATHOM_REAL_TYPED(vfprintf_chk, VfprintfChkFn, "__vfprintf_chk", nullptr)
FATHOM_REAL_TYPED(isoc99_vfscanf, VfscanfFn, "__isoc99_vfscanf", nullptr)
// liburing and libaio, when the program has them.
FATHOM_REAL_TYPED(io_uring_queue_init, UringInitFn, "io_uring_queue_init", nullptr)
FATHOM_REAL_TYPED(io_uring_queue_init_params, UringInitParamsFn, "io_uring_queue_init_params", nullptr)
FATHOM_REAL_TYPED(io_submit, IoSubmitFn, "io_submit", nullptr)

}  // namespace fathom::iotrace::preload::real
