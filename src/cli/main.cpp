// fathom — the command-line interface. Each subcommand lives in its own file (commands.h).
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "fathom/config.h"

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_logger_mt("fathom");
  logger->set_pattern("fathom: %v");
  spdlog::set_default_logger(logger);

  CLI::App app{
      "fathom watches storage and turns what happens there into one standard, durable, "
      "replayable stream of file-system events."};
  app.set_version_flag("--version", std::string("fathom ") + FATHOM_VERSION);
  app.require_subcommand(1);
  // Options of fathom itself are accepted after the subcommand too (`fathom watch -v ...`).
  app.fallthrough();
  bool verbose = false;
  std::string log_level = "info";
  app.add_flag("-v,--verbose", verbose, "Log debugging detail to stderr (--log-level debug)");
  app.add_option("--log-level", log_level, "How much to log to stderr")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->default_str("info")
      ->type_name("LEVEL");

  std::vector<std::pair<CLI::App*, fathom::cli::CommandRunner>> commands;
  auto add = [&](fathom::cli::CommandRunner (*adder)(CLI::App&)) {
    size_t before = app.get_subcommands({}).size();
    auto runner = adder(app);
    commands.emplace_back(app.get_subcommands({}).at(before), std::move(runner));
  };
  add(&fathom::cli::AddWatchCommand);
  add(&fathom::cli::AddEventsCommand);
  add(&fathom::cli::AddCollectCommand);
  add(&fathom::cli::AddAggregateCommand);
  add(&fathom::cli::AddSubscribeCommand);
  add(&fathom::cli::AddKeygenCommand);
  add(&fathom::cli::AddStoreCommand);
  add(&fathom::cli::AddScanCommand);
  add(&fathom::cli::AddCatalogCommand);
  add(&fathom::cli::AddFindCommand);
  add(&fathom::cli::AddDuCommand);
  add(&fathom::cli::AddReportCommand);
  add(&fathom::cli::AddUndeleteCommand);
  add(&fathom::cli::AddPolicyCommand);
  add(&fathom::cli::AddRulesCommand);
  add(&fathom::cli::AddIoCommand);
  add(&fathom::cli::AddH5Command);
  add(&fathom::cli::AddServeCommand);
  add(&fathom::cli::AddTokenCommand);

  if (auto unknown = fathom::cli::UnknownCommand(app, argc, argv)) {
    std::fprintf(stderr, "fathom: unknown command '%s'; the commands are: %s (fathom --help)\n",
                 unknown->c_str(), fathom::cli::CommandNames(app).c_str());
    return fathom::cli::kExitUsage;
  }
  argc = fathom::cli::SplitFindArguments(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? fathom::cli::kExitOk : fathom::cli::kExitUsage;
  }
  spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::from_str(log_level));
  for (auto& [sub, run] : commands) {
    if (sub->parsed()) return run();
  }
  return fathom::cli::kExitUsage;
}
