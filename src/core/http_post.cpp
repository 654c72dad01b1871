// http_post.cpp — PostHttp with libcurl.
//
// The target address is vetted in CURLOPT_OPENSOCKETFUNCTION rather than in
// CURLOPT_PREREQFUNCTION (CURLINFO_PRIMARY_IP): the open-socket callback sees each address
// exactly as it is about to be connected to (after resolution, for every address tried,
// IPv4 and IPv6 alike), so a refused address gets no connection at all, not even a TCP
// handshake, and a name that resolves differently on a second lookup cannot slip through.
// The pre-request callback would only run once a connection is already open.
#include "core/http_post.h"

#include "core/libcurl_api.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <memory>

namespace fathom {
namespace {

struct CurlDeleter {
  const LibCurl* lib;
  void operator()(CURL* c) const { lib->curl_easy_cleanup(c); }
};
struct ListDeleter {
  const LibCurl* lib;
  void operator()(curl_slist* l) const { lib->curl_slist_free_all(l); }
};

size_t Discard(char*, size_t size, size_t n, void*) { return size * n; }

struct Vetting {
  const std::function<Status(const std::string&)>* vet;
  std::string refused;  // the message of the last refusal
};

std::string AddressText(const sockaddr* sa) {
  char text[INET6_ADDRSTRLEN] = {};
  if (sa->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
  } else if (sa->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof text);
  }
  return text;
}

curl_socket_t OpenVetted(void* clientp, curlsocktype, curl_sockaddr* address) {
  auto* vetting = static_cast<Vetting*>(clientp);
  Status ok = (*vetting->vet)(AddressText(&address->addr));
  if (!ok.ok()) {
    vetting->refused = ok.message();
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

std::string Header(const LibCurl& lib, CURL* curl, const char* name) {
  curl_header* h = nullptr;
  if (lib.curl_easy_header(curl, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK || h == nullptr) return {};
  return h->value;
}

HttpAnswer::Transport TransportOf(CURLcode rc) {
  switch (rc) {
    case CURLE_OK:
      return HttpAnswer::kAnswered;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      return HttpAnswer::kUnreachable;
    case CURLE_OPERATION_TIMEDOUT:
      return HttpAnswer::kTimedOut;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return HttpAnswer::kBadUrl;
    default:
      return HttpAnswer::kFailed;
  }
}

}  // namespace

HttpAnswer PostHttp(const HttpPost& post) {
  HttpAnswer answer;
  auto loaded = LoadLibCurl();
  if (!loaded.ok()) {
    answer.error = loaded.status().message();
    return answer;
  }
  const LibCurl& lib = **loaded;
  std::unique_ptr<curl_slist, ListDeleter> headers(nullptr, ListDeleter{&lib});
  for (const std::string& h : post.headers) headers.reset(lib.curl_slist_append(headers.release(), h.c_str()));
  std::unique_ptr<CURL, CurlDeleter> curl(lib.curl_easy_init(), CurlDeleter{&lib});
  if (!curl) {
    answer.error = "cannot start libcurl";
    return answer;
  }
  char error[CURL_ERROR_SIZE] = {};
  Vetting vetting{&post.vet_address, {}};
  CURL* c = curl.get();
  lib.curl_easy_setopt(c, CURLOPT_URL, post.url.c_str());
  lib.curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  lib.curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  lib.curl_easy_setopt(c, CURLOPT_POSTFIELDS, post.body.c_str());
  lib.curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(post.body.size()));
  lib.curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  lib.curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(post.timeout_ns / 1'000'000));
  lib.curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  lib.curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  lib.curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &Discard);
  if (post.vet_address) {
    lib.curl_easy_setopt(c, CURLOPT_PROXY, "");
    lib.curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, &OpenVetted);
    lib.curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &vetting);
  }
  const CURLcode rc = lib.curl_easy_perform(c);
  answer.transport = TransportOf(rc);
  if (rc != CURLE_OK) {
    answer.error = error[0] != '\0' ? error : lib.curl_easy_strerror(rc);
    if (!vetting.refused.empty() && rc == CURLE_COULDNT_CONNECT) {
      answer.transport = HttpAnswer::kRefusedAddress;
      answer.error = vetting.refused;
    }
    return answer;
  }
  lib.curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &answer.status);
  answer.retry_after = Header(lib, c, "Retry-After");
  answer.location = Header(lib, c, "Location");
  return answer;
}

}  // namespace fathom
