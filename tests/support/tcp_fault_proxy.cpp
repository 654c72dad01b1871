#include "support/tcp_fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <vector>

namespace fathom::testing {
namespace {

sockaddr_in Loopback(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

bool WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

struct Pair {
  int client = -1;
  int server = -1;
  std::string tail;  // the client's last bytes, to find a pattern split across reads
  void Close() {
    if (client >= 0) ::close(client);
    if (server >= 0) ::close(server);
    client = server = -1;
  }
};

}  // namespace

TcpFaultProxy::TcpFaultProxy(uint16_t target_port) : target_port_(target_port) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = Loopback(0);
  socklen_t len = sizeof a;
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(listen_fd_, 16) != 0 || ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    throw std::runtime_error("tcp fault proxy: cannot listen on loopback");
  }
  port_ = ntohs(a.sin_port);
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  thread_ = std::thread([this] { Relay(); });
}

TcpFaultProxy::~TcpFaultProxy() {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(stop_fd_, &one, sizeof one);
  thread_.join();
  ::close(listen_fd_);
  ::close(stop_fd_);
}

void TcpFaultProxy::Arm(std::string pattern, std::chrono::milliseconds refuse) {
  std::lock_guard lock(mu_);
  pattern_ = std::move(pattern);
  refuse_ = refuse;
}

void TcpFaultProxy::Relay() {
  std::vector<Pair> pairs;
  std::vector<char> buf(1 << 16);
  for (;;) {
    std::vector<pollfd> fds = {{stop_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const Pair& p : pairs) {
      fds.push_back({p.client, POLLIN, 0});
      fds.push_back({p.server, POLLIN, 0});
    }
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    if (fds[0].revents != 0) break;
    const size_t polled = pairs.size();  // a connection accepted below is polled next round
    if (fds[1].revents & POLLIN) {
      Pair p;
      p.client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      p.server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in target = Loopback(target_port_);
      if (std::chrono::steady_clock::now() >= refuse_until_ && p.client >= 0 && p.server >= 0 &&
          ::connect(p.server, reinterpret_cast<sockaddr*>(&target), sizeof target) == 0) {
        pairs.push_back(std::move(p));
      } else {
        p.Close();
      }
    }
    for (size_t i = 0; i < polled; ++i) {
      Pair& p = pairs[i];
      const pollfd& from_client = fds[2 + 2 * i];
      const pollfd& from_server = fds[3 + 2 * i];
      bool open = true;
      if (from_client.revents != 0) {
        const ssize_t n = ::recv(p.client, buf.data(), buf.size(), 0);
        if (n <= 0) {
          open = false;
        } else {
          bool cut = false;
          std::chrono::milliseconds refuse{0};
          {
            std::lock_guard lock(mu_);
            if (!pattern_.empty()) {
              const std::string seen = p.tail + std::string(buf.data(), static_cast<size_t>(n));
              cut = seen.find(pattern_) != std::string::npos;
              p.tail = seen.substr(seen.size() - std::min(seen.size(), pattern_.size()));
              if (cut) pattern_.clear();
              refuse = refuse_;
            }
          }
          open = WriteAll(p.server, buf.data(), static_cast<size_t>(n)) && !cut;
          if (cut) {
            usleep(100'000);  // let the server act on the request before its answer is lost
            refuse_until_ = std::chrono::steady_clock::now() + refuse;
            ++cuts_;
          }
        }
      }
      if (open && from_server.revents != 0) {
        const ssize_t n = ::recv(p.server, buf.data(), buf.size(), 0);
        open = n > 0 && WriteAll(p.client, buf.data(), static_cast<size_t>(n));
      }
      if (!open) {
        // RST rather than FIN, so neither end waits for more.
        linger hard{1, 0};
        ::setsockopt(p.client, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
        ::setsockopt(p.server, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
        p.Close();
      }
    }
    std::erase_if(pairs, [](const Pair& p) { return p.client < 0; });
  }
  for (Pair& p : pairs) p.Close();
}

}  // namespace fathom::testing
