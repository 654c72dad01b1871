// store_recover.cpp — RecoverStore (fathom/store_check.h): one pass of the full check over the
// damaged store, copying each sound chunk row as it is reached into a new store.
//
// The new store is written as TO.recovering-PID beside TO, in transactions of a bounded size,
// checkpointed into its main file and closed, then linked to TO (link(2) fails rather than
// replace a file that appeared meanwhile) and its temporary name removed: TO appears whole or
// not at all.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>

#include "fathom/store_check.h"
#include "store/checksum.h"
#include "store/chunk_rows.h"
#include "store/sqlite_handle.h"
#include "store/store_check.h"
#include "store/store_files.h"
#include "store/store_schema.h"

namespace fathom {
namespace {

constexpr uint64_t kCopyBytesPerTransaction = 64 << 20;

bool Exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

// Removes the new store's files (a recovery that failed).
void RemoveStoreFiles(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

// ranges ∪ more, merged, ascending.
std::vector<IdRange> Merge(std::vector<IdRange> ranges, const std::vector<IdRange>& more) {
  ranges.insert(ranges.end(), more.begin(), more.end());
  std::sort(ranges.begin(), ranges.end(),
            [](const IdRange& a, const IdRange& b) { return a.first < b.first; });
  std::vector<IdRange> out;
  for (const IdRange& r : ranges) {
    if (!out.empty() && r.first <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

// Copies the (name, integer) rows of `select` on `from` (from its table `table`, which older
// stores may lack) through `insert` on `to`; a failure to read is a note, not an error.
Status CopyPairs(const store::Connection& from, const store::Connection& to, const char* table,
                 const char* select, const char* insert, const char* what,
                 std::vector<std::string>& notes) {
  auto exists = from.QueryInt(("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '" +
                               std::string(table) + "'").c_str(),
                              what);
  if (exists.ok() && exists.value() == 0) return Status::Ok();
  FATHOM_ASSIGN_OR_RETURN(store::Statement put, to.Prepare(insert, what));
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(from.get(), select, -1, &raw, nullptr);
  store::Statement get(raw);
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
      const std::string name = get.ColumnText(0);
      put.BindText(1, name);
      put.BindInt(2, get.ColumnInt(1));
      FATHOM_RETURN_IF_ERROR(to.StepDone(put, what));
    }
  }
  if (rc != SQLITE_DONE) {
    notes.push_back(std::string(what) + ": some cannot be read (sqlite: " +
                    sqlite3_errmsg(from.get()) + ")");
  }
  return Status::Ok();
}

}  // namespace

Result<StoreRecovery> RecoverStore(const std::string& from, const std::string& to) {
  if (to.empty()) return Status::Error("no path given for the recovered store");
  for (const char* suffix : {"", "-wal", "-shm"}) {
    if (Exists(to + suffix)) {
      return Status::Error(to + suffix + " exists: a recovery writes a new store and never "
                           "overwrites a file; give another path or move that one aside",
                           std::error_code(EEXIST, std::generic_category()));
    }
  }
  const std::string dir = store::DirectoryOf(to);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::Error("cannot create the recovered store " + to + ": directory " + dir +
                         " does not exist; create it first");
  }
  StoreOptions source_options;
  source_options.path = from;
  source_options.read_only = true;
  FATHOM_ASSIGN_OR_RETURN(store::OpenedStore source, store::OpenStoreConnection(source_options));

  const std::string temp = to + ".recovering-" + std::to_string(getpid());
  RemoveStoreFiles(temp);  // a leftover of an earlier recovery by a process of this pid
  StoreOptions target_options;
  target_options.path = temp;
  target_options.sync_full = false;  // made durable once, by the checkpoint at the end
  target_options.open_check_limit = std::chrono::milliseconds(0);
  auto opened = store::OpenStoreConnection(target_options);
  if (!opened.ok()) {
    RemoveStoreFiles(temp);
    return opened.status();
  }
  store::Connection target = std::move(opened.value().db);

  StoreRecovery recovery;
  std::vector<std::string> notes;
  auto copy = [&]() -> Status {
    const std::string_view what = "writing the recovered store";
    FATHOM_RETURN_IF_ERROR(target.Exec("BEGIN IMMEDIATE", what));
    FATHOM_ASSIGN_OR_RETURN(store::Statement insert, target.Prepare(store::kInsertChunkSql, what));
    uint64_t pending_bytes = 0;
    Status failure;
    store::CheckOptions options;
    options.sound_row = [&](const store::ChunkRow& row) {
      insert.BindInt(1, static_cast<int64_t>(row.first_id));
      insert.BindInt(2, static_cast<int64_t>(row.last_id));
      insert.BindInt(3, row.min_ts);
      insert.BindInt(4, row.max_ts);
      insert.BindBlob(5, row.data);
      insert.BindInt(6, row.crc.value_or(store::Crc32c(row.data)));
      failure = target.StepDone(insert, what);
      if (!failure.ok()) return false;
      ++recovery.chunks_copied;
      pending_bytes += row.data.size();
      if (pending_bytes >= kCopyBytesPerTransaction) {
        pending_bytes = 0;
        failure = target.Exec("COMMIT; BEGIN IMMEDIATE", what);
      }
      return failure.ok();
    };
    recovery.check = store::CheckStoreConnection(source.db, source.has_crc, options);
    FATHOM_RETURN_IF_ERROR(failure);
    if (!recovery.check.complete) {
      return Status::Error("the check of " + from + " stopped before its end; nothing was recovered");
    }
    const StoreCheck& check = recovery.check;
    recovery.events_copied = check.events_read;
    recovery.lost = Merge(check.lost, check.lost_before);
    FATHOM_RETURN_IF_ERROR(target.Exec(store::kCreateLostTable, what));
    FATHOM_ASSIGN_OR_RETURN(store::Statement lost,
                            target.Prepare("INSERT INTO lost(first_id, last_id) VALUES(?1, ?2)", what));
    for (const IdRange& r : recovery.lost) {
      lost.BindInt(1, static_cast<int64_t>(r.first));
      lost.BindInt(2, static_cast<int64_t>(r.last));
      FATHOM_RETURN_IF_ERROR(target.StepDone(lost, what));
    }
    // The newest id and the retention floor as the store recorded them, else as its chunks say.
    FATHOM_ASSIGN_OR_RETURN(
        int64_t chunk_first,
        target.QueryInt("SELECT min(first_id) FROM chunks", what, 0));
    FATHOM_ASSIGN_OR_RETURN(int64_t chunk_last,
                            target.QueryInt("SELECT max(last_id) FROM chunks", what, 0));
    uint64_t last_id = std::max<uint64_t>(check.last_id, static_cast<uint64_t>(chunk_last));
    if (!recovery.lost.empty()) last_id = std::max(last_id, recovery.lost.back().last);
    uint64_t first_id = check.first_id;
    if (first_id == 0) first_id = chunk_first > 0 ? static_cast<uint64_t>(chunk_first) : last_id + 1;
    const std::string meta = "UPDATE meta SET value = " + std::to_string(last_id) +
                             " WHERE key = 'last_id'; UPDATE meta SET value = " +
                             std::to_string(first_id) + " WHERE key = 'first_id';";
    FATHOM_RETURN_IF_ERROR(target.Exec(meta.c_str(), what));
    FATHOM_RETURN_IF_ERROR(CopyPairs(source.db, target, "positions",
                                     "SELECT source, position FROM positions",
                                     "INSERT INTO positions(source, position) VALUES(?1, ?2)",
                                     "copying the source positions", notes));
    FATHOM_RETURN_IF_ERROR(CopyPairs(source.db, target, "consumers",
                                     "SELECT name, acked_id FROM consumers",
                                     "INSERT INTO consumers(name, acked_id) VALUES(?1, ?2)",
                                     "copying the consumer positions", notes));
    FATHOM_RETURN_IF_ERROR(target.Exec("COMMIT", what));
    // Everything into the main file, synced, and the WAL emptied: the file alone is the store.
    FATHOM_RETURN_IF_ERROR(target.Exec("PRAGMA synchronous=FULL", what));
    return target.Exec("PRAGMA wal_checkpoint(TRUNCATE)", what);
  };
  Status status = copy();
  if (!status.ok()) target.RollbackIfOpen();
  target = store::Connection();  // closed: the WAL and shared-memory files go
  if (status.ok() && link(temp.c_str(), to.c_str()) != 0) {
    // A file system without hard links: a rename, which would replace a `to` that appeared
    // since the check above.
    const int err = errno;
    if ((err != EPERM && err != ENOTSUP) || Exists(to) || std::rename(temp.c_str(), to.c_str()) != 0) {
      status = Status::FromErrno(err, "cannot create the recovered store " + to);
    }
  }
  RemoveStoreFiles(temp);
  if (!status.ok()) return status.WithContext("recovering " + from + " into " + to);
  // The new name durable too.
  const int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
  recovery.notes = std::move(notes);
  return recovery;
}

}  // namespace fathom
