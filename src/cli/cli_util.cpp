#include "cli/cli_util.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "condition/units.h"

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
  if (unit.empty() || unit == "s")
    mult = 1;
  else if (unit == "m")
    mult = 60;
  else if (unit == "h")
    mult = 3600;
  else if (unit == "d")
    mult = 86400;
  else if (unit == "w")
    mult = 7 * 86400;
  else
    return Status::Error("bad duration unit in '" + text + "' (use s, m, h, d or w)");
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

std::optional<std::string> UnknownCommand(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("-")) {
      // An option of fathom's own that takes a separate value skips it.
      const CLI::Option* opt =
          arg.find('=') == std::string::npos ? app.get_option_no_throw(arg) : nullptr;
      if (opt != nullptr && opt->get_items_expected_min() > 0) ++i;
      continue;
    }
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->check_name(arg)) return std::nullopt;
    }
    return arg;
  }
  return std::nullopt;
}

std::string CommandNames(const CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (!out.empty()) out += ", ";
    out += sub->get_name();
  }
  return out;
}

std::string TimeLimitText(double seconds) { return fmt::format("{:g} s", seconds); }

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

// Accepts only digits: CLI11 would wrap "-1" around to 2^64-1 for an unsigned option.
CLI::Validator WholeNumber() {
  return CLI::Validator(
      [](const std::string& text) {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
          return "'" + text + "' is not a whole number >= 0";
        }
        return std::string();
      },
      "");
}

void AddLimitOptions(CLI::App& cmd, uint64_t& max_count, double& timeout) {
  cmd.add_option("-n,--max-count", max_count, "Exit after N events")
      ->check(WholeNumber())
      ->type_name("N");
  cmd.add_option("-t,--timeout", timeout, "Exit after SECONDS (fractions allowed)")
      ->check(CLI::Validator(
          [](const std::string& text) {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || !(v >= 0))
              return "'" + text + "' is not a number of seconds >= 0";
            return std::string();
          },
          ""))
      ->type_name("SECONDS");
}

Result<std::string> StoreFile(const std::string& spec) {
  constexpr std::string_view kScheme = "sqlite:";
  std::string file = spec.starts_with(kScheme) ? spec.substr(kScheme.size()) : spec;
  if (file.empty()) return Status::Error("--store needs a file: sqlite:FILE or FILE");
  if (file.find("://") != std::string::npos) {
    return Status::Error("unsupported store '" + spec +
                         "': stores are SQLite files (sqlite:FILE or FILE)");
  }
  return file;
}

void AddKeyOptions(CLI::App& cmd, client::KeyArgs& keys, const std::string& role) {
  cmd.add_option("--key", keys.key_file,
                 "This " + role + "'s CURVE key file (from `fathom keygen`)")
      ->type_name("FILE.key");
  cmd.add_option("--server-key", keys.server_key,
                 "The aggregator's public key: a .pub file or Z85 text")
      ->type_name("FILE.pub");
  cmd.add_flag("--insecure", keys.insecure,
               "Plain ZeroMQ without CURVE (the aggregator runs --insecure)");
}

void AddConnectionOptions(CLI::App& cmd, client::KeyArgs& keys, BusOptions& bus,
                          const std::string& role) {
  AddKeyOptions(cmd, keys, role);
  cmd.add_option("--stream", bus.stream, "JetStream stream name (nats:// only)")
      ->default_str("FATHOM");
  cmd.add_option("--replicas", bus.replicas,
                 "JetStream stream replicas when the stream is created (nats:// only)")
      ->default_str("1")
      ->check(CLI::Range(1, 5));
}

Result<int64_t> DurationNs(const std::string& option, const std::string& text) {
  auto ns = condition::ParseDuration(text);
  if (!ns || *ns <= 0) {
    return Status::Error(option + " " + text + ": not a duration (e.g. 500ms, 1s, 2min, 1h)");
  }
  return *ns;
}

// --since: a date ("2026-11-20", "2026-11-20 14:30[:00]", local time) or an age ("7d", "12h",
// "90m", plain seconds) before now.
Result<int64_t> ParseSince(const std::string& text) {
  if (text.empty()) return int64_t{0};
  for (const char* form : {"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"}) {
    tm local{};
    const char* end = strptime(text.c_str(), form, &local);
    if (end != nullptr && *end == '\0') {
      local.tm_isdst = -1;
      return static_cast<int64_t>(mktime(&local)) * 1'000'000'000;
    }
  }
  auto age = ParseDuration(text);
  if (!age.ok()) {
    return Status::Error("--since '" + text +
                         "': give a date (2026-11-20, 2026-11-20 14:30) or an age (7d, 12h, 90m)");
  }
  return (static_cast<int64_t>(std::time(nullptr)) - age.value().count()) * 1'000'000'000;
}

}  // namespace fathom::cli
