#include "catalog/sync/catalog_verify.h"

#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <unordered_map>

namespace fathom::catalog {
namespace {

std::string Join(const std::string& dir, std::string_view name) {
  std::string path = dir;
  if (path.empty() || path.back() != '/') path += '/';
  path += name;
  return path;
}

void Compare(const char* what, int64_t catalog, int64_t live, std::string& out) {
  if (catalog == live) return;
  if (!out.empty()) out += ", ";
  out += std::string(what) + " " + std::to_string(catalog) + " != " + std::to_string(live);
}

// "" when `catalog` and `live` agree on everything compared.
std::string Differences(const Attrs& catalog, const Attrs& live) {
  std::string out;
  if (catalog.dev != live.dev || catalog.ino != live.ino) {
    out = "object " + std::to_string(catalog.dev) + ":" + std::to_string(catalog.ino) +
          " != " + std::to_string(live.dev) + ":" + std::to_string(live.ino);
  }
  Compare("mode", catalog.mode, live.mode, out);
  Compare("uid", catalog.uid, live.uid, out);
  Compare("gid", catalog.gid, live.gid, out);
  Compare("nlink", static_cast<int64_t>(catalog.nlink), static_cast<int64_t>(live.nlink), out);
  Compare("size", catalog.size, live.size, out);
  Compare("blocks", catalog.blocks, live.blocks, out);
  Compare("mtime_ns", catalog.mtime_ns, live.mtime_ns, out);
  Compare("ctime_ns", catalog.ctime_ns, live.ctime_ns, out);
  if (catalog.symlink != live.symlink) {
    if (!out.empty()) out += ", ";
    out += "symlink target differs";
  }
  return out;
}

// Compares each directory once the scan has handed all of it.
class VerifySink final : public scan::ScanSink {
 public:
  VerifySink(Catalog& catalog, const std::function<void(const Difference&)>& report)
      : catalog_(catalog), report_(report) {}

  void OnChunk(scan::ScanChunk&& chunk) override {
    if (!status_.ok()) return;
    auto& listing = listings_[chunk.dir_token];
    if (chunk.parent_token == 0 && chunk.first) status_ = CompareRoot(chunk);
    for (scan::ScanEntry& e : chunk.entries) listing.emplace(std::move(e.name), std::move(e.attrs));
    if (chunk.last) {
      if (status_.ok()) status_ = CompareDirectory(chunk.path, listing);
      listings_.erase(chunk.dir_token);
    }
  }

  void OnProblem(scan::ScanProblem&&) override { ++summary_.problems; }

  Status status() const { return status_; }
  VerifySummary summary() const { return summary_; }

 private:
  void Report(Difference::Kind kind, std::string path, std::string detail = {}) {
    ++summary_.differences;
    report_(Difference{kind, std::move(path), std::move(detail)});
  }

  Status CompareRoot(const scan::ScanChunk& chunk) {
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> node, catalog_.Stat(chunk.path));
    ++summary_.entries;
    if (!node) {
      Report(Difference::Kind::kMissing, chunk.path);
    } else if (std::string d = Differences(node->attrs, chunk.attrs); !d.empty()) {
      Report(Difference::Kind::kDiffers, chunk.path, std::move(d));
    }
    return Status::Ok();
  }

  Status CompareDirectory(const std::string& path, std::map<std::string, Attrs>& live) {
    FATHOM_ASSIGN_OR_RETURN(std::optional<Node> dir, catalog_.Stat(path));
    summary_.entries += live.size();
    if (!dir) return Status::Ok();  // reported missing itself
    std::map<std::string, Attrs> held;
    FATHOM_RETURN_IF_ERROR(catalog_.Children(dir->id, [&](const Node& child) {
      held.emplace(child.name, child.attrs);
      return true;
    }));
    auto l = live.begin();
    auto h = held.begin();
    while (l != live.end() || h != held.end()) {
      if (h == held.end() || (l != live.end() && l->first < h->first)) {
        Report(Difference::Kind::kMissing, Join(path, l->first));
        ++l;
      } else if (l == live.end() || h->first < l->first) {
        Report(Difference::Kind::kExtra, Join(path, h->first));
        ++h;
      } else {
        if (std::string d = Differences(h->second, l->second); !d.empty()) {
          Report(Difference::Kind::kDiffers, Join(path, l->first), std::move(d));
        }
        ++l;
        ++h;
      }
    }
    return Status::Ok();
  }

  Catalog& catalog_;
  const std::function<void(const Difference&)>& report_;
  std::unordered_map<uint64_t, std::map<std::string, Attrs>> listings_;
  Status status_;
  VerifySummary summary_;
};

// The path with bytes that are not printable ASCII (and '\\') written as \ooo.
std::string Escaped(std::string_view path) {
  std::string out;
  for (const unsigned char c : path) {
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

Result<VerifySummary> VerifyCatalog(Catalog& catalog, const std::string& root,
                                    const scan::ScanOptions& options,
                                    const std::function<void(const Difference&)>& difference) {
  scan::Scanner scanner(options);
  VerifySink sink(catalog, difference);
  FATHOM_RETURN_IF_ERROR(scanner.Run({root}, sink));
  FATHOM_RETURN_IF_ERROR(sink.status());
  return sink.summary();
}

std::string FormatDifference(const Difference& d) {
  switch (d.kind) {
    case Difference::Kind::kMissing:
      return "missing " + Escaped(d.path);
    case Difference::Kind::kExtra:
      return "extra " + Escaped(d.path);
    case Difference::Kind::kDiffers:
      return "differs " + Escaped(d.path) + ": " + d.detail;
  }
  return {};
}

}  // namespace fathom::catalog
