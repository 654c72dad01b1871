// fathomd — runs a set of fathom roles (aggregate, collect, subscribe) from one YAML file and
// keeps them running (src/daemon/role_supervisor.h).
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "cli/signal_waiter.h"
#include "daemon/config_check.h"
#include "daemon/daemon_config.h"
#include "daemon/role_supervisor.h"
#include "fathom/config.h"

namespace {

// The fathom CLI beside this executable (both are built and installed together).
std::string FathomBinary() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = self.parent_path() / "fathom";
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
  return "/usr/bin/fathom";
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_logger_mt("fathomd");
  logger->set_pattern("fathomd: %v");
  spdlog::set_default_logger(logger);

  CLI::App app{
      "fathomd runs fathom's roles — an aggregator, collectors, subscribers — from one YAML file "
      "and restarts any that stops.\nExamples: examples/fathomd/laptop.yaml, "
      "examples/fathomd/site-4mdt.yaml. Stops every role on SIGINT/SIGTERM; passes SIGHUP on to "
      "the aggregator, which reads its client list again."};
  app.set_version_flag("--version", std::string("fathomd ") + FATHOM_VERSION);
  std::string config_path;
  std::string binary;
  bool check = false;
  app.add_option("-c,--config", config_path, "The configuration file")->required()->type_name("FILE.yaml");
  app.add_option("--fathom", binary, "The fathom executable to run roles with (default: beside fathomd)")
      ->type_name("PATH");
  app.add_flag("--check", check,
               "Check the configuration and the files it names (keys, client lists, store and output "
               "directories, watched paths), print each role's command line and exit (2 on a problem)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  auto config = fathom::daemon::LoadDaemonConfig(config_path);
  if (!config.ok()) {
    spdlog::error("{}", config.status().message());
    return 2;
  }
  if (check) {
    const auto problems = fathom::daemon::CheckRoleFiles(config.value(), config_path);
    for (const auto& problem : problems) spdlog::error("{}", problem);
    if (!problems.empty()) return 2;
    for (const auto& role : config.value().roles) {
      std::string line = role.label + ": fathom";
      for (const auto& a : role.args) line += " " + a;
      if (!role.output.empty()) line += " >> " + role.output;
      std::puts(line.c_str());
    }
    return 0;
  }
  if (binary.empty()) binary = FathomBinary();
  fathom::daemon::RoleSupervisor supervisor(std::move(config.value()), binary);
  fathom::cli::SignalWaiter signals([&](int signal) {
    if (signal == SIGHUP) {
      supervisor.Reload();
    } else {
      supervisor.Stop();
    }
  });
  fathom::Status status = supervisor.Run();
  if (!status.ok()) {
    spdlog::error("{}", status.message());
    return 2;
  }
  return 0;
}
