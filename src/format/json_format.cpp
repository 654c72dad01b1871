#include <charconv>

#include "format/formatters.h"

namespace fathom {
namespace internal {
namespace {

template <typename T>
void AppendNumber(T value, std::string& out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}

class JsonFormatter final : public Formatter {
 public:
  void Write(const Event& e, std::string& out) override {
    out += "{\"id\":";
    AppendNumber(e.id, out);
    out += ",\"ts\":";
    AppendNumber(e.ts_ns, out);
    out += ",\"events\":[";
    bool first = true;
    for (auto name : KindNameList(e.mask)) {
      if (!first) out += ',';
      first = false;
      out += '"';
      out += name;
      out += '"';
    }
    out += "],";
    AppendJsonNameMember("path", e.path, out);
    out += ',';
    AppendJsonNameMember("root", e.root, out);
    out += ",\"cookie\":";
    AppendNumber(e.cookie, out);
    out += ",\"source\":";
    AppendJsonString(e.source, out);
    // attrs is "{...}": splice its members into this object.
    if (e.attrs.size() > 2) {
      out += ',';
      out.append(e.attrs, 1, e.attrs.size() - 2);
    }
    out += "}\n";
  }
  void Flush(std::string&) override {}
};

}  // namespace

std::unique_ptr<Formatter> MakeJsonFormatter() { return std::make_unique<JsonFormatter>(); }

}  // namespace internal
}  // namespace fathom
