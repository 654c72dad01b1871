// http_receiver.h — an HTTP server on a loopback port for tests of webhooks (cpp-httplib;
// link PkgConfig::HTTPLIB): keeps every POST to its paths and answers the status and headers
// the test sets (204 until told otherwise). The server runs on its own thread from
// construction to destruction; every member may be called from any thread.
#pragma once

#include <httplib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fathom::testing {

class HttpReceiver {
 public:
  explicit HttpReceiver(const std::vector<std::string>& paths = {"/hook"}) {
    for (const std::string& path : paths) {
      server_.Post(path, [this](const httplib::Request& req, httplib::Response& res) {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(req);
        res.status = status_;
        for (const auto& [k, v] : headers_) res.set_header(k, v);
      });
    }
    port_ = server_.bind_to_any_port("127.0.0.1");
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
  std::vector<httplib::Request> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  int status_ = 204;
  std::map<std::string, std::string> headers_;
  std::vector<httplib::Request> requests_;
};

}  // namespace fathom::testing
