// Opening a state directory: schema, statements, cached counters and settings.
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <algorithm>

#include "lustre_sim/state/sim_state_impl.h"

namespace fathom::lustre_sim {
namespace {

constexpr const char* kDbName = "lustre-sim.db";
constexpr uint64_t kSeqBase = 0x200000400ULL;
constexpr uint64_t kSeqStride = 0x40000000ULL;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS objects(fid BLOB PRIMARY KEY, type INTEGER NOT NULL, mdt INTEGER NOT NULL,
                                   nlink INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS links(parent BLOB NOT NULL, name TEXT NOT NULL, child BLOB NOT NULL,
                                 made INTEGER NOT NULL DEFAULT 0,
                                 PRIMARY KEY(parent, name)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS links_by_child ON links(child);
CREATE TABLE IF NOT EXISTS mdts(mdt INTEGER PRIMARY KEY, seq INTEGER NOT NULL, oid INTEGER NOT NULL,
                                last_index INTEGER NOT NULL, mask INTEGER NOT NULL,
                                next_user INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS users(mdt INTEGER NOT NULL, id INTEGER NOT NULL, cleared INTEGER NOT NULL,
                                 mask INTEGER NOT NULL, PRIMARY KEY(mdt, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records(mdt INTEGER NOT NULL, idx INTEGER NOT NULL, type INTEGER NOT NULL,
                                   flags INTEGER NOT NULL, time_ns INTEGER NOT NULL, tfid BLOB, pfid BLOB,
                                   name TEXT, sfid BLOB, spfid BLOB, sname TEXT, jobid TEXT,
                                   extra INTEGER NOT NULL, uid INTEGER NOT NULL, gid INTEGER NOT NULL,
                                   nid TEXT, open_flags INTEGER NOT NULL, xattr TEXT,
                                   PRIMARY KEY(mdt, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS layouts(fid BLOB PRIMARY KEY, stripe_count INTEGER NOT NULL,
                                   stripe_size INTEGER NOT NULL, pool TEXT NOT NULL, osts TEXT NOT NULL,
                                   gen INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dir_layouts(fid BLOB PRIMARY KEY, stripe_count INTEGER NOT NULL,
                                       stripe_size INTEGER NOT NULL, stripe_offset INTEGER NOT NULL,
                                       pool TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pools(name TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pool_osts(name TEXT NOT NULL, ost INTEGER NOT NULL,
                                     PRIMARY KEY(name, ost)) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS objects_drop_layout AFTER DELETE ON objects BEGIN
  DELETE FROM layouts WHERE fid = old.fid;
  DELETE FROM dir_layouts WHERE fid = old.fid;
END;
)sql";

bool ValidFsname(std::string_view name) {
  if (name.empty() || name.size() > 8) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

Status ValidateConfig(const SimConfig& config) {
  if (!ValidFsname(config.fsname)) {
    return ErrnoStatus(EINVAL, "invalid fsname '" + config.fsname +
                                   "': use 1-8 characters from [A-Za-z0-9_] (e.g. testfs)");
  }
  if (config.mdts < 1 || config.mdts > 16) {
    return ErrnoStatus(EINVAL, "invalid MDT count " + std::to_string(config.mdts) + ": use 1 to 16");
  }
  if (config.osts < 1 || config.osts > 64) {
    return ErrnoStatus(EINVAL, "invalid OST count " + std::to_string(config.osts) + ": use 1 to 64");
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<SimState>> SimState::CreateOrOpen(const std::string& dir, const SimConfig& config) {
  FATHOM_RETURN_IF_ERROR(ValidateConfig(config));
  return SimStateImpl::OpenDir(dir, &config);
}

Result<std::unique_ptr<SimState>> SimState::Open(const std::string& dir) {
  return SimStateImpl::OpenDir(dir, nullptr);
}

Result<std::unique_ptr<SimState>> SimStateImpl::OpenDir(const std::string& dir, const SimConfig* create) {
  std::error_code ec;
  std::string abs = std::filesystem::absolute(dir, ec).lexically_normal().string();
  if (ec) return ErrnoStatus(EINVAL, "invalid state directory '" + dir + "': " + ec.message());
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  std::string db_path = abs + "/" + kDbName;
  if (create != nullptr) {
    std::filesystem::create_directories(abs, ec);
    if (ec) {
      return ErrnoStatus(ec.value(), "cannot create state directory " + abs + ": " + ec.message() +
                                         " (choose a writable --state directory)");
    }
  } else {
    struct stat st {};
    if (::stat(db_path.c_str(), &st) != 0) {
      return ErrnoStatus(ENOENT, "no emulated Lustre state in " + abs + " (" + db_path +
                                     " missing): start one with `fathom-lustre-sim mount` or `fathom-lustre-sim fast`");
    }
  }
  FATHOM_ASSIGN_OR_RETURN(SimDb db, SimDb::Open(db_path, create != nullptr));
  std::unique_ptr<SimStateImpl> state(new SimStateImpl(abs, std::move(db)));
  FATHOM_RETURN_IF_ERROR(state->InitSchema(create));
  FATHOM_RETURN_IF_ERROR(state->Prepare());
  {
    std::lock_guard lock(state->mu_);
    FATHOM_RETURN_IF_ERROR(state->Refresh());
  }
  return std::unique_ptr<SimState>(std::move(state));
}

Status SimStateImpl::AddLinkOrder() {
  // States made before links were ordered: their links count as equally old.
  FATHOM_ASSIGN_OR_RETURN(SimStmt has,
                          db_.Prepare("SELECT 1 FROM pragma_table_info('links') WHERE name = 'made'"));
  FATHOM_ASSIGN_OR_RETURN(bool present, db_.Step(has));
  has.Reset();
  if (present) return Status::Ok();
  return db_.Exec("ALTER TABLE links ADD COLUMN made INTEGER NOT NULL DEFAULT 0");
}

Status SimStateImpl::InitSchema(const SimConfig* create) {
  FATHOM_RETURN_IF_ERROR(db_.Exec("BEGIN IMMEDIATE"));
  Status status = [&]() -> Status {
    FATHOM_RETURN_IF_ERROR(db_.Exec(kSchema));
    FATHOM_RETURN_IF_ERROR(AddLinkOrder());
    FATHOM_ASSIGN_OR_RETURN(SimStmt get, db_.Prepare("SELECT value FROM meta WHERE key = 'fsname'"));
    FATHOM_ASSIGN_OR_RETURN(bool exists, db_.Step(get));
    std::string fsname = exists ? get.Text(0) : "";
    get.Reset();
    if (exists) {
      if (create == nullptr) return Status::Ok();
      FATHOM_ASSIGN_OR_RETURN(SimStmt mdts, db_.Prepare("SELECT value FROM meta WHERE key = 'mdts'"));
      FATHOM_ASSIGN_OR_RETURN(bool has_mdts, db_.Step(mdts));
      int count = has_mdts ? std::atoi(mdts.Text(0).c_str()) : 0;
      mdts.Reset();
      if (fsname != create->fsname || count != create->mdts) {
        return ErrnoStatus(EINVAL, "state directory " + dir_ + " holds file system '" + fsname + "' with " +
                                       std::to_string(count) + " MDT(s), not '" + create->fsname + "' with " +
                                       std::to_string(create->mdts) +
                                       ": use matching --fsname/--mdts or another --state directory");
      }
      // States made before OSTs were modelled have the default count.
      FATHOM_ASSIGN_OR_RETURN(SimStmt osts, db_.Prepare("SELECT value FROM meta WHERE key = 'osts'"));
      FATHOM_ASSIGN_OR_RETURN(bool has_osts, db_.Step(osts));
      int ost_count = has_osts ? std::atoi(osts.Text(0).c_str()) : SimConfig{}.osts;
      osts.Reset();
      if (ost_count != create->osts) {
        return ErrnoStatus(EINVAL, "state directory " + dir_ + " holds file system '" + fsname + "' with " +
                                       std::to_string(ost_count) + " OST(s), not " +
                                       std::to_string(create->osts) + ": use a matching --osts or another --state directory");
      }
      FATHOM_ASSIGN_OR_RETURN(SimStmt set_nid, db_.Prepare("UPDATE meta SET value = ? WHERE key = 'nid'"));
      set_nid.Bind(1, create->nid);
      return db_.Run(set_nid);
    }
    if (create == nullptr) {
      return ErrnoStatus(ENOENT, "state database in " + dir_ + " is empty: start the file system with "
                                 "`fathom-lustre-sim mount` or `fathom-lustre-sim fast` first");
    }
    FATHOM_ASSIGN_OR_RETURN(SimStmt meta, db_.Prepare("INSERT INTO meta(key, value) VALUES(?, ?)"));
    const std::pair<const char*, std::string> settings[] = {
        {"fsname", create->fsname}, {"mdts", std::to_string(create->mdts)}, {"jobid_var", create->jobid_var},
        {"nid", create->nid},       {"round_robin", "0"},                   {"schema", "1"},
        {"osts", std::to_string(create->osts)}};
    for (const auto& [key, value] : settings) {
      meta.Bind(1, key);
      meta.Bind(2, value);
      FATHOM_RETURN_IF_ERROR(db_.Run(meta));
    }
    FATHOM_ASSIGN_OR_RETURN(SimStmt mdt,
                            db_.Prepare("INSERT INTO mdts(mdt, seq, oid, last_index, mask, next_user) "
                                        "VALUES(?, ?, 0, 0, ?, 1)"));
    for (int i = 0; i < create->mdts; ++i) {
      mdt.Bind(1, i);
      mdt.Bind(2, static_cast<int64_t>(kSeqBase + static_cast<uint64_t>(i) * kSeqStride));
      mdt.Bind(3, static_cast<int64_t>(CHANGELOG_DEFMASK));
      FATHOM_RETURN_IF_ERROR(db_.Run(mdt));
    }
    FATHOM_ASSIGN_OR_RETURN(SimStmt root, db_.Prepare("INSERT INTO objects(fid, type, mdt, nlink) VALUES(?, ?, 0, 2)"));
    root.Bind(1, lustre::kRootFid);
    root.Bind(2, static_cast<int64_t>(ObjectType::kDirectory));
    return db_.Run(root);
  }();
  if (status.ok()) status = db_.Exec("COMMIT");
  if (!status.ok()) db_.Rollback();
  return status;
}

Status SimStateImpl::Prepare() {
  struct Item {
    SimStmt* stmt;
    const char* sql;
  };
  const Item items[] = {
      {&st_.begin, "BEGIN IMMEDIATE"},
      {&st_.commit, "COMMIT"},
      {&st_.rollback, "ROLLBACK"},
      {&st_.get_object, "SELECT type, mdt, nlink FROM objects WHERE fid = ?"},
      {&st_.lookup, "SELECT l.child, o.type, o.mdt, o.nlink FROM links l JOIN objects o ON o.fid = l.child "
                    "WHERE l.parent = ? AND l.name = ?"},
      {&st_.insert_object, "INSERT INTO objects(fid, type, mdt, nlink) VALUES(?, ?, ?, ?)"},
      {&st_.set_nlink, "UPDATE objects SET nlink = ? WHERE fid = ?"},
      {&st_.delete_object, "DELETE FROM objects WHERE fid = ?"},
      // A new link comes after the object's other links, as in Lustre's link EA.
      {&st_.insert_link,
       "INSERT INTO links(parent, name, child, made) VALUES(?1, ?2, ?3, "
       "(SELECT COALESCE(MAX(made), 0) + 1 FROM links WHERE child = ?3))"},
      {&st_.delete_link, "DELETE FROM links WHERE parent = ? AND name = ?"},
      {&st_.links_of, "SELECT parent, name FROM links WHERE child = ? ORDER BY made, parent, name"},
      {&st_.first_child, "SELECT 1 FROM links WHERE parent = ? LIMIT 1"},
      {&st_.insert_record,
       "INSERT INTO records(mdt, idx, type, flags, time_ns, tfid, pfid, name, sfid, spfid, sname, jobid, extra, "
       "uid, gid, nid, open_flags, xattr) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"},
      {&st_.read_records,
       "SELECT idx, type, flags, time_ns, tfid, pfid, name, sfid, spfid, sname, jobid, extra, uid, gid, nid, "
       "open_flags, xattr FROM records WHERE mdt = ? AND idx >= ? ORDER BY idx LIMIT ?"},
      {&st_.purge_records, "DELETE FROM records WHERE mdt = ? AND idx <= ?"},
      {&st_.purge_all, "DELETE FROM records WHERE mdt = ?"},
      {&st_.save_mdt, "UPDATE mdts SET seq = ?, oid = ?, last_index = ?, mask = ? WHERE mdt = ?"},
      {&st_.set_meta, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)"},
      {&st_.max_index, "SELECT max(idx) FROM records WHERE mdt = ?"},
      {&st_.users_of, "SELECT id, cleared, mask FROM users WHERE mdt = ? ORDER BY id"},
      {&st_.insert_user, "INSERT INTO users(mdt, id, cleared, mask) VALUES(?, ?, ?, ?)"},
      {&st_.delete_user, "DELETE FROM users WHERE mdt = ? AND id = ?"},
      {&st_.set_cleared, "UPDATE users SET cleared = ? WHERE mdt = ? AND id = ?"},
      {&st_.get_user, "SELECT cleared FROM users WHERE mdt = ? AND id = ?"},
      {&st_.get_layout, "SELECT stripe_count, stripe_size, pool, osts, gen FROM layouts WHERE fid = ?"},
      {&st_.insert_layout,
       "INSERT OR REPLACE INTO layouts(fid, stripe_count, stripe_size, pool, osts, gen) VALUES(?, ?, ?, ?, ?, ?)"},
      {&st_.get_dir_layout, "SELECT stripe_count, stripe_size, stripe_offset, pool FROM dir_layouts WHERE fid = ?"},
      {&st_.pool_osts, "SELECT ost FROM pool_osts WHERE name = ? ORDER BY ost"},
      {&st_.pool_exists, "SELECT 1 FROM pools WHERE name = ?"},
  };
  for (const Item& item : items) {
    FATHOM_ASSIGN_OR_RETURN(*item.stmt, db_.Prepare(item.sql));
  }
  return Status::Ok();
}

Status SimStateImpl::Refresh() {
  FATHOM_ASSIGN_OR_RETURN(int64_t version, db_.DataVersion());
  if (version == data_version_) return Status::Ok();
  FATHOM_RETURN_IF_ERROR(LoadCaches());
  data_version_ = version;
  return Status::Ok();
}

Status SimStateImpl::LoadCaches() {
  FATHOM_ASSIGN_OR_RETURN(SimStmt meta, db_.Prepare("SELECT key, value FROM meta"));
  std::optional<GeneratedLog> generated;
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(meta));
    if (!row) break;
    std::string key = meta.Text(0);
    std::string value = meta.Text(1);
    if (key == "fsname") config_.fsname = value;
    else if (key == "mdts") config_.mdts = std::atoi(value.c_str());
    else if (key == "jobid_var") config_.jobid_var = value;
    else if (key == "nid") config_.nid = value;
    else if (key == "osts") config_.osts = std::atoi(value.c_str());
    else if (key == "round_robin") round_robin_ = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "ost_round_robin") ost_round_robin_ = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "generated_records") {
      if (!generated) generated.emplace();
      generated->records = std::strtoull(value.c_str(), nullptr, 10);
    } else if (key == "generated_epoch") {
      if (!generated) generated.emplace();
      generated->epoch_ns = std::strtoull(value.c_str(), nullptr, 10);
    }
  }
  generated_ = generated;
  round_robin_dirty_ = false;
  mdts_.assign(static_cast<size_t>(config_.mdts), MdtCounters{});
  FATHOM_ASSIGN_OR_RETURN(SimStmt mdts, db_.Prepare("SELECT mdt, seq, oid, last_index, mask FROM mdts"));
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(mdts));
    if (!row) break;
    int64_t mdt = mdts.Int(0);
    if (mdt < 0 || mdt >= config_.mdts) continue;
    MdtCounters& c = mdts_[static_cast<size_t>(mdt)];
    c.seq = static_cast<uint64_t>(mdts.Int(1));
    c.oid = static_cast<uint32_t>(mdts.Int(2));
    c.reserved = c.oid;
    c.last_index = static_cast<uint64_t>(mdts.Int(3));
    c.mask = static_cast<uint64_t>(mdts.Int(4));
  }
  for (size_t mdt = 0; mdt < mdts_.size(); ++mdt) {
    st_.max_index.Bind(1, static_cast<int64_t>(mdt));
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.max_index));
    if (row) {
      if (!st_.max_index.IsNull(0)) {
        mdts_[mdt].last_index = std::max(mdts_[mdt].last_index, static_cast<uint64_t>(st_.max_index.Int(0)));
      }
      st_.max_index.Reset();
    }
  }
  FATHOM_ASSIGN_OR_RETURN(SimStmt users, db_.Prepare("SELECT mdt, count(*) FROM users GROUP BY mdt"));
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(users));
    if (!row) break;
    int64_t mdt = users.Int(0);
    if (mdt >= 0 && mdt < config_.mdts) mdts_[static_cast<size_t>(mdt)].users = static_cast<int>(users.Int(1));
  }
  return Status::Ok();
}

Status SimStateImpl::SaveDirtyCounters() {
  for (size_t i = 0; i < mdts_.size(); ++i) {
    MdtCounters& c = mdts_[i];
    if (!c.dirty) continue;
    st_.save_mdt.Bind(1, static_cast<int64_t>(c.seq));
    st_.save_mdt.Bind(2, static_cast<int64_t>(c.reserved));
    st_.save_mdt.Bind(3, static_cast<int64_t>(c.last_index));
    st_.save_mdt.Bind(4, static_cast<int64_t>(c.mask));
    st_.save_mdt.Bind(5, static_cast<int64_t>(i));
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.save_mdt));
    c.dirty = false;
  }
  if (round_robin_dirty_) {
    FATHOM_RETURN_IF_ERROR(SetMeta("round_robin", std::to_string(round_robin_)));
    round_robin_dirty_ = false;
  }
  return Status::Ok();
}

Status SimStateImpl::SetMeta(std::string_view key, std::string_view value) {
  st_.set_meta.Bind(1, key);
  st_.set_meta.Bind(2, value);
  return db_.Run(st_.set_meta);
}

Status SimStateImpl::CheckMdt(int mdt) const {
  if (mdt < 0 || mdt >= config_.mdts) {
    return ErrnoStatus(EINVAL, "no MDT index " + std::to_string(mdt) + " in " + config_.fsname + " (it has " +
                                   std::to_string(config_.mdts) + " MDTs: 0 to " +
                                   std::to_string(config_.mdts - 1) + ")");
  }
  return Status::Ok();
}

Status SimStateImpl::CheckWritable() const {
  if (generated_) {
    return ErrnoStatus(EROFS, "file system " + config_.fsname +
                                  " runs in fast mode (generated changelogs): its namespace cannot be changed");
  }
  return Status::Ok();
}

SimConfig SimStateImpl::config() {
  std::lock_guard lock(mu_);
  (void)Refresh();
  return config_;
}

Status SimStateImpl::SetJobidVar(std::string_view var) {
  std::lock_guard lock(mu_);
  if (var.empty()) return ErrnoStatus(EINVAL, "jobid_var must not be empty (use \"disable\" to turn jobids off)");
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(SetMeta("jobid_var", var));
    config_.jobid_var = std::string(var);
    return Status::Ok();
  });
}

Status SimStateImpl::SetGeneratedLog(const GeneratedLog& log) {
  std::lock_guard lock(mu_);
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(SetMeta("generated_records", std::to_string(log.records)));
    FATHOM_RETURN_IF_ERROR(SetMeta("generated_epoch", std::to_string(log.epoch_ns)));
    generated_ = log;
    return Status::Ok();
  });
}

Result<std::optional<GeneratedLog>> SimStateImpl::GetGeneratedLog() {
  std::lock_guard lock(mu_);
  FATHOM_RETURN_IF_ERROR(Refresh());
  return generated_;
}

}  // namespace fathom::lustre_sim
