// `fathom catalog follow|status|check|verify|serve` — keep the catalog live from fathom's
// event stream, show how far behind it is, recount its statistics, compare it with the file
// system, and answer find from a long-lived process (docs/catalog.md).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "catalog/follow/event_applier.h"
#include "catalog/follow/event_feed.h"
#include "catalog/follow/stream_follower.h"
#include "catalog/serve/query_server.h"
#include "catalog/sync/catalog_scan.h"
#include "catalog/sync/catalog_verify.h"
#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/feed_args.h"
#include "cli/signal_waiter.h"
#include "fathom/store.h"
#include "sources/lustre/lustre_scan_info.h"

namespace fathom::cli {
namespace {

struct CatalogCommandArgs {
  std::string catalog;
  // follow, status
  FeedArgs feed;
  uint64_t batch = 8192;
  bool until_idle = false;
  uint64_t max_count = 0;
  double timeout = 0;
  unsigned threads = 0;
  std::string lustre_library;
  // check
  bool recount = false;
  bool repair = false;
  // verify
  std::string path;
  // serve
  std::string socket;
  unsigned serve_threads = 2;
};

// Why the follower stopped, and where a follower started again resumes. A follower does not
// retry a failed transaction itself: what it had read of the stream and the file system for
// it is dropped with it, and a new follower starts from the catalog's last commit.
std::string StoppedMessage(const Status& failure, uint64_t last) {
  const bool lost = failure.code() == std::make_error_code(std::errc::connection_aborted);
  return failure.message() + "; stopped: the catalog stands at event " + std::to_string(last) +
         " (its last confirmed commit; nothing after it was recorded as applied): run `fathom catalog "
         "follow` again once " +
         (lost ? "the server is back" : "the cause is fixed") + ": it resumes there";
}

int RunFollow(const CatalogCommandArgs& a) {
  auto catalog = OpenCatalog(a.catalog, /*read_only=*/false);
  if (!catalog.ok()) return Fail("catalog follow", catalog.status().message(), kExitFailure);
  auto since = catalog.value()->LastApplied(a.feed.name);
  if (!since.ok()) return Fail("catalog follow", since.status().message(), kExitFailure);
  auto feed = OpenFeed(a.feed, since.value());
  if (!feed.ok()) {
    const bool usage = a.feed.store.empty() + a.feed.from.empty() + a.feed.bus.empty() != 2;
    return Fail("catalog follow", feed.status().message(), usage ? kExitUsage : kExitFailure);
  }
  std::atomic<bool> stop{false};
  catalog::EventFeed* feed_ptr = feed.value().get();
  SignalWaiter signals([&](int) {
    stop = true;
    feed_ptr->Stop();
  });

  // Lustre's view (FID, MDT, layout) of what is read below the catalog's roots on Lustre.
  auto info = catalog.value()->Info();
  if (!info.ok()) return Fail("catalog follow", info.status().message(), kExitFailure);
  auto lustre = lustre_source::LustreView::ForRoots(a.lustre_library, info.value().roots);
  if (!lustre.ok()) return Fail("catalog follow", lustre.status().message(), kExitFailure);
  catalog::CatalogScanOptions scan_options;
  scan_options.scan.threads = a.threads;
  scan_options.scan.describe = lustre_source::DescribeHook(*lustre);
  auto rescan = [&](std::vector<std::string> roots) -> Status {
    spdlog::info("catalog: scanning {}", roots.size() == 1 ? roots[0] : "every root");
    return catalog::ScanIntoCatalog(*catalog.value(), roots, scan_options, {}, stop).status();
  };
  catalog::EventApplier applier(*catalog.value(), a.feed.name,
                                [&](std::string_view path) { return rescan({std::string(path)}); },
                                lustre_source::DescribeHook(*lustre));
  catalog::FollowLimits limits;
  limits.max_batch = a.batch;
  limits.max_events = a.max_count;
  limits.until_idle = a.until_idle;
  catalog::FollowCallbacks callbacks;
  callbacks.rescan_roots = [&]() -> Status {
    FATHOM_ASSIGN_OR_RETURN(catalog::CatalogInfo info, catalog.value()->Info());
    if (info.roots.empty()) return Status::Ok();
    return rescan(info.roots);
  };
  std::unique_ptr<std::thread> timer;
  if (a.timeout > 0) {
    timer = std::make_unique<std::thread>([&, deadline = std::chrono::steady_clock::now() +
                                                         std::chrono::duration<double>(a.timeout)] {
      while (!stop.load() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      stop = true;
      feed_ptr->Stop();
    });
  }
  Status followed = catalog::FollowStream(*feed.value(), applier, limits, callbacks, stop);
  stop = true;
  if (timer) timer->join();
  const auto& c = applier.counters();
  // Not read back from the catalog: its server may be the reason the follower stopped.
  const uint64_t last = std::max(since.value(), applier.last_applied());
  spdlog::info(
      "catalog: {} events applied (last id {}); {} paths read, {} already gone, {} "
      "outside the roots, {} placed by their parent's FID, {} subtrees scanned; {} directories "
      "settled, {} names corrected",
      c.events, last, c.reads, c.gone, c.outside, c.placed, c.rescans, c.settled, c.corrected);
  if (!followed.ok()) return Fail("catalog follow", StoppedMessage(followed, last), kExitFailure);
  return kExitOk;
}

int RunStatus(const CatalogCommandArgs& a) {
  auto catalog = OpenCatalog(a.catalog, /*read_only=*/true);
  if (!catalog.ok()) return Fail("catalog status", catalog.status().message(), kExitFailure);
  auto info = catalog.value()->Info();
  if (!info.ok()) return Fail("catalog status", info.status().message(), kExitFailure);
  auto applied = catalog.value()->LastApplied(a.feed.name);
  if (!applied.ok()) return Fail("catalog status", applied.status().message(), kExitFailure);
  const auto& i = info.value();
  std::printf("catalog: %s (%s, schema %d)\n", i.uri.c_str(), i.backend.c_str(), i.schema_version);
  std::printf("entries: %llu, names: %llu, removed kept: %llu\n",
              static_cast<unsigned long long>(i.entries), static_cast<unsigned long long>(i.names),
              static_cast<unsigned long long>(i.removed));
  std::printf("database: %lld bytes (%.0f per entry)\n", static_cast<long long>(i.bytes),
              i.entries > 0 ? static_cast<double>(i.bytes) / static_cast<double>(i.entries) : 0.0);
  for (const std::string& root : i.roots) std::printf("root: %s\n", root.c_str());
  std::printf("consumer %s: last applied id %llu\n", a.feed.name.c_str(),
              static_cast<unsigned long long>(applied.value()));
  if (!a.feed.store.empty()) {
    auto file = StoreFile(a.feed.store);
    if (!file.ok()) return Fail("catalog status", file.status().message(), kExitUsage);
    StoreOptions options;
    options.path = file.value();
    options.read_only = true;
    auto store = EventStore::Open(options);
    if (!store.ok()) return Fail("catalog status", store.status().message(), kExitFailure);
    auto newest = store.value()->LastId();
    if (!newest.ok()) return Fail("catalog status", newest.status().message(), kExitFailure);
    // The lag in time: how long ago the oldest event not applied yet happened.
    double lag_seconds = 0;
    ReplayQuery first_pending;
    first_pending.since_id = applied.value();
    first_pending.limit = 1;
    Status replayed = store.value()->Replay(first_pending, [&](const Event& e) {
      lag_seconds = static_cast<double>(NowNs() - e.ts_ns) / 1e9;
      return false;
    });
    if (!replayed.ok()) return Fail("catalog status", replayed.message(), kExitFailure);
    const uint64_t lag = newest.value() > applied.value() ? newest.value() - applied.value() : 0;
    std::printf("stream %s: newest id %llu, lag %llu events, %.1f s\n", file.value().c_str(),
                static_cast<unsigned long long>(newest.value()),
                static_cast<unsigned long long>(lag), lag > 0 ? lag_seconds : 0.0);
  }
  return kExitOk;
}

int RunCheck(const CatalogCommandArgs& a) {
  auto catalog = OpenCatalog(a.catalog, /*read_only=*/!a.repair);
  if (!catalog.ok()) return Fail("catalog check", catalog.status().message(), kExitFailure);
  auto report = catalog.value()->Recount(a.repair);
  if (!report.ok()) return Fail("catalog check", report.status().message(), kExitFailure);
  const auto& r = report.value();
  for (const std::string& d : r.differences) std::printf("%s\n", d.c_str());
  std::printf("%llu entries, %llu names: %s\n", static_cast<unsigned long long>(r.entries),
              static_cast<unsigned long long>(r.names),
              r.ok() ? "every kept statistic agrees with a recount"
                     : (a.repair ? "statistics that differed were replaced by the recount"
                                 : "statistics differ from a recount (--repair replaces them)"));
  return r.ok() || a.repair ? kExitOk : kExitFailure;
}

int RunVerify(const CatalogCommandArgs& a) {
  auto catalog = OpenCatalog(a.catalog, /*read_only=*/true);
  if (!catalog.ok()) return Fail("catalog verify", catalog.status().message(), kExitFailure);
  std::error_code ec;
  const std::string root = catalog::LexicalPath(std::filesystem::current_path(ec).string(), a.path);
  scan::ScanOptions options;
  options.threads = a.threads;
  auto summary =
      catalog::VerifyCatalog(*catalog.value(), root, options, [](const catalog::Difference& d) {
        std::printf("%s\n", catalog::FormatDifference(d).c_str());
      });
  std::fflush(stdout);
  if (!summary.ok()) return Fail("catalog verify", summary.status().message(), kExitFailure);
  const auto& s = summary.value();
  spdlog::info("catalog verify: {} names compared, {} differences, {} could not be read", s.entries,
               s.differences, s.problems);
  return s.differences == 0 ? kExitOk : kExitFailure;
}

int RunServe(const CatalogCommandArgs& a) {
  std::mutex mu;
  std::condition_variable stop;
  bool stopping = false;
  SignalWaiter signals([&](int) {
    std::lock_guard lock(mu);
    stopping = true;
    stop.notify_all();
  });
  catalog::serve::QueryServerOptions options;
  options.catalog = a.catalog;
  options.socket_path = a.socket;
  options.threads = a.serve_threads;
  auto server = catalog::serve::QueryServer::Start(options);
  if (!server.ok()) return Fail("catalog serve", server.status().message(), kExitFailure);
  std::printf("fathom catalog serve: answering find for %s on %s\n", a.catalog.c_str(),
              (*server)->socket_path().c_str());
  std::fflush(stdout);
  {
    std::unique_lock lock(mu);
    stop.wait(lock, [&] { return stopping; });
  }
  (*server)->Stop();
  spdlog::info("catalog serve: stopped after {} queries", (*server)->answered());
  return kExitOk;
}

}  // namespace

CommandRunner AddCatalogCommand(CLI::App& app) {
  auto args = std::make_shared<CatalogCommandArgs>();
  CLI::App* cmd =
      app.add_subcommand("catalog", "Keep the catalog live from the event stream, and check it");
  cmd->require_subcommand(1);

  CLI::App* follow = cmd->add_subcommand(
      "follow",
      "Apply the event stream to the catalog as a durable consumer: each batch committed with "
      "the id of its last event, acknowledged only then");
  follow->footer(
      "\nExamples:\n"
      "  fathom catalog follow --catalog cat.db --store events.db\n"
      "  fathom catalog follow --catalog cat.db --from tcp://agg:7400 --key me.key "
      "--server-key agg.pub --name catalog\n"
      "Start with `fathom scan` of the roots; a root the catalog lacks is scanned when its "
      "first event comes, an OVERFLOW rescans the subtree it names.");
  AddCatalogOption(*follow, args->catalog);
  AddFeedOptions(*follow, args->feed, "catalog", "the catalog");
  follow->add_option("--batch", args->batch, "Events per transaction, at most")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20))
      ->default_str("8192");
  follow->add_flag("--until-idle", args->until_idle,
                   "Stop once every event the stream holds is applied");
  follow->add_option("--threads", args->threads, "Directories read at once by rescans");
  follow->add_option("--lustre-library", args->lustre_library,
                     "liblustreapi to read the FID, MDT and layout of what is read on Lustre with "
                     "(default: the system's liblustreapi.so.1, when there is one)")
      ->type_name("PATH");
  AddLimitOptions(*follow, args->max_count, args->timeout);

  CLI::App* status = cmd->add_subcommand(
      "status", "Show the catalog's size, roots, and how far behind the stream it is");
  AddCatalogOption(*status, args->catalog);
  status->add_option("--name", args->feed.name, "The consumer whose position is shown")
      ->default_str("catalog");
  status
      ->add_option("--store", args->feed.store,
                   "The store it follows: also show the newest id there and the lag")
      ->type_name("FILE");

  CLI::App* check = cmd->add_subcommand(
      "check",
      "Recount every kept statistic (accounting, subtree totals) and compare; exit 1 if any "
      "differs");
  AddCatalogOption(*check, args->catalog);
  check->add_flag("--recount", args->recount,
                  "Recount and compare (what check does; accepted for clarity)");
  check->add_flag("--repair", args->repair, "Replace the statistics that differ by the recount");

  CLI::App* verify = cmd->add_subcommand(
      "verify",
      "Compare the catalog with the live file system below PATH and print every difference; "
      "exit 1 if there is any");
  AddCatalogOption(*verify, args->catalog);
  verify->add_option("PATH", args->path, "The directory to compare")->required();
  verify->add_option("--threads", args->threads, "Directories read at once");

  CLI::App* serve = cmd->add_subcommand(
      "serve",
      "Keep the catalog open and answer fathom find from it, each caller as its permissions "
      "let it see; find uses the server when its socket exists");
  serve->footer(
      "\nExamples:\n"
      "  fathom catalog serve --catalog cat.db &        # listens on cat.db.sock\n"
      "  fathom find --catalog cat.db /srv -size +1G     # answered by the server\n"
      "  fathom find --catalog cat.db --no-server /srv   # answered by find itself\n"
      "Expressions that act on or read the file system (-delete, -exec, -fprint, -newer FILE) "
      "are answered by find itself, with the caller's own rights.");
  AddCatalogOption(*serve, args->catalog);
  serve->add_option("--socket", args->socket,
                    "The Unix socket to listen on (default: the SQLite catalog's file name + .sock; "
                    "required for PostgreSQL)")
      ->type_name("PATH");
  serve->add_option("--threads", args->serve_threads, "Catalogs kept open: queries answered at once")
      ->check(CLI::Range(1u, 64u))
      ->default_str("2");

  return [args, follow, status, check, verify, serve] {
    if (serve->parsed()) return RunServe(*args);
    if (follow->parsed()) return RunFollow(*args);
    if (status->parsed()) return RunStatus(*args);
    if (check->parsed()) return RunCheck(*args);
    if (verify->parsed()) return RunVerify(*args);
    return kExitUsage;
  };
}

}  // namespace fathom::cli
