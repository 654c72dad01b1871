// `cmake --install` into a temporary prefix, then the installed programs are run from there:
// versions, a short watch, man pages for every program and subcommand, bash completion, and
// systemd units that name installed programs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

namespace fs = std::filesystem;
using RunResult = testing::RunResult;
RunResult Exec(std::vector<std::string> argv,
               std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  return testing::Run(std::move(argv), timeout);
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Installed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    prefix_ = new testing::TempDir();
    auto r = Exec({"cmake", "--install", FATHOM_BUILD_DIR, "--prefix", prefix_->path()},
                  std::chrono::seconds(120));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  static void TearDownTestSuite() {
    delete prefix_;
    prefix_ = nullptr;
  }
  static std::string At(const std::string& rel) { return prefix_->path() + "/" + rel; }
  static testing::TempDir* prefix_;
};
testing::TempDir* Installed::prefix_ = nullptr;

TEST_F(Installed, ProgramsRunFromThePrefixAndSayTheirVersion) {
  for (const char* prog : {"bin/fathom", "bin/fathomd"}) {
    auto r = Exec({At(prog), "--version"});
    EXPECT_EQ(r.exit_code, 0) << prog << r.err;
    EXPECT_TRUE(r.out.starts_with(fs::path(prog).filename().string() + " ") &&
                testing::HasVersionNumber(r.out))
        << prog << ": " << r.out;
  }
  EXPECT_TRUE(fs::exists(At("bin/fathom-lustre-sim")));
  for (const char* tool : {"lfs", "lctl", "liblustreapi.so.1"}) {
    EXPECT_TRUE(fs::exists(At(std::string("lib/fathom/lustre-sim/") + tool))) << tool;
  }
}

TEST_F(Installed, TheInstalledFathomWatchesADirectory) {
  testing::TempDir dir;
  testing::Subprocess watch(
      {At("bin/fathom"), "watch", dir.path(), "-n", "1", "--backend", "inotify"});
  ASSERT_TRUE(watch.WaitForStderr("watches established", std::chrono::seconds(20)))
      << watch.stderr_text();
  testing::WriteFile(dir / "hello", "");
  auto line = watch.ReadLine(std::chrono::seconds(10));
  ASSERT_TRUE(line.has_value()) << watch.stderr_text();
  EXPECT_EQ(*line, dir.path() + " CREATE /hello");
  EXPECT_EQ(watch.Wait(), 0);
}

// The installed `fathom io run` finds the tracer in lib/fathom/ beside bin/ and traces a
// program's writes.
TEST_F(Installed, TheInstalledFathomTracesAProgramsIo) {
  testing::TempDir dir;
  EXPECT_TRUE(fs::exists(At("lib/fathom/libfathom-io.so")));
  const std::string file = dir / "written";
  auto run = Exec({At("bin/fathom"), "io", "run", "--job", "j", "--out", dir / "traces", "--", "/bin/sh", "-c",
                   "echo hello > " + file});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("operations traced"), std::string::npos) << run.err;
  auto dump = Exec({At("bin/fathom"), "io", "dump", dir / "traces/j"});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_NE(dump.out.find("\"path\":\"" + file + "\""), std::string::npos) << dump.out;
}

TEST_F(Installed, EveryProgramAndSubcommandHasAManPage) {
  std::vector<std::string> pages{"fathom", "fathomd"};
  // Every subcommand `fathom --help` lists.
  auto help = Exec({At("bin/fathom"), "--help"});
  std::istringstream lines(help.out);
  bool in_subcommands = false;
  for (std::string l; std::getline(lines, l);) {
    if (l == "Subcommands:") in_subcommands = true;
    // "  NAME   description": a subcommand's first line (its continuations are indented more).
    if (in_subcommands && l.size() > 3 && l.starts_with("  ") && islower(static_cast<unsigned char>(l[2]))) {
      pages.push_back("fathom-" + l.substr(2, l.find(' ', 2) - 2));
    }
  }
  ASSERT_GT(pages.size(), 6u) << help.out;
  for (const auto& page : pages) {
    const fs::path file = At("share/man/man1/" + page + ".1");
    ASSERT_TRUE(fs::exists(file)) << page;
    std::string upper = page;
    for (auto& c : upper) c = static_cast<char>(toupper(c));
    const std::string text = ReadAll(file);
    EXPECT_NE(text.find(".TH " + upper + " \"1\""), std::string::npos) << page;
    EXPECT_NE(text.find(".SH OPTIONS"), std::string::npos) << page;
  }
}

TEST_F(Installed, BashCompletionOffersSubcommandsAndOptions) {
  const std::string script = At("share/bash-completion/completions/fathom");
  ASSERT_TRUE(fs::exists(script));
  ASSERT_TRUE(fs::exists(At("share/bash-completion/completions/fathomd")));
  auto r = Exec(
      {"bash", "-c",
       "source " + script + "; PATH=" + At("bin") +
           ":$PATH; "
           "COMP_WORDS=(fathom wa); COMP_CWORD=1; _fathom; echo \"${COMPREPLY[*]}\"; "
           "COMP_WORDS=(fathom watch --max-c); COMP_CWORD=2; _fathom; echo \"${COMPREPLY[*]}\"; "
           "COMP_WORDS=(fathom watch --format j); COMP_CWORD=3; _fathom; echo \"${COMPREPLY[*]}\"; "
           "COMP_WORDS=(fathomd --che); COMP_CWORD=1; _fathom; echo \"${COMPREPLY[*]}\""});
  EXPECT_EQ(r.out, "watch\n--max-count\njson\n--check\n") << r.err;
}

TEST_F(Installed, SystemdUnitsStartInstalledPrograms) {
  const fs::path units = At("lib/systemd/system");
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(units)) {
    ++count;
    const std::string text = ReadAll(entry.path());
    const size_t at = text.find("\nExecStart=");
    ASSERT_NE(at, std::string::npos) << entry.path();
    const size_t from = at + std::string("\nExecStart=").size();
    const std::string program = text.substr(from, text.find_first_of(" \n", from) - from);
    EXPECT_EQ(program.rfind(prefix_->path() + "/bin/", 0), 0u) << entry.path() << ": " << program;
    EXPECT_TRUE(fs::exists(program)) << program;
    EXPECT_NE(text.find("[Install]"), std::string::npos) << entry.path();
  }
  EXPECT_EQ(count, 5u);  // fathomd, and one template per role
}

}  // namespace
}  // namespace fathom
