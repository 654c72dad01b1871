// memory_lustre.h — an in-memory Lustre namespace for the resolver's unit tests.
//
// It is not a mock of a library call: it keeps a real namespace (FIDs, directories, hard
// links), writes the changelog records Lustre writes for each operation (CREAT, MKDIR,
// HLINK, UNLNK, RMDIR, RENME with its rename extension, data records), and answers fid2path
// from the namespace as it is *now*, as Lustre's fid2path does, counting the calls. Tests
// perform operations, then resolve the records later, exactly as a changelog reader sees
// them. Single-threaded.
#pragma once

#include <cerrno>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "fathom/status.h"
#include "lustre/changelog_record.h"
#include "lustre/fid.h"

namespace fathom::testing {

using lustre::ChangelogRecord;
using lustre::Fid;

class MemoryLustre {
 public:
  MemoryLustre() { objects_[lustre::kRootFid] = Object{true, {}}; }

  // Namespace operations, each logging its record (when `log` is true).
  Fid Mkdir(const Fid& parent, const std::string& name, bool log = true) {
    return Make(parent, name, true, CL_MKDIR, log);
  }
  Fid Create(const Fid& parent, const std::string& name, bool log = true) {
    return Make(parent, name, false, CL_CREATE, log);
  }
  void Link(const Fid& target, const Fid& parent, const std::string& name) {
    Attach(target, parent, name);
    Log(Record(CL_HARDLINK, target, parent, name));
  }
  void Unlink(const Fid& parent, const std::string& name, bool log = true) {
    const Fid fid = Lookup(parent, name);
    Detach(fid, parent, name);
    const bool last = objects_[fid].links.empty();
    if (last) objects_.erase(fid);
    ChangelogRecord r = Record(CL_UNLINK, fid, parent, name);
    r.flags = last ? CLF_UNLINK_LAST : 0;
    if (log) Log(std::move(r));
  }
  void Rmdir(const Fid& parent, const std::string& name, bool log = true) {
    const Fid fid = Lookup(parent, name);
    Detach(fid, parent, name);
    objects_.erase(fid);
    ChangelogRecord r = Record(CL_RMDIR, fid, parent, name);
    r.flags = CLF_UNLINK_LAST;
    if (log) Log(std::move(r));
  }
  void Rename(const Fid& sparent, const std::string& sname, const Fid& parent,
              const std::string& name) {
    const Fid fid = Lookup(sparent, sname);
    Fid victim;
    auto existing = children_.find({parent, name});
    if (existing != children_.end()) {
      victim = existing->second;
      Detach(victim, parent, name);
      if (objects_[victim].links.empty()) objects_.erase(victim);
    }
    Detach(fid, sparent, sname);
    Attach(fid, parent, name);
    ChangelogRecord r = Record(CL_RENAME, victim, parent, name);
    r.has_rename = true;
    r.sfid = fid;
    r.spfid = sparent;
    r.sname = sname;
    Log(std::move(r));
  }
  // A record about `fid` itself (MTIME, CLOSE, SATTR, ...), with no parent or name.
  void Touch(const Fid& fid, uint32_t type) { Log(Record(type, fid, Fid{}, "")); }

  // fid2path as Lustre answers it: the first link's path from the root, no leading '/'.
  Result<std::string> Fid2Path(const Fid& fid) {
    ++fid2path_calls;
    std::string path;
    Fid cur = fid;
    while (cur != lustre::kRootFid) {
      auto it = objects_.find(cur);
      if (it == objects_.end() || it->second.links.empty()) {
        return Status::Error("fid2path " + lustre::FormatFid(fid) + ": no such file",
                             std::error_code(ENOENT, std::generic_category()));
      }
      const auto& [parent, name] = it->second.links.front();
      path = path.empty() ? name : name + "/" + path;
      cur = parent;
    }
    return path;
  }

  Fid Lookup(const Fid& parent, const std::string& name) const {
    auto it = children_.find({parent, name});
    if (it == children_.end()) throw std::runtime_error("no entry " + name);
    return it->second;
  }

  // The records logged since the last call.
  std::vector<ChangelogRecord> TakeRecords() { return std::exchange(records_, {}); }

  ChangelogRecord Record(uint32_t type, const Fid& tfid, const Fid& pfid, const std::string& name) {
    ChangelogRecord r;
    r.index = ++last_index_;
    r.type = type;
    r.time_ns = 1700000000000000000ull + r.index;
    r.tfid = tfid;
    r.pfid = pfid;
    r.name = name;
    r.has_jobid = true;
    r.jobid = "touch.0";
    r.has_extra_flags = true;
    r.extra_flags = CLFE_UIDGID | CLFE_NID;
    r.uid = 1000;
    r.gid = 100;
    r.nid = "0@lo";
    return r;
  }
  void Log(ChangelogRecord r) { records_.push_back(std::move(r)); }

  int fid2path_calls = 0;

 private:
  struct Object {
    bool is_dir = false;
    std::vector<std::pair<Fid, std::string>> links;  // (parent, name), oldest first
  };

  Fid Make(const Fid& parent, const std::string& name, bool dir, uint32_t type, bool log) {
    const Fid fid{0x200000400, ++last_oid_, 0};
    objects_[fid] = Object{dir, {}};
    Attach(fid, parent, name);
    if (log) Log(Record(type, fid, parent, name));
    return fid;
  }
  void Attach(const Fid& fid, const Fid& parent, const std::string& name) {
    children_[{parent, name}] = fid;
    objects_[fid].links.emplace_back(parent, name);
  }
  void Detach(const Fid& fid, const Fid& parent, const std::string& name) {
    children_.erase({parent, name});
    auto& links = objects_[fid].links;
    std::erase(links, std::make_pair(parent, name));
  }

  std::map<Fid, Object> objects_;
  std::map<std::pair<Fid, std::string>, Fid> children_;
  std::vector<ChangelogRecord> records_;
  uint64_t last_index_ = 0;
  uint32_t last_oid_ = 0;
};

}  // namespace fathom::testing
