// `fathom serve` — the web pages, the REST API and /metrics over a store or an aggregator, and
// a catalog (fathom/web.h, docs/web.md).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signal_waiter.h"
#include "client/client_keys.h"
#include "fathom/web.h"

namespace fathom::cli {
namespace {

struct ServeArgs {
  web::ServeOptions options;
  client::KeyArgs keys;
  std::string ready_file;
};

// Writes `text` to `path` atomically (a temporary file renamed over it).
Status WriteAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out.flush()) return Status::Error("cannot write " + tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Status::FromErrno(errno, "rename " + tmp + " to " + path);
  return Status::Ok();
}

int Run(ServeArgs a) {
  if (!a.options.store.empty()) {
    auto file = StoreFile(a.options.store);
    if (!file.ok()) return Fail("serve", file.status().message(), kExitUsage);
    a.options.store = file.value();
  }
  if (!a.options.from.empty()) {
    if (a.options.from.rfind("tcp://", 0) != 0 && a.options.from.rfind("ipc://", 0) != 0) {
      return Fail("serve", "--from " + a.options.from + " is not an aggregator's endpoint (tcp://HOST:PORT or ipc:///PATH)",
                  kExitUsage);
    }
    auto keys = client::LoadClientKeys(a.keys, a.options.from);
    if (!keys.ok()) return Fail("serve", keys.status().message(), kExitUsage);
    a.options.from_keys = keys.value();
  }
  std::unique_ptr<web::WebServer> server;
  SignalWaiter signals([&server](int) {
    if (server) server->Stop();
  });
  auto started = web::WebServer::Start(a.options);
  if (!started.ok()) return Fail("serve", started.status().message(), kExitFailure);
  server = std::move(started).value();
  auto token = server->StartupToken();
  if (token) {
    std::printf("fathom serve: open %s#token=%s\n", server->Url().c_str(), token->c_str());
    std::printf("fathom serve: API token (admin, every path): %s\n", token->c_str());
  } else {
    std::printf("fathom serve: open %s (tokens: %s)\n", server->Url().c_str(), a.options.tokens.c_str());
  }
  std::fflush(stdout);
  if (!a.ready_file.empty()) {
    nlohmann::json ready = {{"url", server->Url()}};
    if (token) ready["token"] = *token;
    Status written = WriteAtomically(a.ready_file, ready.dump() + "\n");
    if (!written.ok()) return Fail("serve", written.message(), kExitFailure);
  }
  server->Wait();
  return kExitOk;
}

}  // namespace

CommandRunner AddServeCommand(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  web::ServeOptions& o = a->options;
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Serve web pages, a REST API (/api/v1/) and Prometheus metrics (/metrics) over an event store (or an "
      "aggregator) and a "
      "catalog: live event rates and the event tail, usage and size profiles, top directories. Every answer "
      "holds only what the caller's token grants.");
  cmd->add_option("--listen", o.listen, "HOST:PORT to listen on (port 0: any free port)")
      ->default_str(o.listen)
      ->type_name("ADDR:PORT");
  cmd->add_option("--store", o.store, "The event store to show (fathom watch or aggregate --store)")->type_name("FILE");
  cmd->add_option("--from", o.from,
                  "An aggregator to show the events and counters of (tcp://HOST:PORT or ipc:///PATH); with --store "
                  "too, the store is read for events and the aggregator for its counters")
      ->type_name("ENDPOINT");
  AddKeyOptions(*cmd, a->keys, "server");
  cmd->add_option("--catalog", o.catalog, "The catalog to show: FILE or sqlite:FILE, or postgresql://...")
      ->type_name("URI");
  cmd->add_option("--catalog-follower", o.catalog_stream,
                  "The name the catalog's follower applies the store under (catalog follow --name), for its lag")
      ->default_str(o.catalog_stream)
      ->type_name("NAME");
  cmd->add_option("--policies,--config", o.policies,
                  "The policy configuration to show (definitions, runs, actions, alerts); --config as in fathom policy")
      ->type_name("FILE");
  cmd->add_option("--rules", o.rules, "The rules file to show (rules, deliveries, dead letters)")->type_name("FILE");
  cmd->add_option("--io", o.io, "The directory of I/O traces to show jobs of (fathom io run --dir)")->type_name("DIR");
  cmd->add_option("--io-samples", o.io_samples,
                  "The storage servers' samples to find anomalies in (fathom io servers --out)")
      ->type_name("FILE");
  cmd->add_option("--h5", o.h5, "The directory of HDF5 traces to show (fathom h5 run --dir)")->type_name("DIR");
  cmd->add_option("--tokens", o.tokens,
                  "The tokens file (fathom token create); without it one admin token is made and printed")
      ->type_name("FILE");
  cmd->add_option("--tls-cert", o.tls_cert, "Serve HTTPS with this certificate (PEM)")->type_name("FILE");
  cmd->add_option("--tls-key", o.tls_key, "The certificate's private key (PEM)")->type_name("FILE");
  cmd->add_option("--assets", o.assets, "Serve the pages from this directory instead of those built in")
      ->type_name("DIR");
  cmd->add_option("--metrics-token", o.metrics_token, "Require this bearer token on /metrics")->type_name("TOKEN");
  cmd->add_option("--threads", o.threads, "Requests answered at once")
      ->default_str(std::to_string(o.threads))
      ->check(CLI::Range(2, 512));
  cmd->add_option("--max-streams", o.max_streams, "Live event streams open at once")
      ->default_str(std::to_string(o.max_streams))
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--ready-file", a->ready_file,
                  "Once listening, write {\"url\": ..., \"token\": ...} to FILE (for scripts)")
      ->type_name("FILE");
  cmd->add_flag("-q,--quiet", o.quiet, "No line per request on stderr");
  cmd->footer(
      "\nExamples:\n"
      "  fathom serve --store events.db --catalog catalog.db\n"
      "  fathom serve --from tcp://aggregator:7400 --key serve.key --server-key aggregator.pub\n"
      "  fathom token create --tokens tokens.db --user alice --paths /data/alice\n"
      "  fathom serve --listen 0.0.0.0:8720 --tokens tokens.db --tls-cert cert.pem --tls-key key.pem \\\n"
      "      --store /var/lib/fathom/events.db --catalog postgresql://fathom@db/catalog\n"
      "The API is described in docs/api.md; the pages in docs/web.md.");
  return [a] { return Run(*a); };
}

}  // namespace fathom::cli
