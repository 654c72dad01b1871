#include "iotrace/servers/lctl_output.h"

namespace fathom::io {
namespace {

// "a.b.c=" or "a.b.c=value" (or "jobid_var=value"): a name without spaces or colons, at the
// start of a line; no line of the statistics texts looks like that.
bool ParamHeader(std::string_view line, std::string_view& name, std::string_view& value) {
  const size_t eq = line.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  name = line.substr(0, eq);
  for (char c : name) {
    if (c == ' ' || c == '\t' || c == ':' || c == '{') return false;
  }
  value = line.substr(eq + 1);
  return true;
}

}  // namespace

std::vector<LctlParam> SplitLctlOutput(std::string_view text) {
  std::vector<LctlParam> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    std::string_view name, value;
    if (ParamHeader(line, name, value)) {
      LctlParam p;
      p.name = std::string(name);
      const size_t first = name.find('.');
      const size_t last = name.rfind('.');
      p.leaf = std::string(name.substr(last + 1));
      if (first != std::string_view::npos && last > first) {
        p.target = std::string(name.substr(first + 1, last - first - 1));
      }
      p.value = std::string(value);
      out.push_back(std::move(p));
    } else if (!out.empty()) {
      std::string& v = out.back().value;
      if (!v.empty()) v += '\n';
      v += line;
    }
  }
  return out;
}

}  // namespace fathom::io
