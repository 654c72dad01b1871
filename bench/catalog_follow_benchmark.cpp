// catalog_follow_benchmark — how fast `fathom catalog follow` applies the event stream to a
// SQLite catalog, attribute refresh included, and how long an event takes to reach it.
//
//   throughput: a tree of FILES files is scanned into a fresh catalog; a store is filled with
//     EVENTS events about them (MODIFY, ATTRIB, CLOSE_WRITE on existing files, and CREATE and
//     DELETE of files made and removed on disk to match); the follower then applies the whole
//     store (each path named read once per batch with lstat), then settles (compares the
//     directories it read with the live ones). Prints events/s.
//   latency: `fathom watch -r TREE --store S` runs beside an in-process follower of S while a
//     workload changes RATE files a second (utimensat: one ATTRIB each) for SECONDS; each
//     event's latency is the time from the source's observation (its ts) to the commit of
//     the catalog transaction that applied it. Prints p50/p99/max.
//
// Usage: catalog_follow_benchmark [--files N] [--events N] [--rate R] [--seconds S]
//                                 [--dir DIR] [--fathom PATH]
// Robinhood's published ingest into MySQL is 50,000-100,000 records/s; no Debian package
// keeps a database mirror from events, so there is no peer to run beside it.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catalog/follow/event_applier.h"
#include "catalog/follow/event_feed.h"
#include "catalog/sync/catalog_scan.h"
#include "fathom/store.h"

namespace {

using fathom::Event;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

void Die(const std::string& what) {
  std::fprintf(stderr, "catalog_follow_benchmark: %s\n", what.c_str());
  std::exit(1);
}

void Check(const fathom::Status& s) {
  if (!s.ok()) Die(s.message());
}

std::string FileName(const std::string& root, uint64_t i) {
  return root + "/d" + std::to_string(i % 100) + "/f" + std::to_string(i);
}

void MakeTree(const std::string& root, uint64_t files) {
  ::mkdir(root.c_str(), 0755);
  for (int d = 0; d < 100; ++d) ::mkdir((root + "/d" + std::to_string(d)).c_str(), 0755);
  for (uint64_t i = 0; i < files; ++i) {
    const int fd = ::open(FileName(root, i).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) Die("cannot create " + FileName(root, i));
    ::close(fd);
  }
}

std::unique_ptr<fathom::catalog::Catalog> FreshCatalog(const std::string& path) {
  ::unlink(path.c_str());
  ::unlink((path + "-wal").c_str());
  ::unlink((path + "-shm").c_str());
  fathom::catalog::CatalogOptions options;
  options.uri = path;
  auto catalog = fathom::catalog::Catalog::Open(options);
  if (!catalog.ok()) Die(catalog.status().message());
  return std::move(catalog.value());
}

void Scan(fathom::catalog::Catalog& catalog, const std::string& root) {
  std::atomic<bool> stop{false};
  auto scanned = fathom::catalog::ScanIntoCatalog(catalog, {root}, {}, {}, stop);
  if (!scanned.ok()) Die(scanned.status().message());
}

void Throughput(const std::string& dir, uint64_t files, uint64_t events) {
  const std::string root = dir + "/tree";
  MakeTree(root, files);
  auto catalog = FreshCatalog(dir + "/catalog.db");
  Scan(*catalog, root);
  const std::string store_path = dir + "/events.db";
  ::unlink(store_path.c_str());
  {
    auto store = fathom::EventStore::Open(fathom::StoreOptions{.path = store_path, .sync_full = false});
    if (!store.ok()) Die(store.status().message());
    std::mt19937_64 rng(1);
    std::vector<Event> batch;
    uint64_t created = files;
    for (uint64_t n = 0; n < events; ++n) {
      Event e;
      e.ts_ns = fathom::NowNs();
      e.root = root;
      e.source = "bench";
      const uint64_t r = rng() % 100;
      if (r < 2) {  // a new file, made on disk too
        e.mask = fathom::kind::kCreate;
        e.path = FileName(root, created++);
        ::close(::open(e.path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
      } else if (r < 3 && created > files) {  // one of those removed again
        e.mask = fathom::kind::kDelete;
        e.path = FileName(root, --created);
        ::unlink(e.path.c_str());
      } else {
        e.mask = r < 50 ? fathom::kind::kModify : (r < 80 ? fathom::kind::kAttrib : fathom::kind::kCloseWrite);
        e.path = FileName(root, rng() % files);
      }
      batch.push_back(std::move(e));
      if (batch.size() == 8192 || n + 1 == events) {
        Check(store.value()->Append(batch));
        batch.clear();
      }
    }
  }
  auto feed = fathom::catalog::OpenStoreFeed(store_path, 0);
  if (!feed.ok()) Die(feed.status().message());
  fathom::catalog::EventApplier applier(*catalog, "bench", [](std::string_view) {
    return fathom::Status::Ok();
  });
  fathom::catalog::FeedBatch batch;
  const auto started = Clock::now();
  for (;;) {
    Check(feed.value()->Next(batch, 8192, std::chrono::milliseconds(0)));
    if (batch.events.empty()) break;
    Check(applier.Apply(batch.events));
  }
  const double seconds = Seconds(started);
  // Caught up: the directories read are compared with the live ones, as a follower does.
  const auto settling = Clock::now();
  Check(applier.Settle());
  const double settled = Seconds(settling);
  const auto& c = applier.counters();
  std::printf("throughput: %llu events applied in %.2f s: %.0f events/s (%llu paths read, %llu "
              "gone) over %llu files; then %llu directories settled in %.2f s (%llu names "
              "corrected): %.0f events/s in all\n",
              static_cast<unsigned long long>(c.events), seconds,
              static_cast<double>(c.events) / seconds, static_cast<unsigned long long>(c.reads),
              static_cast<unsigned long long>(c.gone), static_cast<unsigned long long>(files),
              static_cast<unsigned long long>(c.settled), settled,
              static_cast<unsigned long long>(c.corrected),
              static_cast<double>(c.events) / (seconds + settled));
}

void Latency(const std::string& dir, const std::string& fathom, uint64_t files, double rate,
             double seconds) {
  const std::string root = dir + "/latency-tree";
  MakeTree(root, files);
  auto catalog = FreshCatalog(dir + "/latency-catalog.db");
  Scan(*catalog, root);
  const std::string store_path = dir + "/latency-events.db";
  ::unlink(store_path.c_str());
  const pid_t watch = ::fork();
  if (watch == 0) {
    ::execl(fathom.c_str(), fathom.c_str(), "watch", "-r", root.c_str(), "--store",
            store_path.c_str(), "-q", "--sync", "normal", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));  // watches established
  std::atomic<bool> done{false};
  std::thread workload([&] {
    const auto period = std::chrono::duration<double>(1.0 / rate);
    auto next = Clock::now();
    for (uint64_t i = 0; !done; ++i) {
      ::utimensat(AT_FDCWD, FileName(root, i % files).c_str(), nullptr, 0);
      next += std::chrono::duration_cast<Clock::duration>(period);
      std::this_thread::sleep_until(next);
    }
  });
  std::unique_ptr<fathom::catalog::EventFeed> feed;
  for (int i = 0; i < 50 && !feed; ++i) {
    auto opened = fathom::catalog::OpenStoreFeed(store_path, 0);
    if (opened.ok()) feed = std::move(opened.value());
    else std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!feed) Die("the watch did not create " + store_path);
  fathom::catalog::EventApplier applier(*catalog, "bench", [](std::string_view) {
    return fathom::Status::Ok();
  });
  std::vector<double> latencies_ms;
  fathom::catalog::FeedBatch batch;
  const auto started = Clock::now();
  while (Seconds(started) < seconds) {
    Check(feed->Next(batch, 8192, std::chrono::milliseconds(100)));
    if (batch.events.empty()) continue;
    Check(applier.Apply(batch.events));
    const int64_t committed = fathom::NowNs();
    for (const Event& e : batch.events) latencies_ms.push_back((committed - e.ts_ns) / 1e6);
  }
  done = true;
  workload.join();
  ::kill(watch, SIGINT);
  ::waitpid(watch, nullptr, 0);
  if (latencies_ms.empty()) Die("no event reached the catalog");
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto at = [&](double q) { return latencies_ms[static_cast<size_t>(q * (latencies_ms.size() - 1))]; };
  std::printf("latency at %.0f events/s for %.0f s: %zu events, p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
              rate, seconds, latencies_ms.size(), at(0.5), at(0.99), latencies_ms.back());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Events applied per second by the catalog follower, and event-to-catalog latency"};
  uint64_t files = 100'000, events = 1'000'000;
  double rate = 10'000, seconds = 10;
  std::string dir = "/var/tmp/fathom-catalog-bench";
  std::string fathom = FATHOM_BINARY;
  app.add_option("--files", files, "Files in the tree");
  app.add_option("--events", events, "Events in the throughput run's store");
  app.add_option("--rate", rate, "Changes per second in the latency run (0: skip it)");
  app.add_option("--seconds", seconds, "Length of the latency run");
  app.add_option("--dir", dir, "Where the trees, stores and catalogs are made");
  app.add_option("--fathom", fathom, "The fathom program for the latency run's watch");
  CLI11_PARSE(app, argc, argv);
  ::mkdir(dir.c_str(), 0755);
  Throughput(dir, files, events);
  if (rate > 0) Latency(dir, fathom, std::min<uint64_t>(files, 10'000), rate, seconds);
  return 0;
}
