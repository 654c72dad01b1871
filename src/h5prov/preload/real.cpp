// real.cpp — finding HDF5's functions in the process (h5_real.h).
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "h5prov/h5_format.h"
#include "h5prov/preload/h5_real.h"

namespace fathom::h5prov::preload::real {
namespace {

struct Search {
  bool high_level;   // H5DO*: libhdf5_hl (which also reaches libhdf5 through its dependencies)
  const char* name;  // the symbol
  void* found;
};

// True for the file name of an HDF5 C library: libhdf5*.so*, the high-level one or not, never
// the C++ or Fortran bindings.
bool IsHdf5(const char* path, bool high_level) {
  const char* base = strrchr(path, '/');
  base = base != nullptr ? base + 1 : path;
  if (strncmp(base, "libhdf5", 7) != 0) return false;
  if (strstr(base, "cpp") != nullptr || strstr(base, "fortran") != nullptr) return false;
  return (strstr(base, "_hl") != nullptr) == high_level;
}

int Visit(struct dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (info->dlpi_name == nullptr || !IsHdf5(info->dlpi_name, search->high_level)) return 0;
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  search->found = dlsym(handle, search->name);
  dlclose(handle);  // RTLD_NOLOAD took a reference; the library stays loaded by its owner
  return search->found != nullptr ? 1 : 0;
}

}  // namespace

void* Find(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name); f != nullptr) return f;
  Search search{strncmp(name, "H5DO", 4) == 0, name, nullptr};
  dl_iterate_phdr(Visit, &search);
  return search.found;
}

bool Hdf5Loaded() { return Find("H5open") != nullptr; }

uint8_t Flavour() {
  Dl_info info;
  void* f = reinterpret_cast<void*>(H5get_libversion());
  if (f == nullptr || dladdr(f, &info) == 0 || info.dli_fname == nullptr) return format::kFlavourUnknown;
  if (strstr(info.dli_fname, "openmpi") != nullptr) return format::kFlavourOpenMpi;
  return strstr(info.dli_fname, "serial") != nullptr ? format::kFlavourSerial : format::kFlavourUnknown;
}

}  // namespace fathom::h5prov::preload::real
