// Lustre source settings: required keys, validation, unknown keys rejected; detect() and the
// missing-library message.
#include "sources/lustre/lustre_settings.h"

#include <gtest/gtest.h>

#include "sources/lustre/lustre_source.h"

namespace fathom::lustre_source {
namespace {

SourceOptions With(std::map<std::string, std::string> settings) {
  SourceOptions o;
  o.settings = std::move(settings);
  return o;
}

TEST(LustreSettingsTest, ParsesEveryKey) {
  auto s = ParseLustreSettings(With({{"lustre.device", "testfs-MDT000a"},
                                     {"lustre.mount", "/mnt/testfs/"},
                                     {"lustre.user", "cl2"},
                                     {"lustre.library", "/opt/lib/liblustreapi.so"},
                                     {"lustre.cache-size", "5000"}}));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->fsname, "testfs");
  EXPECT_EQ(s->mdt, 10);
  EXPECT_EQ(s->mount, "/mnt/testfs");
  EXPECT_EQ(s->user, "cl2");
  EXPECT_EQ(s->library, "/opt/lib/liblustreapi.so");
  EXPECT_EQ(s->cache_size, 5000u);
}

TEST(LustreSettingsTest, DefaultsWithoutOptionalKeys) {
  auto s =
      ParseLustreSettings(With({{"lustre.device", "fs-MDT0000"}, {"lustre.mount", "/mnt/fs"}}));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->user, "");
  EXPECT_EQ(s->library, "");
  EXPECT_EQ(s->cache_size, kDefaultCacheSize);
}

TEST(LustreSettingsTest, RejectsBadValuesWithTheKeyNamed) {
  const std::map<std::string, std::string> base = {{"lustre.device", "fs-MDT0000"},
                                                   {"lustre.mount", "/mnt/fs"}};
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"lustre.device", "fs"},          {"lustre.device", "fs-MDT00"},
      {"lustre.device", "fs-MDTzzzz"},  {"lustre.device", "toolongname-MDT0000"},
      {"lustre.mount", "relative/dir"}, {"lustre.cache-size", "-1"},
      {"lustre.cache-size", "lots"},    {"lustre.user", ""},
  };
  for (const auto& [key, value] : bad) {
    auto settings = base;
    settings[key] = value;
    auto s = ParseLustreSettings(With(settings));
    ASSERT_FALSE(s.ok()) << key << "=" << value;
    EXPECT_NE(s.status().message().find(key), std::string::npos) << s.status().message();
  }
}

TEST(LustreSettingsTest, UnknownLustreKeyIsAnError) {
  auto s = ParseLustreSettings(With(
      {{"lustre.device", "fs-MDT0000"}, {"lustre.mount", "/mnt/fs"}, {"lustre.cachesize", "1"}}));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("unknown setting lustre.cachesize"), std::string::npos);
  EXPECT_NE(s.status().message().find("lustre.cache-size"), std::string::npos);
}

TEST(LustreSettingsTest, DeviceAndMountAreRequired) {
  auto no_device = ParseLustreSettings(With({{"lustre.mount", "/mnt/fs"}}));
  ASSERT_FALSE(no_device.ok());
  EXPECT_NE(no_device.status().message().find("lustre.device"), std::string::npos);
  auto no_mount = ParseLustreSettings(With({{"lustre.device", "fs-MDT0000"}}));
  ASSERT_FALSE(no_mount.ok());
  EXPECT_NE(no_mount.status().message().find("lustre.mount"), std::string::npos);
}

TEST(LustreSourceDetectTest, FailsWithoutADevice) {
  SourceInfo info = LustreSourceInfo();
  EXPECT_EQ(info.name, "lustre");
  EXPECT_LT(info.priority, 10);
  SourceOptions o;
  o.roots = {"/tmp"};
  EXPECT_FALSE(info.detect(o).ok());
}

TEST(LustreSourceDetectTest, MissingLibraryIsExplained) {
  SourceInfo info = LustreSourceInfo();
  auto o = With({{"lustre.device", "fs-MDT0000"},
                 {"lustre.mount", "/mnt/fs"},
                 {"lustre.library", "/nonexistent/liblustreapi.so"}});
  Status s = info.detect(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("liblustreapi not found (tried /nonexistent/liblustreapi.so"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("--lustre-library PATH"), std::string::npos);
  EXPECT_FALSE(info.create(o).ok());
}

TEST(LustreSourceDetectTest, RootsOutsideTheMountAreRejected) {
  SourceInfo info = LustreSourceInfo();
  auto o = With({{"lustre.device", "fs-MDT0000"}, {"lustre.mount", "/mnt/fs"}});
  o.roots = {"/mnt/fsx"};
  Status s = info.detect(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not inside the Lustre mount /mnt/fs"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace fathom::lustre_source
