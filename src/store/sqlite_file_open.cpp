// sqlite_file_open.cpp — OpenSqliteFile.
#include "store/sqlite_file_open.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "store/store_files.h"

namespace fathom::store {

Result<Connection> OpenSqliteFile(const std::string& path, bool read_only, int busy_timeout_ms,
                                  const SqliteFileKind& kind, std::string_view a_noun,
                                  std::string_view missing_remedy) {
  const std::string noun(kind.noun);
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return Status::Error(path + " is a directory, not " + std::string(a_noun) + ": give the " + noun + "'s file");
    }
  } else if (read_only) {
    return Status::Error("no " + noun + " at " + path + ": " + std::string(missing_remedy),
                         std::error_code(errno, std::generic_category()));
  }
  const int flags =
      SQLITE_OPEN_NOMUTEX | (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  // A reader where no -shm file exists nor can be created (read-only media): with no writer
  // (it would keep one) and nothing in the WAL, the main file is the whole database, read as
  // immutable; with frames in the WAL it cannot be read there.
  std::string_view uri_query;
  if (read_only) {
    const StoreFiles files = ProbeStoreFiles(path);
    if (!files.shm_exists && files.create_errno != 0) {
      if (files.WalHoldsFrames()) {
        return Status::Error(
            "cannot read " + noun + " " + path + ": its newest changes are still in " + path +
                "-wal, and reading them needs " + path + "-shm beside it, which is absent and cannot be created (" +
                std::strerror(files.create_errno) + "); copy " + path + " and " + path +
                "-wal together to writable storage and read the copy",
            std::error_code(files.create_errno, std::generic_category()));
      }
      uri_query = "immutable=1";
    }
  }
  return Connection::Open(path, flags, busy_timeout_ms, uri_query, kind);
}

}  // namespace fathom::store
