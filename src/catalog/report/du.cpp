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
  DuRun(Catalog& catalog, const DuOptions& options, const DuSink& sink)
      : catalog_(catalog), options_(options), sink_(sink) {}

  Status List(const std::string& arg) {
    std::string path = CatalogPath(arg, options_.cwd);
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> node, catalog_.Stat(path));
    if (!node) {
      sink_.missing(arg);
      return Status::Ok();
    }
    if (IsDir(node->attrs) && MaxDepth() == 0 && options_.filter.empty()) {
      FATHOM_ASSIGN_OR_RETURN(Totals totals, catalog_.Usage(node->id, options_.count_links));
      uint64_t amount = options_.inodes          ? totals.entries()
                        : options_.apparent_size ? static_cast<uint64_t>(std::max<int64_t>(totals.size, 0))
                                                 : static_cast<uint64_t>(totals.blocks) * 512;
      Print(amount, arg);
      total_ += amount;
      return Status::Ok();
    }
    return Walk(arg, path);
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

  // A file met again under another name (GNU: counted and listed at its first name only).
  bool SeenBefore(const Attrs& attrs) {
    if (options_.count_links || IsDir(attrs) || attrs.nlink <= 1) return false;
    return !seen_.emplace(attrs.dev, attrs.ino).second;
  }

  Status Walk(const std::string& arg, const std::string& start) {
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
      if (SeenBefore(attrs)) return WalkStep::kContinue;
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
    total_ += arg_amount;
    return Status::Ok();
  }

  void Print(uint64_t amount, std::string_view what) {
    std::string line = FormatAmount(amount, options_.format);
    line.push_back('\t');
    line.append(what);
    line.push_back(options_.line_end);
    sink_.line(line);
  }

  Catalog& catalog_;
  const DuOptions& options_;
  const DuSink& sink_;
  std::set<std::pair<uint64_t, uint64_t>> seen_;  // (dev, ino) of files with several names
  uint64_t total_ = 0;
};

}  // namespace

Status Du(Catalog& catalog, const std::vector<std::string>& args, const DuOptions& options,
          const DuSink& sink) {
  DuRun run(catalog, options, sink);
  for (const std::string& arg : args) FATHOM_RETURN_IF_ERROR(run.List(arg));
  if (options.total) run.PrintTotal();
  return Status::Ok();
}

}  // namespace fathom::catalog::report
