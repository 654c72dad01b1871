#include "support/nats_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace fathom::testing {
namespace {

// Debian installs it in /usr/sbin; elsewhere it is looked up in PATH.
constexpr const char* kNatsServerPaths[] = {"/usr/sbin/nats-server", "/usr/bin/nats-server"};

constexpr int kStartAttempts = 5;

}  // namespace

std::vector<int> FreePorts(size_t n) {
  std::vector<int> fds;
  std::vector<int> ports;
  for (size_t i = 0; i < n; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(std::string("socket: ") + strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      close(fd);
      throw std::runtime_error(std::string("bind 127.0.0.1:0: ") + strerror(errno));
    }
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    fds.push_back(fd);
    ports.push_back(ntohs(addr.sin_port));
  }
  for (int fd : fds) close(fd);
  return ports;
}

namespace {

// GET http://127.0.0.1:port/path; the status code, or 0 when nothing answers.
int HttpStatus(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  int status = 0;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[256];
      ssize_t n = read(fd, buf, sizeof buf - 1);
      if (n > 12) {
        buf[n] = '\0';
        status = atoi(buf + 9);  // "HTTP/1.0 200 OK"
      }
    }
  }
  close(fd);
  return status;
}

}  // namespace

NatsServers::NatsServers(NatsServerOptions options) : options_(options) {
  if (options_.nodes < 1) throw std::runtime_error("NatsServers needs at least one node");
  const size_t n = static_cast<size_t>(options_.nodes);
  nodes_.resize(n);
  // A port found free can be taken by another process (another test's connection) before
  // nats-server binds it: then start again on other ports.
  for (int attempt = 1;; ++attempt) {
    const std::vector<int> ports = FreePorts(3 * n);
    for (size_t i = 0; i < n; ++i) {
      Node& node = nodes_[i];
      node.name = "n" + std::to_string(i);
      node.client_port = ports[3 * i];
      node.http_port = ports[3 * i + 1];
      node.cluster_port = ports[3 * i + 2];
      node.config_path = dir_ / (node.name + ".conf");
      node.log_path = dir_ / (node.name + ".log");
      std::remove(node.log_path.c_str());
    }
    try {
      for (size_t i = 0; i < n; ++i) WriteConfig(i);
      for (size_t i = 0; i < n; ++i) Spawn(i);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      for (size_t i = 0; i < n; ++i) WaitReady(i, deadline);
      return;
    } catch (const std::runtime_error& e) {
      for (size_t i = 0; i < n; ++i) Kill(static_cast<int>(i));
      const bool port_taken = std::string_view(e.what()).find("address already in use") != std::string_view::npos;
      if (!port_taken || attempt == kStartAttempts) throw;
    }
  }
}

NatsServers::~NatsServers() {
  for (size_t i = 0; i < nodes_.size(); ++i) Kill(static_cast<int>(i));
}

std::string NatsServers::url(int i) const {
  return "nats://127.0.0.1:" + std::to_string(nodes_[static_cast<size_t>(i)].client_port);
}

std::string NatsServers::urls() const {
  std::string all;
  for (int i = 0; i < size(); ++i) all += (i == 0 ? "" : ",") + url(i);
  return all;
}

std::string NatsServers::name(int i) const { return nodes_[static_cast<size_t>(i)].name; }

int NatsServers::IndexOf(const std::string& server_name) const {
  for (int i = 0; i < size(); ++i) {
    if (name(i) == server_name) return i;
  }
  return -1;
}

void NatsServers::WriteConfig(size_t i) {
  const Node& node = nodes_[i];
  std::ofstream conf(node.config_path);
  conf << "server_name: " << node.name << "\n"
       << "listen: 127.0.0.1:" << node.client_port << "\n"
       << "http: 127.0.0.1:" << node.http_port << "\n";
  if (options_.max_payload > 0) conf << "max_payload: " << options_.max_payload << "\n";
  conf << "jetstream {\n  store_dir: \"" << (dir_ / node.name) << "\"\n}\n";
  if (nodes_.size() > 1) {
    conf << "cluster {\n  name: fathom-test\n  listen: 127.0.0.1:" << node.cluster_port << "\n  routes: [\n";
    for (size_t j = 0; j < nodes_.size(); ++j) {
      if (j != i) conf << "    nats-route://127.0.0.1:" << nodes_[j].cluster_port << "\n";
    }
    conf << "  ]\n}\n";
  }
  if (!conf) throw std::runtime_error("cannot write " + node.config_path);
}

void NatsServers::Spawn(size_t i) {
  Node& node = nodes_[i];
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    int log = open(node.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int devnull = open("/dev/null", O_RDONLY);
    if (log < 0 || devnull < 0) _exit(126);
    dup2(devnull, 0);
    dup2(log, 1);
    dup2(log, 2);
    close_range(3, ~0U, 0);
    for (const char* path : kNatsServerPaths) {
      execl(path, path, "-c", node.config_path.c_str(), static_cast<char*>(nullptr));
    }
    execlp("nats-server", "nats-server", "-c", node.config_path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  node.pid = pid;
}

void NatsServers::WaitReady(size_t i, std::chrono::steady_clock::time_point deadline) {
  Node& node = nodes_[i];
  while (std::chrono::steady_clock::now() < deadline) {
    if (HttpStatus(node.http_port, "/healthz") == 200) return;
    int status = 0;
    if (waitpid(node.pid, &status, WNOHANG) == node.pid) {
      node.pid = -1;
      throw std::runtime_error("nats-server " + node.name + " exited at start; its log:\n" + Log(static_cast<int>(i)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("nats-server " + node.name + " did not serve JetStream within 30 s; its log:\n" +
                           Log(static_cast<int>(i)));
}

void NatsServers::Kill(int i) {
  Node& node = nodes_[static_cast<size_t>(i)];
  if (node.pid <= 0) return;
  kill(node.pid, SIGKILL);
  int status = 0;
  while (waitpid(node.pid, &status, 0) < 0 && errno == EINTR) {
  }
  node.pid = -1;
}

void NatsServers::Restart(int i) {
  Kill(i);
  Spawn(static_cast<size_t>(i));
  WaitReady(static_cast<size_t>(i), std::chrono::steady_clock::now() + std::chrono::seconds(30));
}

std::string NatsServers::Log(int i) const {
  std::ifstream in(nodes_[static_cast<size_t>(i)].log_path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace fathom::testing
