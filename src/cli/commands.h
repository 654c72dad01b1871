// commands.h — the CLI's subcommands. Each file adds one subcommand to the app and returns
// the function that runs it once the command line is parsed (its result is the exit code:
// 0 success, 1 runtime failure, 2 bad usage).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace fathom::cli {

using CommandRunner = std::function<int()>;

CommandRunner AddWatchCommand(CLI::App& app);
CommandRunner AddEventsCommand(CLI::App& app);
CommandRunner AddCollectCommand(CLI::App& app);
CommandRunner AddAggregateCommand(CLI::App& app);
CommandRunner AddSubscribeCommand(CLI::App& app);
CommandRunner AddKeygenCommand(CLI::App& app);
CommandRunner AddStoreCommand(CLI::App& app);
CommandRunner AddScanCommand(CLI::App& app);
CommandRunner AddCatalogCommand(CLI::App& app);
CommandRunner AddFindCommand(CLI::App& app);
// `fathom [OPTIONS] find [--catalog URI] PATH... EXPRESSION`: keeps what follows find's own
// options for it (GNU find's command line is no CLI11 one) and returns the argc left to parse.
int SplitFindArguments(int argc, char** argv);
CommandRunner AddDuCommand(CLI::App& app);
CommandRunner AddReportCommand(CLI::App& app);
CommandRunner AddUndeleteCommand(CLI::App& app);
CommandRunner AddPolicyCommand(CLI::App& app);
CommandRunner AddRulesCommand(CLI::App& app);
CommandRunner AddIoCommand(CLI::App& app);
// `fathom io servers` and `fathom io anomalies`, added to the `io` command.
CommandRunner AddIoServerCommands(CLI::App& io);
// `fathom io publish` and `fathom io fetch` (traces over NATS), added to the `io` command.
CommandRunner AddIoPublishCommand(CLI::App& io);
CommandRunner AddIoFetchCommand(CLI::App& io);
// `fathom h5`: HDF5 provenance (run); `fathom h5 dump`, added to the `h5` command.
CommandRunner AddH5Command(CLI::App& app);
CommandRunner AddH5DumpCommand(CLI::App& h5);
CommandRunner AddH5ReportCommand(CLI::App& h5);
CommandRunner AddH5LineageCommand(CLI::App& h5);
CommandRunner AddH5EventsCommand(CLI::App& h5);
CommandRunner AddServeCommand(CLI::App& app);
CommandRunner AddTokenCommand(CLI::App& app);

}  // namespace fathom::cli
