// event_json.cpp — AppendEventJson.
#include "web/event_json.h"

#include "fathom/format.h"
#include "web/http_reply.h"

namespace fathom::web {

void AppendEventJson(const Event& e, std::string& out) {
  out += "{\"id\":";
  out += std::to_string(e.id);
  out += ",\"ts_ns\":";
  out += std::to_string(e.ts_ns);
  out += ",\"time\":\"";
  out += IsoTime(e.ts_ns);
  out += "\",\"kinds\":[";
  bool first = true;
  for (std::string_view k : KindNameList(e.mask & ~kind::kIsDir)) {
    if (!first) out += ',';
    first = false;
    out += '"';
    out += k;
    out += '"';
  }
  out += "],\"dir\":";
  out += (e.mask & kind::kIsDir) ? "true" : "false";
  out += ',';
  AppendJsonNameMember("path", e.path, out);
  out += ',';
  AppendJsonNameMember("root", e.root, out);
  out += ",\"source\":";
  AppendJsonString(e.source, out);
  out += ",\"cookie\":";
  out += std::to_string(e.cookie);
  out += ",\"attrs\":";
  out += e.attrs.size() >= 2 ? e.attrs : std::string("{}");
  out += '}';
}

}  // namespace fathom::web
