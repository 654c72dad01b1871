// `fathom watch` — watch directory trees and print (and optionally store) their events.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "fathom/pipeline.h"

namespace fathom::cli {
namespace {

struct WatchArgs {
  std::vector<std::string> paths;
  bool recursive = false;
  std::string backend = "auto";
  Format format = Format::kInotify;
  std::vector<std::string> events;
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::string store;
  uint64_t max_events = 0;
  std::string max_age;
  std::string sync = "full";
  uint64_t max_count = 0;
  double timeout = 0;
  bool quiet = false;
  std::vector<std::string> settings;
  std::string source;          // "lustre:FSNAME-MDT0000"
  std::string mount;           // the Lustre client mount point
  std::string changelog_user;  // e.g. cl1
  std::string lustre_library;
  uint64_t fid_cache = 0;
};

// --source lustre:DEVICE and its companions become the "lustre" backend and its settings.
Status ApplyLustreSource(const WatchArgs& a, WatchOptions& o) {
  const bool lustre_flags = !a.mount.empty() || !a.changelog_user.empty() ||
                            !a.lustre_library.empty() || a.fid_cache > 0;
  if (a.source.empty()) {
    if (lustre_flags) {
      return Status::Error(
          "--mount, --changelog-user, --lustre-library and --fid-cache belong to a Lustre "
          "changelog source: give --source lustre:FSNAME-MDT0000 too");
    }
    if (a.paths.empty()) return Status::Error("give the directories to watch (PATH...)");
    return Status::Ok();
  }
  constexpr std::string_view kPrefix = "lustre:";
  if (!a.source.starts_with(kPrefix) || a.source.size() == kPrefix.size()) {
    return Status::Error("bad --source '" + a.source +
                         "' (expected lustre:FSNAME-MDTnnnn, e.g. lustre:scratch-MDT0000)");
  }
  if (a.mount.empty()) {
    return Status::Error("--source " + a.source +
                         " needs --mount MNT: the Lustre client mount point that paths are "
                         "resolved under");
  }
  std::error_code ec;
  auto mount = std::filesystem::canonical(a.mount, ec);
  if (ec) return Status::Error("bad --mount '" + a.mount + "': " + ec.message());
  if (a.backend != "auto") {
    return Status::Error("--backend " + a.backend + " watches local kernels; --source " + a.source +
                         " reads a changelog: give one of them");
  }
  o.backend = "lustre";
  o.source.recursive = true;  // a changelog covers the whole file system; PATHs narrow it
  if (o.source.roots.empty()) o.source.roots.push_back(mount.string());
  auto& settings = o.source.settings;
  settings["lustre.device"] = a.source.substr(kPrefix.size());
  settings["lustre.mount"] = mount.string();
  if (!a.changelog_user.empty()) settings["lustre.user"] = a.changelog_user;
  if (!a.lustre_library.empty()) settings["lustre.library"] = a.lustre_library;
  if (a.fid_cache > 0) settings["lustre.cache-size"] = std::to_string(a.fid_cache);
  return Status::Ok();
}

// Builds the pipeline options, or says which argument is wrong.
Result<WatchOptions> MakeOptions(const WatchArgs& a) {
  WatchOptions o;
  o.backend = a.backend;
  o.format = a.format;
  o.out = a.quiet ? nullptr : stdout;
  o.max_count = a.max_count;
  o.timeout = std::chrono::milliseconds(static_cast<int64_t>(a.timeout * 1000));
  o.source.recursive = a.recursive;
  for (const auto& p : a.paths) {
    std::error_code ec;
    auto canon = std::filesystem::canonical(p, ec);
    if (ec) return Status::Error("cannot watch '" + p + "': " + ec.message());
    if (!std::filesystem::is_directory(canon)) {
      return Status::Error("cannot watch '" + p + "': not a directory (watch its parent directory)");
    }
    o.source.roots.push_back(canon.string());
  }
  if (!a.events.empty()) {
    uint32_t kinds = 0;
    for (const auto& list : a.events) {
      std::stringstream ss(list);
      std::string name;
      while (std::getline(ss, name, ',')) {
        auto k = ParseKind(name);
        if (!k) {
          return Status::Error("unknown event kind '" + name +
                               "' (known: " + KindNames(kind::kAll) + ", CLOSE, MOVE)");
        }
        kinds |= *k;
      }
    }
    o.source.kinds = kinds;
  }
  o.filter.kinds = o.source.kinds;
  FATHOM_RETURN_IF_ERROR(ApplyLustreSource(a, o));
  o.filter.include = a.include;
  o.filter.exclude = a.exclude;
  for (const auto& kv : a.settings) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Error("bad --set '" + kv + "' (expected KEY=VALUE, e.g. fanotify.cache-size=65536)");
    }
    o.source.settings[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (!a.store.empty()) {
    StoreOptions s;
    s.path = std::filesystem::absolute(a.store).lexically_normal().string();
    s.max_events = a.max_events;
    if (!a.max_age.empty()) {
      FATHOM_ASSIGN_OR_RETURN(s.max_age, ParseDuration(a.max_age));
    }
    if (a.sync != "full" && a.sync != "normal") {
      return Status::Error("bad --sync '" + a.sync + "' (full or normal)");
    }
    s.sync_full = a.sync == "full";
    // The store's own files must never be reported, or every commit would cause more events.
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) o.filter.ignore_paths.push_back(s.path + suffix);
    o.store = s;
  } else if (a.max_events > 0 || !a.max_age.empty()) {
    return Status::Error("--max-events and --max-age bound the store: give --store FILE too");
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
  const auto& s = summary.value();
  spdlog::info(
      "stopped: {} events written (last id {}), {} overflows, {} rescans, {} unresolved, "
      "{} directories not watched",
      s.events_written, s.last_id, s.source.overflows, s.source.rescans, s.source.unresolved,
      s.source.watch_failures);
  return kExitOk;
}

}  // namespace

CommandRunner AddWatchCommand(CLI::App& app) {
  auto args = std::make_shared<WatchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "watch",
      "Watch directories and print their events as they happen (and store them with --store).\n"
      "Like inotifywait -m, but recursive without racing, losing nothing, on inotify or fanotify.");
  cmd->add_option("paths", args->paths,
                  "Directories to watch (with --source: subtrees of the mount to report)")
      ->type_name("PATH");
  cmd->add_flag("-r,--recursive", args->recursive, "Watch whole subtrees, not just the directories' entries");
  cmd->add_option("--backend", args->backend,
                  "auto (fanotify when permitted, else inotify), inotify or fanotify")
      ->default_str("auto")
      ->check(CLI::IsMember({"auto", "inotify", "fanotify"}));
  AddFormatOption(*cmd, args->format, "inotify");
  cmd->add_option("-e,--event", args->events,
                  "Report only these kinds (repeatable or comma-separated): CREATE, MODIFY, ATTRIB, "
                  "CLOSE_WRITE, CLOSE_NOWRITE, OPEN, ACCESS, MOVED_FROM, MOVED_TO, DELETE, "
                  "DELETE_SELF, MOVE_SELF, CLOSE, MOVE. Default: every change (not reads). "
                  "OVERFLOW is always reported")
      ->type_name("KIND");
  cmd->add_option("--exclude", args->exclude,
                  "Skip paths matching GLOB (a GLOB without '/' matches the file name, with '/' the "
                  "whole path); repeatable")
      ->type_name("GLOB");
  cmd->add_option("--include", args->include, "Report only paths matching GLOB; repeatable")->type_name("GLOB");
  cmd->add_option("--store", args->store,
                  "Append every event durably to this SQLite file before printing it")
      ->type_name("FILE");
  cmd->add_option("--max-events", args->max_events, "Keep at most N newest events in the store")
      ->type_name("N");
  cmd->add_option("--max-age", args->max_age, "Drop stored events older than this (90s, 15m, 12h, 7d, 2w)")
      ->type_name("DURATION");
  cmd->add_option("--sync", args->sync,
                  "full: fsync every commit (survives power loss); normal: survives process crashes")
      ->default_str("full");
  cmd->add_option("-n,--max-count", args->max_count, "Exit after N events")->type_name("N");
  cmd->add_option("-t,--timeout", args->timeout, "Exit after SECONDS")->type_name("SECONDS");
  cmd->add_flag("-q,--quiet", args->quiet, "Print no events (store only)");
  cmd->add_option("--set", args->settings,
                  "Backend setting KEY=VALUE, e.g. fanotify.cache-size=65536; repeatable")
      ->type_name("KEY=VALUE");
  cmd->add_option("--source", args->source,
                  "Read a Lustre MDT's changelog instead of a local kernel: lustre:FSNAME-MDT0000 "
                  "(one per MDT); needs --mount")
      ->type_name("SPEC");
  cmd->add_option("--mount", args->mount, "Lustre client mount point for --source")->type_name("MNT");
  cmd->add_option("--changelog-user", args->changelog_user,
                  "Registered changelog user (lctl changelog_register) whose records are cleared "
                  "once stored; without it nothing is cleared")
      ->type_name("USER");
  cmd->add_option("--lustre-library", args->lustre_library,
                  "liblustreapi to load (default: liblustreapi.so.1 from the system)")
      ->type_name("PATH");
  cmd->add_option("--fid-cache", args->fid_cache, "FID-to-path cache entries for --source")
      ->type_name("N");
  return [args] { return RunWatch(*args); };
}

}  // namespace fathom::cli
