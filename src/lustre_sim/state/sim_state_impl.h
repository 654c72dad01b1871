// sim_state_impl.h — the SQLite implementation of SimState (private to this module).
//
// One connection, one mutex. Counters every mutation needs (each MDT's next FID, last
// record index, mask and user count, the round-robin cursor, the settings) are cached in
// memory and reloaded whenever PRAGMA data_version shows that another process committed.
// Each mutation is one IMMEDIATE transaction: namespace change, record, counters. To keep
// that to few pages, the MDT row is written only when FIDs are reserved (1024 at a time, so
// a reopened state continues past the reservation) or records are purged: the last index
// is the larger of the row's and the newest stored record's.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lustre_sim/state/sim_db.h"
#include "lustre_sim/state/sim_state.h"

namespace fathom::lustre_sim {

// The deepest a parent chain is followed before the namespace is called looped.
inline constexpr int kMaxDepth = 4096;

class SimStateImpl final : public SimState {
 public:
  static Result<std::unique_ptr<SimState>> OpenDir(const std::string& dir, const SimConfig* create);

  SimConfig config() override;
  Status SetJobidVar(std::string_view var) override;

  Result<Entry> Lookup(const Fid& parent, std::string_view name) override;
  Result<Entry> Resolve(std::string_view path) override;
  Result<Entry> Get(const Fid& fid) override;
  std::vector<std::string> Paths(const Fid& fid) override;

  Result<Entry> Create(const Caller& caller, const Fid& parent, std::string_view name, ObjectType type,
                       std::optional<int> mdt, const LayoutSpec* layout) override;
  Status Link(const Caller& caller, const Fid& target, const Fid& new_parent, std::string_view name) override;
  Status Unlink(const Caller& caller, const Fid& parent, std::string_view name) override;
  Status Rename(const Caller& caller, const Fid& src_parent, std::string_view src_name, const Fid& dst_parent,
                std::string_view dst_name) override;
  Status Record(const Caller& caller, uint32_t type, const Fid& target, const RecordDetails& details) override;

  Result<Layout> GetLayout(const Fid& fid) override;
  Result<std::optional<LayoutSpec>> GetDirLayout(const Fid& dir) override;
  Status SetDirLayout(const Caller& caller, const Fid& dir, const LayoutSpec& spec) override;
  Status PoolNew(std::string_view pool) override;
  Status PoolDestroy(std::string_view pool) override;
  Status PoolAdd(std::string_view pool, uint32_t ost) override;
  Status PoolRemove(std::string_view pool, uint32_t ost) override;
  Result<std::vector<std::string>> Pools() override;
  Result<std::vector<uint32_t>> PoolOsts(std::string_view pool) override;

  Result<std::string> RegisterUser(int mdt, uint64_t mask) override;
  Status DeregisterUser(int mdt, std::string_view user) override;
  Result<std::vector<ChangelogUser>> Users(int mdt) override;
  Status Clear(int mdt, std::string_view user, uint64_t endrec) override;
  Result<uint64_t> Mask(int mdt) override;
  Status SetMask(int mdt, uint64_t mask) override;
  Status Read(int mdt, uint64_t start, size_t max, std::vector<ChangelogRecord>& out) override;
  Result<uint64_t> LastIndex(int mdt) override;

  Status SetGeneratedLog(const GeneratedLog& log) override;
  Result<std::optional<GeneratedLog>> GetGeneratedLog() override;
  std::string dir() override { return dir_; }
  std::string db_path() override { return db_.path(); }

 private:
  struct MdtCounters {
    uint64_t seq = 0;
    uint32_t oid = 0;          // last oid allocated in seq
    uint32_t reserved = 0;     // oids of seq up to this one are reserved in the database
    uint64_t last_index = 0;
    uint64_t mask = 0;
    int users = 0;
    bool dirty = false;
  };
  struct Statements {
    SimStmt begin, commit, rollback;
    SimStmt get_object, lookup, insert_object, set_nlink, delete_object;
    SimStmt insert_link, delete_link, links_of, first_child;
    SimStmt insert_record, read_records, purge_records, purge_all;
    SimStmt save_mdt, set_meta, max_index;
    SimStmt users_of, insert_user, delete_user, set_cleared, get_user;
    SimStmt get_layout, insert_layout, get_dir_layout, pool_osts, pool_exists;
  };

  SimStateImpl(std::string dir, SimDb db) : dir_(std::move(dir)), db_(std::move(db)) {}
  Status Prepare();
  Status InitSchema(const SimConfig* create);
  // Adds links.made (the order of an object's links) to a state made without it.
  Status AddLinkOrder();
  // Reloads the cached counters if another connection committed since they were read.
  Status Refresh();
  Status LoadCaches();
  // Runs `body` inside one IMMEDIATE transaction (commit on success, rollback otherwise).
  template <typename F>
  Status Transaction(F&& body);
  Status CheckMdt(int mdt) const;
  Status CheckWritable() const;
  Status SetMeta(std::string_view key, std::string_view value);

  Result<std::optional<Entry>> FindObject(const Fid& fid);
  Result<std::optional<Entry>> FindChild(const Fid& parent, std::string_view name);
  Result<Entry> RequireDirectory(const Fid& fid);
  Status SetNlink(const Fid& fid, uint32_t nlink);
  Status AdjustNlink(const Fid& fid, int delta);
  Result<Fid> AllocateFid(int mdt);
  // The links of `fid`, oldest first (Lustre's link EA order: a rename moves a link last).
  std::vector<std::pair<Fid, std::string>> LinksOf(const Fid& fid);
  Result<std::optional<Fid>> FirstParent(const Fid& fid);
  Result<bool> IsAncestor(const Fid& ancestor, Fid dir);
  // Appends `record` to `mdt`'s log if it is logged there (users, mask); fills index/time.
  Status Append(int mdt, ChangelogRecord& record, const Caller& caller);
  Status SaveDirtyCounters();
  Result<std::pair<int64_t, uint64_t>> FindUser(int mdt, std::string_view user);  // id, cleared
  Status PurgeCleared(int mdt);
  // Layouts (sim_state_layout.cpp), inside a transaction.
  Result<std::optional<LayoutSpec>> FindDirLayout(const Fid& dir);
  Result<std::vector<uint32_t>> FindPoolOsts(std::string_view pool);
  Result<bool> PoolExists(std::string_view pool);
  Status AssignLayout(const Fid& file, const Fid& parent, const LayoutSpec* request);

  std::mutex mu_;
  std::string dir_;
  SimDb db_;
  Statements st_;
  SimConfig config_;
  std::vector<MdtCounters> mdts_;
  uint64_t round_robin_ = 0;
  bool round_robin_dirty_ = false;
  uint64_t ost_round_robin_ = 0;   // the next first OST (index into the candidate list)
  std::optional<GeneratedLog> generated_;
  int64_t data_version_ = -1;
};

template <typename F>
Status SimStateImpl::Transaction(F&& body) {
  FATHOM_RETURN_IF_ERROR(db_.Run(st_.begin));
  Status status = Refresh();
  if (status.ok()) status = body();
  if (status.ok()) status = SaveDirtyCounters();
  if (status.ok()) status = db_.Run(st_.commit);
  if (!status.ok()) {
    db_.Rollback();
    data_version_ = -1;  // the cached counters may hold rolled-back values
  }
  return status;
}

}  // namespace fathom::lustre_sim
