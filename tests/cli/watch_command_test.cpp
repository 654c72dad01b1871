// `fathom watch` end to end: the real binary, real kernel events, real SQLite.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "fathom/store.h"
#include "support/fs_ops.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom {
namespace {

using namespace std::chrono_literals;
using testing::FathomBinary;
using testing::Subprocess;

std::vector<std::string> WatchArgs(const std::string& dir, const std::vector<std::string>& extra) {
  std::vector<std::string> args{FathomBinary(), "watch", "-r", dir};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Runs Evaluate_Output_Script one step at a time, reading each step's lines before the next.
std::vector<std::string> RunPacedScript(Subprocess& p, const std::string& dir) {
  std::vector<std::string> lines;
  for (const auto& step : testing::EvaluateOutputScriptSteps(dir)) {
    step.run();
    auto got = p.ReadLines(step.lines);
    lines.insert(lines.end(), got.begin(), got.end());
  }
  return lines;
}

class WatchOnBackend : public ::testing::TestWithParam<std::string> {};

TEST_P(WatchOnBackend, EvaluateOutputScriptPrintsTableII) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam()}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  EXPECT_EQ(RunPacedScript(p, dir.path()), testing::ExpectedTableII(dir.path()));
  EXPECT_FALSE(p.ReadLine(300ms).has_value()) << "no event beyond Table II";
}

TEST_P(WatchOnBackend, JsonRenameHalvesShareANonZeroCookie) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--format", "json"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "a", "");
  testing::Rename(dir / "a", dir / "b");
  auto lines = p.ReadLines(4);  // CREATE, CLOSE_WRITE, MOVED_FROM, MOVED_TO
  ASSERT_EQ(lines.size(), 4u);
  auto from = nlohmann::json::parse(lines[2]);
  auto to = nlohmann::json::parse(lines[3]);
  EXPECT_EQ(from["events"], nlohmann::json::array({"MOVED_FROM"}));
  EXPECT_EQ(to["events"], nlohmann::json::array({"MOVED_TO"}));
  EXPECT_EQ(from["path"], dir / "a");
  EXPECT_EQ(to["path"], dir / "b");
  EXPECT_NE(from["cookie"], 0);
  EXPECT_EQ(from["cookie"], to["cookie"]);
  EXPECT_EQ(to["source"], GetParam());
  EXPECT_GT(to["id"].get<uint64_t>(), from["id"].get<uint64_t>());
  EXPECT_GT(to["ts"].get<int64_t>(), 1'600'000'000'000'000'000LL);
}

// Decodes padded base64 (RFC 4648); the test's own decoder, independent of fathom's encoder.
std::string DecodeBase64(const std::string& text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    bits = bits << 6 | static_cast<uint32_t>(kAlphabet.find(c));
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

std::string Hex(const std::string& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 0xf];
  }
  return out;
}

TEST_P(WatchOnBackend, JsonNamesOfEveryByteParseStrictlyAndKeepTheirExactBytes) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--format", "json", "--event", "CREATE"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  std::multiset<std::string> expected;  // hex of each absolute path
  for (int b = 1; b <= 255; ++b) {
    if (b == '/') continue;
    const std::string name = std::string(1, static_cast<char>(b)) + "n";
    testing::WriteFile(dir / name, "");
    expected.insert(Hex(dir / name));
  }
  const std::string utf8 = "caf\xc3\xa9";
  testing::WriteFile(dir / utf8, "");
  expected.insert(Hex(dir / utf8));
  auto lines = p.ReadLines(expected.size());
  ASSERT_EQ(lines.size(), expected.size()) << p.stderr_text();

  std::multiset<std::string> recovered;
  std::string all;
  for (const auto& line : lines) {
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(line)) << line;  // strict: rejects invalid UTF-8
    const std::string path = j.contains("path_b64") ? DecodeBase64(j["path_b64"]) : j["path"].get<std::string>();
    EXPECT_EQ(j["root"], dir.path());
    recovered.insert(Hex(path));
    all += line + "\n";
  }
  EXPECT_EQ(recovered, expected);

  // Python's json module, from bytes decoded as strict UTF-8, recovers the same bytes.
  testing::TempDir scratch;
  testing::WriteFile(scratch / "lines.json", all);
  const char* script =
      "import base64, json, sys\n"
      "for raw in open(sys.argv[1], 'rb'):\n"
      "    j = json.loads(raw.decode('utf-8'))\n"
      "    b = base64.b64decode(j['path_b64'], validate=True) if 'path_b64' in j else j['path'].encode()\n"
      "    print(b.hex())\n";
  auto r = testing::Run({"python3", "-c", script, scratch / "lines.json"}, 30s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::multiset<std::string> from_python;
  std::istringstream in(r.out);
  for (std::string hex; std::getline(in, hex);) from_python.insert(hex);
  EXPECT_EQ(from_python, expected);
}

TEST_P(WatchOnBackend, EventAndExcludeFiltersApply) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--event", "DELETE", "--exclude", "*.tmp"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "x.tmp", "1");
  testing::WriteFile(dir / "keep", "1");
  std::filesystem::remove(dir / "x.tmp");
  std::filesystem::remove(dir / "keep");
  EXPECT_EQ(p.ReadLines(1), std::vector<std::string>{dir.path() + " DELETE /keep"});
  EXPECT_FALSE(p.ReadLine(300ms).has_value());
}

// Globs are matched against the root-relative path that the output shows.
TEST_P(WatchOnBackend, IncludeWithSlashIsAnchoredAtTheRoot) {
  testing::TempDir dir;
  testing::MakeDirs(dir / "sub");
  testing::MakeDirs(dir / "other/sub");
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--include", "sub/*"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "top", "");
  testing::WriteFile(dir / "other/sub/b", "");
  testing::WriteFile(dir / "sub/a", "");
  const std::string r = dir.path();
  EXPECT_EQ(p.ReadLines(2), (std::vector<std::string>{r + " CREATE /sub/a", r + " CLOSE_WRITE /sub/a"}));
}

TEST_P(WatchOnBackend, ExcludedDirectoryHidesEverythingBelowIt) {
  testing::TempDir dir;
  testing::MakeDirs(dir / "a");
  testing::MakeDirs(dir / "scratch/deep");
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--exclude", "scratch"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  if (GetParam() == "inotify") {
    // Nor is it watched: the root and a/ only.
    EXPECT_NE(p.stderr_text().find("watches established (inotify, 2 kernel watches)"), std::string::npos)
        << p.stderr_text();
  }
  testing::WriteFile(dir / "scratch/deep/f", "");
  testing::WriteFile(dir / "scratch/g", "");
  testing::MakeDirs(dir / "scratch/new");
  testing::WriteFile(dir / "a/f", "");
  const std::string r = dir.path();
  EXPECT_EQ(p.ReadLines(2), (std::vector<std::string>{r + " CREATE /a/f", r + " CLOSE_WRITE /a/f"}));
}

TEST_P(WatchOnBackend, StoreInsideTheWatchedTreeDoesNotReportItself) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--store", dir / "events.db"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "one", "1");
  auto lines = p.ReadLines(3);
  EXPECT_EQ(lines, (std::vector<std::string>{dir.path() + " CREATE /one", dir.path() + " MODIFY /one",
                                             dir.path() + " CLOSE_WRITE /one"}));
  EXPECT_FALSE(p.ReadLine(500ms).has_value()) << "the store's own writes were reported";
}

TEST_P(WatchOnBackend, StoredEventsReplayAfterTheLastSeenId) {
  testing::TempDir dir;
  testing::TempDir state;
  const std::string db = state / "events.db";
  {
    Subprocess p(WatchArgs(dir.path(), {"--backend", GetParam(), "--store", db, "--format", "json"}));
    ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
    ASSERT_EQ(RunPacedScript(p, dir.path()).size(), 10u);
    p.Signal(SIGTERM);
    EXPECT_EQ(p.Wait(), 0) << p.stderr_text();
  }
  auto store = EventStore::Open(StoreOptions{db, /*read_only=*/true});
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<std::string> after4;
  ReplayQuery after_id_4;
  after_id_4.since_id = 4;
  ASSERT_TRUE(store.value()
                  ->Replay(after_id_4, [&](const Event& e) {
                    after4.push_back(dir.path() + " " + KindNames(e.mask) + " " + RelativePath(e.root, e.path));
                    return true;
                  })
                  .ok());
  auto expected = testing::ExpectedTableII(dir.path());
  EXPECT_EQ(after4, std::vector<std::string>(expected.begin() + 4, expected.end()));
}

// fanotify needs no pacing: a directory is known from its CREATE event, not from a watch.
TEST(WatchCommand, FanotifyPrintsTableIIForTheScriptAtFullSpeed) {
  testing::TempDir dir;
  Subprocess p(WatchArgs(dir.path(), {"--backend", "fanotify"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::RunEvaluateOutputScript(dir.path());
  EXPECT_EQ(p.ReadLines(10), testing::ExpectedTableII(dir.path()));
}

INSTANTIATE_TEST_SUITE_P(Backends, WatchOnBackend, ::testing::Values("inotify", "fanotify"));

TEST(WatchCommand, AutoBackendSaysWhichBackendItChose) {
  testing::TempDir dir;
  Subprocess p({FathomBinary(), "watch", dir.path()});
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("chosen"), std::string::npos) << p.stderr_text();
}

// Runs `fathom watch ARGS...` as the unprivileged user nobody (no capabilities), from a copy
// of the binary that user can reach; `dir` is a directory inside `top` anyone may write.
std::vector<std::string> AsNobody(const testing::TempDir& top, const std::string& dir,
                                  const std::vector<std::string>& args) {
  EXPECT_EQ(chmod(top.path().c_str(), 0755), 0);
  const std::string binary = top / "fathom";
  if (!std::filesystem::exists(binary)) std::filesystem::copy_file(FathomBinary(), binary);
  testing::MakeDirs(dir);
  EXPECT_EQ(chmod(dir.c_str(), 0777), 0);
  std::vector<std::string> argv{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                "--inh-caps=-all", binary, "watch", dir};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

TEST(WatchCommand, AutoBackendWithoutRootSaysWhyAndFallsBackToInotify) {
  testing::TempDir top;
  const std::string dir = top / "w";
  Subprocess p(AsNobody(top, dir, {}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("backend fanotify not used: fanotify needs root"), std::string::npos)
      << p.stderr_text();
  EXPECT_NE(p.stderr_text().find("backend inotify chosen"), std::string::npos) << p.stderr_text();
  testing::WriteFile(dir + "/seen", "");
  EXPECT_EQ(p.ReadLines(1), std::vector<std::string>{dir + " CREATE /seen"});
}

TEST(WatchCommand, ExplicitFanotifyWithoutRootFailsWithTheReasonAndNoFallback) {
  testing::TempDir top;
  auto r = testing::Run(AsNobody(top, top / "w", {"--backend", "fanotify", "-t", "5"}), 20s);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("backend fanotify cannot be used: fanotify needs root (CAP_SYS_ADMIN)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("inotify"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(WatchCommand, MisspeltFanotifySettingIsAUsageErrorNotAFallbackToInotify) {
  testing::TempDir dir;
  auto r = testing::Run({FathomBinary(), "watch", dir.path(), "--set", "fanotify.cach-size=10", "-t", "5"}, 20s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("unknown setting 'fanotify.cach-size' (valid: poll.interval, poll.threads, "
                       "fanotify.cache-size, fanotify.use-rename, fanotify.unlimited-queue, "
                       "lustre.device"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("chosen"), std::string::npos) << r.err;
}

TEST(WatchCommand, SettingNoBackendReadsIsAUsageError) {
  testing::TempDir dir;
  auto r = testing::Run({FathomBinary(), "watch", dir.path(), "--set", "foo=bar", "-t", "5"}, 20s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("unknown setting 'foo' (valid: "), std::string::npos) << r.err;
}

TEST(WatchCommand, BadFanotifySettingValueUnderAutoIsAUsageErrorNotAFallback) {
  testing::TempDir dir;
  auto r = testing::Run({FathomBinary(), "watch", dir.path(), "--set", "fanotify.cache-size=many", "-t", "5"}, 20s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("fanotify.cache-size must be a positive number of directories, not 'many'"),
            std::string::npos)
      << r.err;
}

TEST(WatchCommand, FanotifyReportsAFileSystemMountedInsideTheTreeAfterStartAndWatchesIt) {
  testing::TempDir dir;
  testing::MakeDirs(dir / "mnt");
  Subprocess p(WatchArgs(dir.path(), {"--backend", "fanotify"}));
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  ASSERT_EQ(mount("tmpfs", (dir / "mnt").c_str(), "tmpfs", 0, nullptr), 0) << std::strerror(errno);
  const bool seen = p.WaitForStderr("fanotify: watching the tmpfs file system (tmpfs) mounted at " + dir / "mnt" +
                                    " (mounted after the start)", 20s);
  if (seen) testing::WriteFile(dir / "mnt/f", "");
  const auto lines = seen ? p.ReadLines(2) : std::vector<std::string>{};
  p.Signal(SIGTERM);
  EXPECT_EQ(p.Wait(), 0);
  EXPECT_EQ(umount2((dir / "mnt").c_str(), 0), 0) << std::strerror(errno);
  ASSERT_TRUE(seen) << p.stderr_text();
  EXPECT_EQ(lines, (std::vector<std::string>{dir.path() + " CREATE /mnt/f", dir.path() + " CLOSE_WRITE /mnt/f"}));
}

TEST(WatchCommand, NonRecursiveIgnoresSubdirectories) {
  testing::TempDir dir;
  testing::MakeDirs(dir / "sub");
  Subprocess p({FathomBinary(), "watch", dir.path(), "--backend", "inotify"});
  ASSERT_TRUE(p.WaitForStderr("watches established", 20s)) << p.stderr_text();
  testing::WriteFile(dir / "sub/inner", "");
  testing::WriteFile(dir / "top", "");
  EXPECT_EQ(p.ReadLines(2), (std::vector<std::string>{dir.path() + " CREATE /top", dir.path() + " CLOSE_WRITE /top"}));
}

struct BadUsage {
  std::vector<std::string> args;
  std::string message;
};

class WatchBadUsage : public ::testing::TestWithParam<BadUsage> {};

TEST_P(WatchBadUsage, ExitsWithCode2AndSaysWhy) {
  testing::TempDir dir;
  std::vector<std::string> args{FathomBinary(), "watch"};
  for (const auto& a : GetParam().args) args.push_back(a == "DIR" ? dir.path() : a);
  auto r = testing::Run(args, 20s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WatchBadUsage,
    ::testing::Values(BadUsage{{}, "give the directories to watch (PATH...)"},
                      BadUsage{{"/no/such/dir"}, "cannot watch '/no/such/dir'"},
                      BadUsage{{"/etc/passwd"}, "not a directory"},
                      BadUsage{{"DIR", "--backend", "kqueue"}, "--backend"},
                      BadUsage{{"DIR", "--event", "CREAT"}, "unknown event kind 'CREAT'"},
                      BadUsage{{"DIR", "--format", "xml"}, "unknown format 'xml'"},
                      BadUsage{{"DIR", "--max-events", "10"}, "give --store FILE too"},
                      BadUsage{{"DIR", "--store", "/tmp/x.db", "--max-age", "3 parsecs"}, "bad duration"},
                      BadUsage{{"DIR", "--set", "novalue"}, "expected KEY=VALUE"}));

}  // namespace
}  // namespace fathom
