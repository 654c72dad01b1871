// objects.cpp — ids for the files and names an operation is about.
//
// A file is known by (dev, ino), a name by its absolute path. Both are kept in small
// direct-mapped tables: a hit gives the id given before; a miss (first sight, or an entry
// pushed out by another) gives a new id and writes the object record, with the path, into
// the calling thread's buffer. The reader joins ids with the same (dev, ino), so a file
// pushed out and seen again is still one file. Memory stays fixed whatever the program does.
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "iotrace/preload/real_calls.h"
#include "iotrace/preload/tracer.h"

namespace fathom::iotrace::preload {
namespace {

constexpr size_t kFileSlots = 8192;
constexpr size_t kNameSlots = 4096;
constexpr size_t kNameMax = 200;

struct FileSlot {
  uint64_t dev;
  uint64_t ino;
  uint64_t path_hash;  // the name it was seen by: an inode number reused by a new file is a new object
  uint32_t id;
};
struct NameSlot {
  uint64_t hash;
  uint32_t id;
  uint32_t length;
  char path[kNameMax];
};

SpinLock g_lock;
FileSlot g_files[kFileSlots];
NameSlot g_names[kNameSlots];
uint32_t g_next_id = 1;
char g_cwd[4096];

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

uint64_t HashPath(const char* s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<uint8_t>(s[i])) * 1099511628211ull;
  return h;
}

}  // namespace

void* real::Find(const char* name, const char* version) {
  return version == nullptr ? dlsym(RTLD_NEXT, name) : dlvsym(RTLD_NEXT, name, version);
}

void RefreshWorkingDirectory() {
  char cwd[sizeof(g_cwd)];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) cwd[0] = '\0';
  Hold hold(g_lock);
  strcpy(g_cwd, cwd);
}

namespace {

// out = a [+ '/' + b]; false when it does not fit. (No snprintf: this runs on every call
// that names a path, and formatting costs more than the copy.)
bool Join(char* out, size_t size, const char* a, size_t a_length, const char* b) {
  const size_t b_length = b != nullptr ? strlen(b) : 0;
  const size_t length = a_length + (b != nullptr ? 1 + b_length : 0);
  if (length == 0 || length >= size) return false;
  memcpy(out, a, a_length);
  if (b != nullptr) {
    out[a_length] = '/';
    memcpy(out + a_length + 1, b, b_length);
  }
  out[length] = '\0';
  return true;
}

}  // namespace

bool AbsolutePath(int dirfd, const char* path, char* out, size_t size) {
  if (path == nullptr) return false;
  if (path[0] == '/') return Join(out, size, path, strlen(path), nullptr);
  if (dirfd == AT_FDCWD) {
    Hold hold(g_lock);
    return Join(out, size, g_cwd, strlen(g_cwd), path);
  }
  char link[64];
  char dir[4096];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
  const ssize_t length = readlink(link, dir, sizeof(dir) - 1);
  if (length <= 0) return false;
  return Join(out, size, dir, static_cast<size_t>(length), path[0] == '\0' ? nullptr : path);
}

uint32_t FileObject(uint64_t dev, uint64_t ino, const char* path) {
  const uint64_t path_hash = path != nullptr ? HashPath(path, strlen(path)) : 0;
  uint32_t id;
  {
    Hold hold(g_lock);
    FileSlot& slot = g_files[Mix(dev * 0x9e3779b97f4a7c15ull ^ ino) % kFileSlots];
    if (slot.id != 0 && slot.dev == dev && slot.ino == ino && (path == nullptr || slot.path_hash == path_hash)) {
      return slot.id;
    }
    id = g_next_id++;
    slot = {dev, ino, path_hash, id};
  }
  RecordObject(id, dev, ino, path, path == nullptr ? 0 : strlen(path));
  return id;
}

uint32_t NameObject(int dirfd, const char* path) {
  char absolute[4096];
  if (!AbsolutePath(dirfd, path, absolute, sizeof(absolute))) {
    if (path == nullptr) return kNoObject;
    snprintf(absolute, sizeof(absolute), "%s", path);
  }
  const size_t length = strlen(absolute);
  const uint64_t hash = HashPath(absolute, length);
  uint32_t id;
  {
    Hold hold(g_lock);
    NameSlot& slot = g_names[hash % kNameSlots];
    if (slot.id != 0 && slot.hash == hash && slot.length == length &&
        memcmp(slot.path, absolute, length) == 0) {
      return slot.id;
    }
    id = g_next_id++;
    if (length < kNameMax) {
      slot.hash = hash;
      slot.id = id;
      slot.length = static_cast<uint32_t>(length);
      memcpy(slot.path, absolute, length);
    }
  }
  RecordObject(id, 0, 0, absolute, length);
  return id;
}

void ForgetObjects() {
  memset(g_files, 0, sizeof(g_files));
  memset(g_names, 0, sizeof(g_names));
}

void LockObjects() { g_lock.lock(); }
void UnlockObjects() { g_lock.unlock(); }
void ResetObjectsLock() { g_lock.Reset(); }

}  // namespace fathom::iotrace::preload
