#include "support/postgres_server.h"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/nats_server.h"  // FreePorts

namespace fathom::testing {
namespace {

constexpr const char* kBinDir = "/usr/lib/postgresql/15/bin";
constexpr const char* kPackage = "postgresql-15";
constexpr int kStartAttempts = 5;
constexpr auto kReadyTimeout = std::chrono::seconds(30);

std::string Program(const char* name) { return std::string(kBinDir) + "/" + name; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Starts argv[0] as uid/gid (when running as root) with stdout and stderr appended to
// `log_path` and stdin from /dev/null.
pid_t SpawnAs(const std::vector<std::string>& argv, uid_t uid, gid_t gid, const std::string& log_path) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const bool drop = geteuid() == 0;
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (log < 0 || devnull < 0) _exit(126);
    dup2(devnull, 0);
    dup2(log, 1);
    dup2(log, 2);
    if (drop && (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) _exit(125);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int WaitExit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

void GiveTo(const std::string& path, uid_t uid, gid_t gid) {
  if (geteuid() == 0 && chown(path.c_str(), uid, gid) != 0) {
    throw std::runtime_error("chown " + path + ": " + strerror(errno));
  }
}

}  // namespace

PostgresServer::PostgresServer() : uid_(geteuid()), gid_(getegid()) {
  InitCluster();
  // A port found free can be taken by another process before the server binds it: then
  // start again on another one.
  for (int attempt = 1;; ++attempt) {
    port_ = FreePorts(1)[0];
    std::remove((dir_ / "server.log").c_str());
    try {
      Spawn();
      WaitReady();
      break;
    } catch (const std::runtime_error& e) {
      const bool port_taken = std::string_view(e.what()).find("Address already in use") != std::string_view::npos;
      if (!port_taken || attempt == kStartAttempts) throw;
    }
  }
  // FILE_COPY copies template1's files; the default (WAL_LOG) writes them all to the WAL,
  // which took 1.3 s of a loaded machine.
  Exec(std::string("CREATE DATABASE ") + kDatabase + " STRATEGY FILE_COPY", "postgres");
}

PostgresServer::~PostgresServer() {
  if (running()) Shutdown(SIGQUIT);  // the data is removed: nothing to save
}

std::string PostgresServer::Uri(const std::string& user, const std::string& database) const {
  return "postgresql://" + user + "@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

void PostgresServer::InitCluster() {
  for (const char* name : {"initdb", "postgres"}) {
    if (access(Program(name).c_str(), X_OK) != 0) {
      throw std::runtime_error("PostgreSQL server program " + Program(name) + " not found: install Debian's " +
                               kPackage + " package (scripts/install-deps.sh does)");
    }
  }
  if (geteuid() == 0) {
    const passwd* account = getpwnam("postgres");
    if (account == nullptr) {
      throw std::runtime_error(std::string("PostgreSQL refuses to run as root and there is no 'postgres' account to run "
                                           "it as: install Debian's ") +
                               kPackage + " package, which creates it, or run the tests as another user");
    }
    uid_ = account->pw_uid;
    gid_ = account->pw_gid;
    // The server's account must reach its data and socket dirs inside the temp dir.
    if (chmod(dir_.path().c_str(), 0711) != 0) throw std::runtime_error("chmod " + dir_.path() + ": " + strerror(errno));
  }
  for (const char* sub : {"data", "socket"}) {
    const std::string path = dir_ / sub;
    if (mkdir(path.c_str(), 0700) != 0) throw std::runtime_error("mkdir " + path + ": " + strerror(errno));
    GiveTo(path, uid_, gid_);
  }
  const std::string log = dir_ / "initdb.log";
  const int status = WaitExit(SpawnAs({Program("initdb"), "--pgdata=" + dir_ / "data", "--username=" + std::string(kSuperuser),
                                        "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"},
                                       uid_, gid_, log));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("initdb failed (status " + std::to_string(status) + "); its output:\n" + ReadFile(log));
  }
  // Rewritten in place, so that it keeps its owner.
  std::ofstream hba(dir_ / "data/pg_hba.conf", std::ios::trunc);
  hba << "local all all trust\n"
      << "host all " << kSuperuser << " 127.0.0.1/32 trust\n"
      << "host all all 127.0.0.1/32 scram-sha-256\n";
  if (!hba) throw std::runtime_error("cannot write " + dir_ / "data/pg_hba.conf");
}

void PostgresServer::Spawn() {
  pid_ = SpawnAs({Program("postgres"), "-D", dir_ / "data", "-p", std::to_string(port_), "-c",
                  "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + socket_dir(), "-c",
                  "fsync=off", "-c", "full_page_writes=off", "-c", "shared_buffers=32MB"},
                 uid_, gid_, dir_ / "server.log");
}

void PostgresServer::WaitReady() {
  const std::string conninfo = "host=127.0.0.1 port=" + std::to_string(port_) + " user=" + kSuperuser +
                               " dbname=postgres connect_timeout=2";
  const auto deadline = std::chrono::steady_clock::now() + kReadyTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (PQping(conninfo.c_str()) == PQPING_OK) return;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("postgres exited at start; its log:\n" + Log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Shutdown(SIGQUIT);
  throw std::runtime_error("postgres did not accept connections within 30 s; its log:\n" + Log());
}

void PostgresServer::Shutdown(int signal) {
  if (pid_ <= 0) return;
  kill(pid_, signal);
  WaitExit(pid_);
  pid_ = -1;
}

void PostgresServer::Stop() { Shutdown(SIGINT); }

void PostgresServer::Kill() { Shutdown(SIGQUIT); }

void PostgresServer::Start() {
  if (running()) return;
  Spawn();
  WaitReady();
}

void PostgresServer::Exec(const std::string& sql, const std::string& database) const {
  const std::string conninfo = "host=127.0.0.1 port=" + std::to_string(port_) + " user=" + kSuperuser +
                               " dbname=" + database;
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::string error;
  if (PQstatus(conn) != CONNECTION_OK) {
    error = PQerrorMessage(conn);
  } else {
    PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);  // "... does not exist, skipping"
    PGresult* result = PQexec(conn, sql.c_str());
    const ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) error = PQresultErrorMessage(result);
    PQclear(result);
  }
  PQfinish(conn);
  if (!error.empty()) throw std::runtime_error("test server: " + sql + ": " + error);
}

std::string PostgresServer::Log() const { return ReadFile(dir_ / "server.log"); }

}  // namespace fathom::testing
