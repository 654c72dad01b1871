// policies_api.cpp — /api/v1/policies/...: the policies file's definitions with each policy's
// last run and the open alerts, the runs and actions from the journal, dry-run previews, and
// a run on demand (docs/api.md).
//
// The file is read at each call (an edit is seen at once); the journal is read in the catalog
// (policy::ActionJournal). A caller without the grant "/" sees the actions on its granted paths
// only, and a run's counts summed over those; its previews cover its granted subtrees.
#include <algorithm>

#include "fathom/event.h"
#include "fathom/policy.h"
#include "policy/candidates.h"
#include "policy/journal_db.h"
#include "policy/perform.h"
#include "web/serve_context.h"

namespace fathom::web {
namespace {

using nlohmann::json;
using policy::ActionJournal;
using policy::JournalAction;
using policy::RunRecord;

constexpr const char* kNoPolicies = "this server has no policies file (fathom serve --policies FILE)";
constexpr const char* kNoJournal =
    "this server has no catalog, which holds the policies' journal (fathom serve --catalog URI)";
// Journal rows read at most by one list of actions before it answers with a cursor.
constexpr size_t kActionBudget = 100'000;
// Reports of a preview's dry run (actions and skipped entries) after which it stops.
constexpr uint64_t kPreviewBudget = 10'000;
// Open alerts shown at most in the list of policies (their number is given whole).
constexpr size_t kAlertsShown = 100;


policy::PolicyConfig LoadConfig(const ServeContext& ctx) {
  if (ctx.options.policies.empty()) throw BadRequest{{503, kNoPolicies}};
  auto config = policy::LoadPolicyConfig(ctx.options.policies);
  if (!config.ok()) {
    throw BadRequest{{503, "the policies file does not load: " + config.status().message() +
                               " (fix it; the server reads it again at the next call)"}};
  }
  return std::move(config).value();
}

std::string Defined(const policy::PolicyConfig& config) {
  std::string known;
  for (const policy::Policy& p : config.policies) known += (known.empty() ? "" : ", ") + p.name;
  return known.empty() ? "none" : known;
}

const policy::Policy& FindPolicy(const policy::PolicyConfig& config, const std::string& name) {
  const policy::Policy* p = config.Find(name);
  if (p == nullptr) {
    throw BadRequest{{404, "no policy '" + name + "' in " + config.source + " (defined: " + Defined(config) + ")"}};
  }
  return *p;
}

std::unique_ptr<ActionJournal> OpenJournal(const ServeContext& ctx, bool read_only) {
  if (ctx.options.catalog.empty()) throw BadRequest{{503, kNoJournal}};
  return Must(ActionJournal::Open(ctx.options.catalog, read_only));
}

json TimeJson(int64_t ns) { return ns == 0 ? json(nullptr) : json(IsoTime(ns)); }

json ActionJson(const policy::Action& a) {
  using K = policy::Action::Kind;
  json out = {{"kind", std::string(policy::ActionName(a.kind))}};
  if (a.kind == K::kMove || a.kind == K::kCopy) out["destination"] = a.destination;
  if (a.kind == K::kCopy) out["verify"] = a.verify;
  if (a.kind == K::kCommand) {
    out["argv"] = a.argv;
    out["timeout_ns"] = a.timeout_ns;
  }
  return out;
}

json ThresholdJson(const std::optional<policy::Threshold>& t) {
  if (!t) return nullptr;
  using U = policy::Threshold::Unit;
  const char* unit = t->unit == U::kPercent ? "percent" : t->unit == U::kBytes ? "bytes" : "entries";
  return {{"value", t->value}, {"unit", unit}};
}

const char* TriggerName(policy::Trigger::On on) {
  using O = policy::Trigger::On;
  switch (on) {
    case O::kPeriodic: return "periodic";
    case O::kGlobalUsage: return "global_usage";
    case O::kUserUsage: return "user_usage";
    case O::kGroupUsage: return "group_usage";
    case O::kOstUsage: return "ost_usage";
    case O::kPoolUsage: return "pool_usage";
  }
  return "";
}

json TriggerJson(const policy::Trigger& t) {
  return {{"on", TriggerName(t.on)},
          {"check_every_ns", t.check_every_ns},
          {"high", ThresholdJson(t.high)},
          {"low", ThresholdJson(t.low)},
          {"targets", t.targets},
          {"capacity", t.capacity ? json(*t.capacity) : json(nullptr)}};
}

const char* SortName(policy::Policy::Sort sort) {
  using S = policy::Policy::Sort;
  switch (sort) {
    case S::kNone: return "none";
    case S::kLastAccess: return "last_access";
    case S::kLastMod: return "last_mod";
    case S::kCreation: return "creation";
    case S::kSize: return "size";
  }
  return "";
}

json ConditionJson(const std::optional<condition::Condition>& c) { return c ? json(c->ToString()) : json(nullptr); }

std::optional<JournalAction::State> ActionStateOf(const std::string& name) {
  for (auto s : {JournalAction::State::kStarted, JournalAction::State::kDone, JournalAction::State::kFailed}) {
    if (policy::StateName(s) == name) return s;
  }
  return std::nullopt;
}

// A run's counts over the actions a caller without the grant "/" may see (skipped entries are
// not journaled, so not counted).
struct Visible {
  uint64_t actions = 0, failed = 0;
  int64_t volume = 0;
};
Visible VisibleCounts(ActionJournal& journal, int64_t run, const Access& access) {
  constexpr size_t kChunk = 10'000;
  Visible v;
  policy::ActionQuery q;
  q.run = run;
  q.limit = kChunk;
  for (;;) {
    size_t rows = 0;
    Must(journal.Actions(q, [&](const JournalAction& a) {
      ++rows;
      q.before_id = a.id;
      if (!access.Covers(a.path)) return true;
      if (a.state == JournalAction::State::kDone) {
        ++v.actions;
        v.volume += a.size;
      } else if (a.state == JournalAction::State::kFailed) {
        ++v.failed;
      }
      return true;
    }));
    if (rows < kChunk) return v;
  }
}

// The target of a run as a caller may see it: a path target outside its grants is hidden.
json TargetJson(const std::string& target, const Access& access) {
  if (access.Everything() || !target.starts_with("path:") || access.Covers(target.substr(5))) return target;
  return nullptr;
}

json RunJson(const RunRecord& r, ActionJournal& journal, const Access& access) {
  json out = {{"id", r.id},
              {"policy", r.policy},
              {"user", r.user},
              {"host", r.host},
              {"target", TargetJson(r.target, access)},
              {"state", r.finished_ns == 0 ? "unfinished" : std::string(policy::StateName(r.state))},
              {"started_ns", r.started_ns},
              {"started", TimeJson(r.started_ns)},
              {"finished_ns", r.finished_ns},
              {"finished", TimeJson(r.finished_ns)},
              {"message", r.message}};
  if (access.Everything()) {
    out.update({{"actions", r.actions}, {"failed", r.failed}, {"skipped", r.skipped}, {"volume", r.volume}});
  } else {
    Visible v = VisibleCounts(journal, r.id, access);
    out.update({{"actions", v.actions}, {"failed", v.failed}, {"skipped", nullptr}, {"volume", v.volume}});
  }
  return out;
}

json JournalActionJson(const JournalAction& a) {
  return {{"id", a.id},
          {"run", a.run},
          {"policy", a.policy},
          {"rule", a.rule},
          {"action", a.action},
          {"path", a.path},
          {"destination", a.destination},
          {"fid", a.fid},
          {"uid", a.uid},
          {"gid", a.gid},
          {"size", a.size},
          {"state", std::string(policy::StateName(a.state))},
          {"result", a.result},
          {"started_ns", a.started_ns},
          {"started", TimeJson(a.started_ns)},
          {"finished_ns", a.finished_ns},
          {"finished", TimeJson(a.finished_ns)}};
}

// The newest run of `policy`, if any.
std::optional<RunRecord> LastRun(ActionJournal& journal, const std::string& policy) {
  std::optional<RunRecord> last;
  Must(journal.Runs(policy, 0, [&](const RunRecord& r) {
    last = r;
    return false;
  }));
  return last;
}

// When the daemon runs the policy next on its periodic triggers: the last run's start plus
// the shortest check_every (none without a periodic trigger or a run).
std::optional<int64_t> NextRun(const policy::Policy& p, const std::optional<RunRecord>& last) {
  std::optional<int64_t> every;
  for (const policy::Trigger& t : p.triggers) {
    if (t.on == policy::Trigger::On::kPeriodic && t.check_every_ns > 0) {
      every = std::min(every.value_or(t.check_every_ns), t.check_every_ns);
    }
  }
  if (!every || !last) return std::nullopt;
  return last->started_ns + *every;
}

json PolicyJson(const policy::Policy& p, ActionJournal& journal, const Access& access) {
  json rules = json::array();
  for (const policy::Rule& r : p.rules) {
    rules.push_back({{"name", r.name},
                     {"target_fileclasses", r.target_fileclasses},
                     {"condition", ConditionJson(r.condition)},
                     {"action", ActionJson(r.action ? *r.action : p.default_action)}});
  }
  json ignore = json::array();
  for (const condition::Condition& c : p.ignore) ignore.push_back(c.ToString());
  json triggers = json::array();
  for (const policy::Trigger& t : p.triggers) triggers.push_back(TriggerJson(t));
  std::optional<RunRecord> last = LastRun(journal, p.name);
  std::optional<int64_t> next = NextRun(p, last);
  return {{"name", p.name},
          {"default_action", ActionJson(p.default_action)},
          {"scope", ConditionJson(p.scope)},
          {"ignore", ignore},
          {"ignore_fileclasses", p.ignore_fileclasses},
          {"sort", SortName(p.sort)},
          {"rules", rules},
          {"limits",
           {{"max_action_count", p.max_action_count ? json(*p.max_action_count) : json(nullptr)},
            {"max_action_volume", p.max_action_volume ? json(*p.max_action_volume) : json(nullptr)},
            {"max_actions_per_second", p.max_actions_per_second ? json(*p.max_actions_per_second) : json(nullptr)},
            {"suspend_error_pct", p.suspend_error_pct}}},
          {"triggers", triggers},
          {"last_run", last ? RunJson(*last, journal, access) : json(nullptr)},
          {"next_run_ns", next ? json(*next) : json(nullptr)},
          {"next_run", next ? json(IsoTime(*next)) : json(nullptr)}};
}

void List(ServeContext& ctx, const httplib::Request&, httplib::Response& res, const Access& access) {
  policy::PolicyConfig config = LoadConfig(ctx);
  std::unique_ptr<ActionJournal> journal = OpenJournal(ctx, true);
  json policies = json::array();
  for (const policy::Policy& p : config.policies) policies.push_back(PolicyJson(p, *journal, access));
  // Open alerts: on entries the caller's grants cover (on usages: for the grant "/" only).
  std::map<std::string, uint64_t> open_by_alert;
  json open = json::array();
  uint64_t open_total = 0;
  for (const policy::ActiveAlert& a : Must(policy::ActiveAlerts(ctx.options.catalog))) {
    if (!access.Everything() && (!a.key.starts_with("/") || !access.Covers(a.key))) continue;
    ++open_total;
    ++open_by_alert[a.alert];
    if (open.size() < kAlertsShown) {
      open.push_back({{"alert", a.alert}, {"key", a.key}, {"detail", a.detail}, {"raised_ns", a.raised_ns},
                      {"raised", TimeJson(a.raised_ns)}, {"notified", a.notified}});
    }
  }
  json alerts = json::array();
  for (const policy::AlertRule& a : config.alerts) {
    alerts.push_back({{"name", a.name},
                      {"condition", ConditionJson(a.condition)},
                      {"usage", a.usage ? TriggerJson(*a.usage) : json(nullptr)},
                      {"sinks", a.sinks},
                      {"open", open_by_alert[a.name]}});
  }
  ReplyJson(res, {{"source", config.source},
                  {"policies", policies},
                  {"fileclasses", config.fileclasses.Names()},
                  {"alerts", alerts},
                  {"open_alerts", open},
                  {"open_alerts_total", open_total}});
}

void Runs(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string name = req.matches[1];
  int64_t since = ParamTime(req, "since").value_or(0);
  size_t limit = ParamLimit(req);
  auto before = static_cast<int64_t>(ParamNumber(req, "before_id", 0, 1, INT64_MAX));
  policy::PolicyConfig config = LoadConfig(ctx);
  std::unique_ptr<ActionJournal> journal = OpenJournal(ctx, true);
  std::vector<RunRecord> found;
  std::optional<int64_t> next;
  bool any = false;
  Must(journal->Runs(name, since, [&](const RunRecord& r) {
    any = true;
    if (before != 0 && r.id >= before) return true;
    if (found.size() == limit) {
      next = found.back().id;
      return false;
    }
    found.push_back(r);
    return true;
  }));
  // A policy no longer defined keeps its journal; a name neither defined nor run is unknown.
  if (!any && config.Find(name) == nullptr) FindPolicy(config, name);  // throws the 404 naming those defined
  json runs = json::array();
  for (const RunRecord& r : found) runs.push_back(RunJson(r, *journal, access));
  ReplyJson(res, {{"policy", name}, {"runs", runs}, {"next", next ? json{{"before_id", *next}} : json(nullptr)}});
}

void Actions(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  policy::ActionQuery q;
  if (req.has_param("policy")) q.policy = req.get_param_value("policy");
  if (req.has_param("run")) q.run = static_cast<int64_t>(ParamNumber(req, "run", 0, 1, INT64_MAX));
  if (req.has_param("state")) q.state = ActionStateOf(ParamChoice(req, "state", {"started", "done", "failed"}));
  std::string under = ParamPath(req, "path", "/");
  size_t limit = ParamLimit(req);
  if (req.has_param("before_id")) q.before_id = static_cast<int64_t>(ParamNumber(req, "before_id", 0, 1, INT64_MAX));
  std::unique_ptr<ActionJournal> journal = OpenJournal(ctx, true);
  q.limit = std::max<size_t>(limit * 4, 1000);
  json out = json::array();
  int64_t last_shown = 0;
  std::optional<int64_t> next;
  size_t scanned = 0;
  for (;;) {
    size_t rows = 0;
    bool more = false;
    Must(journal->Actions(q, [&](const JournalAction& a) {
      ++rows;
      if (PathUnder(a.path, under) && access.Covers(a.path)) {
        if (out.size() == limit) {  // one more than shown: there is a next page
          more = true;
          return false;
        }
        out.push_back(JournalActionJson(a));
        last_shown = a.id;
      }
      q.before_id = a.id;
      return true;
    }));
    scanned += rows;
    if (more) {
      next = last_shown;
      break;
    }
    if (rows < q.limit) break;
    if (scanned >= kActionBudget) {
      next = q.before_id;  // a rare path pages instead of stalling
      break;
    }
  }
  ReplyJson(res, {{"actions", out}, {"next", next ? json{{"before_id", *next}} : json(nullptr)}});
}

// The targets a caller's run or preview covers: `target` itself for the grant "/"; else one
// path: target per granted subtree under the path asked (`target` must be a path: or none).
std::vector<std::string> TargetsFor(const Access& access, const std::string& target) {
  if (access.Everything()) return {target};
  std::string path = "/";
  if (!target.empty()) {
    std::optional<std::string> clean;
    if (target.starts_with("path:")) clean = CleanPath(target.substr(5));
    if (!clean) {
      throw BadRequest{{403, "a token without the grant / may only give a target path:DIR (an absolute path), not '" +
                                 target + "'"}};
    }
    path = *clean;
  }
  std::vector<std::string> targets;
  for (const std::string& scope : access.ScopesUnder(path)) targets.push_back("path:" + scope);
  return targets;
}

void CheckTarget(const policy::PolicyConfig& config, const std::string& target) {
  auto parsed = policy::TargetCondition(target, config.fileclasses, config.source);
  if (!parsed.ok()) throw BadRequest{{400, "'target': " + parsed.status().message()}};
}

void AddCheck(policy::PolicyCheck& sum, const policy::PolicyCheck& c) {
  sum.selected += c.selected;
  sum.out_of_scope += c.out_of_scope;
  sum.ignored += c.ignored;
  sum.no_rule += c.no_rule;
  for (size_t i = 0; i < c.rules.size() && i < sum.rules.size(); ++i) {
    sum.rules[i].act += c.rules[i].act;
    sum.rules[i].condition_false += c.rules[i].condition_false;
    sum.rules[i].act_volume += c.rules[i].act_volume;
  }
  for (const auto& [why, n] : c.ignored_by) sum.ignored_by[why] += n;
}

json CheckJson(const policy::PolicyCheck& c) {
  json rules = json::array();
  for (const policy::RuleCount& r : c.rules) {
    rules.push_back(
        {{"rule", r.rule}, {"act", r.act}, {"volume", r.act_volume}, {"condition_false", r.condition_false}});
  }
  return {{"selected", c.selected}, {"out_of_scope", c.out_of_scope}, {"ignored", c.ignored},
          {"no_rule", c.no_rule},   {"rules", rules},                 {"ignored_by", c.ignored_by}};
}

void Preview(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string name = req.matches[1];
  size_t limit = ParamLimit(req);
  std::string target = req.has_param("target") ? req.get_param_value("target") : "";
  policy::PolicyConfig config = LoadConfig(ctx);
  const policy::Policy& p = FindPolicy(config, name);
  CheckTarget(config, target);
  std::vector<std::string> targets = TargetsFor(access, target);
  auto cat = LeaseOf(ctx.catalogs, kNoCatalog);
  const int64_t now = NowNs();
  policy::PolicyCheck totals;
  totals.policy = p.name;
  for (const policy::Rule& r : p.rules) totals.rules.push_back({r.name});
  json actions = json::array(), skipped = json::array();
  uint64_t reported = 0;
  bool truncated = false;
  for (const std::string& t : targets) {
    policy::PolicyCheck check = Checked(cat, policy::CheckPolicy(config, p, *cat, t, now));
    AddCheck(totals, check);
    if (actions.size() >= limit || reported >= kPreviewBudget) {
      // Not tried: the answer is short of what this subtree would add.
      for (const policy::RuleCount& r : check.rules) truncated = truncated || r.act > 0;
      continue;
    }
    policy::RunOptions o;
    o.dry_run = true;
    o.target = t;
    o.now_ns = now;
    o.max_actions = limit - actions.size() + 1;  // one more than shown tells that there are more
    o.report = [&](const JournalAction& a, std::string_view note) {
      ++reported;
      if (!access.Covers(a.path)) return;
      if (note.starts_with("would ")) {
        if (actions.size() == limit) {
          truncated = true;
          return;
        }
        actions.push_back({{"path", a.path}, {"rule", a.rule}, {"action", a.action}, {"destination", a.destination},
                           {"size", a.size}, {"uid", a.uid}, {"gid", a.gid}});
      } else if (skipped.size() < limit) {
        skipped.push_back({{"path", a.path}, {"why", std::string(note)}});
      }
    };
    o.stop = [&] { return reported >= kPreviewBudget; };
    Checked(cat, policy::RunPolicy(config, p, *cat, nullptr, o).status());
    if (reported >= kPreviewBudget) truncated = true;
  }
  ReplyJson(res, {{"policy", p.name},
                  {"target", target},
                  {"actions", actions},
                  {"skipped", skipped},
                  {"truncated", truncated},
                  {"totals", CheckJson(totals)}});
}

// The body of a run: {"target": "...", "max_actions": N}, both optional.
void ReadRunBody(const std::string& body, policy::RunOptions& o) {
  if (body.empty()) return;
  json b = json::parse(body, nullptr, false);
  const char* shape = "the body must be a JSON object: {\"target\": \"path:DIR\", \"max_actions\": N}, both optional";
  if (!b.is_object()) throw BadRequest{{400, shape}};
  for (const auto& [key, value] : b.items()) {
    if (key == "target") {
      if (!value.is_string()) throw BadRequest{{400, "'target' must be text (user:U, group:G, class:C, path:DIR...)"}};
      o.target = value.get<std::string>();
    } else if (key == "max_actions") {
      if (!value.is_number_unsigned() || value.get<uint64_t>() == 0) {
        throw BadRequest{{400, "'max_actions' must be a whole number from 1, not " + value.dump()}};
      }
      o.max_actions = value.get<uint64_t>();
    } else {
      throw BadRequest{{400, "unknown key '" + key + "': " + shape}};
    }
  }
}

void RunNow(ServeContext& ctx, const httplib::Request& req, httplib::Response& res, const Access& access) {
  std::string name = req.matches[1];
  policy::PolicyConfig config = LoadConfig(ctx);
  const policy::Policy& p = FindPolicy(config, name);
  policy::RunOptions o;
  ReadRunBody(req.body, o);
  CheckTarget(config, o.target);
  if (!access.Everything()) {
    std::vector<std::string> targets = TargetsFor(access, o.target);
    if (o.target.empty() || targets.size() != 1 || targets[0] != o.target) {
      throw BadRequest{{403, "a token without the grant / may only run a policy on one of its granted paths: give "
                             "{\"target\": \"path:DIR\"} with DIR under a grant"}};
    }
  }
  auto cat = LeaseOf(ctx.catalogs, kNoCatalog);
  std::unique_ptr<ActionJournal> journal = OpenJournal(ctx, false);
  o.user = access.user;
  auto summary = policy::RunPolicy(config, p, *cat, journal.get(), o);
  if (!summary.ok()) {
    const std::string& why = summary.status().message();
    if (why == policy::PolicyBusy(p.name).message()) throw BadRequest{{409, why}};
    throw BadRequest{{500, "policy " + p.name + ": the run failed: " + why}};
  }
  ReplyJson(res, {{"run", RunJson(summary->run, *journal, access)},
                  {"candidates", summary->candidates},
                  {"decided", summary->decided},
                  {"resumed", summary->resumed},
                  {"resumed_actions", summary->resumed_actions}});
}

}  // namespace

void AddPolicyRoutes(httplib::Server& server, ServeContext& ctx) {
  using Fn = void (*)(ServeContext&, const httplib::Request&, httplib::Response&, const Access&);
  auto bind = [&ctx](Fn fn, bool admin_only = false) {
    return Authed(
        ctx, [&ctx, fn](const httplib::Request& req, httplib::Response& res, const Access& a) { fn(ctx, req, res, a); },
        admin_only);
  };
  server.Get("/api/v1/policies", bind(List));
  server.Get("/api/v1/policies/actions", bind(Actions));
  server.Get(R"(/api/v1/policies/([^/]+)/runs)", bind(Runs));
  server.Get(R"(/api/v1/policies/([^/]+)/preview)", bind(Preview));
  server.Post(R"(/api/v1/policies/([^/]+)/run)", bind(RunNow, true));
}

}  // namespace fathom::web
