#include "catalog/postgres/libpq_api.h"

namespace fathom::catalog::pg {
namespace {

constexpr LibraryName kLibPq{"libpq.so.5", "libpq5", "PostgreSQL catalogs"};

}  // namespace

FATHOM_LIBRARY_LOADER(LibPq, FATHOM_LIBPQ_FUNCTIONS, kLibPq, LoadLibPq)

const LibPq& Pq() { return LoadedOrExit(LoadLibPq()); }

}  // namespace fathom::catalog::pg
