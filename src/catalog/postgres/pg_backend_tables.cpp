// The PostgreSQL backend: statistics, removed objects, streams, scans and counts
// (pg_backend_impl.h).
#include <limits>

#include "catalog/backend_columns.h"
#include "catalog/postgres/pg_backend_impl.h"
#include "catalog/postgres/pg_rows.h"

namespace fathom::catalog::pg {
namespace {

constexpr const char* kTotalsColumns = "files, dirs, symlinks, others, size, blocks, max_mtime";

std::vector<Type> RemovedTypes() {
  std::vector<Type> types{Type::kBytes};
  for (Type type : AttrTypes()) types.push_back(type);
  for (Type type : {Type::kInt, Type::kInt, Type::kInt, Type::kBytes}) types.push_back(type);
  return types;
}

// add_tree_'s parameters for `dir` and `d`.
void AddTreeParams(std::vector<Param>& params, EntryId dir, const TotalsDelta& d) {
  for (int64_t v : {dir, d.files, d.dirs, d.symlinks, d.others, d.size, d.blocks, d.max_mtime_ns}) {
    params.push_back(Param::Int(v));
  }
}

}  // namespace

std::vector<PgBackend::Sql> PgBackend::TableSql() {
  const std::string totals = kTotalsColumns;
  const std::string removed = std::string("SELECT path, ") + kAttrs + ", time, event_id, by_uid, jobid, rowid";
  const std::string scans = "SELECT generation, root, started, finished FROM scans";
  return {
      {&tree_, "SELECT " + totals + " FROM tree WHERE id = $1", Ints(1), "read subtree totals"},
      {&add_tree_,
       "INSERT INTO tree AS t(id, " + totals + ") VALUES($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT(id) DO UPDATE"
       " SET files = t.files + excluded.files, dirs = t.dirs + excluded.dirs,"
       " symlinks = t.symlinks + excluded.symlinks, others = t.others + excluded.others,"
       " size = t.size + excluded.size, blocks = t.blocks + excluded.blocks,"
       " max_mtime = greatest(t.max_mtime, excluded.max_mtime)",
       Ints(8), "update subtree totals"},
      {&delete_tree_, "DELETE FROM tree WHERE id = $1", Ints(1), "delete subtree totals"},
      {&tree_after_, "SELECT " + totals + ", id FROM tree WHERE id > $1 ORDER BY id LIMIT $2", Ints(2),
       "read subtree totals"},
      {&add_acct_,
       "INSERT INTO acct AS a VALUES(" + Placeholders(1, 6 + kSizeBuckets) + ")"
       " ON CONFLICT(uid, gid, type) DO UPDATE SET count = a.count + excluded.count,"
       " size = a.size + excluded.size, blocks = a.blocks + excluded.blocks,"
       " b0 = a.b0 + excluded.b0, b1 = a.b1 + excluded.b1, b2 = a.b2 + excluded.b2,"
       " b3 = a.b3 + excluded.b3, b4 = a.b4 + excluded.b4, b5 = a.b5 + excluded.b5,"
       " b6 = a.b6 + excluded.b6, b7 = a.b7 + excluded.b7, b8 = a.b8 + excluded.b8,"
       " b9 = a.b9 + excluded.b9",
       Ints(6 + kSizeBuckets), "update the accounting"},
      {&prune_acct_,
       "DELETE FROM acct WHERE uid = $1 AND gid = $2 AND type = $3 AND count = 0 AND size = 0 AND blocks = 0",
       Ints(3), "update the accounting"},
      {&set_multi_, "INSERT INTO multi(id) VALUES($1) ON CONFLICT DO NOTHING", Ints(1),
       "record an object's several names"},
      {&clear_multi_, "DELETE FROM multi WHERE id = $1", Ints(1), "record an object's several names"},
      {&insert_removed_,
       std::string("INSERT INTO removed(path, ") + kAttrs + ", time, event_id, by_uid, jobid) VALUES(" +
           Placeholders(1, kAttrColumns + 5) + ")",
       RemovedTypes(), "record a removed entry"},
      {&latest_removal_, "SELECT coalesce(max(time), 0) FROM removed WHERE dev = $1 AND ino = $2", Ints(2),
       "read removed entries"},
      {&expire_removed_, "DELETE FROM removed WHERE time < $1", Ints(1), "expire removed entries"},
      {&removed_before_,
       removed + " FROM removed WHERE time >= $1 AND (time, rowid) < ($2, $3) ORDER BY time DESC, rowid DESC"
                 " LIMIT $4",
       Ints(4), "read removed entries"},
      {&stream_, "SELECT last_applied FROM streams WHERE name = $1", {Type::kText}, "read a stream position"},
      {&set_stream_,
       "INSERT INTO streams(name, last_applied, pending) VALUES($1, $2, $3) ON CONFLICT(name) DO UPDATE"
       " SET last_applied = excluded.last_applied, pending = excluded.pending",
       {Type::kText, Type::kInt, Type::kBytes}, "record a stream position"},
      {&stream_pending_, "SELECT pending FROM streams WHERE name = $1", {Type::kText},
       "read a stream's pending paths"},
      {&scan_, scans + " WHERE generation = $1", Ints(1), "read the scans"},
      {&unfinished_scan_, scans + " WHERE root = $1 AND finished IS NULL ORDER BY generation DESC LIMIT 1",
       {Type::kBytes}, "read the scans"},
      {&last_generation_, "SELECT coalesce(max(generation), 0) FROM scans", {}, "read the scans"},
      {&insert_scan_, "INSERT INTO scans(generation, root, started, finished) VALUES($1, $2, $3, NULL)",
       {Type::kInt, Type::kBytes, Type::kInt}, "record a scan"},
      {&finish_scan_, "UPDATE scans SET finished = $1 WHERE generation = $2", Ints(2), "record the end of a scan"},
  };
}

Result<Totals> PgBackend::Tree(EntryId dir) {
  FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(tree_, {Param::Int(dir)}));
  return rows.size() == 0 ? Totals() : ReadTotals(rows, 0, 0);
}

Status PgBackend::AddTree(EntryId dir, const TotalsDelta& d) {
  std::vector<Param> params;
  AddTreeParams(params, dir, d);
  return Run(add_tree_, params).status();
}

Status PgBackend::AddTrees(std::span<const std::pair<EntryId, TotalsDelta>> deltas) {
  FATHOM_RETURN_IF_ERROR(Flush());
  std::vector<Param> params;
  for (const auto& [dir, delta] : deltas) AddTreeParams(params, dir, delta);
  if (params.empty()) return Status::Ok();
  return session_.RunEach(add_tree_, params).status();  // pipelined: a round trip per 1000
}

Status PgBackend::DeleteTree(EntryId dir) { return Run(delete_tree_, {Param::Int(dir)}).status(); }

Status PgBackend::AddAcct(const AcctKey& key, const AcctDelta& d) {
  std::vector<Param> params{Param::Int(key.uid), Param::Int(key.gid), Param::Int(key.type),
                            Param::Int(d.count), Param::Int(d.size), Param::Int(d.blocks)};
  for (int64_t bucket : d.buckets) params.push_back(Param::Int(bucket));
  FATHOM_RETURN_IF_ERROR(Run(add_acct_, params).status());
  return Run(prune_acct_, {Param::Int(key.uid), Param::Int(key.gid), Param::Int(key.type)}).status();
}

Result<std::vector<AcctRow>> PgBackend::Accounting() {
  FATHOM_RETURN_IF_ERROR(Flush());
  FATHOM_ASSIGN_OR_RETURN(Rows rows, session_.Query("SELECT uid, gid, type, count, size, blocks, b0, b1, b2, b3,"
                                                    " b4, b5, b6, b7, b8, b9 FROM acct ORDER BY uid, gid, type",
                                                    {}, "read the accounting"));
  std::vector<AcctRow> out;
  for (int i = 0; i < rows.size(); ++i) {
    AcctRow row;
    row.uid = static_cast<uint32_t>(rows.Int(i, 0));
    row.gid = static_cast<uint32_t>(rows.Int(i, 1));
    row.type = static_cast<uint32_t>(rows.Int(i, 2));
    row.count = static_cast<uint64_t>(rows.Int(i, 3));
    row.size = rows.Int(i, 4);
    row.blocks = rows.Int(i, 5);
    for (int b = 0; b < kSizeBuckets; ++b) row.buckets[b] = static_cast<uint64_t>(rows.Int(i, 6 + b));
    out.push_back(row);
  }
  return out;
}

Status PgBackend::ForEachTree(const std::function<void(EntryId, const Totals&)>& fn) {
  EntryId after = 0;
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(tree_after_, {Param::Int(after), Param::Int(kPageRows)}));
    for (int i = 0; i < rows.size(); ++i) {
      after = rows.Int(i, 7);
      fn(after, ReadTotals(rows, i, 0));
    }
    if (rows.size() < kPageRows) return Status::Ok();
  }
}

Status PgBackend::SetMulti(EntryId id, bool several_names) {
  return Run(several_names ? set_multi_ : clear_multi_, {Param::Int(id)}).status();
}

Result<std::vector<EntryId>> PgBackend::MultiEntries() {
  FATHOM_RETURN_IF_ERROR(Flush());
  FATHOM_ASSIGN_OR_RETURN(Rows rows,
                          session_.Query("SELECT id FROM multi ORDER BY id", {}, "read objects with several names"));
  std::vector<EntryId> ids;
  for (int i = 0; i < rows.size(); ++i) ids.push_back(rows.Int(i, 0));
  return ids;
}

Status PgBackend::ReplaceStatistics(const std::vector<AcctRow>& acct,
                                    const std::vector<std::pair<EntryId, Totals>>& tree,
                                    const std::vector<EntryId>& multi) {
  FATHOM_RETURN_IF_ERROR(Flush());
  FATHOM_RETURN_IF_ERROR(session_.Exec("DELETE FROM acct; DELETE FROM tree; DELETE FROM multi",
                                       "clear the kept statistics"));
  for (const AcctRow& row : acct) {
    FATHOM_RETURN_IF_ERROR(AddAcct(AcctKey{row.uid, row.gid, row.type}, DeltaOf(row)));
  }
  // The totals and the objects with several names in pipelined round trips.
  std::vector<Param> params;
  for (const auto& [id, totals] : tree) AddTreeParams(params, id, FromTotals(totals));
  if (!params.empty()) FATHOM_RETURN_IF_ERROR(session_.RunEach(add_tree_, params).status());
  params.clear();
  for (EntryId id : multi) params.push_back(Param::Int(id));
  if (!params.empty()) FATHOM_RETURN_IF_ERROR(session_.RunEach(set_multi_, params).status());
  return Status::Ok();
}

Status PgBackend::InsertRemoved(const RemovedEntry& r) {
  std::vector<Param> params{Param::Bytes(r.path)};
  AddAttrParams(params, r.attrs, osts_);
  params.push_back(Param::Int(r.removal.time_ns));
  params.push_back(Param::Int(static_cast<int64_t>(r.removal.event_id)));
  params.push_back(r.removal.uid ? Param::Int(*r.removal.uid) : Param::Null(Type::kInt));
  params.push_back(Param::Bytes(r.removal.jobid));
  FATHOM_RETURN_IF_ERROR(FlushAndForget());
  return Run(insert_removed_, params).status();
}

Result<int64_t> PgBackend::LatestRemoval(uint64_t dev, uint64_t ino) {
  if (auto known = ahead_.LatestRemoval(dev, ino)) return *known;
  return RunIntNow(latest_removal_, {Param::Int(static_cast<int64_t>(dev)), Param::Int(static_cast<int64_t>(ino))});
}

Status PgBackend::ExpireRemoved(int64_t before_ns) {
  FATHOM_RETURN_IF_ERROR(FlushAndForget());
  return Run(expire_removed_, {Param::Int(before_ns)}).status();
}

Status PgBackend::ForEachRemoved(int64_t since_ns, const std::function<bool(const RemovedEntry&)>& fn) {
  int64_t time = std::numeric_limits<int64_t>::max();
  int64_t rowid = std::numeric_limits<int64_t>::max();
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(removed_before_, {Param::Int(since_ns), Param::Int(time),
                                                             Param::Int(rowid), Param::Int(kPageRows)}));
    for (int i = 0; i < rows.size(); ++i) {
      RemovedEntry r;
      r.path = std::string(rows.Bytes(i, 0));
      r.attrs = ReadAttrs(rows, i, 1);
      r.removal.time_ns = rows.Int(i, 1 + kAttrColumns);
      r.removal.event_id = static_cast<uint64_t>(rows.Int(i, 2 + kAttrColumns));
      if (!rows.IsNull(i, 3 + kAttrColumns)) r.removal.uid = static_cast<uint32_t>(rows.Int(i, 3 + kAttrColumns));
      r.removal.jobid = std::string(rows.Bytes(i, 4 + kAttrColumns));
      time = r.removal.time_ns;
      rowid = rows.Int(i, 5 + kAttrColumns);
      if (!fn(r)) return Status::Ok();
    }
    if (rows.size() < kPageRows) return Status::Ok();
  }
}

Result<uint64_t> PgBackend::StreamPosition(std::string_view stream) {
  FATHOM_ASSIGN_OR_RETURN(int64_t position, RunInt(stream_, {Param::Text(stream)}));
  return static_cast<uint64_t>(position);
}

Result<std::string> PgBackend::StreamPending(std::string_view stream) {
  FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(stream_pending_, {Param::Text(stream)}));
  return rows.size() == 0 ? std::string() : std::string(rows.Bytes(0, 0));
}

Status PgBackend::SetStreamPosition(std::string_view stream, uint64_t last_applied, std::string_view pending) {
  return Run(set_stream_, {Param::Text(stream), Param::Int(static_cast<int64_t>(last_applied)), Param::Bytes(pending)})
      .status();
}

Result<std::optional<ScanRow>> PgBackend::OneScan(const Statement& stmt, const std::vector<Param>& params) {
  FATHOM_ASSIGN_OR_RETURN(Rows rows, Run(stmt, params));
  if (rows.size() == 0) return std::optional<ScanRow>();
  return std::optional<ScanRow>(ScanRow{static_cast<uint64_t>(rows.Int(0, 0)), std::string(rows.Bytes(0, 1)),
                                        rows.Int(0, 2), !rows.IsNull(0, 3)});
}

Result<std::optional<ScanRow>> PgBackend::Scan(uint64_t generation) {
  return OneScan(scan_, {Param::Int(static_cast<int64_t>(generation))});
}

Result<std::optional<ScanRow>> PgBackend::UnfinishedScan(std::string_view root) {
  return OneScan(unfinished_scan_, {Param::Bytes(root)});
}

Result<uint64_t> PgBackend::LastGeneration() {
  FATHOM_ASSIGN_OR_RETURN(int64_t last, RunInt(last_generation_, {}));
  return static_cast<uint64_t>(last);
}

Status PgBackend::InsertScan(const ScanRow& scan) {
  return Run(insert_scan_, {Param::Int(static_cast<int64_t>(scan.generation)), Param::Bytes(scan.root),
                            Param::Int(scan.started_ns)})
      .status();
}

Status PgBackend::MarkScanFinished(uint64_t generation, int64_t finished_ns) {
  return Run(finish_scan_, {Param::Int(finished_ns), Param::Int(static_cast<int64_t>(generation))}).status();
}

Result<uint64_t> PgBackend::FirstScan() {
  FATHOM_RETURN_IF_ERROR(Flush());
  FATHOM_ASSIGN_OR_RETURN(Rows rows, session_.Query("SELECT value FROM meta WHERE key = 'first_scan'", {},
                                                    "read the first scan's generation"));
  return rows.size() == 0 ? uint64_t{0} : static_cast<uint64_t>(rows.Int(0, 0));
}

Status PgBackend::SetFirstScan(uint64_t generation) {
  FATHOM_RETURN_IF_ERROR(Flush());
  if (generation == 0) {
    return session_.Query("DELETE FROM meta WHERE key = 'first_scan'", {}, "forget the first scan").status();
  }
  return session_
      .Query("INSERT INTO meta(key, value) VALUES('first_scan', $1)"
             " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
             {Param::Int(static_cast<int64_t>(generation))}, "record the first scan's generation")
      .status();
}

Result<TableCounts> PgBackend::Counts() {
  FATHOM_RETURN_IF_ERROR(Flush());
  FATHOM_ASSIGN_OR_RETURN(
      Rows rows,
      session_.Query("SELECT (SELECT count(*) FROM entries), (SELECT count(*) FROM names),"
                     " (SELECT count(*) FROM removed),"
                     " (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c"
                     "  JOIN pg_namespace n ON n.oid = c.relnamespace"
                     "  WHERE n.nspname = current_schema() AND c.relkind = 'r')",
                     {}, "count the catalog's rows"));
  TableCounts c;
  c.entries = static_cast<uint64_t>(rows.Int(0, 0));
  c.names = static_cast<uint64_t>(rows.Int(0, 1));
  c.removed = static_cast<uint64_t>(rows.Int(0, 2));
  c.bytes = rows.Int(0, 3);
  return c;
}

}  // namespace fathom::catalog::pg
