// `fathom aggregate` — receive events from collectors, commit them into one store with global
// ids, and serve live and replayed events to subscribers (src/aggregator/aggregator.h).

#include <spdlog/spdlog.h>
#include <signal.h>

#include <mutex>

#include "aggregator/aggregator.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "security/client_list.h"
#include "security/curve_keys.h"

namespace fathom::cli {
namespace {

struct AggregateArgs {
  std::string listen;
  std::string store;
  std::string key;
  std::string clients;
  bool insecure = false;
  uint64_t max_events = 0;
  std::string max_age;
  std::string sync = "full";
  bool purge_acknowledged = false;
  uint64_t stats_interval = 0;
};

Result<aggregator::AggregatorOptions> BuildOptions(const AggregateArgs& a) {
  aggregator::AggregatorOptions o;
  o.listen = a.listen;
  FATHOM_ASSIGN_OR_RETURN(o.store.path, StoreFile(a.store));
  o.store.max_events = a.max_events;
  if (!a.max_age.empty()) {
    FATHOM_ASSIGN_OR_RETURN(o.store.max_age, ParseDuration(a.max_age));
  }
  o.store.sync_full = a.sync == "full";
  o.purge_acknowledged = a.purge_acknowledged;
  o.stats_interval = std::chrono::seconds(a.stats_interval);
  o.insecure = a.insecure;
  if (a.insecure) {
    if (!a.key.empty() || !a.clients.empty()) {
      return Status::Error("--insecure turns CURVE off: drop --key and --clients, or drop "
                           "--insecure");
    }
    return o;
  }
  if (a.key.empty()) {
    return Status::Error("no server key: give --key server.key (make one with `fathom keygen -o "
                         "server`, then give clients server.pub), or run without encryption "
                         "and authentication with --insecure");
  }
  FATHOM_ASSIGN_OR_RETURN(o.server_keys, security::LoadKeyFile(a.key));
  if (o.server_keys.secret_key.empty()) {
    return Status::Error("--key " + a.key + " holds only a public key: give the .key file "
                         "written by `fathom keygen` (it holds the secret key too)");
  }
  if (a.clients.empty()) {
    return Status::Error("no client list: give --clients clients.yaml naming each client's "
                         "public key, roles and paths (see `fathom aggregate --help`)");
  }
  FATHOM_ASSIGN_OR_RETURN(o.clients, security::ClientList::Load(a.clients));
  return o;
}

// SIGHUP: the client list is read again and replaces the running one; a list that does not
// load is reported and the running one kept.
void ReloadClients(const AggregateArgs& a, aggregator::Aggregator& running) {
  if (a.insecure) {
    spdlog::warn("SIGHUP: nothing to reload, the aggregator runs --insecure (no client list)");
    return;
  }
  auto clients = security::ClientList::Load(a.clients);
  if (!clients.ok()) {
    spdlog::error("SIGHUP: kept the client list in use; the new {} does not load: {}", a.clients,
                  clients.status().message());
    return;
  }
  spdlog::info("SIGHUP: read {} ({} clients)", a.clients, clients.value().size());
  running.ReplaceClients(std::move(clients.value()));
}

}  // namespace

CommandRunner AddAggregateCommand(CLI::App& app) {
  auto args = std::make_shared<AggregateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "aggregate",
      "Receive events from `fathom collect` instances, commit them into one store with global "
      "ids, and serve them live and by replay to `fathom subscribe`.\n"
      "Every connection is encrypted and authenticated with CURVE: --key is the server's key "
      "pair (`fathom keygen -o server`), --clients lists the clients admitted:\n"
      "  clients:\n"
      "    - name: mdt0\n"
      "      key: mdt0.pub          # or the 40-character public key itself\n"
      "      roles: [collect]       # collect and/or subscribe\n"
      "      paths: [/lustre]       # path prefixes granted (default: /)\n"
      "SIGHUP reads --clients again: connections of keys still listed are kept, keys no longer "
      "listed are refused from then on, and a list that does not load is reported and ignored.\n"
      "Stops cleanly on SIGINT/SIGTERM.");
  cmd->add_option("--listen", args->listen, "ZeroMQ endpoint to listen on, e.g. tcp://*:5555")
      ->required()
      ->type_name("ENDPOINT");
  cmd->add_option("--store", args->store, "The event store, e.g. /var/lib/fathom/events.db")
      ->required()
      ->type_name("[sqlite:]FILE");
  cmd->add_option("--key", args->key, "The server's key pair file (from `fathom keygen`)")
      ->type_name("FILE.key");
  cmd->add_option("--clients", args->clients, "YAML list of admitted client keys and grants")
      ->type_name("FILE.yaml");
  cmd->add_flag("--insecure", args->insecure,
                "No encryption nor authentication: any client may collect and subscribe");
  cmd->add_option("--max-events", args->max_events, "Keep at most N newest events (0 = all)")
      ->type_name("N")
      ->check(WholeNumber());
  cmd->add_option("--max-age", args->max_age, "Drop events older than this (e.g. 7d)")
      ->type_name("DURATION");
  cmd->add_option("--sync", args->sync,
                  "full: every commit survives power loss; normal: survives process crashes")
      ->check(CLI::IsMember({"full", "normal"}))
      ->default_str("full");
  cmd->add_flag("--purge-acknowledged", args->purge_acknowledged,
                "Remove events once every durable subscriber acknowledged them");
  cmd->add_option("--stats-interval", args->stats_interval,
                  "Log the counters every S seconds (0 = never)")
      ->type_name("S")
      ->check(WholeNumber());
  return [args] {
    auto options = BuildOptions(*args);
    if (!options.ok()) return Fail("aggregate", options.status().message(), kExitUsage);
    // The signal mask is set before Create() starts the ZeroMQ and ZAP threads.
    std::mutex mu;
    aggregator::Aggregator* running = nullptr;  // guarded by mu
    bool stop = false;                          // guarded by mu
    SignalWaiter signals([&](int signal) {
      std::lock_guard lock(mu);
      if (signal == SIGHUP) {
        if (running != nullptr) ReloadClients(*args, *running);
        return;
      }
      stop = true;
      if (running != nullptr) running->Stop();
    });
    auto created = aggregator::Aggregator::Create(std::move(options.value()));
    if (!created.ok()) return Fail("aggregate", created.status().message(), kExitFailure);
    {
      std::lock_guard lock(mu);
      running = created.value().get();
      if (stop) running->Stop();
    }
    Status status = created.value()->Run();
    {
      std::lock_guard lock(mu);
      running = nullptr;
    }
    if (!status.ok()) return Fail("aggregate", status.message(), kExitFailure);
    return kExitOk;
  };
}

}  // namespace fathom::cli
