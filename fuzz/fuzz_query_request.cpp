// fuzz_query_request — a catalog server's request (what any local user may send to its
// socket) read from arbitrary text: either an error, or a request that written again and
// read again is the same request.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "catalog/serve/query_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto request = fathom::catalog::serve::ParseRequest(text);
  if (!request.ok()) return 0;
  const std::string again = fathom::catalog::serve::RequestText(*request);
  auto back = fathom::catalog::serve::ParseRequest(again);
  if (!back.ok() || !(*back == *request)) {
    std::fprintf(stderr, "fuzz_query_request: a request written and read again differs: %s\n", again.c_str());
    std::abort();
  }
  return 0;
}
