// pg_error.h — Status messages for libpq failures: which server, which database and user,
// what failed, and what to do.
//
// Messages read `catalog database "D" on HOST:PORT as user "U": WHAT: CAUSE: REMEDY
// (postgresql: DETAIL)`; the password of a URI never appears in them. Connection failures
// are told apart by libpq's and the server's English messages; one in another language
// still gets the general remedy. A lost connection carries std::errc::connection_aborted
// as its code. Free functions, safe from any thread on distinct connections.
#pragma once

#include "catalog/postgres/libpq_api.h"

#include <string>
#include <string_view>
#include <system_error>

#include "fathom/status.h"

namespace fathom::catalog::pg {

// `catalog database "D" on HOST:PORT as user "U"`, from `conn`'s options (libpq keeps them
// when connecting failed).
std::string DescribeServer(const PGconn* conn);

// Why connecting `conn` failed (PQstatus is CONNECTION_BAD) and what to do.
Status ConnectError(const PGconn* conn, std::string_view what);

// Whether `conn` is gone after a failed call (the server closed it, was shut down or
// restarted, or the network failed), judging by `result` (may be null) and the connection.
bool ConnectionLost(const PGconn* conn, const PGresult* result);

// The code of every error that comes of a lost connection.
std::error_code ConnectionLostCode();

// The server's or libpq's message about a failed call, on one line: from `result`, or from
// `conn` when there is no result or it carries no message.
std::string FailureDetail(const PGconn* conn, const PGresult* result);

// The failure of statement `what` on `server` (a DescribeServer() text): the server's
// message, its SQLSTATE, and a remedy where one is known. `result` may be null (libpq's own
// failure, taken from `conn`).
Status StatementError(const std::string& server, const PGconn* conn, const PGresult* result,
                      std::string_view what);

}  // namespace fathom::catalog::pg
