// Libraries loaded when first needed: the errors when one is missing or too old, and that the
// fathom command starts without libpq, libcurl and libzmq (they load only for PostgreSQL
// catalogs, HTTP requests and the distributed commands, which their own tests exercise:
// pg_*_test, WebhookActionTest, AlertTest, the aggregator's and collectors' tests).
#include "core/lazy_library.h"

#include <gtest/gtest.h>

#include "support/subprocess.h"

namespace fathom {
namespace {

TEST(LazyLibraryTest, AMissingLibraryNamesItsPackageAndWhatNeedsIt) {
  auto handle = OpenLibrary({"libfathom-no-such-library.so.9", "fathom-no-such-package", "Imaginary catalogs"});
  ASSERT_FALSE(handle.ok());
  const std::string& m = handle.status().message();
  EXPECT_EQ(m.find("Imaginary catalogs need libfathom-no-such-library.so.9, which cannot be loaded ("), 0u) << m;
  EXPECT_NE(m.find("): install it (apt-get install fathom-no-such-package)"), std::string::npos) << m;
}

TEST(LazyLibraryTest, AMissingFunctionSaysTheLibraryIsTooOld) {
  const LibraryName libc{"libc.so.6", "libc6", "Tests"};
  auto handle = OpenLibrary(libc);
  ASSERT_TRUE(handle.ok()) << handle.status().message();
  auto found = LibraryFunction(*handle, libc, "getpid");
  ASSERT_TRUE(found.ok());
  EXPECT_NE(*found, nullptr);
  auto missing = LibraryFunction(*handle, libc, "fathom_no_such_function");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "libc.so.6 has no function fathom_no_such_function: it is older than the one fathom was built "
            "with (upgrade libc6)");
}

TEST(LazyLibraryTest, TheCommandStartsWithoutLibpqLibcurlAndLibzmq) {
  // The dynamic loader names every library it maps (LD_DEBUG=libs, on stderr).
  testing::RunResult r = testing::Run({"env", "LD_DEBUG=libs", testing::FathomBinary(), "--version"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("libsqlite3.so.0"), std::string::npos) << "the loader's trace is missing:\n" << r.err;
  EXPECT_EQ(r.err.find("libpq.so"), std::string::npos);
  EXPECT_EQ(r.err.find("libcurl.so"), std::string::npos);
  EXPECT_EQ(r.err.find("libzmq.so"), std::string::npos);
}

}  // namespace
}  // namespace fathom
