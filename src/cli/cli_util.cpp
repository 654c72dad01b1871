#include "cli/cli_util.h"

#include <spdlog/spdlog.h>

#include <cstdio>

namespace fathom::cli {

Result<std::chrono::seconds> ParseDuration(const std::string& text) {
  if (text.empty()) return Status::Error("empty duration");
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || n < 0) {
    return Status::Error("bad duration '" + text + "' (use e.g. 90s, 15m, 12h, 7d, 2w)");
  }
  std::string unit = text.substr(used);
  long long mult = 0;
  if (unit.empty() || unit == "s") mult = 1;
  else if (unit == "m") mult = 60;
  else if (unit == "h") mult = 3600;
  else if (unit == "d") mult = 86400;
  else if (unit == "w") mult = 7 * 86400;
  else return Status::Error("bad duration unit in '" + text + "' (use s, m, h, d or w)");
  return std::chrono::seconds(n * mult);
}

CLI::Option* AddFormatOption(CLI::App& app, Format& target, const std::string& default_name) {
  return app
      .add_option_function<std::string>(
          "--format",
          [&target](const std::string& name) {
            auto parsed = ParseFormat(name);
            if (!parsed.ok()) throw CLI::ValidationError("--format", parsed.status().message());
            target = parsed.value();
          },
          "Output format: inotify (ROOT KINDS /relative), json (one object per line), or the "
          "kqueue, fsevents or windows vocabularies (docs/formats.md)")
      ->default_str(default_name)
      ->type_name("FORMAT");
}

int Fail(const std::string& command, const std::string& message, int code) {
  std::fprintf(stderr, "fathom %s: %s\n", command.c_str(), message.c_str());
  return code;
}

void LogWatchSummary(const WatchSummary& s, std::string_view verb) {
  spdlog::info(
      "stopped: {} events {} (last id {}), {} overflows, {} rescans, {} unresolved, "
      "{} directories not watched",
      s.events_written, verb, s.last_id, s.source.overflows, s.source.rescans, s.source.unresolved,
      s.source.watch_failures);
}

}  // namespace fathom::cli
