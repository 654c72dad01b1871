// token_store.h — the tokens file (SQLite) as the server reads it: a token checked against the
// kept hashes, with what it grants. Answers are remembered for two seconds, so that a burst of
// requests reads the file once while new and revoked tokens still take effect quickly; an
// expired or revoked token is refused. Ownership: owns its connection. Threads: any (one lock).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "fathom/status.h"
#include "store/sqlite_handle.h"
#include "web/access.h"

namespace fathom::web {

// A new token: "fathom_" and 64 hex digits from OpenSSL's random bytes.
Result<std::string> NewToken();
// The SHA-256 of `token`, as 64 hex digits.
std::string TokenHash(std::string_view token);

class TokenStore {
 public:
  // Opens (and creates, with its schema) the tokens file.
  static Result<std::unique_ptr<TokenStore>> Open(const std::string& path);

  // The access `token` gives; nullopt for a token the file does not hold (or expired, or
  // revoked).
  Result<std::optional<Access>> Check(std::string_view token);

 private:
  struct Remembered {
    std::optional<Access> access;
    std::chrono::steady_clock::time_point at;
  };
  explicit TokenStore(store::Connection db) : db_(std::move(db)) {}
  std::mutex mu_;
  store::Connection db_;
  std::map<std::string, Remembered, std::less<>> remembered_;
};

}  // namespace fathom::web
