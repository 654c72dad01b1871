// http_receiver.h — an HTTP server on a loopback port for tests of webhooks (cpp-httplib;
// link PkgConfig::HTTPLIB): keeps every POST to its paths and answers the status and headers
// the test sets (204 until told otherwise), after holding each request as long as told (not at
// all until then), and when it answered each. The server runs on its
// own thread from construction to destruction; every member may be called from any thread.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fathom::testing {

class HttpReceiver {
 public:
  // On `port`, or on any free port when 0.
  explicit HttpReceiver(const std::vector<std::string>& paths = {"/hook"}, int port = 0) {
    for (const std::string& path : paths) {
      server_.Post(path, [this](const httplib::Request& req, httplib::Response& res) {
        std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms_.load()));
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(req);
        answers_.push_back({status_, std::chrono::steady_clock::now()});
        res.status = status_;
        for (const auto& [k, v] : headers_) res.set_header(k, v);
      });
    }
    if (port == 0) {
      port_ = server_.bind_to_any_port("127.0.0.1");
    } else if (server_.bind_to_port("127.0.0.1", port)) {
      port_ = port;
    }
    if (port_ <= 0) throw std::runtime_error("HttpReceiver: cannot listen on 127.0.0.1:" + std::to_string(port));
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~HttpReceiver() {
    server_.stop();
    thread_.join();
  }
  HttpReceiver(const HttpReceiver&) = delete;
  HttpReceiver& operator=(const HttpReceiver&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "/hook") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // What every later request is answered.
  void Answer(int status, std::map<std::string, std::string> headers = {}) {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = status;
    headers_ = std::move(headers);
  }
  // How long every later request is held before it is answered (a slow endpoint).
  void Hold(std::chrono::milliseconds hold) { hold_ms_ = hold.count(); }
  std::vector<httplib::Request> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  // What each request of Requests() was answered, and when.
  struct Answered {
    int status = 0;
    std::chrono::steady_clock::time_point at;
  };
  std::vector<Answered> Answers() {
    std::lock_guard<std::mutex> lock(mu_);
    return answers_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int64_t> hold_ms_{0};
  std::mutex mu_;
  int status_ = 204;
  std::map<std::string, std::string> headers_;
  std::vector<httplib::Request> requests_;
  std::vector<Answered> answers_;
};

}  // namespace fathom::testing
