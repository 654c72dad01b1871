// poll_settings.h — the poll backend's settings and its choice of file systems.
//
// Settings (SourceOptions::settings): "poll.interval" — time between the starts of two scan
// passes: "30s" (the default), "500ms", "2m", "1h" or plain seconds; "poll.threads" — scan
// threads (default: one per CPU). Stateless; safe from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "fathom/source.h"
#include "fathom/status.h"

namespace fathom::poll_internal {

struct PollSettings {
  std::chrono::milliseconds interval{30'000};
  unsigned threads = 0;
};

std::vector<std::string> SettingKeys();
Result<PollSettings> ParseSettings(const SourceOptions& options);

// The name of the file system `path` is on when the kernel cannot notify its changes made
// elsewhere (NFS, SMB/CIFS, FUSE, 9p, Ceph, AFS, ...); nullopt for one it can (ext4, xfs,
// tmpfs, ...) or when statfs fails.
std::optional<std::string> FileSystemWithoutNotification(const std::string& path);

}  // namespace fathom::poll_internal
