#include "sources/poll/poll_settings.h"

#include <sys/statfs.h>

#include <charconv>
#include <cstdint>

namespace fathom::poll_internal {
namespace {

constexpr const char* kInterval = "poll.interval";
constexpr const char* kThreads = "poll.threads";

Result<std::chrono::milliseconds> ParseInterval(const std::string& text) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  const std::string unit(end, text.data() + text.size());
  uint64_t ms_per_unit = 0;
  if (unit.empty() || unit == "s")
    ms_per_unit = 1000;
  else if (unit == "ms")
    ms_per_unit = 1;
  else if (unit == "m")
    ms_per_unit = 60'000;
  else if (unit == "h")
    ms_per_unit = 3'600'000;
  if (ec != std::errc() || end == text.data() || ms_per_unit == 0 || n == 0 || n > UINT32_MAX) {
    return Status::Error("bad poll interval '" + text +
                         "' (a positive duration such as 30s, 500ms, 2m or 1h)");
  }
  return std::chrono::milliseconds(n * ms_per_unit);
}

}  // namespace

std::vector<std::string> SettingKeys() { return {kInterval, kThreads}; }

Result<PollSettings> ParseSettings(const SourceOptions& options) {
  PollSettings s;
  if (auto it = options.settings.find(kInterval); it != options.settings.end()) {
    FATHOM_ASSIGN_OR_RETURN(s.interval, ParseInterval(it->second));
  }
  if (auto it = options.settings.find(kThreads); it != options.settings.end()) {
    const std::string& v = it->second;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), s.threads);
    if (ec != std::errc() || end != v.data() + v.size() || s.threads == 0 || s.threads > 1024) {
      return Status::Error("bad " + std::string(kThreads) + " '" + v +
                           "' (a number of threads, 1 to 1024)");
    }
  }
  return s;
}

std::optional<std::string> FileSystemWithoutNotification(const std::string& path) {
  struct statfs fs;
  if (statfs(path.c_str(), &fs) != 0) return std::nullopt;
  switch (static_cast<uint32_t>(fs.f_type)) {
    case 0x6969:
      return "nfs";
    case 0x517B:
      return "smb";
    case 0xFF534D42:
      return "cifs";
    case 0xFE534D42:
      return "smb2";
    case 0x65735546:
      return "fuse";
    case 0x01021997:
      return "9p";
    case 0x00C36400:
      return "ceph";
    case 0x5346414F:
      return "afs";
    case 0x0BD00BD0:
      return "lustre";
    default:
      return std::nullopt;
  }
}

}  // namespace fathom::poll_internal
