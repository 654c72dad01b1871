// served_tree.cpp — ServedTree: a watched, scanned tree and the server over it.
#include "web/served_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "fathom/store.h"

namespace fathom::testing {
namespace {

void WriteFile(const std::string& path, size_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << std::string(bytes, 'x');
}

void SetMtimeDaysAgo(const std::string& path, int days) {
  struct timespec times[2];
  times[0].tv_sec = time(nullptr) - int64_t{days} * 86400 - 3600;
  times[0].tv_nsec = 0;
  times[1] = times[0];
  if (utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) throw std::runtime_error("utimensat " + path);
}

void Must(const RunResult& r, const std::string& what) {
  if (r.exit_code != 0) throw std::runtime_error(what + " failed: " + r.err);
}

}  // namespace

std::string TokenFor(const std::string& tokens, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {FathomBinary(), "token", "create", "--tokens", tokens};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = Run(argv);
  Must(r, "fathom token create");
  return r.out.substr(0, r.out.find('\n'));
}

ServedTree::ServedTree(const ServeExtras& extras)
    : tree_(dir_ / "tree"), store_(dir_ / "events.db"), catalog_(dir_ / "catalog.db"), tokens_(dir_ / "tokens.db") {
  mkdir(tree_.c_str(), 0755);
  mkdir(Path("a").c_str(), 0755);
  mkdir(Path("a/b").c_str(), 0755);
  mkdir(Path("c").c_str(), 0755);
  for (int i = 1; i <= 20; ++i) WriteFile(Path("a/f" + std::to_string(i)), static_cast<size_t>(i) * 100);
  if (chown(Path("a/f1").c_str(), 1000, 1000) != 0 || chown(Path("a/f2").c_str(), 1000, 1000) != 0) {
    throw std::runtime_error("chown: the web tests run as root");
  }
  watch_ = std::make_unique<Subprocess>(
      std::vector<std::string>{FathomBinary(), "watch", "-r", tree_, "--store", store_, "-q", "--sync", "normal"});
  if (!watch_->WaitForStderr("watches established", std::chrono::seconds(30))) {
    throw std::runtime_error("fathom watch did not start: " + watch_->stderr_text());
  }
  WriteFile(Path("a/b/deep.dat"), 70000);
  if (chown(Path("a/b/deep.dat").c_str(), 1001, 1001) != 0) throw std::runtime_error("chown deep.dat");
  WriteFile(Path("c/old.txt"), 10);
  SetMtimeDaysAgo(Path("c/old.txt"), 400);
  WriteFile(Path("c/mid.txt"), 5);
  SetMtimeDaysAgo(Path("c/mid.txt"), 10);
  WriteFile(Path("c/gone.txt"), 7);
  if (!WaitForStored(Path("c/gone.txt"), "CLOSE_WRITE")) throw std::runtime_error("the watch stored no event of gone.txt");
  Must(Run({FathomBinary(), "scan", "--catalog", catalog_, "-q", tree_}), "fathom scan");
  unlink(Path("c/gone.txt").c_str());
  Must(Run({FathomBinary(), "scan", "--catalog", catalog_, "-q", tree_}), "fathom scan (again)");
  if (!WaitForStored(Path("c/gone.txt"), "DELETE")) throw std::runtime_error("the watch stored no DELETE of gone.txt");

  admin_token_ = TokenFor(tokens_, {"--user", "root", "--paths", "/", "--admin"});
  narrow_token_ = TokenFor(tokens_, {"--user", "nobody", "--paths", Path("a")});
  web::ServeOptions& options = options_;
  options.listen = "127.0.0.1:0";
  options.store = store_;
  options.catalog = catalog_;
  options.tokens = tokens_;
  if (!extras.policies.empty()) options.policies = File(extras.policies);
  if (!extras.rules.empty()) options.rules = File(extras.rules);
  options.quiet = true;
  options.threads = 4;
  options.max_streams = 4;
  auto started = web::WebServer::Start(options);
  if (!started.ok()) throw std::runtime_error("the server did not start: " + started.status().message());
  server_ = std::move(started).value();
}

ServedTree::~ServedTree() {
  if (server_) server_->Stop();
  if (watch_) {
    watch_->Signal(SIGTERM);
    watch_->Wait();
  }
}

bool ServedTree::WaitForStored(const std::string& path, const std::string& kind) const {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto wanted = ParseKind(kind);
  while (std::chrono::steady_clock::now() < deadline) {
    StoreOptions options;
    options.path = store_;
    options.read_only = true;
    auto store = EventStore::Open(options);
    bool found = false;
    if (store.ok()) {
      Status s = store.value()->Replay({}, [&](const Event& e) {
        found = e.path == path && (e.mask & *wanted);
        return !found;
      });
      (void)s;
    }
    if (found) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

Reply ServedTree::Send(const std::string& method, const std::string& target, const httplib::Headers& headers,
                       const std::string& body, const std::string& content_type) const {
  return SendTo(*server_, method, target, headers, body, content_type);
}

Reply ServedTree::SendTo(const web::WebServer& server, const std::string& method, const std::string& target,
                         const httplib::Headers& headers, const std::string& body, const std::string& content_type) {
  std::string url = server.Url();
  std::string host_port = url.substr(url.find("//") + 2);
  host_port.pop_back();
  httplib::Client client("http://" + host_port);
  client.set_read_timeout(30, 0);
  httplib::Result r = method == "POST"     ? client.Post(target.c_str(), headers, body, content_type.c_str())
                      : method == "DELETE" ? client.Delete(target.c_str(), headers)
                                           : client.Get(target.c_str(), headers);
  Reply reply;
  if (!r) return reply;
  reply.status = r->status;
  reply.body = r->body;
  reply.headers = r->headers;
  reply.json = nlohmann::json::parse(r->body, nullptr, false);
  return reply;
}

Reply ServedTree::Get(const std::string& target, const std::string& token) const {
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  return Send("GET", target, headers);
}

std::string Query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string q;
  for (const auto& [k, v] : params) {
    q += q.empty() ? "?" : "&";
    q += k + "=" + httplib::detail::encode_query_param(v);
  }
  return q;
}

}  // namespace fathom::testing
