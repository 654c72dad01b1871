// pg_backend_impl.h — the PostgreSQL backend's class, shared by its two source files:
// pg_backend.cpp (transactions, entries, names) and pg_backend_tables.cpp (statistics,
// removed objects, streams, scans, counts). Internal to the backend.
#pragma once

#include <string>
#include <vector>

#include "catalog/catalog_backend.h"
#include "catalog/postgres/pg_write_ahead.h"
#include "catalog/postgres/session.h"

namespace fathom::catalog::pg {

class PgBackend final : public CatalogBackend {
 public:
  PgBackend(Session session, std::string location, bool read_only)
      : session_(std::move(session)), location_(std::move(location)), read_only_(read_only) {}

  Status Prepare();

  std::string_view name() const override { return "postgresql"; }
  const std::string& location() const override { return location_; }
  int schema_version() const override;
  bool read_only() const override { return read_only_; }

  bool InWrite() const override { return in_write_; }
  Status BeginWrite() override;
  Status CommitWrite() override;
  void RollbackWrite() override;

  Status Expect(std::span<const Identity> objects) override;

  Result<std::optional<EntryRow>> EntryById(EntryId id) override;
  Result<std::optional<EntryRow>> EntryByIdentity(uint64_t dev, uint64_t ino) override;
  Status InsertEntry(const EntryRow& row) override;
  Status UpdateEntry(const EntryRow& row) override;
  Status DeleteEntry(EntryId id) override;
  Result<EntryId> LastEntryId() override;
  Status SetLastEntryId(EntryId id) override;
  Result<uint64_t> Commits() override;
  Status CountCommit() override;
  Result<uint64_t> CountEntries(const Selection& selection, uint64_t at_most) override;
  Status SelectEntries(const Selection& selection,
                       const std::function<bool(const EntryRow&)>& fn) override;
  Status ForEachEntry(const std::function<void(const EntryRow&)>& fn) override;

  Result<EntryId> NameTarget(EntryId parent, std::string_view name) override;
  Result<std::vector<NameRow>> NamesOf(EntryId id) override;
  Status NamesOfMany(std::span<const EntryId> ids, const std::function<void(const NameRow&)>& fn) override;
  Status EntriesOfMany(std::span<const EntryId> ids, const std::function<void(EntryRow&&)>& fn) override;
  Status InsertName(const NameRow& row) override;
  Status DeleteName(EntryId parent, std::string_view name) override;
  Status RenameName(EntryId parent, std::string_view name, EntryId new_parent,
                    std::string_view new_name) override;
  Status SetNameGeneration(EntryId parent, std::string_view name, uint64_t generation) override;
  Result<std::vector<std::pair<NameRow, EntryRow>>> Children(EntryId dir) override;
  Status ChildrenOfMany(std::span<const EntryId> dirs,
                        const std::function<void(NameRow&&, EntryRow&&)>& fn) override;
  Result<std::vector<NameRow>> ChildNames(EntryId dir) override;
  Status ForEachName(const std::function<void(const NameRow&)>& fn) override;

  Result<Totals> Tree(EntryId dir) override;
  Status AddTree(EntryId dir, const TotalsDelta& delta) override;
  Status AddTrees(std::span<const std::pair<EntryId, TotalsDelta>> deltas) override;
  Status DeleteTree(EntryId dir) override;
  Status AddAcct(const AcctKey& key, const AcctDelta& delta) override;
  Result<std::vector<AcctRow>> Accounting() override;
  Status ForEachTree(const std::function<void(EntryId, const Totals&)>& fn) override;
  Status SetMulti(EntryId id, bool several_names) override;
  Result<std::vector<EntryId>> MultiEntries() override;
  Status ReplaceStatistics(const std::vector<AcctRow>& acct,
                           const std::vector<std::pair<EntryId, Totals>>& tree,
                           const std::vector<EntryId>& multi) override;

  Status InsertRemoved(const RemovedEntry& removed) override;
  Result<int64_t> LatestRemoval(uint64_t dev, uint64_t ino) override;
  Status ExpireRemoved(int64_t before_ns) override;
  Status ForEachRemoved(int64_t since_ns,
                        const std::function<bool(const RemovedEntry&)>& fn) override;

  Result<uint64_t> StreamPosition(std::string_view stream) override;
  Result<std::string> StreamPending(std::string_view stream) override;
  Status SetStreamPosition(std::string_view stream, uint64_t last_applied,
                           std::string_view pending) override;
  Result<std::optional<ScanRow>> Scan(uint64_t generation) override;
  Result<std::optional<ScanRow>> UnfinishedScan(std::string_view root) override;
  Result<uint64_t> LastGeneration() override;
  Status InsertScan(const ScanRow& scan) override;
  Status MarkScanFinished(uint64_t generation, int64_t finished_ns) override;
  Result<uint64_t> FirstScan() override;
  Status SetFirstScan(uint64_t generation) override;

  Result<TableCounts> Counts() override;

 private:
  static std::string Where(const Selection& sel, std::vector<Param>& params);
  // What a table's prepared statement is, for Prepare().
  struct Sql {
    Statement* stmt;
    std::string text;
    std::vector<Type> types;
    const char* what;
  };
  std::vector<Sql> EntrySql();  // pg_backend.cpp: entries, names, the writers' lock
  std::vector<Sql> TableSql();  // pg_backend_tables.cpp: the other tables

  // Runs a statement once what is held is sent (pg_write_ahead.h: every call but the lookups
  // it can answer).
  Result<Rows> Run(const Statement& stmt, const std::vector<Param>& params) {
    FATHOM_RETURN_IF_ERROR(Flush());
    return RunNow(stmt, params);
  }
  // The same without sending what is held: for a lookup that what is held cannot answer.
  Result<Rows> RunNow(const Statement& stmt, const std::vector<Param>& params) {
    return session_.Run(stmt, std::span<const Param>(params.data(), params.size()));
  }
  Status Flush() { return ahead_.holding() ? ahead_.Flush(session_) : Status::Ok(); }
  // Before a change that may contradict what is known ahead: sends what is held, forgets it.
  Status FlushAndForget() {
    FATHOM_RETURN_IF_ERROR(Flush());
    ahead_.Forget();
    return Status::Ok();
  }
  // The first column of the first row as an integer; 0 when there is no row.
  Result<int64_t> RunInt(const Statement& stmt, const std::vector<Param>& params);
  Result<int64_t> RunIntNow(const Statement& stmt, const std::vector<Param>& params);
  Result<std::optional<EntryRow>> OneEntry(const Statement& stmt, const std::vector<Param>& params);
  Result<std::vector<NameRow>> NameRows(const Statement& stmt, const std::vector<Param>& params);
  // The rows `stmt` reads for `ids` (a comma-separated list as its one parameter), 10,000 ids
  // a round trip; fn gets each row's index.
  Status RowsOfIds(const Statement& stmt, std::span<const EntryId> ids, const std::function<void(const Rows&, int)>& fn);
  Result<std::optional<ScanRow>> OneScan(const Statement& stmt, const std::vector<Param>& params);

  Session session_;
  WriteAhead ahead_;
  std::string location_;
  bool read_only_;
  bool in_write_ = false;
  std::string osts_;  // AddAttrParams' OST text, alive until the statement ran
  Statement lock_, read_ahead_entries_, read_ahead_removals_;
  Statement entry_by_id_, entries_of_many_, entry_by_identity_, insert_entry_, update_entry_, delete_entry_;
  Statement last_id_, set_last_id_, commits_, count_commit_, entries_after_;
  Statement name_target_, names_of_, names_of_many_, insert_name_, delete_name_, rename_name_, set_name_gen_;
  Statement children_, children_of_many_, child_names_, names_after_;
  Statement tree_, add_tree_, delete_tree_, tree_after_, add_acct_, prune_acct_, set_multi_, clear_multi_;
  Statement insert_removed_, latest_removal_, expire_removed_, removed_before_;
  Statement stream_, set_stream_, stream_pending_, scan_, unfinished_scan_, last_generation_, insert_scan_,
      finish_scan_;
};

// Rows read per round trip by the ForEach* calls, so that memory stays bounded.
inline constexpr int64_t kPageRows = 10000;

}  // namespace fathom::catalog::pg
