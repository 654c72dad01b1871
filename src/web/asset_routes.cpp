// asset_routes.cpp — the pages: "/" is index.html, other paths the files of web/dist (compiled
// in, or from --assets DIR), with headers that keep the pages to fathom's own origin.
#include <fstream>
#include <sstream>

#include "web/access.h"
#include "web/assets.h"
#include "web/serve_context.h"

namespace fathom::web {
namespace {

void SecurityHeaders(httplib::Response& res) {
  res.set_header("Content-Security-Policy",
                 "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                 "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("X-Frame-Options", "DENY");
}

std::string_view TypeOf(std::string_view path) {
  for (const Asset& a : EmbeddedAssets()) {
    if (a.path == path) return a.content_type;
  }
  auto ends = [&](std::string_view ext) {
    return path.size() >= ext.size() && path.substr(path.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

void ServeAsset(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  std::string path = req.path == "/" ? "/index.html" : req.path;
  SecurityHeaders(res);
  if (!ctx.options.assets.empty()) {
    auto clean = CleanPath(path);
    std::ifstream in(ctx.options.assets + (clean ? *clean : "/missing"), std::ios::binary);
    if (clean && in) {
      std::ostringstream data;
      data << in.rdbuf();
      res.set_content(data.str(), std::string(TypeOf(path)));
      return;
    }
  } else {
    for (const Asset& a : EmbeddedAssets()) {
      if (a.path == path) {
        res.set_header("Cache-Control", path == "/index.html" ? "no-cache" : "max-age=300");
        res.set_content(a.data.data(), a.data.size(), std::string(a.content_type));
        return;
      }
    }
  }
  ReplyError(res, 404, "no page or file " + path + " here (the pages are at /)");
}

}  // namespace

void AddAssetRoutes(httplib::Server& server, ServeContext& ctx) {
  server.Get(R"(/(?!api/)[^?]*)", [&ctx](const httplib::Request& req, httplib::Response& res) { ServeAsset(ctx, req, res); });
}

}  // namespace fathom::web
