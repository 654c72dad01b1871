// web.h — `fathom serve`: the web pages, the REST API under /api/v1/, Prometheus /metrics and
// the health checks over what fathom knows (an event store, a catalog), in one HTTP server
// (docs/web.md, docs/api.md). Events come from a store file or, on another host, from the
// aggregator that writes it.
//
// Contract: every /api/v1/ call is answered for a token (tokens.h: hashed in a SQLite file,
// or one admin token made at start-up) and holds only what the token's path grants cover;
// errors are JSON with a message. The server reads its sources read-only and never changes
// them. Data is aggregated on the server and paginated, so an answer's cost follows what it
// shows, not the size of the catalog or store.
//
// Ownership: a WebServer owns its listening socket, its threads and its read-only handles on
// the sources; Stop() (or the destructor) closes the socket, ends the event streams and joins
// every thread. Threads: requests are served by a fixed pool of threads; one more thread tails
// the store for the live streams and the rates. Start(), Stop() and the accessors may be
// called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fathom/client.h"
#include "fathom/status.h"

namespace fathom::web {

struct ServeOptions {
  std::string listen = "127.0.0.1:8720";  // HOST:PORT; port 0 picks a free one
  std::string store;                      // event store (SQLite file), "" none
  // An aggregator (tcp://HOST:PORT, ipc://PATH) to show the events of, "" none: its live events
  // feed the rates and streams (unless a store is given too), searches replay from it, and its
  // counters (commit queue, commit latency) join /metrics and the overview.
  std::string from;
  ClientKeys from_keys;                   // the CURVE keys for `from` (all empty: --insecure)
  std::string catalog;                    // catalog URI, "" none
  std::string catalog_stream = "catalog"; // the follower (catalog follow --name) whose lag is shown
  std::string policies;                   // policies file (YAML): definitions, runs, alerts
  std::string rules;                      // rules file (YAML): rules and their outbox
  std::string io;                         // directory of I/O traces (fathom io run --dir)
  std::string io_samples;                 // storage servers' samples (fathom io servers), for anomalies
  std::string h5;                         // directory of HDF5 traces (fathom h5 run --dir)
  std::string tokens;                     // tokens file; "" makes one admin token at start-up
  std::string tls_cert, tls_key;          // PEM files: HTTPS when both are given
  std::string assets;                     // serve the pages from this directory, not the binary
  std::string metrics_token;              // when set, /metrics needs this bearer token
  int threads = 16;                       // requests served at once
  int max_streams = 32;                   // open event streams at once (more: 429)
  bool quiet = false;                     // no access log
};

// Tokens (a SQLite file, created on first use, mode 0600): each belongs to a user and holds
// path grants; only a SHA-256 hash of it is kept. A server reads new and revoked tokens within
// two seconds, without a restart.
struct TokenInfo {
  std::string id;                  // the first 12 hex digits of the token's hash: names it
  std::string user;
  std::vector<std::string> paths;  // granted prefixes: absolute, no trailing '/'
  bool admin = false;              // may act (run a policy, replay a delivery)
  int64_t created_ns = 0;
  int64_t expires_ns = 0;          // 0: never
};

// Makes a token for `user` granting `paths` (each absolute; "/" grants everything) and returns
// it: "fathom_" and 64 hex digits. It is shown only this once.
Result<std::string> CreateToken(const std::string& tokens_file, const TokenInfo& info);
Result<std::vector<TokenInfo>> ListTokens(const std::string& tokens_file);
// Revokes the token whose id (or a unique prefix of it, at least 6 digits) is `id`.
Status RevokeToken(const std::string& tokens_file, const std::string& id);

class WebServer {
 public:
  virtual ~WebServer() = default;

  // Opens the sources (an error names the one that does not open and why), binds, and serves
  // on threads of its own until Stop().
  static Result<std::unique_ptr<WebServer>> Start(const ServeOptions& options);

  // "http://127.0.0.1:8720/" with the port actually bound.
  virtual std::string Url() const = 0;
  // The admin token made at start-up (none when the server reads a tokens file).
  virtual std::optional<std::string> StartupToken() const = 0;
  // Blocks until Stop() is called or the server fails.
  virtual void Wait() = 0;
  virtual void Stop() = 0;
};

}  // namespace fathom::web
