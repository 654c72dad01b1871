// Layouts and OST pools: every regular file's stripes, directories' default layouts, pools.
//
// A new file's layout is the `lfs setstripe` request's fields over the default layout of
// the nearest ancestor directory that has one, over the file system default (1 stripe of
// 1 MiB). Its OSTs are taken round-robin from the pool's OSTs (or all OSTs): from
// stripe_offset when given, else from a file-system-wide cursor that advances by the stripe
// count of each file placed, so that consecutive files spread over the OSTs.
#include <cerrno>
#include <charconv>

#include "lustre_sim/state/sim_state_impl.h"

namespace fathom::lustre_sim {
namespace {


bool ValidPoolName(std::string_view pool) {
  if (pool.empty() || pool.size() > LOV_MAXPOOLNAME) return false;
  for (char c : pool) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string JoinOsts(const std::vector<uint32_t>& osts) {
  std::string out;
  for (uint32_t ost : osts) {
    if (!out.empty()) out += ',';
    out += std::to_string(ost);
  }
  return out;
}

std::vector<uint32_t> SplitOsts(std::string_view text) {
  std::vector<uint32_t> osts;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    uint32_t ost = 0;
    std::from_chars(item.data(), item.data() + item.size(), ost);
    osts.push_back(ost);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return osts;
}

bool Unset(const LayoutSpec& spec) {
  return spec.stripe_count == 0 && spec.stripe_size == 0 && spec.stripe_offset < 0 && spec.pool.empty();
}

}  // namespace

Result<std::optional<LayoutSpec>> SimStateImpl::FindDirLayout(const Fid& dir) {
  st_.get_dir_layout.Bind(1, dir);
  FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.get_dir_layout));
  if (!row) return std::optional<LayoutSpec>();
  LayoutSpec spec;
  spec.stripe_count = st_.get_dir_layout.Int(0);
  spec.stripe_size = static_cast<uint64_t>(st_.get_dir_layout.Int(1));
  spec.stripe_offset = static_cast<int>(st_.get_dir_layout.Int(2));
  spec.pool = st_.get_dir_layout.Text(3);
  st_.get_dir_layout.Reset();
  return std::optional<LayoutSpec>(std::move(spec));
}

Result<bool> SimStateImpl::PoolExists(std::string_view pool) {
  st_.pool_exists.Bind(1, pool);
  FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.pool_exists));
  if (row) st_.pool_exists.Reset();
  return row;
}

Result<std::vector<uint32_t>> SimStateImpl::FindPoolOsts(std::string_view pool) {
  std::vector<uint32_t> osts;
  st_.pool_osts.Bind(1, pool);
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.pool_osts));
    if (!row) break;
    osts.push_back(static_cast<uint32_t>(st_.pool_osts.Int(0)));
  }
  return osts;
}

Status SimStateImpl::AssignLayout(const Fid& file, const Fid& parent, const LayoutSpec* request) {
  LayoutSpec inherited;
  Fid dir = parent;
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    FATHOM_ASSIGN_OR_RETURN(std::optional<LayoutSpec> found, FindDirLayout(dir));
    if (found) {
      inherited = *found;
      break;
    }
    FATHOM_ASSIGN_OR_RETURN(std::optional<Fid> up, FirstParent(dir));
    if (!up) break;
    dir = *up;
  }
  LayoutSpec spec = request != nullptr ? *request : LayoutSpec{};
  int64_t count = spec.stripe_count != 0 ? spec.stripe_count
                  : inherited.stripe_count != 0 ? inherited.stripe_count : kDefaultStripeCount;
  uint64_t size = spec.stripe_size != 0 ? spec.stripe_size
                  : inherited.stripe_size != 0 ? inherited.stripe_size : kDefaultStripeSize;
  int offset = spec.stripe_offset >= 0 ? spec.stripe_offset : inherited.stripe_offset;
  std::string pool = !spec.pool.empty() ? spec.pool : inherited.pool;

  std::vector<uint32_t> candidates;
  if (!pool.empty()) {
    FATHOM_ASSIGN_OR_RETURN(bool exists, PoolExists(pool));
    if (exists) {
      FATHOM_ASSIGN_OR_RETURN(candidates, FindPoolOsts(pool));
    }
    if (candidates.empty()) {
      // A requested pool must be usable; an inherited one that was emptied or destroyed
      // since is ignored, as the MDS falls back to every OST.
      if (!spec.pool.empty()) {
        return ErrnoStatus(EINVAL, "pool '" + pool + "' " + (exists ? "has no OSTs" : "does not exist"));
      }
      pool.clear();
    }
  }
  if (candidates.empty()) {
    for (int i = 0; i < config_.osts; ++i) candidates.push_back(static_cast<uint32_t>(i));
  }
  if (count < -1) return ErrnoStatus(EINVAL, "invalid stripe count " + std::to_string(count));
  if (count == -1 || count > static_cast<int64_t>(candidates.size())) count = static_cast<int64_t>(candidates.size());
  if (size % 65536 != 0) {
    return ErrnoStatus(EINVAL, "stripe size " + std::to_string(size) + " is not a multiple of 64 KiB");
  }
  size_t start = 0;
  if (offset >= 0) {
    auto it = std::find(candidates.begin(), candidates.end(), static_cast<uint32_t>(offset));
    if (it == candidates.end()) {
      return ErrnoStatus(EINVAL, "OST index " + std::to_string(offset) +
                                     (pool.empty() ? " does not exist" : " is not in pool '" + pool + "'"));
    }
    start = static_cast<size_t>(it - candidates.begin());
  } else {
    start = static_cast<size_t>(ost_round_robin_ % candidates.size());
    ost_round_robin_ += static_cast<uint64_t>(count);
    FATHOM_RETURN_IF_ERROR(SetMeta("ost_round_robin", std::to_string(ost_round_robin_)));
  }
  std::vector<uint32_t> osts;
  for (int64_t i = 0; i < count; ++i) osts.push_back(candidates[(start + static_cast<size_t>(i)) % candidates.size()]);
  st_.insert_layout.Bind(1, file);
  st_.insert_layout.Bind(2, count);
  st_.insert_layout.Bind(3, static_cast<int64_t>(size));
  st_.insert_layout.Bind(4, pool);
  st_.insert_layout.Bind(5, JoinOsts(osts));
  st_.insert_layout.Bind(6, 0);
  return db_.Run(st_.insert_layout);
}

Result<Layout> SimStateImpl::GetLayout(const Fid& fid) {
  std::lock_guard lock(mu_);
  st_.get_layout.Bind(1, fid);
  FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.get_layout));
  if (!row) return ErrnoStatus(ENODATA, "no layout for " + lustre::FormatFid(fid));
  Layout layout;
  layout.stripe_count = static_cast<uint32_t>(st_.get_layout.Int(0));
  layout.stripe_size = static_cast<uint64_t>(st_.get_layout.Int(1));
  layout.pool = st_.get_layout.Text(2);
  layout.osts = SplitOsts(st_.get_layout.Text(3));
  layout.generation = static_cast<uint32_t>(st_.get_layout.Int(4));
  st_.get_layout.Reset();
  return layout;
}

Result<std::optional<LayoutSpec>> SimStateImpl::GetDirLayout(const Fid& dir) {
  std::lock_guard lock(mu_);
  return FindDirLayout(dir);
}

Status SimStateImpl::SetDirLayout(const Caller& caller, const Fid& dir, const LayoutSpec& spec) {
  std::lock_guard lock(mu_);
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckWritable());
    FATHOM_ASSIGN_OR_RETURN(Entry entry, RequireDirectory(dir));
    if (spec.stripe_count < -1) return ErrnoStatus(EINVAL, "invalid stripe count " + std::to_string(spec.stripe_count));
    if (spec.stripe_size % 65536 != 0) {
      return ErrnoStatus(EINVAL, "stripe size " + std::to_string(spec.stripe_size) + " is not a multiple of 64 KiB");
    }
    if (spec.stripe_offset >= config_.osts) {
      return ErrnoStatus(EINVAL, "OST index " + std::to_string(spec.stripe_offset) + " does not exist");
    }
    if (!spec.pool.empty()) {
      FATHOM_ASSIGN_OR_RETURN(bool exists, PoolExists(spec.pool));
      if (!exists) return ErrnoStatus(EINVAL, "pool '" + spec.pool + "' does not exist");
    }
    if (Unset(spec)) {
      FATHOM_ASSIGN_OR_RETURN(SimStmt del, db_.Prepare("DELETE FROM dir_layouts WHERE fid = ?"));
      del.Bind(1, dir);
      FATHOM_RETURN_IF_ERROR(db_.Run(del));
    } else {
      FATHOM_ASSIGN_OR_RETURN(SimStmt put, db_.Prepare("INSERT OR REPLACE INTO dir_layouts(fid, stripe_count, "
                                                       "stripe_size, stripe_offset, pool) VALUES(?, ?, ?, ?, ?)"));
      put.Bind(1, dir);
      put.Bind(2, spec.stripe_count);
      put.Bind(3, static_cast<int64_t>(spec.stripe_size));
      put.Bind(4, spec.stripe_offset);
      put.Bind(5, spec.pool);
      FATHOM_RETURN_IF_ERROR(db_.Run(put));
    }
    ChangelogRecord record;
    record.type = CL_LAYOUT;
    record.tfid = dir;
    return Append(entry.mdt, record, caller);
  });
}

Status SimStateImpl::PoolNew(std::string_view pool) {
  std::lock_guard lock(mu_);
  if (!ValidPoolName(pool)) {
    return ErrnoStatus(EINVAL, "invalid pool name '" + std::string(pool) +
                                   "': use 1-15 characters from [A-Za-z0-9_-]");
  }
  return Transaction([&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(bool exists, PoolExists(pool));
    if (exists) return ErrnoStatus(EEXIST, "pool '" + std::string(pool) + "' already exists");
    FATHOM_ASSIGN_OR_RETURN(SimStmt put, db_.Prepare("INSERT INTO pools(name) VALUES(?)"));
    put.Bind(1, pool);
    return db_.Run(put);
  });
}

Status SimStateImpl::PoolDestroy(std::string_view pool) {
  std::lock_guard lock(mu_);
  return Transaction([&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(bool exists, PoolExists(pool));
    if (!exists) return ErrnoStatus(ENOENT, "pool '" + std::string(pool) + "' does not exist");
    FATHOM_ASSIGN_OR_RETURN(std::vector<uint32_t> osts, FindPoolOsts(pool));
    if (!osts.empty()) return ErrnoStatus(ENOTEMPTY, "pool '" + std::string(pool) + "' is not empty");
    FATHOM_ASSIGN_OR_RETURN(SimStmt del, db_.Prepare("DELETE FROM pools WHERE name = ?"));
    del.Bind(1, pool);
    return db_.Run(del);
  });
}

Status SimStateImpl::PoolAdd(std::string_view pool, uint32_t ost) {
  std::lock_guard lock(mu_);
  return Transaction([&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(bool exists, PoolExists(pool));
    if (!exists) return ErrnoStatus(ENOENT, "pool '" + std::string(pool) + "' does not exist");
    if (ost >= static_cast<uint32_t>(config_.osts)) {
      return ErrnoStatus(EINVAL, "OST index " + std::to_string(ost) + " does not exist");
    }
    FATHOM_ASSIGN_OR_RETURN(SimStmt put, db_.Prepare("INSERT OR IGNORE INTO pool_osts(name, ost) VALUES(?, ?)"));
    put.Bind(1, pool);
    put.Bind(2, static_cast<int64_t>(ost));
    FATHOM_RETURN_IF_ERROR(db_.Run(put));
    if (db_.Changes() == 0) return ErrnoStatus(EEXIST, "OST already in pool '" + std::string(pool) + "'");
    return Status::Ok();
  });
}

Status SimStateImpl::PoolRemove(std::string_view pool, uint32_t ost) {
  std::lock_guard lock(mu_);
  return Transaction([&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(bool exists, PoolExists(pool));
    if (!exists) return ErrnoStatus(ENOENT, "pool '" + std::string(pool) + "' does not exist");
    FATHOM_ASSIGN_OR_RETURN(SimStmt del, db_.Prepare("DELETE FROM pool_osts WHERE name = ? AND ost = ?"));
    del.Bind(1, pool);
    del.Bind(2, static_cast<int64_t>(ost));
    FATHOM_RETURN_IF_ERROR(db_.Run(del));
    if (db_.Changes() == 0) return ErrnoStatus(ENOENT, "OST not in pool '" + std::string(pool) + "'");
    return Status::Ok();
  });
}

Result<std::vector<std::string>> SimStateImpl::Pools() {
  std::lock_guard lock(mu_);
  FATHOM_ASSIGN_OR_RETURN(SimStmt list, db_.Prepare("SELECT name FROM pools ORDER BY name"));
  std::vector<std::string> names;
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(list));
    if (!row) break;
    names.push_back(list.Text(0));
  }
  return names;
}

Result<std::vector<uint32_t>> SimStateImpl::PoolOsts(std::string_view pool) {
  std::lock_guard lock(mu_);
  FATHOM_ASSIGN_OR_RETURN(bool exists, PoolExists(pool));
  if (!exists) return ErrnoStatus(ENOENT, "pool '" + std::string(pool) + "' does not exist");
  return FindPoolOsts(pool);
}

}  // namespace fathom::lustre_sim
