// query_protocol.h — what `fathom find` and `fathom catalog serve` say to each other over a
// Unix socket.
//
// The client sends one request (a 4-byte little-endian length, then JSON: the command, the
// catalog it means, its working directory, --as-user, the command's own arguments) with its
// standard output and error attached (SCM_RIGHTS), so that the server writes the answer
// straight to them. The server answers with one reply (the same framing): the command's exit
// status, or "answer it yourself" with the reason, or an error. Requests are at most 1 MiB;
// anything else is refused with an error naming what was wrong. Stateless functions, any
// thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/unique_fd.h"
#include "fathom/status.h"

namespace fathom::catalog::serve {

inline constexpr size_t kMaxRequestBytes = 1 << 20;

struct QueryRequest {
  std::string command;   // "find"
  std::string catalog;   // CatalogIdentity() of the catalog the client means
  std::string cwd;       // for relative starting points
  std::string as_user;   // --as-user (honoured for root callers only)
  std::vector<std::string> args;
  bool operator==(const QueryRequest&) const = default;
};

struct QueryReply {
  std::optional<int> status;  // the command ran: its exit status
  std::string fallback;       // not answered here: the client answers itself (why)
  std::string error;          // refused (why)
};

// A request as the server received it, with the client's output descriptors.
struct ReceivedRequest {
  QueryRequest request;
  UniqueFd out, err;
};

// The catalog a URI names, comparable between processes: a SQLite file's real path, or the
// PostgreSQL URI as given. An error when a SQLite file does not exist.
Result<std::string> CatalogIdentity(const std::string& uri);

// Where a server of the catalog `uri` listens by default: FILE.sock beside a SQLite catalog;
// none (empty) for PostgreSQL.
std::string DefaultSocketPath(const std::string& uri);

// A request's JSON text, and back: an error naming what is missing or wrong.
std::string RequestText(const QueryRequest& request);
Result<QueryRequest> ParseRequest(const std::string& text);

Status SendRequest(int sock, const QueryRequest& request, int out_fd, int err_fd);
// Sends `bytes` as they are (SendRequest frames a request first) with the two descriptors
// attached to the first of them.
Status SendWithDescriptors(int sock, std::string_view bytes, int out_fd, int err_fd);
Result<ReceivedRequest> ReceiveRequest(int sock);
Status SendReply(int sock, const QueryReply& reply);
Result<QueryReply> ReceiveReply(int sock);

}  // namespace fathom::catalog::serve
