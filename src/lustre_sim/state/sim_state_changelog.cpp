// SimState's changelogs: users, masks, clearing and reading records.
#include <cerrno>
#include <cstdlib>
#include <limits>

#include "lustre_sim/state/sim_state_impl.h"

namespace fathom::lustre_sim {
namespace {

// "cl3", "cl3-name" or "3" -> 3; 0 when the name is none of these.
int64_t ParseUserId(std::string_view user) {
  std::string_view digits = user;
  if (digits.substr(0, 2) == "cl") digits.remove_prefix(2);
  size_t dash = digits.find('-');
  if (dash != std::string_view::npos && user.substr(0, 2) == "cl") digits = digits.substr(0, dash);
  if (digits.empty() || digits.size() > 9) return 0;
  int64_t id = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return 0;
    id = id * 10 + (c - '0');
  }
  return id;
}

uint64_t NormalizeMask(uint64_t mask) { return (mask & CHANGELOG_ALLMASK) | CHANGELOG_MINMASK; }

}  // namespace

Result<std::pair<int64_t, uint64_t>> SimStateImpl::FindUser(int mdt, std::string_view user) {
  int64_t id = ParseUserId(user);
  if (id > 0) {
    st_.get_user.Bind(1, mdt);
    st_.get_user.Bind(2, id);
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.get_user));
    if (row) {
      uint64_t cleared = static_cast<uint64_t>(st_.get_user.Int(0));
      st_.get_user.Reset();
      return std::make_pair(id, cleared);
    }
  }
  return ErrnoStatus(ENOENT, "no changelog user '" + std::string(user) + "' on " + config_.fsname + "-MDT" +
                                 [&] {
                                   char buf[8];
                                   snprintf(buf, sizeof(buf), "%04x", mdt);
                                   return std::string(buf);
                                 }() +
                                 " (list them with `lctl get_param mdd.*.changelog_users`)");
}

Status SimStateImpl::PurgeCleared(int mdt) {
  mdts_[static_cast<size_t>(mdt)].dirty = true;  // the row keeps the last index once records go
  st_.users_of.Bind(1, mdt);
  uint64_t min_cleared = std::numeric_limits<uint64_t>::max();
  bool any = false;
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.users_of));
    if (!row) break;
    any = true;
    min_cleared = std::min(min_cleared, static_cast<uint64_t>(st_.users_of.Int(1)));
  }
  if (!any) {
    st_.purge_all.Bind(1, mdt);
    return db_.Run(st_.purge_all);
  }
  st_.purge_records.Bind(1, mdt);
  st_.purge_records.Bind(2, static_cast<int64_t>(min_cleared));
  return db_.Run(st_.purge_records);
}

Result<std::string> SimStateImpl::RegisterUser(int mdt, uint64_t mask) {
  std::lock_guard lock(mu_);
  std::string name;
  Status status = Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckMdt(mdt));
    FATHOM_ASSIGN_OR_RETURN(SimStmt next, db_.Prepare("SELECT next_user FROM mdts WHERE mdt = ?"));
    next.Bind(1, mdt);
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(next));
    int64_t id = row ? next.Int(0) : 1;
    next.Reset();
    FATHOM_ASSIGN_OR_RETURN(SimStmt bump, db_.Prepare("UPDATE mdts SET next_user = ? WHERE mdt = ?"));
    bump.Bind(1, id + 1);
    bump.Bind(2, mdt);
    FATHOM_RETURN_IF_ERROR(db_.Run(bump));
    MdtCounters& c = mdts_[static_cast<size_t>(mdt)];
    st_.insert_user.Bind(1, mdt);
    st_.insert_user.Bind(2, id);
    st_.insert_user.Bind(3, static_cast<int64_t>(c.last_index));
    st_.insert_user.Bind(4, static_cast<int64_t>(NormalizeMask(mask == 0 ? CHANGELOG_DEFMASK : mask)));
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.insert_user));
    c.users += 1;
    name = "cl" + std::to_string(id);
    return Status::Ok();
  });
  if (!status.ok()) return status;
  return name;
}

Status SimStateImpl::DeregisterUser(int mdt, std::string_view user) {
  std::lock_guard lock(mu_);
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckMdt(mdt));
    FATHOM_ASSIGN_OR_RETURN(auto found, FindUser(mdt, user));
    st_.delete_user.Bind(1, mdt);
    st_.delete_user.Bind(2, found.first);
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.delete_user));
    mdts_[static_cast<size_t>(mdt)].users -= 1;
    return PurgeCleared(mdt);
  });
}

Result<std::vector<ChangelogUser>> SimStateImpl::Users(int mdt) {
  std::lock_guard lock(mu_);
  FATHOM_RETURN_IF_ERROR(Refresh());
  FATHOM_RETURN_IF_ERROR(CheckMdt(mdt));
  std::vector<ChangelogUser> users;
  st_.users_of.Bind(1, mdt);
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.users_of));
    if (!row) break;
    ChangelogUser user;
    user.name = "cl" + std::to_string(st_.users_of.Int(0));
    user.cleared = static_cast<uint64_t>(st_.users_of.Int(1));
    user.mask = static_cast<uint64_t>(st_.users_of.Int(2));
    users.push_back(std::move(user));
  }
  return users;
}

Status SimStateImpl::Clear(int mdt, std::string_view user, uint64_t endrec) {
  std::lock_guard lock(mu_);
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckMdt(mdt));
    FATHOM_ASSIGN_OR_RETURN(auto found, FindUser(mdt, user));
    MdtCounters& c = mdts_[static_cast<size_t>(mdt)];
    uint64_t last = c.last_index;
    if (generated_) last = generated_->records > 0 ? generated_->records : std::numeric_limits<uint64_t>::max();
    if (endrec > last) {
      return ErrnoStatus(EINVAL, "cannot clear changelog of " + std::string(user) + " up to record " +
                                     std::to_string(endrec) + ": the last record is " + std::to_string(last));
    }
    if (endrec == 0) endrec = generated_ && generated_->records == 0 ? c.last_index : last;
    if (endrec < found.second) {
      return ErrnoStatus(EINVAL, "cannot clear changelog of " + std::string(user) + " up to record " +
                                     std::to_string(endrec) + ": it already cleared up to " +
                                     std::to_string(found.second));
    }
    st_.set_cleared.Bind(1, static_cast<int64_t>(endrec));
    st_.set_cleared.Bind(2, mdt);
    st_.set_cleared.Bind(3, found.first);
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.set_cleared));
    if (generated_ && endrec > c.last_index) {
      c.last_index = endrec;
      c.dirty = true;
    }
    return PurgeCleared(mdt);
  });
}

Result<uint64_t> SimStateImpl::Mask(int mdt) {
  std::lock_guard lock(mu_);
  FATHOM_RETURN_IF_ERROR(Refresh());
  FATHOM_RETURN_IF_ERROR(CheckMdt(mdt));
  return mdts_[static_cast<size_t>(mdt)].mask;
}

Status SimStateImpl::SetMask(int mdt, uint64_t mask) {
  std::lock_guard lock(mu_);
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckMdt(mdt));
    MdtCounters& c = mdts_[static_cast<size_t>(mdt)];
    c.mask = NormalizeMask(mask);
    c.dirty = true;
    return Status::Ok();
  });
}

Result<uint64_t> SimStateImpl::LastIndex(int mdt) {
  std::lock_guard lock(mu_);
  FATHOM_RETURN_IF_ERROR(Refresh());
  FATHOM_RETURN_IF_ERROR(CheckMdt(mdt));
  if (generated_ && generated_->records > 0) return generated_->records;
  return mdts_[static_cast<size_t>(mdt)].last_index;
}

Status SimStateImpl::Read(int mdt, uint64_t start, size_t max, std::vector<ChangelogRecord>& out) {
  std::lock_guard lock(mu_);
  FATHOM_RETURN_IF_ERROR(CheckMdt(mdt));
  if (max == 0) return Status::Ok();
  SimStmt& s = st_.read_records;
  s.Bind(1, mdt);
  s.Bind(2, static_cast<int64_t>(std::min<uint64_t>(start, std::numeric_limits<int64_t>::max())));
  s.Bind(3, static_cast<int64_t>(std::min<size_t>(max, std::numeric_limits<int32_t>::max())));
  for (;;) {
    FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(s));
    if (!row) break;
    ChangelogRecord r;
    r.index = static_cast<uint64_t>(s.Int(0));
    r.type = static_cast<uint32_t>(s.Int(1));
    r.flags = static_cast<uint16_t>(s.Int(2));
    r.time_ns = static_cast<uint64_t>(s.Int(3));
    r.tfid = s.FidAt(4);
    r.pfid = s.FidAt(5);
    r.name = s.Text(6);
    if (!s.IsNull(7)) {
      r.has_rename = true;
      r.sfid = s.FidAt(7);
      r.spfid = s.FidAt(8);
      r.sname = s.Text(9);
    }
    if (!s.IsNull(10)) {
      r.has_jobid = true;
      r.jobid = s.Text(10);
    }
    r.has_extra_flags = true;
    r.extra_flags = static_cast<uint64_t>(s.Int(11));
    r.uid = static_cast<uint64_t>(s.Int(12));
    r.gid = static_cast<uint64_t>(s.Int(13));
    r.nid = s.Text(14);
    r.open_flags = static_cast<uint32_t>(s.Int(15));
    r.xattr = s.Text(16);
    out.push_back(std::move(r));
  }
  return Status::Ok();
}

}  // namespace fathom::lustre_sim
