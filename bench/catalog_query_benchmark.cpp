// catalog_query_benchmark — what the catalog costs to fill and what its answers cost, beside
// the tools that answer the same questions by walking the file system.
//
//   tree (TREE given; make it with `mkcatalogtree --dir TREE --entries N --varied`):
//     scan:    `fathom scan` into a fresh, durable SQLite catalog, beside `find -printf
//              '%i %s %U %G %T@ %p\n'` and bfs with the same format (warm cache; numeric
//              owners, as the catalog keeps them), and once beside find printing owner and
//              group names (`%u %g`: a look-up in /etc/passwd and /etc/group per file): seconds,
//              entries/s, the peer's time over fathom's, peak RSS, database bytes per entry;
//     queries: `fathom find`/`fathom du` on that catalog beside GNU find/du on the tree —
//              selective finds, a full listing, du -s of the root and of a directory three
//              levels down; each pair's outputs are compared (sorted lines) and must agree;
//              and `fathom report --top-users`; then the same finds answered by a `fathom
//              catalog serve` of the catalog (its first answer, and the best of --repeat).
//   sizes (--sizes, default 100000,1000000,10000000): synthetic catalogs of each size
//     (synthetic_catalog.h); `fathom du -s` of the root and of a directory three levels down
//     and `fathom report --top-users`, each a whole command as a user runs it, in ms: the
//     kept statistics make them the same cost at every size.
//
// Every figure is the best of --repeat runs. Catalogs are made in --work (default a new
// directory under /tmp; synthetic ones are kept there and reused by the next run). With
// --postgresql every catalog is a database of a throwaway PostgreSQL 15 server the benchmark
// starts on loopback (fsync off, as the tests make it; nothing is kept).
//
// Usage: catalog_query_benchmark [TREE] [--sizes N,N,...] [--repeat R] [--work DIR]
//                                [--fathom PATH] [--postgresql]
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>
#include <sstream>
#include <string>
#include <vector>

#include "fathom/catalog.h"
#include "support/postgres_server.h"
#include "synthetic_catalog.h"
#include "timed_run.h"

namespace {

using fathom::bench::BestOf;
using fathom::bench::TimedRun;

struct Config {
  std::string tree;
  std::vector<int64_t> sizes = {100000, 1000000, 10000000};
  int repeat = 3;
  std::string work;
  std::string fathom;
  std::unique_ptr<fathom::testing::PostgresServer> postgres;  // --postgresql
};

// A new, empty catalog called `name`: its URI (an SQLite file in --work, or a database of the
// PostgreSQL server made again).
std::string FreshCatalog(const Config& config, const std::string& name) {
  if (!config.postgres) {
    const std::string db = config.work + "/" + name + ".db";
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
    return "sqlite:" + db;
  }
  config.postgres->Exec("DROP DATABASE IF EXISTS " + name, "postgres");
  config.postgres->Exec("CREATE DATABASE " + name, "postgres");
  return config.postgres->Uri(fathom::testing::PostgresServer::kSuperuser, name);
}

// The size of the catalog's database, as `fathom catalog status` gives it.
int64_t CatalogBytes(const std::string& uri) {
  fathom::catalog::CatalogOptions options;
  options.uri = uri;
  options.read_only = true;
  auto catalog = fathom::catalog::Catalog::Open(options);
  if (!catalog.ok()) return 0;
  auto info = (*catalog)->Info();
  return info.ok() ? info->bytes : 0;
}

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

int64_t FileBytes(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

// The first directory three levels below `root` (depth first, names sorted), else "".
std::string ThreeLevelsDown(const std::string& root) {
  std::string dir = root;
  for (int level = 0; level < 3; ++level) {
    std::vector<std::string> subdirs;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.is_directory() && !e.is_symlink()) subdirs.push_back(e.path().string());
    if (subdirs.empty()) return "";
    dir = *std::min_element(subdirs.begin(), subdirs.end());
  }
  return dir;
}

// `fathom catalog serve` of `db` on `socket`, started and answering: its pid, or -1.
pid_t StartServer(const std::string& fathom, const std::string& db, const std::string& socket) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);  // its start line
    ::execl(fathom.c_str(), fathom.c_str(), "catalog", "serve", "--catalog", db.c_str(), "--socket",
            socket.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
  for (int i = 0; i < 1000 && pid > 0; ++i) {
    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    const bool up = ::connect(sock, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
    ::close(sock);
    if (up) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

bool Check(const TimedRun& run, const std::string& what) {
  if (!run.started) {
    std::fprintf(stderr, "catalog_query_benchmark: %s could not be run\n", what.c_str());
    return false;
  }
  if (run.exit_code != 0) {
    std::fprintf(stderr, "catalog_query_benchmark: %s exited with %d\n", what.c_str(), run.exit_code);
    return false;
  }
  return true;
}

int TreeFigures(const Config& config) {
  const std::string& tree = config.tree;
  std::string db;
  const std::string format = "%i %s %U %G %T@ %p\n";
  TimedRun listing = fathom::bench::RunTimed({"find", tree, "-printf", "x"}, true);  // also warms the cache
  if (!Check(listing, "find")) return 1;
  const double entries = static_cast<double>(listing.out.size());
  std::printf("tree %s: %.0f entries\n\n", tree.c_str(), entries);

  // The scan, into a fresh catalog each time.
  TimedRun scan;
  for (int r = 0; r < config.repeat; ++r) {
    db = FreshCatalog(config, "tree");
    TimedRun run = fathom::bench::RunTimed({config.fathom, "scan", "-q", "--catalog", db, tree});
    if (!Check(run, "fathom scan")) return 1;
    if (r == 0 || run.seconds < scan.seconds) scan = run;
  }
  const double bytes = static_cast<double>(CatalogBytes(db));
  std::printf("%-44s %9s %12s %10s %9s\n", "scan", "seconds", "entries/s", "peer/fathom", "RSS MB");
  auto row = [&](const std::string& tool, const TimedRun& run) {
    std::printf("%-44s %9.3f %12.0f %10.2fx %9.1f\n", tool.c_str(), run.seconds, entries / run.seconds,
                run.seconds / scan.seconds, static_cast<double>(run.peak_rss_kb) / 1024.0);
  };
  row(config.postgres ? "fathom scan (PostgreSQL catalog)" : "fathom scan (durable SQLite catalog)", scan);
  for (const std::string peer : {"find", "bfs"}) {
    if (!fathom::bench::Installed(peer)) {
      std::printf("%-44s not installed (apt-get install %s)\n", peer.c_str(), peer.c_str());
      continue;
    }
    TimedRun run = BestOf(config.repeat, {peer, tree, "-printf", format});
    if (Check(run, peer)) row(peer + " -printf '%i %s %U %G %T@ %p\\n'", run);
  }
  // With owner and group names, as administrators print them: once (it is slow).
  TimedRun named = fathom::bench::RunTimed({"find", tree, "-printf", "%i %s %u %g %T@ %p\n"});
  if (Check(named, "find")) row("find -printf '%i %s %u %g %T@ %p\\n'", named);
  std::printf("database: %.1f bytes per entry\n\n", bytes / entries);

  // The same questions, from the catalog and from the tree.
  struct Query {
    std::string name;
    std::vector<std::string> fathom, peer;
  };
  const std::string deep = ThreeLevelsDown(tree);
  const std::vector<std::string> cat = {"--catalog", db};
  auto find = [&](std::vector<std::string> expr) {
    std::vector<std::string> ours = {config.fathom, "find"};
    ours.insert(ours.end(), cat.begin(), cat.end());
    ours.push_back(tree);
    ours.insert(ours.end(), expr.begin(), expr.end());
    std::vector<std::string> theirs = {"find", tree};
    theirs.insert(theirs.end(), expr.begin(), expr.end());
    std::string name = "find";
    for (const auto& e : expr) name += " " + e;
    return Query{name, ours, theirs};
  };
  auto du = [&](const std::string& path, const std::string& name) {
    std::vector<std::string> ours = {config.fathom, "du"};
    ours.insert(ours.end(), cat.begin(), cat.end());
    ours.insert(ours.end(), {"-s", path});
    return Query{name, ours, {"du", "-s", path}};
  };
  std::vector<Query> queries = {find({"-size", "+1M", "-user", "1003"}), find({"-name", "*.h5", "-mtime", "-7"}),
                                find({"-newermt", "2000-01-01", "-empty"}), find({}), du(tree, "du -s (root)")};
  if (!deep.empty()) queries.push_back(du(deep, "du -s (3 levels down)"));
  std::vector<std::string> report = {config.fathom, "report"};
  report.insert(report.end(), cat.begin(), cat.end());
  report.push_back("--top-users");
  queries.push_back({"report --top-users", report, {}});

  std::printf("%-28s %10s %10s %12s %8s %s\n", "query", "fathom ms", "peer ms", "peer/fathom", "lines", "same output");
  int rc = 0;
  std::map<std::string, TimedRun> peers;  // by query, for the served figures
  for (const Query& q : queries) {
    TimedRun ours = BestOf(config.repeat, q.fathom, true);
    if (!Check(ours, "fathom " + q.name)) return 1;
    if (q.peer.empty()) {
      std::printf("%-28s %10.1f %10s %12s %8zu %s\n", q.name.c_str(), ours.seconds * 1e3, "-", "-",
                  SortedLines(ours.out).size(), "(no peer)");
      continue;
    }
    TimedRun theirs = BestOf(config.repeat, q.peer, true);
    if (!Check(theirs, q.peer[0])) return 1;
    const bool same = SortedLines(ours.out) == SortedLines(theirs.out);
    if (!same) rc = 1;
    std::printf("%-28s %10.1f %10.1f %11.1fx %8zu %s\n", q.name.c_str(), ours.seconds * 1e3, theirs.seconds * 1e3,
                theirs.seconds / ours.seconds, SortedLines(theirs.out).size(), same ? "yes" : "NO");
    peers[q.name] = std::move(theirs);
  }

  // The same finds answered by a long-lived server of the catalog.
  const std::string socket = config.work + "/serve.sock";
  const pid_t server = StartServer(config.fathom, db, socket);
  if (server < 0) {
    std::fprintf(stderr, "catalog_query_benchmark: fathom catalog serve did not start\n");
    return 1;
  }
  std::printf("\n%-28s %10s %10s %10s %12s %s\n", "fathom catalog serve", "first ms", "best ms", "peer ms",
              "peer/best", "same output");
  for (const Query& q : queries) {
    if (!q.name.starts_with("find")) continue;
    std::vector<std::string> served = {q.fathom[0], q.fathom[1], "--server", socket};
    served.insert(served.end(), q.fathom.begin() + 2, q.fathom.end());
    TimedRun first = fathom::bench::RunTimed(served, true);
    TimedRun best = BestOf(config.repeat, served, true);
    if (!Check(first, "fathom " + q.name + " (served)") || !Check(best, "fathom " + q.name + " (served)")) break;
    const TimedRun& theirs = peers[q.name];
    const bool same = SortedLines(best.out) == SortedLines(theirs.out) && SortedLines(first.out) == SortedLines(theirs.out);
    if (!same) rc = 1;
    std::printf("%-28s %10.1f %10.1f %10.1f %11.1fx %s\n", q.name.c_str(), first.seconds * 1e3, best.seconds * 1e3,
                theirs.seconds * 1e3, theirs.seconds / best.seconds, same ? "yes" : "NO");
  }
  ::kill(server, SIGTERM);
  ::waitpid(server, nullptr, 0);
  std::printf("\n");
  return rc;
}

int SizeFigures(const Config& config) {
  struct Column {
    int64_t entries;
    std::vector<double> ms;
  };
  std::vector<Column> columns;
  const std::vector<std::string> names = {"du -s /bench", "du -s /bench/dir-0/dir-0/dir-0", "report --top-users"};
  for (int64_t n : config.sizes) {
    // SQLite catalogs are kept in --work for the next run; a PostgreSQL server is new each run.
    const std::string name = "synthetic_" + std::to_string(n);
    const std::string sqlite_file = config.work + "/" + name + ".db";
    const bool kept = !config.postgres && FileBytes(sqlite_file) > 0;
    const std::string db = kept ? "sqlite:" + sqlite_file : FreshCatalog(config, name);
    if (!kept) {
      const auto t0 = std::chrono::steady_clock::now();
      fathom::catalog::CatalogOptions options;
      options.uri = db;
      auto catalog = fathom::catalog::Catalog::Open(options);
      if (!catalog.ok()) {
        std::fprintf(stderr, "catalog_query_benchmark: %s\n", catalog.status().message().c_str());
        return 1;
      }
      fathom::bench::PutSyntheticTree(**catalog, n);
      std::fprintf(stderr, "catalog_query_benchmark: made %s (%lld entries) in %.1f s\n", db.c_str(),
                   static_cast<long long>(n),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const std::vector<std::string> cat = {"--catalog", db};
    const std::vector<std::vector<std::string>> commands = {
        {"du", "-s", "/bench"}, {"du", "-s", "/bench/dir-0/dir-0/dir-0"}, {"report", "--top-users"}};
    Column column{n, {}};
    for (size_t i = 0; i < commands.size(); ++i) {
      std::vector<std::string> argv = {config.fathom, commands[i][0]};
      argv.insert(argv.end(), cat.begin(), cat.end());
      argv.insert(argv.end(), commands[i].begin() + 1, commands[i].end());
      TimedRun run = BestOf(std::max(config.repeat, 5), argv, true);
      if (!Check(run, "fathom " + names[i])) return 1;
      column.ms.push_back(run.seconds * 1e3);
    }
    columns.push_back(column);
  }
  std::printf("%-32s", "whole command, ms");
  for (const auto& c : columns) std::printf(" %12lld", static_cast<long long>(c.entries));
  std::printf("\n");
  for (size_t i = 0; i < names.size(); ++i) {
    std::printf("%-32s", names[i].c_str());
    for (const auto& c : columns) std::printf(" %12.1f", c.ms[i]);
    std::printf("\n");
  }
  return 0;
}

std::vector<int64_t> ParseSizes(const std::string& text) {
  std::vector<int64_t> sizes;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) sizes.push_back(std::atoll(item.c_str()));
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  config.fathom = std::filesystem::read_symlink("/proc/self/exe").parent_path().string() + "/fathom";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      config.sizes = ParseSizes(argv[++i]);
    } else if (a == "--repeat" && i + 1 < argc) {
      config.repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--work" && i + 1 < argc) {
      config.work = argv[++i];
    } else if (a == "--fathom" && i + 1 < argc) {
      config.fathom = argv[++i];
    } else if (a == "--postgresql") {
      try {
        config.postgres = std::make_unique<fathom::testing::PostgresServer>();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "catalog_query_benchmark: cannot start PostgreSQL: %s\n", e.what());
        return 1;
      }
    } else if (!a.empty() && a[0] == '/' && config.tree.empty()) {
      config.tree = a;
    } else {
      std::fprintf(stderr,
                   "usage: catalog_query_benchmark [TREE] [--sizes N,N,...] [--repeat R] [--work DIR] "
                   "[--fathom PATH] [--postgresql]\n(TREE an absolute path; --sizes '' for none)\n");
      return 2;
    }
  }
  if (config.work.empty()) {
    char tmpl[] = "/tmp/fathom-query-bench-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      std::perror("catalog_query_benchmark: mkdtemp");
      return 1;
    }
    config.work = tmpl;
  }
  std::filesystem::create_directories(config.work);
  int rc = 0;
  if (!config.tree.empty()) rc |= TreeFigures(config);
  if (!config.sizes.empty()) rc |= SizeFigures(config);
  return rc;
}
