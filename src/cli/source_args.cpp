// source_args.cpp — parsing what to watch into pipeline options (see source_args.h).
#include "cli/source_args.h"

#include <filesystem>
#include <sstream>

namespace fathom::cli {
namespace {

constexpr std::string_view kLustrePrefix = "lustre:";

// The local-tree forms of --source: BACKEND:PATH becomes --backend BACKEND and a PATH.
Status ApplyLocalSource(const SourceArgs& a, std::vector<std::string>& paths, std::string& backend) {
  const auto colon = a.source.find(':');
  const std::string kind = colon == std::string::npos ? "" : a.source.substr(0, colon);
  if (kind != "inotify" && kind != "fanotify" && kind != "poll" && kind != "auto") {
    return Status::Error("bad --source '" + a.source +
                         "' (expected lustre:FSNAME-MDTnnnn, inotify:PATH, fanotify:PATH, poll:PATH "
                         "or auto:PATH)");
  }
  if (colon + 1 == a.source.size()) return Status::Error("--source " + a.source + " needs a PATH after the colon");
  if (a.backend != "auto" && a.backend != kind) {
    return Status::Error("--backend " + a.backend + " contradicts --source " + a.source + ": give one of them");
  }
  backend = kind;
  paths.push_back(a.source.substr(colon + 1));
  return Status::Ok();
}

Status ApplyRoots(const std::vector<std::string>& paths, WatchOptions& o) {
  for (const auto& p : paths) {
    std::error_code ec;
    auto canon = std::filesystem::canonical(p, ec);
    if (ec) return Status::Error("cannot watch '" + p + "': " + ec.message());
    if (!std::filesystem::is_directory(canon)) {
      return Status::Error("cannot watch '" + p + "': not a directory (watch its parent directory)");
    }
    o.source.roots.push_back(canon.string());
  }
  return Status::Ok();
}

// --source lustre:DEVICE and its companions become the "lustre" backend and its settings.
Status ApplyLustreSource(const SourceArgs& a, WatchOptions& o) {
  if (a.source.size() == kLustrePrefix.size()) {
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
  settings["lustre.device"] = a.source.substr(kLustrePrefix.size());
  settings["lustre.mount"] = mount.string();
  if (!a.changelog_user.empty()) settings["lustre.user"] = a.changelog_user;
  if (!a.lustre_library.empty()) settings["lustre.library"] = a.lustre_library;
  if (a.fid_cache > 0) settings["lustre.cache-size"] = std::to_string(a.fid_cache);
  return Status::Ok();
}

Result<uint32_t> ParseKinds(const std::vector<std::string>& lists) {
  uint32_t kinds = 0;
  for (const auto& list : lists) {
    std::stringstream ss(list);
    std::string name;
    while (std::getline(ss, name, ',')) {
      auto k = ParseKind(name);
      if (!k) {
        return Status::Error("unknown event kind '" + name + "' (known: " + KindNames(kind::kAll) +
                             ", CLOSE, MOVE)");
      }
      kinds |= *k;
    }
  }
  return kinds;
}

}  // namespace

Status ApplySourceArgs(const SourceArgs& a, WatchOptions& o) {
  const bool lustre = a.source.starts_with(kLustrePrefix);
  const bool lustre_flags = !a.mount.empty() || !a.changelog_user.empty() ||
                            !a.lustre_library.empty() || a.fid_cache > 0;
  if (!lustre && lustre_flags) {
    return Status::Error(
        "--mount, --changelog-user, --lustre-library and --fid-cache belong to a Lustre "
        "changelog source: give --source lustre:FSNAME-MDT0000 too");
  }
  std::vector<std::string> paths = a.paths;
  o.backend = a.backend;
  o.source.recursive = a.recursive;
  if (!a.source.empty() && !lustre) FATHOM_RETURN_IF_ERROR(ApplyLocalSource(a, paths, o.backend));
  if (paths.empty() && !lustre) return Status::Error("give the directories to watch (PATH...)");
  FATHOM_RETURN_IF_ERROR(ApplyRoots(paths, o));
  if (!a.events.empty()) {
    FATHOM_ASSIGN_OR_RETURN(o.source.kinds, ParseKinds(a.events));
  }
  o.filter.kinds = o.source.kinds;
  if (lustre) FATHOM_RETURN_IF_ERROR(ApplyLustreSource(a, o));
  o.filter.include = a.include;
  o.filter.exclude = a.exclude;
  for (const auto& kv : a.settings) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Error("bad --set '" + kv + "' (expected KEY=VALUE, e.g. fanotify.cache-size=65536)");
    }
    o.source.settings[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (!a.interval.empty()) {
    if (o.backend != "poll" && o.backend != "auto") {
      return Status::Error("--interval sets how often the poll backend scans: it does not apply "
                           "to --backend " + o.backend);
    }
    o.source.settings["poll.interval"] = a.interval;
  }
  // A misspelt or bad setting is the user's mistake: never a reason for "auto" to fall back.
  SourceRegistry registry;
  RegisterBuiltinSources(registry);
  return registry.CheckSettings(o.source);
}

std::string DescribeSource(const WatchOptions& options) {
  auto device = options.source.settings.find("lustre.device");
  if (device != options.source.settings.end()) return device->second;
  return options.source.roots.empty() ? std::string() : options.source.roots.front();
}

void AddSourceOptions(CLI::App& cmd, SourceArgs& args) {
  cmd.add_option("paths", args.paths,
                 "Directories to watch (with --source lustre:...: subtrees of the mount to report)")
      ->type_name("PATH");
  cmd.add_flag("-r,--recursive", args.recursive, "Watch whole subtrees, not just the directories' entries");
  cmd.add_option("--backend", args.backend,
                 "auto (poll on file systems that do not notify: NFS, SMB/CIFS, FUSE; else "
                 "fanotify when permitted, else inotify), inotify, fanotify or poll (scan every "
                 "--interval and report the differences)")
      ->default_str("auto")
      ->check(CLI::IsMember({"auto", "inotify", "fanotify", "poll"}));
  cmd.add_option("--interval", args.interval,
                 "With the poll backend: time between the starts of two scans of the tree, e.g. "
                 "30s (the default), 500ms, 2m; a scan that takes longer is reported as an "
                 "OVERFLOW")
      ->type_name("DURATION");
  cmd.add_option("-e,--event", args.events,
                 "Report only these kinds (repeatable or comma-separated): CREATE, MODIFY, ATTRIB, "
                 "CLOSE_WRITE, CLOSE_NOWRITE, OPEN, ACCESS, MOVED_FROM, MOVED_TO, DELETE, "
                 "DELETE_SELF, MOVE_SELF, CLOSE, MOVE. Default: every change (not reads). "
                 "OVERFLOW is always reported")
      ->type_name("KIND");
  cmd.add_option("--exclude", args.exclude,
                 "Skip paths matching GLOB, relative to the root, rsync-like: without '/' it matches a "
                 "name at any depth (*.tmp), with '/' it is anchored at the root (sub/*); ** crosses "
                 "directories; a trailing '/' matches directories; a matched directory hides "
                 "everything below it (docs/filters.md); repeatable")
      ->type_name("GLOB");
  cmd.add_option("--include", args.include,
                 "Report only paths matching GLOB (the same rules as --exclude); repeatable")
      ->type_name("GLOB");
  cmd.add_option("--set", args.settings,
                 "Backend setting KEY=VALUE, e.g. fanotify.cache-size=65536; repeatable")
      ->type_name("KEY=VALUE");
  cmd.add_option("--source", args.source,
                 "What to watch: lustre:FSNAME-MDT0000 reads that MDT's changelog (one per MDT; "
                 "needs --mount); inotify:PATH, fanotify:PATH, poll:PATH or auto:PATH a local tree")
      ->type_name("SPEC");
  cmd.add_option("--mount", args.mount, "Lustre client mount point for --source lustre:...")->type_name("MNT");
  cmd.add_option("--changelog-user", args.changelog_user,
                 "Registered changelog user (lctl changelog_register) whose records are cleared "
                 "once committed; without it nothing is cleared")
      ->type_name("USER");
  cmd.add_option("--lustre-library", args.lustre_library,
                 "liblustreapi to load (default: liblustreapi.so.1 from the system)")
      ->type_name("PATH");
  cmd.add_option("--fid-cache", args.fid_cache, "FID-to-path cache entries for --source lustre:...")
      ->type_name("N");
}

}  // namespace fathom::cli
