// The catalog server (query_server.h) in process, over its real Unix socket: answers written
// to the client's own descriptors as find answers in process, expressions that act on the
// file system and other catalogs handed back, hostile requests refused while it keeps
// serving, and one server per socket.
#include "catalog/serve/query_server.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

#include "catalog/catalog_test_util.h"
#include "catalog/find/find.h"
#include "catalog/serve/query_client.h"
#include "catalog/serve/query_protocol.h"
#include "support/fs_ops.h"
#include "support/temp_dir.h"

namespace fathom::catalog::serve {
namespace {

using testing::At;
using testing::DirAttrs;
using testing::FileAttrs;

struct Answer {
  std::optional<QueryReply> reply;
  std::string error;  // the client's side failed
  std::string out, err;
};

std::string Drain(int fd) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  return text;
}

UniqueFd Connect(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  UniqueFd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_EQ(::connect(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  return sock;
}

class QueryServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = dir_ / "cat.db";
    auto catalog = testing::OpenCatalogOrDie(uri_);
    auto b = FATHOM_TEST_VALUE(catalog->Begin());
    EntryId r = FATHOM_TEST_VALUE(b->PutRoot("/r", DirAttrs(1), At(1)));
    EntryId a = FATHOM_TEST_VALUE(b->Put(r, "a", DirAttrs(2), At(1)));
    Attrs locked = DirAttrs(3, 0);
    locked.mode = S_IFDIR | 0700;  // root's, closed to others
    EntryId secret = FATHOM_TEST_VALUE(b->Put(r, "secret", locked, At(1)));
    FATHOM_TEST_VALUE(b->Put(a, "big.h5", FileAttrs(4, 5 << 20), At(1)));
    FATHOM_TEST_VALUE(b->Put(a, "small.txt", FileAttrs(5, 10), At(1)));
    FATHOM_TEST_VALUE(b->Put(secret, "hidden.h5", FileAttrs(6, 7 << 20, 0), At(1)));
    ASSERT_TRUE(b->Commit().ok());
    local_ = testing::OpenCatalogOrDie(uri_, /*read_only=*/true);
    QueryServerOptions options;
    options.catalog = uri_;
    server_ = FATHOM_TEST_VALUE(QueryServer::Start(options));
    identity_ = FATHOM_TEST_VALUE(CatalogIdentity(uri_));
  }

  QueryRequest Find(std::vector<std::string> args) { return QueryRequest{"find", identity_, "/", "", std::move(args)}; }

  // Sends `request` with pipes for output and error, as a client would.
  Answer Ask(const QueryRequest& request) {
    int out[2], err[2];
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
    UniqueFd sock = Connect(server_->socket_path());
    Answer answer;
    Status sent = SendRequest(sock.get(), request, out[1], err[1]);
    ::close(out[1]);
    ::close(err[1]);
    if (!sent.ok()) answer.error = sent.message();
    auto reply = ReceiveReply(sock.get());
    if (reply.ok()) answer.reply = *reply;
    else answer.error = reply.status().message();
    answer.out = Drain(out[0]);
    answer.err = Drain(err[0]);
    ::close(out[0]);
    ::close(err[0]);
    return answer;
  }

  // What find answers in this process, as `caller` when given.
  std::string Local(const std::vector<std::string>& args, std::optional<Caller> caller = std::nullopt) {
    std::ostringstream out, err;
    find::RunOptions run;
    run.cwd = "/";
    std::unique_ptr<Catalog> view;
    if (caller) {
      view = VisibleTo(*local_, *caller);
      run.uid = caller->uid;
      run.gids = caller->gids;
    }
    EXPECT_EQ(find::RunFind(args, view ? *view : *local_, out, err, run), 0) << err.str();
    return out.str();
  }

  testing::TempDir dir_;
  std::string uri_, identity_;
  std::unique_ptr<Catalog> local_;
  std::unique_ptr<QueryServer> server_;
};

TEST_F(QueryServerTest, AnswersOnTheClientsOwnOutputAsFindInProcessDoes) {
  const std::vector<std::vector<std::string>> queries = {
      {"/r"}, {"/r", "-size", "+1M"}, {"/r", "-name", "*.h5", "-printf", "%s %p\n"}, {"/r/a", "-type", "f", "-count"}};
  for (const auto& args : queries) {
    Answer a = Ask(Find(args));
    ASSERT_TRUE(a.reply && a.reply->status) << a.error << (a.reply ? a.reply->fallback + a.reply->error : "");
    EXPECT_EQ(*a.reply->status, 0);
    EXPECT_EQ(a.out, Local(args)) << ::testing::PrintToString(args);
    EXPECT_EQ(a.err, "");
  }
  EXPECT_EQ(Ask(Find({"/r", "-size", "+1M"})).out, "/r/a/big.h5\n/r/secret/hidden.h5\n");
  EXPECT_EQ(server_->answered(), queries.size() + 1);
}

TEST_F(QueryServerTest, FindsErrorsAndExitStatusReachTheClient) {
  Answer a = Ask(Find({"/r", "-size", "12Q"}));
  ASSERT_TRUE(a.reply && a.reply->status) << a.error;
  EXPECT_EQ(*a.reply->status, 1);
  EXPECT_NE(a.err.find("fathom find: -size: \"12Q\" is not a size"), std::string::npos) << a.err;
  EXPECT_EQ(a.out, "");
}

TEST_F(QueryServerTest, ARootCallerAskingAsAnotherUserSeesWhatThatUserMaySee) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (the server takes the caller's uid from the socket)";
  QueryRequest request = Find({"/r", "-name", "*.h5"});
  request.as_user = "65534";
  Answer a = Ask(request);
  ASSERT_TRUE(a.reply && a.reply->status) << a.error;
  EXPECT_EQ(a.out, "/r/a/big.h5\n");  // not what lies in root's closed directory
  EXPECT_EQ(a.out, Local({"/r", "-name", "*.h5"}, Caller{65534, {}}));
}

TEST_F(QueryServerTest, ExpressionsThatActOnTheFileSystemAndOtherCatalogsAreHandedBack) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"/r", "-delete"}, {"/r", "-exec", "echo", "{}", ";"}, {"/r", "-fprint", "/tmp/x"},
           {"/r", "-newer", "/etc/passwd"}, {"/r", "-neweram", "/etc/passwd"}}) {
    Answer a = Ask(Find(args));
    ASSERT_TRUE(a.reply) << a.error;
    EXPECT_FALSE(a.reply->status);
    EXPECT_NE(a.reply->fallback.find("answered by the client"), std::string::npos) << a.reply->fallback;
    EXPECT_EQ(a.out, "");
  }
  Answer dated = Ask(Find({"/r", "-newermt", "1970-01-02"}));  // a date, not a file: answered
  ASSERT_TRUE(dated.reply && dated.reply->status) << dated.error;
  QueryRequest other = Find({"/r"});
  other.catalog = "/elsewhere/cat.db";
  Answer a = Ask(other);
  ASSERT_TRUE(a.reply) << a.error;
  EXPECT_NE(a.reply->fallback.find("this server answers for the catalog " + identity_), std::string::npos);
  EXPECT_EQ(server_->answered(), 1u);
}

TEST_F(QueryServerTest, HostileRequestsAreRefusedWithAReasonAndTheServerKeepsServing) {
  auto raw = [&](const std::string& bytes) {
    UniqueFd sock = Connect(server_->socket_path());
    EXPECT_EQ(::send(sock.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
    auto reply = ReceiveReply(sock.get());
    return reply.ok() ? reply->error : "no reply: " + reply.status().message();
  };
  EXPECT_EQ(raw(std::string("\x05\0\0\0hello", 9)), "a query came without its standard output and error attached");
  // With descriptors, but a length past the limit, then text that is not JSON, then a
  // command the server does not answer.
  int out[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  auto with_fds = [&](const std::string& bytes) {
    UniqueFd sock = Connect(server_->socket_path());
    EXPECT_TRUE(SendWithDescriptors(sock.get(), bytes, out[1], out[1]).ok());
    ::shutdown(sock.get(), SHUT_WR);
    auto reply = ReceiveReply(sock.get());
    return reply.ok() ? reply->error : "no reply: " + reply.status().message();
  };
  EXPECT_EQ(with_fds(std::string("\xff\xff\xff\x7f", 4)), "a query of 2147483647 bytes is longer than the server takes (1 MiB)");
  EXPECT_EQ(with_fds(std::string("\x03\0\0\0{x}", 7)), "the query is not a JSON object");
  EXPECT_EQ(with_fds(std::string("\x02\0\0\0{}", 6)), "the query has no text \"command\"");
  EXPECT_EQ(with_fds(std::string("\x20\0\0\0{\"command\":\"rm\"", 20)), "a query ended after 16 of 32 bytes");
  QueryRequest rm = Find({"/r"});
  rm.command = "rm";
  ASSERT_TRUE(Ask(rm).reply);
  EXPECT_EQ(Ask(rm).reply->error, "\"rm\" is not a command this server answers (find)");
  QueryRequest relative = Find({"/r"});
  relative.cwd = "here";
  EXPECT_EQ(Ask(relative).reply->error, "the working directory must be an absolute path");
  ::close(out[0]);
  ::close(out[1]);
  Answer good = Ask(Find({"/r", "-name", "small.txt"}));
  ASSERT_TRUE(good.reply && good.reply->status) << good.error;
  EXPECT_EQ(good.out, "/r/a/small.txt\n");
}

TEST_F(QueryServerTest, AnAnswerStopsWhenItsClientGoesAway) {
  // A terminal takes output even after the client died (^C): the server must notice the
  // client's socket hung up. A regular file stands for the terminal (writes never fail).
  {
    auto writer = testing::OpenCatalogOrDie(uri_);
    std::optional<Node> dir = FATHOM_TEST_VALUE(writer->Stat("/r/a"));
    ASSERT_TRUE(dir.has_value());
    auto b = FATHOM_TEST_VALUE(writer->Begin());
    const EntryId a = dir->id;
    for (int i = 0; i < 20000; ++i) {
      FATHOM_TEST_VALUE(b->Put(a, "file-with-a-longer-name-" + std::to_string(i), FileAttrs(100 + i, 1), At(2)));
    }
    ASSERT_TRUE(b->Commit().ok());
  }
  const size_t whole = Local({"/r"}).size();
  ASSERT_GT(whole, 600'000u);
  const std::string sink = dir_ / "terminal";
  auto answered_to = [&](bool leave) {
    UniqueFd out(::open(sink.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    const uint64_t before = server_->answered();
    {
      UniqueFd sock = Connect(server_->socket_path());
      EXPECT_TRUE(SendRequest(sock.get(), Find({"/r"}), out.get(), out.get()).ok());
      if (!leave) {
        EXPECT_TRUE(ReceiveReply(sock.get()).ok());
      }
    }  // the client's socket closes here
    for (int i = 0; i < 1000 && server_->answered() == before; ++i) ::usleep(10'000);
    EXPECT_EQ(server_->answered(), before + 1);
    struct stat st {};
    EXPECT_EQ(::stat(sink.c_str(), &st), 0);
    return static_cast<size_t>(st.st_size);
  };
  EXPECT_EQ(answered_to(/*leave=*/false), whole);
  EXPECT_LT(answered_to(/*leave=*/true), whole / 4);  // at most a buffer (64 KiB) once gone
}

TEST_F(QueryServerTest, OneServerPerSocketAndAStaleSocketIsReplaced) {
  QueryServerOptions options;
  options.catalog = uri_;
  auto second = QueryServer::Start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("another catalog server answers on " + server_->socket_path()),
            std::string::npos)
      << second.status().message();
  const std::string path = server_->socket_path();
  server_->Stop();
  EXPECT_NE(::access(path.c_str(), F_OK), 0);  // removed at Stop
  std::string why;
  EXPECT_FALSE(FATHOM_TEST_VALUE(AskQueryServer(path, Find({"/r"}), &why)));
  EXPECT_NE(why.find("no catalog server at " + path), std::string::npos) << why;
  {  // a socket file left by a server that died
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.data(), path.size());
    UniqueFd dead(::socket(AF_UNIX, SOCK_STREAM, 0));
    ASSERT_EQ(::bind(dead.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  }
  server_ = FATHOM_TEST_VALUE(QueryServer::Start(options));
  EXPECT_EQ(Ask(Find({"/r", "-name", "small.txt"})).out, "/r/a/small.txt\n");
  QueryServerOptions postgres;
  postgres.catalog = "postgresql://nobody@127.0.0.1:1/none";
  auto no_socket = QueryServer::Start(postgres);
  ASSERT_FALSE(no_socket.ok());
  EXPECT_NE(no_socket.status().message().find("give one with --socket PATH"), std::string::npos);
  options.socket_path = dir_ / "plain-file";
  testing::WriteFile(options.socket_path, "data");
  auto refused = QueryServer::Start(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("exists and is not a socket"), std::string::npos);
}

}  // namespace
}  // namespace fathom::catalog::serve
