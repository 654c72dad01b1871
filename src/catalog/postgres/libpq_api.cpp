#include "catalog/postgres/libpq_api.h"

#include <cstdio>
#include <cstdlib>

namespace fathom::catalog::pg {
namespace {

constexpr LibraryName kLibPq{"libpq.so.5", "libpq5", "PostgreSQL catalogs"};

Result<LibPq> Bind() {
  const LibraryName& name = kLibPq;
  FATHOM_ASSIGN_OR_RETURN(void* handle, OpenLibrary(name));
  LibPq table;
  FATHOM_LIBPQ_FUNCTIONS(FATHOM_LIBRARY_BIND)
  return table;
}

}  // namespace

Result<const LibPq*> LoadLibPq() {
  static const Result<LibPq> loaded = Bind();
  if (!loaded.ok()) return loaded.status();
  return &loaded.value();
}

const LibPq& Pq() {
  auto loaded = LoadLibPq();
  if (!loaded.ok()) {
    std::fprintf(stderr, "fathom: %s\n", loaded.status().message().c_str());
    std::abort();
  }
  return **loaded;
}

}  // namespace fathom::catalog::pg
