// query_client.h — asks a `fathom catalog serve` for an answer (query_server.h).
//
// Stateless; any thread. The server writes the answer to this process's standard output and
// error directly: flush them before asking.
#pragma once

#include <optional>
#include <string>

#include "catalog/serve/query_protocol.h"

namespace fathom::catalog::serve {

// The exit status of `request` answered by the server listening on `socket_path`; nullopt
// when there is no server there, or it handed the query back (`why` says why, for logs):
// then the caller answers itself. An error when the server refused the query.
Result<std::optional<int>> AskQueryServer(const std::string& socket_path, const QueryRequest& request,
                                          std::string* why);

}  // namespace fathom::catalog::serve
