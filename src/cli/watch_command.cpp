// `fathom watch` — watch directory trees and print (and optionally store) their events.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "cli/source_args.h"
#include "fathom/pipeline.h"

namespace fathom::cli {
namespace {

struct WatchArgs {
  SourceArgs source;
  Format format = Format::kInotify;
  std::string store;
  uint64_t max_events = 0;
  std::string max_age;
  std::string sync = "full";
  uint64_t max_count = 0;
  double timeout = 0;
  bool quiet = false;
};

// Builds the pipeline options, or says which argument is wrong.
Result<WatchOptions> MakeOptions(const WatchArgs& a) {
  WatchOptions o;
  o.format = a.format;
  o.out = a.quiet ? nullptr : stdout;
  o.max_count = a.max_count;
  o.timeout = std::chrono::milliseconds(static_cast<int64_t>(a.timeout * 1000));
  FATHOM_RETURN_IF_ERROR(ApplySourceArgs(a.source, o));
  if (!a.store.empty()) {
    StoreOptions s;
    FATHOM_ASSIGN_OR_RETURN(const std::string file, StoreFile(a.store));
    s.path = std::filesystem::absolute(file).lexically_normal().string();
    s.max_events = a.max_events;
    if (!a.max_age.empty()) {
      FATHOM_ASSIGN_OR_RETURN(s.max_age, ParseDuration(a.max_age));
    }
    if (a.sync != "full" && a.sync != "normal") {
      return Status::Error("bad --sync '" + a.sync + "' (full or normal)");
    }
    s.sync_full = a.sync == "full";
    // The store's own files must never be reported, or every commit would cause more events.
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      o.filter.ignore_paths.push_back(s.path + suffix);
    o.store = s;
  } else if (a.max_events > 0 || !a.max_age.empty()) {
    return Status::Error("--max-events and --max-age bound the store: give --store FILE too");
  } else if (!a.source.changelog_user.empty()) {
    // Records are cleared once their events are durable; printed events never are.
    return Status::Error("--changelog-user " + a.source.changelog_user +
                         " clears the changelog up to what is stored: give --store FILE too "
                         "(without a store nothing is ever cleared)");
  } else if (a.quiet) {
    return Status::Error(
        "-q prints nothing, and without --store nothing would be kept: give --store FILE too");
  }
  return o;
}

int RunWatch(const WatchArgs& args) {
  auto options = MakeOptions(args);
  if (!options.ok()) return Fail("watch", options.status().message(), kExitUsage);
  WatchPipeline pipeline(std::move(options.value()));
  SignalWaiter signals([&](int) { pipeline.Stop(); });
  SourceRegistry registry;
  RegisterBuiltinSources(registry);
  auto summary = pipeline.Run(registry);
  if (!summary.ok()) return Fail("watch", summary.status().message(), kExitFailure);
  LogWatchSummary(summary.value(), "written");
  return kExitOk;
}

}  // namespace

CommandRunner AddWatchCommand(CLI::App& app) {
  auto args = std::make_shared<WatchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "watch",
      "Watch directories and print their events as they happen (and store them with --store).\n"
      "Like inotifywait -m, but recursive without racing, losing nothing, on inotify or fanotify.");
  AddSourceOptions(*cmd, args->source);
  AddFormatOption(*cmd, args->format, "inotify");
  cmd->add_option("--store", args->store,
                  "Append every event durably to this SQLite file before printing it")
      ->type_name("[sqlite:]FILE");
  cmd->add_option("--max-events", args->max_events, "Keep at most N newest events in the store")
      ->check(WholeNumber())
      ->type_name("N");
  cmd->add_option("--max-age", args->max_age,
                  "Drop stored events older than this (90s, 15m, 12h, 7d, 2w)")
      ->type_name("DURATION");
  cmd->add_option(
         "--sync", args->sync,
         "full: fsync every commit (survives power loss); normal: survives process crashes")
      ->default_str("full");
  AddLimitOptions(*cmd, args->max_count, args->timeout);
  cmd->add_flag("-q,--quiet", args->quiet, "Print no events (store only: needs --store)");
  return [args] { return RunWatch(*args); };
}

}  // namespace fathom::cli
