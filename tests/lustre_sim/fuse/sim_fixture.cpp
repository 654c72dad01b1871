#include "sim_fixture.h"

#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <sstream>

#include "lustre/changelog_text.h"
#include "lustre/fid.h"

namespace fathom::testing {

std::string SimBinary() { return std::string(FATHOM_BUILD_DIR) + "/fathom-lustre-sim"; }
std::string LfsBinary() { return std::string(FATHOM_BUILD_DIR) + "/lustre/lfs"; }
std::string LctlBinary() { return std::string(FATHOM_BUILD_DIR) + "/lustre/lctl"; }

void SimMountTest::SetUp() {
  dir_ = std::make_unique<TempDir>();
  for (const char* sub : {"/mnt", "/backing", "/run"}) ASSERT_EQ(mkdir((dir_->path() + sub).c_str(), 0755), 0);
  setenv("FATHOM_LUSTRE_SIM_RUNDIR", rundir().c_str(), 1);
}

void SimMountTest::TearDown() {
  (void)Umount();
  // A daemon that did not let go: detach so the temp dir can go (fails harmlessly otherwise).
  umount2(mount().c_str(), MNT_DETACH);
  dir_.reset();
}

RunResult SimMountTest::Mount(int mdts, const std::vector<std::string>& extra) {
  mdts_ = mdts;
  std::vector<std::string> args = {SimBinary(), "mount",   "--fsname", "testfs",  "--mdts",
                                   std::to_string(mdts), "--state", state(),   "--backing", backing()};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(mount());
  return testing::Run(std::move(args));
}

RunResult SimMountTest::Umount() { return testing::Run({SimBinary(), "umount", mount()}); }

void SimMountTest::RegisterEverywhere(int mdts) {
  for (int i = 0; i < mdts; ++i) {
    auto r = Lctl({"--device", "testfs-MDT000" + std::to_string(i), "changelog_register"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
}

RunResult SimMountTest::Lfs(std::vector<std::string> args) {
  args.insert(args.begin(), LfsBinary());
  return testing::Run(std::move(args));
}

RunResult SimMountTest::Lctl(std::vector<std::string> args) {
  args.insert(args.begin(), LctlBinary());
  return testing::Run(std::move(args));
}

std::vector<lustre::ChangelogRecord> SimMountTest::Changelog(int mdt) {
  auto r = Lfs({"changelog", "testfs-MDT000" + std::to_string(mdt)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<lustre::ChangelogRecord> out;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line)) {
    auto rec = lustre::ParseRecordText(line);
    EXPECT_TRUE(rec.ok()) << line << ": " << rec.status().message();
    if (rec.ok()) out.push_back(*rec);
  }
  return out;
}

lustre::Fid SimMountTest::PathFid(const std::string& rel) {
  auto r = Lfs({"path2fid", mount() + "/" + rel});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string text = r.out;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  auto fid = lustre::ParseFid(text);
  EXPECT_TRUE(fid.ok()) << text;
  return fid.ok() ? *fid : lustre::Fid{};
}

}  // namespace fathom::testing
