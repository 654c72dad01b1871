// candidates.cpp — a policy's candidates: index selections narrowed by its scope, rules and
// target; subjects; --target.
#include "policy/candidates.h"

#include <sys/xattr.h>

#include <cerrno>
#include <set>
#include <utility>
#include <vector>

namespace fathom::policy {

condition::Subject SubjectOf(std::string_view path, const catalog::Attrs& attrs, NameCache& names) {
  condition::Subject s;
  s.path = path;
  s.attrs = &attrs;
  s.user_name = [&names](uint32_t uid) { return names.UserName(uid); };
  s.group_name = [&names](uint32_t gid) { return names.GroupName(gid); };
  // The path is copied (NUL-terminated) only when an attribute is asked for.
  s.xattr = [path](std::string_view name) -> std::optional<std::string> {
    const std::string p(path);
    const std::string key(name);
    std::string value(256, '\0');
    for (;;) {
      const ssize_t n = lgetxattr(p.c_str(), key.c_str(), value.data(), value.size());
      if (n >= 0) {
        value.resize(static_cast<size_t>(n));
        return value;
      }
      if (errno != ERANGE) return std::nullopt;
      const ssize_t need = lgetxattr(p.c_str(), key.c_str(), nullptr, 0);
      if (need < 0) return std::nullopt;
      value.resize(static_cast<size_t>(need) + 1);
    }
  };
  return s;
}

Result<std::optional<condition::Condition>> TargetCondition(std::string_view target, const FileClasses& classes,
                                                            std::string_view source) {
  if (target.empty()) return std::optional<condition::Condition>();
  const size_t colon = target.find(':');
  const std::string_view kind = target.substr(0, colon);
  const std::string_view value = colon == std::string_view::npos ? std::string_view() : target.substr(colon + 1);
  const char* criterion = kind == "user"    ? "owner"
                          : kind == "group" ? "group"
                          : kind == "ost"   ? "ost_index"
                          : kind == "pool"  ? "ost_pool"
                          : kind == "class" ? "fileclass"
                          : kind == "path"  ? "tree"
                                            : nullptr;
  if (criterion == nullptr || value.empty()) {
    return Status::Error("--target '" + std::string(target) +
                         "': expected user:USER, group:GROUP, ost:INDEX, pool:POOL, class:FILECLASS or path:DIR");
  }
  if (kind == "class") {
    if (Status known = RequireClass(classes, source, value); !known.ok()) {
      return Status::Error("--target '" + std::string(target) + "': " + known.message());
    }
  }
  std::string quoted = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') quoted += '\\';
    quoted += c;
  }
  quoted += '\'';
  auto parsed = condition::Condition::Parse(std::string(criterion) + " == " + quoted, "--target");
  if (!parsed.ok()) return Status::Error("--target '" + std::string(target) + "': " + parsed.status().message());
  return std::optional<condition::Condition>(std::move(parsed).value());
}

namespace {

bool Unbounded(const catalog::Selection& s) {
  return !s.uid && !s.gid && !s.min_size && !s.max_size && !s.min_mtime_ns && !s.max_mtime_ns && !s.type &&
         s.name_tests.empty();
}

}  // namespace

Status ForEachDecided(const PolicyConfig& config, const Policy& policy, catalog::Catalog& catalog,
                      const std::optional<condition::Condition>& target, int64_t now_ns, bool by_rules,
                      NameCache& names, const std::function<bool(const catalog::Visit&, const Decision&)>& fn) {
  catalog::Selection common;
  if (policy.scope) policy.scope->Narrow(common, now_ns);
  if (target) target->Narrow(common, now_ns);
  // With `by_rules`, one selection per rule, unless a rule bounds nothing: then one of
  // everything in scope.
  std::vector<catalog::Selection> selections;
  for (size_t i = 0; by_rules && i < policy.rules.size(); ++i) {
    const Rule& rule = policy.rules[i];
    catalog::Selection s = common;
    if (rule.condition) rule.condition->Narrow(s, now_ns);
    if (rule.target_fileclasses.size() == 1) config.fileclasses.Narrow(rule.target_fileclasses[0], s, now_ns);
    if (Unbounded(s)) {
      selections.clear();
      break;
    }
    selections.push_back(std::move(s));
  }
  if (selections.empty()) selections.push_back(common);
  const bool several = selections.size() > 1;
  std::set<std::pair<catalog::EntryId, std::string>> seen;
  bool stopped = false;
  for (const catalog::Selection& selection : selections) {
    Status s = catalog.Select(selection, [&](const catalog::Visit& v) {
      if (several && !seen.emplace(v.node.id, std::string(v.path)).second) return true;
      const condition::Subject subject = SubjectOf(v.path, v.node.attrs, names);
      if (target) {
        condition::Subject t = subject;
        t.in_class = [&](std::string_view c) { return config.fileclasses.Contains(c, subject, now_ns); };
        if (!target->Matches(t, now_ns)) return true;
      }
      stopped = !fn(v, Decide(policy, config.fileclasses, subject, now_ns));
      return !stopped;
    });
    FATHOM_RETURN_IF_ERROR(s);
    if (stopped) break;
  }
  return Status::Ok();
}

}  // namespace fathom::policy
