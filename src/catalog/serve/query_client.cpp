#include "catalog/serve/query_client.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fathom::catalog::serve {

Result<std::optional<int>> AskQueryServer(const std::string& socket_path, const QueryRequest& request,
                                          std::string* why) {
  sockaddr_un addr{};
  if (socket_path.empty() || socket_path.size() >= sizeof addr.sun_path) {
    *why = "no usable socket path";
    return std::optional<int>();
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, socket_path.data(), socket_path.size());
  UniqueFd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) return Status::FromErrno(errno, "creating a socket");
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    *why = "no catalog server at " + socket_path + ": " + std::strerror(errno);
    return std::optional<int>();
  }
  Status sent = SendRequest(sock.get(), request, STDOUT_FILENO, STDERR_FILENO);
  if (!sent.ok()) {
    *why = sent.message();
    return std::optional<int>();
  }
  auto reply = ReceiveReply(sock.get());
  if (!reply.ok()) {
    return Status::Error("the catalog server at " + socket_path + " stopped before it answered (" +
                         reply.status().message() + "): run the query again, or with --no-server");
  }
  if (!reply->error.empty()) return Status::Error("the catalog server at " + socket_path + ": " + reply->error);
  if (!reply->status) {
    *why = reply->fallback;
    return std::optional<int>();
  }
  return reply->status;
}

}  // namespace fathom::catalog::serve
