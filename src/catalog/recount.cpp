#include "catalog/recount.h"

#include <sys/stat.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

namespace fathom::catalog {
namespace {

std::string TotalsText(const Totals& t) {
  return "files " + std::to_string(t.files) + ", dirs " + std::to_string(t.dirs) + ", symlinks " +
         std::to_string(t.symlinks) + ", others " + std::to_string(t.others) + ", size " +
         std::to_string(t.size) + ", blocks " + std::to_string(t.blocks) + ", max_mtime " +
         std::to_string(t.max_mtime_ns);
}

// Kept totals agree with recomputed ones when every sum is equal and the kept max_mtime is
// not below the real one (it is a high-water mark).
bool Agree(const Totals& kept, const Totals& real) {
  Totals sums = kept;
  sums.max_mtime_ns = real.max_mtime_ns;
  return sums == real && kept.max_mtime_ns >= real.max_mtime_ns;
}

void CompareAcct(const std::vector<AcctRow>& kept, const std::map<AcctKey, AcctRow>& real,
                 std::vector<std::string>& out) {
  std::map<AcctKey, AcctRow> kept_by_key;
  for (const AcctRow& row : kept) kept_by_key[AcctKey{row.uid, row.gid, row.type}] = row;
  std::set<AcctKey> keys;
  for (const auto& [key, row] : kept_by_key) keys.insert(key);
  for (const auto& [key, row] : real) keys.insert(key);
  for (const AcctKey& key : keys) {
    AcctRow k{key.uid, key.gid, key.type, 0, 0, 0, {}};
    AcctRow r = k;
    if (auto it = kept_by_key.find(key); it != kept_by_key.end()) k = it->second;
    if (auto it = real.find(key); it != real.end()) r = it->second;
    if (k == r) continue;
    std::string what = "accounting uid=" + std::to_string(key.uid) + " gid=" + std::to_string(key.gid) +
                       " type=" + TypeName(key.type) + ":";
    if (k.count != r.count) what += " count " + std::to_string(k.count) + " != " + std::to_string(r.count);
    if (k.size != r.size) what += " size " + std::to_string(k.size) + " != " + std::to_string(r.size);
    if (k.blocks != r.blocks) what += " blocks " + std::to_string(k.blocks) + " != " + std::to_string(r.blocks);
    if (k.buckets != r.buckets) what += " size buckets differ";
    out.push_back(what);
  }
}

using DirName = std::tuple<EntryId, EntryId, std::string>;  // (directory, parent, name)

std::string DirNameText(const DirName& d) {
  return "'" + std::get<2>(d) + "' (directory " + std::to_string(std::get<0>(d)) + " in " +
         std::to_string(std::get<1>(d)) + ")";
}

// Compares the backend's table of directory names, where it keeps one, with the directories'
// names; true when they differ (each difference is added to `out`, the first 10 by name).
Result<bool> CompareDirectoryNames(CatalogBackend& backend, const std::set<DirName>& real,
                                   std::vector<std::string>& out) {
  std::set<DirName> kept;
  FATHOM_ASSIGN_OR_RETURN(bool keeps, backend.ForEachKeptDirectoryName([&](const NameRow& n) {
    kept.emplace(n.id, n.parent, n.name);
  }));
  if (!keeps || kept == real) return false;
  size_t listed = 0;
  for (const DirName& d : kept) {
    if (!real.contains(d) && listed++ < 10) out.push_back("directory name kept but not a name: " + DirNameText(d));
  }
  for (const DirName& d : real) {
    if (!kept.contains(d) && listed++ < 10) out.push_back("directory name missing from the kept ones: " + DirNameText(d));
  }
  if (listed > 10) out.push_back(std::to_string(listed - 10) + " more directory names differ");
  return true;
}

}  // namespace

Result<RecountReport> RecountStatistics(CatalogBackend& backend, bool repair) {
  RecountReport report;
  // One pass over the entries: each object's contribution and the accounting.
  std::unordered_map<EntryId, TotalsDelta> weight;
  std::unordered_map<EntryId, bool> is_dir;
  std::map<AcctKey, AcctRow> acct;
  FATHOM_RETURN_IF_ERROR(backend.ForEachEntry([&](const EntryRow& e) {
    ++report.entries;
    weight[e.id] = NameContribution(e.attrs);
    is_dir[e.id] = S_ISDIR(e.attrs.mode);
    AcctKey key = AcctKeyOf(e.attrs);
    AcctRow& row = acct.try_emplace(key, AcctRow{key.uid, key.gid, key.type, 0, 0, 0, {}}).first->second;
    row.count += 1;
    row.size += e.attrs.size;
    row.blocks += e.attrs.blocks;
    row.buckets[SizeBucket(e.attrs.size)] += 1;
  }));
  // Two passes over the names: where each directory hangs, then every name up its chain.
  std::unordered_map<EntryId, EntryId> parent_of;
  std::unordered_map<EntryId, uint32_t> name_count;
  std::set<DirName> dir_names;
  std::vector<std::string>& diff = report.differences;
  FATHOM_RETURN_IF_ERROR(backend.ForEachName([&](const NameRow& n) {
    ++report.names;
    ++name_count[n.id];
    if (!weight.contains(n.id)) {
      diff.push_back("name '" + n.name + "' in directory " + std::to_string(n.parent) +
                     " leads to entry " + std::to_string(n.id) + ", which does not exist");
    } else if (is_dir[n.id]) {
      parent_of[n.id] = n.parent;
      dir_names.emplace(n.id, n.parent, n.name);
    }
  }));
  FATHOM_ASSIGN_OR_RETURN(const bool dirs_differ, CompareDirectoryNames(backend, dir_names, diff));
  std::unordered_map<EntryId, Totals> tree;
  for (const auto& [id, dir] : is_dir) {
    if (dir) tree[id] = Totals{};
  }
  FATHOM_RETURN_IF_ERROR(backend.ForEachName([&](const NameRow& n) {
    auto w = weight.find(n.id);
    if (w == weight.end()) return;
    EntryId dir = is_dir[n.id] ? n.id : n.parent;
    for (size_t depth = 0; dir != 0 && depth <= parent_of.size(); ++depth) {
      auto t = tree.find(dir);
      if (t == tree.end()) break;
      Apply(w->second, t->second);
      auto up = parent_of.find(dir);
      dir = up == parent_of.end() ? 0 : up->second;
    }
  }));
  for (const auto& [id, dir] : is_dir) {
    if (!name_count.contains(id)) diff.push_back("entry " + std::to_string(id) + " has no name");
  }

  FATHOM_ASSIGN_OR_RETURN(std::vector<AcctRow> kept_acct, backend.Accounting());
  CompareAcct(kept_acct, acct, diff);

  std::map<EntryId, Totals> kept_tree;
  FATHOM_RETURN_IF_ERROR(backend.ForEachTree([&](EntryId id, const Totals& t) { kept_tree[id] = t; }));
  for (const auto& [id, real] : tree) {
    auto it = kept_tree.find(id);
    Totals kept = it == kept_tree.end() ? Totals{} : it->second;
    if (!Agree(kept, real)) {
      diff.push_back("subtree of directory " + std::to_string(id) + ": kept " + TotalsText(kept) +
                     "; recounted " + TotalsText(real));
    }
  }
  for (const auto& [id, kept] : kept_tree) {
    if (!tree.contains(id)) diff.push_back("subtree totals kept for " + std::to_string(id) + ", not a directory entry");
  }

  std::set<EntryId> multi;
  for (const auto& [id, count] : name_count) {
    if (count > 1) multi.insert(id);
  }
  FATHOM_ASSIGN_OR_RETURN(std::vector<EntryId> kept_multi, backend.MultiEntries());
  if (std::set<EntryId>(kept_multi.begin(), kept_multi.end()) != multi) {
    diff.push_back("the objects with several names differ: " + std::to_string(kept_multi.size()) +
                   " kept, " + std::to_string(multi.size()) + " recounted");
  }

  if (repair && !report.ok()) {
    std::vector<AcctRow> acct_rows;
    for (const auto& [key, row] : acct) acct_rows.push_back(row);
    std::vector<std::pair<EntryId, Totals>> tree_rows(tree.begin(), tree.end());
    FATHOM_RETURN_IF_ERROR(backend.BeginWrite());
    Status status = backend.ReplaceStatistics(acct_rows, tree_rows,
                                              std::vector<EntryId>(multi.begin(), multi.end()));
    if (status.ok() && dirs_differ) status = backend.RefillDirectoryNames();
    if (status.ok()) status = backend.CommitWrite();
    if (!status.ok()) {
      backend.RollbackWrite();
      return status;
    }
  }
  return report;
}

}  // namespace fathom::catalog
