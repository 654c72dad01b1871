#include "catalog/serve/query_server.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <ostream>
#include <streambuf>
#include <thread>
#include <vector>

#include "catalog/find/find.h"
#include "catalog/serve/query_protocol.h"
#include "fathom/catalog.h"

namespace fathom::catalog::serve {
namespace {

constexpr size_t kMaxWaiting = 64;

// An output stream's buffer over a client's descriptor. It stops writing after a failed
// write, or once the client has gone (its socket hung up: killed, or interrupted with ^C),
// checked before each write: a terminal takes what it is given even after its reader died.
class FdBuffer final : public std::streambuf {
 public:
  FdBuffer(int fd, int client) : fd_(fd), client_(client), buffer_(64 * 1024) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  ~FdBuffer() override { sync(); }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    pollfd client{client_, POLLRDHUP, 0};
    if (pbase() < pptr() && ::poll(&client, 1, 0) > 0) failed_ = true;
    const char* p = pbase();
    while (!failed_ && p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) failed_ = true;
      else p += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return failed_ ? -1 : 0;
  }

 private:
  int fd_, client_;
  std::vector<char> buffer_;
  bool failed_ = false;
};

// Why the server hands `args` back to the client: they act on or read the file system, which
// the client must do with its own rights. Empty when the server may answer.
std::string ActsOnFileSystem(const std::vector<std::string>& args) {
  static const char* const kActing[] = {"-delete", "-exec",   "-execdir", "-ok",     "-okdir",  "-fls",
                                        "-fprint", "-fprint0", "-fprintf", "-newer", "-anewer", "-cnewer",
                                        "-samefile"};
  for (const std::string& arg : args) {
    for (const char* acting : kActing) {
      if (arg == acting) return arg + " acts on or reads the file system: answered by the client";
    }
    if (arg.size() == 8 && arg.starts_with("-newer") && arg[7] != 't') {
      return arg + " reads a file: answered by the client";
    }
  }
  return {};
}

Result<Caller> PeerCaller(int sock) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return Status::FromErrno(errno, "reading the client's credentials");
  }
  Caller caller;
  caller.uid = cred.uid;
  caller.gids.push_back(cred.gid);
  std::vector<gid_t> groups(64);
  for (;;) {
    socklen_t bytes = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
    if (::getsockopt(sock, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &bytes) == 0) {
      groups.resize(bytes / sizeof(gid_t));
      break;
    }
    if (errno != ERANGE) return Status::FromErrno(errno, "reading the client's groups");
    groups.resize(bytes / sizeof(gid_t) + 1);
  }
  for (gid_t g : groups) {
    if (g != cred.gid) caller.gids.push_back(g);
  }
  return caller;
}

class Server final : public QueryServer {
 public:
  Server(QueryServerOptions options, std::string identity, std::vector<std::unique_ptr<Catalog>> catalogs,
         UniqueFd listener, UniqueFd wake)
      : options_(std::move(options)),
        identity_(std::move(identity)),
        catalogs_(std::move(catalogs)),
        listener_(std::move(listener)),
        wake_(std::move(wake)) {
    for (auto& catalog : catalogs_) workers_.emplace_back([this, c = catalog.get()] { Work(*c); });
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~Server() override { Stop(); }

  const std::string& socket_path() const override { return options_.socket_path; }
  uint64_t answered() const override { return answered_.load(); }

  void Stop() override {
    if (stopped_) return;
    stopped_ = true;
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_.get(), &one, sizeof one);
    acceptor_.join();
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : workers_) t.join();
    listener_.reset();
    ::unlink(options_.socket_path.c_str());
  }

 private:
  void Accept() {
    pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    for (;;) {
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
      if (fds[1].revents != 0) return;
      if ((fds[0].revents & POLLIN) == 0) continue;
      UniqueFd client(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!client.valid()) continue;
      std::unique_lock lock(mu_);
      if (waiting_.size() >= kMaxWaiting) {
        lock.unlock();
        SendReply(client.get(), QueryReply{std::nullopt, "the catalog server is busy", ""}).ok();
        continue;
      }
      waiting_.push_back(std::move(client));
      lock.unlock();
      ready_.notify_one();
    }
  }

  void Work(Catalog& catalog) {
    for (;;) {
      UniqueFd client;
      {
        std::unique_lock lock(mu_);
        ready_.wait(lock, [&] { return closing_ || !waiting_.empty(); });
        if (waiting_.empty()) return;
        client = std::move(waiting_.front());
        waiting_.pop_front();
      }
      QueryReply reply = Answer(client.get(), catalog);
      SendReply(client.get(), reply).ok();  // a client gone is no concern of the server's
    }
  }

  QueryReply Answer(int sock, Catalog& catalog) {
    const timeval patience{5, 0};  // a client that never finishes its request frees the thread
    ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    auto received = ReceiveRequest(sock);
    if (!received.ok()) return Refused(received.status().message());
    const QueryRequest& r = received->request;
    if (r.command != "find") return Refused("\"" + r.command + "\" is not a command this server answers (find)");
    if (r.catalog != identity_) return HandedBack("this server answers for the catalog " + identity_);
    if (r.cwd.empty() || r.cwd[0] != '/') return Refused("the working directory must be an absolute path");
    if (std::string why = ActsOnFileSystem(r.args); !why.empty()) return HandedBack(why);
    auto caller = PeerCaller(sock);
    if (!caller.ok()) return Refused(caller.status().message());
    std::unique_ptr<Catalog> view;
    if (caller->uid != 0) {
      if (!r.as_user.empty()) {
        return Refused("--as-user needs root: a user other than root always sees what its own permissions let it list");
      }
      view = VisibleTo(catalog, *caller);
    } else if (!r.as_user.empty()) {
      auto named = Caller::Named(r.as_user);
      if (!named.ok()) return Refused(named.status().message());
      caller = std::move(named).value();
      view = VisibleTo(catalog, *caller);
    }
    find::RunOptions run;
    run.cwd = r.cwd;
    run.uid = caller->uid;
    run.gids = caller->gids;
    int status = 1;
    {
      FdBuffer out_buffer(received->out.get(), sock), err_buffer(received->err.get(), sock);
      std::ostream out(&out_buffer), err(&err_buffer);
      try {
        status = find::RunFind(r.args, view ? *view : catalog, out, err, run);
      } catch (const std::exception& e) {
        err << "fathom find: " << e.what() << "\n";
      }
      out.flush();
      err.flush();
    }
    ++answered_;
    return QueryReply{status, "", ""};
  }

  static QueryReply Refused(std::string why) { return QueryReply{std::nullopt, "", std::move(why)}; }
  static QueryReply HandedBack(std::string why) { return QueryReply{std::nullopt, std::move(why), ""}; }

  QueryServerOptions options_;
  std::string identity_;
  std::vector<std::unique_ptr<Catalog>> catalogs_;
  UniqueFd listener_, wake_;
  std::thread acceptor_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<UniqueFd> waiting_;
  bool closing_ = false;
  bool stopped_ = false;
  std::atomic<uint64_t> answered_{0};
};

// Listens on `path`, replacing a socket file nobody answers on.
Result<UniqueFd> Listen(const std::string& path, unsigned mode) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    return Status::Error("the socket path \"" + path + "\" is empty or longer than " +
                         std::to_string(sizeof addr.sun_path - 1) + " bytes: give a shorter one with --socket");
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return Status::Error(path + " exists and is not a socket: remove it or give another path with --socket");
    }
    UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
      return Status::Error("another catalog server answers on " + path + ": stop it first, or give another path with --socket");
    }
    ::unlink(path.c_str());  // left by a server that died
  }
  UniqueFd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) return Status::FromErrno(errno, "creating a socket");
  if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return Status::FromErrno(errno, "binding the socket " + path);
  }
  if (::chmod(path.c_str(), mode) != 0 || ::listen(sock.get(), 128) != 0) {
    const int err = errno;
    ::unlink(path.c_str());
    return Status::FromErrno(err, "listening on " + path);
  }
  return sock;
}

}  // namespace

Result<std::unique_ptr<QueryServer>> QueryServer::Start(const QueryServerOptions& given) {
  QueryServerOptions options = given;
  if (options.socket_path.empty()) options.socket_path = DefaultSocketPath(options.catalog);
  if (options.socket_path.empty()) {
    return Status::Error("a PostgreSQL catalog has no socket beside it: give one with --socket PATH (and "
                         "find --server PATH)");
  }
  if (options.threads == 0) return Status::Error("--threads must be at least 1");
  FATHOM_ASSIGN_OR_RETURN(std::string identity, CatalogIdentity(options.catalog));
  std::vector<std::unique_ptr<Catalog>> catalogs;
  for (unsigned i = 0; i < options.threads; ++i) {
    CatalogOptions open;
    open.uri = options.catalog;
    open.read_only = true;
    open.remember_directory_paths = true;
    FATHOM_ASSIGN_OR_RETURN(std::unique_ptr<Catalog> catalog, Catalog::Open(open));
    catalogs.push_back(std::move(catalog));
  }
  // Answers are written to the clients' pipes: one that closes its end must not end the server.
  ::signal(SIGPIPE, SIG_IGN);
  FATHOM_ASSIGN_OR_RETURN(UniqueFd listener, Listen(options.socket_path, options.socket_mode));
  UniqueFd wake(::eventfd(0, EFD_CLOEXEC));
  if (!wake.valid()) return Status::FromErrno(errno, "creating an eventfd");
  return std::unique_ptr<QueryServer>(
      new Server(std::move(options), std::move(identity), std::move(catalogs), std::move(listener), std::move(wake)));
}

}  // namespace fathom::catalog::serve
