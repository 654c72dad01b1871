#include "store/store_migration.h"

#include <algorithm>
#include <vector>

#include "store/chunk_rows.h"
#include "store/event_chunk.h"

namespace fathom::store {
Status MigrateFromVersion1(const Connection& db, const char* create_schema) {
  const std::string_view what = "converting the store from schema version 1";
  FATHOM_ASSIGN_OR_RETURN(int64_t last_id,
                          db.QueryInt("SELECT value FROM meta WHERE key = 'last_id'", what));
  FATHOM_RETURN_IF_ERROR(db.Exec("ALTER TABLE meta RENAME TO meta_v1", what));
  FATHOM_RETURN_IF_ERROR(db.Exec(create_schema, what));
  FATHOM_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT id, ts, mask, cookie, root, path, source, attrs FROM events ORDER BY id",
                 what));
  FATHOM_ASSIGN_OR_RETURN(Statement insert, db.Prepare(kInsertChunkSql, what));
  std::vector<Event> events;
  auto flush = [&]() -> Status {
    const EncodedChunk chunk = MakeChunk(events);
    FATHOM_RETURN_IF_ERROR(InsertChunkRows(db, insert, events.front().id, {&chunk, 1}, what));
    events.clear();
    return Status::Ok();
  };
  int64_t first_id = last_id + 1;
  for (;;) {
    int rc = sqlite3_step(select.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return db.Error(rc, what);
    Event e;
    e.id = static_cast<uint64_t>(select.ColumnInt(0));
    e.ts_ns = select.ColumnInt(1);
    e.mask = static_cast<uint32_t>(select.ColumnInt(2));
    e.cookie = static_cast<uint32_t>(select.ColumnInt(3));
    select.ColumnText(4, e.root);
    select.ColumnText(5, e.path);
    select.ColumnText(6, e.source);
    select.ColumnText(7, e.attrs);
    first_id = std::min(first_id, static_cast<int64_t>(e.id));
    events.push_back(std::move(e));
    if (events.size() == kMaxChunkEvents) FATHOM_RETURN_IF_ERROR(flush());
  }
  if (!events.empty()) FATHOM_RETURN_IF_ERROR(flush());
  select = Statement();
  insert = Statement();
  const std::string finish =
      "UPDATE meta SET value = " + std::to_string(last_id) +
      " WHERE key = 'last_id'; UPDATE meta SET value = " + std::to_string(first_id) +
      " WHERE key = 'first_id'; DROP TABLE events; DROP TABLE meta_v1;";
  return db.Exec(finish.c_str(), what);
}

}  // namespace fathom::store
