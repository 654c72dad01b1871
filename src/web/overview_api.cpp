// overview_api.cpp — /api/v1/overview: the store and the catalog at a glance, the event rates
// of the last minutes per source and kind, recent overflows and errors (docs/api.md).
#include <sys/stat.h>

#include "web/event_json.h"
#include "web/serve_context.h"
#include "web/source_state.h"

namespace fathom::web {
namespace {

using nlohmann::json;

constexpr int64_t kWindowS = 300;
constexpr int64_t kStepS = 10;

json RatesJson(const EventTail& tail, const Access& access) {
  json series = json::array();
  int64_t now_s = NowNs() / 1'000'000'000;
  int64_t start = (now_s - kWindowS) / kStepS * kStepS;
  if (access.Everything()) {
    std::map<std::pair<std::string, std::string>, std::map<int64_t, uint64_t>> by_series;
    for (const RateCount& r : tail.Rates(start)) by_series[{r.source, r.kind}][r.second / kStepS * kStepS] += r.n;
    for (const auto& [key, buckets] : by_series) {
      json points = json::array();
      for (int64_t t = start; t <= now_s; t += kStepS) {
        auto it = buckets.find(t);
        points.push_back({t, it == buckets.end() ? 0 : it->second});
      }
      series.push_back({{"source", key.first}, {"kind", key.second}, {"points", points}});
    }
  }
  return {{"window_s", kWindowS}, {"step_s", kStepS}, {"series", series}};
}

void Overview(ServeContext& ctx, const httplib::Request&, httplib::Response& res, const Access& access) {
  json out = {{"store", nullptr},  {"aggregator", nullptr}, {"catalog", nullptr},
              {"rates", nullptr}, {"recent_overflows", json::array()}};
  json errors = json::array();
  std::optional<uint64_t> last_id;
  if (ctx.stores) {
    auto state = ReadStoreState(ctx);
    if (state.ok()) {
      last_id = state->last_id;
      out["store"] = {{"path", ctx.options.store}, {"first_id", state->first_id}, {"last_id", state->last_id},
                      {"bytes", state->bytes}};
    } else {
      errors.push_back(state.status().message());
    }
  }
  if (!ctx.options.from.empty()) {
    auto counters = ReadAggregatorState(ctx);
    if (counters.ok()) {
      if (!last_id) last_id = counters->value("last_id", uint64_t{0});
      out["aggregator"] = *counters;
      out["aggregator"]["endpoint"] = ctx.options.from;
    } else {
      errors.push_back(counters.status().message());
    }
  }
  if (ctx.tail) {
    out["rates"] = RatesJson(*ctx.tail, access);
    if (std::string e = ctx.tail->Error(); !e.empty()) errors.push_back(e);
    for (const Event& e : ctx.tail->RecentOverflows(SIZE_MAX)) {
      if (out["recent_overflows"].size() == 20) break;
      if (!access.Covers(e.path)) continue;
      std::string text;
      AppendEventJson(e, text);
      out["recent_overflows"].push_back(json::parse(text, nullptr, false));
    }
  }
  if (ctx.catalogs) {
    auto state = ReadCatalogState(ctx, last_id);
    if (state.ok()) {
      json c = {{"uri", state->info.uri}, {"backend", state->info.backend}, {"last_applied", state->last_applied},
                {"lag_events", state->lag_events ? json(*state->lag_events) : json(nullptr)}};
      if (access.Everything()) {
        c.update({{"entries", state->info.entries}, {"names", state->info.names}, {"removed", state->info.removed},
                  {"bytes", state->info.bytes}});
      }
      out["catalog"] = c;
    } else {
      errors.push_back(state.status().message());
    }
  }
  out["errors"] = errors;
  ReplyJson(res, out);
}

}  // namespace

void AddOverviewRoutes(httplib::Server& server, ServeContext& ctx) {
  server.Get("/api/v1/overview", Authed(ctx, [&ctx](const httplib::Request& req, httplib::Response& res, const Access& a) {
               Overview(ctx, req, res, a);
             }));
}

}  // namespace fathom::web
