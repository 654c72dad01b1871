// source_args.h — the options that say what to watch, shared by `fathom watch` and
// `fathom collect`: PATH..., -r, --backend, --source, the Lustre companions, --event,
// --include/--exclude, --set and --interval (the poll backend's).
//
// --source takes lustre:FSNAME-MDTnnnn (with --mount), or inotify:PATH, fanotify:PATH or
// auto:PATH for a local tree (the same as PATH with --backend). AddSourceOptions() registers
// the options on a subcommand and fills `args` (which must outlive parsing);
// ApplySourceArgs() turns them into the pipeline's backend, source options and filter, or
// says which argument is wrong.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "fathom/pipeline.h"
#include "fathom/status.h"

namespace fathom::cli {

struct SourceArgs {
  std::vector<std::string> paths;
  bool recursive = false;
  std::string backend = "auto";
  std::vector<std::string> events;
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::vector<std::string> settings;
  std::string interval;        // --interval: poll.interval
  std::string source;          // "lustre:FSNAME-MDT0000", "inotify:/data", ...
  std::string mount;           // the Lustre client mount point
  std::string changelog_user;  // e.g. cl1
  std::string lustre_library;
  uint64_t fid_cache = 0;
};

void AddSourceOptions(CLI::App& cmd, SourceArgs& args);
Status ApplySourceArgs(const SourceArgs& args, WatchOptions& options);

// A short name for what the arguments watch: the Lustre device, or the first root.
std::string DescribeSource(const WatchOptions& options);

}  // namespace fathom::cli
