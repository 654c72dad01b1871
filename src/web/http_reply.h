// http_reply.h — the API's answers and its parameters: JSON bodies, errors as
// {"error": message} with their status, and the query parameters every call shares (times,
// limits, paths, kinds), each refused with a message naming the parameter and what it takes.
// Free functions on one request; any thread.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "fathom/status.h"

namespace fathom::web {

// A bad request: the status to answer and the message.
struct HttpError {
  int status = 400;
  std::string message;
};

void ReplyJson(httplib::Response& res, const nlohmann::json& body, int status = 200);
// `body` is JSON text already.
void ReplyJsonText(httplib::Response& res, std::string body, int status = 200);
void ReplyError(httplib::Response& res, int status, const std::string& message);
void ReplyError(httplib::Response& res, const HttpError& error);

// Thrown by the Param* helpers below and turned into an error answer by the server.
struct BadRequest {
  HttpError error;
};

// `name` as a whole number in [min, max]; `fallback` when absent.
uint64_t ParamNumber(const httplib::Request& req, const char* name, uint64_t fallback,
                     uint64_t min, uint64_t max);
// `limit`: 1..1000, default 100.
size_t ParamLimit(const httplib::Request& req, size_t fallback = 100);
// "YYYY-MM-DD[THH:MM[:SS[.fraction]]][Z]" (UTC) as nanoseconds since the epoch.
std::optional<int64_t> ParseIsoTime(std::string_view text);
// A time: nanoseconds since the epoch or ISO 8601 UTC ("2026-11-28T10:00:00Z",
// "2026-11-28T10:00:00.5Z", "2026-11-28"); nullopt when absent.
std::optional<int64_t> ParamTime(const httplib::Request& req, const char* name);
// An absolute path without ".", ".." or empty components; `fallback` when absent.
std::string ParamPath(const httplib::Request& req, const char* name, const std::string& fallback);
// Kind names separated by commas (CREATE,DELETE; lower case too); every kind when absent.
uint32_t ParamKinds(const httplib::Request& req, const char* name);
// One of `choices`; the first when absent.
std::string ParamChoice(const httplib::Request& req, const char* name,
                        std::initializer_list<const char*> choices);

// The token a request carries: "Authorization: Bearer TOKEN", else the value of the cookie
// `cookie` ("" when neither).
std::string RequestToken(const httplib::Request& req, std::string_view cookie);

// "2026-11-28T10:00:00.123456789Z".
std::string IsoTime(int64_t ns);

}  // namespace fathom::web
