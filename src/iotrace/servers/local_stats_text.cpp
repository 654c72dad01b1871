#include "iotrace/servers/local_stats_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace fathom::io {
namespace {

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool Number(std::string_view text, uint64_t& out) {
  auto r = std::from_chars(text.data(), text.data() + text.size(), out, 10);
  return !text.empty() && r.ec == std::errc() && r.ptr == text.data() + text.size();
}

lustre::StatsCounter Counter(const char* unit, uint64_t samples, uint64_t sum) {
  lustre::StatsCounter c;
  c.unit = unit;
  c.samples = samples;
  c.has_sum = true;
  c.sum = sum;
  return c;
}

// Calls `line(number, text)` for each line of `text`.
template <typename Fn>
void Lines(std::string_view text, Fn&& line) {
  size_t number = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    ++number;
    line(number, text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  }
}

}  // namespace

LocalStats ParseDiskstats(std::string_view text) {
  LocalStats out;
  Lines(text, [&](size_t number, std::string_view line) {
    const auto f = Fields(line);
    if (f.empty()) return;
    // major minor name, then at least the 11 fields of every kernel since 2.6.
    uint64_t v[11];
    bool ok = f.size() >= 14;
    for (size_t i = 0; ok && i < 11; ++i) ok = Number(f[3 + i], v[i]);
    uint64_t major = 0, minor = 0;
    if (!ok || !Number(f[0], major) || !Number(f[1], minor)) {
      out.problems.push_back({number, "expected 'MAJOR MINOR NAME' and at least 11 counters"});
      return;
    }
    auto& device = out.targets["disk:" + std::string(f[2])];
    device["read_bytes"] = Counter("bytes", v[0], v[2] * 512);
    device["read"] = Counter("usecs", v[0], v[3] * 1000);
    device["write_bytes"] = Counter("bytes", v[4], v[6] * 512);
    device["write"] = Counter("usecs", v[4], v[7] * 1000);
  });
  return out;
}

LocalStats ParseMountstats(std::string_view text) {
  LocalStats out;
  std::map<std::string, lustre::StatsCounter>* mount = nullptr;  // the NFS mount being read
  uint64_t server_read = 0, server_write = 0;
  bool in_ops = false;
  auto finish = [&] {
    if (mount == nullptr) return;
    lustre::StatsCounter& r = (*mount)["read_bytes"];
    r = Counter("bytes", mount->count("read") ? mount->at("read").samples : 0, server_read);
    lustre::StatsCounter& w = (*mount)["write_bytes"];
    w = Counter("bytes", mount->count("write") ? mount->at("write").samples : 0, server_write);
  };
  Lines(text, [&](size_t number, std::string_view line) {
    const auto f = Fields(line);
    if (f.empty()) return;
    if (f[0] == "device") {
      finish();
      mount = nullptr;
      in_ops = false;
      // device SERVER:/EXPORT mounted on DIR with fstype nfs4 statvers=1.1
      if (f.size() < 8 || f[2] != "mounted" || f[3] != "on") {
        out.problems.push_back({number, "expected 'device NAME mounted on DIR with fstype TYPE'"});
        return;
      }
      const auto type = std::find(f.begin(), f.end(), "fstype");
      if (type == f.end() || type + 1 == f.end() || !type[1].starts_with("nfs")) return;
      mount = &out.targets["nfs:" + std::string(f[1])];
      server_read = server_write = 0;
      return;
    }
    if (mount == nullptr) return;
    if (f[0] == "bytes:") {
      // normalread normalwrite directread directwrite serverread serverwrite readpages writepages
      uint64_t v[8];
      bool ok = f.size() >= 9;
      for (size_t i = 0; ok && i < 8; ++i) ok = Number(f[1 + i], v[i]);
      if (!ok) {
        out.problems.push_back({number, "expected 8 counters after 'bytes:'"});
        return;
      }
      server_read = v[4];
      server_write = v[5];
      return;
    }
    if (f[0] == "per-op") {
      in_ops = true;
      return;
    }
    if (!in_ops || f[0].size() < 2 || f[0].back() != ':') return;
    // OP: ops transmissions timeouts bytes_sent bytes_recv queue_ms rtt_ms execute_ms [errors]
    uint64_t v[8];
    bool ok = f.size() >= 9;
    for (size_t i = 0; ok && i < 8; ++i) ok = Number(f[1 + i], v[i]);
    if (!ok) {
      out.problems.push_back({number, "expected 8 counters after '" + std::string(f[0]) + "'"});
      return;
    }
    std::string name(f[0].substr(0, f[0].size() - 1));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    (*mount)[name] = Counter("usecs", v[0], v[7] * 1000);
  });
  finish();
  return out;
}

}  // namespace fathom::io
