// find.cpp — the driver: starting points, walk or index selection, depth rules, order.
#include "catalog/find/find.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include "core/account_names.h"
#include "catalog/find/output_format.h"
#include "catalog/find/parser.h"

namespace fathom::catalog::find {
namespace {

// An entry kept for later evaluation (post-order, sorting).
struct Held {
  Node node;
  std::string abs_path;
  int depth = 0;
  std::string start;   // the starting point it was found under, as given
};


bool HasSideEffects(const ExprNode& n) {
  if (n.kind == ExprNode::Kind::kPredicate) return n.predicate->HasSideEffects();
  return (n.left && HasSideEffects(*n.left)) || (n.right && HasSideEffects(*n.right));
}

// Narrows `sel` with the tests of the top-level conjunction evaluated before anything with
// effects; true when something was narrowed.
bool NarrowConjunction(const ExprNode& n, Selection& sel, bool& blocked) {
  if (blocked) return false;
  if (n.kind == ExprNode::Kind::kAnd) {
    bool l = NarrowConjunction(*n.left, sel, blocked);
    bool r = NarrowConjunction(*n.right, sel, blocked);
    return l || r;
  }
  if (HasSideEffects(n)) {
    blocked = true;
    return false;
  }
  return n.kind == ExprNode::Kind::kPredicate && n.predicate->Narrow(sel);
}

// Whether `sel` bounds an attribute the catalog indexes (owner, group, size, mtime): a type
// alone selects most of a tree, which a walk reads faster.
bool Indexed(const Selection& sel) {
  return sel.uid || sel.gid || sel.min_size || sel.max_size || sel.min_mtime_ns ||
         sel.max_mtime_ns;
}

// A key whose byte order (std::string's, unsigned) is the walk's order of paths: pre-order, a
// directory's names in byte order. '/' sorts before every byte a name can hold, so it becomes
// NUL, which no name holds.
std::string WalkOrderKey(std::string_view path) {
  std::string key(path);
  std::replace(key.begin(), key.end(), '/', '\0');
  return key;
}

int64_t SortKey(const Attrs& a, SortField f) {
  switch (f) {
    case SortField::kSize: return a.size;
    case SortField::kMtime: return a.mtime_ns;
    case SortField::kAtime: return a.atime_ns;
    case SortField::kCtime: return a.ctime_ns;
    case SortField::kUid: return a.uid;
    case SortField::kGid: return a.gid;
    default: return 0;
  }
}

class Runner {
 public:
  Runner(Expression& expr, Catalog& catalog, EvalContext& ctx, uint64_t select_below)
      : expr_(expr), catalog_(catalog), ctx_(ctx), select_below_(select_below) {}

  void RunStart(const std::string& start, const std::string& abs) {
    start_ = start;
    abs_ = abs;
    auto root = catalog_.Stat(abs);
    if (!root.ok() || !root->has_value()) {
      *ctx_.err << "fathom find: '" << start << "': "
                << (root.ok() ? "not in the catalog (scan it, or check the path)" : root.status().message()) << "\n";
      ctx_.exit_status = 1;
      return;
    }
    start_dev_ = (*root)->attrs.dev;
    const GlobalOptions& o = expr_.options;
    Selection sel;
    bool blocked = false;
    if (!o.sort && !expr_.needs_walk && !o.xdev && NarrowConjunction(*expr_.root, sel, blocked) &&
        Indexed(sel) && FewEnough(sel)) {
      // The candidates, evaluated in the walk's order (the same output as a walk). The
      // starting point is one whatever its name (the name tests see the catalog's names, and
      // it is printed as given).
      struct Selected {
        std::string path;
        Node node;
        int depth;
      };
      std::vector<Selected> selected;
      if (o.min_depth == 0) selected.push_back({abs, **root, 0});
      Report(catalog_.Select(sel, [&](const Visit& v) {
        auto depth = DepthBelow(v.path);
        if (depth && *depth > 0 && *depth >= o.min_depth && (o.max_depth < 0 || *depth <= o.max_depth)) {
          selected.push_back({std::string(v.path), v.node, *depth});
        }
        return true;
      }));
      // Sorted by keys in the walk's order (WalkOrderKey), not by moving the entries.
      std::vector<std::pair<std::string, size_t>> order;
      order.reserve(selected.size());
      for (size_t i = 0; i < selected.size(); ++i) order.emplace_back(WalkOrderKey(selected[i].path), i);
      std::sort(order.begin(), order.end());
      for (const auto& [key, i] : order) {
        const Selected& s = selected[i];
        if (!Evaluate(s.node, Printed(s.path), s.path, s.depth, start_)) break;
      }
      return;
    }
    auto visit = [&](const Visit& v) { return FromWalk(v); };
    Report(ModeSuffices() ? catalog_.WalkModes(abs, visit) : catalog_.Walk(abs, visit));
    FlushHeld(-1);
  }

  // Whether the walk needs nothing but names, ids and modes: every predicate says so, and
  // neither -xdev (the device) nor -sort (a sort key) needs more.
  bool ModeSuffices() const {
    return !expr_.options.xdev && !expr_.options.sort &&
           std::all_of(expr_.predicates.begin(), expr_.predicates.end(),
                       [](const Predicate* p) { return p->ModeSuffices(); });
  }

  // Whether `sel` leaves few enough candidates for selecting to read less than walking.
  bool FewEnough(const Selection& sel) {
    if (!catalog_objects_) {
      auto objects = catalog_.CountSelected(Selection{}, UINT64_MAX);
      catalog_objects_ = objects.ok() ? *objects : 0;
    }
    const uint64_t limit = std::max<uint64_t>(select_below_, *catalog_objects_ / 16);
    auto count = catalog_.CountSelected(sel, limit);
    return count.ok() && *count < limit;
  }

  // -sort/-rsort: evaluates what the walks collected, in order.
  void RunSorted() {
    SortField f = *expr_.options.sort;
    std::stable_sort(sorted_.begin(), sorted_.end(), [&](const auto& x, const auto& y) {
      if (f == SortField::kName || f == SortField::kPath) {
        std::string_view a = f == SortField::kName ? BaseName(x.first, true) : x.first;
        std::string_view b = f == SortField::kName ? BaseName(y.first, true) : y.first;
        return a != b ? (a < b) != expr_.options.reverse : x.first < y.first;
      }
      int64_t a = SortKey(x.second.node.attrs, f), b = SortKey(y.second.node.attrs, f);
      return a != b ? (a < b) != expr_.options.reverse : x.first < y.first;
    });
    for (auto& [path, held] : sorted_) {
      if (Stopped()) break;
      Evaluate(held.node, path, held.abs_path, held.depth, held.start);
    }
  }

  uint64_t matches() const { return matches_; }

 private:
  bool Stopped() const { return ctx_.quit || (expr_.options.limit && matches_ >= *expr_.options.limit); }

  void Report(const Status& s) {
    if (s.ok()) return;
    *ctx_.err << "fathom find: '" << start_ << "': " << s.message() << "\n";
    ctx_.exit_status = 1;
  }

  std::string Printed(std::string_view abs_path) const {
    if (abs_path.size() <= abs_.size()) return start_;
    std::string_view rest = abs_path.substr(abs_.size());
    if (!rest.empty() && rest[0] == '/') rest.remove_prefix(1);
    std::string p = start_;
    if (p.empty() || p.back() != '/') p += '/';
    p.append(rest);
    return p;
  }

  // Whether `abs_path` is the starting point or below it; its depth there.
  std::optional<int> DepthBelow(std::string_view abs_path) const {
    if (abs_path == abs_) return 0;
    std::string_view prefix = abs_;
    if (prefix != "/") {
      if (abs_path.size() <= prefix.size() || abs_path.substr(0, prefix.size()) != prefix || abs_path[prefix.size()] != '/')
        return std::nullopt;
    } else if (abs_path.empty() || abs_path[0] != '/') {
      return std::nullopt;
    }
    std::string_view rest = abs_path.substr(prefix == "/" ? 1 : prefix.size() + 1);
    return 1 + static_cast<int>(std::count(rest.begin(), rest.end(), '/'));
  }

  bool Evaluate(const Node& node, const std::string& printed, std::string_view abs_path, int depth,
                std::string_view start) {
    Entry e{node, printed, abs_path, start, depth};
    ctx_.prune = false;
    if (find::Evaluate(*expr_.root, e, ctx_)) ++matches_;
    return !Stopped();
  }

  WalkStep FromWalk(const Visit& v) {
    const GlobalOptions& o = expr_.options;
    FlushHeld(v.depth);
    if (Stopped()) return WalkStep::kStop;
    bool is_dir = S_ISDIR(v.node.attrs.mode);
    bool descend = is_dir && (o.max_depth < 0 || v.depth < o.max_depth) &&
                   !(o.xdev && v.node.attrs.dev != start_dev_);
    if (v.depth >= o.min_depth) {
      if (o.sort) {
        sorted_.emplace_back(Printed(v.path), Held{v.node, std::string(v.path), v.depth, start_});
      } else if (o.depth_first && descend) {
        held_.push_back(Held{v.node, std::string(v.path), v.depth, start_});
      } else {
        if (!Evaluate(v.node, Printed(v.path), v.path, v.depth, start_)) return WalkStep::kStop;
        if (ctx_.prune && !o.depth_first) descend = false;
      }
    }
    return descend ? WalkStep::kContinue : WalkStep::kSkipChildren;
  }

  // Post-order: evaluates the held directories whose subtrees are complete (depth >= d;
  // all of them for d < 0).
  void FlushHeld(int d) {
    while (!held_.empty() && (d < 0 || held_.back().depth >= d)) {
      Held h = std::move(held_.back());
      held_.pop_back();
      if (!Stopped()) Evaluate(h.node, Printed(h.abs_path), h.abs_path, h.depth, start_);
    }
  }

  Expression& expr_;
  Catalog& catalog_;
  EvalContext& ctx_;
  const uint64_t select_below_;
  std::optional<uint64_t> catalog_objects_;  // read once
  std::string start_, abs_;
  uint64_t start_dev_ = 0;
  uint64_t matches_ = 0;
  std::vector<Held> held_;
  std::vector<std::pair<std::string, Held>> sorted_;
};

Followed StatFollow(Catalog& catalog, std::string_view abs_path) {
  std::string path(abs_path);
  for (int hops = 0; hops <= 40; ++hops) {
    auto node = catalog.Stat(path);
    if (!node.ok() || !node->has_value()) return {};
    const Attrs& a = (*node)->attrs;
    if (!S_ISLNK(a.mode)) return {a, false};
    std::string dir = path.substr(0, path.rfind('/'));
    path = LexicalPath(dir.empty() ? "/" : dir, a.symlink);
  }
  return {std::nullopt, true};
}

}  // namespace


int RunFind(const std::vector<std::string>& args, Catalog& catalog, std::ostream& out, std::ostream& err,
            const RunOptions& options) {
  std::string cwd;
  if (options.cwd) {
    cwd = *options.cwd;
  } else {
    char buf[4096];
    cwd = getcwd(buf, sizeof buf) ? buf : "/";
  }
  int64_t now = options.now_ns ? *options.now_ns
                               : std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch()).count();
  NameCache names;
  ParseEnvironment env;
  env.now_ns = now;
  env.names = &names;
  env.reference = [&](std::string_view path) -> Result<Attrs> {
    std::string abs = LexicalPath(cwd, path);
    auto node = catalog.Stat(abs);
    if (node.ok() && node->has_value()) return (*node)->attrs;
    struct stat st {};
    if (lstat(abs.c_str(), &st) == 0) return AttrsFromStat(st);
    return Status::Error("'" + std::string(path) + "': not in the catalog nor on the file system (" +
                         std::strerror(errno) + ")");
  };
  if (options.config != nullptr) {
    env.classes = &options.config->fileclasses;
    env.classes_source = options.config->source;
  }
  env.open_output = [](const std::string& path) -> Result<std::shared_ptr<std::ostream>> {
    auto file = std::make_shared<std::ofstream>(path, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!file->is_open())
      return Status::Error("cannot open \"" + path + "\" for writing: " + std::strerror(errno));
    return std::shared_ptr<std::ostream>(std::move(file));
  };
  std::vector<std::string> warnings;
  auto expr = Parse(args, env, &warnings);
  for (const auto& w : warnings) err << "fathom find: " << w << "\n";
  if (!expr.ok()) {
    err << "fathom find: " << expr.status().message() << "\n";
    return 1;
  }

  EvalContext ctx;
  ctx.names = &names;
  ctx.out = &out;
  ctx.err = &err;
  ctx.dir_is_empty = [&](const Node& dir) -> Result<bool> {
    bool empty = true;
    FATHOM_RETURN_IF_ERROR(catalog.Children(dir.id, [&](const Node&) { return empty = false; }));
    return empty;
  };
  ctx.stat_follow = [&](std::string_view abs) { return StatFollow(catalog, abs); };
  ctx.uid = options.uid ? *options.uid : geteuid();
  if (options.gids) {
    ctx.gids = *options.gids;
  } else {
    ctx.gids.push_back(getegid());
    int n = getgroups(0, nullptr);
    if (n > 0) {
      std::vector<gid_t> groups(static_cast<size_t>(n));
      n = getgroups(n, groups.data());
      for (int i = 0; i < n; ++i) ctx.gids.push_back(groups[static_cast<size_t>(i)]);
    }
  }

  Runner runner(*expr, catalog, ctx, options.select_below);
  for (const auto& start : expr->starts) {
    if (ctx.quit) break;
    runner.RunStart(start, LexicalPath(cwd, start));
  }
  if (expr->options.sort) runner.RunSorted();
  Status finished = FinishAll(*expr, ctx);
  if (!finished.ok()) {
    err << "fathom find: " << finished.message() << "\n";
    ctx.exit_status = 1;
  }
  if (expr->options.count) out << runner.matches() << "\n";
  out.flush();
  return ctx.exit_status;
}

}  // namespace fathom::catalog::find
