// sim_fixture.h — a real fathom-lustre-sim FUSE mount in a temp directory for one test.
//
// Each test gets its own registry (FATHOM_LUSTRE_SIM_RUNDIR), state, backing directory and
// mount point; TearDown unmounts even when the test failed (lazily if the daemon hangs).
// Helpers run build/lustre/lfs and lctl and parse `lfs changelog` output.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "lustre/changelog_record.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace fathom::testing {

std::string SimBinary();   // build/fathom-lustre-sim
std::string LfsBinary();   // build/lustre/lfs
std::string LctlBinary();  // build/lustre/lctl

class SimMountTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Mounts fsname "testfs" with `mdts` MDTs (and `extra` mount options); returns the mount
  // command's result.
  RunResult Mount(int mdts = 1, const std::vector<std::string>& extra = {});
  RunResult Umount();
  // Registers a changelog user on every MDT and returns their names (cl1 on each MDT).
  void RegisterEverywhere(int mdts);

  RunResult Lfs(std::vector<std::string> args);
  RunResult Lctl(std::vector<std::string> args);
  // Every record of one MDT, parsed from `lfs changelog testfs-MDTxxxx`.
  std::vector<lustre::ChangelogRecord> Changelog(int mdt);
  lustre::Fid PathFid(const std::string& rel);  // lfs path2fid on mount()/rel

  std::string mount() const { return dir_->path() + "/mnt"; }
  std::string backing() const { return dir_->path() + "/backing"; }
  std::string state() const { return dir_->path() + "/state"; }
  std::string rundir() const { return dir_->path() + "/run"; }

 private:
  std::unique_ptr<TempDir> dir_;
  int mdts_ = 1;
};

}  // namespace fathom::testing
