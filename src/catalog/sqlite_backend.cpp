#include "catalog/sqlite_backend.h"

#include "catalog/backend_columns.h"
#include "catalog/sqlite_schema.h"
#include "store/sqlite_handle.h"

namespace fathom::catalog {
namespace {

using store::Connection;
using store::Statement;

// Binds `a` to parameters first..first+18; `osts` holds the OST list's text until the step.
void BindAttrs(Statement& s, int first, const Attrs& a, std::string& osts) {
  sqlite3_stmt* raw = s.get();
  s.BindInt(first, static_cast<int64_t>(a.dev));
  s.BindInt(first + 1, static_cast<int64_t>(a.ino));
  s.BindInt(first + 2, a.mode);
  s.BindInt(first + 3, a.uid);
  s.BindInt(first + 4, a.gid);
  s.BindInt(first + 5, static_cast<int64_t>(a.nlink));
  s.BindInt(first + 6, a.size);
  s.BindInt(first + 7, a.blocks);
  s.BindInt(first + 8, a.atime_ns);
  s.BindInt(first + 9, a.mtime_ns);
  s.BindInt(first + 10, a.ctime_ns);
  if (a.symlink.empty()) {
    sqlite3_bind_null(raw, first + 11);
  } else {
    s.BindBlob(first + 11, a.symlink);
  }
  if (a.projid) {
    s.BindInt(first + 12, *a.projid);
  } else {
    sqlite3_bind_null(raw, first + 12);
  }
  if (a.lustre) {
    const LustreInfo& l = *a.lustre;
    osts = JoinOsts(l.osts);
    s.BindText(first + 13, l.fid);
    s.BindInt(first + 14, l.mdt_index);
    s.BindInt(first + 15, l.stripe_count);
    s.BindInt(first + 16, static_cast<int64_t>(l.stripe_size));
    s.BindText(first + 17, l.pool);
    s.BindText(first + 18, osts);
  } else {
    for (int i = 13; i < kAttrColumns; ++i) sqlite3_bind_null(raw, first + i);
  }
}

Attrs ReadAttrs(const Statement& s, int first) {
  Attrs a;
  a.dev = static_cast<uint64_t>(s.ColumnInt(first));
  a.ino = static_cast<uint64_t>(s.ColumnInt(first + 1));
  a.mode = static_cast<uint32_t>(s.ColumnInt(first + 2));
  a.uid = static_cast<uint32_t>(s.ColumnInt(first + 3));
  a.gid = static_cast<uint32_t>(s.ColumnInt(first + 4));
  a.nlink = static_cast<uint64_t>(s.ColumnInt(first + 5));
  a.size = s.ColumnInt(first + 6);
  a.blocks = s.ColumnInt(first + 7);
  a.atime_ns = s.ColumnInt(first + 8);
  a.mtime_ns = s.ColumnInt(first + 9);
  a.ctime_ns = s.ColumnInt(first + 10);
  if (!s.ColumnIsNull(first + 11)) a.symlink = std::string(s.ColumnBlob(first + 11));
  if (!s.ColumnIsNull(first + 12)) a.projid = static_cast<uint32_t>(s.ColumnInt(first + 12));
  if (!s.ColumnIsNull(first + 13)) {
    LustreInfo l;
    l.fid = s.ColumnText(first + 13);
    l.mdt_index = static_cast<uint32_t>(s.ColumnInt(first + 14));
    l.stripe_count = static_cast<uint32_t>(s.ColumnInt(first + 15));
    l.stripe_size = static_cast<uint64_t>(s.ColumnInt(first + 16));
    l.pool = s.ColumnText(first + 17);
    l.osts = SplitOsts(s.ColumnText(first + 18));
    a.lustre = std::move(l);
  }
  return a;
}

// A row of kEntryColumns starting at column `first`.
EntryRow ReadEntry(const Statement& s, int first) {
  EntryRow row;
  row.id = s.ColumnInt(first);
  row.attrs = ReadAttrs(s, first + 1);
  row.seen_ns = s.ColumnInt(first + 1 + kAttrColumns);
  row.generation = static_cast<uint64_t>(s.ColumnInt(first + 2 + kAttrColumns));
  return row;
}

NameRow ReadName(const Statement& s) {  // parent, name, id, gen
  return NameRow{s.ColumnInt(0), std::string(s.ColumnBlob(1)), s.ColumnInt(2),
                 static_cast<uint64_t>(s.ColumnInt(3))};
}

// The names (parent, name, id, generation 0) of the objects a JSON array of ids lists, read
// from `table`'s index by id (names, or the table of directory names).
std::string NamesByIdFrom(std::string_view table) {
  return "SELECT parent, name, id, 0 FROM " + std::string(table) + " WHERE id IN (SELECT value FROM json_each(?))";
}

std::string Placeholders(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += i == 0 ? "?" : ", ?";
  return text;
}

class SqliteBackend final : public CatalogBackend {
 public:
  SqliteBackend(Connection db, bool read_only) : db_(std::move(db)), read_only_(read_only) {}

  Status Prepare() {
    FATHOM_RETURN_IF_ERROR(PrepareDirectoryNames());
    const std::string entries = kEntryColumns;
    const std::string attrs = kAttrs;
    struct Sql {
      Statement* stmt;
      std::string text;
    };
    const std::string update =
        "UPDATE entries SET dev = ?, ino = ?, mode = ?, uid = ?, gid = ?, nlink = ?, size = ?,"
        " blocks = ?, atime = ?, mtime = ?, ctime = ?, symlink = ?, projid = ?, fid = ?, mdt = ?,"
        " stripe_count = ?, stripe_size = ?, pool = ?, osts = ?, seen = ?, gen = ? WHERE id = ?";
    const Sql all[] = {
        {&entry_by_id_, "SELECT " + entries + " FROM entries WHERE id = ?"},
        {&entries_of_many_, "SELECT " + entries + " FROM entries WHERE id IN (SELECT value FROM json_each(?))"},
        {&entry_by_identity_, "SELECT " + entries + " FROM entries WHERE dev = ? AND ino = ?"},
        {&insert_entry_, "INSERT INTO entries(" + entries + ") VALUES(" +
                             Placeholders(kAttrColumns + 3) + ")"},
        {&update_entry_, update},
        {&delete_entry_, "DELETE FROM entries WHERE id = ?"},
        {&last_id_, "SELECT value FROM meta WHERE key = 'last_entry_id'"},
        {&set_last_id_, "UPDATE meta SET value = ? WHERE key = 'last_entry_id'"},
        {&commits_, "SELECT coalesce((SELECT value FROM meta WHERE key = 'commits'), 0)"},
        {&count_commit_, "INSERT INTO meta(key, value) VALUES('commits', 1)"
                         " ON CONFLICT(key) DO UPDATE SET value = value + 1"},
        {&name_target_, "SELECT id FROM names WHERE parent = ? AND name = ?"},
        {&names_of_, "SELECT parent, name, id, gen FROM names WHERE id = ? ORDER BY parent, name"},
        {&children_of_many_, "SELECT n.parent, n.name, n.gen, " + Qualified("e.", kEntryColumns) +
                                 " FROM names n JOIN entries e ON e.id = n.id"
                                 " WHERE n.parent IN (SELECT value FROM json_each(?)) ORDER BY n.parent, n.name"},
        {&child_modes_of_many_, "SELECT n.parent, n.name, n.gen, e.id, e.mode FROM names n JOIN entries e ON e.id = n.id"
                                " WHERE n.parent IN (SELECT value FROM json_each(?)) ORDER BY n.parent, n.name"},
        // names_id holds (id, parent, name): no read of the names table itself.
        {&names_of_many_, NamesByIdFrom("names")},
        {&insert_name_, "INSERT INTO names(parent, name, id, gen) VALUES(?, ?, ?, ?)"},
        {&delete_name_, "DELETE FROM names WHERE parent = ? AND name = ?"},
        {&rename_name_, "UPDATE names SET parent = ?, name = ? WHERE parent = ? AND name = ?"},
        {&set_name_gen_, "UPDATE names SET gen = ? WHERE parent = ? AND name = ? AND gen <> ?"},
        {&children_, "SELECT n.name, n.gen, " + Qualified("e.", kEntryColumns) +
                         " FROM names n JOIN entries e ON e.id = n.id WHERE n.parent = ?"
                         " ORDER BY n.name"},
        {&child_names_, "SELECT parent, name, id, gen FROM names WHERE parent = ? ORDER BY name"},
        {&tree_, "SELECT files, dirs, symlinks, others, size, blocks, max_mtime FROM tree"
                 " WHERE id = ?"},
        {&add_tree_, "INSERT INTO tree(id, files, dirs, symlinks, others, size, blocks, max_mtime)"
                     " VALUES(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET"
                     " files = files + excluded.files, dirs = dirs + excluded.dirs,"
                     " symlinks = symlinks + excluded.symlinks, others = others + excluded.others,"
                     " size = size + excluded.size, blocks = blocks + excluded.blocks,"
                     " max_mtime = max(max_mtime, excluded.max_mtime)"},
        {&delete_tree_, "DELETE FROM tree WHERE id = ?"},
        {&add_acct_, "INSERT INTO acct VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                     " ON CONFLICT(uid, gid, type) DO UPDATE SET count = count + excluded.count,"
                     " size = size + excluded.size, blocks = blocks + excluded.blocks,"
                     " b0 = b0 + excluded.b0, b1 = b1 + excluded.b1, b2 = b2 + excluded.b2,"
                     " b3 = b3 + excluded.b3, b4 = b4 + excluded.b4, b5 = b5 + excluded.b5,"
                     " b6 = b6 + excluded.b6, b7 = b7 + excluded.b7, b8 = b8 + excluded.b8,"
                     " b9 = b9 + excluded.b9"},
        {&prune_acct_, "DELETE FROM acct WHERE uid = ? AND gid = ? AND type = ? AND count = 0"
                       " AND size = 0 AND blocks = 0"},
        {&set_multi_, "INSERT OR IGNORE INTO multi(id) VALUES(?)"},
        {&clear_multi_, "DELETE FROM multi WHERE id = ?"},
        {&insert_removed_, "INSERT INTO removed(path, " + attrs +
                               ", time, event_id, by_uid, jobid) VALUES(" +
                               Placeholders(kAttrColumns + 5) + ")"},
        {&latest_removal_, "SELECT max(time) FROM removed WHERE dev = ? AND ino = ?"},
        {&expire_removed_, "DELETE FROM removed WHERE time < ?"},
        {&stream_, "SELECT last_applied FROM streams WHERE name = ?"},
        {&set_stream_, "INSERT INTO streams(name, last_applied, pending) VALUES(?, ?, ?)"
                       " ON CONFLICT(name) DO UPDATE SET last_applied = excluded.last_applied,"
                       " pending = excluded.pending"},
        {&stream_pending_, "SELECT pending FROM streams WHERE name = ?"},
        {&scan_, "SELECT generation, root, started, finished FROM scans WHERE generation = ?"},
        {&unfinished_scan_, "SELECT generation, root, started, finished FROM scans"
                            " WHERE root = ? AND finished IS NULL ORDER BY generation DESC LIMIT 1"},
        {&last_generation_, "SELECT max(generation) FROM scans"},
        {&insert_scan_, "INSERT INTO scans(generation, root, started, finished) VALUES(?, ?, ?, NULL)"},
        {&finish_scan_, "UPDATE scans SET finished = ? WHERE generation = ?"},
    };
    for (const Sql& sql : all) {
      FATHOM_ASSIGN_OR_RETURN(*sql.stmt, db_.Prepare(sql.text, "preparing a statement"));
    }
    return Status::Ok();
  }

  std::string_view name() const override { return "sqlite"; }
  const std::string& location() const override { return db_.path(); }
  int schema_version() const override { return kCatalogSchemaVersion; }
  bool read_only() const override { return read_only_; }

  bool InWrite() const override { return sqlite3_get_autocommit(db_.get()) == 0; }
  Status BeginWrite() override { return db_.Exec("BEGIN IMMEDIATE", "starting a transaction"); }
  Status CommitWrite() override {
    Status status = db_.Exec("COMMIT", "committing a transaction");
    if (!status.ok()) db_.RollbackIfOpen();
    return status;
  }
  void RollbackWrite() override { db_.RollbackIfOpen(); }

  Result<std::optional<EntryRow>> EntryById(EntryId id) override {
    entry_by_id_.BindInt(1, id);
    return OneEntry(entry_by_id_, "reading an entry");
  }
  Result<std::optional<EntryRow>> EntryByIdentity(uint64_t dev, uint64_t ino) override {
    entry_by_identity_.BindInt(1, static_cast<int64_t>(dev));
    entry_by_identity_.BindInt(2, static_cast<int64_t>(ino));
    return OneEntry(entry_by_identity_, "finding an entry by device and inode");
  }
  Status InsertEntry(const EntryRow& row) override {
    insert_entry_.BindInt(1, row.id);
    BindAttrs(insert_entry_, 2, row.attrs, osts_);
    insert_entry_.BindInt(2 + kAttrColumns, row.seen_ns);
    insert_entry_.BindInt(3 + kAttrColumns, static_cast<int64_t>(row.generation));
    return db_.StepDone(insert_entry_, "inserting an entry");
  }
  Status UpdateEntry(const EntryRow& row) override {
    BindAttrs(update_entry_, 1, row.attrs, osts_);
    update_entry_.BindInt(1 + kAttrColumns, row.seen_ns);
    update_entry_.BindInt(2 + kAttrColumns, static_cast<int64_t>(row.generation));
    update_entry_.BindInt(3 + kAttrColumns, row.id);
    return db_.StepDone(update_entry_, "updating an entry");
  }
  Status DeleteEntry(EntryId id) override {
    delete_entry_.BindInt(1, id);
    return db_.StepDone(delete_entry_, "deleting an entry");
  }
  Result<EntryId> LastEntryId() override { return db_.QueryInt(last_id_, "reading the last entry id"); }
  Result<uint64_t> Commits() override {
    FATHOM_ASSIGN_OR_RETURN(int64_t commits, db_.QueryInt(commits_, "reading the count of commits"));
    return static_cast<uint64_t>(commits);
  }
  Status CountCommit() override { return db_.StepDone(count_commit_, "counting a commit"); }
  Status SetLastEntryId(EntryId id) override {
    set_last_id_.BindInt(1, id);
    return db_.StepDone(set_last_id_, "recording the last entry id");
  }

  Status SelectEntries(const Selection& sel,
                       const std::function<bool(const EntryRow&)>& fn) override {
    return Selected(kEntryColumns, sel, [&](const Statement& s) { return fn(ReadEntry(s, 0)); });
  }
  Status SelectIds(const Selection& sel, const std::function<bool(EntryId)>& fn) override {
    return Selected("id", sel, [&](const Statement& s) { return fn(s.ColumnInt(0)); });
  }
  Status EntriesOfMany(std::span<const EntryId> ids, const std::function<void(EntryRow&&)>& fn) override {
    return RowsOfIds(entries_of_many_, ids, "reading entries", [&](const Statement& s) { fn(ReadEntry(s, 0)); });
  }
  Result<uint64_t> CountEntries(const Selection& sel, uint64_t at_most) override {
    std::vector<int64_t> values;
    const std::string sql = "SELECT count(*) FROM (SELECT 1 FROM entries WHERE 1" + Where(sel, values) + " LIMIT ?)";
    values.push_back(static_cast<int64_t>(std::min<uint64_t>(at_most, INT64_MAX)));
    FATHOM_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare(sql, "counting entries"));
    for (size_t i = 0; i < values.size(); ++i) stmt.BindInt(static_cast<int>(i + 1), values[i]);
    FATHOM_ASSIGN_OR_RETURN(EntryId count, db_.QueryInt(stmt, "counting entries"));
    return static_cast<uint64_t>(count);
  }
  Status ForEachEntry(const std::function<void(const EntryRow&)>& fn) override {
    FATHOM_ASSIGN_OR_RETURN(
        Statement stmt, db_.Prepare(std::string("SELECT ") + kEntryColumns + " FROM entries", "reading entries"));
    return Rows(stmt, "reading entries", [&](const Statement& s) {
      fn(ReadEntry(s, 0));
      return true;
    });
  }

  Result<EntryId> NameTarget(EntryId parent, std::string_view name) override {
    name_target_.BindInt(1, parent);
    name_target_.BindBlob(2, name);
    return db_.QueryInt(name_target_, "looking a name up");
  }
  Result<std::vector<NameRow>> NamesOf(EntryId id) override {
    names_of_.BindInt(1, id);
    return NameRows(names_of_, "reading an entry's names");
  }
  Status NamesOfMany(std::span<const EntryId> ids, const std::function<void(const NameRow&)>& fn) override {
    return NamesIn(names_of_many_, ids, fn);
  }
  Status DirectoryNamesOfMany(std::span<const EntryId> ids, const std::function<void(const NameRow&)>& fn) override {
    return NamesIn(dirs_.get() != nullptr ? dirs_ : names_of_many_, ids, fn);
  }
  Status InsertName(const NameRow& row) override {
    insert_name_.BindInt(1, row.parent);
    insert_name_.BindBlob(2, row.name);
    insert_name_.BindInt(3, row.id);
    insert_name_.BindInt(4, static_cast<int64_t>(row.generation));
    return db_.StepDone(insert_name_, "inserting a name");
  }
  Status DeleteName(EntryId parent, std::string_view name) override {
    delete_name_.BindInt(1, parent);
    delete_name_.BindBlob(2, name);
    return db_.StepDone(delete_name_, "deleting a name");
  }
  Status RenameName(EntryId parent, std::string_view name, EntryId new_parent,
                    std::string_view new_name) override {
    rename_name_.BindInt(1, new_parent);
    rename_name_.BindBlob(2, new_name);
    rename_name_.BindInt(3, parent);
    rename_name_.BindBlob(4, name);
    return db_.StepDone(rename_name_, "renaming a name");
  }
  Status SetNameGeneration(EntryId parent, std::string_view name, uint64_t generation) override {
    set_name_gen_.BindInt(1, static_cast<int64_t>(generation));
    set_name_gen_.BindInt(2, parent);
    set_name_gen_.BindBlob(3, name);
    set_name_gen_.BindInt(4, static_cast<int64_t>(generation));
    return db_.StepDone(set_name_gen_, "recording a scan's generation");
  }
  Result<std::vector<std::pair<NameRow, EntryRow>>> Children(EntryId dir) override {
    children_.BindInt(1, dir);
    std::vector<std::pair<NameRow, EntryRow>> out;
    FATHOM_RETURN_IF_ERROR(Rows(children_, "listing a directory", [&](const Statement& s) {
      EntryRow entry = ReadEntry(s, 2);
      NameRow name{dir, std::string(s.ColumnBlob(0)), entry.id, static_cast<uint64_t>(s.ColumnInt(1))};
      out.emplace_back(std::move(name), std::move(entry));
      return true;
    }));
    return out;
  }
  Status ChildrenOfMany(std::span<const EntryId> dirs,
                        const std::function<void(NameRow&&, EntryRow&&)>& fn) override {
    return ChildRows(children_of_many_, dirs, fn, [](const Statement& s) { return ReadEntry(s, 3); });
  }
  Status ChildModesOfMany(std::span<const EntryId> dirs,
                          const std::function<void(NameRow&&, EntryRow&&)>& fn) override {
    return ChildRows(child_modes_of_many_, dirs, fn, [](const Statement& s) {
      EntryRow entry;
      entry.id = s.ColumnInt(3);
      entry.attrs.mode = static_cast<uint32_t>(s.ColumnInt(4));
      return entry;
    });
  }
  Result<std::vector<NameRow>> ChildNames(EntryId dir) override {
    child_names_.BindInt(1, dir);
    return NameRows(child_names_, "listing a directory");
  }
  Status ForEachName(const std::function<void(const NameRow&)>& fn) override {
    FATHOM_ASSIGN_OR_RETURN(Statement stmt,
                            db_.Prepare("SELECT parent, name, id, gen FROM names", "reading names"));
    return Rows(stmt, "reading names", [&](const Statement& s) {
      fn(ReadName(s));
      return true;
    });
  }

  Result<Totals> Tree(EntryId dir) override {
    tree_.BindInt(1, dir);
    Totals totals;
    FATHOM_RETURN_IF_ERROR(Rows(tree_, "reading subtree totals", [&](const Statement& s) {
      totals = ReadTotals(s, 0);
      return false;
    }));
    return totals;
  }
  Status AddTree(EntryId dir, const TotalsDelta& d) override {
    add_tree_.BindInt(1, dir);
    add_tree_.BindInt(2, d.files);
    add_tree_.BindInt(3, d.dirs);
    add_tree_.BindInt(4, d.symlinks);
    add_tree_.BindInt(5, d.others);
    add_tree_.BindInt(6, d.size);
    add_tree_.BindInt(7, d.blocks);
    add_tree_.BindInt(8, d.max_mtime_ns);
    return db_.StepDone(add_tree_, "updating subtree totals");
  }
  Status DeleteTree(EntryId dir) override {
    delete_tree_.BindInt(1, dir);
    return db_.StepDone(delete_tree_, "deleting subtree totals");
  }
  Status AddAcct(const AcctKey& key, const AcctDelta& d) override {
    add_acct_.BindInt(1, key.uid);
    add_acct_.BindInt(2, key.gid);
    add_acct_.BindInt(3, key.type);
    add_acct_.BindInt(4, d.count);
    add_acct_.BindInt(5, d.size);
    add_acct_.BindInt(6, d.blocks);
    for (int i = 0; i < kSizeBuckets; ++i) add_acct_.BindInt(7 + i, d.buckets[i]);
    FATHOM_RETURN_IF_ERROR(db_.StepDone(add_acct_, "updating the accounting"));
    prune_acct_.BindInt(1, key.uid);
    prune_acct_.BindInt(2, key.gid);
    prune_acct_.BindInt(3, key.type);
    return db_.StepDone(prune_acct_, "updating the accounting");
  }
  Result<std::vector<AcctRow>> Accounting() override {
    FATHOM_ASSIGN_OR_RETURN(Statement stmt,
                            db_.Prepare("SELECT * FROM acct ORDER BY uid, gid, type", "reading the accounting"));
    std::vector<AcctRow> rows;
    FATHOM_RETURN_IF_ERROR(Rows(stmt, "reading the accounting", [&](const Statement& s) {
      AcctRow row;
      row.uid = static_cast<uint32_t>(s.ColumnInt(0));
      row.gid = static_cast<uint32_t>(s.ColumnInt(1));
      row.type = static_cast<uint32_t>(s.ColumnInt(2));
      row.count = static_cast<uint64_t>(s.ColumnInt(3));
      row.size = s.ColumnInt(4);
      row.blocks = s.ColumnInt(5);
      for (int i = 0; i < kSizeBuckets; ++i) row.buckets[i] = static_cast<uint64_t>(s.ColumnInt(6 + i));
      rows.push_back(row);
      return true;
    }));
    return rows;
  }
  Status ForEachTree(const std::function<void(EntryId, const Totals&)>& fn) override {
    FATHOM_ASSIGN_OR_RETURN(
        Statement stmt,
        db_.Prepare("SELECT files, dirs, symlinks, others, size, blocks, max_mtime, id FROM tree",
                    "reading subtree totals"));
    return Rows(stmt, "reading subtree totals", [&](const Statement& s) {
      fn(s.ColumnInt(7), ReadTotals(s, 0));
      return true;
    });
  }
  Status SetMulti(EntryId id, bool several_names) override {
    Statement& stmt = several_names ? set_multi_ : clear_multi_;
    stmt.BindInt(1, id);
    return db_.StepDone(stmt, "recording an object's several names");
  }
  Result<std::vector<EntryId>> MultiEntries() override {
    FATHOM_ASSIGN_OR_RETURN(Statement stmt,
                            db_.Prepare("SELECT id FROM multi ORDER BY id", "reading objects with several names"));
    std::vector<EntryId> ids;
    FATHOM_RETURN_IF_ERROR(Rows(stmt, "reading objects with several names", [&](const Statement& s) {
      ids.push_back(s.ColumnInt(0));
      return true;
    }));
    return ids;
  }
  Result<bool> ForEachKeptDirectoryName(const std::function<void(const NameRow&)>& fn) override {
    if (dirs_.get() == nullptr) return false;
    FATHOM_ASSIGN_OR_RETURN(Statement all, db_.Prepare("SELECT parent, name, id, 0 FROM dirs", "reading directory names"));
    FATHOM_RETURN_IF_ERROR(Rows(all, "reading directory names", [&](const Statement& row) {
      fn(ReadName(row));
      return true;
    }));
    return true;
  }
  Status RefillDirectoryNames() override {
    return dirs_.get() == nullptr ? Status::Ok() : catalog::RefillDirectoryNames(db_);
  }

  Status ReplaceStatistics(const std::vector<AcctRow>& acct,
                           const std::vector<std::pair<EntryId, Totals>>& tree,
                           const std::vector<EntryId>& multi) override {
    FATHOM_RETURN_IF_ERROR(db_.Exec("DELETE FROM acct; DELETE FROM tree; DELETE FROM multi",
                                    "clearing the kept statistics"));
    for (const AcctRow& row : acct) {
      FATHOM_RETURN_IF_ERROR(AddAcct(AcctKey{row.uid, row.gid, row.type}, DeltaOf(row)));
    }
    for (const auto& [id, totals] : tree) FATHOM_RETURN_IF_ERROR(AddTree(id, FromTotals(totals)));
    for (EntryId id : multi) FATHOM_RETURN_IF_ERROR(SetMulti(id, true));
    return Status::Ok();
  }

  Status InsertRemoved(const RemovedEntry& r) override {
    Statement& s = insert_removed_;
    s.BindBlob(1, r.path);
    BindAttrs(s, 2, r.attrs, osts_);
    s.BindInt(2 + kAttrColumns, r.removal.time_ns);
    s.BindInt(3 + kAttrColumns, static_cast<int64_t>(r.removal.event_id));
    if (r.removal.uid) {
      s.BindInt(4 + kAttrColumns, *r.removal.uid);
    } else {
      sqlite3_bind_null(s.get(), 4 + kAttrColumns);
    }
    s.BindText(5 + kAttrColumns, r.removal.jobid);
    return db_.StepDone(s, "recording a removed entry");
  }
  Result<int64_t> LatestRemoval(uint64_t dev, uint64_t ino) override {
    latest_removal_.BindInt(1, static_cast<int64_t>(dev));
    latest_removal_.BindInt(2, static_cast<int64_t>(ino));
    return db_.QueryInt(latest_removal_, "reading removed entries");
  }
  Status ExpireRemoved(int64_t before_ns) override {
    expire_removed_.BindInt(1, before_ns);
    return db_.StepDone(expire_removed_, "expiring removed entries");
  }
  Status ForEachRemoved(int64_t since_ns,
                        const std::function<bool(const RemovedEntry&)>& fn) override {
    FATHOM_ASSIGN_OR_RETURN(
        Statement stmt,
        db_.Prepare(std::string("SELECT path, ") + kAttrs +
                        ", time, event_id, by_uid, jobid FROM removed WHERE time >= ?"
                        " ORDER BY time DESC, rowid DESC",
                    "reading removed entries"));
    stmt.BindInt(1, since_ns);
    return Rows(stmt, "reading removed entries", [&](const Statement& s) {
      RemovedEntry r;
      r.path = std::string(s.ColumnBlob(0));
      r.attrs = ReadAttrs(s, 1);
      r.removal.time_ns = s.ColumnInt(1 + kAttrColumns);
      r.removal.event_id = static_cast<uint64_t>(s.ColumnInt(2 + kAttrColumns));
      if (!s.ColumnIsNull(3 + kAttrColumns)) r.removal.uid = static_cast<uint32_t>(s.ColumnInt(3 + kAttrColumns));
      r.removal.jobid = s.ColumnText(4 + kAttrColumns);
      return fn(r);
    });
  }

  Result<uint64_t> StreamPosition(std::string_view stream) override {
    stream_.BindText(1, stream);
    FATHOM_ASSIGN_OR_RETURN(int64_t position, db_.QueryInt(stream_, "reading a stream position"));
    return static_cast<uint64_t>(position);
  }
  Result<std::string> StreamPending(std::string_view stream) override {
    stream_pending_.BindText(1, stream);
    std::string pending;
    const int rc = sqlite3_step(stream_pending_.get());
    if (rc == SQLITE_ROW) pending = std::string(stream_pending_.ColumnBlob(0));
    stream_pending_.Reset();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return db_.Error(rc, "reading a stream's pending paths");
    return pending;
  }
  Status SetStreamPosition(std::string_view stream, uint64_t last_applied,
                           std::string_view pending) override {
    set_stream_.BindText(1, stream);
    set_stream_.BindInt(2, static_cast<int64_t>(last_applied));
    set_stream_.BindBlob(3, pending);
    return db_.StepDone(set_stream_, "recording a stream position");
  }
  Result<std::optional<ScanRow>> Scan(uint64_t generation) override {
    scan_.BindInt(1, static_cast<int64_t>(generation));
    return OneScan(scan_);
  }
  Result<std::optional<ScanRow>> UnfinishedScan(std::string_view root) override {
    unfinished_scan_.BindBlob(1, root);
    return OneScan(unfinished_scan_);
  }
  Result<uint64_t> LastGeneration() override {
    FATHOM_ASSIGN_OR_RETURN(int64_t last, db_.QueryInt(last_generation_, "reading the scans"));
    return static_cast<uint64_t>(last);
  }
  Status InsertScan(const ScanRow& scan) override {
    insert_scan_.BindInt(1, static_cast<int64_t>(scan.generation));
    insert_scan_.BindBlob(2, scan.root);
    insert_scan_.BindInt(3, scan.started_ns);
    return db_.StepDone(insert_scan_, "recording a scan");
  }
  Result<uint64_t> FirstScan() override {
    FATHOM_ASSIGN_OR_RETURN(int64_t generation,
                            db_.QueryInt("SELECT value FROM meta WHERE key = 'first_scan'",
                                         "reading the first scan's generation"));
    return static_cast<uint64_t>(generation);
  }
  Status SetFirstScan(uint64_t generation) override {
    const std::string sql = generation == 0
                                ? std::string("DELETE FROM meta WHERE key = 'first_scan'")
                                : "INSERT OR REPLACE INTO meta(key, value) VALUES('first_scan', " +
                                      std::to_string(generation) + ")";
    return db_.Exec(sql.c_str(), "recording the first scan's generation");
  }

  Status DeferQueryIndexes() override {
    dirs_ = Statement();
    FATHOM_RETURN_IF_ERROR(DropDirectoryNames(db_));
    return DropSecondaryIndexes(db_);
  }
  Status BuildQueryIndexes() override {
    FATHOM_RETURN_IF_ERROR(KeepDirectoryNames(db_));
    FATHOM_RETURN_IF_ERROR(PrepareDirectoryNames());
    return BuildSecondaryIndexes(db_);
  }

  Status MarkScanFinished(uint64_t generation, int64_t finished_ns) override {
    finish_scan_.BindInt(1, finished_ns);
    finish_scan_.BindInt(2, static_cast<int64_t>(generation));
    return db_.StepDone(finish_scan_, "recording the end of a scan");
  }

  Result<TableCounts> Counts() override {
    TableCounts c;
    FATHOM_ASSIGN_OR_RETURN(int64_t entries, db_.QueryInt("SELECT count(*) FROM entries", "counting entries"));
    FATHOM_ASSIGN_OR_RETURN(int64_t names, db_.QueryInt("SELECT count(*) FROM names", "counting names"));
    FATHOM_ASSIGN_OR_RETURN(int64_t removed, db_.QueryInt("SELECT count(*) FROM removed", "counting removed entries"));
    FATHOM_ASSIGN_OR_RETURN(int64_t pages, db_.QueryInt("PRAGMA page_count", "reading the database size"));
    FATHOM_ASSIGN_OR_RETURN(int64_t page_size, db_.QueryInt("PRAGMA page_size", "reading the database size"));
    c.entries = static_cast<uint64_t>(entries);
    c.names = static_cast<uint64_t>(names);
    c.removed = static_cast<uint64_t>(removed);
    c.bytes = pages * page_size;
    return c;
  }

 private:
  static Totals ReadTotals(const Statement& s, int first) {
    Totals t;
    t.files = static_cast<uint64_t>(s.ColumnInt(first));
    t.dirs = static_cast<uint64_t>(s.ColumnInt(first + 1));
    t.symlinks = static_cast<uint64_t>(s.ColumnInt(first + 2));
    t.others = static_cast<uint64_t>(s.ColumnInt(first + 3));
    t.size = s.ColumnInt(first + 4);
    t.blocks = s.ColumnInt(first + 5);
    t.max_mtime_ns = s.ColumnInt(first + 6);
    return t;
  }

  // Steps `stmt` through its rows while `fn` returns true, then resets it.
  Status Rows(Statement& stmt, std::string_view what,
              const std::function<bool(const Statement&)>& fn) {
    for (;;) {
      int rc = sqlite3_step(stmt.get());
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        Status error = db_.Error(rc, what);
        stmt.Reset();
        return error;
      }
      if (!fn(stmt)) break;
    }
    stmt.Reset();
    return Status::Ok();
  }

  Result<std::optional<EntryRow>> OneEntry(Statement& stmt, std::string_view what) {
    std::optional<EntryRow> row;
    FATHOM_RETURN_IF_ERROR(Rows(stmt, what, [&](const Statement& s) {
      row = ReadEntry(s, 0);
      return false;
    }));
    return row;
  }

  // "[1,2,3]": ids for json_each(), SQLite's way of binding a list.
  static std::string JsonIds(std::span<const EntryId> ids) {
    std::string list = "[";
    for (EntryId id : ids) {
      if (list.size() > 1) list.push_back(',');
      list += std::to_string(id);
    }
    list.push_back(']');
    return list;
  }

  // The selection's bounds as " AND ..." conditions, their values appended to `values`.
  static std::string Where(const Selection& sel, std::vector<int64_t>& values) {
    std::string sql;
    for (const auto& [condition, value] : SelectionBounds(sel)) {
      sql += std::string(" AND ") + condition + " ?";
      values.push_back(value);
    }
    return sql;
  }

  // The children of `dirs` through `st` (children_of_many_ or child_modes_of_many_: parent,
  // name, gen, then the entry's columns, which `entry` reads) in one statement: one read
  // transaction for all, not one per directory.
  Status ChildRows(Statement& st, std::span<const EntryId> dirs, const std::function<void(NameRow&&, EntryRow&&)>& fn,
                   EntryRow (*entry)(const Statement&)) {
    const std::string list = JsonIds(dirs);  // bound without a copy: alive until the last step
    st.BindText(1, list);
    return Rows(st, "listing directories", [&](const Statement& s) {
      EntryRow row = entry(s);
      NameRow name{s.ColumnInt(0), std::string(s.ColumnBlob(1)), row.id, static_cast<uint64_t>(s.ColumnInt(2))};
      fn(std::move(name), std::move(row));
      return true;
    });
  }

  Status PrepareDirectoryNames() {
    FATHOM_ASSIGN_OR_RETURN(const bool kept, KeepsDirectoryNames(db_));
    if (!kept) return Status::Ok();
    FATHOM_ASSIGN_OR_RETURN(dirs_, db_.Prepare(NamesByIdFrom("dirs"), "preparing a statement"));
    return Status::Ok();
  }

  Result<std::vector<NameRow>> NameRows(Statement& stmt, std::string_view what) {
    std::vector<NameRow> rows;
    FATHOM_RETURN_IF_ERROR(Rows(stmt, what, [&](const Statement& s) {
      rows.push_back(ReadName(s));
      return true;
    }));
    return rows;
  }

  Result<std::optional<ScanRow>> OneScan(Statement& stmt) {
    std::optional<ScanRow> row;
    FATHOM_RETURN_IF_ERROR(Rows(stmt, "reading the scans", [&](const Statement& s) {
      row = ScanRow{static_cast<uint64_t>(s.ColumnInt(0)), std::string(s.ColumnBlob(1)),
                    s.ColumnInt(2), !s.ColumnIsNull(3)};
      return false;
    }));
    return row;
  }

  Connection db_;
  bool read_only_;
  std::string osts_;  // BindAttrs' OST text, alive until the step
  Statement entry_by_id_, entries_of_many_, entry_by_identity_, insert_entry_, update_entry_, delete_entry_;
  Statement last_id_, set_last_id_, commits_, count_commit_;
  // The rows `st` (names_of_many_, dirs_, entries_of_many_) reads for `ids`: one statement
  // per slice (a JSON array of ids), one read transaction, not one per id.
  Status RowsOfIds(Statement& st, std::span<const EntryId> ids, const char* what,
                   const std::function<void(const Statement&)>& fn) {
    constexpr size_t kIdsPerRead = 10000;
    for (size_t start = 0; start < ids.size(); start += kIdsPerRead) {
      const std::string list = JsonIds(ids.subspan(start, std::min(kIdsPerRead, ids.size() - start)));
      st.BindText(1, list);  // bound, not copied: `list` outlives the rows
      FATHOM_RETURN_IF_ERROR(Rows(st, what, [&](const Statement& row) {
        fn(row);
        return true;
      }));
    }
    return Status::Ok();
  }
  Status NamesIn(Statement& st, std::span<const EntryId> ids, const std::function<void(const NameRow&)>& fn) {
    return RowsOfIds(st, ids, "reading names", [&](const Statement& row) { fn(ReadName(row)); });
  }
  // `columns` of the entries `sel` admits, through the indexes.
  Status Selected(const std::string& columns, const Selection& sel, const std::function<bool(const Statement&)>& fn) {
    std::vector<int64_t> values;
    const std::string sql = "SELECT " + columns + " FROM entries WHERE 1" + Where(sel, values);
    FATHOM_ASSIGN_OR_RETURN(Statement stmt, db_.Prepare(sql, "selecting entries"));
    for (size_t i = 0; i < values.size(); ++i) stmt.BindInt(static_cast<int>(i + 1), values[i]);
    return Rows(stmt, "selecting entries", fn);
  }

  // The directories' names from the table of directory names, where the catalog keeps one
  // (else empty: from names_id).
  Statement dirs_;
  Statement child_modes_of_many_;
  Statement name_target_, names_of_, names_of_many_, insert_name_, delete_name_, rename_name_, set_name_gen_;
  Statement children_, children_of_many_, child_names_;
  Statement tree_, add_tree_, delete_tree_, add_acct_, prune_acct_, set_multi_, clear_multi_;
  Statement insert_removed_, latest_removal_, expire_removed_;
  Statement stream_, set_stream_, stream_pending_, scan_, unfinished_scan_, last_generation_, insert_scan_,
      finish_scan_;
};

}  // namespace

Result<std::unique_ptr<CatalogBackend>> OpenSqliteBackend(const std::string& path, bool read_only) {
  FATHOM_ASSIGN_OR_RETURN(Connection db, OpenSqliteCatalog(path, read_only));
  auto backend = std::make_unique<SqliteBackend>(std::move(db), read_only);
  FATHOM_RETURN_IF_ERROR(backend->Prepare());
  return std::unique_ptr<CatalogBackend>(std::move(backend));
}

}  // namespace fathom::catalog
