// event_json.cpp — AppendEventJson, EventsJson, ParseEventsJson.
#include "rules/actions/event_json.h"

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/webhook_signature.h"
#include "fathom/format.h"

namespace fathom::rules {
namespace {

template <typename T>
void AppendNumber(const char* key, T value, std::string& out) {
  out += '"';
  out += key;
  out += "\":";
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, end);
}

// `member` of `o`, or its exact bytes from `member`_b64 when given.
Result<std::string> Text(const nlohmann::json& o, const std::string& member) {
  if (auto b64 = o.find(member + "_b64"); b64 != o.end() && b64->is_string()) {
    const std::string text = b64->get<std::string>();
    std::string bytes = FromBase64(text);
    if (bytes.empty() && !text.empty()) return Status::Error("'" + member + "_b64' is not base64");
    return bytes;
  }
  auto it = o.find(member);
  if (it == o.end() || !it->is_string()) return Status::Error("no text '" + member + "'");
  return it->get<std::string>();
}

}  // namespace

void AppendEventJson(const Event& e, std::string& out) {
  out += '{';
  AppendNumber("id", e.id, out);
  out += ',';
  AppendNumber("ts_ns", e.ts_ns, out);
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
  AppendNumber("cookie", e.cookie, out);
  if (e.attrs.size() > 2) {
    out += ",\"attrs\":";
    out += e.attrs;
  }
  out += '}';
}

std::string EventsJson(std::span<const Event> events) {
  std::string out = "[";
  for (size_t i = 0; i < events.size(); ++i) {
    if (i > 0) out += ',';
    AppendEventJson(events[i], out);
  }
  out += ']';
  return out;
}

Result<std::vector<Event>> ParseEventsJson(std::string_view json) {
  const nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
  if (doc.is_discarded() || !doc.is_array()) return Status::Error("events: not a JSON array");
  std::vector<Event> events;
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& o = doc[i];
    auto fail = [&](const std::string& why) { return Status::Error("event " + std::to_string(i) + ": " + why); };
    if (!o.is_object() || !o.contains("id") || !o["id"].is_number_unsigned()) return fail("no id");
    Event e;
    e.id = o["id"].get<uint64_t>();
    if (auto ts = o.find("ts_ns"); ts != o.end()) {
      if (!ts->is_number_integer()) return fail("ts_ns is not a whole number");
      e.ts_ns = ts->get<int64_t>();
    }
    if (auto cookie = o.find("cookie"); cookie != o.end()) {
      if (!cookie->is_number_unsigned() || cookie->get<uint64_t>() > UINT32_MAX) return fail("cookie is not a 32-bit count");
      e.cookie = cookie->get<uint32_t>();
    }
    if (auto source = o.find("source"); source != o.end()) {
      if (!source->is_string()) return fail("source is not text");
      e.source = source->get<std::string>();
    }
    if (!o.contains("kinds") || !o["kinds"].is_array()) return fail("no kinds");
    for (const auto& k : o["kinds"]) {
      if (k == "ISDIR") {
        e.mask |= kind::kIsDir;
        continue;
      }
      auto bit = k.is_string() ? ParseKind(k.get<std::string>()) : std::nullopt;
      if (!bit) return fail("unknown kind " + k.dump());
      e.mask |= *bit;
    }
    auto path = Text(o, "path");
    if (!path.ok()) return fail(path.status().message());
    e.path = std::move(*path);
    auto root = Text(o, "root");
    if (!root.ok()) return fail(root.status().message());
    e.root = std::move(*root);
    if (auto a = o.find("attrs"); a != o.end()) {
      if (!a->is_object()) return fail("attrs is not an object");
      if (!a->empty()) e.attrs = a->dump();
    }
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace fathom::rules
