// libcurl_api.h — libcurl's functions, loaded the first time fathom makes an HTTP request
// (see core/lazy_library.h): commands that post nothing never load libcurl.
//
// Contract: LoadLibCurl() loads libcurl.so.4 once and returns the table, or an error naming
// the package to install. Calls go through the table's pointers, so curl's macros that check
// curl_easy_setopt's argument types are turned off here (they would rename the calls).
// Threading: any thread; the table is immutable once loaded.
#pragma once

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "core/lazy_library.h"

namespace fathom {

#define FATHOM_LIBCURL_FUNCTIONS(X) \
  X(curl_easy_cleanup)              \
  X(curl_easy_getinfo)              \
  X(curl_easy_header)               \
  X(curl_easy_init)                 \
  X(curl_easy_perform)              \
  X(curl_easy_setopt)               \
  X(curl_easy_strerror)             \
  X(curl_slist_append)              \
  X(curl_slist_free_all)

struct LibCurl {
  FATHOM_LIBCURL_FUNCTIONS(FATHOM_LIBRARY_MEMBER)
};

Result<const LibCurl*> LoadLibCurl();

}  // namespace fathom
