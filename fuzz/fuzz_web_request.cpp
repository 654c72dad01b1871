// fuzz_web_request — what `fathom serve` reads of a request before any source: the query
// string cut into parameters (cpp-httplib), then every parameter reader (paths, kinds, times,
// numbers, choices), the token from the Authorization header or the Cookie header, and the
// path check. Properties: a reader either gives a value in its contract or refuses with a
// message (BadRequest), never crashes; a clean path is absolute, without ".", ".." or empty
// components, and cleaning it again changes nothing; a time written by IsoTime reads back.
// Input: "query\0headers-value\0cookie-value".
#include <httplib.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fathom/event.h"
#include "web/access.h"
#include "web/http_reply.h"

namespace {

using fathom::web::BadRequest;

void Check(bool ok) {
  if (!ok) std::abort();
}

template <typename F>
void Refusable(F&& read) {
  try {
    read();
  } catch (const BadRequest& bad) {
    Check(bad.error.status == 400 && !bad.error.message.empty());
  }
}

void CheckCleanPath(std::string_view raw) {
  auto clean = fathom::web::CleanPath(raw);
  if (!clean) return;
  const std::string& p = *clean;
  Check(!p.empty() && p.front() == '/');
  Check(p == "/" || p.back() != '/');
  Check(p.find("//") == std::string::npos);
  Check(p.find("/./") == std::string::npos && p.find("/../") == std::string::npos);
  Check(!(p.size() >= 3 && p.compare(p.size() - 3, 3, "/..") == 0));
  Check(fathom::web::CleanPath(p) == clean);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t a = in.find('\0');
  std::string_view query = in.substr(0, a);
  std::string_view rest = a == std::string_view::npos ? std::string_view() : in.substr(a + 1);
  size_t b = rest.find('\0');
  std::string_view authorization = rest.substr(0, b);
  std::string_view cookie = b == std::string_view::npos ? std::string_view() : rest.substr(b + 1);

  httplib::Request req;
  httplib::detail::parse_query_text(std::string(query), req.params);
  req.headers.emplace("Authorization", std::string(authorization));
  req.headers.emplace("Cookie", std::string(cookie));

  Refusable([&] {
    std::string p = fathom::web::ParamPath(req, "path", "/");
    Check(fathom::web::CleanPath(p) == p);
  });
  Refusable([&] {
    uint32_t kinds = fathom::web::ParamKinds(req, "kinds");
    Check(kinds != 0 && (kinds & ~fathom::kind::kAll) == 0);
  });
  Refusable([&] {
    if (auto t = fathom::web::ParamTime(req, "since"); t && *t >= 0 && *t < int64_t{9'000'000'000} * 1'000'000'000) {
      Check(fathom::web::ParseIsoTime(fathom::web::IsoTime(*t)) == t);
    }
  });
  Refusable([&] {
    size_t limit = fathom::web::ParamLimit(req);
    Check(limit >= 1 && limit <= 1000);
  });
  Refusable([&] {
    uint64_t n = fathom::web::ParamNumber(req, "offset", 0, 5, 500);
    Check(n == 0 || (n >= 5 && n <= 500));
  });
  Refusable([&] {
    std::string by = fathom::web::ParamChoice(req, "by", {"user", "group", "type"});
    Check(by == "user" || by == "group" || by == "type");
  });
  std::string token = fathom::web::RequestToken(req, "fathom_session");
  Check(token.size() <= authorization.size() + cookie.size());
  for (const auto& [key, value] : req.params) CheckCleanPath(value);
  CheckCleanPath(query);
  fathom::web::Access access{"u", 1, {"/a", "/b/c"}, false};
  for (const auto& [key, value] : req.params) {
    if (auto p = fathom::web::CleanPath(value)) {
      for (const std::string& scope : access.ScopesUnder(*p)) Check(access.Covers(scope));
    }
  }
  return 0;
}
