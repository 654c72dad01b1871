// SourceRegistry::CheckSettings: keys are checked against every backend before one is chosen.
#include <gtest/gtest.h>

#include "fathom/source.h"

namespace fathom {
namespace {

SourceInfo Backend(std::string name, std::vector<std::string> keys,
                   std::function<Status(const SourceOptions&)> check = nullptr) {
  SourceInfo info;
  info.name = std::move(name);
  info.detect = [](const SourceOptions&) { return Status::Ok(); };
  info.create = [](const SourceOptions&) -> Result<std::unique_ptr<Source>> {
    return Status::Error("not built in this test");
  };
  info.settings = std::move(keys);
  info.check_settings = std::move(check);
  return info;
}

SourceRegistry Registry() {
  SourceRegistry r;
  r.Register(Backend("one", {"one.size", "one.mode"}, [](const SourceOptions& o) {
    auto it = o.settings.find("one.size");
    if (it != o.settings.end() && it->second != "1") return Status::Error("one.size must be 1");
    return Status::Ok();
  }));
  r.Register(Backend("two", {"two.path"}));
  return r;
}

TEST(SourceRegistry, SettingNoBackendReadsIsRejectedNamingTheKeyAndTheValidOnes) {
  SourceOptions o;
  o.settings = {{"one.size", "1"}, {"one.sise", "1"}};
  Status s = Registry().CheckSettings(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "unknown setting 'one.sise' (valid: one.size, one.mode, two.path)");
}

TEST(SourceRegistry, BadValueIsRejectedByItsBackendsCheck) {
  SourceOptions o;
  o.settings = {{"one.size", "2"}};
  Status s = Registry().CheckSettings(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "one.size must be 1");
}

TEST(SourceRegistry, KnownSettingsOfAnyBackendPass) {
  SourceOptions o;
  o.settings = {{"one.size", "1"}, {"two.path", "/x"}};
  EXPECT_TRUE(Registry().CheckSettings(o).ok());
  EXPECT_TRUE(Registry().CheckSettings(SourceOptions{}).ok());
}

}  // namespace
}  // namespace fathom
