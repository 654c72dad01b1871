// Long random sequences of Put / Remove / Move (hard links, nested directories, renames across
// levels, replacements, missed renames, attribute changes) applied both to a catalog and to a
// plain in-memory model of the namespace; after every commit the catalog's walk, subtree
// totals, du usage, accounting and removed count must equal what the model computes, and a
// recount must find nothing to correct. Built twice: on SQLite (catalog_model_test) and on
// PostgreSQL (catalog_model_pg_test, catalog_test_target.h), where every change also goes to a
// SQLite catalog and the two must answer Stat, Children, Subtree, Usage, Accounting and
// Removed exactly alike.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "catalog/catalog_test_target.h"
#include "catalog/catalog_test_util.h"
#include "catalog/tee_batch.h"
#include "catalog/freshness.h"
#include "support/temp_dir.h"

namespace fathom::catalog {
namespace {

using testing::DirAttrs;
using testing::FileAttrs;

constexpr uint64_t kRootIno = 1;

// The namespace as plain maps, keyed by inode number.
struct Model {
  std::map<uint64_t, Attrs> objects;
  std::map<std::pair<uint64_t, std::string>, uint64_t> names;  // (dir ino, name) -> ino
  uint64_t removed = 0;

  bool IsDir(uint64_t ino) const { return S_ISDIR(objects.at(ino).mode); }
  std::vector<std::pair<uint64_t, std::string>> NamesOf(uint64_t ino) const {
    std::vector<std::pair<uint64_t, std::string>> out;
    for (const auto& [key, target] : names) {
      if (target == ino) out.push_back(key);
    }
    return out;
  }
  std::vector<std::pair<std::string, uint64_t>> Children(uint64_t dir) const {
    std::vector<std::pair<std::string, uint64_t>> out;
    for (auto it = names.lower_bound({dir, ""}); it != names.end() && it->first.first == dir; ++it) {
      out.emplace_back(it->first.second, it->second);
    }
    return out;
  }
  uint64_t ParentOf(uint64_t dir) const {
    auto n = NamesOf(dir);
    return n.empty() ? 0 : n.front().first;
  }
  bool Holds(uint64_t ancestor, uint64_t dir) const {
    for (; dir != 0; dir = ParentOf(dir)) {
      if (dir == ancestor) return true;
    }
    return false;
  }
  // Removes a name and, below a directory, everything; objects left without names are gone.
  void RemoveName(uint64_t parent, const std::string& name) {
    uint64_t ino = names.at({parent, name});
    names.erase({parent, name});
    if (IsDir(ino)) {
      for (const auto& [child, child_ino] : Children(ino)) RemoveName(ino, child);
    }
    if (NamesOf(ino).empty()) {
      objects.erase(ino);
      ++removed;
    }
  }
  // Subtree totals per name (what Catalog::Subtree keeps), or du's once-per-object count.
  Totals Sum(uint64_t dir, bool once) const {
    Totals t;
    std::set<uint64_t> counted;
    std::vector<uint64_t> stack{dir};
    auto add = [&](uint64_t ino) {
      if (once && !counted.insert(ino).second) return;
      const Attrs& a = objects.at(ino);
      switch (a.mode & S_IFMT) {
        case S_IFREG: ++t.files; break;
        case S_IFDIR: ++t.dirs; break;
        case S_IFLNK: ++t.symlinks; break;
        default: ++t.others; break;
      }
      t.size += a.size;
      t.blocks += a.blocks;
      t.max_mtime_ns = std::max(t.max_mtime_ns, a.mtime_ns);
    };
    add(dir);
    while (!stack.empty()) {
      uint64_t d = stack.back();
      stack.pop_back();
      for (const auto& [name, ino] : Children(d)) {
        add(ino);
        if (IsDir(ino)) stack.push_back(ino);
      }
    }
    return t;
  }
  // Pre-order "path ino size" lines; `paths` gathers every path of each object.
  void Walk(uint64_t dir, const std::string& path, std::vector<std::string>& out,
            std::map<uint64_t, std::vector<std::string>>& paths) const {
    for (const auto& [name, ino] : Children(dir)) {
      std::string child = path + "/" + name;
      out.push_back(child + " " + std::to_string(ino) + " " + std::to_string(objects.at(ino).size));
      paths[ino].push_back(child);
      if (IsDir(ino)) Walk(ino, child, out, paths);
    }
  }
};

class ModelTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    catalog_ = testing::OpenCatalogOrDie(testing::NewCatalogUri(dir_, "catalog"));
    ASSERT_NE(catalog_, nullptr);
    if (testing::kPostgresTarget) {
      reference_ = testing::OpenCatalogOrDie(testing::NewSqliteUri(dir_, "reference"));
      ASSERT_NE(reference_, nullptr);
    }
    rng_.seed(GetParam());
  }

  // A batch on the catalog, and on the reference catalog when there is one.
  std::unique_ptr<Batch> Begin() {
    auto batch = catalog_->Begin();
    EXPECT_TRUE(batch.ok()) << batch.status().message();
    if (reference_ == nullptr || !batch.ok()) return batch.ok() ? std::move(batch).value() : nullptr;
    auto reference = reference_->Begin();
    EXPECT_TRUE(reference.ok()) << reference.status().message();
    return std::make_unique<testing::TeeBatch>(std::move(batch).value(), std::move(reference).value());
  }

  int64_t Tick() { return clock_ += 1000; }
  uint64_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  std::string RandomName() { return "n" + std::to_string(Pick(30)); }
  std::vector<uint64_t> Dirs() const {
    std::vector<uint64_t> dirs;
    for (const auto& [ino, attrs] : model_.objects) {
      if (S_ISDIR(attrs.mode)) dirs.push_back(ino);
    }
    return dirs;
  }
  // An existing name other than the root's: (dir, name).
  std::optional<std::pair<uint64_t, std::string>> ExistingName() {
    std::vector<std::pair<uint64_t, std::string>> all;
    for (const auto& [key, ino] : model_.names) {
      if (key.first != 0) all.push_back(key);
    }
    if (all.empty()) return std::nullopt;
    return all[Pick(all.size())];
  }
  Attrs NewAttrs(uint64_t ino, int kind) {
    int64_t size = static_cast<int64_t>(Pick(5) == 0 ? Pick(1 << 22) : Pick(3000));
    uint32_t uid = 1000 + static_cast<uint32_t>(Pick(3));
    Attrs a = kind == 0 ? DirAttrs(ino, uid, Tick()) : FileAttrs(ino, size, uid, kind == 2 ? 2 : 1, Tick());
    if (kind == 3) {
      a.mode = S_IFLNK | 0777;
      a.symlink = "target" + std::to_string(ino);
      a.size = static_cast<int64_t>(a.symlink.size());
      a.blocks = 0;
    }
    return a;
  }

  // One random operation, on the batch and on the model.
  void Step(Batch& b) {
    uint64_t op = Pick(100);
    std::vector<uint64_t> dirs = Dirs();
    uint64_t dir = dirs[Pick(dirs.size())];
    if (op < 45) {  // a new object (directory, file, linkable file, symlink), maybe replacing
      uint64_t ino = next_ino_++;
      Attrs a = NewAttrs(ino, static_cast<int>(Pick(4)));
      Put(b, dir, RandomName(), a);
    } else if (op < 57) {  // one more name of a linkable file
      std::vector<uint64_t> linkable;
      for (const auto& [ino, attrs] : model_.objects) {
        if (S_ISREG(attrs.mode) && attrs.nlink > 1) linkable.push_back(ino);
      }
      if (linkable.empty()) return;
      uint64_t ino = linkable[Pick(linkable.size())];
      std::string name = RandomName();
      auto at = model_.names.find({dir, name});
      if (at != model_.names.end() && model_.IsDir(at->second) && model_.Holds(at->second, dir)) return;
      Attrs a = model_.objects.at(ino);
      a.ctime_ns = Tick();
      Put(b, dir, name, a);
    } else if (op < 67) {  // new attributes
      auto name = ExistingName();
      if (!name) return;
      uint64_t ino = model_.names.at(*name);
      Attrs a = model_.objects.at(ino);
      a.size = static_cast<int64_t>(Pick(100000));
      a.blocks = (a.size + 511) / 512;
      a.uid = 1000 + static_cast<uint32_t>(Pick(3));
      a.mtime_ns = Tick();
      Put(b, name->first, name->second, a);
    } else if (op < 75) {  // a rename the catalog missed, seen by a scan
      auto name = ExistingName();
      if (!name) return;
      uint64_t ino = model_.names.at(*name);
      Attrs a = model_.objects.at(ino);
      if (a.nlink > 1 || model_.NamesOf(ino).size() != 1) return;
      if (model_.IsDir(ino) && model_.Holds(ino, dir)) return;
      std::string target = RandomName();
      auto at = model_.names.find({dir, target});
      if (at != model_.names.end() && at->second != ino && model_.IsDir(at->second) &&
          model_.Holds(at->second, name->first)) {
        return;
      }
      Put(b, dir, target, a);
    } else if (op < 85) {  // a removal (of a populated directory, now and then)
      auto name = ExistingName();
      if (!name) return;
      uint64_t ino = model_.names.at(*name);
      if (model_.IsDir(ino) && !model_.Children(ino).empty() && Pick(4) != 0) return;
      ASSERT_TRUE(b.Remove(id_.at(name->first), name->second, Removal{Tick(), 1, {}, {}}).ok());
      model_.RemoveName(name->first, name->second);
    } else {  // a rename, across levels, maybe over another name
      auto name = ExistingName();
      if (!name) return;
      uint64_t ino = model_.names.at(*name);
      if (model_.IsDir(ino) && model_.Holds(ino, dir)) return;
      std::string target = RandomName();
      auto at = model_.names.find({dir, target});
      if (at != model_.names.end() && model_.IsDir(at->second) && model_.Holds(at->second, name->first)) return;
      ASSERT_TRUE(b.Move(id_.at(name->first), name->second, id_.at(dir), target, testing::At(Tick()),
                         Removal{clock_, 2, {}, {}}).ok());
      if (at != model_.names.end() && at->second == ino) return;  // rename(2) onto its own link
      if (*name == std::make_pair(dir, target)) return;
      if (at != model_.names.end()) model_.RemoveName(dir, target);
      model_.names.erase(*name);
      model_.names[{dir, target}] = ino;
    }
  }

  void Put(Batch& b, uint64_t dir, const std::string& name, const Attrs& a) {
    auto put = b.Put(id_.at(dir), name, a, testing::At(Tick()));
    ASSERT_TRUE(put.ok()) << put.status().message();
    auto at = model_.names.find({dir, name});
    bool known = model_.objects.contains(a.ino);
    if (at != model_.names.end() && at->second != a.ino) model_.RemoveName(dir, name);
    if (known && !model_.NamesOf(a.ino).empty() && (S_ISDIR(a.mode) || a.nlink <= 1)) {
      auto from = model_.NamesOf(a.ino);
      if (from.front() != std::make_pair(dir, name)) {
        model_.names.erase(from.front());
      }
    }
    model_.objects[a.ino] = a;
    model_.names[{dir, name}] = a.ino;
    id_[a.ino] = put.value();
  }

  void Compare() {
    std::vector<std::string> expected;
    std::map<uint64_t, std::vector<std::string>> paths;
    model_.Walk(kRootIno, "/m", expected, paths);
    for (auto& [ino, list] : paths) {
      if (list.size() < 2) continue;
      std::sort(list.begin(), list.end());
      EXPECT_EQ(catalog_->Paths(id_.at(ino)).value(), list) << "paths of " << ino;
    }
    std::vector<std::string> walked;
    std::map<uint64_t, EntryId> dirs;
    ASSERT_TRUE(catalog_->Walk("/m", [&](const Visit& v) {
      if (v.depth > 0) {
        walked.push_back(std::string(v.path) + " " + std::to_string(v.node.attrs.ino) + " " +
                         std::to_string(v.node.attrs.size));
      }
      EXPECT_EQ(v.node.attrs, model_.objects.at(v.node.attrs.ino)) << v.path;
      if (S_ISDIR(v.node.attrs.mode)) dirs[v.node.attrs.ino] = v.node.id;
      return WalkStep::kContinue;
    }).ok());
    ASSERT_EQ(walked, expected);
    for (const auto& [ino, id] : dirs) {
      Totals kept = catalog_->Subtree(id).value();
      Totals real = model_.Sum(ino, false);
      EXPECT_GE(kept.max_mtime_ns, real.max_mtime_ns) << "subtree of " << ino;
      kept.max_mtime_ns = real.max_mtime_ns;
      EXPECT_EQ(kept, real) << "subtree of " << ino;
      Totals du = catalog_->Usage(id, false).value();
      Totals du_real = model_.Sum(ino, true);
      du.max_mtime_ns = du_real.max_mtime_ns;
      EXPECT_EQ(du, du_real) << "usage of " << ino;
    }
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, AcctRow> acct;
    for (const auto& [ino, a] : model_.objects) {
      uint32_t type = a.mode & S_IFMT;
      AcctRow& row = acct.try_emplace({a.uid, a.gid, type}, AcctRow{a.uid, a.gid, type, 0, 0, 0, {}}).first->second;
      ++row.count;
      row.size += a.size;
      row.blocks += a.blocks;
      ++row.buckets[SizeBucket(a.size)];
    }
    std::vector<AcctRow> expected_acct;
    for (const auto& [key, row] : acct) expected_acct.push_back(row);
    EXPECT_EQ(catalog_->Accounting().value(), expected_acct);
    CatalogInfo info = catalog_->Info().value();
    EXPECT_EQ(info.entries, model_.objects.size());
    EXPECT_EQ(info.names, model_.names.size());
    EXPECT_EQ(info.removed, model_.removed);
    RecountReport report = catalog_->Recount(false).value();
    EXPECT_TRUE(report.ok()) << (report.differences.empty() ? "" : report.differences.front());
    CompareWithReference();
  }

  static std::vector<std::string> ChildList(Catalog& catalog, EntryId dir) {
    std::vector<std::string> out;
    EXPECT_TRUE(catalog.Children(dir, [&](const Node& n) {
      out.push_back(n.name + " " + std::to_string(n.id) + " " + std::to_string(n.attrs.ino) + " " +
                    std::to_string(n.attrs.size) + " " + std::to_string(n.attrs.mtime_ns));
      return true;
    }).ok());
    return out;
  }
  static std::vector<std::string> RemovedList(Catalog& catalog) {
    std::vector<std::string> out;
    EXPECT_TRUE(catalog.Removed("", 0, [&](const RemovedEntry& r) {
      out.push_back(r.path + " " + std::to_string(r.attrs.ino) + " " + std::to_string(r.removal.time_ns));
      return true;
    }).ok());
    return out;
  }

  // The catalog and the reference, given the same changes, answer alike.
  void CompareWithReference() {
    if (reference_ == nullptr) return;
    std::vector<std::string> paths;
    std::vector<EntryId> dirs;
    ASSERT_TRUE(catalog_->Walk("/m", [&](const Visit& v) {
      paths.emplace_back(v.path);
      if (S_ISDIR(v.node.attrs.mode)) dirs.push_back(v.node.id);
      return WalkStep::kContinue;
    }).ok());
    for (const std::string& path : paths) {
      std::optional<Node> tested = catalog_->Stat(path).value();
      std::optional<Node> reference = reference_->Stat(path).value();
      ASSERT_TRUE(tested.has_value() && reference.has_value()) << path;
      EXPECT_EQ(std::tie(tested->id, tested->parent, tested->name),
                std::tie(reference->id, reference->parent, reference->name)) << path;
      EXPECT_EQ(tested->attrs, reference->attrs) << path;
    }
    for (EntryId dir : dirs) {
      EXPECT_EQ(ChildList(*catalog_, dir), ChildList(*reference_, dir)) << "children of " << dir;
      EXPECT_EQ(catalog_->Subtree(dir).value(), reference_->Subtree(dir).value()) << "subtree of " << dir;
      for (bool links : {false, true}) {
        EXPECT_EQ(catalog_->Usage(dir, links).value(), reference_->Usage(dir, links).value()) << "usage of " << dir;
      }
    }
    EXPECT_EQ(catalog_->Accounting().value(), reference_->Accounting().value());
    EXPECT_EQ(RemovedList(*catalog_), RemovedList(*reference_));
  }

  fathom::testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<Catalog> reference_;  // SQLite, beside a catalog of another backend
  std::mt19937 rng_;
  Model model_;
  std::map<uint64_t, EntryId> id_;  // model inode -> catalog entry
  uint64_t next_ino_ = kRootIno + 1;
  int64_t clock_ = NowNs();
};

TEST_P(ModelTest, RandomChangesKeepEveryStatisticEqualToTheModel) {
  {
    auto b = Begin();
    Attrs root = DirAttrs(kRootIno, 0, Tick());
    id_[kRootIno] = b->PutRoot("/m", root, testing::At(clock_)).value();
    model_.objects[kRootIno] = root;
    model_.names[{0, "/m"}] = kRootIno;
    ASSERT_TRUE(b->Commit().ok());
  }
  for (int commit = 0; commit < 80; ++commit) {
    auto b = Begin();
    int steps = 1 + static_cast<int>(Pick(40));
    for (int i = 0; i < steps; ++i) {
      ASSERT_NO_FATAL_FAILURE(Step(*b)) << "commit " << commit << " step " << i;
    }
    ASSERT_TRUE(b->Commit().ok());
    ASSERT_NO_FATAL_FAILURE(Compare()) << "after commit " << commit;
    if (HasFailure()) return;
  }
  EXPECT_GT(model_.removed, 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ModelTest, ::testing::Values(1u, 2u, 3u, 4u));

}  // namespace
}  // namespace fathom::catalog
