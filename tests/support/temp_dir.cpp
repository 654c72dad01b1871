#include "support/temp_dir.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace fathom::testing {

TempDir::TempDir(const std::string& base) {
  std::string dir = base;
  if (dir.empty()) {
    const char* env = std::getenv("FATHOM_TEST_TMPDIR");
    dir = env != nullptr ? env : "/tmp";
  }
  std::string templ = dir + "/fathom-test-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed in " + dir);
  // Canonical, so that paths compare equal to what sources report.
  path_ = std::filesystem::canonical(templ).string();
}

TempDir::~TempDir() { RemoveTree(path_); }

void RemoveTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

}  // namespace fathom::testing
