// jetstream_link.h — one connection to a NATS server set with its JetStream context, the
// fathom stream's creation, and the translation of libnats failures into Status.
//
// Connect() makes one attempt over every configured server; once connected, libnats
// reconnects by itself forever (the connection is never replaced). Requests made while
// disconnected fail at once instead of waiting, so callers retry with their own backoff.
// Close() may be called from any thread: a call blocked in libnats then fails promptly and
// Connect() refuses from then on. Everything else is used from one thread at a time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bus/nats_handles.h"
#include "fathom/client.h"
#include "fathom/status.h"

namespace fathom::bus::internal {

// A libnats failure: "<what>: <libnats text> (JetStream error N)". Failures that retrying
// cannot cure (a message larger than the server allows, a permission, an invalid argument)
// carry the code std::errc::invalid_argument; see IsPermanent().
Status NatsFailure(std::string_view what, natsStatus status, jsErrCode js_error = static_cast<jsErrCode>(0));
bool IsPermanent(const Status& status);

class JetStreamLink {
 public:
  JetStreamLink(std::vector<std::string> servers, std::string client_name,
                std::chrono::milliseconds request_timeout);
  ~JetStreamLink();
  JetStreamLink(const JetStreamLink&) = delete;
  JetStreamLink& operator=(const JetStreamLink&) = delete;

  // Connected (or reconnecting) already: ok. Else one connection attempt.
  Status Connect();
  bool closed() const;
  void Close();

  natsConnection* connection() const { return conn_.get(); }
  jsCtx* js() const { return js_.get(); }
  std::string_view servers_text() const { return servers_text_; }

  // The stream of `bus` exists afterwards: created as described in nats_bus.h when absent.
  Status EnsureStream(const BusOptions& bus);

  // Sleeps for the current backoff (doubling from 50 ms up to `max`), waking early on
  // Close(); false once closed.
  bool Backoff(std::chrono::milliseconds max);
  void ResetBackoff() { backoff_ = std::chrono::milliseconds(0); }

 private:
  std::vector<std::string> servers_;
  std::string servers_text_;
  std::string client_name_;
  std::chrono::milliseconds request_timeout_;
  std::chrono::milliseconds backoff_{0};

  mutable std::mutex mu_;
  std::condition_variable closed_cv_;
  bool closed_ = false;  // guarded by mu_
  NatsPtr<natsConnection> conn_;  // set once under mu_, by the using thread
  NatsPtr<jsCtx> js_;
};

}  // namespace fathom::bus::internal
