// SampleStore on SQLite: one row per sample, indexed by time.
#include <sqlite3.h>

#include "fathom/io_servers.h"
#include "store/sqlite_file_open.h"

namespace fathom::io {
namespace {

constexpr int64_t kSamplesApplicationId = 0x46494f53;  // "FIOS"
constexpr int64_t kSamplesSchemaVersion = 1;
constexpr int kBusyTimeoutMs = 10'000;

const store::SqliteFileKind kSamplesFile = {
    .noun = "server samples",
    .no_space = "no space left on the file system holding the samples",
    .no_space_remedy = "free space there, or start a new samples file",
    .io_remedy = "check the device and file system holding the samples",
    .locked =
        "the samples stayed locked by another writer past the busy timeout; is a second `fathom io "
        "servers` "
        "writing to the same file?",
    .damaged =
        "the file is damaged (corrupt); move it aside and start `fathom io servers` with a new "
        "file",
    .not_a_database = "not a fathom samples file (not a SQLite database)",
    .read_only =
        "the samples cannot be written (read-only file, directory or file system); check "
        "permissions",
    .read_only_fs = "the file system holding the samples is mounted read-only",
    .read_only_fs_remedy = "`fathom io anomalies` can still read it",
};

constexpr const char* kCreate =
    "CREATE TABLE samples(ts INTEGER NOT NULL, interval INTEGER NOT NULL, target TEXT NOT NULL, "
    "job TEXT NOT NULL, "
    "counter TEXT NOT NULL, unit TEXT NOT NULL, samples INTEGER NOT NULL, sum INTEGER NOT NULL);"
    "CREATE INDEX samples_by_time ON samples(ts);";

class SqliteSampleStore : public SampleStore {
 public:
  SqliteSampleStore(store::Connection db, store::Statement insert, store::Statement select,
                    store::Statement newest)
      : db_(std::move(db)),
        insert_(std::move(insert)),
        select_(std::move(select)),
        newest_(std::move(newest)) {}

  Status Append(const std::vector<ServerSample>& samples) override {
    FATHOM_RETURN_IF_ERROR(db_.Exec("BEGIN IMMEDIATE", "starting to add samples"));
    for (const ServerSample& s : samples) {
      insert_.BindInt(1, s.ts_ns);
      insert_.BindInt(2, s.interval_ns);
      insert_.BindText(3, s.target);
      insert_.BindText(4, s.job);
      insert_.BindText(5, s.counter);
      insert_.BindText(6, s.unit);
      insert_.BindInt(7, static_cast<int64_t>(s.samples));
      insert_.BindInt(8, static_cast<int64_t>(s.sum));
      Status st = db_.StepDone(insert_, "adding a sample");
      if (!st.ok()) {
        db_.RollbackIfOpen();
        return st;
      }
    }
    return db_.Exec("COMMIT", "committing the samples");
  }

  Result<std::vector<ServerSample>> Read(int64_t since_ns, int64_t until_ns) override {
    std::vector<ServerSample> out;
    select_.BindInt(1, since_ns);
    select_.BindInt(2, until_ns);
    int rc;
    while ((rc = sqlite3_step(select_.get())) == SQLITE_ROW) {
      ServerSample s;
      s.ts_ns = select_.ColumnInt(0);
      s.interval_ns = select_.ColumnInt(1);
      s.target = select_.ColumnText(2);
      s.job = select_.ColumnText(3);
      s.counter = select_.ColumnText(4);
      s.unit = select_.ColumnText(5);
      s.samples = static_cast<uint64_t>(select_.ColumnInt(6));
      s.sum = static_cast<uint64_t>(select_.ColumnInt(7));
      out.push_back(std::move(s));
    }
    select_.Reset();
    if (rc != SQLITE_DONE) return db_.Error(rc, "reading samples");
    return out;
  }

  Result<int64_t> Newest() override {
    return db_.QueryInt(newest_, "reading the newest sample's time");
  }

 private:
  store::Connection db_;
  store::Statement insert_;
  store::Statement select_;
  store::Statement newest_;
};

// Whether `db` is a samples file, or (for a writer) a new one, which it then makes.
Status CheckOrCreate(const store::Connection& db, bool create) {
  const std::string& path = db.path();
  auto app_id = db.QueryInt("PRAGMA application_id", "reading the file header");
  if (!app_id.ok()) {
    if ((sqlite3_extended_errcode(db.get()) & 0xff) == SQLITE_NOTADB) {
      return Status::Error(
          path +
          " is not a fathom samples file (not a SQLite database): give the file of "
          "`fathom io servers --out`");
    }
    return app_id.status();
  }
  FATHOM_ASSIGN_OR_RETURN(int64_t objects,
                          db.QueryInt("SELECT count(*) FROM sqlite_schema", "reading the schema"));
  if (*app_id == 0 && objects == 0) {
    if (!create)
      return Status::Error("no samples in " + path +
                           " (the file is empty): `fathom io servers` makes it");
    return db.Exec(
        (std::string("PRAGMA journal_mode=WAL; BEGIN IMMEDIATE;") + kCreate +
         "PRAGMA application_id = " + std::to_string(kSamplesApplicationId) +
         "; PRAGMA user_version = " + std::to_string(kSamplesSchemaVersion) + "; COMMIT;")
            .c_str(),
        "creating the samples table");
  }
  if (*app_id != kSamplesApplicationId) {
    return Status::Error(
        path +
        " is not a fathom samples file (a SQLite database of another kind): give the file of "
        "`fathom io servers --out`, or a new path");
  }
  FATHOM_ASSIGN_OR_RETURN(int64_t version,
                          db.QueryInt("PRAGMA user_version", "reading the schema version"));
  if (version != kSamplesSchemaVersion) {
    return Status::Error("samples file " + path + " has schema version " + std::to_string(version) +
                         ", this fathom " + "reads version " +
                         std::to_string(kSamplesSchemaVersion));
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<SampleStore>> SampleStore::Open(const std::string& path, bool create) {
  FATHOM_ASSIGN_OR_RETURN(
      store::Connection db,
      store::OpenSqliteFile(path, !create, kBusyTimeoutMs, kSamplesFile, "a fathom samples file",
                            "it is made by `fathom io servers --out FILE`"));
  FATHOM_RETURN_IF_ERROR(CheckOrCreate(db, create));
  FATHOM_ASSIGN_OR_RETURN(
      store::Statement insert,
      db.Prepare("INSERT INTO samples(ts, interval, target, job, counter, unit, samples, sum) "
                 "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                 "preparing to add samples"));
  FATHOM_ASSIGN_OR_RETURN(
      store::Statement select,
      db.Prepare("SELECT ts, interval, target, job, counter, unit, samples, sum FROM samples "
                 "WHERE ts BETWEEN ?1 AND ?2 ORDER BY ts, rowid",
                 "preparing to read samples"));
  FATHOM_ASSIGN_OR_RETURN(
      store::Statement newest,
      db.Prepare("SELECT max(ts) FROM samples", "preparing to read the newest sample"));
  return std::unique_ptr<SampleStore>(new SqliteSampleStore(std::move(db), std::move(insert),
                                                            std::move(select), std::move(newest)));
}

}  // namespace fathom::io
