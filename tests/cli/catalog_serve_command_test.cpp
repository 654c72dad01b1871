// `fathom catalog serve` and `fathom find` through the binaries: find's answers through the
// server are the ones it gives alone, an unprivileged user (nobody, through setpriv) sees
// through the server exactly what it sees alone, expressions that act on the file system
// are answered by find itself, and the server counts what it answered when it stops (root:
// the tree has a directory closed to others).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <regex>

#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

class CatalogServeCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root (a tree with a directory closed to others, and setpriv)";
    ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);  // nobody reaches the catalog and the tree
    tree_ = dir_ / "tree";
    testing::MakeDirs(tree_ + "/open/deep");
    testing::MakeDirs(tree_ + "/closed");
    testing::WriteFile(tree_ + "/open/a.txt", "hello\n");
    testing::WriteFile(tree_ + "/open/deep/b.txt", std::string(5000, 'x'));
    testing::WriteFile(tree_ + "/closed/secret.txt", "s");
    ASSERT_EQ(::chmod((tree_ + "/closed").c_str(), 0700), 0);
    catalog_ = dir_ / "cat.db";
    auto scanned = testing::Run({testing::FathomBinary(), "scan", "-q", "--catalog", catalog_, tree_});
    ASSERT_EQ(scanned.exit_code, 0) << scanned.err;
    server_ = std::make_unique<testing::Subprocess>(
        std::vector<std::string>{testing::FathomBinary(), "catalog", "serve", "--catalog", catalog_});
    auto line = server_->ReadLine(std::chrono::seconds(20));
    ASSERT_TRUE(line.has_value()) << server_->stderr_text();
    EXPECT_EQ(*line, "fathom catalog serve: answering find for " + catalog_ + " on " + catalog_ + ".sock");
  }

  // Stops the server; the number of queries it says it answered.
  int StopServer() {
    server_->Signal(SIGTERM);
    EXPECT_EQ(server_->Wait(), 0);
    std::smatch m;
    const std::string& err = server_->stderr_text();
    if (!std::regex_search(err, m, std::regex("stopped after ([0-9]+) queries"))) return -1;
    return std::stoi(m[1]);
  }

  testing::RunResult Find(std::vector<std::string> before, std::vector<std::string> expression) {
    std::vector<std::string> argv = std::move(before);
    for (const char* a : {"find", "--catalog"}) argv.push_back(a);
    argv.push_back(catalog_);
    argv.insert(argv.end(), expression.begin(), expression.end());
    return testing::Run(argv);
  }

  testing::TempDir dir_;
  std::string tree_, catalog_;
  std::unique_ptr<testing::Subprocess> server_;
};

TEST_F(CatalogServeCommand, FindAnswersThroughTheServerWhatItAnswersAlone) {
  const std::vector<std::vector<std::string>> expressions = {
      {tree_}, {tree_, "-name", "*.txt"}, {tree_, "-size", "+1k", "-printf", "%s %P\n"}, {tree_ + "/open", "-type", "f"}};
  for (const auto& e : expressions) {
    std::vector<std::string> alone = {"--no-server"};
    alone.insert(alone.end(), e.begin(), e.end());
    auto served = Find({testing::FathomBinary()}, e);
    auto local = Find({testing::FathomBinary()}, alone);
    EXPECT_EQ(served.exit_code, 0) << served.err;
    EXPECT_EQ(served.out, local.out) << ::testing::PrintToString(e);
    EXPECT_FALSE(served.out.empty());
  }
  auto bad = Find({testing::FathomBinary()}, {tree_, "-size", "12Q"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("fathom find: -size: \"12Q\" is not a size"), std::string::npos) << bad.err;
  // Acts on the file system: find answers it itself, with its own rights.
  auto exec = Find({testing::FathomBinary()}, {tree_ + "/open", "-name", "a.txt", "-exec", "cat", "{}", ";"});
  EXPECT_EQ(exec.exit_code, 0) << exec.err;
  EXPECT_EQ(exec.out, "hello\n") << exec.err;
  EXPECT_EQ(StopServer(), static_cast<int>(expressions.size()) + 1);
}

TEST_F(CatalogServeCommand, AnUnprivilegedUserSeesThroughTheServerWhatItSeesAlone) {
  const std::vector<std::string> nobody = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                           testing::FathomBinary()};
  auto served = Find(nobody, {tree_, "-name", "*.txt"});
  auto alone = Find(nobody, {"--no-server", tree_, "-name", "*.txt"});
  auto as_user = Find({testing::FathomBinary()}, {"--no-server", "--as-user", "65534", tree_, "-name", "*.txt"});
  EXPECT_EQ(served.exit_code, 0) << served.err;
  EXPECT_EQ(testing::SortedLines(served.out),
            (std::vector<std::string>{tree_ + "/open/a.txt", tree_ + "/open/deep/b.txt"}));
  EXPECT_EQ(served.out, alone.out);
  EXPECT_EQ(served.out, as_user.out);
  auto refused = Find(nobody, {"--as-user", "0", tree_});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("--as-user needs root"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(StopServer(), 1);
}

}  // namespace
}  // namespace fathom
