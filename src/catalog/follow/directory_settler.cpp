#include "catalog/follow/directory_settler.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <map>
#include <memory>

#include "catalog/follow/live_attrs.h"
#include "fathom/event.h"

namespace fathom::catalog {
namespace {

std::string ParentPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string Join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

// Device, inode and type: an inode number freed by a file may come back as a directory.
bool SameObject(const Attrs& a, const Attrs& b) {
  return a.dev == b.dev && a.ino == b.ino && (a.mode & S_IFMT) == (b.mode & S_IFMT);
}

// Whether `held` says what `live` says: a listing's lstat has no Lustre view, and the one
// the catalog keeps stays (Batch::Put keeps it).
bool SameAsRead(const Attrs& held, const Attrs& live) {
  if (live.lustre || !held.lustre) return held == live;
  Attrs without = held;
  without.lustre.reset();
  return without == live;
}

// The names in a live directory; nullopt when it cannot be listed (gone, or not readable:
// the catalog keeps what it holds there).
std::optional<std::vector<std::string>> LiveNames(const std::string& path) {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(path.c_str()), ::closedir);
  if (!dir) return std::nullopt;
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* d = ::readdir(dir.get())) {
    const std::string_view name = d->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  if (errno != 0) return std::nullopt;
  return names;
}

}  // namespace

DirectorySettler::DirectorySettler(Catalog& catalog, Batch& batch,
                                   const std::vector<std::string>& roots, const Observation& seen,
                                   DescribeObject describe)
    : catalog_(catalog), batch_(batch), roots_(roots), seen_(seen), describe_(std::move(describe)) {
  seen_.replaces = true;
}

bool DirectorySettler::IsRoot(const std::string& path) const {
  return std::find(roots_.begin(), roots_.end(), path) != roots_.end();
}

Status DirectorySettler::Settle(const std::string& path, std::vector<std::string>& rescans) {
  if (listed_.contains(path)) return Status::Ok();
  const std::string* root = nullptr;
  for (const std::string& r : roots_) {
    if (PathUnder(path, r) && (!root || r.size() > root->size())) root = &r;
  }
  if (!root) return Status::Ok();
  // From the root down to `path`, each component must lead to the same object in both.
  for (size_t end = root->size();;) {
    const std::string prefix = path.substr(0, end);
    const bool last = end >= path.size();
    if (!last && matching_.contains(prefix)) {
      end = path.find('/', end + 1);
      if (end == std::string::npos) end = path.size();
      continue;
    }
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> node, catalog_.Stat(prefix));
    FATHOM_ASSIGN_OR_RETURN(std::optional<Attrs> live, ReadLiveAttrs(prefix));
    const bool same = node && live && S_ISDIR(live->mode) && SameObject(node->attrs, *live);
    if (!same) {
      // The name `prefix` leads elsewhere in the catalog: its parent, which matches, says
      // what it is now (a root: scanned again).
      if (IsRoot(prefix)) {
        if (live && S_ISDIR(live->mode)) rescans.push_back(prefix);
        return Status::Ok();
      }
      return Settle(ParentPath(prefix), rescans);
    }
    matching_.insert(prefix);
    if (last) return SettleListing(path, *node, *live, rescans);
    end = path.find('/', end + 1);
    if (end == std::string::npos) end = path.size();
  }
}

Status DirectorySettler::SettleListing(const std::string& path, const Node& dir, const Attrs& live,
                                       std::vector<std::string>& rescans) {
  listed_.insert(path);
  if (dir.parent == 0) {
    FATHOM_RETURN_IF_ERROR(batch_.PutRoot(path, live, seen_).status());
  } else {
    FATHOM_RETURN_IF_ERROR(batch_.Put(dir.parent, dir.name, live, seen_).status());
  }
  std::optional<std::vector<std::string>> names = LiveNames(path);
  if (!names) return Status::Ok();
  std::map<std::string, Attrs, std::less<>> held;
  FATHOM_RETURN_IF_ERROR(catalog_.Children(dir.id, [&](const Node& child) {
    held.emplace(child.name, child.attrs);
    return true;
  }));
  Removal removal;
  removal.time_ns = seen_.time_ns;
  std::set<std::string_view> present;
  for (const std::string& name : *names) {
    FATHOM_ASSIGN_OR_RETURN(std::optional<Attrs> attrs, ReadLiveAttrs(Join(path, name)));
    if (!attrs) continue;  // gone since the listing: as if not listed
    present.insert(name);
    const auto it = held.find(name);
    const bool same = it != held.end() && SameObject(it->second, *attrs);
    if (same && SameAsRead(it->second, *attrs)) continue;
    ++corrected_;
    if (describe_) describe_(-1, Join(path, name), *attrs);
    if (S_ISDIR(attrs->mode) && !same) {
      // A directory the catalog did not hold here: what lies below it is unknown.
      if (it != held.end()) FATHOM_RETURN_IF_ERROR(batch_.Remove(dir.id, name, removal));
      rescans.push_back(Join(path, name));
      continue;
    }
    FATHOM_ASSIGN_OR_RETURN(const EntryId put, batch_.Put(dir.id, name, *attrs, seen_));
    if (put == 0) {
      // Not put: the catalog held the object's inode number as the directory itself (given
      // to a file inside its replacement), and removed it. What is here now is scanned.
      FATHOM_ASSIGN_OR_RETURN(std::optional<Node> still, catalog_.Stat(path));
      if (!still || still->id != dir.id) {
        rescans.push_back(path);
        return Status::Ok();
      }
    }
  }
  for (const auto& [name, attrs] : held) {
    if (present.contains(name)) continue;
    ++corrected_;
    FATHOM_RETURN_IF_ERROR(batch_.Remove(dir.id, name, removal));
  }
  return Status::Ok();
}

}  // namespace fathom::catalog
