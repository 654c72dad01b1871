// http_reply.cpp — JSON answers, errors and the shared query parameters.
#include "web/http_reply.h"

#include <charconv>
#include <ctime>

#include "fathom/event.h"
#include "web/access.h"

namespace fathom::web {
namespace {

[[noreturn]] void Refuse(std::string message) { throw BadRequest{{400, std::move(message)}}; }

bool AllDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::optional<int64_t> ParseIsoTime(std::string_view s) {
  if (!s.empty() && s.back() == 'Z') s.remove_suffix(1);
  struct tm tm {};
  int frac_digits = 0;
  int64_t frac = 0;
  unsigned y, mo, d, h = 0, mi = 0, sec = 0;
  char sep = 0;
  std::string text(s);
  size_t dot = text.find('.');
  std::string main = text.substr(0, dot);
  int n = std::sscanf(main.c_str(), "%4u-%2u-%2u%c%2u:%2u:%2u", &y, &mo, &d, &sep, &h, &mi, &sec);
  if (n != 3 && n < 6) return std::nullopt;
  if (n > 3 && sep != 'T' && sep != ' ') return std::nullopt;
  if (dot != std::string::npos) {
    std::string_view f = std::string_view(text).substr(dot + 1);
    if (!AllDigits(f) || f.size() > 9 || n != 7) return std::nullopt;
    for (char c : f) {
      frac = frac * 10 + (c - '0');
      ++frac_digits;
    }
    for (; frac_digits < 9; ++frac_digits) frac *= 10;
  }
  // Nanoseconds since the epoch in 64 bits reach April 2262.
  if (y < 1970 || y > 2261 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) {
    return std::nullopt;
  }
  tm.tm_year = static_cast<int>(y) - 1900;
  tm.tm_mon = static_cast<int>(mo) - 1;
  tm.tm_mday = static_cast<int>(d);
  tm.tm_hour = static_cast<int>(h);
  tm.tm_min = static_cast<int>(mi);
  tm.tm_sec = static_cast<int>(sec);
  return static_cast<int64_t>(timegm(&tm)) * 1'000'000'000 + frac;
}

namespace {

// The value of cookie `name` in a Cookie header ("a=1; fathom_session=...").
std::string CookieValue(const std::string& header, std::string_view name) {
  size_t pos = 0;
  while (pos < header.size()) {
    size_t end = header.find(';', pos);
    if (end == std::string::npos) end = header.size();
    std::string_view part = std::string_view(header).substr(pos, end - pos);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name && part[name.size()] == '=') {
      return std::string(part.substr(name.size() + 1));
    }
    pos = end + 1;
  }
  return "";
}

}  // namespace

std::string RequestToken(const httplib::Request& req, std::string_view cookie) {
  std::string auth = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (auth.size() > kBearer.size() && std::string_view(auth).substr(0, kBearer.size()) == kBearer) {
    return auth.substr(kBearer.size());
  }
  return CookieValue(req.get_header_value("Cookie"), cookie);
}

void ReplyJson(httplib::Response& res, const nlohmann::json& body, int status) {
  ReplyJsonText(res, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), status);
}

void ReplyJsonText(httplib::Response& res, std::string body, int status) {
  res.status = status;
  res.set_content(std::move(body), "application/json");
}

void ReplyError(httplib::Response& res, int status, const std::string& message) {
  ReplyJson(res, {{"error", message}}, status);
}

void ReplyError(httplib::Response& res, const HttpError& error) { ReplyError(res, error.status, error.message); }

uint64_t ParamNumber(const httplib::Request& req, const char* name, uint64_t fallback, uint64_t min,
                     uint64_t max) {
  if (!req.has_param(name)) return fallback;
  std::string v = req.get_param_value(name);
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (!AllDigits(v) || ec != std::errc() || end != v.data() + v.size() || n < min || n > max) {
    Refuse(std::string("'") + name + "' must be a whole number from " + std::to_string(min) + " to " +
           std::to_string(max) + ", not '" + v + "'");
  }
  return n;
}

size_t ParamLimit(const httplib::Request& req, size_t fallback) {
  return static_cast<size_t>(ParamNumber(req, "limit", fallback, 1, 1000));
}

std::optional<int64_t> ParamTime(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return std::nullopt;
  std::string v = req.get_param_value(name);
  if (AllDigits(v)) {
    int64_t ns = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), ns);
    if (ec == std::errc() && end == v.data() + v.size()) return ns;
  }
  if (auto t = ParseIsoTime(v)) return t;
  Refuse(std::string("'") + name + "' must be nanoseconds since the epoch or an ISO 8601 time in UTC "
         "(2026-11-28T10:00:00Z), not '" + v + "'");
}

std::string ParamPath(const httplib::Request& req, const char* name, const std::string& fallback) {
  if (!req.has_param(name)) return fallback;
  std::string v = req.get_param_value(name);
  auto clean = CleanPath(v);
  if (!clean) {
    Refuse(std::string("'") + name + "' must be an absolute path without '.', '..' or empty components, not '" +
           v + "'");
  }
  return *clean;
}

uint32_t ParamKinds(const httplib::Request& req, const char* name) {
  if (!req.has_param(name) || req.get_param_value(name).empty()) return kind::kAll;
  std::string v = req.get_param_value(name);
  uint32_t mask = 0;
  size_t start = 0;
  while (start <= v.size()) {
    size_t end = v.find(',', start);
    if (end == std::string::npos) end = v.size();
    std::string_view part = std::string_view(v).substr(start, end - start);
    auto k = ParseKind(part);
    if (!k) {
      Refuse("unknown kind '" + std::string(part) + "' in '" + name + "'; the kinds are " + KindNames(kind::kAll));
    }
    mask |= *k;
    start = end + 1;
  }
  return mask;
}

std::string ParamChoice(const httplib::Request& req, const char* name, std::initializer_list<const char*> choices) {
  if (!req.has_param(name)) return *choices.begin();
  std::string v = req.get_param_value(name);
  std::string all;
  for (const char* c : choices) {
    if (v == c) return v;
    all += all.empty() ? "" : ", ";
    all += c;
  }
  Refuse(std::string("'") + name + "' must be one of " + all + ", not '" + v + "'");
}

std::string IsoTime(int64_t ns) {
  time_t secs = static_cast<time_t>(ns / 1'000'000'000);
  int64_t frac = ns % 1'000'000'000;
  if (frac < 0) {
    frac += 1'000'000'000;
    --secs;
  }
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char buf[48];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%09lldZ", static_cast<long long>(frac));
  return buf;
}

}  // namespace fathom::web
