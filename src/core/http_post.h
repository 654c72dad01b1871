// http_post.h — one HTTP POST with libcurl: the body and headers given, a time limit, no
// redirects followed, and what happened as a value (transport failure or the status answered).
//
// Contract: only http and https URLs. `vet_address`, when set, is asked about every address
// libcurl is about to connect to (numeric IP text, before the socket is opened); an error
// refuses that address, no connection is made, and the answer is kRefusedAddress with that
// error's message. With `vet_address`, proxies from the environment are not used (the checked
// address must be the target's). `answer.retry_after` is the Retry-After header as sent.
//
// libcurl is loaded on the first call (core/libcurl_api.h); when it cannot be, the answer is
// kFailed with an error naming the package to install.
//
// Ownership: nothing is kept after the call. Threading: any thread (CURLOPT_NOSIGNAL; libcurl
// 7.84 and later initialises itself safely on a first use from several threads); the call
// blocks until the exchange ends.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fathom/status.h"

namespace fathom {

struct HttpPost {
  std::string url;
  std::string body;
  std::vector<std::string> headers;  // "Name: value"
  int64_t timeout_ns = 0;            // 0: no limit
  std::function<Status(const std::string& ip)> vet_address;
};

struct HttpAnswer {
  enum Transport {
    kAnswered,        // `status` holds the HTTP status
    kUnreachable,     // name not resolved, connection refused or reset, nothing answered
    kTimedOut,        // past timeout_ns
    kBadUrl,          // malformed URL or a scheme other than http/https
    kRefusedAddress,  // vet_address refused every address tried
    kFailed,          // anything else libcurl reports (TLS, ...)
  } transport = kFailed;
  std::string error;  // the transport failure, libcurl's words (or vet_address's)
  long status = 0;
  std::string retry_after;
  std::string location;
};

HttpAnswer PostHttp(const HttpPost& post);

}  // namespace fathom
