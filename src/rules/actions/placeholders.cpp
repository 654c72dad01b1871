// placeholders.cpp — CheckCommandTemplate and ExpandArgv: one left-to-right pass over each
// argument, so a value that itself looks like "{path}" is never expanded again.
#include <functional>
#include <optional>
#include <string_view>

#include "rules/actions/action.h"

namespace fathom::rules {
namespace {

constexpr std::string_view kPaths = "{paths}";
constexpr std::string_view kKnown[] = {"path", "kind", "id", "root", "name", "dir", "delivery_id", "attempt", "rule"};

bool WordChar(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }

// Calls `literal` and `placeholder` for the pieces of `arg` in order; "{word}" is a
// placeholder, anything else (other braces included) literal text.
void Scan(std::string_view arg, const std::function<void(std::string_view)>& literal,
          const std::function<void(std::string_view)>& placeholder) {
  size_t from = 0;
  for (size_t at = arg.find('{'); at != std::string_view::npos; at = arg.find('{', at + 1)) {
    size_t end = at + 1;
    while (end < arg.size() && WordChar(arg[end])) ++end;
    if (end == at + 1 || end >= arg.size() || arg[end] != '}') continue;
    literal(arg.substr(from, at - from));
    placeholder(arg.substr(at + 1, end - at - 1));
    from = end + 1;
    at = end;
  }
  literal(arg.substr(from));
}

std::optional<std::string> Value(std::string_view name, const DeliveryContext& c) {
  const Event empty;
  const Event& e = c.events.empty() ? empty : c.events.back();
  const size_t slash = e.path.rfind('/');
  if (name == "path") return e.path;
  if (name == "kind") return KindNames(e.mask);
  if (name == "id") return std::to_string(e.id);
  if (name == "root") return e.root;
  if (name == "name") return slash == std::string::npos ? e.path : e.path.substr(slash + 1);
  if (name == "dir") return slash == std::string::npos ? "" : slash == 0 ? "/" : e.path.substr(0, slash);
  if (name == "delivery_id") return c.delivery_id;
  if (name == "attempt") return std::to_string(c.attempt);
  if (name == "rule") return c.rule;
  return std::nullopt;
}

}  // namespace

Status CheckCommandTemplate(const std::vector<std::string>& argv) {
  if (argv.empty()) return Status::Error("the command is empty");
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == kPaths) continue;
    std::string bad;
    Scan(argv[i], [](std::string_view) {}, [&](std::string_view name) {
      bool known = false;
      for (std::string_view k : kKnown) known = known || k == name;
      if (!known && bad.empty()) bad = "{" + std::string(name) + "}";
    });
    if (bad == kPaths) {
      return Status::Error("command argument " + std::to_string(i) + " (\"" + argv[i] +
                           "\"): {paths} must be a whole argument (it becomes one argument per path)");
    }
    if (!bad.empty()) {
      return Status::Error("command argument " + std::to_string(i) + " (\"" + argv[i] + "\"): unknown placeholder " +
                           bad + " (known: {path} {kind} {id} {root} {name} {dir} {delivery_id} {attempt} {rule} {paths})");
    }
  }
  return Status::Ok();
}

std::vector<std::string> ExpandArgv(const std::vector<std::string>& argv, const DeliveryContext& context) {
  std::vector<std::string> out;
  for (const std::string& arg : argv) {
    if (arg == kPaths) {
      for (const Event& e : context.events) out.push_back(e.path);
      continue;
    }
    std::string expanded;
    Scan(arg, [&](std::string_view text) { expanded += text; }, [&](std::string_view name) {
      const std::optional<std::string> value = Value(name, context);
      expanded += value ? *value : "{" + std::string(name) + "}";
    });
    out.push_back(std::move(expanded));
  }
  return out;
}

}  // namespace fathom::rules
