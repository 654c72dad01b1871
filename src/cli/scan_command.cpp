// `fathom scan` — fill the catalog from a parallel scan of one or more trees (the catalog's
// initial state, or a full resynchronisation); names the scan did not see are removed at its
// end, with progress.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "catalog/sync/catalog_scan.h"
#include "catalog/sync/scan_progress.h"
#include "cli/catalog_args.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "sources/lustre/lustre_scan_info.h"

namespace fathom::cli {
namespace {

struct ScanArgs {
  std::string catalog;
  std::vector<std::string> paths;
  unsigned threads = 0;
  bool resume = false;
  bool cross_mounts = false;
  bool quiet = false;
  std::string lustre_library;  // "" : the system's liblustreapi, when there is one
};

constexpr int kMaxProblemsLogged = 20;

int RunScan(const ScanArgs& args) {
  std::vector<std::string> roots;
  for (const std::string& path : args.paths) {
    std::error_code ec;
    const std::string absolute = catalog::LexicalPath(std::filesystem::current_path(ec).string(), path);
    if (!std::filesystem::is_directory(absolute, ec)) {
      return Fail("scan", path + " is not a directory: give the directories to scan", kExitUsage);
    }
    roots.push_back(absolute);
  }
  auto catalog = OpenCatalog(args.catalog, /*read_only=*/false);
  if (!catalog.ok()) return Fail("scan", catalog.status().message(), kExitFailure);
  // Lustre's columns (FID, MDT, layout) for the trees on a Lustre file system, when
  // liblustreapi is there (the one asked for must be).
  auto lustre = lustre_source::LustreView::ForRoots(args.lustre_library, roots);
  if (!lustre.ok()) return Fail("scan", lustre.status().message(), kExitFailure);

  std::atomic<bool> stop{false};
  SignalWaiter signals([&](int) { stop = true; });
  const bool terminal = !args.quiet && ::isatty(STDERR_FILENO);
  uint64_t problems = 0;
  catalog::CatalogScanOptions options;
  options.scan.threads = args.threads;
  options.scan.cross_devices = args.cross_mounts;
  options.scan.describe = lustre_source::DescribeHook(*lustre);
  options.resume = args.resume;
  catalog::CatalogScanCallbacks callbacks;
  if (terminal) {
    const uint64_t expected = catalog::ExpectedEntries(*catalog.value(), roots);
    callbacks.progress = [expected](const scan::ScanProgress& p) {
      std::fprintf(stderr, "\r\033[K%s", catalog::ScanProgressLine(p, expected).c_str());
    };
    callbacks.cleanup = [](uint64_t removed) {
      std::fprintf(stderr, "\r\033[Kremoving names the scan did not see: %llu",
                   static_cast<unsigned long long>(removed));
    };
  }
  callbacks.problem = [&](const scan::ScanProblem& p) {
    if (++problems <= kMaxProblemsLogged) {
      if (terminal) std::fputs("\r\033[K", stderr);
      spdlog::warn("{}", p.message);
    }
  };
  const auto started = std::chrono::steady_clock::now();
  auto summary = catalog::ScanIntoCatalog(*catalog.value(), roots, options, callbacks, stop);
  if (terminal) std::fputs("\r\033[K", stderr);
  if (!summary.ok()) {
    if (stop) {
      return Fail("scan",
                  "interrupted; the catalog keeps what was written: `fathom scan --resume` "
                  "continues (nothing is removed until a scan ends)",
                  kExitFailure);
    }
    return Fail("scan", summary.status().message(), kExitFailure);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto& s = summary.value();
  if (!args.quiet) {
    spdlog::info(
        "scanned {} entries in {:.1f} s ({:.0f}/s); {} could not be read; {} names "
        "no longer there removed",
        s.entries, seconds, seconds > 0 ? static_cast<double>(s.entries) / seconds : 0.0,
        s.problems, s.removed);
  }
  return kExitOk;
}

}  // namespace

CommandRunner AddScanCommand(CLI::App& app) {
  auto args = std::make_shared<ScanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "scan",
      "Scan directory trees in parallel into the catalog: every name with its attributes; names "
      "the catalog holds below them that the scan did not see are removed at its end");
  cmd->footer(
      "\nExamples:\n"
      "  fathom scan --catalog sqlite:/var/lib/fathom/catalog.db /lustre/scratch\n"
      "  fathom scan --threads 16 --resume /home /projects\n"
      "Symbolic links are never followed; other file systems are not entered (find -xdev) "
      "unless --cross-mounts. Directories that cannot be read are reported and skipped. Then "
      "`fathom catalog follow` keeps the catalog up to date from the event stream.");
  AddCatalogOption(*cmd, args->catalog);
  cmd->add_option("PATH", args->paths, "Directories to scan")->required();
  cmd->add_option("--threads", args->threads, "Directories read at once (default: one per CPU)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_flag("--resume", args->resume,
                "Continue the interrupted scan of these trees instead of starting a new one");
  cmd->add_flag("--cross-mounts", args->cross_mounts,
                "Also scan the file systems mounted below the given directories");
  cmd->add_flag("-q,--quiet", args->quiet, "No progress line and no summary");
  cmd->add_option("--lustre-library", args->lustre_library,
                  "liblustreapi to read the FID, MDT and layout of objects on Lustre with "
                  "(default: the system's liblustreapi.so.1, when there is one)")
      ->type_name("PATH");
  return [args] { return RunScan(*args); };
}

}  // namespace fathom::cli
