#include "catalog/postgres/session.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "catalog/postgres/pg_error.h"
#include "catalog/postgres/pg_uri.h"

namespace fathom::catalog::pg {
namespace {

// COPY data goes to libpq in pieces of this size, so that its send buffer stays small.
constexpr size_t kCopyPiece = 256 * 1024;

// RunEach's runs per round trip: few enough that their results fit in the sockets' buffers
// while the runs are still being sent (libpq writes and the server answers at once).
constexpr size_t kPipelineRuns = 1000;

// Notices (a WARNING of the server) are not errors: the calls' results carry what matters.
void IgnoreNotice(void*, const char*) {}

std::string StatementName(size_t index) { return "fathom_" + std::to_string(index); }

}  // namespace

Result<Session> Session::Open(std::string uri, SessionOptions options) {
  FATHOM_RETURN_IF_ERROR(CheckUri(uri));
  Session session(std::move(uri), options);
  FATHOM_RETURN_IF_ERROR(session.Connect("connect"));
  return session;
}

Status Session::Connect(std::string_view what) {
  // The URI comes last so that its own parameters (connect_timeout=...) win.
  const std::string timeout = std::to_string(options_.connect_timeout_s);
  const char* server_options = options_.read_only ? "-c default_transaction_read_only=on" : "";
  const char* keys[] = {"connect_timeout", "fallback_application_name", "options", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), "fathom", server_options, uri_.c_str(), nullptr};
  PgConn conn(Pq().PQconnectdbParams(keys, values, /*expand_dbname=*/1));
  if (conn) server_ = DescribeServer(conn.get());
  if (!conn || Pq().PQstatus(conn.get()) != CONNECTION_OK) return ConnectError(conn.get(), what);
  Pq().PQsetNoticeProcessor(conn.get(), IgnoreNotice, nullptr);
  conn_ = std::move(conn);
  ++connections_;
  return Status::Ok();
}

Status Session::Reconnect(std::string_view what) {
  std::chrono::milliseconds pause = options_.first_pause;
  const auto start = std::chrono::steady_clock::now();
  const int attempts = std::max(1, options_.reconnect_attempts);
  Status last;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    last = Connect(what);
    if (last.ok()) return last;
    if (attempt == attempts) break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, options_.max_pause);
  }
  const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return Status::Error(last.message() + "; gave up reconnecting after " +
                           std::to_string(attempts) + " tries over " +
                           std::to_string(spent.count()) + " ms",
                       ConnectionLostCode());
}

Status Session::Ready(std::string_view what) {
  if (transaction_lost_) {
    return Status::Error(server_ + ": " + std::string(what) +
                             ": the transaction in progress was lost with the connection to the "
                             "server (nothing of it was committed): roll it back and run it again",
                         ConnectionLostCode());
  }
  if (conn_) return Status::Ok();
  return Reconnect(what);
}

bool Session::InTransaction() const {
  return conn_ && Pq().PQtransactionStatus(conn_.get()) != PQTRANS_IDLE;
}

Status Session::Lost(const PgResult& result, std::string_view what, std::string_view consequence) {
  const std::string detail = FailureDetail(conn_.get(), result.get());
  conn_ = PgConn();
  return Status::Error(server_ + ": " + std::string(what) +
                           ": the connection to the server was lost (is the server running?): " +
                           std::string(consequence) + " (postgresql: " + detail + ")",
                       ConnectionLostCode());
}

Status Session::Failed(const PgResult& result, bool in_transaction, std::string_view what) {
  if (!ConnectionLost(conn_.get(), result.get())) {
    return StatementError(server_, conn_.get(), result.get(), what);
  }
  if (!in_transaction) {
    return Lost(result, what, "whether the statement took effect is unknown; the next call connects again");
  }
  transaction_lost_ = true;
  return Lost(result, what, "the transaction in progress is lost (nothing of it was committed): "
                            "roll it back and run it again");
}

Status Session::Exec(std::string_view sql, std::string_view what) {
  FATHOM_RETURN_IF_ERROR(Ready(what));
  const bool in_transaction = InTransaction();
  PgResult result(Pq().PQexec(conn_.get(), std::string(sql).c_str()));
  const ExecStatusType status = result.status();
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return Status::Ok();
  return Failed(result, in_transaction, what);
}

Result<Rows> Session::Query(std::string_view sql, std::span<const Param> params,
                            std::string_view what) {
  FATHOM_RETURN_IF_ERROR(Ready(what));
  std::vector<Oid> types;
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats(params.size(), 1);
  for (const Param& param : params) {
    types.push_back(static_cast<Oid>(param.type()));
    values.push_back(param.data());
    lengths.push_back(param.length());
  }
  const bool in_transaction = InTransaction();
  PgResult result(Pq().PQexecParams(conn_.get(), std::string(sql).c_str(), static_cast<int>(params.size()),
                               types.data(), values.data(), lengths.data(), formats.data(),
                               /*resultFormat=binary*/ 1));
  const ExecStatusType status = result.status();
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return Rows(std::move(result));
  return Failed(result, in_transaction, what);
}

Result<Statement> Session::Prepare(std::string_view sql, std::vector<Type> types,
                                   std::string_view what) {
  prepared_.push_back(Prepared{std::string(sql), std::move(types), std::string(what), 0});
  const size_t index = prepared_.size() - 1;
  Status status = Ready(what);
  if (status.ok()) status = EnsurePrepared(index);
  if (!status.ok()) {
    prepared_.pop_back();
    return status;
  }
  return Statement(index);
}

Status Session::EnsurePrepared(size_t index) {
  Prepared& prepared = prepared_[index];
  if (prepared.connection == connections_) return Status::Ok();
  std::vector<Oid> types;
  for (Type type : prepared.types) types.push_back(static_cast<Oid>(type));
  const bool in_transaction = InTransaction();
  PgResult result(Pq().PQprepare(conn_.get(), StatementName(index).c_str(), prepared.sql.c_str(),
                            static_cast<int>(types.size()), types.data()));
  if (result.status() != PGRES_COMMAND_OK) {
    return Failed(result, in_transaction, "prepare the statement to " + prepared.what);
  }
  prepared.connection = connections_;
  return Status::Ok();
}

Status Session::CheckParams(const Statement& statement, std::span<const Param> params, bool many) const {
  if (statement.index_ >= prepared_.size()) {
    return Status::Error(server_ + ": run a statement this session did not prepare");
  }
  const Prepared& prepared = prepared_[statement.index_];
  const size_t n = prepared.types.size();
  if (many ? n == 0 || params.size() % n != 0 : params.size() != n) {
    return Status::Error(server_ + ": " + prepared.what + ": " + std::to_string(params.size()) +
                         " parameters given, the statement takes " + std::to_string(n) +
                         (many ? " per run" : ""));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].type() != prepared.types[i % n]) {
      return Status::Error(server_ + ": " + prepared.what + ": parameter $" + std::to_string(i % n + 1) +
                           " has another type than the statement was prepared with");
    }
  }
  return Status::Ok();
}

Result<Rows> Session::Run(const Statement& statement, std::span<const Param> params) {
  FATHOM_RETURN_IF_ERROR(CheckParams(statement, params, /*many=*/false));
  const Prepared& prepared = prepared_[statement.index_];
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats(params.size(), 1);
  for (const Param& param : params) {
    values.push_back(param.data());
    lengths.push_back(param.length());
  }
  FATHOM_RETURN_IF_ERROR(Ready(prepared.what));
  FATHOM_RETURN_IF_ERROR(EnsurePrepared(statement.index_));
  const bool in_transaction = InTransaction();
  PgResult result(Pq().PQexecPrepared(conn_.get(), StatementName(statement.index_).c_str(),
                                 static_cast<int>(params.size()), values.data(), lengths.data(),
                                 formats.data(), /*resultFormat=binary*/ 1));
  const ExecStatusType status = result.status();
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return Rows(std::move(result));
  return Failed(result, in_transaction, prepared.what);
}

Result<int64_t> Session::RunEach(const Statement& statement, std::span<const Param> params) {
  FATHOM_RETURN_IF_ERROR(CheckParams(statement, params, /*many=*/true));
  const size_t n = prepared_[statement.index_].types.size();
  const std::string& what = prepared_[statement.index_].what;
  FATHOM_RETURN_IF_ERROR(Ready(what));
  FATHOM_RETURN_IF_ERROR(EnsurePrepared(statement.index_));
  const bool in_transaction = InTransaction();
  if (Pq().PQenterPipelineMode(conn_.get()) != 1) {
    return StatementError(server_, conn_.get(), nullptr, what + " (pipeline mode)");
  }
  int64_t affected = 0;
  Status status;
  for (size_t at = 0; at < params.size() && status.ok(); at += n * kPipelineRuns) {
    status = RunRoundTrip(statement.index_, params.subspan(at, std::min(n * kPipelineRuns, params.size() - at)),
                          in_transaction, affected);
  }
  if (conn_) Pq().PQexitPipelineMode(conn_.get());
  if (!status.ok()) return status;
  return affected;
}

Status Session::RunRoundTrip(size_t index, std::span<const Param> params, bool in_transaction,
                             int64_t& affected) {
  const Prepared& prepared = prepared_[index];
  const size_t n = prepared.types.size();
  const std::string name = StatementName(index);
  std::vector<const char*> values(n);
  std::vector<int> lengths(n);
  const std::vector<int> formats(n, 1);
  for (size_t at = 0; at < params.size(); at += n) {
    for (size_t i = 0; i < n; ++i) {
      values[i] = params[at + i].data();
      lengths[i] = params[at + i].length();
    }
    if (Pq().PQsendQueryPrepared(conn_.get(), name.c_str(), static_cast<int>(n), values.data(), lengths.data(),
                            formats.data(), /*resultFormat=binary*/ 1) != 1) {
      break;  // the connection failed: the results read below say how
    }
  }
  Pq().PQpipelineSync(conn_.get());
  // Each run's result is followed by a null one; the sync's result ends the round trip.
  Status status;
  while (conn_) {
    PgResult result(Pq().PQgetResult(conn_.get()));
    if (result.get() == nullptr) {
      if (Pq().PQstatus(conn_.get()) == CONNECTION_BAD) {
        Status lost = Failed(result, in_transaction, prepared.what);  // forgets the connection
        if (status.ok()) status = lost;
      }
      continue;
    }
    const ExecStatusType st = result.status();
    if (st == PGRES_PIPELINE_SYNC) break;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
      affected += Rows(std::move(result)).affected();
    } else if (st != PGRES_PIPELINE_ABORTED && status.ok()) {
      status = Failed(result, in_transaction, prepared.what);
    }
  }
  return status;
}

Status Session::Begin() {
  FATHOM_RETURN_IF_ERROR(Ready("BEGIN"));
  if (InTransaction()) {
    return Status::Error(server_ + ": BEGIN: a transaction is already open: commit or roll it back first");
  }
  return Exec("BEGIN", "BEGIN");
}

Status Session::Commit() {
  if (transaction_lost_) {
    return Status::Error(server_ + ": COMMIT: the transaction was lost with the connection to the "
                                   "server before COMMIT (nothing of it was committed): roll it back "
                                   "and run it again",
                         ConnectionLostCode());
  }
  if (!InTransaction()) {
    return Status::Error(server_ + ": COMMIT: no transaction is open (BEGIN first)");
  }
  PgResult result(Pq().PQexec(conn_.get(), "COMMIT"));
  if (result.status() == PGRES_COMMAND_OK) {
    if (std::strcmp(Pq().PQcmdStatus(result.get()), "COMMIT") == 0) return Status::Ok();
    // The server answers ROLLBACK to the COMMIT of a transaction an error aborted.
    return Status::Error(server_ + ": COMMIT: a statement of the transaction had failed, so the "
                                   "server rolled it back: nothing of it was committed");
  }
  if (!ConnectionLost(conn_.get(), result.get())) {
    // A deferred constraint that fails at COMMIT: the server rolled the transaction back.
    return StatementError(server_, conn_.get(), result.get(),
                          "COMMIT (the transaction was rolled back, nothing of it was committed)");
  }
  return Lost(result, "COMMIT", "whether the transaction was committed is unknown (the server may have "
                        "committed it before the connection broke): check before running it again");
}

Status Session::Rollback() {
  if (transaction_lost_) {
    transaction_lost_ = false;
    return Status::Ok();
  }
  if (!InTransaction()) return Status::Ok();
  PgResult result(Pq().PQexec(conn_.get(), "ROLLBACK"));
  if (result.status() == PGRES_COMMAND_OK) return Status::Ok();
  if (ConnectionLost(conn_.get(), result.get())) {
    // The server rolls back the transaction of a connection that breaks.
    conn_ = PgConn();
    return Status::Ok();
  }
  return StatementError(server_, conn_.get(), result.get(), "ROLLBACK");
}

Result<int64_t> Session::Copy(std::string_view copy_sql, const CopyRows& rows, std::string_view what) {
  FATHOM_RETURN_IF_ERROR(Ready(what));
  const bool in_transaction = InTransaction();
  PgResult start(Pq().PQexec(conn_.get(), std::string(copy_sql).c_str()));
  if (start.status() == PGRES_COMMAND_OK || start.status() == PGRES_TUPLES_OK) {
    return Status::Error(server_ + ": " + std::string(what) + ": the statement is not a COPY ... FROM STDIN");
  }
  if (start.status() != PGRES_COPY_IN) return Failed(start, in_transaction, what);

  auto put = [this](std::string_view data) {
    for (size_t at = 0; at < data.size(); at += kCopyPiece) {
      const size_t n = std::min(kCopyPiece, data.size() - at);
      if (Pq().PQputCopyData(conn_.get(), data.data() + at, static_cast<int>(n)) != 1) return false;
    }
    return true;
  };
  const bool sent = put(CopyRows::Header()) && put(rows.body()) && put(CopyRows::Trailer());
  // Ending the COPY with an error message makes the server drop what it received.
  Pq().PQputCopyEnd(conn_.get(), sent ? nullptr : "the client could not send all the rows");

  // The COPY's own result, then nothing: read every result so the connection is ready again.
  PgResult result(Pq().PQgetResult(conn_.get()));
  for (PgResult more(Pq().PQgetResult(conn_.get())); more.get() != nullptr;
       more = PgResult(Pq().PQgetResult(conn_.get()))) {
  }
  if (result.status() == PGRES_COMMAND_OK) return Rows(std::move(result)).affected();
  return Failed(result, in_transaction, what);
}

}  // namespace fathom::catalog::pg
