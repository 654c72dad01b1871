#include "catalog/report/du.h"

#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <utility>

#include "catalog/report/query_path.h"

namespace fathom::catalog::report {
namespace {

bool IsDir(const Attrs& attrs) { return (attrs.mode & S_IFMT) == S_IFDIR; }

// One directory whose size is still being summed during a walk.
struct OpenDir {
  int depth = 0;
  std::string display;
  uint64_t amount = 0;
};

class DuRun {
 public:
  DuRun(Catalog& catalog, const DuOptions& options, const DuSink& sink, bool several_args)
      : catalog_(catalog),
        options_(options),
        sink_(sink),
        format_(options.format),
        hash_all_(several_args && !options.count_links) {
    // Counts of entries are never scaled by a block size (GNU: --inodes sets it to 1).
    if (options.inodes) format_.block_size = 1;
  }

  Status List(const std::string& arg) {
    std::string path = catalog::LexicalPath(options_.cwd, arg);
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> node, catalog_.Stat(path));
    if (!node) {
      sink_.missing(arg);
      return Status::Ok();
    }
    // Met already under an earlier argument: GNU neither counts nor lists it again.
    if (hash_all_ && CountedUnder(path)) return Status::Ok();
    uint64_t amount = 0;
    if (IsDir(node->attrs) && MaxDepth() == 0 && options_.filter.empty()) {
      FATHOM_ASSIGN_OR_RETURN(Totals totals, catalog_.Usage(node->id, options_.count_links));
      amount = options_.inodes          ? totals.entries()
               : options_.apparent_size ? static_cast<uint64_t>(std::max<int64_t>(totals.size, 0))
                                        : static_cast<uint64_t>(totals.blocks) * 512;
      if (hash_all_) {
        amount -= CountedBelow(path);
        FATHOM_ASSIGN_OR_RETURN(const uint64_t again, CountedElsewhere(node->id, path));
        amount -= again;
      }
      Print(amount, arg);
    } else {
      FATHOM_ASSIGN_OR_RETURN(amount, Walk(arg, path));
    }
    total_ += amount;
    if (hash_all_) counted_.emplace_back(path, amount);
    return Status::Ok();
  }

  void PrintTotal() { Print(total_, "total"); }

 private:
  int MaxDepth() const { return options_.max_depth.value_or(INT32_MAX); }

  uint64_t Amount(const Attrs& attrs) const {
    if (!options_.filter.Matches(attrs)) return 0;
    if (options_.inodes) return 1;
    if (options_.apparent_size) return static_cast<uint64_t>(std::max<int64_t>(attrs.size, 0));
    return static_cast<uint64_t>(std::max<int64_t>(attrs.blocks, 0)) * 512;
  }

  // An entry met again (GNU: counted and listed the first time only): a file under another
  // name, or with several arguments anything an earlier one held.
  bool SeenBefore(const Attrs& attrs) {
    if (options_.count_links) return false;
    if (!hash_all_ && (IsDir(attrs) || attrs.nlink <= 1)) return false;
    return !seen_.emplace(attrs.dev, attrs.ino).second;
  }

  bool CountedUnder(std::string_view path) const {
    for (const auto& [earlier, amount] : counted_) {
      if (IsUnder(path, earlier)) return true;
    }
    return false;
  }

  // With several arguments, a summarized one leaves its hard-linked objects in seen_, as a walk
  // would; returns what it holds of them that an earlier argument counted already (an
  // earlier argument nested below it is taken off whole by CountedBelow).
  Result<uint64_t> CountedElsewhere(EntryId dir, std::string_view dir_path) {
    uint64_t again = 0;
    FATHOM_RETURN_IF_ERROR(catalog_.Linked(dir, [&](const Node& node, const std::vector<std::string>& paths) {
      const bool in_nested = std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
        return IsUnder(p, dir_path) && CountedUnder(p);
      });
      if (!seen_.emplace(node.attrs.dev, node.attrs.ino).second && !in_nested) {
        again += Amount(node.attrs);
      }
      return true;
    }));
    return again;
  }

  // What earlier arguments below `path` counted (an argument summarized from the kept totals
  // leaves no entries in seen_).
  uint64_t CountedBelow(std::string_view path) const {
    uint64_t sum = 0;
    for (const auto& [earlier, amount] : counted_) {
      if (IsUnder(earlier, path)) sum += amount;
    }
    return sum;
  }

  static bool IsUnder(std::string_view path, std::string_view dir) {
    if (dir == "/") return true;
    return path.size() >= dir.size() && path.compare(0, dir.size(), dir) == 0 &&
           (path.size() == dir.size() || path[dir.size()] == '/');
  }

  // Lists one argument by walking it; returns what it counted.
  Result<uint64_t> Walk(const std::string& arg, const std::string& start) {
    std::vector<OpenDir> open;
    uint64_t arg_amount = 0;
    // Closes the directories at `depth` and below: each is listed, and its size added to the
    // one holding it (or to the argument's, for the start).
    auto close_to = [&](int depth) {
      while (!open.empty() && open.back().depth >= depth) {
        OpenDir dir = std::move(open.back());
        open.pop_back();
        if (dir.depth <= MaxDepth()) Print(dir.amount, dir.display);
        if (open.empty()) {
          arg_amount = dir.amount;
        } else {
          open.back().amount += dir.amount;
        }
      }
    };
    FATHOM_RETURN_IF_ERROR(catalog_.Walk(start, [&](const Visit& visit) {
      close_to(visit.depth);
      const Attrs& attrs = visit.node.attrs;
      bool earlier_argument = hash_all_ && visit.depth > 0 && IsDir(attrs) && CountedUnder(visit.path);
      if (earlier_argument || SeenBefore(attrs)) return WalkStep::kSkipChildren;
      uint64_t amount = Amount(attrs);
      if (IsDir(attrs)) {
        open.push_back({visit.depth, DisplayPath(arg, start, visit.path), amount});
        return WalkStep::kContinue;
      }
      bool listed = visit.depth == 0 ||
                    (options_.all && visit.depth <= MaxDepth() && options_.filter.Matches(attrs));
      if (listed) Print(amount, DisplayPath(arg, start, visit.path));
      if (open.empty()) {
        arg_amount = amount;
      } else {
        open.back().amount += amount;
      }
      return WalkStep::kContinue;
    }));
    close_to(0);
    return arg_amount;
  }

  void Print(uint64_t amount, std::string_view what) {
    std::string line = FormatAmount(amount, format_);
    line.push_back('\t');
    line.append(what);
    line.push_back(options_.line_end);
    sink_.line(line);
  }

  Catalog& catalog_;
  const DuOptions& options_;
  const DuSink& sink_;
  SizeFormat format_;
  const bool hash_all_;
  std::vector<std::pair<std::string, uint64_t>> counted_;  // arguments listed, what they counted
  std::set<std::pair<uint64_t, uint64_t>> seen_;  // (dev, ino) of files with several names
  uint64_t total_ = 0;
};

}  // namespace

Status Du(Catalog& catalog, const std::vector<std::string>& args, const DuOptions& options,
          const DuSink& sink) {
  DuRun run(catalog, options, sink, args.size() > 1);
  for (const std::string& arg : args) FATHOM_RETURN_IF_ERROR(run.List(arg));
  if (options.total) run.PrintTotal();
  return Status::Ok();
}

}  // namespace fathom::catalog::report
