#include "catalog/serve/query_protocol.h"

#include <sys/socket.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "catalog/postgres/pg_uri.h"

namespace fathom::catalog::serve {
namespace {

using nlohmann::json;

std::string Frame(const std::string& text) {
  std::string framed(4, '\0');
  const auto n = static_cast<uint32_t>(text.size());
  for (int i = 0; i < 4; ++i) framed[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return framed + text;
}

Status SendAll(int sock, std::string_view data, size_t from) {
  while (from < data.size()) {
    const ssize_t n = ::send(sock, data.data() + from, data.size() - from, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, "sending to the catalog server's socket");
    from += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Reads exactly `size` bytes into `out` from `have` on.
Status ReceiveAll(int sock, std::string& out, size_t have, size_t size, const char* what) {
  out.resize(size);
  while (have < size) {
    const ssize_t n = ::recv(sock, out.data() + have, size - have, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, std::string("reading ") + what);
    if (n == 0) return Status::Error(std::string(what) + " ended after " + std::to_string(have) + " of " + std::to_string(size) + " bytes");
    have += static_cast<size_t>(n);
  }
  return Status::Ok();
}

uint32_t Length(std::string_view header) {
  uint32_t n = 0;
  for (int i = 3; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(header[static_cast<size_t>(i)]);
  return n;
}

Result<json> Body(const std::string& text, const char* what) {
  json body = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return Status::Error(std::string(what) + " is not a JSON object");
  return body;
}

}  // namespace

Result<std::string> CatalogIdentity(const std::string& uri) {
  if (pg::IsPostgresUri(uri)) return uri;
  std::string_view file = uri;
  if (file.starts_with("sqlite:")) file.remove_prefix(7);
  char real[PATH_MAX];
  if (::realpath(std::string(file).c_str(), real) == nullptr) {
    return Status::FromErrno(errno, "resolving the catalog file " + std::string(file));
  }
  return std::string(real);
}

std::string DefaultSocketPath(const std::string& uri) {
  if (pg::IsPostgresUri(uri)) return {};
  std::string_view file = uri;
  if (file.starts_with("sqlite:")) file.remove_prefix(7);
  return std::string(file) + ".sock";
}

std::string RequestText(const QueryRequest& r) {
  return json{{"command", r.command}, {"catalog", r.catalog}, {"cwd", r.cwd}, {"as_user", r.as_user}, {"args", r.args}}
      .dump();
}

Result<QueryRequest> ParseRequest(const std::string& text) {
  FATHOM_ASSIGN_OR_RETURN(json body, Body(text, "the query"));
  QueryRequest request;
  const auto text_of = [&](const char* key) -> Result<std::string> {
    auto it = body.find(key);
    if (it == body.end() || !it->is_string()) return Status::Error(std::string("the query has no text \"") + key + "\"");
    return it->get<std::string>();
  };
  FATHOM_ASSIGN_OR_RETURN(request.command, text_of("command"));
  FATHOM_ASSIGN_OR_RETURN(request.catalog, text_of("catalog"));
  FATHOM_ASSIGN_OR_RETURN(request.cwd, text_of("cwd"));
  FATHOM_ASSIGN_OR_RETURN(request.as_user, text_of("as_user"));
  auto args = body.find("args");
  if (args == body.end() || !args->is_array()) return Status::Error("the query has no list \"args\"");
  for (const json& arg : *args) {
    if (!arg.is_string()) return Status::Error("the query's \"args\" holds something other than text");
    request.args.push_back(arg.get<std::string>());
  }
  return request;
}

Status SendRequest(int sock, const QueryRequest& r, int out_fd, int err_fd) {
  const std::string framed = Frame(RequestText(r));
  if (framed.size() > kMaxRequestBytes) return Status::Error("the query is longer than the server takes (1 MiB)");
  return SendWithDescriptors(sock, framed, out_fd, err_fd);
}

Status SendWithDescriptors(int sock, std::string_view bytes, int out_fd, int err_fd) {
  int fds[2] = {out_fd, err_fd};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)] = {};
  iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof fds);
  std::memcpy(CMSG_DATA(c), fds, sizeof fds);
  ssize_t n;
  do {
    n = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return Status::FromErrno(errno, "sending the query to the catalog server");
  return SendAll(sock, bytes, static_cast<size_t>(n));
}

Result<ReceivedRequest> ReceiveRequest(int sock) {
  ReceivedRequest got;
  std::string data(4, '\0');
  int fds[2] = {-1, -1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)] = {};
  iovec iov{data.data(), data.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return Status::FromErrno(errno, "reading a query");
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    int passed[2] = {-1, -1};
    std::memcpy(passed, CMSG_DATA(c), std::min(count, size_t{2}) * sizeof(int));
    if (count >= 1) got.out = UniqueFd(passed[0]);
    if (count >= 2) got.err = UniqueFd(passed[1]);
  }
  if ((msg.msg_flags & MSG_CTRUNC) != 0 || !got.out.valid() || !got.err.valid()) {
    return Status::Error("a query came without its standard output and error attached");
  }
  if (n == 0) return Status::Error("a query ended before its length");
  FATHOM_RETURN_IF_ERROR(ReceiveAll(sock, data, static_cast<size_t>(n), 4, "a query's length"));
  const uint32_t size = Length(data);
  if (size + 4u > kMaxRequestBytes) {
    return Status::Error("a query of " + std::to_string(size) + " bytes is longer than the server takes (1 MiB)");
  }
  std::string text;
  FATHOM_RETURN_IF_ERROR(ReceiveAll(sock, text, 0, size, "a query"));
  FATHOM_ASSIGN_OR_RETURN(got.request, ParseRequest(text));
  return got;
}

Status SendReply(int sock, const QueryReply& reply) {
  json body = json::object();
  if (reply.status) body["status"] = *reply.status;
  if (!reply.fallback.empty()) body["fallback"] = reply.fallback;
  if (!reply.error.empty()) body["error"] = reply.error;
  return SendAll(sock, Frame(body.dump()), 0);
}

Result<QueryReply> ReceiveReply(int sock) {
  std::string header;
  FATHOM_RETURN_IF_ERROR(ReceiveAll(sock, header, 0, 4, "the catalog server's reply"));
  const uint32_t size = Length(header);
  if (size > kMaxRequestBytes) return Status::Error("the catalog server's reply is too long");
  std::string text;
  FATHOM_RETURN_IF_ERROR(ReceiveAll(sock, text, 0, size, "the catalog server's reply"));
  FATHOM_ASSIGN_OR_RETURN(json body, Body(text, "the catalog server's reply"));
  QueryReply reply;
  if (auto it = body.find("status"); it != body.end() && it->is_number_integer()) reply.status = it->get<int>();
  if (auto it = body.find("fallback"); it != body.end() && it->is_string()) reply.fallback = it->get<std::string>();
  if (auto it = body.find("error"); it != body.end() && it->is_string()) reply.error = it->get<std::string>();
  if (!reply.status && reply.fallback.empty() && reply.error.empty()) {
    return Status::Error("the catalog server's reply says nothing");
  }
  return reply;
}

}  // namespace fathom::catalog::serve
