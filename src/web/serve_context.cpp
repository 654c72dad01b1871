// serve_context.cpp — the token check and the error answers around every API route.
#include "web/serve_context.h"

#include <spdlog/spdlog.h>

#include "web/http_reply.h"

namespace fathom::web {

std::optional<Access> ServeContext::Authenticate(const httplib::Request& req) {
  return AccessOf(RequestToken(req, kSessionCookie));
}

std::optional<Access> ServeContext::AccessOf(const std::string& token) {
  if (token.empty() || token.size() > 256) return std::nullopt;
  if (!tokens) {
    if (TokenHash(token) != startup_token_hash) return std::nullopt;
    return Access{"admin", 0, {"/"}, true};
  }
  auto access = tokens->Check(token);
  if (!access.ok()) {
    spdlog::warn("serve: cannot check a token: {}", access.status().message());
    return std::nullopt;
  }
  return access.value();
}

httplib::Server::Handler Authed(ServeContext& ctx, AuthedHandler handler, bool admin_only) {
  return [&ctx, handler = std::move(handler), admin_only](const httplib::Request& req, httplib::Response& res) {
    auto access = ctx.Authenticate(req);
    if (!access) {
      ReplyError(res, 401,
                 "a valid token is needed: send 'Authorization: Bearer TOKEN' (fathom token create makes one; "
                 "fathom serve prints one at start-up when it has no --tokens file)");
      return;
    }
    if (admin_only && !access->admin) {
      ReplyError(res, 403, "this action needs an admin token (fathom token create --admin)");
      return;
    }
    ++ctx.counters.in_flight;
    struct Done {
      std::atomic<int>& n;
      ~Done() { --n; }
    } done{ctx.counters.in_flight};
    try {
      handler(req, res, *access);
    } catch (const BadRequest& bad) {
      ReplyError(res, bad.error);
    }
  };
}

void AddSessionRoutes(httplib::Server& server, ServeContext& ctx) {
  server.Post("/api/v1/session", [&ctx](const httplib::Request& req, httplib::Response& res) {
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("token") || !body["token"].is_string()) {
      ReplyError(res, 400, "the body must be JSON: {\"token\": \"fathom_...\"}");
      return;
    }
    std::string token = body["token"].get<std::string>();
    if (!ctx.AccessOf(token)) {
      ReplyError(res, 401, "unknown, expired or revoked token");
      return;
    }
    std::string secure = ctx.options.tls_cert.empty() ? "" : "; Secure";
    res.set_header("Set-Cookie",
                   std::string(kSessionCookie) + "=" + token + "; HttpOnly; SameSite=Strict; Path=/" + secure);
    res.status = 204;
  });
  server.Delete("/api/v1/session", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Set-Cookie", std::string(kSessionCookie) + "=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0");
    res.status = 204;
  });
  server.Get("/api/v1/whoami", Authed(ctx, [](const httplib::Request&, httplib::Response& res, const Access& a) {
               ReplyJson(res, {{"user", a.user}, {"admin", a.admin}, {"paths", a.paths}});
             }));
}

}  // namespace fathom::web
