#include "core/lazy_library.h"

namespace fathom {

Result<void*> OpenLibrary(const LibraryName& name) {
  void* handle = dlopen(name.soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::Error(std::string(name.purpose) + " need " + name.soname + ", which cannot be loaded (" +
                         (why != nullptr ? why : "unknown error") + "): install it (apt-get install " +
                         name.package + ")");
  }
  return handle;
}

Result<void*> LibraryFunction(void* handle, const LibraryName& name, const char* symbol) {
  dlerror();
  void* fn = dlsym(handle, symbol);
  if (fn == nullptr) {
    return Status::Error(std::string(name.soname) + " has no function " + symbol +
                         ": it is older than the one fathom was built with (upgrade " + name.package + ")");
  }
  return fn;
}

}  // namespace fathom
