// OSTs, pools and layouts on a real fathom-lustre-sim mount: the default layout and its
// round-robin OST choice, directory defaults inherited by new files below, pools, lfs
// setstripe/getstripe output and errors, LYOUT records, and the llapi_layout_* calls of the
// emulator's liblustreapi reading the lustre.lov attribute.
#include <dlfcn.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "lustre/fid.h"
#include "lustre/lustre_abi.h"
#include "sim_fixture.h"
#include "support/fs_ops.h"

namespace fathom::testing {
namespace {

class SimLayoutTest : public SimMountTest {
 protected:
  void SetUp() override {
    SimMountTest::SetUp();
    RunResult r = Mount(1);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // What `lfs ARGS` prints on success, without the last newline.
  std::string Out(std::vector<std::string> args) {
    RunResult r = Lfs(std::move(args));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.out;
  }
  std::string Osts(const std::string& rel) {
    // The obdidx column of `lfs getstripe`, joined with commas.
    RunResult r = Lfs({"getstripe", mount() + "/" + rel});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string out;
    size_t at = r.out.find("group\n");
    if (at == std::string::npos) return "?";
    size_t line = at + 6;
    while (line < r.out.size() && r.out[line] == '\t') {
      unsigned idx = 0;
      if (std::sscanf(r.out.c_str() + line, "%u", &idx) != 1) break;
      out += (out.empty() ? "" : ",") + std::to_string(idx);
      line = r.out.find('\n', line) + 1;
    }
    return out;
  }
  void Pools() {
    ASSERT_EQ(Lctl({"pool_new", "testfs.fast"}).exit_code, 0);
    ASSERT_EQ(Lctl({"pool_add", "testfs.fast", "testfs-OST[0002-0003]"}).exit_code, 0);
    ASSERT_EQ(Lctl({"pool_new", "testfs.slow"}).exit_code, 0);
    ASSERT_EQ(Lctl({"pool_add", "testfs.slow", "OST0000", "1"}).exit_code, 0);
  }
};

TEST_F(SimLayoutTest, NewFilesGetOneStripeOfOneMiBOnTheOstsInTurn) {
  for (int i = 0; i < 5; ++i) WriteFile(mount() + "/f" + std::to_string(i), "x");
  for (int i = 0; i < 5; ++i) {
    const std::string f = mount() + "/f" + std::to_string(i);
    EXPECT_EQ(Out({"getstripe", "-c", f}), "1");
    EXPECT_EQ(Out({"getstripe", "-S", f}), "1048576");
    EXPECT_EQ(Out({"getstripe", "-i", f}), std::to_string(i % 4));
    EXPECT_EQ(Out({"getstripe", "-p", f}), "");
  }
  const lustre::Fid fid = PathFid("f2");
  const unsigned long long objid = static_cast<unsigned long long>(fid.oid) << 8;
  char table[128];
  std::snprintf(table, sizeof(table), "\t%6u\t%14llu\t%#13llx\t%14u\n", 2u, objid, objid, 0u);
  EXPECT_EQ(Lfs({"getstripe", mount() + "/f2"}).out,
            mount() + "/f2\n"
            "lmm_stripe_count:  1\n"
            "lmm_stripe_size:   1048576\n"
            "lmm_pattern:       raid0\n"
            "lmm_layout_gen:    0\n"
            "lmm_stripe_offset: 2\n"
            "\tobdidx\t\t objid\t\t objid\t\t group\n" + std::string(table) + "\n");
  EXPECT_EQ(Out({"getstripe", "-m", mount() + "/f2"}), "0");  // the MDT, as before
}

TEST_F(SimLayoutTest, ADirectoryDefaultAppliesToNewFilesBelowItUntilRemoved) {
  MakeDirs(mount() + "/d/old");
  ASSERT_EQ(Lfs({"setstripe", "-c", "2", "-S", "4M", "-i", "1", mount() + "/d"}).exit_code, 0);
  EXPECT_EQ(Lfs({"getstripe", "-d", mount() + "/d"}).out,
            mount() + "/d\nstripe_count:  2 stripe_size:   4194304 pattern:       raid0 stripe_offset: 1\n\n");
  MakeDirs(mount() + "/d/new/deeper");
  WriteFile(mount() + "/d/a", "a");
  WriteFile(mount() + "/d/old/b", "b");
  WriteFile(mount() + "/d/new/deeper/c", "c");
  for (const char* rel : {"d/a", "d/old/b", "d/new/deeper/c"}) {
    SCOPED_TRACE(rel);
    EXPECT_EQ(Out({"getstripe", "-c", mount() + "/" + rel}), "2");
    EXPECT_EQ(Out({"getstripe", "-S", mount() + "/" + rel}), "4194304");
    EXPECT_EQ(Osts(rel), "1,2");
  }
  // A nearer default wins; -d removes one.
  ASSERT_EQ(Lfs({"setstripe", "-c", "-1", mount() + "/d/new"}).exit_code, 0);
  WriteFile(mount() + "/d/new/deeper/e", "e");
  EXPECT_EQ(Out({"getstripe", "-c", mount() + "/d/new/deeper/e"}), "4");
  EXPECT_EQ(Out({"getstripe", "-S", mount() + "/d/new/deeper/e"}), "1048576");
  ASSERT_EQ(Lfs({"setstripe", "-d", mount() + "/d"}).exit_code, 0);
  WriteFile(mount() + "/d/g", "g");
  EXPECT_EQ(Out({"getstripe", "-c", mount() + "/d/g"}), "1");
  // Layouts survive a remount.
  ASSERT_EQ(Umount().exit_code, 0);
  ASSERT_EQ(Mount(1).exit_code, 0);
  EXPECT_EQ(Osts("d/a"), "1,2");
  EXPECT_EQ(Out({"getstripe", "-c", mount() + "/d/new/deeper/e"}), "4");
}

TEST_F(SimLayoutTest, PoolsListTheirOstsAndConfineStripes) {
  ASSERT_NO_FATAL_FAILURE(Pools());
  EXPECT_EQ(Lctl({"pool_list", "testfs"}).out, "Pools from testfs:\ntestfs.fast\ntestfs.slow\n");
  EXPECT_EQ(Lctl({"pool_list", "testfs.fast"}).out, "Pool: testfs.fast\ntestfs-OST0002_UUID\ntestfs-OST0003_UUID\n");
  ASSERT_EQ(Lfs({"setstripe", "-p", "fast", "-c", "-1", mount() + "/all"}).exit_code, 0);
  EXPECT_EQ(Out({"getstripe", "-p", mount() + "/all"}), "fast");
  EXPECT_EQ(Out({"getstripe", "-c", mount() + "/all"}), "2");
  ASSERT_EQ(Lfs({"setstripe", "-p", "fast", "-i", "3", "-c", "2", mount() + "/from3"}).exit_code, 0);
  EXPECT_EQ(Osts("from3"), "3,2");
  EXPECT_NE(Lfs({"getstripe", mount() + "/from3"}).out.find("lmm_pool:          fast\n"), std::string::npos);
  // An OST outside the pool, a pool that does not exist.
  RunResult outside = Lfs({"setstripe", "-p", "fast", "-i", "0", mount() + "/bad"});
  EXPECT_EQ(outside.exit_code, EINVAL);
  EXPECT_EQ(outside.err, "lfs setstripe: setstripe error for '" + mount() + "/bad': Invalid argument\n");
  EXPECT_EQ(Lfs({"setstripe", "-p", "nosuch", mount() + "/bad"}).exit_code, EINVAL);
  EXPECT_NE(access((mount() + "/bad").c_str(), F_OK), 0);
  // Membership errors, destroying a pool with members.
  RunResult again = Lctl({"pool_add", "testfs.fast", "2"});
  EXPECT_EQ(again.exit_code, EEXIST);
  EXPECT_EQ(again.err, "OST testfs-OST0002_UUID is already in pool testfs.fast\n");
  RunResult busy = Lctl({"pool_destroy", "testfs.slow"});
  EXPECT_EQ(busy.exit_code, ENOTEMPTY);
  EXPECT_EQ(busy.err, "Pool testfs.slow not empty, please remove all members\n");
  RunResult removed = Lctl({"pool_remove", "testfs.slow", "OST[0-1]"});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(removed.out, "OST testfs-OST0000_UUID removed from pool testfs.slow\n"
                         "OST testfs-OST0001_UUID removed from pool testfs.slow\n");
  EXPECT_EQ(Lctl({"pool_destroy", "testfs.slow"}).out, "Pool testfs.slow destroyed\n");
  EXPECT_EQ(Lctl({"pool_list", "testfs"}).out, "Pools from testfs:\ntestfs.fast\n");
  EXPECT_EQ(Lctl({"pool_new", "testfs.fast"}).exit_code, EEXIST);
}

TEST_F(SimLayoutTest, AnExistingFileKeepsItsLayout) {
  WriteFile(mount() + "/f", "");
  RunResult r = Lfs({"setstripe", "-c", "2", mount() + "/f"});
  EXPECT_EQ(r.exit_code, EEXIST);
  EXPECT_EQ(r.err, "lfs setstripe: setstripe error for '" + mount() + "/f': stripe already set\n");
  EXPECT_EQ(Out({"getstripe", "-c", mount() + "/f"}), "1");
  EXPECT_EQ(Lfs({"setstripe", "-S", "100k", mount() + "/g"}).exit_code, 4);  // not a multiple of 64 KiB
}

TEST_F(SimLayoutTest, SetstripeLogsLayoutRecords) {
  RegisterEverywhere(1);
  MakeDirs(mount() + "/d");
  ASSERT_EQ(Lfs({"setstripe", "-c", "2", mount() + "/d"}).exit_code, 0);
  ASSERT_EQ(Lfs({"setstripe", "-c", "3", mount() + "/d/f"}).exit_code, 0);
  WriteFile(mount() + "/d/plain", "");
  std::vector<lustre::ChangelogRecord> records = Changelog(0);
  std::vector<std::pair<uint32_t, lustre::Fid>> seen;
  for (const auto& r : records) seen.emplace_back(r.type, r.tfid);
  const lustre::Fid d = PathFid("d"), f = PathFid("d/f"), plain = PathFid("d/plain");
  const std::vector<std::pair<uint32_t, lustre::Fid>> expected = {
      {CL_MKDIR, d}, {CL_LAYOUT, d}, {CL_CREATE, f}, {CL_LAYOUT, f}, {CL_CREATE, plain}, {CL_CLOSE, plain}};
  EXPECT_EQ(seen, expected);
}

TEST_F(SimLayoutTest, TheLibraryReadsLayoutsThroughTheLovAttribute) {
  ASSERT_NO_FATAL_FAILURE(Pools());
  ASSERT_EQ(Lfs({"setstripe", "-p", "fast", "-c", "2", "-i", "2", "-S", "2M", mount() + "/p"}).exit_code, 0);
  WriteFile(mount() + "/plain", "x");
  const std::string lib_path = std::string(FATHOM_BUILD_DIR) + "/lustre/liblustreapi.so";
  void* lib = dlopen(lib_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto get = reinterpret_cast<llapi_layout_get_by_path_fn>(dlsym(lib, "llapi_layout_get_by_path"));
  auto free_layout = reinterpret_cast<llapi_layout_free_fn>(dlsym(lib, "llapi_layout_free"));
  auto count_get = reinterpret_cast<llapi_layout_stripe_count_get_fn>(dlsym(lib, "llapi_layout_stripe_count_get"));
  auto size_get = reinterpret_cast<llapi_layout_stripe_size_get_fn>(dlsym(lib, "llapi_layout_stripe_size_get"));
  auto pool_get = reinterpret_cast<llapi_layout_pool_name_get_fn>(dlsym(lib, "llapi_layout_pool_name_get"));
  auto ost_get = reinterpret_cast<llapi_layout_ost_index_get_fn>(dlsym(lib, "llapi_layout_ost_index_get"));
  auto obd_count = reinterpret_cast<int (*)(char*, int*, int)>(dlsym(lib, "llapi_get_obd_count"));
  ASSERT_TRUE(get && free_layout && count_get && size_get && pool_get && ost_get && obd_count);

  llapi_layout* layout = get((mount() + "/p").c_str(), 0);
  ASSERT_NE(layout, nullptr) << std::strerror(errno);
  uint64_t count = 0, size = 0, ost = 0;
  char pool[LOV_MAXPOOLNAME + 1] = {};
  EXPECT_EQ(count_get(layout, &count), 0);
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(size_get(layout, &size), 0);
  EXPECT_EQ(size, 2u << 20);
  EXPECT_EQ(pool_get(layout, pool, sizeof(pool)), 0);
  EXPECT_STREQ(pool, "fast");
  EXPECT_EQ(ost_get(layout, 0, &ost), 0);
  EXPECT_EQ(ost, 2u);
  EXPECT_EQ(ost_get(layout, 1, &ost), 0);
  EXPECT_EQ(ost, 3u);
  errno = 0;
  EXPECT_EQ(ost_get(layout, 2, &ost), -1);
  EXPECT_EQ(errno, EINVAL);
  free_layout(layout);

  layout = get((mount() + "/plain").c_str(), 0);
  ASSERT_NE(layout, nullptr);
  EXPECT_EQ(count_get(layout, &count), 0);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(pool_get(layout, pool, sizeof(pool)), 0);
  EXPECT_STREQ(pool, "");
  free_layout(layout);

  errno = 0;
  EXPECT_EQ(get(mount().c_str(), 0), nullptr);  // a directory without a file layout
  EXPECT_EQ(errno, ENODATA);
  EXPECT_EQ(get((mount() + "/missing").c_str(), 0), nullptr);
  EXPECT_EQ(errno, ENOENT);
  std::string mnt = mount();
  int osts = 0;
  EXPECT_EQ(obd_count(mnt.data(), &osts, 0), 0);
  EXPECT_EQ(osts, 4);
  dlclose(lib);
}

}  // namespace
}  // namespace fathom::testing
