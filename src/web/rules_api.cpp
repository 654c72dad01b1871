// rules_api.cpp — /api/v1/rules/...: the rules file's rules with their deliveries counted by
// state, the deliveries and the dead letters from the outbox, and the replay of a dead
// delivery (docs/api.md).
//
// The rules file is read at each call; its outbox is opened read-only beside the running
// runner (a replay opens it to write). A caller without the grant "/" sees the deliveries all
// of whose paths (the one the action is about, and each event's) its grants cover, and counts
// made over those.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <variant>

#include "rules/actions/event_json.h"
#include "rules/outbox/outbox.h"
#include "rules/rule_set.h"
#include "web/serve_context.h"

namespace fathom::web {
namespace {

using nlohmann::json;
using rules::Delivery;
using rules::DeliveryState;
using rules::Outbox;

constexpr const char* kNoRules = "this server has no rules file (fathom serve --rules FILE)";
// Deliveries read at most by one list before it answers with a cursor.
constexpr size_t kDeliveryBudget = 100'000;

rules::RuleSet LoadRules(const ServeContext& ctx) {
  if (ctx.options.rules.empty()) throw BadRequest{{503, kNoRules}};
  auto set = rules::LoadRuleSet(ctx.options.rules);
  if (!set.ok()) {
    throw BadRequest{{503, "the rules file does not load: " + set.status().message() +
                               " (fix it; the server reads it again at the next call)"}};
  }
  return std::move(set).value();
}

// The outbox of `set`; null when the runner has not made it yet.
std::unique_ptr<Outbox> OpenOutbox(const rules::RuleSet& set, bool read_only) {
  struct stat st {};
  if (stat(set.outbox.c_str(), &st) != 0 && errno == ENOENT) return nullptr;
  auto outbox = Outbox::Open(set.outbox, read_only);
  if (!outbox.ok()) throw BadRequest{{503, outbox.status().message()}};
  return std::move(outbox).value();
}

const char* ActionKind(const rules::Action& action) {
  static constexpr const char* kKinds[] = {"command", "webhook", "copy", "mail"};
  static_assert(std::size(kKinds) == std::variant_size_v<rules::Action>);
  return kKinds[action.index()];
}

json TimeJson(int64_t ns) { return ns == 0 ? json(nullptr) : json(IsoTime(ns)); }

// The paths a delivery is about: each event's, in order, once (the delivery's own when its
// events cannot be read).
std::vector<std::string> PathsOf(const Delivery& d) {
  std::vector<std::string> paths;
  auto events = rules::ParseEventsJson(d.payload);
  if (events.ok()) {
    for (const Event& e : *events) {
      if (std::find(paths.begin(), paths.end(), e.path) == paths.end()) paths.push_back(e.path);
    }
  }
  if (paths.empty()) paths.push_back(d.path);
  return paths;
}

bool Sees(const Access& access, const Delivery& d, const std::vector<std::string>& paths) {
  if (access.Everything()) return true;
  if (!access.Covers(d.path)) return false;
  return std::all_of(paths.begin(), paths.end(), [&](const std::string& p) { return access.Covers(p); });
}

json DeliveryJson(const Delivery& d, const std::vector<std::string>& paths) {
  return {{"id", d.id},
          {"seq", d.seq},
          {"rule", d.rule},
          {"rule_version", d.rule_version},
          {"path", d.path},
          {"paths", paths},
          {"event_ids", d.event_ids},
          {"state", std::string(rules::StateName(d.state))},
          {"attempts", d.attempts},
          {"depth", d.depth},
          {"created_ns", d.created_ns},
          {"created", TimeJson(d.created_ns)},
          {"next_ns", d.state == DeliveryState::kWaiting ? json(d.next_ns) : json(nullptr)},
          {"lease_until_ns", d.state == DeliveryState::kRunning ? json(d.lease_until_ns) : json(nullptr)},
          {"finished_ns", d.finished_ns == 0 ? json(nullptr) : json(d.finished_ns)},
          {"finished", TimeJson(d.finished_ns)},
          {"last_result", d.last_result}};
}

// Per rule: its deliveries by state, as the outbox counts them for the grant "/", else over
// the deliveries the caller sees; and the newest outcome's time for the latter.
struct Counted {
  Outbox::RuleCounts counts;
  int64_t last_finished_ns = 0;
};
std::map<std::string, Counted> CountsFor(Outbox& outbox, const Access& access) {
  std::map<std::string, Counted> by_rule;
  if (access.Everything()) {
    auto counts = outbox.Counts();
    Must(counts.status());
    for (Outbox::RuleCounts& c : *counts) by_rule[c.rule].counts = std::move(c);
    return by_rule;
  }
  Must(outbox.List({}, std::nullopt, 0, [&](const Delivery& d) {
    if (!Sees(access, d, PathsOf(d))) return true;
    Counted& c = by_rule[d.rule];
    c.counts.rule = d.rule;
    switch (d.state) {
      case DeliveryState::kPending: ++c.counts.pending; break;
      case DeliveryState::kRunning: ++c.counts.running; break;
      case DeliveryState::kWaiting: ++c.counts.waiting; break;
      case DeliveryState::kSucceeded: ++c.counts.succeeded; break;
      case DeliveryState::kDead: ++c.counts.dead; break;
    }
    if (d.attempts > 1) ++c.counts.retried;
    if (!d.event_ids.empty()) c.counts.last_event = std::max(c.counts.last_event, d.event_ids.back());
    if (d.finished_ns > c.last_finished_ns) {
      c.last_finished_ns = d.finished_ns;
      c.counts.last_result = d.last_result;
    }
    return true;
  }));
  return by_rule;
}

json CountsJson(const Outbox::RuleCounts& c) {
  return {{"pending", c.pending}, {"running", c.running}, {"waiting", c.waiting},
          {"succeeded", c.succeeded}, {"dead", c.dead}, {"retried", c.retried}};
}

void List(ServeContext& ctx, const httplib::Request&, httplib::Response& res, const Access& access) {
  rules::RuleSet set = LoadRules(ctx);
  std::unique_ptr<Outbox> outbox = OpenOutbox(set, true);
  std::map<std::string, Counted> counts;
  std::map<std::string, rules::PausedRule> paused;
  std::map<std::string, Outbox::DisabledEndpoint> disabled;
  if (outbox) {
    counts = CountsFor(*outbox, access);
    auto p = outbox->Paused();
    Must(p.status());
    for (rules::PausedRule& r : *p) paused[r.rule] = std::move(r);
    auto d = outbox->DisabledEndpoints();
    Must(d.status());
    for (Outbox::DisabledEndpoint& e : *d) disabled[e.rule] = std::move(e);
  }
  auto rule_json = [&](const std::string& name, const rules::Rule* r) {
    const Counted& c = counts[name];
    json out = {{"name", name}, {"defined", r != nullptr}};
    if (r != nullptr) {
      std::vector<std::string> kinds;
      for (std::string_view k : KindNameList(r->trigger.kinds)) kinds.emplace_back(k);
      out.update({{"version", r->version},
                  {"kinds", kinds},
                  {"paths", r->trigger.paths},
                  {"ignore", r->trigger.ignore},
                  {"condition", r->trigger.condition ? json(r->trigger.condition->ToString()) : json(nullptr)},
                  {"action", ActionKind(r->action)},
                  {"concurrency", r->concurrency},
                  {"max_attempts", r->retry.max_attempts}});
    }
    auto pause = paused.find(name);
    auto gone = disabled.find(name);
    out.update({{"counts", CountsJson(c.counts)},
                {"last_event", c.counts.last_event == 0 ? json(nullptr) : json(c.counts.last_event)},
                {"last_result", c.counts.last_result},
                {"paused", pause == paused.end() ? json(nullptr)
                                                 : json{{"since_ns", pause->second.since_ns},
                                                        {"since", TimeJson(pause->second.since_ns)},
                                                        {"reason", pause->second.reason}}},
                {"webhook_disabled", gone == disabled.end() ? json(nullptr)
                                                            : json{{"since_ns", gone->second.since_ns},
                                                                   {"since", TimeJson(gone->second.since_ns)},
                                                                   {"reason", gone->second.reason}}}});
    return out;
  };
  json out = json::array();
  for (const rules::Rule& r : set.rules) out.push_back(rule_json(r.name, &r));
  // Rules of the outbox no longer in the file: their deliveries are still there.
  for (const auto& [name, c] : counts) {
    if (set.Find(name) == nullptr) out.push_back(rule_json(name, nullptr));
  }
  ReplyJson(res,
            {{"source", set.source}, {"outbox", set.outbox}, {"outbox_exists", outbox != nullptr}, {"rules", out}});
}

// The deliveries of the call's rule and state the caller sees, newest first, from `before`.
void ListDeliveries(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access,
                    std::optional<DeliveryState> state) {
  std::string rule = req.has_param("rule") ? req.get_param_value("rule") : "";
  if (!state && req.has_param("state")) {
    state = rules::StateFromName(ParamChoice(req, "state", {"pending", "running", "waiting", "succeeded", "dead"}));
  }
  size_t limit = ParamLimit(req);
  uint64_t before = ParamNumber(req, "before", 0, 1, UINT64_MAX);
  rules::RuleSet set = LoadRules(ctx);
  std::unique_ptr<Outbox> outbox = OpenOutbox(set, true);
  json out = json::array();
  uint64_t next = 0;  // none: seqs start at 1
  size_t chunk = std::max<size_t>(limit * 4, 1000);
  size_t scanned = 0;
  uint64_t last_shown = 0;
  while (outbox) {
    size_t rows = 0;
    bool more = false;
    Must(outbox->List(
        rule, state, chunk,
        [&](const Delivery& d) {
          ++rows;
          std::vector<std::string> paths = PathsOf(d);
          if (Sees(access, d, paths)) {
            if (out.size() == limit) {  // one more than shown: there is a next page
              more = true;
              return false;
            }
            out.push_back(DeliveryJson(d, paths));
            last_shown = d.seq;
          }
          before = d.seq;
          return true;
        },
        before));
    scanned += rows;
    if (more) {
      next = last_shown;
      break;
    }
    if (rows < chunk || before <= 1) break;
    if (scanned >= kDeliveryBudget) {
      next = before;  // a rare path pages instead of stalling
      break;
    }
  }
  ReplyJson(res, {{"deliveries", out}, {"next", next != 0 ? json{{"before", next}} : json(nullptr)}});
}

void Deliveries(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  ListDeliveries(ctx, req, res, access, std::nullopt);
}

void Dead(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  ListDeliveries(ctx, req, res, access, DeliveryState::kDead);
}

void Replay(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string id = req.matches[1];
  rules::RuleSet set = LoadRules(ctx);
  std::unique_ptr<Outbox> outbox = OpenOutbox(set, false);
  std::optional<Delivery> d;
  if (outbox) {
    auto got = outbox->Get(id);
    Must(got.status());
    d = std::move(*got);
  }
  if (!d || !Sees(access, *d, PathsOf(*d))) {
    throw BadRequest{{404, "no delivery " + id + " in " + set.outbox + " among those you may see"}};
  }
  if (d->state != DeliveryState::kDead) {
    throw BadRequest{{409, "delivery " + id + " is " + std::string(rules::StateName(d->state)) +
                               ", not dead: only dead deliveries are replayed"}};
  }
  Must(outbox->Replay(id));
  auto after = outbox->Get(id);
  Must(after.status());
  if (!*after) throw BadRequest{{503, "delivery " + id + " vanished from " + set.outbox + " while it was replayed"}};
  ReplyJson(res, {{"delivery", DeliveryJson(**after, PathsOf(**after))}});
}

}  // namespace

void AddRuleRoutes(httplib::Server& server, ServeContext& ctx) {
  using Fn = void (*)(ServeContext&, const httplib::Request&, httplib::Response&, const Access&);
  auto bind = [&ctx](Fn fn, bool admin_only = false) {
    return Authed(
        ctx, [&ctx, fn](const httplib::Request& req, httplib::Response& res, const Access& a) { fn(ctx, req, res, a); },
        admin_only);
  };
  server.Get("/api/v1/rules", bind(List));
  server.Get("/api/v1/rules/deliveries", bind(Deliveries));
  server.Get("/api/v1/rules/dead", bind(Dead));
  server.Post(R"(/api/v1/rules/deliveries/([^/]+)/replay)", bind(Replay, true));
}

}  // namespace fathom::web
