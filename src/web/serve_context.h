// serve_context.h — what every route of `fathom serve` shares: the options, the tokens, the
// handles on the sources, the store's tail, the cache of aggregations and the request
// counters; and Authed(), which wraps a route with the token check and the error answers.
// Ownership: the WebServer owns one ServeContext for its life. Threads: any (members are
// thread-safe or immutable after start).
#pragma once

#include <httplib.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "fathom/catalog.h"
#include "fathom/store.h"
#include "fathom/web.h"
#include "web/access.h"
#include "web/answer_cache.h"
#include "web/event_history.h"
#include "web/event_tail.h"
#include "web/handle_pool.h"
#include "web/http_reply.h"
#include "web/token_store.h"
#include "web/trace_jobs.h"

namespace fathom::web {

// Counts per (source, kind), added to by any thread.
class KindCounts {
 public:
  using Map = std::map<std::pair<std::string, std::string>, uint64_t>;
  void Add(const Map& counts) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, n] : counts) counts_[key] += n;
  }
  Map Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counts_;
  }

 private:
  mutable std::mutex mu_;
  Map counts_;
};

struct RequestCounters {
  std::atomic<uint64_t> served{0};
  std::atomic<uint64_t> refused_auth{0};   // 401 and 403
  std::atomic<uint64_t> bad_requests{0};   // 400, 404, 413
  std::atomic<uint64_t> throttled{0};      // 429
  std::atomic<uint64_t> failed{0};         // 5xx
  std::atomic<int> in_flight{0};
  std::atomic<int> streams{0};
  KindCounts events_out;  // events written to the live streams
};

struct ServeContext {
  ServeOptions options;
  std::unique_ptr<TokenStore> tokens;        // with --tokens
  std::string startup_token_hash;            // without: the one admin token's hash
  std::unique_ptr<HandlePool<EventStore>> stores;       // null: no store
  std::unique_ptr<HandlePool<catalog::Catalog>> catalogs;  // null: no catalog
  std::unique_ptr<EventHistory> history;     // with a store or an aggregator: past events
  std::unique_ptr<EventTail> tail;           // with a store or an aggregator: new events
  std::unique_ptr<TraceJobs> io_jobs;        // with --io
  AnswerCache cache;
  RequestCounters counters;

  // The access of the request's token (Authorization: Bearer, or the session cookie), or
  // nullopt.
  std::optional<Access> Authenticate(const httplib::Request& req);
  // The access `token` gives, or nullopt.
  std::optional<Access> AccessOf(const std::string& token);
};

using AuthedHandler = std::function<void(const httplib::Request&, httplib::Response&, const Access&)>;
// The route for callers with a valid token (and admin ones only, with `admin_only`): 401/403
// otherwise; BadRequest and source failures become JSON errors.
httplib::Server::Handler Authed(ServeContext& ctx, AuthedHandler handler, bool admin_only = false);

// A handle from `pool`; a 503 answer with `missing` when the server has no such source, or
// with the reason it does not open.
template <typename T>
typename HandlePool<T>::Lease LeaseOf(const std::unique_ptr<HandlePool<T>>& pool, const char* missing) {
  if (!pool) throw BadRequest{{503, missing}};
  auto lease = pool->Acquire();
  if (!lease.ok()) throw BadRequest{{503, lease.status().message()}};
  return std::move(lease).value();
}
// Nothing when `s` is ok; else the handle is dropped (its source failed) and the answer is a
// 503 with the message.
template <typename L>
void Checked(L& lease, const Status& s) {
  if (s.ok()) return;
  lease.Drop();
  throw BadRequest{{503, s.message()}};
}
template <typename L, typename T>
T Checked(L& lease, Result<T> r) {
  Checked(lease, r.status());
  return std::move(r).value();
}
// The value, or a 503 answer with the reason its source does not read.
template <typename T>
T Must(Result<T> r) {
  if (!r.ok()) throw BadRequest{{503, r.status().message()}};
  return std::move(r).value();
}
inline void Must(const Status& s) {
  if (!s.ok()) throw BadRequest{{503, s.message()}};
}
inline constexpr const char* kNoStore = "this server has no event store (fathom serve --store FILE)";
inline constexpr const char* kNoEvents =
    "this server has no events (fathom serve --store FILE, or --from ENDPOINT for an aggregator)";
inline constexpr const char* kNoIo = "this server has no I/O traces (fathom serve --io DIR, fathom io run's --out)";
inline constexpr const char* kNoH5 = "this server has no HDF5 traces (fathom serve --h5 DIR, fathom h5 run's --out)";
inline constexpr const char* kNoCatalog = "this server has no catalog (fathom serve --catalog URI)";

// The name of the session cookie.
inline constexpr const char* kSessionCookie = "fathom_session";

void AddSessionRoutes(httplib::Server& server, ServeContext& ctx);
void AddEventRoutes(httplib::Server& server, ServeContext& ctx);
void AddCatalogRoutes(httplib::Server& server, ServeContext& ctx);
// Computes the whole catalog's answers that read much of it (usage, size profile, age
// histograms, largest directories) into the answer cache, so that the pages find them there.
void WarmCatalogAnswers(ServeContext& ctx);
void AddOverviewRoutes(httplib::Server& server, ServeContext& ctx);
void AddPolicyRoutes(httplib::Server& server, ServeContext& ctx);
void AddRuleRoutes(httplib::Server& server, ServeContext& ctx);
void AddJobRoutes(httplib::Server& server, ServeContext& ctx);
void AddH5Routes(httplib::Server& server, ServeContext& ctx);
void AddMetricsRoutes(httplib::Server& server, ServeContext& ctx);
void AddAssetRoutes(httplib::Server& server, ServeContext& ctx);

}  // namespace fathom::web
