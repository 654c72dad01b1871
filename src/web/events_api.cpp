// events_api.cpp — /api/v1/events: search newest first, one event, and the live stream
// (Server-Sent Events) with the rates (docs/api.md).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>

#include "web/event_json.h"
#include "web/http_reply.h"
#include "web/serve_context.h"

namespace fathom::web {
namespace {

// Events read at most by one search before it answers with a cursor to go on from.
constexpr uint64_t kSearchBudget = 200'000;
constexpr size_t kStreamBatch = 500;

EventHistory& HistoryOf(ServeContext& ctx) {
  if (!ctx.history) throw BadRequest{{503, kNoEvents}};
  return *ctx.history;
}

struct EventQuery {
  std::string prefix;  // "" every path
  uint32_t kinds = kind::kAll;
  std::optional<int64_t> since, until;

  bool Matches(const Event& e, const Access& access) const {
    if (!(e.mask & kinds & ~kind::kIsDir)) return false;
    if (since && e.ts_ns < *since) return false;
    if (until && e.ts_ns >= *until) return false;
    if (!prefix.empty() && !PathUnder(e.path, prefix)) return false;
    return access.Covers(e.path);
  }
};

EventQuery QueryOf(const httplib::Request& req) {
  EventQuery q;
  q.prefix = ParamPath(req, "prefix", "");
  if (q.prefix == "/") q.prefix.clear();
  q.kinds = ParamKinds(req, "kinds");
  q.since = ParamTime(req, "since");
  q.until = ParamTime(req, "until");
  return q;
}

void Search(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  EventQuery q = QueryOf(req);
  size_t limit = ParamLimit(req);
  EventHistory& history = HistoryOf(ctx);
  const IdRange held = Must(history.Held());
  const uint64_t first = held.first, last = held.last;
  uint64_t before = ParamNumber(req, "before_id", last + 1, 1, UINT64_MAX);
  std::vector<Event> found;  // newest first
  uint64_t hi = std::min(before - 1, last);
  uint64_t window = std::max<uint64_t>(limit * 4, 1024);
  uint64_t scanned = 0;
  std::optional<uint64_t> next;
  while (first > 0 && hi >= first && found.size() < limit) {
    if (scanned >= kSearchBudget) {
      next = hi + 1;
      break;
    }
    uint64_t lo = hi - std::min(window, hi - first + 1) + 1;
    std::vector<Event> chunk;
    Must(history.Replay(lo - 1, hi, q.prefix, [&](const Event& e) {
      if (q.Matches(e, access)) chunk.push_back(e);
      return true;
    }));
    scanned += hi - lo + 1;
    for (auto it = chunk.rbegin(); it != chunk.rend() && found.size() < limit; ++it) found.push_back(std::move(*it));
    if (found.size() == limit) {
      next = found.back().id;
      break;
    }
    if (lo == first) break;
    hi = lo - 1;
    window = std::min<uint64_t>(window * 4, kSearchBudget);
  }
  if (next && *next <= first) next.reset();
  std::string out = "{\"events\":[";
  for (size_t i = 0; i < found.size(); ++i) {
    if (i) out += ',';
    AppendEventJson(found[i], out);
  }
  out += "],\"next\":";
  out += next ? "{\"before_id\":" + std::to_string(*next) + "}" : "null";
  out += ",\"first_id\":" + std::to_string(first) + ",\"last_id\":" + std::to_string(last) + "}";
  ReplyJsonText(res, std::move(out));
}

void One(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string text = req.matches[1];
  uint64_t id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id == 0) {
    throw BadRequest{{400, "an event id is a whole number from 1, not '" + text + "'"}};
  }
  EventHistory& history = HistoryOf(ctx);
  const IdRange held = Must(history.Held());
  std::optional<Event> event;
  if (id >= held.first && id <= held.last) {
    Must(history.Replay(id - 1, id, "", [&](const Event& e) {
      event = e;
      return false;
    }));
  }
  if (!event || !access.Covers(event->path)) {
    throw BadRequest{{404, "no event " + text + " (removed by retention, never stored, or not granted)"}};
  }
  std::string out;
  AppendEventJson(*event, out);
  ReplyJsonText(res, std::move(out));
}

// Counts `e` once per kind it has, under its source.
void CountKinds(const Event& e, KindCounts::Map& counts) {
  for (std::string_view k : KindNameList(e.mask & ~kind::kIsDir)) ++counts[{e.source, std::string(k)}];
}

// One client's stream: where it is, what it wants, when it last heard of rates.
struct StreamState {
  ServeContext* ctx = nullptr;
  Access access;
  EventQuery query;
  uint64_t after = 0;
  int64_t rates_second = 0;
  // For a caller without the grant "/": its visible events per (source, kind) since the last
  // rates message (the tail's counts cover every path).
  KindCounts::Map visible;
  std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
};

// The events after state.after, from the tail's ring or (when the client fell behind it) the
// history.
std::vector<Event> NextEvents(StreamState& st) {
  bool complete = false;
  std::vector<Event> events = st.ctx->tail->After(st.after, kStreamBatch, complete);
  if (!complete) {
    (void)st.ctx->history->Replay(st.after, st.ctx->tail->LastId(), "", [&](const Event& e) {
      events.push_back(e);
      return events.size() < kStreamBatch;
    });
  }
  return events;
}

bool WriteStream(StreamState& st, httplib::DataSink& sink) {
  if (st.ctx->tail->stopped()) return false;
  st.ctx->tail->WaitAfter(st.after, std::chrono::milliseconds(250));
  std::string out;
  std::vector<Event> events = NextEvents(st);
  if (!events.empty()) {
    st.after = events.back().id;
    std::string batch;
    KindCounts::Map sent;
    for (const Event& e : events) {
      if (!st.access.Everything() && st.access.Covers(e.path)) {
        CountKinds(e, st.visible);
      }
      if (!st.query.Matches(e, st.access)) continue;
      CountKinds(e, sent);
      batch += batch.empty() ? "[" : ",";
      AppendEventJson(e, batch);
    }
    if (!batch.empty()) out += "event: events\ndata: " + batch + "]\n\n";
    if (!sent.empty()) st.ctx->counters.events_out.Add(sent);
  }
  int64_t now_s = NowNs() / 1'000'000'000;
  if (now_s > st.rates_second) {
    // The last whole second, counted over the events the caller may see.
    int64_t second = now_s - 1;
    nlohmann::json counts = nlohmann::json::array();
    if (st.access.Everything()) {
      for (const RateCount& r : st.ctx->tail->Rates(second)) {
        if (r.second == second) counts.push_back({{"source", r.source}, {"kind", r.kind}, {"n", r.n}});
      }
    } else {
      for (const auto& [key, n] : st.visible) counts.push_back({{"source", key.first}, {"kind", key.second}, {"n", n}});
      st.visible.clear();
    }
    out += "event: rates\ndata: " + nlohmann::json{{"time", second}, {"counts", counts}}.dump() + "\n\n";
    st.rates_second = now_s;
  }
  auto now = std::chrono::steady_clock::now();
  if (out.empty() && now - st.last_write > std::chrono::seconds(15)) out = ": keep-alive\n\n";
  if (!out.empty()) {
    if (!sink.write(out.data(), out.size())) return false;
    st.last_write = now;
  }
  return true;
}

void Stream(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  if (!ctx.tail) throw BadRequest{{503, kNoEvents}};
  auto st = std::make_shared<StreamState>();
  st->ctx = &ctx;
  st->access = access;
  st->query = QueryOf(req);
  st->after = ParamNumber(req, "after_id", ctx.tail->LastId(), 0, UINT64_MAX);
  st->rates_second = NowNs() / 1'000'000'000;
  if (++ctx.counters.streams > ctx.options.max_streams) {
    --ctx.counters.streams;
    res.set_header("Retry-After", "5");
    throw BadRequest{{429, "too many open event streams (" + std::to_string(ctx.options.max_streams) +
                               "); close one or start the server with a higher --max-streams"}};
  }
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider(
      "text/event-stream",
      [st](size_t, httplib::DataSink& sink) {
        if (!WriteStream(*st, sink)) {
          sink.done();
          return false;
        }
        return true;
      },
      [&ctx](bool) { --ctx.counters.streams; });
}

}  // namespace

void AddEventRoutes(httplib::Server& server, ServeContext& ctx) {
  server.Get("/api/v1/events", Authed(ctx, [&ctx](const auto& req, auto& res, const Access& a) { Search(ctx, req, res, a); }));
  server.Get(R"(/api/v1/events/(\d+))",
             Authed(ctx, [&ctx](const auto& req, auto& res, const Access& a) { One(ctx, req, res, a); }));
  server.Get("/api/v1/events/stream",
             Authed(ctx, [&ctx](const auto& req, auto& res, const Access& a) { Stream(ctx, req, res, a); }));
}

}  // namespace fathom::web
