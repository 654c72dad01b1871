// triggers.cpp — EvaluateTrigger: usages measured (statvfs, the catalog's accounting, its
// Lustre layouts) and compared with a trigger's marks.
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cmath>
#include <map>
#include <set>

#include "catalog/report/report_table.h"
#include "core/account_names.h"
#include "fathom/policy.h"

namespace fathom::policy {
namespace {

// One usage: its value in each unit a threshold may take.
struct Usage {
  int64_t bytes = 0;
  uint64_t entries = 0;
  std::optional<int64_t> capacity;  // bytes, for percentages
};

std::string Shown(const Threshold& t) {
  switch (t.unit) {
    case Threshold::Unit::kPercent: return std::to_string(static_cast<int64_t>(t.value)) + "%";
    case Threshold::Unit::kEntries: return std::to_string(static_cast<uint64_t>(t.value)) + " entries";
    case Threshold::Unit::kBytes: return catalog::report::FormatFileSize(static_cast<uint64_t>(t.value));
  }
  return {};
}

// The firing for `usage` of `what` when at or over the high mark.
std::optional<Firing> Compare(const Trigger& t, const Usage& u, const std::string& what, std::string target) {
  Firing f;
  f.target = std::move(target);
  std::string now;
  switch (t.high->unit) {
    case Threshold::Unit::kPercent: {
      if (!u.capacity || *u.capacity <= 0) return std::nullopt;
      const double pct = 100.0 * static_cast<double>(u.bytes) / static_cast<double>(*u.capacity);
      if (pct < t.high->value) return std::nullopt;
      if (t.low) {
        f.goal_volume = u.bytes - static_cast<int64_t>(std::floor(t.low->value / 100.0 * static_cast<double>(*u.capacity)));
      }
      char text[32];
      std::snprintf(text, sizeof text, "%.1f%%", pct);
      now = text;
      break;
    }
    case Threshold::Unit::kBytes:
      if (static_cast<double>(u.bytes) < t.high->value) return std::nullopt;
      if (t.low) f.goal_volume = u.bytes - static_cast<int64_t>(t.low->value);
      now = catalog::report::FormatFileSize(static_cast<uint64_t>(u.bytes));
      break;
    case Threshold::Unit::kEntries:
      if (static_cast<double>(u.entries) < t.high->value) return std::nullopt;
      if (t.low) f.goal_count = u.entries - static_cast<uint64_t>(t.low->value);
      now = std::to_string(u.entries) + " entries";
      break;
  }
  f.why = what + ": " + now + ", at or over " + Shown(*t.high) + (t.low ? " (down to " + Shown(*t.low) + ")" : "");
  return f;
}

// The file system holding `path`, as df sees it.
Result<Usage> FileSystemUsage(const std::string& path) {
  struct statvfs vfs {};
  if (statvfs(path.c_str(), &vfs) != 0) return Status::FromErrno(errno, "cannot measure the file system of " + path);
  Usage u;
  const int64_t unit = static_cast<int64_t>(vfs.f_frsize);
  u.bytes = static_cast<int64_t>(vfs.f_blocks - vfs.f_bfree) * unit;
  u.capacity = u.bytes + static_cast<int64_t>(vfs.f_bavail) * unit;
  u.entries = vfs.f_files - vfs.f_ffree;
  return u;
}

Result<std::vector<std::string>> Roots(const Trigger& t, catalog::Catalog& catalog) {
  if (t.on == Trigger::On::kGlobalUsage && !t.targets.empty()) return t.targets;
  FATHOM_ASSIGN_OR_RETURN(catalog::CatalogInfo info, catalog.Info());
  if (info.roots.empty()) return Status::Error("the catalog holds no root yet: scan a file system into it first");
  return info.roots;
}

bool Wanted(const Trigger& t, const std::string& id, const std::optional<std::string>& name) {
  if (t.targets.empty()) return true;
  for (const std::string& w : t.targets) {
    if (w == id || (name && w == *name)) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<Firing>> EvaluateTrigger(const Trigger& t, catalog::Catalog& catalog) {
  std::vector<Firing> out;
  if (t.on == Trigger::On::kPeriodic) {
    out.push_back({"", std::nullopt, std::nullopt, "periodic"});
    return out;
  }
  FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> roots, Roots(t, catalog));
  if (t.on == Trigger::On::kGlobalUsage) {
    std::map<dev_t, bool> seen;
    for (const std::string& root : roots) {
      struct stat st {};
      if (stat(root.c_str(), &st) == 0 && !seen.emplace(st.st_dev, true).second) continue;
      FATHOM_ASSIGN_OR_RETURN(Usage u, FileSystemUsage(root));
      if (auto f = Compare(t, u, "file system of " + root, "path:" + root)) out.push_back(std::move(*f));
    }
    return out;
  }
  if (t.on == Trigger::On::kUserUsage || t.on == Trigger::On::kGroupUsage) {
    const bool user = t.on == Trigger::On::kUserUsage;
    FATHOM_ASSIGN_OR_RETURN(Usage fs, FileSystemUsage(roots.front()));
    std::map<uint32_t, Usage> by;
    FATHOM_ASSIGN_OR_RETURN(std::vector<catalog::AcctRow> rows, catalog.Accounting());
    for (const catalog::AcctRow& r : rows) {
      Usage& u = by[user ? r.uid : r.gid];
      u.bytes += r.size;
      u.entries += r.count;
      u.capacity = t.capacity ? t.capacity : fs.capacity;
    }
    NameCache names;
    for (const auto& [id, u] : by) {
      const std::optional<std::string> name = user ? names.UserName(id) : names.GroupName(id);
      if (!Wanted(t, std::to_string(id), name)) continue;
      const std::string shown = name.value_or(std::to_string(id));
      if (auto f = Compare(t, u, std::string(user ? "user " : "group ") + shown,
                           std::string(user ? "user:" : "group:") + shown)) {
        out.push_back(std::move(*f));
      }
    }
    return out;
  }
  // OSTs and pools: from the Lustre layouts the catalog holds.
  const bool ost = t.on == Trigger::On::kOstUsage;
  std::map<std::string, Usage> by;
  std::set<catalog::EntryId> linked;  // an object with several names counts once
  FATHOM_RETURN_IF_ERROR(catalog.Select({}, [&](const catalog::Visit& v) {
    const auto& l = v.node.attrs.lustre;
    if (!l || !S_ISREG(v.node.attrs.mode)) return true;
    if (v.node.attrs.nlink > 1 && !linked.insert(v.node.id).second) return true;
    if (ost) {
      for (uint32_t index : l->osts) {
        Usage& u = by[std::to_string(index)];
        u.bytes += v.node.attrs.size / static_cast<int64_t>(l->osts.size());
        u.entries += 1;
      }
    } else if (!l->pool.empty()) {
      Usage& u = by[l->pool];
      u.bytes += v.node.attrs.size;
      u.entries += 1;
    }
    return true;
  }));
  for (auto& [key, u] : by) {
    if (!Wanted(t, key, std::nullopt)) continue;
    u.capacity = t.capacity;
    if (auto f = Compare(t, u, std::string(ost ? "OST " : "pool ") + key, std::string(ost ? "ost:" : "pool:") + key)) {
      out.push_back(std::move(*f));
    }
  }
  return out;
}

}  // namespace fathom::policy
