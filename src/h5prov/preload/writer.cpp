// writer.cpp — the buffers, and the thread that writes them to the trace file.
//
// A fixed pool of buffers (kChunks × 64 KiB), mapped at the start. A thread takes one, fills
// it, queues it; the writer thread wakes every 200 ms (or when a quarter of the pool is
// queued), takes every thread's partial buffer and appends the queued ones as frames. The
// file is opened for each append by system calls (so that a POSIX tracer preloaded beside this
// one does not record them) and closed again: the tracer holds no descriptor a program could
// close or reuse.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "h5prov/preload/tracer.h"

namespace fathom::h5prov::preload {
namespace {

namespace f = format;

constexpr size_t kChunks = 64;  // 4 MiB
constexpr uint64_t kPeriodNs = 200'000'000;

Chunk* g_pool = nullptr;
SpinLock g_chunks_lock;
Chunk* g_free = nullptr;
Chunk* g_queue_head = nullptr;
Chunk* g_queue_tail = nullptr;
size_t g_queued = 0;

char g_path[1400];
pthread_mutex_t g_write_mutex = PTHREAD_MUTEX_INITIALIZER;  // one append at a time
pthread_mutex_t g_wake_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;
bool g_stop = false;
bool g_running = false;
pthread_t g_thread;
std::atomic<uint64_t> g_calls{0};
std::atomic<uint64_t> g_dropped{0};

void FillPool() {
  if (g_pool == nullptr) {
    void* memory =
        mmap(nullptr, kChunks * sizeof(Chunk), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return;
    g_pool = static_cast<Chunk*>(memory);
  }
  g_free = nullptr;
  for (size_t i = 0; i < kChunks; ++i) {
    g_pool[i].used = 0;
    g_pool[i].next = g_free;
    g_free = &g_pool[i];
  }
  g_queue_head = g_queue_tail = nullptr;
  g_queued = 0;
}

void ReleaseChunk(Chunk* chunk) {
  Hold hold(g_chunks_lock);
  chunk->next = g_free;
  g_free = chunk;
}

// Appends with the write lock held. A short write (a full disk) leaves a cut frame, where
// the reader stops.
void Append(iovec* parts, int count) {
  const int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, g_path, O_WRONLY | O_APPEND | O_CLOEXEC, 0));
  if (fd < 0) return;
  int done = 0;
  while (done < count) {
    const int batch = count - done < IOV_MAX ? count - done : IOV_MAX;
    const long n = syscall(SYS_writev, fd, parts + done, batch);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    done += batch;
  }
  syscall(SYS_close, fd);
}

void FrameHeader(uint8_t* header, const uint8_t* payload, size_t size) {
  f::PutU32(header, f::kFrameMagic);
  f::PutU32(header + 4, static_cast<uint32_t>(size));
  f::PutU32(header + 8, f::Crc32(payload, size));
}

void* WriterMain(void*) {
  Internal internal;
  pthread_mutex_lock(&g_wake_mutex);
  while (!g_stop) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    const uint64_t at =
        static_cast<uint64_t>(until.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(until.tv_nsec) + kPeriodNs;
    until.tv_sec = static_cast<time_t>(at / 1'000'000'000ull);
    until.tv_nsec = static_cast<long>(at % 1'000'000'000ull);
    pthread_cond_timedwait(&g_wake, &g_wake_mutex, &until);
    if (g_stop) break;
    pthread_mutex_unlock(&g_wake_mutex);
    SweepAll();
    WriteQueued();
    pthread_mutex_lock(&g_wake_mutex);
  }
  pthread_mutex_unlock(&g_wake_mutex);
  return nullptr;
}

}  // namespace

Chunk* TakeFreeChunk() {
  Hold hold(g_chunks_lock);
  Chunk* c = g_free;
  if (c != nullptr) {
    g_free = c->next;
    c->used = 0;
    c->next = nullptr;
  }
  return c;
}

void QueueFullChunk(Chunk* chunk) {
  size_t queued;
  {
    Hold hold(g_chunks_lock);
    chunk->next = nullptr;
    if (g_queue_tail != nullptr) {
      g_queue_tail->next = chunk;
    } else {
      g_queue_head = chunk;
    }
    g_queue_tail = chunk;
    queued = ++g_queued;
  }
  if (queued == kChunks / 4) pthread_cond_signal(&g_wake);
}

void ResetChunks() {
  g_chunks_lock.Reset();
  FillPool();
}
void LockChunks() { g_chunks_lock.lock(); }
void UnlockChunks() { g_chunks_lock.unlock(); }

bool CreateTrace(const char* path) {
  if (strlen(path) >= sizeof(g_path)) return false;
  strcpy(g_path, path);
  const int fd = static_cast<int>(
      syscall(SYS_openat, AT_FDCWD, g_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd < 0) return false;
  uint8_t header[f::kFileHeaderSize];
  f::PutFileHeader(header);
  const bool written = syscall(SYS_write, fd, header, sizeof(header)) == static_cast<long>(sizeof(header));
  syscall(SYS_close, fd);
  return written;
}

void WriteQueued() {
  pthread_mutex_lock(&g_write_mutex);
  Chunk* list;
  {
    Hold hold(g_chunks_lock);
    list = g_queue_head;
    g_queue_head = g_queue_tail = nullptr;
    g_queued = 0;
  }
  constexpr int kBatch = 32;
  iovec parts[2 * kBatch];
  uint8_t headers[kBatch][f::kFrameHeaderSize];
  Chunk* batch[kBatch];
  while (list != nullptr) {
    int n = 0;
    while (list != nullptr && n < kBatch) {
      Chunk* c = list;
      list = c->next;
      FrameHeader(headers[n], c->data, c->used);
      parts[2 * n] = {headers[n], f::kFrameHeaderSize};
      parts[2 * n + 1] = {c->data, c->used};
      batch[n++] = c;
    }
    Append(parts, 2 * n);
    for (int i = 0; i < n; ++i) ReleaseChunk(batch[i]);
  }
  pthread_mutex_unlock(&g_write_mutex);
}

void WriteFrame(const uint8_t* payload, size_t size) {
  uint8_t header[f::kFrameHeaderSize];
  FrameHeader(header, payload, size);
  iovec parts[2] = {{header, sizeof(header)}, {const_cast<uint8_t*>(payload), size}};
  pthread_mutex_lock(&g_write_mutex);
  Append(parts, 2);
  pthread_mutex_unlock(&g_write_mutex);
}

void WriteEnd(uint64_t open_at_exit) {
  uint8_t payload[64];
  uint8_t* p = f::PutVarint(payload, 0);
  p = f::PutVarint(p, Now());
  *p++ = f::kEnd;
  p = f::PutVarint(p, g_calls.load(std::memory_order_relaxed));
  p = f::PutVarint(p, g_dropped.load(std::memory_order_relaxed));
  p = f::PutVarint(p, open_at_exit);
  WriteFrame(payload, static_cast<size_t>(p - payload));
}

void CountDropped(uint64_t n) { g_dropped.fetch_add(n, std::memory_order_relaxed); }
void CountCall() { g_calls.fetch_add(1, std::memory_order_relaxed); }

void StartWriter() {
  if (g_pool == nullptr) FillPool();
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&g_wake, &attr);
  pthread_condattr_destroy(&attr);
  g_stop = false;
  // The writer blocks every signal, so that the program's handlers never run on it.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  g_running = pthread_create(&g_thread, nullptr, WriterMain, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void StopWriter() {
  if (!g_running) return;
  pthread_mutex_lock(&g_wake_mutex);
  g_stop = true;
  pthread_cond_signal(&g_wake);
  pthread_mutex_unlock(&g_wake_mutex);
  pthread_join(g_thread, nullptr);
  g_running = false;
}

void LockWriter() {
  pthread_mutex_lock(&g_wake_mutex);
  pthread_mutex_lock(&g_write_mutex);
}
void UnlockWriter() {
  pthread_mutex_unlock(&g_write_mutex);
  pthread_mutex_unlock(&g_wake_mutex);
}
void ResetWriter() {
  pthread_mutex_init(&g_write_mutex, nullptr);
  pthread_mutex_init(&g_wake_mutex, nullptr);
  g_running = false;
  g_calls.store(0, std::memory_order_relaxed);
  g_dropped.store(0, std::memory_order_relaxed);
}

}  // namespace fathom::h5prov::preload
