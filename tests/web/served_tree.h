// served_tree.h — a real run to serve: a tree of files with known owners, sizes and times,
// `fathom watch` storing its events (still running, so that files made later reach the live
// stream), `fathom scan` into a catalog, and `fathom serve`'s server started in the test's
// process on a loopback port, with a tokens file. Plus an HTTP client for it (cpp-httplib).
#pragma once

#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fathom/web.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::testing {

struct Reply {
  int status = 0;
  std::string body;
  nlohmann::json json;  // the body parsed (discarded when it is not JSON)
  httplib::Headers headers;
};

// Files the server is given beyond the store, the catalog and the tokens: names in the
// served tree's directory (ServedTree::File), which the test writes (the server reads them at
// each call); "" none.
struct ServeExtras {
  std::string policies;  // --policies
  std::string rules;     // --rules
};

class ServedTree {
 public:
  // The tree: TREE/a (files a/f1..a/f20 of i*100 bytes, f1 and f2 owned by uid 1000),
  // TREE/a/b/deep.dat (70000 bytes, uid 1001), TREE/c (c/old.txt: 10 bytes, mtime 400 days
  // ago; c/mid.txt: 5 bytes, mtime 10 days ago), TREE/c/gone.txt removed after the scan and
  // scanned again (a removed entry). Events of the changes made after the watch started.
  explicit ServedTree(const ServeExtras& extras = {});
  ~ServedTree();

  const std::string& tree() const { return tree_; }
  std::string Path(const std::string& rel) const { return tree_ + "/" + rel; }
  const std::string& store() const { return store_; }
  const std::string& catalog() const { return catalog_; }
  const std::string& tokens() const { return tokens_; }
  // A file beside the tree (not watched).
  std::string File(const std::string& name) const { return dir_ / name; }
  // The options the server was started with (to start another one differently).
  const web::ServeOptions& options() const { return options_; }
  web::WebServer& server() { return *server_; }
  // An admin token granting "/".
  const std::string& admin_token() const { return admin_token_; }
  // A token for user "nobody" granting TREE/a only.
  const std::string& narrow_token() const { return narrow_token_; }

  // A request to the server: GET unless `method` says otherwise.
  Reply Get(const std::string& target, const std::string& token) const;
  Reply Send(const std::string& method, const std::string& target, const httplib::Headers& headers,
             const std::string& body = "", const std::string& content_type = "application/json") const;
  // The same to another server.
  static Reply SendTo(const web::WebServer& server, const std::string& method, const std::string& target,
                      const httplib::Headers& headers, const std::string& body = "",
                      const std::string& content_type = "application/json");
  // Waits until the store holds an event of `kind` about `path` (up to 20 s).
  bool WaitForStored(const std::string& path, const std::string& kind) const;

 private:
  TempDir dir_;
  std::string tree_, store_, catalog_, tokens_;
  std::unique_ptr<Subprocess> watch_;
  web::ServeOptions options_;
  std::unique_ptr<web::WebServer> server_;
  std::string admin_token_, narrow_token_;
};

// A new token (`fathom token create --tokens TOKENS ARGS...`); throws when it fails.
std::string TokenFor(const std::string& tokens, const std::vector<std::string>& args);

// "?a=1&b=x%2Fy" from pairs, values URL-encoded.
std::string Query(const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace fathom::testing
