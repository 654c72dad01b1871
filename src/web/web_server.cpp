// web_server.cpp — WebServer::Start: the sources opened read-only, the tokens, the HTTP server
// (cpp-httplib: plain or TLS) with its limits, its routes and its threads.
#include <spdlog/spdlog.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/thread_name.h"
#include "fathom/web.h"
#include "web/serve_context.h"
#include "web/shedding_pool.h"

namespace fathom::web {
namespace {

constexpr size_t kMaxBody = 64 * 1024;
constexpr uint64_t kTailSeedEvents = 10'000;

Result<std::pair<std::string, int>> ParseListen(const std::string& listen) {
  size_t colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? "" : listen.substr(0, colon);
  std::string port = colon == std::string::npos ? "" : listen.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) > 65535) {
    return Status::Error("--listen '" + listen + "' is not HOST:PORT (127.0.0.1:8720; port 0 picks a free one)");
  }
  return std::make_pair(host, std::stoi(port));
}

// The aggregator's events: a live subscription that starts a ring's worth before its newest
// event, and replays for the rest.
Status FollowAggregator(ServeContext& ctx) {
  const ServeOptions& o = ctx.options;
  auto history = AggregatorHistory(o.from, o.from_keys);
  auto held = history->Held();
  if (!held.ok()) return Status::Error("--from " + o.from + ": " + held.status().message());
  SubscribeOptions so;
  so.endpoint = o.from;
  so.keys = o.from_keys;
  const IdRange ids = held.value();
  const uint64_t floor = ids.first == 0 ? ids.last : ids.first - 1;
  so.since = std::max(floor, ids.last > kTailSeedEvents ? ids.last - kTailSeedEvents : 0);
  FATHOM_ASSIGN_OR_RETURN(auto live, Subscriber::Open(so));
  ctx.tail = std::make_unique<EventTail>(std::move(live), ids.last, [so](std::optional<uint64_t> since) {
    SubscribeOptions again = so;
    again.since = since;
    return Subscriber::Open(again);
  });
  ctx.history = std::move(history);
  return Status::Ok();
}

Status OpenSources(ServeContext& ctx) {
  if (!ctx.options.store.empty()) {
    StoreOptions so;
    so.path = ctx.options.store;
    so.read_only = true;
    auto open = [so]() { return EventStore::Open(so); };
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<EventStore> first, open());
    ctx.tail = std::make_unique<EventTail>(std::move(first));
    ctx.stores = std::make_unique<HandlePool<EventStore>>(open, ctx.options.threads);
    ctx.history = StoreHistory(*ctx.stores);
  } else if (!ctx.options.from.empty()) {
    FATHOM_RETURN_IF_ERROR(FollowAggregator(ctx));
  }
  if (!ctx.options.catalog.empty()) {
    catalog::CatalogOptions co;
    co.uri = ctx.options.catalog;
    co.read_only = true;
    auto open = [co]() { return catalog::Catalog::Open(co); };
    FATHOM_RETURN_IF_ERROR(open().status());
    ctx.catalogs = std::make_unique<HandlePool<catalog::Catalog>>(open, ctx.options.threads);
  }
  if (!ctx.options.io.empty()) ctx.io_jobs = std::make_unique<TraceJobs>(ctx.options.io);
  if (!ctx.options.tokens.empty()) {
    FATHOM_ASSIGN_OR_RETURN(ctx.tokens, TokenStore::Open(ctx.options.tokens));
  }
  return Status::Ok();
}

void CountOutcome(RequestCounters& c, int status) {
  if (status == 401 || status == 403) {
    ++c.refused_auth;
  } else if (status == 429) {
    ++c.throttled;
  } else if (status >= 500) {
    ++c.failed;
  } else if (status >= 400) {
    ++c.bad_requests;
  } else {
    ++c.served;
  }
}

class Server final : public WebServer {
 public:
  explicit Server(ServeOptions options) { ctx_.options = std::move(options); }
  ~Server() override { Stop(); }

  Status Init() {
    FATHOM_RETURN_IF_ERROR(OpenSources(ctx_));
    if (!ctx_.tokens) {
      FATHOM_ASSIGN_OR_RETURN(startup_token_, NewToken());
      ctx_.startup_token_hash = TokenHash(*startup_token_);
    }
    FATHOM_ASSIGN_OR_RETURN(auto listen, ParseListen(ctx_.options.listen));
    bool tls = !ctx_.options.tls_cert.empty() || !ctx_.options.tls_key.empty();
    if (tls) {
      if (ctx_.options.tls_cert.empty() || ctx_.options.tls_key.empty()) {
        return Status::Error("HTTPS needs both --tls-cert FILE and --tls-key FILE");
      }
      auto ssl = std::make_unique<httplib::SSLServer>(ctx_.options.tls_cert.c_str(), ctx_.options.tls_key.c_str());
      if (!ssl->is_valid()) {
        return Status::Error("cannot use the certificate " + ctx_.options.tls_cert + " with the key " +
                             ctx_.options.tls_key + ": check that both are PEM files and belong together");
      }
      http_ = std::move(ssl);
    } else {
      http_ = std::make_unique<httplib::Server>();
    }
    Configure();
    int port = listen.second == 0 ? http_->bind_to_any_port(listen.first)
                                  : (http_->bind_to_port(listen.first, listen.second) ? listen.second : -1);
    if (port <= 0) {
      return Status::Error("cannot listen on " + ctx_.options.listen + ": " + std::strerror(errno) +
                           " (another program on that port? pick another with --listen HOST:PORT)");
    }
    std::string host = listen.first.find(':') != std::string::npos ? "[" + listen.first + "]" : listen.first;
    url_ = std::string(tls ? "https" : "http") + "://" + host + ":" + std::to_string(port) + "/";
    thread_ = std::thread([this] {
      if (!http_->listen_after_bind()) spdlog::error("serve: the server stopped listening");
      done_ = true;
      done_.notify_all();
    });
    if (ctx_.catalogs) warmer_ = std::thread([this] { Warm(); });
    return Status::Ok();
  }

  std::string Url() const override { return url_; }
  std::optional<std::string> StartupToken() const override { return startup_token_; }
  void Wait() override { done_.wait(false); }
  void Stop() override {
    if (stopped_.exchange(true)) return;
    {
      std::lock_guard<std::mutex> lock(warm_mu_);
      stop_warming_ = true;
    }
    warm_cv_.notify_all();
    if (warmer_.joinable()) warmer_.join();
    if (ctx_.tail) ctx_.tail->Stop();  // ends the event streams first
    if (http_) http_->stop();
    if (thread_.joinable()) thread_.join();
    done_ = true;
    done_.notify_all();
  }

 private:
  // Prepares the whole catalog's costly answers at start and again a moment after each
  // change of the catalog, so that pages find them ready.
  void Warm() {
    NameThisThread("serve-warm");
    std::optional<uint64_t> warmed;
    while (true) {
      if (auto cat = ctx_.catalogs->Acquire(); cat.ok()) {
        auto commits = cat.value()->Commits();
        if (commits.ok() && commits.value() != warmed) {
          warmed = commits.value();
          WarmCatalogAnswers(ctx_);
        }
      }
      std::unique_lock<std::mutex> lock(warm_mu_);
      if (warm_cv_.wait_for(lock, std::chrono::seconds(2), [this] { return stop_warming_; })) return;
    }
  }

  void Configure() {
    const ServeOptions& o = ctx_.options;
    size_t threads = static_cast<size_t>(std::max(o.threads, 2) + o.max_streams);
    http_->new_task_queue = [threads] { return new SheddingPool(threads, threads * 4); };
    http_->set_payload_max_length(kMaxBody);
    http_->set_read_timeout(5, 0);
    http_->set_write_timeout(5, 0);
    http_->set_keep_alive_timeout(2);
    http_->set_tcp_nodelay(true);  // answers are written in parts: no 40 ms waits for delayed ACKs
    http_->set_pre_routing_handler([](const httplib::Request&, httplib::Response& res) {
      if (!SheddingPool::Shed()) return httplib::Server::HandlerResponse::Unhandled;
      res.set_header("Retry-After", "1");
      ReplyError(res, 429, "the server is busy: too many requests at once; retry in a second");
      return httplib::Server::HandlerResponse::Handled;
    });
    http_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      if (res.status == 413) {
        ReplyError(res, 413, "the body is over " + std::to_string(kMaxBody / 1024) + " KiB");
      } else if (res.status == 400 && req.method == "POST" && req.body.empty()) {
        ReplyError(res, 400, "a POST needs a body, even an empty one (curl -X POST -d '' ...)");
      } else if (res.status == 404) {
        ReplyError(res, 404, "no such call: " + req.method + " " + req.path + " (docs/api.md lists them)");
      } else {
        ReplyError(res, res.status, "the request was refused (" + std::to_string(res.status) + ")");
      }
    });
    http_->set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
      std::string what = "unknown error";
      try {
        std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      spdlog::error("serve: {} {}: {}", req.method, req.path, what);
      ReplyError(res, 500, "the server failed to answer: " + what);
    });
    http_->set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      CountOutcome(ctx_.counters, res.status);
      if (!ctx_.options.quiet) spdlog::info("serve: {} {} {} {}", req.remote_addr, req.method, req.path, res.status);
    });
    AddSessionRoutes(*http_, ctx_);
    AddOverviewRoutes(*http_, ctx_);
    AddEventRoutes(*http_, ctx_);
    AddCatalogRoutes(*http_, ctx_);
    AddPolicyRoutes(*http_, ctx_);
    AddRuleRoutes(*http_, ctx_);
    AddJobRoutes(*http_, ctx_);
    AddH5Routes(*http_, ctx_);
    AddMetricsRoutes(*http_, ctx_);
    AddAssetRoutes(*http_, ctx_);
  }

  ServeContext ctx_;
  std::unique_ptr<httplib::Server> http_;
  std::optional<std::string> startup_token_;
  std::string url_;
  std::thread thread_;
  std::thread warmer_;
  std::mutex warm_mu_;
  std::condition_variable warm_cv_;
  bool stop_warming_ = false;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> done_{false};
};

}  // namespace

Result<std::unique_ptr<WebServer>> WebServer::Start(const ServeOptions& options) {
  auto server = std::make_unique<Server>(options);
  FATHOM_RETURN_IF_ERROR(server->Init());
  return std::unique_ptr<WebServer>(std::move(server));
}

}  // namespace fathom::web
