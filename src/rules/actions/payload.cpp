// payload.cpp — DeliveryPayload: the delivery and its events as one JSON document.
#include <charconv>

#include "fathom/format.h"
#include "rules/actions/action.h"

namespace fathom::rules {
namespace {

template <typename T>
void AppendMember(const char* key, T value, std::string& out) {
  out += '"';
  out += key;
  out += "\":";
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}

void AppendEvent(const Event& e, std::string& out) {
  out += '{';
  AppendMember("id", e.id, out);
  out += ',';
  AppendMember("ts_ns", e.ts_ns, out);
  out += ",\"kinds\":[";
  const char* separator = "";
  for (std::string_view name : KindNameList(e.mask)) {
    out += separator;
    AppendJsonString(name, out);
    separator = ",";
  }
  out += "],";
  AppendJsonNameMember("path", e.path, out);
  out += ',';
  AppendJsonNameMember("root", e.root, out);
  out += ",\"source\":";
  AppendJsonString(e.source, out);
  out += ',';
  AppendMember("cookie", e.cookie, out);
  if (e.attrs.size() > 2) {
    out += ",\"attrs\":";
    out += e.attrs;
  }
  out += '}';
}

}  // namespace

std::string DeliveryPayload(const DeliveryContext& context) {
  std::string out = "{\"delivery_id\":";
  AppendJsonString(context.delivery_id, out);
  out += ",\"rule\":";
  AppendJsonString(context.rule, out);
  out += ',';
  AppendMember("attempt", context.attempt, out);
  out += ",\"events\":[";
  for (size_t i = 0; i < context.events.size(); ++i) {
    if (i > 0) out += ',';
    AppendEvent(context.events[i], out);
  }
  out += "]}";
  return out;
}

}  // namespace fathom::rules
