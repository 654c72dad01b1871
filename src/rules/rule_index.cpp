// rule_index.cpp — RuleIndex: the rules in a tree of the literal directories their globs
// begin with; an event walks down its own path and meets only the rules above it.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "condition/glob.h"
#include "fathom/rules.h"

namespace fathom::rules {
namespace {

using condition::Glob;

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// A rule's glob, kept where its literal directory is.
struct Entry {
  size_t rule;
  uint32_t kinds;
  Glob glob;
};

struct Node {
  std::unordered_map<std::string, std::unique_ptr<Node>, StringHash, std::equal_to<>> children;
  std::vector<Entry> here;
  uint32_t kinds_below = 0;  // every kind a rule here or below takes: a walk stops where none is the event's
};

// Calls fn(component) for each component of `path` ("/a/b" -> "a", "b"), until it returns false.
template <typename Fn>
void ForEachComponent(std::string_view path, Fn&& fn) {
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    if (i == path.size()) return;
    const size_t end = std::min(path.find('/', i), path.size());
    if (!fn(path.substr(i, end - i))) return;
    i = end;
  }
}

bool AnyMatches(const std::vector<Glob>& globs, std::string_view path) {
  return std::any_of(globs.begin(), globs.end(), [&](const Glob& g) { return g.Matches(path); });
}

uint32_t KindsOf(uint32_t mask) { return mask & kind::kAll; }

}  // namespace

std::string_view AttributeSourceName(AttributeSource source) {
  switch (source) {
    case AttributeSource::kNone: return "none";
    case AttributeSource::kLive: return "live";
    case AttributeSource::kCatalog: return "catalog";
  }
  return "none";
}

std::string LiteralDirectory(std::string_view glob) {
  std::string literal;
  for (size_t i = 0; i < glob.size(); ++i) {
    const char c = glob[i];
    if (c == '*' || c == '?' || c == '[') {
      const size_t slash = literal.rfind('/');
      if (slash == std::string::npos) return "";
      literal.resize(slash == 0 ? 1 : slash);
      return literal;
    }
    if (c == '\\' && i + 1 < glob.size()) {
      literal.push_back(glob[++i]);
      continue;
    }
    literal.push_back(c);
  }
  while (literal.size() > 1 && literal.back() == '/') literal.pop_back();
  return literal;
}

Status CheckPathGlob(std::string_view glob) {
  if (glob.empty()) return Status::Error("an empty path glob: give an absolute glob, e.g. /lab/raw/**.h5");
  if (glob.front() != '/' && !glob.starts_with("**")) {
    return Status::Error("path glob '" + std::string(glob) +
                         "' is relative: events carry absolute paths; write /DIR/" + std::string(glob) + " or **/" +
                         std::string(glob));
  }
  return Status::Ok();
}

struct RuleIndex::Impl {
  std::vector<const Trigger*> triggers;
  std::vector<std::vector<Glob>> globs;   // per rule, its paths compiled (for Explain)
  std::vector<std::vector<Glob>> ignore;  // per rule
  Node root;

  void Add(size_t rule, const Trigger& t, std::string_view pattern) {
    Node* node = &root;
    const uint32_t kinds = KindsOf(t.kinds);
    node->kinds_below |= kinds;
    ForEachComponent(LiteralDirectory(pattern), [&](std::string_view name) {
      auto it = node->children.find(name);
      if (it == node->children.end()) it = node->children.emplace(std::string(name), std::make_unique<Node>()).first;
      node = it->second.get();
      node->kinds_below |= kinds;
      return true;
    });
    node->here.push_back({rule, kinds, Glob::Compile(pattern, Glob::Mode::kPath)});
  }

  void Take(const Node& node, const Event& event, std::vector<size_t>& out) const {
    for (const Entry& e : node.here) {
      if ((e.kinds & event.mask) != 0 && e.glob.Matches(event.path) && !AnyMatches(ignore[e.rule], event.path)) {
        out.push_back(e.rule);
      }
    }
  }
};

RuleIndex::RuleIndex(const std::vector<const Trigger*>& triggers) : impl_(std::make_unique<Impl>()) {
  impl_->triggers = triggers;
  for (size_t i = 0; i < triggers.size(); ++i) {
    const Trigger& t = *triggers[i];
    std::vector<Glob> globs, ignore;
    for (const std::string& p : t.paths) globs.push_back(Glob::Compile(p, Glob::Mode::kPath));
    for (const std::string& p : t.ignore) ignore.push_back(Glob::Compile(p, Glob::Mode::kPath));
    impl_->globs.push_back(std::move(globs));
    impl_->ignore.push_back(std::move(ignore));
    if (t.paths.empty()) {
      impl_->Add(i, t, "**");  // every path
    } else {
      for (const std::string& p : t.paths) impl_->Add(i, t, p);
    }
  }
}

RuleIndex::~RuleIndex() = default;
RuleIndex::RuleIndex(RuleIndex&&) noexcept = default;
RuleIndex& RuleIndex::operator=(RuleIndex&&) noexcept = default;

size_t RuleIndex::size() const { return impl_->triggers.size(); }

void RuleIndex::Candidates(const Event& event, std::vector<size_t>& out) const {
  const size_t first = out.size();
  const uint32_t kinds = KindsOf(event.mask);
  const Node* node = &impl_->root;
  if ((node->kinds_below & kinds) == 0) return;
  impl_->Take(*node, event, out);
  ForEachComponent(event.path, [&](std::string_view name) {
    auto it = node->children.find(name);
    if (it == node->children.end() || (it->second->kinds_below & kinds) == 0) return false;
    node = it->second.get();
    impl_->Take(*node, event, out);
    return true;
  });
  // A rule with several globs above the path is taken once.
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()), out.end());
}

std::string RuleIndex::Explain(size_t rule, const Event& event) const {
  const Trigger& t = *impl_->triggers.at(rule);
  if ((KindsOf(t.kinds) & event.mask) == 0) {
    return "kinds " + KindNames(KindsOf(event.mask)) + " not in " + KindNames(KindsOf(t.kinds));
  }
  if (!t.paths.empty() && !AnyMatches(impl_->globs[rule], event.path)) {
    std::string globs;
    for (const std::string& p : t.paths) globs += (globs.empty() ? "" : ", ") + p;
    return "path " + event.path + " matches no glob of " + globs;
  }
  for (size_t i = 0; i < t.ignore.size(); ++i) {
    if (impl_->ignore[rule][i].Matches(event.path)) return "ignored by glob " + t.ignore[i];
  }
  return "";
}

}  // namespace fathom::rules
