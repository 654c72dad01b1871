// cli_util.h — small helpers shared by the subcommands.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "client/client_keys.h"
#include "fathom/client.h"
#include "fathom/format.h"
#include "fathom/pipeline.h"
#include "fathom/status.h"

namespace fathom::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// "90s", "15m", "12h", "7d", "2w", or plain seconds.
Result<std::chrono::seconds> ParseDuration(const std::string& text);
// A positive duration with a unit ("500ms", "1s", "2min", "1h") in nanoseconds; the error names
// `option`.
Result<int64_t> DurationNs(const std::string& option, const std::string& text);
// --since TIME: a date ("2026-11-20", "2026-11-20 14:30[:00]", local time) or an age ("7d",
// "12h", "90m", plain seconds) before now, as ns since the epoch ("": 0).
Result<int64_t> ParseSince(const std::string& text);
// Adds --format with its documented choices; `target` receives the parsed format.
CLI::Option* AddFormatOption(CLI::App& app, Format& target, const std::string& default_name);
// Logs the closing line of a watch pipeline ("stopped: N events <verb> (last id ...), ...").
void LogWatchSummary(const WatchSummary& summary, std::string_view verb);
// Accepts only digits: CLI11 would wrap "-1" around to 2^64-1 for an unsigned option.
CLI::Validator WholeNumber();
// Adds -n,--max-count N (whole number) and -t,--timeout SECONDS (a number >= 0): every command
// that can stop after a number of events or a time takes them under these names.
void AddLimitOptions(CLI::App& cmd, uint64_t& max_count, double& timeout);
// The store's file from a --store value: "sqlite:FILE" or "FILE" (every command accepts both).
Result<std::string> StoreFile(const std::string& spec);
// Adds --key, --server-key, --insecure: the ZeroMQ keys of a `role` (collector, consumer).
void AddKeyOptions(CLI::App& cmd, client::KeyArgs& keys, const std::string& role);
// Adds the key options and --stream, --replicas (nats:// endpoints) to a client command.
void AddConnectionOptions(CLI::App& cmd, client::KeyArgs& keys, BusOptions& bus,
                          const std::string& role);
// The first word of the command line that should name a subcommand of `app` but does not (its
// own options and their values skipped), if any.
std::optional<std::string> UnknownCommand(const CLI::App& app, int argc, char** argv);
// "watch, events, ..." in the order they were added.
std::string CommandNames(const CLI::App& app);
// A -t value as written in messages: "2 s", "0.5 s".
std::string TimeLimitText(double seconds);
// Prints "fathom <cmd>: <message>" to stderr and returns `code`.
int Fail(const std::string& command, const std::string& message, int code);

}  // namespace fathom::cli
