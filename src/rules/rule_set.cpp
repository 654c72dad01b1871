// rule_set.cpp — LoadRuleSet: rules.yaml read with yaml-cpp, every key and value checked.
#include "rules/rule_set.h"

#include <pwd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "condition/units.h"
#include "security/client_list.h"
#include "policy/alerts_section.h"
#include "policy/yaml_text.h"

namespace fathom::rules {
namespace {

using policy::YamlText;

constexpr const char* kActionShapes =
    "{command: [...]}, {webhook: URL}, {copy: {to: DIRECTORY}} or {mail: {to: [ADDRESS]}}";

// A node as text that does not depend on how it was written (flow or block style, quotes,
// comments, the order of keys): what a rule's version is made from.
std::string Canonical(const YAML::Node& n) {
  if (n.IsMap()) {
    std::map<std::string, std::string> members;
    for (const auto& item : n) members[item.first.as<std::string>()] = Canonical(item.second);
    std::string out = "{";
    for (const auto& [k, v] : members) out += std::to_string(k.size()) + ":" + k + "=" + v + ";";
    return out + "}";
  }
  if (n.IsSequence()) {
    std::string out = "[";
    for (const YAML::Node& x : n) out += Canonical(x) + ";";
    return out + "]";
  }
  if (n.IsScalar()) return std::to_string(n.Scalar().size()) + ":" + n.Scalar();
  return "~";
}

class RuleSetLoader {
 public:
  RuleSetLoader(std::string_view text, std::string_view source) : y_{text, std::string(source)} {}

  Result<RuleSet> Load() {
    // yaml-cpp reports syntax errors, and keys or values of an unexpected shape, by throwing.
    try {
      return LoadYaml();
    } catch (const YAML::Exception& e) {
      return Status::Error(y_.At(e.mark) + "not valid YAML here: " + e.msg);
    }
  }

 private:
  Status Fail(const YAML::Node& at, const std::string& message) const {
    return Status::Error(y_.At(at.Mark()) + message);
  }

  Result<RuleSet> LoadYaml() {
    YAML::Node root = YAML::Load(std::string(y_.text));
    RuleSet set;
    set.source = y_.source;
    if (!root || !root.IsMap()) return Fail(root, "expected a mapping with rules: (a list of rules)");
    for (const auto& item : root) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& v = item.second;
      if (key == "rules") {
        if (!v.IsSequence()) return Fail(v, "rules: expected a list of rules (- name: ...)");
        for (const YAML::Node& r : v) {
          FATHOM_ASSIGN_OR_RETURN(Rule rule, ParseRule(r));
          if (set.Find(rule.name) != nullptr) return Fail(r, "rule '" + rule.name + "' is defined twice");
          set.rules.push_back(std::move(rule));
        }
      } else if (key == "outbox") {
        FATHOM_ASSIGN_OR_RETURN(set.outbox, Text(v, "outbox"));
      } else if (key == "catalog") {
        FATHOM_ASSIGN_OR_RETURN(set.catalog, Text(v, "catalog"));
      } else if (key == "concurrency") {
        FATHOM_ASSIGN_OR_RETURN(set.concurrency, Count(v, "concurrency"));
      } else if (key == "endpoint_concurrency") {
        FATHOM_ASSIGN_OR_RETURN(set.endpoint_concurrency, Count(v, "endpoint_concurrency"));
      } else if (key == "lease") {
        FATHOM_ASSIGN_OR_RETURN(set.lease_ns, Duration(v, "lease"));
      } else if (key == "clients") {
        FATHOM_ASSIGN_OR_RETURN(set.clients, Text(v, "clients"));
        clients_at_ = v;
      } else if (key == "max_cascade") {
        FATHOM_ASSIGN_OR_RETURN(size_t depth, Count(v, "max_cascade"));
        set.max_cascade = static_cast<int>(std::min<size_t>(depth, 1000));
      } else if (key == "alert_sinks") {
        FATHOM_RETURN_IF_ERROR(policy::ParseAlertSinks(v, y_, set.alert_sinks));
      } else {
        return Fail(item.first, "unknown key '" + key +
                                    "' (expected rules, outbox, catalog, concurrency, lease, clients, max_cascade, "
                                    "alert_sinks, endpoint_concurrency)");
      }
    }
    if (set.rules.empty()) return Fail(root, "no rules: give rules: with at least one rule");
    FATHOM_RETURN_IF_ERROR(ResolveOwners(set));
    for (const Rule& r : set.rules) {
      if (r.trigger.attributes == AttributeSource::kCatalog && set.catalog.empty()) {
        return Status::Error(y_.source + ": rule " + r.name +
                             " reads attributes from the catalog, and no catalog is given: add catalog: URI");
      }
    }
    return set;
  }

  Result<std::string> Text(const YAML::Node& v, const std::string& what) const {
    if (!v.IsScalar() || v.Scalar().empty()) return Fail(v, what + ": expected text");
    return v.Scalar();
  }

  Result<size_t> Count(const YAML::Node& v, const std::string& what) const {
    if (v.IsScalar()) {
      const std::string& s = v.Scalar();
      if (!s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
        const size_t n = std::stoul(s);
        if (n > 0) return n;
      }
    }
    return Fail(v, what + ": expected a positive whole number");
  }

  Result<int64_t> Duration(const YAML::Node& v, const std::string& what) const {
    auto d = v.IsScalar() ? condition::ParseDuration(v.Scalar()) : std::nullopt;
    if (!d || *d <= 0) return Fail(v, what + ": expected a duration (e.g. 5s, 10min, 1h)");
    return *d;
  }

  Result<bool> Flag(const YAML::Node& v, const std::string& what) const {
    if (v.IsScalar() && (v.Scalar() == "true" || v.Scalar() == "false")) return v.Scalar() == "true";
    return Fail(v, what + ": expected true or false");
  }

  // Whole numbers from `low` to `high` (one or a list); `noun` says what one is.
  Result<std::vector<int>> Numbers(const YAML::Node& v, const std::string& what, int low, int high,
                                   const std::string& noun) const {
    FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> words, Words(v, what));
    std::vector<int> out;
    for (const std::string& w : words) {
      if (w.empty() || w.size() > 3 || !std::all_of(w.begin(), w.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; }) ||
          std::stoi(w) < low || std::stoi(w) > high) {
        return Fail(v, what + ": '" + w + "' is not " + noun + " (" + std::to_string(low) + " to " +
                           std::to_string(high) + ")");
      }
      out.push_back(std::stoi(w));
    }
    return out;
  }

  // The retry and permanent lists of an action must not share a value.
  Status Disjoint(const YAML::Node& v, const std::string& what, const std::vector<int>& retry,
                  const std::vector<int>& permanent, const std::string& names) const {
    for (int x : retry) {
      if (std::find(permanent.begin(), permanent.end(), x) != permanent.end()) {
        return Fail(v, what + ": " + std::to_string(x) + " is in both " + names + ": give it in one");
      }
    }
    return Status::Ok();
  }

  Result<std::vector<std::string>> Words(const YAML::Node& v, const std::string& what) const {
    std::vector<std::string> out;
    if (v.IsScalar()) {
      out.push_back(v.Scalar());
    } else if (v.IsSequence()) {
      for (const YAML::Node& w : v) {
        if (!w.IsScalar()) return Fail(w, what + ": expected text");
        out.push_back(w.Scalar());
      }
    } else {
      return Fail(v, what + ": expected text or a list");
    }
    if (out.empty()) return Fail(v, what + ": expected at least one");
    return out;
  }

  Result<std::vector<std::string>> Globs(const YAML::Node& v, const std::string& what) const {
    FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> globs, Words(v, what));
    for (const std::string& g : globs) {
      Status s = CheckPathGlob(g);
      if (!s.ok()) return Fail(v, what + ": " + s.message());
    }
    return globs;
  }

  Result<uint32_t> Kinds(const YAML::Node& v, const std::string& what) const {
    FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> names, Words(v, what));
    uint32_t mask = 0;
    for (const std::string& n : names) {
      auto k = ParseKind(n);
      if (!k || (*k & kind::kAll) == 0) {
        return Fail(v, what + ": unknown kind '" + n +
                           "' (expected CREATE, MODIFY, ATTRIB, CLOSE_WRITE, MOVED_FROM, MOVED_TO, DELETE, "
                           "DELETE_SELF, MOVE_SELF, ACCESS, OPEN, CLOSE_NOWRITE, OVERFLOW, CLOSE, MOVE)");
      }
      mask |= *k;
    }
    return mask;
  }

  Result<uid_t> User(const YAML::Node& v, const std::string& what) const {
    FATHOM_ASSIGN_OR_RETURN(std::string name, Text(v, what));
    if (std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
      return static_cast<uid_t>(std::stoul(name));
    }
    struct passwd pw {};
    struct passwd* found = nullptr;
    std::vector<char> buf(16384);
    if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
      return Fail(v, what + ": no user '" + name + "' on this system");
    }
    return pw.pw_uid;
  }

  Result<Rule> ParseRule(const YAML::Node& r) {
    if (!r.IsMap()) return Fail(r, "a rule: expected a mapping (name:, kinds:, path:, action: ...)");
    Rule rule;
    const YAML::Node name = r["name"];
    if (!name || !name.IsScalar() || !GoodName(name.Scalar())) {
      return Fail(name ? name : r, "a rule needs a name: of letters, digits, '_', '-' and '.'");
    }
    rule.name = name.Scalar();
    const std::string what = "rule " + rule.name;
    bool attributes_given = false;
    std::optional<uid_t> run_as;
    YAML::Node action;
    bool has_action = false;
    for (const auto& item : r) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& v = item.second;
      if (key == "name") continue;
      if (key == "kinds") {
        FATHOM_ASSIGN_OR_RETURN(rule.trigger.kinds, Kinds(v, what + ", kinds"));
      } else if (key == "path") {
        FATHOM_ASSIGN_OR_RETURN(rule.trigger.paths, Globs(v, what + ", path"));
      } else if (key == "ignore") {
        FATHOM_ASSIGN_OR_RETURN(rule.trigger.ignore, Globs(v, what + ", ignore"));
      } else if (key == "condition") {
        FATHOM_ASSIGN_OR_RETURN(condition::Condition c, y_.ConditionOf(v, what));
        rule.trigger.condition = std::move(c);
      } else if (key == "attributes") {
        const std::string s = v.IsScalar() ? v.Scalar() : "";
        if (s == "live") {
          rule.trigger.attributes = AttributeSource::kLive;
        } else if (s == "catalog") {
          rule.trigger.attributes = AttributeSource::kCatalog;
        } else if (s == "none") {
          rule.trigger.attributes = AttributeSource::kNone;
        } else {
          return Fail(v, what + ", attributes: expected live, catalog or none");
        }
        attributes_given = true;
      } else if (key == "settle") {
        FATHOM_ASSIGN_OR_RETURN(rule.coalescing.settle_ns, Duration(v, what + ", settle"));
      } else if (key == "max_wait") {
        FATHOM_ASSIGN_OR_RETURN(rule.coalescing.max_wait_ns, Duration(v, what + ", max_wait"));
      } else if (key == "sentinel") {
        FATHOM_ASSIGN_OR_RETURN(rule.coalescing.sentinel, Text(v, what + ", sentinel"));
        if (rule.coalescing.sentinel.find('/') != std::string::npos) {
          return Fail(v, what + ", sentinel: expected a file name glob (e.g. '*.done'), without '/'");
        }
      } else if (key == "batch") {
        FATHOM_RETURN_IF_ERROR(ParseBatch(v, what, rule.coalescing));
      } else if (key == "action") {
        action = v;
        has_action = true;
      } else if (key == "retry") {
        FATHOM_RETURN_IF_ERROR(ParseRetry(v, what, rule.retry));
      } else if (key == "concurrency") {
        FATHOM_ASSIGN_OR_RETURN(rule.concurrency, Count(v, what + ", concurrency"));
      } else if (key == "endpoint_concurrency") {
        FATHOM_ASSIGN_OR_RETURN(rule.endpoint_concurrency, Count(v, what + ", endpoint_concurrency"));
      } else if (key == "run_as") {
        FATHOM_ASSIGN_OR_RETURN(run_as, User(v, what + ", run_as"));
      } else if (key == "owner") {
        FATHOM_ASSIGN_OR_RETURN(rule.owner, Text(v, what + ", owner"));
        owner_at_[rule.name] = v;
      } else if (key == "outputs") {
        FATHOM_ASSIGN_OR_RETURN(rule.guard.outputs, Globs(v, what + ", outputs"));
      } else if (key == "own_events") {
        const std::string s = v.IsScalar() ? v.Scalar() : "";
        if (s != "ignore" && s != "match") return Fail(v, what + ", own_events: expected ignore or match");
        rule.guard.ignore_own = s == "ignore";
      } else if (key == "rate_limit") {
        FATHOM_RETURN_IF_ERROR(ParseLimit(v, what + ", rate_limit", rule.guard.rate_max, rule.guard.rate_per_ns));
      } else if (key == "breaker") {
        FATHOM_RETURN_IF_ERROR(ParseLimit(v, what + ", breaker", rule.guard.breaker_max, rule.guard.breaker_per_ns));
      } else {
        return Fail(item.first, what + ": unknown key '" + key +
                                    "' (expected name, kinds, path, ignore, condition, attributes, settle, max_wait, "
                                    "sentinel, batch, action, retry, concurrency, run_as, outputs, own_events, "
                                    "rate_limit, breaker, owner, endpoint_concurrency)");
      }
    }
    if (!attributes_given && rule.trigger.condition && rule.trigger.condition->NeedsAttributes()) {
      rule.trigger.attributes = AttributeSource::kLive;
    }
    if (!has_action) return Fail(r, what + ": no action: give action: " + kActionShapes);
    FATHOM_ASSIGN_OR_RETURN(rule.action, ParseAction(action, what));
    // A copy writes below its destination: events there are the rule's own (loop_guards.h).
    if (const auto* copy = std::get_if<CopyAction>(&rule.action)) rule.guard.outputs.push_back(GlobBelow(copy->to));
    if (rule.endpoint_concurrency != 0 && !std::holds_alternative<WebhookAction>(rule.action)) {
      return Fail(r["endpoint_concurrency"], what + ", endpoint_concurrency: only a webhook has an endpoint");
    }
    if (run_as) {
      auto* command = std::get_if<CommandAction>(&rule.action);
      if (command == nullptr) return Fail(r, what + ", run_as: only a command runs as a user");
      command->run_as_uid = *run_as;
    }
    rule.version = DeliveryId("rule version", Canonical(r), {}).substr(3);
    return rule;
  }

  Status ParseBatch(const YAML::Node& v, const std::string& what, Coalescing& c) const {
    if (!v.IsMap()) return Fail(v, what + ", batch: expected {max_events: N, max_wait: DURATION}");
    for (const auto& item : v) {
      const std::string key = item.first.as<std::string>();
      if (key == "max_events") {
        FATHOM_ASSIGN_OR_RETURN(c.batch_max, Count(item.second, what + ", batch, max_events"));
      } else if (key == "max_wait") {
        FATHOM_ASSIGN_OR_RETURN(c.batch_wait_ns, Duration(item.second, what + ", batch, max_wait"));
      } else {
        return Fail(item.first, what + ", batch: unknown key '" + key + "' (expected max_events, max_wait)");
      }
    }
    return Status::Ok();
  }

  // Each rule's owner: the paths the aggregator's client list grants to the client of that name.
  Status ResolveOwners(RuleSet& set) const {
    std::optional<security::ClientList> clients;
    for (Rule& r : set.rules) {
      if (r.owner.empty()) continue;
      const YAML::Node& at = owner_at_.at(r.name);
      if (set.clients.empty()) {
        return Fail(at, "rule " + r.name + ", owner: needs clients: (the aggregator's client list) to know what " +
                            r.owner + " may see");
      }
      if (!clients) {
        std::string file = set.clients;
        const size_t slash = y_.source.rfind('/');
        if (file.front() != '/' && slash != std::string::npos) file = y_.source.substr(0, slash + 1) + file;
        auto loaded = security::ClientList::Load(file);
        if (!loaded.ok()) return Fail(clients_at_, "clients: " + loaded.status().message());
        clients = std::move(loaded).value();
      }
      const std::vector<const security::ClientGrant*> named = clients->Named(r.owner);
      if (named.empty()) {
        return Fail(at, "rule " + r.name + ", owner: no client named '" + r.owner + "' in " + set.clients);
      }
      for (const security::ClientGrant* g : named) {
        if (named.size() > 1 && g->paths != named.front()->paths) {
          return Fail(at, "rule " + r.name + ", owner: the clients named '" + r.owner + "' in " + set.clients +
                              " have different grants: name one whose grants are the rule's");
        }
      }
      r.owner_paths = named.front()->paths;
    }
    return Status::Ok();
  }

  // {max: N, per: DURATION}, or off.
  Status ParseLimit(const YAML::Node& v, const std::string& what, size_t& max, int64_t& per_ns) const {
    if (v.IsScalar() && v.Scalar() == "off") {
      max = 0;
      per_ns = 0;
      return Status::Ok();
    }
    if (!v.IsMap() || !v["max"] || !v["per"]) return Fail(v, what + ": expected {max: N, per: DURATION} or off");
    for (const auto& item : v) {
      const std::string key = item.first.as<std::string>();
      if (key == "max") {
        FATHOM_ASSIGN_OR_RETURN(max, Count(item.second, what + ", max"));
      } else if (key == "per") {
        FATHOM_ASSIGN_OR_RETURN(per_ns, Duration(item.second, what + ", per"));
      } else {
        return Fail(item.first, what + ": unknown key '" + key + "' (expected max, per)");
      }
    }
    return Status::Ok();
  }

  Status ParseRetry(const YAML::Node& v, const std::string& what, RetryPolicy& p) const {
    if (!v.IsMap()) return Fail(v, what + ", retry: expected {max_attempts: N, max_age: D, backoff: D, max_backoff: D}");
    for (const auto& item : v) {
      const std::string key = item.first.as<std::string>();
      const std::string w = what + ", retry, " + key;
      if (key == "max_attempts") {
        FATHOM_ASSIGN_OR_RETURN(size_t n, Count(item.second, w));
        p.max_attempts = static_cast<int>(std::min<size_t>(n, 1000000));
      } else if (key == "max_age") {
        FATHOM_ASSIGN_OR_RETURN(p.max_age_ns, Duration(item.second, w));
      } else if (key == "backoff") {
        FATHOM_ASSIGN_OR_RETURN(p.base_ns, Duration(item.second, w));
      } else if (key == "max_backoff") {
        FATHOM_ASSIGN_OR_RETURN(p.max_backoff_ns, Duration(item.second, w));
      } else {
        return Fail(item.first, what + ", retry: unknown key '" + key +
                                    "' (expected max_attempts, max_age, backoff, max_backoff)");
      }
    }
    return Status::Ok();
  }

  Result<Action> ParseAction(const YAML::Node& v, const std::string& rule) const {
    const std::string what = rule + ", action";
    if (!v.IsMap()) return Fail(v, what + ": expected " + kActionShapes);
    int kinds = 0;
    for (const char* k : {"command", "webhook", "copy", "mail"}) kinds += v[k] ? 1 : 0;
    if (kinds > 1) return Fail(v, what + ": give one of command, webhook, copy and mail");
    if (v["command"]) return ParseCommand(v, what);
    if (v["webhook"]) return ParseWebhook(v, what);
    if (v["copy"]) return ParseCopy(v, what);
    if (v["mail"]) return ParseMail(v, what);
    return Fail(v, what + ": expected " + kActionShapes);
  }

  Result<Action> ParseCommand(const YAML::Node& v, const std::string& what) const {
    CommandAction c;
    std::optional<YAML::Node> codes_at;  // the last list given, for a message
    for (const auto& item : v) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& x = item.second;
      if (key == "command") {
        if (!x.IsSequence() || x.size() == 0) {
          return Fail(x, what + ", command: expected the program and its arguments as a list, e.g. "
                                "[/usr/local/bin/ingest, --file, '{path}'] (no shell runs it)");
        }
        FATHOM_ASSIGN_OR_RETURN(c.argv, Words(x, what + ", command"));
        Status s = CheckCommandTemplate(c.argv);
        if (!s.ok()) return Fail(x, what + ", command: " + s.message());
        if (c.argv.front().empty() || c.argv.front().front() != '/') {
          return Fail(x, what + ", command: the program must be an absolute path (a rule's command runs with a "
                                "minimal PATH): write /usr/bin/" + c.argv.front() + " or the program's path");
        }
      } else if (key == "timeout") {
        FATHOM_ASSIGN_OR_RETURN(c.timeout_ns, Duration(x, what + ", timeout"));
      } else if (key == "retry_exit_codes") {
        FATHOM_ASSIGN_OR_RETURN(c.retry_exit_codes, Numbers(x, what + ", retry_exit_codes", 0, 255, "an exit status"));
        codes_at.emplace(x);
      } else if (key == "permanent_exit_codes") {
        FATHOM_ASSIGN_OR_RETURN(c.permanent_exit_codes,
                                Numbers(x, what + ", permanent_exit_codes", 1, 255, "a failing exit status"));
        codes_at.emplace(x);
      } else if (key == "allow_root") {
        FATHOM_ASSIGN_OR_RETURN(c.allow_root, Flag(x, what + ", allow_root"));
      } else {
        return Fail(item.first, what + ": unknown key '" + key +
                                    "' for a command (expected command, timeout, retry_exit_codes, "
                                    "permanent_exit_codes, allow_root)");
      }
    }
    if (codes_at) {
      FATHOM_RETURN_IF_ERROR(Disjoint(*codes_at, what, c.retry_exit_codes, c.permanent_exit_codes,
                                      "retry_exit_codes and permanent_exit_codes"));
    }
    return Action(std::move(c));
  }

  Result<Action> ParseWebhook(const YAML::Node& v, const std::string& what) const {
    WebhookAction w;
    std::optional<YAML::Node> statuses_at;  // the last list given, for a message
    for (const auto& item : v) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& x = item.second;
      if (key == "webhook") {
        FATHOM_ASSIGN_OR_RETURN(w.url, Text(x, what + ", webhook"));
        if (!w.url.starts_with("http://") && !w.url.starts_with("https://")) {
          return Fail(x, what + ", webhook: '" + w.url + "' is not an http:// or https:// URL");
        }
      } else if (key == "secret_file" || key == "secret_files") {
        FATHOM_ASSIGN_OR_RETURN(w.secret_files, Words(x, what + ", " + key));
        if (w.secret_files.size() > 2) {
          return Fail(x, what + ", " + key + ": at most two (the current secret and the next, while rotating)");
        }
      } else if (key == "timeout") {
        FATHOM_ASSIGN_OR_RETURN(w.timeout_ns, Duration(x, what + ", timeout"));
      } else if (key == "allow_loopback") {
        FATHOM_ASSIGN_OR_RETURN(w.allow_loopback, Flag(x, what + ", allow_loopback"));
      } else if (key == "allow_private") {
        FATHOM_ASSIGN_OR_RETURN(w.allow_private, Flag(x, what + ", allow_private"));
      } else if (key == "retry_statuses" || key == "permanent_statuses") {
        FATHOM_ASSIGN_OR_RETURN(std::vector<int> statuses,
                                Numbers(x, what + ", " + key, 300, 599, "an HTTP status other than 2xx"));
        (key == "retry_statuses" ? w.retry_statuses : w.permanent_statuses) = std::move(statuses);
        statuses_at.emplace(x);
      } else if (key == "include") {
        FATHOM_ASSIGN_OR_RETURN(std::vector<std::string> parts, Words(x, what + ", include"));
        for (const std::string& part : parts) {
          if (part == "stat") {
            w.include_stat = true;
          } else if (part == "sha256") {
            w.include_sha256 = true;
          } else {
            return Fail(x, what + ", include: unknown '" + part + "' (expected stat, sha256)");
          }
        }
      } else {
        return Fail(item.first, what + ": unknown key '" + key +
                                    "' for a webhook (expected webhook, secret_file, secret_files, timeout, "
                                    "allow_loopback, allow_private, retry_statuses, permanent_statuses, include)");
      }
    }
    if (statuses_at) {
      FATHOM_RETURN_IF_ERROR(Disjoint(*statuses_at, what, w.retry_statuses, w.permanent_statuses,
                                      "retry_statuses and permanent_statuses"));
    }
    return Action(std::move(w));
  }

  // action: {copy: {to: DIR, checksum: sha256}}
  Result<Action> ParseCopy(const YAML::Node& v, const std::string& what) const {
    if (v.size() != 1) return Fail(v, what + ": copy takes its settings inside: {copy: {to: DIR, checksum: sha256}}");
    const YAML::Node m = v["copy"];
    const std::string w = what + ", copy";
    if (!m.IsMap()) return Fail(m, w + ": expected {to: DIRECTORY, checksum: sha256 or none}");
    CopyAction c;
    for (const auto& item : m) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& x = item.second;
      if (key == "to") {
        FATHOM_ASSIGN_OR_RETURN(c.to, Text(x, w + ", to"));
        if (c.to.front() != '/') return Fail(x, w + ", to: '" + c.to + "' is not an absolute directory");
      } else if (key == "checksum") {
        const std::string sum = x.IsScalar() ? x.Scalar() : "";
        if (sum != "sha256" && sum != "none") {
          return Fail(x, w + ", checksum: expected sha256 (read the copy back and compare) or none");
        }
        c.verify = sum == "sha256";
      } else {
        return Fail(item.first, w + ": unknown key '" + key + "' (expected to, checksum)");
      }
    }
    if (c.to.empty()) return Fail(m, w + ": no destination: give to: DIRECTORY");
    return Action(std::move(c));
  }

  // action: {mail: {to: [ADDRESS...], subject: TEXT, from: ADDRESS, sendmail: PATH, timeout: D}}
  Result<Action> ParseMail(const YAML::Node& v, const std::string& what) const {
    if (v.size() != 1) return Fail(v, what + ": mail takes its settings inside: {mail: {to: [ADDRESS], subject: TEXT}}");
    const YAML::Node m = v["mail"];
    const std::string w = what + ", mail";
    if (!m.IsMap()) return Fail(m, w + ": expected {to: [ADDRESS...], subject: TEXT}");
    MailAction a;
    for (const auto& item : m) {
      const std::string key = item.first.as<std::string>();
      const YAML::Node& x = item.second;
      if (key == "to") {
        FATHOM_ASSIGN_OR_RETURN(a.to, Words(x, w + ", to"));
        for (const std::string& address : a.to) FATHOM_RETURN_IF_ERROR(OneLine(x, w + ", to", address));
      } else if (key == "subject") {
        FATHOM_ASSIGN_OR_RETURN(a.subject, Text(x, w + ", subject"));
        FATHOM_RETURN_IF_ERROR(OneLine(x, w + ", subject", a.subject));
      } else if (key == "from") {
        FATHOM_ASSIGN_OR_RETURN(a.from, Text(x, w + ", from"));
        FATHOM_RETURN_IF_ERROR(OneLine(x, w + ", from", a.from));
      } else if (key == "sendmail") {
        FATHOM_ASSIGN_OR_RETURN(a.sendmail, Text(x, w + ", sendmail"));
        if (a.sendmail.front() != '/') return Fail(x, w + ", sendmail: '" + a.sendmail + "' is not an absolute path");
      } else if (key == "timeout") {
        FATHOM_ASSIGN_OR_RETURN(a.timeout_ns, Duration(x, w + ", timeout"));
      } else {
        return Fail(item.first, w + ": unknown key '" + key + "' (expected to, subject, from, sendmail, timeout)");
      }
    }
    if (a.to.empty()) return Fail(m, w + ": no recipient: give to: [ADDRESS...]");
    return Action(std::move(a));
  }

  // The glob of everything below directory `dir`, its wildcard characters escaped.
  static std::string GlobBelow(std::string_view dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
    std::string glob;
    for (char c : dir) {
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') glob += '\\';
      glob += c;
    }
    return (glob == "/" ? "" : glob) + "/**";
  }

  // A mail header's value: one line, not empty.
  Status OneLine(const YAML::Node& v, const std::string& what, const std::string& text) const {
    if (text.empty() || text.find_first_of("\r\n") != std::string::npos) {
      return Fail(v, what + ": expected one line of text");
    }
    return Status::Ok();
  }

  static bool GoodName(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
    });
  }

  YamlText y_;
  std::map<std::string, YAML::Node> owner_at_;  // where each rule's owner: is written
  YAML::Node clients_at_;
};

}  // namespace

const Rule* RuleSet::Find(std::string_view name) const {
  for (const Rule& r : rules) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

Result<RuleSet> ParseRuleSet(std::string_view yaml, std::string_view source) {
  return RuleSetLoader(yaml, source).Load();
}

Result<RuleSet> LoadRuleSet(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::Error("cannot read rules file " + path + ": " + std::strerror(errno) +
                         " (give the file with --config)");
  }
  std::stringstream text;
  text << in.rdbuf();
  return ParseRuleSet(text.str(), path);
}

}  // namespace fathom::rules
