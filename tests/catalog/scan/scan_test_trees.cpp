#include "catalog/scan/scan_test_trees.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/fs_ops.h"

extern char** environ;

namespace fathom::testing {
namespace {

void Check(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what + ": " + std::strerror(errno));
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

void MakeAwkwardTree(const std::string& root) {
  const std::vector<std::string> names = {
      "plain",       "with space",          "new\nline", "tab\there", "-dash", "\xff\xfe not utf-8",
      "caf\xc3\xa9", std::string(255, 'n'), ".hidden",   "trailing."};
  MakeDirs(root + "/d");
  for (const auto& n : names) WriteFile(root + "/d/" + n, n);
  MakeDirs(root + "/d/sub dir/empty");
  MakeDirs(root + "/empty");
  WriteFile(root + "/d/sub dir/data", std::string(5000, 'x'));
  Check(symlink("plain", (root + "/d/link-to-file").c_str()) == 0, "symlink");
  Check(symlink("../d/sub dir", (root + "/d/link-to-dir").c_str()) == 0, "symlink");
  Check(symlink("/nonexistent/target", (root + "/dangling").c_str()) == 0, "symlink");
  Check(symlink("odd\ntarget", (root + "/d/odd-link").c_str()) == 0, "symlink");
  Check(link((root + "/d/plain").c_str(), (root + "/d/hard").c_str()) == 0, "link");
  Check(link((root + "/d/plain").c_str(), (root + "/d/sub dir/hard2").c_str()) == 0, "link");
  Check(mkfifo((root + "/fifo").c_str(), 0640) == 0, "mkfifo");
  Check(chmod((root + "/d/-dash").c_str(), 04751) == 0, "chmod");
  std::string deep = root + "/deep";
  for (int i = 0; i < 40; ++i) deep += "/" + std::to_string(i);
  MakeDirs(deep);
  WriteFile(deep + "/bottom", "b");
  MakeDirs(root + "/many");
  for (int i = 0; i < 300; ++i) WriteFile(root + "/many/f" + std::to_string(i), "");
}

int RunRecords(const std::vector<std::string>& argv, const std::string& scratch_dir,
               std::vector<std::string>& out, std::string& err) {
  const std::string out_path = scratch_dir + "/stdout";
  const std::string err_path = scratch_dir + "/stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(rc));
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string text = ReadAll(out_path);
  out.clear();
  for (size_t start = 0, end; (end = text.find('\0', start)) != std::string::npos;
       start = end + 1) {
    out.push_back(text.substr(start, end - start));
  }
  std::sort(out.begin(), out.end());
  err = ReadAll(err_path);
  unlink(out_path.c_str());
  unlink(err_path.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ScanPrintBinary() { return std::string(FATHOM_BUILD_DIR) + "/tests/scan_print"; }

}  // namespace fathom::testing
