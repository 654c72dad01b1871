// token_store.cpp — the tokens file: making, listing, revoking and checking tokens.
#include "web/token_store.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "core/account_names.h"
#include "fathom/event.h"
#include "fathom/web.h"

namespace fathom::web {
namespace {

const store::SqliteFileKind kTokensFile{
    .noun = "tokens file",
    .no_space = "no space left on the file system holding the tokens file",
    .no_space_remedy = "free space there",
    .io_remedy = "check the device holding it",
    .locked = "another fathom holds it locked; try again",
    .damaged = "it is damaged; move it away and make the tokens again (fathom token create)",
    .not_a_database = "it is not a fathom tokens file; give the path of one, or a new path",
    .read_only = "it cannot be written; check its owner and mode",
    .read_only_fs = "the file system holding it is mounted read-only",
    .read_only_fs_remedy = "give a tokens file on a writable file system",
};

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS tokens("
    " id TEXT NOT NULL, hash TEXT PRIMARY KEY, user TEXT NOT NULL, paths TEXT NOT NULL,"
    " admin INTEGER NOT NULL, created_ns INTEGER NOT NULL, expires_ns INTEGER NOT NULL);";

constexpr auto kRemember = std::chrono::seconds(2);

Result<store::Connection> OpenTokens(const std::string& path) {
  // Made by us mode 0600: the hashes are not secrets, but nobody else has to read them.
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Error("tokens file " + path + ": cannot open it: " + std::strerror(errno));
  ::close(fd);
  FATHOM_ASSIGN_OR_RETURN(store::Connection db,
                          store::Connection::Open(path, SQLITE_OPEN_READWRITE, 2000, {}, kTokensFile));
  FATHOM_RETURN_IF_ERROR(db.Exec(kSchema, "make its table"));
  return db;
}

std::string Hex(const unsigned char* bytes, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

TokenInfo InfoOfRow(const store::Statement& row) {
  TokenInfo info;
  info.id = row.ColumnText(0);
  info.user = row.ColumnText(1);
  for (const auto& p : nlohmann::json::parse(row.ColumnText(2), nullptr, false)) {
    if (p.is_string()) info.paths.push_back(p.get<std::string>());
  }
  info.admin = row.ColumnInt(3) != 0;
  info.created_ns = row.ColumnInt(4);
  info.expires_ns = row.ColumnInt(5);
  return info;
}

// The number of a user given by name, or as a number.
std::optional<uint32_t> UidOf(const std::string& user) {
  if (!user.empty() && user.size() <= 9 && user.find_first_not_of("0123456789") == std::string::npos) {
    return static_cast<uint32_t>(std::stoul(user));
  }
  return NameCache().UserId(user);
}

constexpr const char* kColumns = "id, user, paths, admin, created_ns, expires_ns";

}  // namespace

Result<std::string> NewToken() {
  unsigned char secret[32];
  if (RAND_bytes(secret, sizeof secret) != 1) return Status::Error("no random bytes from OpenSSL for a token");
  return "fathom_" + Hex(secret, sizeof secret);
}

std::string TokenHash(std::string_view token) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(token.data(), token.size(), md, &len, EVP_sha256(), nullptr);
  return Hex(md, len);
}

Result<std::string> CreateToken(const std::string& tokens_file, const TokenInfo& info) {
  if (info.user.empty()) return Status::Error("a token needs a user (--user NAME)");
  if (info.paths.empty()) return Status::Error("a token needs at least one granted path (--paths /data/project)");
  nlohmann::json paths = nlohmann::json::array();
  for (const std::string& p : info.paths) {
    auto clean = CleanPath(p);
    if (!clean) {
      return Status::Error("granted path '" + p +
                           "' is not an absolute path without '.', '..' or empty components");
    }
    paths.push_back(*clean);
  }
  FATHOM_ASSIGN_OR_RETURN(std::string token, NewToken());
  std::string hash = TokenHash(token);
  FATHOM_ASSIGN_OR_RETURN(store::Connection db, OpenTokens(tokens_file));
  FATHOM_ASSIGN_OR_RETURN(
      store::Statement insert,
      db.Prepare("INSERT INTO tokens(id, hash, user, paths, admin, created_ns, expires_ns) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)",
                 "add the token"));
  std::string id = hash.substr(0, 12);
  std::string paths_text = paths.dump();
  insert.BindText(1, id);
  insert.BindText(2, hash);
  insert.BindText(3, info.user);
  insert.BindText(4, paths_text);
  insert.BindInt(5, info.admin ? 1 : 0);
  insert.BindInt(6, NowNs());
  insert.BindInt(7, info.expires_ns);
  FATHOM_RETURN_IF_ERROR(db.StepDone(insert, "add the token"));
  return token;
}

Result<std::vector<TokenInfo>> ListTokens(const std::string& tokens_file) {
  FATHOM_ASSIGN_OR_RETURN(store::Connection db, OpenTokens(tokens_file));
  FATHOM_ASSIGN_OR_RETURN(
      store::Statement list,
      db.Prepare(std::string("SELECT ") + kColumns + " FROM tokens ORDER BY created_ns, id", "list the tokens"));
  std::vector<TokenInfo> tokens;
  int rc;
  while ((rc = sqlite3_step(list.get())) == SQLITE_ROW) tokens.push_back(InfoOfRow(list));
  if (rc != SQLITE_DONE) return db.Error(rc, "list the tokens");
  return tokens;
}

Status RevokeToken(const std::string& tokens_file, const std::string& id) {
  if (id.size() < 6 || id.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return Status::Error("token id '" + id + "' is not 6 to 12 hex digits (fathom token list shows them)");
  }
  FATHOM_ASSIGN_OR_RETURN(store::Connection db, OpenTokens(tokens_file));
  std::string pattern = id + "%";
  FATHOM_ASSIGN_OR_RETURN(store::Statement count,
                          db.Prepare("SELECT count(*) FROM tokens WHERE id LIKE ?", "find the token"));
  count.BindText(1, pattern);
  FATHOM_ASSIGN_OR_RETURN(int64_t n, db.QueryInt(count, "find the token"));
  if (n == 0) return Status::Error("no token has the id " + id + " (fathom token list shows them)");
  if (n > 1) return Status::Error("several tokens have ids beginning with " + id + "; give more digits");
  FATHOM_ASSIGN_OR_RETURN(store::Statement remove,
                          db.Prepare("DELETE FROM tokens WHERE id LIKE ?", "revoke the token"));
  remove.BindText(1, pattern);
  return db.StepDone(remove, "revoke the token");
}

Result<std::unique_ptr<TokenStore>> TokenStore::Open(const std::string& path) {
  FATHOM_ASSIGN_OR_RETURN(store::Connection db, OpenTokens(path));
  return std::unique_ptr<TokenStore>(new TokenStore(std::move(db)));
}

Result<std::optional<Access>> TokenStore::Check(std::string_view token) {
  std::string hash = TokenHash(token);
  std::lock_guard<std::mutex> lock(mu_);
  auto now = std::chrono::steady_clock::now();
  if (auto it = remembered_.find(hash); it != remembered_.end() && now - it->second.at < kRemember) {
    return it->second.access;
  }
  if (remembered_.size() > 10'000) remembered_.clear();  // wrong tokens must not grow it without end
  FATHOM_ASSIGN_OR_RETURN(
      store::Statement find,
      db_.Prepare(std::string("SELECT ") + kColumns + " FROM tokens WHERE hash = ?", "check a token"));
  find.BindText(1, hash);
  int rc = sqlite3_step(find.get());
  std::optional<Access> access;
  if (rc == SQLITE_ROW) {
    TokenInfo info = InfoOfRow(find);
    if (info.expires_ns == 0 || info.expires_ns > NowNs()) {
      access = Access{info.user, UidOf(info.user), info.paths, info.admin};
    }
  } else if (rc != SQLITE_DONE) {
    return db_.Error(rc, "check a token");
  }
  remembered_[hash] = {access, now};
  return access;
}

}  // namespace fathom::web
