// web_api_benchmark — `fathom serve` at scale: the latency of each page's data (p50 and p99
// over loopback HTTP) on a catalog of 1,000,000 entries and a store of 10,000,000 events, the
// /metrics scrape, and requests/s on the main calls with several clients. Beside it, the same
// questions asked of the same catalog file with Debian's sqlite3 (usage per user and the age
// histogram computed from the entries, as a page over the raw table would), as ratios: the
// peer's query time as sqlite3's .timer reports it (its start-up left out) over fathom's
// whole HTTP answer, first (computed) and kept.
//
// The catalog and the store are made once in --dir and reused by later runs of the same sizes.
// Usage: web_api_benchmark [--entries N] [--events N] [--dir DIR] [--requests N] [--seconds S]
//        [--quick]   (20,000 entries, 200,000 events, 20 requests: a smoke run)
#include <CLI/CLI.hpp>
#include <httplib.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "fathom/catalog.h"
#include "fathom/event.h"
#include "fathom/store.h"
#include "fathom/web.h"
#include "synthetic_catalog.h"
#include "timed_run.h"

namespace {

using Clock = std::chrono::steady_clock;

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "web_api_benchmark: %s\n", what.c_str());
  return 1;
}

fathom::Status MakeCatalog(const std::string& path, int64_t entries) {
  fathom::catalog::CatalogOptions options;
  options.uri = path;
  auto catalog = fathom::catalog::Catalog::Open(options);
  if (!catalog.ok()) return catalog.status();
  fathom::bench::PutSyntheticTree(*catalog.value(), entries);
  return fathom::Status::Ok();
}

// `count` events about the synthetic tree's files, spread over the last ten minutes.
fathom::Status MakeStore(const std::string& path, uint64_t count) {
  fathom::StoreOptions options;
  options.path = path;
  options.sync_full = false;
  auto store = fathom::EventStore::Open(options);
  if (!store.ok()) return store.status();
  const uint32_t kinds[] = {fathom::kind::kCreate, fathom::kind::kModify, fathom::kind::kCloseWrite,
                            fathom::kind::kDelete};
  const int64_t now = fathom::NowNs(), span = int64_t{600} * 1'000'000'000;
  std::vector<fathom::Event> batch;
  for (uint64_t i = 0; i < count;) {
    batch.clear();
    for (uint64_t j = 0; j < 20'000 && i < count; ++j, ++i) {
      fathom::Event e;
      e.ts_ns = now - span + static_cast<int64_t>(static_cast<double>(span) * static_cast<double>(i) / static_cast<double>(count));
      e.mask = kinds[i % 4];
      e.root = "/bench";
      e.path = "/bench/dir-" + std::to_string(i % 997) + "/file-" + std::to_string(i % 100) + ".dat";
      e.source = i % 10 == 0 ? "fanotify" : "lustre";
      batch.push_back(std::move(e));
    }
    if (auto s = store.value()->Append(batch); !s.ok()) return s;
  }
  return fathom::Status::Ok();
}

struct Latency {
  double first_ms = 0, p50_ms = 0, p99_ms = 0;
  int status = 0;
};

Latency Measure(httplib::Client& client, const std::string& target, const httplib::Headers& auth, int requests) {
  Latency out;
  std::vector<double> ms;
  for (int i = 0; i <= requests; ++i) {
    auto t0 = Clock::now();
    auto r = client.Get(target.c_str(), auth);
    double took = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    out.status = r ? r->status : -1;
    if (i == 0) {
      out.first_ms = took;
    } else {
      ms.push_back(took);
    }
  }
  std::sort(ms.begin(), ms.end());
  out.p50_ms = ms[ms.size() / 2];
  out.p99_ms = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  return out;
}

double Throughput(const std::string& host, int port, const std::string& target, const httplib::Headers& auth,
                  int clients, double seconds) {
  std::atomic<uint64_t> done{0};
  auto until = Clock::now() + std::chrono::duration<double>(seconds);
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      httplib::Client client(host, port);
      client.set_keep_alive(true);
      while (Clock::now() < until) {
        auto r = client.Get(target.c_str(), auth);
        if (r && r->status == 200) ++done;
      }
    });
  }
  for (auto& t : threads) t.join();
  return static_cast<double>(done.load()) / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fathom serve's API latency and throughput on a big catalog and store, beside sqlite3"};
  int64_t entries = 1'000'000;
  uint64_t events = 10'000'000;
  std::string dir = "/tmp/fathom-web-bench";
  int requests = 200;
  double seconds = 3;
  bool quick = false;
  app.add_option("--entries", entries, "Catalog entries")->default_str("1000000");
  app.add_option("--events", events, "Stored events")->default_str("10000000");
  app.add_option("--dir", dir, "Where the catalog and store are made (and reused)")->default_str(dir);
  app.add_option("--requests", requests, "Requests per call for the latencies")->default_str("200");
  app.add_option("--seconds", seconds, "Seconds per call for requests/s")->default_str("3");
  app.add_flag("--quick", quick, "A smoke run: 20,000 entries, 200,000 events, 20 requests");
  CLI11_PARSE(app, argc, argv);
  if (quick) {
    entries = 20'000;
    events = 200'000;
    requests = 20;
    seconds = 0.5;
  }
  ::mkdir(dir.c_str(), 0755);
  const std::string catalog = dir + "/catalog-" + std::to_string(entries) + ".db";
  const std::string store = dir + "/events-" + std::to_string(events) + ".db";
  if (!Exists(catalog)) {
    auto t0 = Clock::now();
    if (auto s = MakeCatalog(catalog, entries); !s.ok()) return Fail(s.message());
    std::fprintf(stderr, "made %s in %.1f s\n", catalog.c_str(), std::chrono::duration<double>(Clock::now() - t0).count());
  }
  if (!Exists(store)) {
    auto t0 = Clock::now();
    if (auto s = MakeStore(store, events); !s.ok()) return Fail(s.message());
    std::fprintf(stderr, "made %s in %.1f s\n", store.c_str(), std::chrono::duration<double>(Clock::now() - t0).count());
  }

  fathom::web::ServeOptions options;
  options.listen = "127.0.0.1:0";
  options.store = store;
  options.catalog = catalog;
  options.quiet = true;
  auto t0 = Clock::now();
  auto server = fathom::web::WebServer::Start(options);
  if (!server.ok()) return Fail(server.status().message());
  double start_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  std::string url = server.value()->Url();
  int port = std::stoi(url.substr(url.rfind(':') + 1));
  httplib::Headers auth = {{"Authorization", "Bearer " + *server.value()->StartupToken()}};
  httplib::Client client("127.0.0.1", port);
  client.set_keep_alive(true);
  client.set_read_timeout(120, 0);

  std::printf("fathom serve: %lld catalog entries, %llu stored events, %d requests per call (started in %.0f ms)\n\n",
              static_cast<long long>(entries), static_cast<unsigned long long>(events), requests, start_ms);
  std::printf("%-46s %10s %9s %9s\n", "call (page)", "first ms", "p50 ms", "p99 ms");
  struct Call {
    const char* page;
    std::string target;
  };
  const std::vector<Call> calls = {
      {"overview", "/api/v1/overview"},
      {"events: newest 100", "/api/v1/events"},
      {"events: one directory, 100", "/api/v1/events?prefix=/bench/dir-5"},
      {"events: one file, DELETE", "/api/v1/events?prefix=/bench/dir-5/file-21.dat&kinds=DELETE"},
      {"events: one by id", "/api/v1/events/" + std::to_string(events / 2)},
      {"catalog: summary", "/api/v1/catalog/summary"},
      {"catalog: usage by user", "/api/v1/catalog/usage?by=user"},
      {"catalog: size profile", "/api/v1/catalog/size-profile"},
      {"catalog: age histogram", "/api/v1/catalog/age-histogram"},
      {"catalog: top directories", "/api/v1/catalog/top-dirs?by=size"},
      {"catalog: subtree, 100 children", "/api/v1/catalog/subtree?path=/bench"},
      {"catalog: removed", "/api/v1/catalog/removed"},
      {"metrics scrape", "/metrics"},
  };
  std::vector<Latency> latencies;
  for (const Call& c : calls) {
    Latency l = Measure(client, c.target, auth, requests);
    if (l.status != 200) return Fail(std::string(c.page) + ": HTTP " + std::to_string(l.status));
    latencies.push_back(l);
    std::printf("%-46s %10.2f %9.2f %9.2f\n", c.page, l.first_ms, l.p50_ms, l.p99_ms);
  }

  std::printf("\n%-46s %10s\n", "requests/s, 4 clients, keep-alive", "req/s");
  for (size_t i : {0u, 1u, 6u, 10u}) {
    std::printf("%-46s %10.0f\n", calls[i].page, Throughput("127.0.0.1", port, calls[i].target, auth, 4, seconds));
  }

  std::printf("\n%-40s %9s %9s %9s %9s %9s\n", "beside sqlite3 on the catalog file", "fathom", "fathom", "sqlite3",
              "ratio", "ratio");
  std::printf("%-40s %9s %9s %9s %9s %9s\n", "", "first ms", "kept ms", "ms", "first", "kept");
  if (!fathom::bench::Installed("sqlite3")) return Fail("sqlite3 is not installed (apt-get install sqlite3)");
  struct Peer {
    const char* what;
    size_t call;
    std::string sql;
  };
  const std::vector<Peer> peers = {
      {"usage by user: GROUP BY uid", 6, "SELECT uid, count(*), sum(size), sum(blocks) FROM entries GROUP BY uid;"},
      {"age histogram: files by mtime range", 8,
       "SELECT CASE WHEN mtime > (strftime('%s','now') - 86400) * 1000000000 THEN 0 "
       "WHEN mtime > (strftime('%s','now') - 604800) * 1000000000 THEN 1 ELSE 2 END AS r, count(*), sum(size) "
       "FROM entries WHERE (mode & 61440) = 32768 GROUP BY r;"},
  };
  for (const Peer& p : peers) {
    std::vector<double> runs;
    for (int i = 0; i < 3; ++i) {
      const std::string script = dir + "/peer.sql";  // .timer reports from a script, not an argument
      if (FILE* f = std::fopen(script.c_str(), "w")) {
        std::fprintf(f, ".timer on\n%s\n", p.sql.c_str());
        std::fclose(f);
      }
      auto run = fathom::bench::RunTimed({"sqlite3", "-readonly", catalog, ".read " + script}, true);
      size_t at = run.out.rfind("Run Time: real ");
      if (run.exit_code != 0 || at == std::string::npos) return Fail(std::string("sqlite3 failed on: ") + p.sql);
      runs.push_back(std::stod(run.out.substr(at + 15)) * 1000);
    }
    double peer = fathom::bench::Median(runs);
    const Latency& ours = latencies[p.call];
    std::printf("%-40s %9.2f %9.2f %9.2f %8.1fx %8.1fx\n", p.what, ours.first_ms, ours.p50_ms, peer,
                peer / ours.first_ms, peer / ours.p50_ms);
  }
  server.value()->Stop();
  return 0;
}
