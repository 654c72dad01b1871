// SimState's namespace: lookups, paths and the mutations with their namespace records.
#include <cerrno>
#include <algorithm>
#include <ctime>

#include "lustre_sim/state/sim_state_impl.h"

namespace fathom::lustre_sim {
namespace {

constexpr uint32_t kOidsPerSeq = 0x20000;
constexpr uint32_t kOidReservation = 1024;
// la_valid's LA_MTIME (lustre_idl.h), as SATTR/MTIME/... records carry it in their flags.
constexpr uint16_t kLaValidMtime = 1 << 1;

Status ValidateName(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos) {
    return ErrnoStatus(EINVAL, "invalid file name '" + std::string(name) + "'");
  }
  if (name.size() > LUSTRE_NAME_MAX) {
    return ErrnoStatus(ENAMETOOLONG, "file name longer than " + std::to_string(LUSTRE_NAME_MAX) + " bytes: '" +
                                         std::string(name.substr(0, 32)) + "...'");
  }
  return Status::Ok();
}

uint32_t CreateRecordType(ObjectType type) {
  switch (type) {
    case ObjectType::kDirectory: return CL_MKDIR;
    case ObjectType::kSymlink: return CL_SOFTLINK;
    case ObjectType::kNode: return CL_MKNOD;
    case ObjectType::kFile: break;
  }
  return CL_CREATE;
}

Status NotFound(const Fid& fid) {
  return ErrnoStatus(ENOENT, "no object " + lustre::FormatFid(fid));
}

Status NoEntry(const Fid& parent, std::string_view name) {
  return ErrnoStatus(ENOENT, "no entry '" + std::string(name) + "' in directory " + lustre::FormatFid(parent));
}

}  // namespace

Result<std::optional<Entry>> SimStateImpl::FindObject(const Fid& fid) {
  st_.get_object.Bind(1, fid);
  FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.get_object));
  if (!row) return std::optional<Entry>();
  Entry entry;
  entry.fid = fid;
  entry.type = static_cast<ObjectType>(st_.get_object.Int(0));
  entry.mdt = static_cast<int>(st_.get_object.Int(1));
  entry.nlink = static_cast<uint32_t>(st_.get_object.Int(2));
  st_.get_object.Reset();
  return std::optional<Entry>(entry);
}

Result<std::optional<Entry>> SimStateImpl::FindChild(const Fid& parent, std::string_view name) {
  st_.lookup.Bind(1, parent);
  st_.lookup.Bind(2, name);
  FATHOM_ASSIGN_OR_RETURN(bool row, db_.Step(st_.lookup));
  if (!row) return std::optional<Entry>();
  Entry entry;
  entry.fid = st_.lookup.FidAt(0);
  entry.type = static_cast<ObjectType>(st_.lookup.Int(1));
  entry.mdt = static_cast<int>(st_.lookup.Int(2));
  entry.nlink = static_cast<uint32_t>(st_.lookup.Int(3));
  st_.lookup.Reset();
  return std::optional<Entry>(entry);
}

Result<Entry> SimStateImpl::RequireDirectory(const Fid& fid) {
  FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> entry, FindObject(fid));
  if (!entry) return NotFound(fid);
  if (entry->type != ObjectType::kDirectory) {
    return ErrnoStatus(ENOTDIR, lustre::FormatFid(fid) + " is not a directory");
  }
  return *entry;
}

Status SimStateImpl::SetNlink(const Fid& fid, uint32_t nlink) {
  st_.set_nlink.Bind(1, static_cast<int64_t>(nlink));
  st_.set_nlink.Bind(2, fid);
  return db_.Run(st_.set_nlink);
}

Status SimStateImpl::AdjustNlink(const Fid& fid, int delta) {
  FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> entry, FindObject(fid));
  if (!entry) return NotFound(fid);
  return SetNlink(fid, static_cast<uint32_t>(static_cast<int64_t>(entry->nlink) + delta));
}

Result<Fid> SimStateImpl::AllocateFid(int mdt) {
  MdtCounters& c = mdts_[static_cast<size_t>(mdt)];
  if (c.oid >= kOidsPerSeq) {
    c.seq += 1;
    c.oid = 0;
    c.reserved = 0;
  }
  c.oid += 1;
  if (c.oid > c.reserved) {
    c.reserved = std::min<uint32_t>(c.oid + kOidReservation - 1, kOidsPerSeq);
    c.dirty = true;
  }
  return Fid{c.seq, c.oid, 0};
}

std::vector<std::pair<Fid, std::string>> SimStateImpl::LinksOf(const Fid& fid) {
  std::vector<std::pair<Fid, std::string>> links;
  st_.links_of.Bind(1, fid);
  for (;;) {
    Result<bool> row = db_.Step(st_.links_of);
    if (!row.ok() || !*row) break;
    links.emplace_back(st_.links_of.FidAt(0), st_.links_of.Text(1));
  }
  st_.links_of.Reset();
  return links;
}

Result<std::optional<Fid>> SimStateImpl::FirstParent(const Fid& fid) {
  auto links = LinksOf(fid);
  if (links.empty()) return std::optional<Fid>();
  return std::optional<Fid>(links.front().first);
}

Result<bool> SimStateImpl::IsAncestor(const Fid& ancestor, Fid dir) {
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    if (dir == ancestor) return true;
    if (dir == lustre::kRootFid) return false;
    FATHOM_ASSIGN_OR_RETURN(std::optional<Fid> parent, FirstParent(dir));
    if (!parent) return false;
    dir = *parent;
  }
  return ErrnoStatus(ELOOP, "directory " + lustre::FormatFid(dir) + " is nested too deeply");
}

Result<Entry> SimStateImpl::Lookup(const Fid& parent, std::string_view name) {
  std::lock_guard lock(mu_);
  FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> entry, FindChild(parent, name));
  if (entry) return *entry;
  FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> dir, FindObject(parent));
  if (!dir) return NotFound(parent);
  return NoEntry(parent, name);
}

Result<Entry> SimStateImpl::Resolve(std::string_view path) {
  std::lock_guard lock(mu_);
  FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> root, FindObject(lustre::kRootFid));
  if (!root) return NotFound(lustre::kRootFid);
  Entry current = *root;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    std::string_view name = path.substr(pos, end - pos);
    pos = end + 1;
    if (name.empty() || name == ".") continue;
    if (current.type != ObjectType::kDirectory) {
      return ErrnoStatus(ENOTDIR, "'" + std::string(path) + "': a component is not a directory");
    }
    FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> child, FindChild(current.fid, name));
    if (!child) return ErrnoStatus(ENOENT, "no such file or directory: '" + std::string(path) + "'");
    current = *child;
  }
  return current;
}

Result<Entry> SimStateImpl::Get(const Fid& fid) {
  std::lock_guard lock(mu_);
  FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> entry, FindObject(fid));
  if (!entry) return NotFound(fid);
  return *entry;
}

std::vector<std::string> SimStateImpl::Paths(const Fid& fid) {
  std::lock_guard lock(mu_);
  std::vector<std::string> paths;
  if (fid == lustre::kRootFid) {
    paths.emplace_back("/");
    return paths;
  }
  for (const auto& [parent, name] : LinksOf(fid)) {
    std::string path = "/" + name;
    Fid dir = parent;
    bool complete = false;
    for (int depth = 0; depth < kMaxDepth; ++depth) {
      if (dir == lustre::kRootFid) {
        complete = true;
        break;
      }
      auto up = LinksOf(dir);
      if (up.empty()) break;
      path.insert(0, "/" + up.front().second);
      dir = up.front().first;
    }
    if (complete) paths.push_back(std::move(path));
  }
  return paths;
}

Result<Entry> SimStateImpl::Create(const Caller& caller, const Fid& parent, std::string_view name, ObjectType type,
                                   std::optional<int> mdt, const LayoutSpec* layout) {
  std::lock_guard lock(mu_);
  FATHOM_RETURN_IF_ERROR(ValidateName(name));
  Entry created;
  Status status = Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckWritable());
    FATHOM_ASSIGN_OR_RETURN(Entry dir, RequireDirectory(parent));
    FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> existing, FindChild(parent, name));
    if (existing) {
      return ErrnoStatus(EEXIST, "'" + std::string(name) + "' already exists in " + lustre::FormatFid(parent));
    }
    int target_mdt = dir.mdt;
    if (type == ObjectType::kDirectory) {
      if (mdt) {
        FATHOM_RETURN_IF_ERROR(CheckMdt(*mdt));
        target_mdt = *mdt;
      } else if (parent == lustre::kRootFid) {
        target_mdt = static_cast<int>(round_robin_ % static_cast<uint64_t>(config_.mdts));
        round_robin_ += 1;
        round_robin_dirty_ = true;
      }
    }
    FATHOM_ASSIGN_OR_RETURN(Fid fid, AllocateFid(target_mdt));
    created.fid = fid;
    created.type = type;
    created.mdt = target_mdt;
    created.nlink = type == ObjectType::kDirectory ? 2 : 1;
    st_.insert_object.Bind(1, fid);
    st_.insert_object.Bind(2, static_cast<int64_t>(type));
    st_.insert_object.Bind(3, target_mdt);
    st_.insert_object.Bind(4, static_cast<int64_t>(created.nlink));
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.insert_object));
    st_.insert_link.Bind(1, parent);
    st_.insert_link.Bind(2, name);
    st_.insert_link.Bind(3, fid);
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.insert_link));
    if (type == ObjectType::kDirectory) FATHOM_RETURN_IF_ERROR(SetNlink(parent, dir.nlink + 1));
    if (type == ObjectType::kFile) FATHOM_RETURN_IF_ERROR(AssignLayout(fid, parent, layout));
    ChangelogRecord record;
    record.type = CreateRecordType(type);
    record.tfid = fid;
    record.pfid = parent;
    record.name = std::string(name);
    FATHOM_RETURN_IF_ERROR(Append(dir.mdt, record, caller));
    if (type != ObjectType::kFile || layout == nullptr) return Status::Ok();
    // lfs setstripe creates the file without objects (O_LOV_DELAY_CREATE), then sets its
    // layout: the MDT logs that as LYOUT.
    ChangelogRecord lyout;
    lyout.type = CL_LAYOUT;
    lyout.tfid = fid;
    return Append(target_mdt, lyout, caller);
  });
  if (!status.ok()) return status;
  return created;
}

Status SimStateImpl::Link(const Caller& caller, const Fid& target, const Fid& new_parent, std::string_view name) {
  std::lock_guard lock(mu_);
  FATHOM_RETURN_IF_ERROR(ValidateName(name));
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckWritable());
    FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> object, FindObject(target));
    if (!object) return NotFound(target);
    if (object->type == ObjectType::kDirectory) {
      return ErrnoStatus(EPERM, "cannot hard-link directory " + lustre::FormatFid(target));
    }
    FATHOM_ASSIGN_OR_RETURN(Entry dir, RequireDirectory(new_parent));
    FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> existing, FindChild(new_parent, name));
    if (existing) {
      return ErrnoStatus(EEXIST, "'" + std::string(name) + "' already exists in " + lustre::FormatFid(new_parent));
    }
    st_.insert_link.Bind(1, new_parent);
    st_.insert_link.Bind(2, name);
    st_.insert_link.Bind(3, target);
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.insert_link));
    FATHOM_RETURN_IF_ERROR(SetNlink(target, object->nlink + 1));
    ChangelogRecord record;
    record.type = CL_HARDLINK;
    record.tfid = target;
    record.pfid = new_parent;
    record.name = std::string(name);
    return Append(dir.mdt, record, caller);
  });
}

Status SimStateImpl::Unlink(const Caller& caller, const Fid& parent, std::string_view name) {
  std::lock_guard lock(mu_);
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckWritable());
    FATHOM_ASSIGN_OR_RETURN(Entry dir, RequireDirectory(parent));
    FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> child, FindChild(parent, name));
    if (!child) return NoEntry(parent, name);
    bool is_dir = child->type == ObjectType::kDirectory;
    if (is_dir) {
      st_.first_child.Bind(1, child->fid);
      FATHOM_ASSIGN_OR_RETURN(bool has_child, db_.Step(st_.first_child));
      if (has_child) {
        st_.first_child.Reset();
        return ErrnoStatus(ENOTEMPTY, "directory '" + std::string(name) + "' is not empty");
      }
    }
    st_.delete_link.Bind(1, parent);
    st_.delete_link.Bind(2, name);
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.delete_link));
    bool last = is_dir || child->nlink <= 1;
    if (last) {
      st_.delete_object.Bind(1, child->fid);
      FATHOM_RETURN_IF_ERROR(db_.Run(st_.delete_object));
    } else {
      FATHOM_RETURN_IF_ERROR(SetNlink(child->fid, child->nlink - 1));
    }
    if (is_dir) FATHOM_RETURN_IF_ERROR(SetNlink(parent, dir.nlink - 1));
    ChangelogRecord record;
    record.type = is_dir ? CL_RMDIR : CL_UNLINK;
    record.flags = last ? CLF_UNLINK_LAST : 0;
    record.tfid = child->fid;
    record.pfid = parent;
    record.name = std::string(name);
    return Append(dir.mdt, record, caller);
  });
}

Status SimStateImpl::Rename(const Caller& caller, const Fid& src_parent, std::string_view src_name,
                            const Fid& dst_parent, std::string_view dst_name) {
  std::lock_guard lock(mu_);
  FATHOM_RETURN_IF_ERROR(ValidateName(dst_name));
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckWritable());
    FATHOM_RETURN_IF_ERROR(RequireDirectory(src_parent).status());
    FATHOM_ASSIGN_OR_RETURN(Entry ddir, RequireDirectory(dst_parent));
    FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> source, FindChild(src_parent, src_name));
    if (!source) return NoEntry(src_parent, src_name);
    if (src_parent == dst_parent && src_name == dst_name) return Status::Ok();
    bool src_is_dir = source->type == ObjectType::kDirectory;
    if (src_is_dir) {
      FATHOM_ASSIGN_OR_RETURN(bool inside, IsAncestor(source->fid, dst_parent));
      if (inside) {
        return ErrnoStatus(EINVAL, "cannot move directory '" + std::string(src_name) + "' into itself");
      }
    }
    FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> target, FindChild(dst_parent, dst_name));
    if (target && target->fid == source->fid) return Status::Ok();  // two links of one file
    bool target_last = false;
    if (target) {
      bool target_is_dir = target->type == ObjectType::kDirectory;
      if (target_is_dir && !src_is_dir) {
        return ErrnoStatus(EISDIR, "cannot overwrite directory '" + std::string(dst_name) + "' with a non-directory");
      }
      if (!target_is_dir && src_is_dir) {
        return ErrnoStatus(ENOTDIR, "cannot overwrite non-directory '" + std::string(dst_name) + "' with a directory");
      }
      if (target_is_dir) {
        st_.first_child.Bind(1, target->fid);
        FATHOM_ASSIGN_OR_RETURN(bool has_child, db_.Step(st_.first_child));
        if (has_child) {
          st_.first_child.Reset();
          return ErrnoStatus(ENOTEMPTY, "directory '" + std::string(dst_name) + "' is not empty");
        }
      }
      st_.delete_link.Bind(1, dst_parent);
      st_.delete_link.Bind(2, dst_name);
      FATHOM_RETURN_IF_ERROR(db_.Run(st_.delete_link));
      target_last = target_is_dir || target->nlink <= 1;
      if (target_last) {
        st_.delete_object.Bind(1, target->fid);
        FATHOM_RETURN_IF_ERROR(db_.Run(st_.delete_object));
      } else {
        FATHOM_RETURN_IF_ERROR(SetNlink(target->fid, target->nlink - 1));
      }
      if (target_is_dir) FATHOM_RETURN_IF_ERROR(AdjustNlink(dst_parent, -1));
    }
    st_.delete_link.Bind(1, src_parent);
    st_.delete_link.Bind(2, src_name);
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.delete_link));
    st_.insert_link.Bind(1, dst_parent);
    st_.insert_link.Bind(2, dst_name);
    st_.insert_link.Bind(3, source->fid);
    FATHOM_RETURN_IF_ERROR(db_.Run(st_.insert_link));
    if (src_is_dir && src_parent != dst_parent) {
      FATHOM_RETURN_IF_ERROR(AdjustNlink(src_parent, -1));
      FATHOM_RETURN_IF_ERROR(AdjustNlink(dst_parent, +1));
    }
    ChangelogRecord record;
    record.type = CL_RENAME;
    record.flags = target_last ? CLF_RENAME_LAST : 0;
    record.tfid = target ? target->fid : Fid{};
    record.pfid = dst_parent;
    record.name = std::string(dst_name);
    record.has_rename = true;
    record.sfid = source->fid;
    record.spfid = src_parent;
    record.sname = std::string(src_name);
    return Append(ddir.mdt, record, caller);
  });
}

Status SimStateImpl::Record(const Caller& caller, uint32_t type, const Fid& target, const RecordDetails& details) {
  std::lock_guard lock(mu_);
  switch (type) {
    case CL_OPEN: case CL_CLOSE: case CL_TRUNC: case CL_SETATTR: case CL_SETXATTR:
    case CL_MTIME: case CL_CTIME: case CL_ATIME: case CL_GETXATTR: case CL_LAYOUT:
      break;
    default:
      return ErrnoStatus(EINVAL, "record type " + std::to_string(type) +
                                     " is not a data record (namespace records come from the namespace operations)");
  }
  return Transaction([&]() -> Status {
    FATHOM_RETURN_IF_ERROR(CheckWritable());
    FATHOM_ASSIGN_OR_RETURN(std::optional<Entry> object, FindObject(target));
    if (!object) return NotFound(target);
    ChangelogRecord record;
    record.type = type;
    record.tfid = target;
    record.flags = details.flags & CLF_FLAGMASK;
    if ((type == CL_OPEN || type == CL_CLOSE) && record.flags == 0) {
      record.flags = static_cast<uint16_t>(details.open_flags & CLF_FLAGMASK);
    }
    // The MDT names a regular file's parent (its oldest link's, from the link EA) in a setattr
    // that changes the mtime (mdt_reint_setattr's ma_pfid); no other record carries one.
    const bool setattr = type == CL_TRUNC || type == CL_SETATTR || type == CL_MTIME ||
                         type == CL_CTIME || type == CL_ATIME;
    if (setattr && (details.flags & kLaValidMtime) != 0 && object->type == ObjectType::kFile) {
      FATHOM_ASSIGN_OR_RETURN(std::optional<Fid> parent, FirstParent(target));
      if (parent) record.pfid = *parent;
    }
    if (type == CL_OPEN) {
      record.extra_flags |= CLFE_OPEN;
      record.open_flags = details.open_flags;
    }
    if (type == CL_SETXATTR || type == CL_GETXATTR) {
      record.extra_flags |= CLFE_XATTR;
      record.xattr = details.xattr.substr(0, LUSTRE_XATTR_NAME_MAX);
    }
    return Append(object->mdt, record, caller);
  });
}

Status SimStateImpl::Append(int mdt, ChangelogRecord& record, const Caller& caller) {
  MdtCounters& c = mdts_[static_cast<size_t>(mdt)];
  if (c.users == 0 || (c.mask & (1ULL << record.type)) == 0) return Status::Ok();
  c.last_index += 1;
  record.index = c.last_index;
  struct timespec now {};
  clock_gettime(CLOCK_REALTIME, &now);
  record.time_ns = static_cast<uint64_t>(now.tv_sec) * 1000000000ULL + static_cast<uint64_t>(now.tv_nsec);
  record.prev = 0;
  record.jobid = caller.jobid.substr(0, LUSTRE_JOBID_SIZE - 1);
  record.has_jobid = !record.jobid.empty();
  record.has_extra_flags = true;
  record.extra_flags |= CLFE_UIDGID | CLFE_NID;
  record.uid = caller.uid;
  record.gid = caller.gid;
  record.nid = config_.nid;
  SimStmt& s = st_.insert_record;
  s.Bind(1, mdt);
  s.Bind(2, static_cast<int64_t>(record.index));
  s.Bind(3, static_cast<int64_t>(record.type));
  s.Bind(4, static_cast<int64_t>(record.flags));
  s.Bind(5, static_cast<int64_t>(record.time_ns));
  s.Bind(6, record.tfid);
  if (record.pfid.zero()) s.BindNull(7); else s.Bind(7, record.pfid);
  if (record.name.empty()) s.BindNull(8); else s.Bind(8, record.name);
  if (record.has_rename) {
    s.Bind(9, record.sfid);
    s.Bind(10, record.spfid);
    s.Bind(11, record.sname);
  } else {
    s.BindNull(9);
    s.BindNull(10);
    s.BindNull(11);
  }
  if (record.has_jobid) s.Bind(12, record.jobid); else s.BindNull(12);
  s.Bind(13, static_cast<int64_t>(record.extra_flags));
  s.Bind(14, static_cast<int64_t>(record.uid));
  s.Bind(15, static_cast<int64_t>(record.gid));
  s.Bind(16, record.nid);
  s.Bind(17, static_cast<int64_t>(record.open_flags));
  if (record.xattr.empty()) s.BindNull(18); else s.Bind(18, record.xattr);
  return db_.Run(s);
}

}  // namespace fathom::lustre_sim
