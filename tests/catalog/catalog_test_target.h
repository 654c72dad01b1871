// catalog_test_target.h — the backend a catalog test binary runs its cases on. The same test
// sources build two binaries: one on SQLite files (catalog_test, catalog_model_test), one
// compiled with FATHOM_CATALOG_TEST_POSTGRES on PostgreSQL (catalog_pg_test,
// catalog_model_pg_test), where one server is started per binary, at the first catalog asked
// for, and every catalog is a database of its own on it. One thread.
#pragma once

#include <string>

#include "support/temp_dir.h"

namespace fathom::testing {

#ifdef FATHOM_CATALOG_TEST_POSTGRES
inline constexpr bool kPostgresTarget = true;
#else
inline constexpr bool kPostgresTarget = false;
#endif

// "sqlite" or "postgresql", as CatalogInfo::backend names it.
const char* TargetBackend();

// The URI of a new, empty catalog named `name`: `dir`/NAME.db, or a new database.
std::string NewCatalogUri(const TempDir& dir, const std::string& name);

// The URI of a new SQLite catalog `dir`/NAME.db, whatever the target.
std::string NewSqliteUri(const TempDir& dir, const std::string& name);

// Runs `sql` on the catalog at `uri` (made by NewCatalogUri), outside the catalog: to tamper
// with its tables. Fails the test when it fails.
void ExecOnCatalog(const std::string& uri, const std::string& sql);

}  // namespace fathom::testing
