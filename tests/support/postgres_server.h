// postgres_server.h — a throwaway PostgreSQL 15 server for tests (Debian's postgresql-15
// programs in /usr/lib/postgresql/15/bin), never the cluster the package runs on port 5432.
//
// The constructor makes a cluster in a temp dir (initdb, UTF-8, C locale), starts it on a
// free loopback port with its unix socket inside the temp dir and fsync off (a test server
// needs no durability across machine crashes), waits until it accepts connections, and
// creates the database "fathom_test". Authentication (pg_hba.conf): the superuser "fathom"
// is trusted on loopback; every other role logs in with its password (scram-sha-256), so
// tests can make users with passwords and see wrong ones refused. Nothing but loopback
// listens.
//
// initdb and postgres refuse to run as root: a test run as root runs them as the
// "postgres" account, which Debian's postgresql-common (installed with postgresql-15 by
// scripts/install-deps.sh) creates; the data and socket dirs are given to it.
//
// The server can be stopped (fast shutdown), killed (immediate shutdown: no checkpoint,
// crash recovery at the next start, as after a crash) and started again on the same port
// and data. Failures throw std::runtime_error naming the missing package or holding the
// server's log. The destructor stops the server and removes everything. One thread per
// object.
#pragma once

#include <sys/types.h>

#include <string>

#include "support/temp_dir.h"

namespace fathom::testing {

class PostgresServer {
 public:
  PostgresServer();
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  static constexpr const char* kSuperuser = "fathom";
  static constexpr const char* kDatabase = "fathom_test";

  int port() const { return port_; }
  // postgresql://fathom@127.0.0.1:PORT/fathom_test
  std::string uri() const { return Uri(kSuperuser, kDatabase); }
  // postgresql://USER@127.0.0.1:PORT/DATABASE
  std::string Uri(const std::string& user, const std::string& database) const;
  // The directory of the server's unix socket.
  std::string socket_dir() const { return dir_ / "socket"; }
  bool running() const { return pid_ > 0; }

  // Fast shutdown: sessions are ended, the server checkpoints and exits. Waits for it.
  void Stop();
  // Immediate shutdown (SIGQUIT), as a crash: sessions die mid-statement. Waits for it.
  void Kill();
  // Starts the server again on the same port and data; returns once it accepts connections.
  void Start();

  // Runs `sql` as the superuser in `database`; throws with the server's message on failure.
  void Exec(const std::string& sql, const std::string& database = kDatabase) const;
  // The server's log so far.
  std::string Log() const;

 private:
  void InitCluster();
  void Spawn();
  void WaitReady();
  void Shutdown(int signal);

  TempDir dir_;
  uid_t uid_ = 0;   // the account the server runs as (the caller's unless that is root)
  gid_t gid_ = 0;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace fathom::testing
