// lustreapi_loader.h — the emulator's liblustreapi.so from build/lustre, loaded with dlopen
// as a Lustre client program would load the real one, for the tests of its exports.
//
// LustreApi::Load() opens the library and resolves every llapi_* function the tests call,
// failing the test (gtest ASSERT) naming what is missing; the destructor closes the library.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "lustre/lustre_abi.h"

namespace fathom::testing {

typedef int (*llapi_changelog_start_user_fn)(void**, enum changelog_send_flag, const char*, const char*, uint64_t,
                                             long long);
typedef int (*llapi_changelog_in_buf_fn)(void*);

struct LustreApi {
  void* lib = nullptr;
  llapi_changelog_start_fn start = nullptr;
  llapi_changelog_start_user_fn start_user = nullptr;
  llapi_changelog_recv_fn recv = nullptr;
  llapi_changelog_free_fn free_rec = nullptr;
  llapi_changelog_clear_fn clear = nullptr;
  llapi_changelog_fini_fn fini = nullptr;
  llapi_changelog_set_xflags_fn set_xflags = nullptr;
  llapi_changelog_get_fd_fn get_fd = nullptr;
  llapi_changelog_in_buf_fn in_buf = nullptr;
  llapi_fid2path_fn fid2path = nullptr;
  llapi_path2fid_fn path2fid = nullptr;
  int (*get_obd_count)(char* mnt, int* count, int is_mdt) = nullptr;

  LustreApi() = default;
  LustreApi(const LustreApi&) = delete;
  LustreApi& operator=(const LustreApi&) = delete;
  ~LustreApi() {
    if (lib != nullptr) dlclose(lib);
  }

  // Call with ASSERT_NO_FATAL_FAILURE(api.Load()).
  void Load() {
    const std::string path = std::string(FATHOM_BUILD_DIR) + "/lustre/liblustreapi.so";
    lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    Resolve(start, "llapi_changelog_start");
    Resolve(start_user, "llapi_changelog_start_user");
    Resolve(recv, "llapi_changelog_recv");
    Resolve(free_rec, "llapi_changelog_free");
    Resolve(clear, "llapi_changelog_clear");
    Resolve(fini, "llapi_changelog_fini");
    Resolve(set_xflags, "llapi_changelog_set_xflags");
    Resolve(get_fd, "llapi_changelog_get_fd");
    Resolve(in_buf, "llapi_changelog_in_buf");
    Resolve(fid2path, "llapi_fid2path");
    Resolve(path2fid, "llapi_path2fid");
    Resolve(get_obd_count, "llapi_get_obd_count");
  }

 private:
  template <typename F>
  void Resolve(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    ASSERT_NE(fn, nullptr) << name;
  }
};

}  // namespace fathom::testing
