#include "core/libcurl_api.h"

namespace fathom {
namespace {

constexpr LibraryName kLibCurl{"libcurl.so.4", "libcurl4", "HTTP requests (webhooks)"};

Result<LibCurl> Bind() {
  const LibraryName& name = kLibCurl;
  FATHOM_ASSIGN_OR_RETURN(void* handle, OpenLibrary(name));
  LibCurl table;
  FATHOM_LIBCURL_FUNCTIONS(FATHOM_LIBRARY_BIND)
  return table;
}

}  // namespace

Result<const LibCurl*> LoadLibCurl() {
  static const Result<LibCurl> loaded = Bind();
  if (!loaded.ok()) return loaded.status();
  return &loaded.value();
}

}  // namespace fathom
