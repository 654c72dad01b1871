// store_files.h — the files around a store as a connection will find them: the -wal and -shm
// that SQLite keeps beside it in WAL mode, whether they can be created there, and whether the
// file system holding it is mounted read-only.
//
// A WAL-mode reader needs the -shm file (shared memory of the WAL index): it uses the one a
// writer left, or creates it. Where it can do neither (read-only media, a directory this
// user cannot write) and the WAL holds no frames, the main file is the whole store and is
// read as immutable (OpenStoreConnection). Pure queries of the file system; any thread.
#pragma once

#include <cstdint>
#include <string>

namespace fathom::store {

inline constexpr uint64_t kWalHeaderBytes = 32;  // a WAL file without a frame is its header

struct StoreFiles {
  bool wal_exists = false;
  bool shm_exists = false;
  uint64_t wal_bytes = 0;
  // The directory accepts new files (the -wal and -shm): 0, or why not (EROFS, EACCES, ...).
  int create_errno = 0;
  bool read_only_fs = false;  // the file system holding the store is mounted read-only

  // Committed events may sit in the WAL, not yet copied into the main file.
  bool WalHoldsFrames() const { return wal_exists && wal_bytes > kWalHeaderBytes; }
};

StoreFiles ProbeStoreFiles(const std::string& path);

// The directory holding `path` ("." for a bare file name).
std::string DirectoryOf(const std::string& path);

// Whether `path` (or, when it does not exist, the directory that would hold it) is on a file
// system mounted read-only (statvfs ST_RDONLY: the whole file system or this mount of it).
bool OnReadOnlyFileSystem(const std::string& path);

}  // namespace fathom::store
