// commands.h — the subcommands of fathom-lustre-sim. Each file adds one subcommand to the
// app and returns the function that runs it once the command line is parsed; its result
// is the exit code (0 success, 1 failure, 2 bad usage).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace fathom::lustre_sim::cli {

using CommandRunner = std::function<int()>;

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

CommandRunner AddMountCommand(CLI::App& app);
CommandRunner AddUmountCommand(CLI::App& app);
CommandRunner AddFastCommand(CLI::App& app);
CommandRunner AddStatusCommand(CLI::App& app);

// Prints "fathom-lustre-sim <command>: <message>" to stderr.
void PrintError(const char* command, const std::string& message);

}  // namespace fathom::lustre_sim::cli
