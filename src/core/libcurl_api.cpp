#include "core/libcurl_api.h"

namespace fathom {
namespace {

constexpr LibraryName kLibCurl{"libcurl.so.4", "libcurl4", "HTTP requests (webhooks)"};

}  // namespace

FATHOM_LIBRARY_LOADER(LibCurl, FATHOM_LIBCURL_FUNCTIONS, kLibCurl, LoadLibCurl)

}  // namespace fathom
