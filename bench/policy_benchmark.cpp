// policy_benchmark — what policies cost, beside the tools that do the same job by walking the
// file system:
//
//   conditions: the condition language evaluated against N in-memory entries (--evaluations,
//               default 1,000,000), compiled once (what fathom does) and parsed again for
//               every entry (a naive interpreter): entries/s and the ratio;
//   candidates: (TREE given; make it with `mkcatalogtree --dir TREE --entries 1000000
//               --varied`) the candidates of a purge policy — `type == file and size > 1M
//               and owner == 1003` — selected by `fathom policy run --dry-run` on TREE's
//               catalog (--catalog, else made by `fathom scan` in --work), beside GNU `find
//               TREE -type f -size +1048576c -uid 1003 -printf '%p\n'`; the two lists are
//               compared and must agree; and the selection alone, in-process (RunPolicy);
//               with --cold (root), the kernel's caches are dropped before each run of either
//               side, as on a file system whose metadata nobody read lately;
//   actions:    deleting and moving --actions files (default 20,000, in 100 directories of
//               --work, which should be on ext4) with `fathom policy run` (each action
//               checked on the live file system and journaled), beside `find -delete`,
//               `find -print0 | xargs -0 rm` and `find -exec mv -t`: actions/s and ratios.
//
// Every figure is the best of --repeat runs (default 3).
//
// Usage: policy_benchmark [TREE] [--catalog URI] [--cold] [--evaluations N] [--actions N]
//                         [--repeat R] [--work DIR] [--fathom PATH]
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fathom/catalog.h"
#include "fathom/condition.h"
#include "fathom/policy.h"
#include "timed_run.h"

namespace {

using fathom::bench::BestOf;
using fathom::bench::RunTimed;
using fathom::bench::TimedRun;
namespace fs = std::filesystem;

bool g_failed = false;  // a command failed or the answers differ: exit 1

struct Config {
  std::string tree, catalog, work, fathom;
  int64_t evaluations = 1'000'000;
  int64_t actions = 20'000;
  int repeat = 3;
  bool cold = false;  // --cold: the page cache dropped before each run of either side
};

// The best of `c.repeat` runs; with --cold, the kernel's caches are dropped before each.
TimedRun Best(const Config& c, const std::vector<std::string>& argv) {
  if (!c.cold) return BestOf(c.repeat, argv, true);
  TimedRun best;
  for (int r = 0; r < c.repeat; ++r) {
    sync();
    std::ofstream("/proc/sys/vm/drop_caches") << "3\n";
    TimedRun run = RunTimed(argv, true);
    if (r == 0 || run.seconds < best.seconds) best = run;
  }
  return best;
}

double Seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void Conditions(const Config& c) {
  const std::string text = "(size > 1GB or owner == 'root') and path == '/fs/**.tar' and last_access > 30d";
  std::vector<fathom::catalog::Attrs> attrs(static_cast<size_t>(c.evaluations));
  std::vector<std::string> paths(attrs.size());
  std::mt19937_64 rng(7);
  const int64_t now = NowNs();
  for (size_t i = 0; i < attrs.size(); ++i) {
    attrs[i].mode = S_IFREG | 0644;
    attrs[i].uid = static_cast<uint32_t>(rng() % 4);
    attrs[i].size = static_cast<int64_t>(rng() % (int64_t{4} << 30));
    attrs[i].atime_ns = now - static_cast<int64_t>(rng() % 100) * 86'400'000'000'000;
    paths[i] = "/fs/p" + std::to_string(rng() % 100) + "/f" + std::to_string(i) + ((rng() & 1) != 0 ? ".tar" : ".dat");
  }
  auto subject = [&](size_t i) {
    fathom::condition::Subject s;
    s.path = paths[i];
    s.attrs = &attrs[i];
    return s;
  };
  auto compiled = fathom::condition::Condition::Parse(text);
  if (!compiled.ok()) {
    std::fprintf(stderr, "%s\n", compiled.status().message().c_str());
    return;
  }
  double best_compiled = 1e9, best_naive = 1e9;
  uint64_t matched = 0, matched_naive = 0;
  for (int r = 0; r < c.repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    uint64_t m = 0;
    for (size_t i = 0; i < attrs.size(); ++i) m += compiled->Matches(subject(i), now);
    best_compiled = std::min(best_compiled, Seconds(std::chrono::steady_clock::now() - t0));
    matched = m;
    // The naive interpreter: the text parsed again for each entry (on a tenth of them).
    const size_t naive_n = attrs.size() / 10;
    t0 = std::chrono::steady_clock::now();
    m = 0;
    for (size_t i = 0; i < naive_n; ++i) m += fathom::condition::Condition::Parse(text)->Matches(subject(i), now);
    best_naive = std::min(best_naive, Seconds(std::chrono::steady_clock::now() - t0) * 10);
    matched_naive = m;
  }
  const double n = static_cast<double>(attrs.size());
  std::printf("conditions: %s\n", text.c_str());
  std::printf("  compiled: %.1f M entries/s (%llu of %lld match)\n", n / best_compiled / 1e6,
              static_cast<unsigned long long>(matched), static_cast<long long>(c.evaluations));
  std::printf("  parsed per entry: %.2f M entries/s (%llu of the first tenth match)\n", n / best_naive / 1e6,
              static_cast<unsigned long long>(matched_naive));
  std::printf("  compiled / parsed per entry: %.1fx\n", best_naive / best_compiled);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  std::sort(out.begin(), out.end());
  return out;
}

void Candidates(const Config& c) {
  std::string catalog = c.catalog;
  if (catalog.empty()) {
    catalog = c.work + "/tree.db";
    fs::remove(catalog);
    TimedRun scan = RunTimed({c.fathom, "scan", "-q", "--catalog", catalog, c.tree});
    std::printf("catalog: `fathom scan` of %s: %.1f s\n", c.tree.c_str(), scan.seconds);
  }
  const std::string config = c.work + "/purge.yaml";
  std::ofstream(config) << "policies:\n  purge:\n    default_action: delete\n    rules:\n"
                           "      - {name: big_1003, condition: \"type == file and size > 1M and owner == 1003\"}\n";
  TimedRun ours = Best(c, {c.fathom, "policy", "run", "purge", "--dry-run", "--config", config, "--catalog", catalog});
  TimedRun gnu = Best(c, {"find", c.tree, "-type", "f", "-size", "+1048576c", "-uid", "1003", "-printf", "%p\n"});
  std::vector<std::string> selected;
  for (const std::string& line : Lines(ours.out)) {
    const size_t from = std::string("would delete ").size();
    selected.push_back(line.substr(from, line.rfind(" (rule ") - from));
  }
  std::sort(selected.begin(), selected.end());
  const bool same = selected == Lines(gnu.out);
  g_failed = g_failed || !same || ours.exit_code != 0 || gnu.exit_code != 0;
  // In-process: the selection, decisions and live checks alone, the catalog already open.
  fathom::catalog::CatalogOptions options;
  options.uri = catalog;
  options.read_only = true;
  auto opened = fathom::catalog::Catalog::Open(options);
  auto loaded = fathom::policy::LoadPolicyConfig(config);
  double in_process = 1e9;
  if (opened.ok() && loaded.ok()) {
    for (int r = 0; r < c.repeat; ++r) {
      fathom::policy::RunOptions dry;
      dry.dry_run = true;
      if (c.cold) {
        sync();
        std::ofstream("/proc/sys/vm/drop_caches") << "3\n";
      }
      auto t0 = std::chrono::steady_clock::now();
      auto summary = fathom::policy::RunPolicy(*loaded, loaded->policies[0], **opened, nullptr, dry);
      if (summary.ok()) in_process = std::min(in_process, Seconds(std::chrono::steady_clock::now() - t0));
    }
  }
  std::printf("candidates of a purge policy (type == file and size > 1M and owner == 1003)%s: %zu entries, %s\n",
              c.cold ? ", caches dropped before each run" : "", selected.size(),
              same ? "the same as GNU find's" : "DIFFERENT FROM GNU find's");
  std::printf("  fathom policy run --dry-run: %.1f ms; GNU find -printf: %.1f ms; find / fathom: %.1fx\n",
              ours.seconds * 1e3, gnu.seconds * 1e3, gnu.seconds / ours.seconds);
  std::printf("  in-process (RunPolicy, dry run: selection, decisions, live checks): %.1f ms; find / it: %.1fx\n", in_process * 1e3,
              gnu.seconds / in_process);
}

// N files of 64 bytes in 100 directories under `dir` (made anew).
void MakeFiles(const std::string& dir, int64_t n) {
  fs::remove_all(dir);
  for (int64_t i = 0; i < n; ++i) {
    const std::string d = dir + "/d" + std::to_string(i % 100);
    if (i < 100) fs::create_directories(d);
    const int fd = open((d + "/f" + std::to_string(i) + ".dat").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd >= 0) {
      (void)!write(fd, "0123456789012345678901234567890123456789012345678901234567890123", 64);
      close(fd);
    }
  }
  sync();
}

// The best of --repeat runs of argv, on a fresh set of files each time; `prepare` runs after
// the files are made (untimed).
double Timed(const Config& c, const std::string& dir, const std::vector<std::string>& argv,
             const std::function<void()>& prepare = {}) {
  double best = 1e9;
  for (int r = 0; r < c.repeat; ++r) {
    MakeFiles(dir, c.actions);
    if (prepare) prepare();
    TimedRun run = RunTimed(argv);
    if (run.exit_code != 0) {
      std::fprintf(stderr, "policy_benchmark: %s exited %d\n", argv[0].c_str(), run.exit_code);
      g_failed = true;
    }
    best = std::min(best, run.seconds);
  }
  return best;
}

void Actions(const Config& c) {
  const std::string dir = c.work + "/files", trash = c.work + "/trash", db = c.work + "/files.db";
  const std::string config = c.work + "/actions.yaml";
  std::ofstream(config) << "policies:\n"
                           "  purge:\n    default_action: delete\n    rules: [{name: dat, condition: \"name == '*.dat'\"}]\n"
                           "  trash:\n    default_action: {move: " << trash
                        << "}\n    rules: [{name: dat, condition: \"name == '*.dat'\"}]\n";
  auto scan = [&] {
    fs::remove(db);
    fs::remove_all(trash);
    fs::create_directories(trash);
    RunTimed({c.fathom, "scan", "-q", "--catalog", db, dir});
  };
  const double n = static_cast<double>(c.actions);
  const double ours_delete = Timed(c, dir, {c.fathom, "policy", "run", "purge", "--config", config, "--catalog", db}, scan);
  const double find_delete = Timed(c, dir, {"find", dir, "-name", "*.dat", "-delete"});
  const double xargs_rm =
      Timed(c, dir, {"/bin/sh", "-c", "find '" + dir + "' -name '*.dat' -print0 | xargs -0 rm -f"});
  const double ours_move = Timed(c, dir, {c.fathom, "policy", "run", "trash", "--config", config, "--catalog", db}, scan);
  const double find_mv = Timed(c, dir, {"find", dir, "-name", "*.dat", "-exec", "mv", "-t", trash, "{}", "+"}, [&] {
    fs::remove_all(trash);
    fs::create_directories(trash);
  });
  std::printf("actions on %lld files in %s:\n", static_cast<long long>(c.actions), dir.c_str());
  std::printf("  delete: fathom policy run %.0f/s; find -delete %.0f/s (%.2fx fathom's time); find | xargs rm %.0f/s (%.2fx)\n",
              n / ours_delete, n / find_delete, find_delete / ours_delete, n / xargs_rm, xargs_rm / ours_delete);
  std::printf("  move to a trash: fathom policy run %.0f/s; find -exec mv -t %.0f/s (%.2fx fathom's time)\n",
              n / ours_move, n / find_mv, find_mv / ours_move);
  fs::remove_all(dir);
  fs::remove_all(trash);
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "policy_benchmark: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--catalog") c.catalog = value("--catalog");
    else if (a == "--evaluations") c.evaluations = std::stoll(value("--evaluations"));
    else if (a == "--actions") c.actions = std::stoll(value("--actions"));
    else if (a == "--repeat") c.repeat = std::stoi(value("--repeat"));
    else if (a == "--work") c.work = value("--work");
    else if (a == "--fathom") c.fathom = value("--fathom");
    else if (a == "--cold") c.cold = true;
    else if (a == "-h" || a == "--help") {
      std::printf("usage: policy_benchmark [TREE] [--catalog URI] [--cold] [--evaluations N] [--actions N] "
                  "[--repeat R] [--work DIR] [--fathom PATH]\n");
      return 0;
    } else if (!a.starts_with("-") && c.tree.empty()) c.tree = fs::absolute(a);
    else {
      std::fprintf(stderr, "policy_benchmark: unknown argument '%s' (see --help)\n", a.c_str());
      return 2;
    }
  }
  if (c.fathom.empty()) c.fathom = (fs::path(argv[0]).parent_path() / "fathom").string();
  const bool own_work = c.work.empty();
  if (own_work) {
    char tmpl[] = "/var/tmp/fathom-policy-bench-XXXXXX";
    c.work = mkdtemp(tmpl);
  }
  fs::create_directories(c.work);
  Conditions(c);
  if (!c.tree.empty()) Candidates(c);
  if (c.actions > 0) Actions(c);
  if (own_work) fs::remove_all(c.work);
  return g_failed ? 1 : 0;
}
