// wrap_stdio.cpp — the stdio family. A stream's offset is stdio's own (what the program
// has read or written through it), kept by the tracer as Darshan does, and set from ftello
// after a seek; the writes stdio makes underneath, inside libc, are not POSIX operations of
// the program and are not seen.
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "iotrace/preload/real_calls.h"
#include "iotrace/preload/wrap_helpers.h"

using namespace fathom::iotrace::preload;
namespace f = fathom::iotrace::format;

namespace {

int FlagsOfMode(const char* mode) {
  if (mode == nullptr) return 0;
  const bool plus = strchr(mode, '+') != nullptr;
  switch (mode[0]) {
    case 'w':
      return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
    case 'a':
      return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
    default:
      return plus ? O_RDWR : O_RDONLY;
  }
}

FILE* Opened(uint8_t op, const char* path, const char* mode, FILE* stream, uint64_t t0, uint64_t t1) {
  KeepErrno e;
  Busy busy;
  const int flags = FlagsOfMode(mode);
  if (stream == nullptr) {
    if (path != nullptr) RecordOn(op, NameObject(AT_FDCWD, path), flags, -1, e.value(), t0, t1);
    return stream;
  }
  const int fd = fileno_unlocked(stream);
  if (path == nullptr) SetStdioOffset(fd, LookFd(fd).offset);  // fdopen: where the descriptor is
  RecordOn(op, path != nullptr ? OpenedFd(fd, AT_FDCWD, path, flags) : LookFd(fd).object, flags, 0, 0, t0, t1);
  return stream;
}

// Data moved through a stream at stdio's offset, which then advances by `moved`.
void StreamData(uint8_t op, FILE* stream, uint64_t size, int64_t moved, bool failed, int err,
                uint64_t t0, uint64_t t1) {
  KeepErrno e;
  Busy busy;
  const int fd = fileno_unlocked(stream);
  const uint32_t object = LookFd(fd).object;
  if (object == kNoObject) return;
  const int64_t offset = StdioOffset(fd);
  AdvanceStdio(fd, moved);
  RecordOn(op, object, size, failed ? -1 : moved, failed ? err : 0, t0, t1, offset);
}

template <typename Fn>
int Seek(FILE* stream, Fn call) {
  if (!Active()) return call();
  const uint64_t t0 = Now();
  const int r = call();
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  const int fd = fileno_unlocked(stream);
  const FdView view = LookFd(fd);
  if (view.object == kNoObject) return r;
  const off_t position = r == 0 ? real::ftello()(stream) : StdioOffset(fd);
  if (r == 0) SetStdioOffset(fd, position);
  RecordOn(f::kFseek, view.object, 0, r == 0 ? 0 : -1, r == 0 ? 0 : e.value(), t0, t1, position);
  return r;
}

int Printed(FILE* stream, int n, uint64_t t0, uint64_t t1) {
  const int err = errno;
  StreamData(f::kFprintf, stream, n > 0 ? static_cast<uint64_t>(n) : 0, n > 0 ? n : 0, n < 0, err, t0, t1);
  return n;
}

// fscanf reads an amount only the stream's position tells.
template <typename Fn>
int Scan(FILE* stream, Fn call) {
  if (!Active()) return call();
  const off_t before = real::ftello()(stream);
  const uint64_t t0 = Now();
  const int r = call();
  const uint64_t t1 = Now();
  const int err = errno;
  const off_t after = real::ftello()(stream);
  const int64_t moved = before >= 0 && after >= before ? after - before : 0;
  StreamData(f::kFscanf, stream, static_cast<uint64_t>(moved), moved, r == EOF && ferror(stream), err, t0, t1);
  return r;
}

}  // namespace

#pragma GCC visibility push(default)  // the wrappers: the library's only exports
extern "C" {

FILE* fopen(const char* path, const char* mode) {
  const auto fn = real::fopen();
  if (!Active()) return fn(path, mode);
  const uint64_t t0 = Now();
  FILE* stream = fn(path, mode);
  return Opened(f::kFopen, path, mode, stream, t0, Now());
}
FILE* fopen64(const char* path, const char* mode) {
  const auto fn = real::fopen64();
  if (!Active()) return fn(path, mode);
  const uint64_t t0 = Now();
  FILE* stream = fn(path, mode);
  return Opened(f::kFopen, path, mode, stream, t0, Now());
}
FILE* fdopen(int fd, const char* mode) {
  const auto fn = real::fdopen();
  if (!Active()) return fn(fd, mode);
  const uint64_t t0 = Now();
  FILE* stream = fn(fd, mode);
  return Opened(f::kFdopen, nullptr, mode, stream, t0, Now());
}

int fclose(FILE* stream) {
  const auto fn = real::fclose();
  if (stream == nullptr) return fn(stream);
  return CloseThrough(f::kFclose, fileno_unlocked(stream), [&] { return fn(stream); });
}

size_t fread(void* buffer, size_t size, size_t n, FILE* stream) {
  const auto fn = real::fread();
  if (!Active()) return fn(buffer, size, n, stream);
  const uint64_t t0 = Now();
  const size_t r = fn(buffer, size, n, stream);
  const uint64_t t1 = Now();
  const int err = errno;
  StreamData(f::kFread, stream, size * n, static_cast<int64_t>(r * size), r < n && ferror(stream), err, t0, t1);
  return r;
}
size_t __fread_chk(void* buffer, size_t, size_t size, size_t n, FILE* stream) {
  return fread(buffer, size, n, stream);
}
size_t fwrite(const void* buffer, size_t size, size_t n, FILE* stream) {
  const auto fn = real::fwrite();
  if (!Active()) return fn(buffer, size, n, stream);
  const uint64_t t0 = Now();
  const size_t r = fn(buffer, size, n, stream);
  const uint64_t t1 = Now();
  const int err = errno;
  StreamData(f::kFwrite, stream, size * n, static_cast<int64_t>(r * size), r < n, err, t0, t1);
  return r;
}

char* fgets(char* buffer, int n, FILE* stream) {
  const auto fn = real::fgets();
  if (!Active()) return fn(buffer, n, stream);
  const uint64_t t0 = Now();
  char* r = fn(buffer, n, stream);
  const uint64_t t1 = Now();
  const int err = errno;
  const int64_t moved = r != nullptr ? static_cast<int64_t>(strlen(buffer)) : 0;
  StreamData(f::kFgets, stream, n > 0 ? static_cast<uint64_t>(n - 1) : 0, moved, r == nullptr && ferror(stream), err,
             t0, t1);
  return r;
}
char* __fgets_chk(char* buffer, size_t, int n, FILE* stream) { return fgets(buffer, n, stream); }

int fputs(const char* text, FILE* stream) {
  const auto fn = real::fputs();
  if (!Active()) return fn(text, stream);
  const size_t length = strlen(text);
  const uint64_t t0 = Now();
  const int r = fn(text, stream);
  const uint64_t t1 = Now();
  const int err = errno;
  StreamData(f::kFputs, stream, length, r >= 0 ? static_cast<int64_t>(length) : 0, r < 0, err, t0, t1);
  return r;
}

int vfprintf(FILE* stream, const char* format, va_list ap) {
  const auto fn = real::vfprintf();
  if (!Active()) return fn(stream, format, ap);
  const uint64_t t0 = Now();
  const int n = fn(stream, format, ap);
  return Printed(stream, n, t0, Now());
}
int fprintf(FILE* stream, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  const int n = vfprintf(stream, format, ap);
  va_end(ap);
  return n;
}
int __vfprintf_chk(FILE* stream, int flag, const char* format, va_list ap) {
  const auto fn = real::vfprintf_chk();
  if (!Active()) return fn(stream, flag, format, ap);
  const uint64_t t0 = Now();
  const int n = fn(stream, flag, format, ap);
  return Printed(stream, n, t0, Now());
}
int __fprintf_chk(FILE* stream, int flag, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  const int n = __vfprintf_chk(stream, flag, format, ap);
  va_end(ap);
  return n;
}

int __isoc99_vfscanf(FILE* stream, const char* format, va_list ap) {
  const auto fn = real::isoc99_vfscanf();
  return Scan(stream, [&] { return fn(stream, format, ap); });
}
int __isoc99_fscanf(FILE* stream, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  const int r = __isoc99_vfscanf(stream, format, ap);
  va_end(ap);
  return r;
}
int fseek(FILE* stream, long offset, int whence) {
  return Seek(stream, [&] { return real::fseek()(stream, offset, whence); });
}
int fseeko(FILE* stream, off_t offset, int whence) {
  return Seek(stream, [&] { return real::fseeko()(stream, offset, whence); });
}
int fseeko64(FILE* stream, off64_t offset, int whence) {
  return Seek(stream, [&] { return real::fseeko64()(stream, offset, whence); });
}
void rewind(FILE* stream) {
  Seek(stream, [&] {
    real::rewind()(stream);
    return 0;
  });
}

int fflush(FILE* stream) {
  const auto fn = real::fflush();
  if (stream == nullptr || !Active()) return fn(stream);
  const uint64_t t0 = Now();
  const int r = fn(stream);
  const uint64_t t1 = Now();
  KeepErrno e;
  Busy busy;
  RecordOn(f::kFflush, LookFd(fileno_unlocked(stream)).object, 0, r == 0 ? 0 : -1, r == 0 ? 0 : e.value(), t0, t1);
  return r;
}

int fgetc(FILE* stream) {
  const auto fn = real::fgetc();
  if (!Active()) return fn(stream);
  const uint64_t t0 = Now();
  const int c = fn(stream);
  const uint64_t t1 = Now();
  const int err = errno;
  StreamData(f::kGetc, stream, 1, c != EOF ? 1 : 0, c == EOF && ferror(stream), err, t0, t1);
  return c;
}
int getc(FILE* stream) { return fgetc(stream); }
int _IO_getc(FILE* stream) { return fgetc(stream); }

int fputc(int c, FILE* stream) {
  const auto fn = real::fputc();
  if (!Active()) return fn(c, stream);
  const uint64_t t0 = Now();
  const int r = fn(c, stream);
  const uint64_t t1 = Now();
  const int err = errno;
  StreamData(f::kPutc, stream, 1, r != EOF ? 1 : 0, r == EOF, err, t0, t1);
  return r;
}
int putc(int c, FILE* stream) { return fputc(c, stream); }
int _IO_putc(int c, FILE* stream) { return fputc(c, stream); }

}  // extern "C"
#pragma GCC visibility pop
