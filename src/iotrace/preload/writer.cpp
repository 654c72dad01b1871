// writer.cpp — the buffers, and the thread that writes them to the trace file.
//
// A fixed pool of buffers (kChunks × 32 KiB). A thread takes one, fills it, queues it; the
// writer thread wakes every half quantum (or when many are queued), closes the runs of past
// quanta (Sweep), and appends the queued buffers to the trace file as frames. The file is
// opened for each append and closed again, so the tracer holds no descriptor a program could
// close or reuse.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "iotrace/preload/real_calls.h"
#include "iotrace/preload/tracer.h"

namespace fathom::iotrace::preload {
namespace {

namespace f = format;

constexpr size_t kChunks = 160;  // 5 MiB

Chunk* g_pool = nullptr;
SpinLock g_chunks_lock;
Chunk* g_free = nullptr;
size_t g_fresh = 0;  // g_pool[g_fresh...] were never handed out
Chunk* g_queue_head = nullptr;
Chunk* g_queue_tail = nullptr;
size_t g_queued = 0;

pthread_mutex_t g_write_mutex = PTHREAD_MUTEX_INITIALIZER;  // one append at a time
pthread_mutex_t g_wake_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;
bool g_stop = false;
bool g_running = false;
pthread_t g_thread;
std::atomic<uint64_t> g_operations{0};
std::atomic<uint64_t> g_dropped{0};

// Every chunk free: those released since are listed in g_free, those never handed out are
// g_pool[g_fresh...]; the pool's pages are touched only when a chunk is first used.
void FillPool() {
  if (g_pool == nullptr) {
    void* memory = mmap(nullptr, kChunks * sizeof(Chunk), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return;
    g_pool = static_cast<Chunk*>(memory);
  }
  g_free = nullptr;
  g_fresh = 0;
  g_queue_head = g_queue_tail = nullptr;
  g_queued = 0;
}

// Appends with the real calls; the writer lock is held.
// The descriptor is moved above the numbers a program's opens take (the lowest free), and is
// checked to still be the trace file just before the write: a program that closes every
// descriptor (closefrom) between the open and the write, and opens a file of its own, must
// not get the trace's frames in its file.
constexpr int kHighDescriptor = 700;

int OpenTrace() {
  int fd = real::open()(config().path, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int high = real::fcntl()(fd, F_DUPFD_CLOEXEC, kHighDescriptor);
  if (high >= 0) {
    real::close()(fd);
    fd = high;
  }
  return fd;
}

bool StillTheTrace(int fd) {
  struct stat st;
  return real::fstat()(fd, &st) == 0 && st.st_dev == config().trace_dev && st.st_ino == config().trace_ino;
}

bool Append(const iovec* parts, int count) {
  const int fd = OpenTrace();
  if (fd < 0) return false;
  if (!StillTheTrace(fd)) return false;  // not ours any more: never close or write it
  bool ok = true;
  int done = 0;
  while (done < count && ok) {
    const int batch = count - done < IOV_MAX ? count - done : IOV_MAX;
    ssize_t n = real::writev()(fd, parts + done, batch);
    if (n < 0 && errno == EINTR) continue;
    ok = n >= 0;
    // A short write (a full disk) leaves a cut frame: the reader stops there.
    size_t expected = 0;
    for (int i = 0; i < batch; ++i) expected += parts[done + i].iov_len;
    ok = ok && static_cast<size_t>(n) == expected;
    done += batch;
  }
  real::close()(fd);
  return ok;
}

void FrameHeader(uint8_t* header, const uint8_t* payload, size_t size) {
  f::PutU32(header, f::kFrameMagic);
  f::PutU32(header + 4, static_cast<uint32_t>(size));
  f::PutU32(header + 8, f::Crc32(payload, size));
}

void* WriterMain(void*) {
  Internal internal;
  const uint64_t half = config().quantum_ns / 2;
  pthread_mutex_lock(&g_wake_mutex);
  while (!g_stop) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    const uint64_t at = static_cast<uint64_t>(until.tv_sec) * 1'000'000'000ull +
                        static_cast<uint64_t>(until.tv_nsec) + half;
    until.tv_sec = static_cast<time_t>(at / 1'000'000'000ull);
    until.tv_nsec = static_cast<long>(at % 1'000'000'000ull);
    pthread_cond_timedwait(&g_wake, &g_wake_mutex, &until);
    if (g_stop) break;
    pthread_mutex_unlock(&g_wake_mutex);
    Sweep(false);
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
  } else if (g_pool != nullptr && g_fresh < kChunks) {
    c = &g_pool[g_fresh++];
  } else {
    return nullptr;
  }
  c->used = 0;
  c->next = nullptr;
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
  if (queued == kChunks / 4) WakeWriter();
}

void ReleaseChunk(Chunk* chunk) {
  Hold hold(g_chunks_lock);
  chunk->next = g_free;
  g_free = chunk;
}

void ResetChunks() {
  g_chunks_lock.Reset();
  FillPool();
}
void LockChunks() { g_chunks_lock.lock(); }
void UnlockChunks() { g_chunks_lock.unlock(); }

void WriteQueued() {
  pthread_mutex_lock(&g_write_mutex);
  Chunk* list;
  {
    Hold hold(g_chunks_lock);
    list = g_queue_head;
    g_queue_head = g_queue_tail = nullptr;
    g_queued = 0;
  }
  constexpr int kBatch = 64;
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

bool AppendToTrace(const uint8_t* data, size_t size) {
  iovec part = {const_cast<uint8_t*>(data), size};
  pthread_mutex_lock(&g_write_mutex);
  const bool ok = Append(&part, 1);
  pthread_mutex_unlock(&g_write_mutex);
  return ok;
}

void WriteFrame(const uint8_t* payload, size_t size) {
  uint8_t header[f::kFrameHeaderSize];
  FrameHeader(header, payload, size);
  iovec parts[2] = {{header, sizeof(header)}, {const_cast<uint8_t*>(payload), size}};
  pthread_mutex_lock(&g_write_mutex);
  Append(parts, 2);
  pthread_mutex_unlock(&g_write_mutex);
}

void StartWriter() {
  if (g_pool == nullptr) FillPool();
  // The writer's deadlines are on the monotonic clock.
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&g_wake, &attr);
  pthread_condattr_destroy(&attr);
  g_stop = false;
  // The writer blocks every signal, so that the program's handlers never run on it: the
  // calls of a handler there would be taken for the tracer's own, neither recorded nor
  // counted as dropped.
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

void WakeWriter() { pthread_cond_signal(&g_wake); }

void Finish(f::EndReason reason) {
  Internal internal;
  if (reason == f::kEndExit) StopWriter();
  Sweep(true);
  WriteQueued();
  uint8_t payload[64];
  uint8_t* p = payload;
  p = f::PutVarint(p, 0);
  p = f::PutVarint(p, Now());
  *p++ = f::kEnd;
  *p++ = reason;
  p = f::PutVarint(p, g_operations.load(std::memory_order_relaxed) + OperationsOfThreads());
  p = f::PutVarint(p, g_dropped.load(std::memory_order_relaxed));
  WriteFrame(payload, static_cast<size_t>(p - payload));
  if (reason == f::kEndExit) config().enabled = false;
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
  g_operations.store(0, std::memory_order_relaxed);
  g_dropped.store(0, std::memory_order_relaxed);
}

void CountOperations(uint64_t n) { g_operations.fetch_add(n, std::memory_order_relaxed); }
void CountDropped(uint64_t n) { g_dropped.fetch_add(n, std::memory_order_relaxed); }

}  // namespace fathom::iotrace::preload
