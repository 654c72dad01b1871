// The PostgreSQL backend: opening, transactions, entries and names (pg_backend_impl.h).
#include "catalog/postgres/pg_backend.h"

#include "catalog/backend_columns.h"
#include "catalog/postgres/pg_backend_impl.h"
#include "catalog/postgres/pg_rows.h"
#include "catalog/postgres/pg_schema.h"

namespace fathom::catalog {
namespace pg {
namespace {

// The (dev, ino) pairs of WriteAhead::Read, given as two lists of bigint in text ("1,2,3").
constexpr const char* kIdentities =
    "unnest(string_to_array($1, ',')::bigint[], string_to_array($2, ',')::bigint[]) AS k(dev, ino)";

std::vector<Type> EntryTypes() {
  std::vector<Type> types{Type::kInt};
  for (Type type : AttrTypes()) types.push_back(type);
  types.push_back(Type::kInt);
  types.push_back(Type::kInt);
  return types;
}

}  // namespace

std::vector<PgBackend::Sql> PgBackend::EntrySql() {
  const std::string select = std::string("SELECT ") + kEntryColumns + " FROM entries";
  std::vector<Type> update_types = AttrTypes();  // the attributes, seen, gen, id
  update_types.insert(update_types.end(), 3, Type::kInt);
  return {
      {&lock_, "SELECT pg_advisory_xact_lock($1)", Ints(1), "wait for the catalog's other writer"},
      {&read_ahead_entries_,
       "SELECT " + Qualified("e.", kEntryColumns) + " FROM entries e JOIN " + kIdentities +
           " ON e.dev = k.dev AND e.ino = k.ino",
       {Type::kText, Type::kText}, "read the entries of objects about to be put"},
      {&read_ahead_removals_,
       std::string("SELECT r.dev, r.ino, max(r.time) FROM removed r JOIN ") + kIdentities +
           " ON r.dev = k.dev AND r.ino = k.ino GROUP BY r.dev, r.ino",
       {Type::kText, Type::kText}, "read the removals of objects about to be put"},
      {&entry_by_id_, select + " WHERE id = $1", Ints(1), "read an entry"},
      {&entries_of_many_, select + " WHERE id = ANY(string_to_array($1, ',')::bigint[])", {Type::kText},
       "read many entries"},
      {&entry_by_identity_, select + " WHERE dev = $1 AND ino = $2", Ints(2),
       "find an entry by device and inode"},
      {&insert_entry_,
       std::string("INSERT INTO entries(") + kEntryColumns + ") VALUES(" + Placeholders(1, kAttrColumns + 3) + ")",
       EntryTypes(), "insert an entry"},
      {&update_entry_,
       "UPDATE entries SET dev = $1, ino = $2, mode = $3, uid = $4, gid = $5, nlink = $6, size = $7,"
       " blocks = $8, atime = $9, mtime = $10, ctime = $11, symlink = $12, projid = $13, fid = $14,"
       " mdt = $15, stripe_count = $16, stripe_size = $17, pool = $18, osts = $19, seen = $20,"
       " gen = $21 WHERE id = $22",
       update_types, "update an entry"},
      {&delete_entry_, "DELETE FROM entries WHERE id = $1", Ints(1), "delete an entry"},
      {&last_id_, "SELECT value FROM meta WHERE key = 'last_entry_id'", {}, "read the last entry id"},
      {&set_last_id_, "UPDATE meta SET value = $1 WHERE key = 'last_entry_id'", Ints(1),
       "record the last entry id"},
      {&commits_, "SELECT coalesce((SELECT value FROM meta WHERE key = 'commits'), 0)", {}, "read the count of commits"},
      {&count_commit_,
       "INSERT INTO meta(key, value) VALUES('commits', 1) ON CONFLICT(key) DO UPDATE SET value = meta.value + 1", {},
       "count a commit"},
      {&entries_after_, select + " WHERE id > $1 ORDER BY id LIMIT $2", Ints(2), "read entries"},
      {&name_target_, "SELECT id FROM names WHERE parent = $1 AND name = $2", {Type::kInt, Type::kBytes},
       "look a name up"},
      {&names_of_, "SELECT parent, name, id, gen FROM names WHERE id = $1 ORDER BY parent, name", Ints(1),
       "read an entry's names"},
      {&names_of_many_,
       "SELECT parent, name, id, gen FROM names WHERE id = ANY(string_to_array($1, ',')::bigint[])",
       {Type::kText}, "read the names of many entries"},
      {&insert_name_, "INSERT INTO names(parent, name, id, gen) VALUES($1, $2, $3, $4)",
       {Type::kInt, Type::kBytes, Type::kInt, Type::kInt}, "insert a name"},
      {&delete_name_, "DELETE FROM names WHERE parent = $1 AND name = $2", {Type::kInt, Type::kBytes},
       "delete a name"},
      {&rename_name_, "UPDATE names SET parent = $1, name = $2 WHERE parent = $3 AND name = $4",
       {Type::kInt, Type::kBytes, Type::kInt, Type::kBytes}, "rename a name"},
      {&set_name_gen_, "UPDATE names SET gen = $1 WHERE parent = $2 AND name = $3 AND gen <> $1",
       {Type::kInt, Type::kInt, Type::kBytes}, "record a scan's generation"},
      {&children_,
       "SELECT n.name, n.gen, " + Qualified("e.", kEntryColumns) +
           " FROM names n JOIN entries e ON e.id = n.id WHERE n.parent = $1 ORDER BY n.name",
       Ints(1), "list a directory"},
      {&children_of_many_,
       "SELECT n.parent, n.name, n.gen, " + Qualified("e.", kEntryColumns) +
           " FROM names n JOIN entries e ON e.id = n.id"
           " WHERE n.parent = ANY(string_to_array($1, ',')::bigint[]) ORDER BY n.parent, n.name",
       {Type::kText}, "list directories"},
      {&child_names_, "SELECT parent, name, id, gen FROM names WHERE parent = $1 ORDER BY name", Ints(1),
       "list a directory"},
      {&names_after_,
       "SELECT parent, name, id, gen FROM names WHERE (parent, name) > ($1, $2) ORDER BY parent, name"
       " LIMIT $3",
       {Type::kInt, Type::kBytes, Type::kInt}, "read names"},
  };
}

Status PgBackend::Prepare() {
  std::vector<Sql> all = EntrySql();
  for (Sql& sql : TableSql()) all.push_back(std::move(sql));
  for (const Sql& sql : all) {
    FATHOM_ASSIGN_OR_RETURN(*sql.stmt, session_.Prepare(sql.text, sql.types, sql.what));
  }
  return Status::Ok();
}

int PgBackend::schema_version() const { return kPgCatalogSchemaVersion; }

Status PgBackend::BeginWrite() {
  if (read_only_) {
    return Status::Error("catalog " + location_ + " was opened read-only, so it cannot be changed: open it "
                         "without read_only to write",
                         std::make_error_code(std::errc::read_only_file_system));
  }
  ahead_.End();
  FATHOM_RETURN_IF_ERROR(session_.Begin());
  Status locked = Run(lock_, {Param::Int(kWriterLockKey)}).status();
  if (!locked.ok()) {
    (void)session_.Rollback();
    return locked;
  }
  in_write_ = true;
  return Status::Ok();
}

Status PgBackend::CommitWrite() {
  in_write_ = false;
  Status status = Flush();
  if (status.ok()) status = session_.Commit();
  ahead_.End();
  if (!status.ok()) (void)session_.Rollback();
  return status;
}

void PgBackend::RollbackWrite() {
  in_write_ = false;
  ahead_.End();
  (void)session_.Rollback();
}

Result<int64_t> PgBackend::RunInt(const Statement& stmt, const std::vector<Param>& params) {
  FATHOM_RETURN_IF_ERROR(Flush());
  return RunIntNow(stmt, params);
}

Result<int64_t> PgBackend::RunIntNow(const Statement& stmt, const std::vector<Param>& params) {
  FATHOM_ASSIGN_OR_RETURN(Rows rows, RunNow(stmt, params));
  return rows.size() == 0 ? int64_t{0} : rows.Int(0, 0);
}

Result<std::optional<EntryRow>> PgBackend::OneEntry(const Statement& stmt, const std::vector<Param>& params) {
  FATHOM_ASSIGN_OR_RETURN(Rows rows, RunNow(stmt, params));
  if (rows.size() == 0) return std::optional<EntryRow>();
  return std::optional<EntryRow>(ReadEntry(rows, 0, 0));
}

Result<std::vector<NameRow>> PgBackend::NameRows(const Statement& stmt, const std::vector<Param>& params) {
  FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(stmt, params));
  std::vector<NameRow> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(ReadName(rows, i));
  return out;
}

Status PgBackend::Expect(std::span<const Identity> objects) {
  if (!in_write_) return Status::Ok();
  return ahead_.Read(session_, read_ahead_entries_, read_ahead_removals_, objects);
}

Result<std::optional<EntryRow>> PgBackend::EntryById(EntryId id) {
  if (auto known = ahead_.EntryById(id)) return *known;
  return OneEntry(entry_by_id_, {Param::Int(id)});
}

Result<std::optional<EntryRow>> PgBackend::EntryByIdentity(uint64_t dev, uint64_t ino) {
  if (auto known = ahead_.EntryByIdentity(dev, ino)) return *known;
  return OneEntry(entry_by_identity_, {Param::Int(static_cast<int64_t>(dev)), Param::Int(static_cast<int64_t>(ino))});
}

Status PgBackend::InsertEntry(const EntryRow& row) {
  std::vector<Param> params{Param::Int(row.id)};
  AddAttrParams(params, row.attrs, osts_);
  params.push_back(Param::Int(row.seen_ns));
  params.push_back(Param::Int(static_cast<int64_t>(row.generation)));
  ahead_.HoldEntry(row, params);
  return ahead_.held_bytes() >= kSendBytes ? Flush() : Status::Ok();
}

Status PgBackend::UpdateEntry(const EntryRow& row) {
  std::vector<Param> params;
  AddAttrParams(params, row.attrs, osts_);
  params.push_back(Param::Int(row.seen_ns));
  params.push_back(Param::Int(static_cast<int64_t>(row.generation)));
  params.push_back(Param::Int(row.id));
  FATHOM_RETURN_IF_ERROR(FlushAndForget());
  return Run(update_entry_, params).status();
}

Status PgBackend::DeleteEntry(EntryId id) {
  FATHOM_RETURN_IF_ERROR(FlushAndForget());
  return Run(delete_entry_, {Param::Int(id)}).status();
}

Result<EntryId> PgBackend::LastEntryId() { return RunInt(last_id_, {}); }

Status PgBackend::SetLastEntryId(EntryId id) { return Run(set_last_id_, {Param::Int(id)}).status(); }

Result<uint64_t> PgBackend::Commits() {
  FATHOM_ASSIGN_OR_RETURN(int64_t commits, RunInt(commits_, {}));
  return static_cast<uint64_t>(commits);
}

Status PgBackend::CountCommit() { return Run(count_commit_, {}).status(); }

// The selection's bounds as " AND ..." conditions on parameters appended to `params`.
std::string PgBackend::Where(const Selection& sel, std::vector<Param>& params) {
  std::string sql;
  for (const auto& [condition, value] : SelectionBounds(sel)) {
    params.push_back(Param::Int(value));
    sql += std::string(" AND ") + condition + " $" + std::to_string(params.size());
  }
  return sql;
}

Status PgBackend::SelectEntries(const Selection& sel, const std::function<bool(const EntryRow&)>& fn) {
  std::vector<Param> params{Param::Int(0)};
  const std::string sql = std::string("SELECT ") + kEntryColumns + " FROM entries WHERE id > $1" +
                          Where(sel, params) + " ORDER BY id LIMIT " + std::to_string(kPageRows);
  for (;;) {
    FATHOM_RETURN_IF_ERROR(Flush());
    FATHOM_ASSIGN_OR_RETURN(Rows rows, session_.Query(sql, params, "select entries"));
    for (int i = 0; i < rows.size(); ++i) {
      EntryRow row = ReadEntry(rows, i, 0);
      params[0] = Param::Int(row.id);
      if (!fn(row)) return Status::Ok();
    }
    if (rows.size() < kPageRows) return Status::Ok();
  }
}

Result<uint64_t> PgBackend::CountEntries(const Selection& sel, uint64_t at_most) {
  std::vector<Param> params;
  std::string sql = "SELECT count(*) FROM (SELECT 1 FROM entries WHERE true" + Where(sel, params);
  params.push_back(Param::Int(static_cast<int64_t>(std::min<uint64_t>(at_most, INT64_MAX))));
  sql += " LIMIT $" + std::to_string(params.size()) + ") AS matching";
  FATHOM_RETURN_IF_ERROR(Flush());
  FATHOM_ASSIGN_OR_RETURN(Rows rows, session_.Query(sql, params, "count entries"));
  return static_cast<uint64_t>(rows.Int(0, 0));
}

Status PgBackend::ForEachEntry(const std::function<void(const EntryRow&)>& fn) {
  EntryId after = 0;
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(entries_after_, {Param::Int(after), Param::Int(kPageRows)}));
    for (int i = 0; i < rows.size(); ++i) {
      EntryRow row = ReadEntry(rows, i, 0);
      after = row.id;
      fn(row);
    }
    if (rows.size() < kPageRows) return Status::Ok();
  }
}

Result<EntryId> PgBackend::NameTarget(EntryId parent, std::string_view name) {
  if (auto known = ahead_.NameTarget(parent, name)) return *known;
  return RunIntNow(name_target_, {Param::Int(parent), Param::Bytes(name)});
}

Result<std::vector<NameRow>> PgBackend::NamesOf(EntryId id) { return NameRows(names_of_, {Param::Int(id)}); }

Status PgBackend::NamesOfMany(std::span<const EntryId> ids, const std::function<void(const NameRow&)>& fn) {
  return RowsOfIds(names_of_many_, ids, [&](const Rows& rows, int i) { fn(ReadName(rows, i)); });
}

Status PgBackend::EntriesOfMany(std::span<const EntryId> ids, const std::function<void(EntryRow&&)>& fn) {
  return RowsOfIds(entries_of_many_, ids, [&](const Rows& rows, int i) { fn(ReadEntry(rows, i, 0)); });
}

Status PgBackend::RowsOfIds(const Statement& stmt, std::span<const EntryId> ids,
                            const std::function<void(const Rows&, int)>& fn) {
  constexpr size_t kIdsPerRead = 10000;  // one round trip each
  for (size_t start = 0; start < ids.size(); start += kIdsPerRead) {
    std::string list;
    for (EntryId id : ids.subspan(start, std::min(kIdsPerRead, ids.size() - start))) {
      if (!list.empty()) list.push_back(',');
      list += std::to_string(id);
    }
    FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(stmt, {Param::Text(list)}));
    for (int i = 0; i < rows.size(); ++i) fn(rows, i);
  }
  return Status::Ok();
}

Status PgBackend::InsertName(const NameRow& row) {
  const Param params[] = {Param::Int(row.parent), Param::Bytes(row.name), Param::Int(row.id),
                          Param::Int(static_cast<int64_t>(row.generation))};
  ahead_.HoldName(row, params);
  return ahead_.held_bytes() >= kSendBytes ? Flush() : Status::Ok();
}

Status PgBackend::DeleteName(EntryId parent, std::string_view name) {
  FATHOM_RETURN_IF_ERROR(FlushAndForget());
  return Run(delete_name_, {Param::Int(parent), Param::Bytes(name)}).status();
}

Status PgBackend::RenameName(EntryId parent, std::string_view name, EntryId new_parent,
                             std::string_view new_name) {
  FATHOM_RETURN_IF_ERROR(FlushAndForget());
  return Run(rename_name_, {Param::Int(new_parent), Param::Bytes(new_name), Param::Int(parent), Param::Bytes(name)})
      .status();
}

Status PgBackend::SetNameGeneration(EntryId parent, std::string_view name, uint64_t generation) {
  return Run(set_name_gen_, {Param::Int(static_cast<int64_t>(generation)), Param::Int(parent), Param::Bytes(name)})
      .status();
}

Result<std::vector<std::pair<NameRow, EntryRow>>> PgBackend::Children(EntryId dir) {
  FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(children_, {Param::Int(dir)}));
  std::vector<std::pair<NameRow, EntryRow>> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    EntryRow entry = ReadEntry(rows, i, 2);
    NameRow name{dir, std::string(rows.Bytes(i, 0)), entry.id, static_cast<uint64_t>(rows.Int(i, 1))};
    out.emplace_back(std::move(name), std::move(entry));
  }
  return out;
}

Status PgBackend::ChildrenOfMany(std::span<const EntryId> dirs,
                                 const std::function<void(NameRow&&, EntryRow&&)>& fn) {
  std::string list;
  for (EntryId dir : dirs) {
    if (!list.empty()) list.push_back(',');
    list += std::to_string(dir);
  }
  FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(children_of_many_, {Param::Text(list)}));
  for (int i = 0; i < rows.size(); ++i) {
    EntryRow entry = ReadEntry(rows, i, 3);
    NameRow name{rows.Int(i, 0), std::string(rows.Bytes(i, 1)), entry.id, static_cast<uint64_t>(rows.Int(i, 2))};
    fn(std::move(name), std::move(entry));
  }
  return Status::Ok();
}

Result<std::vector<NameRow>> PgBackend::ChildNames(EntryId dir) { return NameRows(child_names_, {Param::Int(dir)}); }

Status PgBackend::ForEachName(const std::function<void(const NameRow&)>& fn) {
  NameRow last{-1, "", 0, 0};  // before every (parent, name): parents are >= 0
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(std::vector<NameRow> rows,
                            NameRows(names_after_, {Param::Int(last.parent), Param::Bytes(last.name),
                                                    Param::Int(kPageRows)}));
    for (const NameRow& row : rows) fn(row);
    if (static_cast<int64_t>(rows.size()) < kPageRows) return Status::Ok();
    last = rows.back();
  }
}

}  // namespace pg

Result<std::unique_ptr<CatalogBackend>> OpenPostgresBackend(const std::string& uri, bool read_only) {
  FATHOM_ASSIGN_OR_RETURN(pg::Session session, pg::OpenPgCatalog(uri, read_only));
  auto backend = std::make_unique<pg::PgBackend>(std::move(session), pg::RedactUri(uri), read_only);
  FATHOM_RETURN_IF_ERROR(backend->Prepare());
  return std::unique_ptr<CatalogBackend>(std::move(backend));
}

}  // namespace fathom::catalog
