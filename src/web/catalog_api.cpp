// catalog_api.cpp — /api/v1/catalog/...: summary, usage by owner and type, the size profile,
// age histograms, top directories, a subtree with its children, removed entries (docs/api.md).
//
// A caller granted "/" gets the whole catalog's answers from the kept statistics where there
// are some (usage, size profile, totals); a caller with narrower grants gets them summed over
// its granted subtrees. What reads many entries (histograms, top directories, usage under
// grants) goes through the answer cache, keyed by the question and the grants.
#include <sys/stat.h>

#include <spdlog/spdlog.h>

#include <algorithm>

#include "catalog/report/entry_source.h"
#include "catalog/report/reports.h"
#include "core/account_names.h"
#include "web/serve_context.h"

namespace fathom::web {
namespace {

using catalog::Catalog;
using Lease = HandlePool<Catalog>::Lease;
using nlohmann::json;

const char* TypeName(uint32_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "file";
    case S_IFDIR: return "dir";
    case S_IFLNK: return "symlink";
    default: return "other";
  }
}

json TotalsJson(const catalog::Totals& t) {
  return {{"files", t.files},     {"dirs", t.dirs},   {"symlinks", t.symlinks},         {"others", t.others},
          {"entries", t.entries()}, {"size", t.size}, {"blocks", t.blocks}, {"max_mtime_ns", t.max_mtime_ns}};
}

void AddTotals(catalog::Totals& sum, const catalog::Totals& t) {
  sum.files += t.files;
  sum.dirs += t.dirs;
  sum.symlinks += t.symlinks;
  sum.others += t.others;
  sum.size += t.size;
  sum.blocks += t.blocks;
  sum.max_mtime_ns = std::max(sum.max_mtime_ns, t.max_mtime_ns);
}

std::string NameOr(std::optional<std::string> name, uint32_t id) { return name ? *name : std::to_string(id); }

// The question as the cache knows it: the call, the parameters that shape its answer, and the
// caller's scopes (callers with the same grants share answers).
std::string Question(std::string_view call, std::string_view shape, const std::vector<std::string>& scopes) {
  std::string q = std::string(call) + "|" + std::string(shape);
  for (const std::string& s : scopes) q += "|@" + s;
  return q;
}

// The answer to `question`, from the cache or by `compute` over a catalog handle.
std::string CachedText(ServeContext& ctx, const std::string& question,
                       const std::function<json(Catalog&, Lease&)>& compute) {
  Lease cat = LeaseOf(ctx.catalogs, kNoCatalog);
  uint64_t version = Checked(cat, cat->Commits());
  auto answer = ctx.cache.Get(question, version, [&]() -> Result<std::string> {
    return compute(*cat, cat).dump(-1, ' ', false, json::error_handler_t::replace);
  });
  Checked(cat, answer.status());
  return std::move(answer).value();
}

void Cached(ServeContext& ctx, httplib::Response& res, const std::string& question,
            const std::function<json(Catalog&, Lease&)>& compute) {
  ReplyJsonText(res, CachedText(ctx, question, compute));
}

// Directories kept per question: any `limit` up to this is cut from one answer.
constexpr size_t kTopDirsKept = 1000;

// Every object under the scopes (each once per scope, at its first name there).
void ForEachIn(Catalog& catalog, Lease& lease, const std::vector<std::string>& scopes,
               const catalog::Selection& selection, const std::function<void(const catalog::Visit&)>& fn) {
  auto each = [&](const catalog::Visit& v) {
    fn(v);
    return true;
  };
  for (const std::string& scope : scopes) Checked(lease, catalog::report::ForEachObject(catalog, selection, scope, each));
}

// The `n` largest subtrees of the whole catalog by volume (or entries), from every directory's
// kept totals in one pass.
std::vector<std::pair<catalog::EntryId, catalog::Totals>> LargestSubtrees(Catalog& cat, Lease& lease, bool by_size,
                                                                           size_t n) {
  using Item = std::pair<catalog::EntryId, catalog::Totals>;
  auto larger = [by_size](const Item& a, const Item& b) {
    if (by_size && a.second.size != b.second.size) return a.second.size > b.second.size;
    if (a.second.entries() != b.second.entries()) return a.second.entries() > b.second.entries();
    return a.first < b.first;
  };
  std::vector<Item> heap;  // the n largest so far, the smallest of them on top
  Checked(lease, cat.ForEachSubtree([&](catalog::EntryId id, const catalog::Totals& t) {
    Item item{id, t};
    if (heap.size() < n) {
      heap.push_back(item);
      std::push_heap(heap.begin(), heap.end(), larger);
    } else if (larger(item, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), larger);
      heap.back() = item;
      std::push_heap(heap.begin(), heap.end(), larger);
    }
  }));
  return heap;
}

std::vector<std::string> ScopesOf(const httplib::Request& req, const Access& access, bool& everything) {
  std::string path = ParamPath(req, "path", "/");
  std::vector<std::string> scopes = access.ScopesUnder(path);
  everything = path == "/" && access.Everything();
  return scopes;
}

void Summary(ServeContext& ctx, const httplib::Request&, httplib::Response& res, const Access& access) {
  Lease cat = LeaseOf(ctx.catalogs, kNoCatalog);
  catalog::CatalogInfo info = Checked(cat, cat->Info());
  catalog::Totals totals;
  json roots = json::array();
  std::vector<std::string> scopes = access.Everything() ? info.roots : access.ScopesUnder("/");
  for (const std::string& root : info.roots) {
    if (access.Covers(root)) roots.push_back(root);
  }
  for (const std::string& scope : scopes) {
    auto node = Checked(cat, cat->Stat(scope));
    if (node && S_ISDIR(node->attrs.mode)) AddTotals(totals, Checked(cat, cat->Subtree(node->id)));
  }
  json out = {{"uri", info.uri},
              {"backend", info.backend},
              {"roots", roots},
              {"scopes", scopes},
              {"totals", TotalsJson(totals)}};
  if (access.Everything()) {
    out.update({{"entries", info.entries}, {"names", info.names}, {"removed", info.removed}, {"bytes", info.bytes}});
  } else {
    out.update({{"entries", totals.entries()}, {"names", nullptr}, {"removed", nullptr}, {"bytes", nullptr}});
  }
  ReplyJson(res, out);
}

struct UsageRow {
  uint32_t id = 0;
  uint64_t count = 0;
  int64_t size = 0, blocks = 0;
};

json UsageJson(const std::string& by, std::map<uint32_t, UsageRow>& rows) {
  std::vector<UsageRow> sorted;
  for (auto& [id, r] : rows) sorted.push_back(r);
  std::sort(sorted.begin(), sorted.end(), [](const UsageRow& a, const UsageRow& b) {
    return a.size != b.size ? a.size > b.size : a.count != b.count ? a.count > b.count : a.id < b.id;
  });
  NameCache names;
  json out = json::array();
  for (const UsageRow& r : sorted) {
    std::string key = by == "user"    ? NameOr(names.UserName(r.id), r.id)
                      : by == "group" ? NameOr(names.GroupName(r.id), r.id)
                                      : TypeName(r.id);
    out.push_back({{"key", key}, {"id", by == "type" ? json(nullptr) : json(r.id)}, {"count", r.count},
                   {"size", r.size}, {"blocks", r.blocks}});
  }
  return {{"by", by}, {"rows", out}};
}

void Usage(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string by = ParamChoice(req, "by", {"user", "group", "type"});
  bool everything = false;
  std::vector<std::string> scopes = ScopesOf(req, access, everything);
  auto key = [&](uint32_t uid, uint32_t gid, uint32_t mode) {
    return by == "user" ? uid : by == "group" ? gid : (mode & S_IFMT);
  };
  Cached(ctx, res, Question("usage", by, scopes), [&](Catalog& cat, Lease& lease) {
    std::map<uint32_t, UsageRow> rows;
    if (everything) {
      for (const catalog::AcctRow& a : Checked(lease, cat.Accounting())) {
        UsageRow& r = rows[key(a.uid, a.gid, a.type)];
        r.id = key(a.uid, a.gid, a.type);
        r.count += a.count;
        r.size += a.size;
        r.blocks += a.blocks;
      }
    } else {
      ForEachIn(cat, lease, scopes, {}, [&](const catalog::Visit& v) {
        const catalog::Attrs& a = v.node.attrs;
        UsageRow& r = rows[key(a.uid, a.gid, a.mode)];
        r.id = key(a.uid, a.gid, a.mode);
        ++r.count;
        r.size += a.size;
        r.blocks += a.blocks;
      });
    }
    return UsageJson(by, rows);
  });
}

void SizeProfile(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  bool everything = false;
  std::vector<std::string> scopes = ScopesOf(req, access, everything);
  Cached(ctx, res, Question("size-profile", "", scopes), [&](Catalog& cat, Lease& lease) {
    std::array<uint64_t, catalog::kSizeBuckets> counts{};
    if (everything) {
      for (const catalog::AcctRow& a : Checked(lease, cat.Accounting())) {
        if (a.type != S_IFREG) continue;
        for (int i = 0; i < catalog::kSizeBuckets; ++i) counts[i] += a.buckets[i];
      }
    } else {
      catalog::Selection files;
      files.type = S_IFREG;
      ForEachIn(cat, lease, scopes, files,
                [&](const catalog::Visit& v) { ++counts[catalog::SizeBucket(v.node.attrs.size)]; });
    }
    static const char* kLabels[] = {"0", "1~31", "32~1K-", "1K~31K", "32K~1M-", "1M~31M", "32M~1G-", "1G~31G", "32G~1T-", "+1T"};
    json buckets = json::array();
    for (int i = 0; i < catalog::kSizeBuckets; ++i) {
      int64_t min = i == 0 ? 0 : int64_t{1} << (5 * (i - 1));
      json max = i == 0 ? json(0) : i == catalog::kSizeBuckets - 1 ? json(nullptr) : json((int64_t{1} << (5 * i)) - 1);
      buckets.push_back({{"label", kLabels[i]}, {"min", min}, {"max", max}, {"count", counts[i]}});
    }
    return json{{"buckets", buckets}};
  });
}

void AgeHistogram(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  bool access_time = ParamChoice(req, "time", {"mtime", "atime"}) == "atime";
  bool everything = false;
  std::vector<std::string> scopes = ScopesOf(req, access, everything);
  Cached(ctx, res, Question("age", access_time ? "atime" : "mtime", scopes), [&](Catalog& cat, Lease& lease) {
    constexpr size_t kRanges = std::size(catalog::report::kAgeRanges);
    std::array<uint64_t, kRanges> counts{};
    std::array<int64_t, kRanges> sizes{};
    int64_t now = NowNs();
    auto add = [&](const catalog::Attrs& a) {
      int64_t t = access_time ? a.atime_ns : a.mtime_ns;
      size_t i = catalog::report::AgeRangeOf(std::max<int64_t>(now - t, 0) / 1'000'000'000);
      ++counts[i];
      sizes[i] += a.size;
    };
    if (everything) {  // one pass over the objects, no names
      Checked(lease, cat.ForEachAttrs([&](const catalog::Attrs& a) {
        if (S_ISREG(a.mode)) add(a);
      }));
    } else {
      catalog::Selection files;
      files.type = S_IFREG;
      ForEachIn(cat, lease, scopes, files, [&](const catalog::Visit& v) { add(v.node.attrs); });
    }
    json ranges = json::array();
    for (size_t i = 0; i < kRanges; ++i) {
      ranges.push_back({{"label", catalog::report::kAgeRanges[i].label},
                        {"from_days", catalog::report::kAgeRanges[i].from_days},
                        {"count", counts[i]},
                        {"size", sizes[i]}});
    }
    return json{{"time", access_time ? "atime" : "mtime"}, {"ranges", ranges}};
  });
}

void TopDirs(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  bool by_size = ParamChoice(req, "by", {"size", "count"}) == "size";
  size_t limit = ParamLimit(req, 20);
  bool everything = false;
  std::vector<std::string> scopes = ScopesOf(req, access, everything);
  std::string kept = CachedText(ctx, Question("top-dirs", by_size ? "size" : "count", scopes), [&](Catalog& cat, Lease& lease) {
    std::vector<catalog::report::DirTotals> dirs;
    if (everything) {
      for (const auto& [id, totals] : LargestSubtrees(cat, lease, by_size, kTopDirsKept)) {
        auto paths = Checked(lease, cat.Paths(id));
        if (!paths.empty()) dirs.push_back({paths.front(), {}, totals});
      }
    }
    for (const std::string& scope : everything ? std::vector<std::string>{} : scopes) {
      catalog::report::ReportOptions options;
      options.filter_path = scope;
      auto some = Checked(lease, catalog::report::Directories(cat, options));
      dirs.insert(dirs.end(), std::make_move_iterator(some.begin()), std::make_move_iterator(some.end()));
    }
    catalog::report::SortLargestFirst(dirs, by_size);
    if (dirs.size() > kTopDirsKept) dirs.resize(kTopDirsKept);
    json out = json::array();
    for (const auto& d : dirs) {
      out.push_back({{"path", d.path}, {"entries", d.totals.entries()}, {"files", d.totals.files},
                     {"dirs", d.totals.dirs}, {"size", d.totals.size}});
    }
    return json{{"by", by_size ? "size" : "count"}, {"dirs", out}};
  });
  json answer = json::parse(kept);
  if (answer["dirs"].size() > limit) answer["dirs"].erase(answer["dirs"].begin() + static_cast<std::ptrdiff_t>(limit), answer["dirs"].end());
  ReplyJson(res, answer);
}

void Subtree(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string path = ParamPath(req, "path", "/");
  size_t offset = ParamNumber(req, "offset", 0, 0, UINT32_MAX);
  size_t limit = ParamLimit(req, 100);
  bool covered = access.Covers(path);
  std::vector<std::string> below = access.ScopesUnder(path);
  if (!covered && below.empty()) throw BadRequest{{404, "no catalog entry " + path + " among the granted paths"}};
  Lease cat = LeaseOf(ctx.catalogs, kNoCatalog);
  json totals = nullptr;
  json children = json::array();
  std::optional<size_t> next;
  NameCache names;
  if (path == "/") {
    // The catalog's roots are the children of "/".
    catalog::CatalogInfo info = Checked(cat, cat->Info());
    std::vector<std::string> roots;
    for (const std::string& r : info.roots) {
      if (access.Covers(r) || !access.ScopesUnder(r).empty()) roots.push_back(r);
    }
    catalog::Totals sum;
    size_t i = 0;
    for (const std::string& r : roots) {
      auto node = Checked(cat, cat->Stat(r));
      if (!node) continue;
      json t = nullptr;
      if (access.Covers(r) && S_ISDIR(node->attrs.mode)) {
        catalog::Totals st = Checked(cat, cat->Subtree(node->id));
        AddTotals(sum, st);
        t = TotalsJson(st);
      }
      if (i++ < offset) continue;
      if (children.size() == limit) {
        next = offset + limit;
        break;
      }
      children.push_back({{"name", r}, {"path", r}, {"type", TypeName(node->attrs.mode)}, {"size", node->attrs.size},
                          {"uid", node->attrs.uid}, {"user", NameOr(names.UserName(node->attrs.uid), node->attrs.uid)},
                          {"mtime_ns", node->attrs.mtime_ns}, {"totals", t}});
    }
    if (covered) totals = TotalsJson(sum);
  } else {
    auto node = Checked(cat, cat->Stat(path));
    if (!node) throw BadRequest{{404, "the catalog holds nothing at " + path}};
    if (covered && S_ISDIR(node->attrs.mode)) totals = TotalsJson(Checked(cat, cat->Subtree(node->id)));
    size_t i = 0;
    std::vector<catalog::Node> kids;
    Checked(cat, cat->Children(node->id, [&](const catalog::Node& n) {
      std::string child = path + "/" + n.name;
      if (!covered && !access.Covers(child) && access.ScopesUnder(child).empty()) return true;
      if (i++ < offset) return true;
      if (kids.size() == limit) {
        next = offset + limit;
        return false;
      }
      kids.push_back(n);
      return true;
    }));
    for (const catalog::Node& n : kids) {
      std::string child = path + "/" + n.name;
      json t = nullptr;
      if (S_ISDIR(n.attrs.mode) && access.Covers(child)) t = TotalsJson(Checked(cat, cat->Subtree(n.id)));
      children.push_back({{"name", n.name}, {"path", child}, {"type", TypeName(n.attrs.mode)}, {"size", n.attrs.size},
                          {"uid", n.attrs.uid}, {"user", NameOr(names.UserName(n.attrs.uid), n.attrs.uid)},
                          {"mtime_ns", n.attrs.mtime_ns}, {"totals", t}});
    }
  }
  ReplyJson(res, {{"path", path},
                  {"totals", totals},
                  {"children", children},
                  {"next", next ? json{{"offset", *next}} : json(nullptr)}});
}

void Removed(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string path = ParamPath(req, "path", "/");
  int64_t since = ParamTime(req, "since").value_or(0);
  size_t limit = ParamLimit(req, 100);
  Lease cat = LeaseOf(ctx.catalogs, kNoCatalog);
  std::vector<catalog::RemovedEntry> found;
  for (const std::string& scope : access.ScopesUnder(path)) {
    size_t n = 0;
    Checked(cat, cat->Removed(scope == "/" ? "" : scope, since, [&](const catalog::RemovedEntry& r) {
      found.push_back(r);
      return ++n < limit;
    }));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.removal.time_ns > b.removal.time_ns;
  });
  if (found.size() > limit) found.resize(limit);
  NameCache names;
  json out = json::array();
  for (const catalog::RemovedEntry& r : found) {
    out.push_back({{"path", r.path},
                   {"type", TypeName(r.attrs.mode)},
                   {"size", r.attrs.size},
                   {"uid", r.attrs.uid},
                   {"user", NameOr(names.UserName(r.attrs.uid), r.attrs.uid)},
                   {"removed_ns", r.removal.time_ns},
                   {"event_id", r.removal.event_id},
                   {"by_uid", r.removal.uid ? json(*r.removal.uid) : json(nullptr)},
                   {"jobid", r.removal.jobid.empty() ? json(nullptr) : json(r.removal.jobid)}});
  }
  ReplyJson(res, {{"removed", out}});
}

}  // namespace

void WarmCatalogAnswers(ServeContext& ctx) {
  using Handler = void (*)(ServeContext&, const httplib::Request&, httplib::Response&, const Access&);
  const std::vector<std::pair<Handler, std::pair<const char*, const char*>>> questions = {
      {Usage, {"by", "user"}},        {Usage, {"by", "group"}},          {Usage, {"by", "type"}},
      {SizeProfile, {"", ""}},        {AgeHistogram, {"time", "mtime"}}, {AgeHistogram, {"time", "atime"}},
      {TopDirs, {"by", "size"}},      {TopDirs, {"by", "count"}},
  };
  const Access everything{"fathom", 0, {"/"}, true};
  for (const auto& [handler, param] : questions) {
    httplib::Request req;
    if (*param.first) req.params.emplace(param.first, param.second);
    httplib::Response res;
    try {
      handler(ctx, req, res, everything);
    } catch (const BadRequest& failed) {
      spdlog::warn("serve: cannot prepare the catalog's answers: {}", failed.error.message);
      return;
    }
  }
}

void AddCatalogRoutes(httplib::Server& server, ServeContext& ctx) {
  auto route = [&](const char* path, void (*fn)(ServeContext&, const httplib::Request&, httplib::Response&, const Access&)) {
    server.Get(path, Authed(ctx, [&ctx, fn](const httplib::Request& req, httplib::Response& res, const Access& a) {
                 fn(ctx, req, res, a);
               }));
  };
  route("/api/v1/catalog/summary", Summary);
  route("/api/v1/catalog/usage", Usage);
  route("/api/v1/catalog/size-profile", SizeProfile);
  route("/api/v1/catalog/age-histogram", AgeHistogram);
  route("/api/v1/catalog/top-dirs", TopDirs);
  route("/api/v1/catalog/subtree", Subtree);
  route("/api/v1/catalog/removed", Removed);
}

}  // namespace fathom::web
