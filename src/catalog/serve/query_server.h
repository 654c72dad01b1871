// query_server.h — `fathom catalog serve`: a long-lived process that answers `fathom find`
// from catalogs it keeps open.
//
// A query run in a fresh process pays for its start and for the first touch of every page of
// the catalog it reads, and builds again the paths of the directories above its answers.
// The server keeps `threads` read-only catalogs open (each remembering the directory paths
// it has built, until the catalog's next commit: CatalogOptions::remember_directory_paths)
// and answers each client on one of them, writing to the client's own standard output and
// error. Each answer is what the caller may see (its uid and groups from the socket's
// SO_PEERCRED and SO_PEERGROUPS, catalog::VisibleTo), as the same query run by that caller;
// --as-user is honoured for root callers only. Expressions that act on or read the file
// system (-delete, -exec, -fprint, -newer FILE...) and requests for another catalog are
// handed back for the client to answer itself.
//
// Ownership: the server owns its socket (removed at Stop), threads and catalogs. Threading:
// Start, Stop and the destructor from one thread; clients are served on the server's own
// threads, one client per thread at a time; more waiting clients than 64 are told to answer
// themselves.
#pragma once

#include <memory>
#include <string>

#include "fathom/status.h"

namespace fathom::catalog::serve {

struct QueryServerOptions {
  std::string catalog;      // URI
  std::string socket_path;  // default: DefaultSocketPath(catalog)
  unsigned threads = 2;     // catalogs kept open, clients answered at once
  unsigned socket_mode = 0666;  // who may connect (answers are filtered by caller anyway)
};

class QueryServer {
 public:
  // Opens the catalogs and listens. An error when the catalog cannot be opened, or another
  // server answers on the socket; a socket file nobody answers on is replaced.
  static Result<std::unique_ptr<QueryServer>> Start(const QueryServerOptions& options);
  virtual ~QueryServer() = default;
  virtual const std::string& socket_path() const = 0;
  virtual uint64_t answered() const = 0;  // queries answered so far
  // Stops listening, lets the queries being answered finish, removes the socket.
  virtual void Stop() = 0;
};

}  // namespace fathom::catalog::serve
