#include "catalog/postgres/pg_error.h"

#include <cstring>

namespace fathom::catalog::pg {
namespace {

// libpq's messages span lines ("...failed: Connection refused\n\tIs the server running...");
// a Status is one line.
std::string OneLine(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += (out.back() == '.' || out.back() == '?') ? " " : "; ";
    space = false;
    out += c;
  }
  return out;
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string Quoted(const char* value) { return std::string("\"") + (value != nullptr ? value : "") + "\""; }

std::string HostPort(const PGconn* conn) {
  const char* host = Pq().PQhost(conn);
  const char* port = Pq().PQport(conn);
  return std::string(host != nullptr ? host : "") + ":" + (port != nullptr ? port : "");
}

// The cause and the remedy of a failed connection, from libpq's message.
std::string ConnectCause(const PGconn* conn, std::string_view message) {
  const std::string user = Quoted(Pq().PQuser(conn));
  if (Contains(message, "password authentication failed") ||
      Contains(message, "authentication failed for user")) {
    return "authentication failed for user " + user +
           ": check the password in the URI, PGPASSWORD or ~/.pgpass";
  }
  if (Pq().PQconnectionNeedsPassword(conn) != 0 || Contains(message, "no password supplied")) {
    return "the server wants a password for user " + user +
           " and none was given: put it in ~/.pgpass, PGPASSWORD or the URI";
  }
  if (Contains(message, "database \"") && Contains(message, "does not exist")) {
    return "database " + Quoted(Pq().PQdb(conn)) + " does not exist: create it (createdb -O " +
           (Pq().PQuser(conn) != nullptr ? Pq().PQuser(conn) : "USER") + " " +
           (Pq().PQdb(conn) != nullptr ? Pq().PQdb(conn) : "DATABASE") +
           ") or fix the database in the URI";
  }
  if (Contains(message, "role \"") && Contains(message, "does not exist")) {
    return "user " + user + " does not exist on the server: create it (createuser) or fix " +
           "the user in the URI";
  }
  if (Contains(message, "no pg_hba.conf entry")) {
    return "the server's pg_hba.conf has no line letting user " + user +
           " in from this host: add one (docs/postgresql.md)";
  }
  if (Contains(message, "Connection refused") || Contains(message, "No such file or directory") ||
      Contains(message, "timeout expired") || Contains(message, "could not translate host name") ||
      Contains(message, "No route to host") || Contains(message, "Network is unreachable")) {
    return "no server answers at " + HostPort(conn) +
           ": is the server running? check the host/port in the URI";
  }
  if (Contains(message, "server does not support SSL")) {
    return "the URI asks for SSL (sslmode) and the server at " + HostPort(conn) +
           " does not offer it: enable ssl in its postgresql.conf, or change sslmode in the URI";
  }
  if (Contains(message, "too many clients") || Contains(message, "remaining connection slots")) {
    return "the server has no free connection slot: close idle sessions or raise max_connections";
  }
  if (Contains(message, "the database system is starting up") ||
      Contains(message, "the database system is shutting down") ||
      Contains(message, "the database system is in recovery mode")) {
    return "the server is starting or stopping: try again once it is up";
  }
  return "cannot connect: check the URI, and the server's log";
}

// A remedy for statement errors whose cause the SQLSTATE names.
std::string StatementRemedy(std::string_view sqlstate) {
  if (sqlstate == "42501") return ": grant the user the rights it needs (docs/postgresql.md)";
  if (sqlstate == "53100") return ": free space on the server's disk";
  if (sqlstate == "40001" || sqlstate == "40P01") return ": run the transaction again";
  return "";
}

}  // namespace

std::string DescribeServer(const PGconn* conn) {
  return "catalog database " + Quoted(Pq().PQdb(conn)) + " on " + HostPort(conn) + " as user " +
         Quoted(Pq().PQuser(conn));
}

Status ConnectError(const PGconn* conn, std::string_view what) {
  if (conn == nullptr) {
    return Status::Error("catalog database: " + std::string(what) +
                         ": out of memory starting a connection");
  }
  const std::string message = OneLine(Pq().PQerrorMessage(conn));
  return Status::Error(DescribeServer(conn) + ": " + std::string(what) + ": " +
                           ConnectCause(conn, message) + " (postgresql: " + message + ")",
                       ConnectionLostCode());
}

bool ConnectionLost(const PGconn* conn, const PGresult* result) {
  if (conn == nullptr || Pq().PQstatus(conn) == CONNECTION_BAD) return true;
  const char* sqlstate = result != nullptr ? Pq().PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  if (sqlstate == nullptr) return false;
  // Class 08: connection exception; 57P01-57P03: shut down, crashed, cannot connect now.
  return std::strncmp(sqlstate, "08", 2) == 0 || std::strncmp(sqlstate, "57P0", 4) == 0;
}

std::error_code ConnectionLostCode() { return std::make_error_code(std::errc::connection_aborted); }

std::string FailureDetail(const PGconn* conn, const PGresult* result) {
  const char* primary = result != nullptr ? Pq().PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
  if (primary != nullptr) return OneLine(primary);
  return conn != nullptr ? OneLine(Pq().PQerrorMessage(conn)) : "no connection";
}

Status StatementError(const std::string& server, const PGconn* conn, const PGresult* result,
                      std::string_view what) {
  const char* sqlstate = result != nullptr ? Pq().PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const std::string message = FailureDetail(conn, result);
  if (sqlstate == nullptr) {
    return Status::Error(server + ": " + std::string(what) + ": " + message);
  }
  return Status::Error(server + ": " + std::string(what) + ": " + message +
                       StatementRemedy(sqlstate) + " (SQLSTATE " + sqlstate + ")");
}

}  // namespace fathom::catalog::pg
