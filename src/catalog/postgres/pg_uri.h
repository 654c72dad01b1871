// pg_uri.h — the catalog's PostgreSQL URIs: postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE
// [?PARAM=VALUE&...] (postgres:// too), libpq's own URI syntax with every libpq parameter
// (sslmode, connect_timeout, ...). A missing password comes from PGPASSWORD or ~/.pgpass as
// libpq finds it. Free functions, safe from any thread.
#pragma once

#include <string_view>

#include "fathom/status.h"

namespace fathom::catalog::pg {

// Whether `uri` names a PostgreSQL database (postgresql:// or postgres://).
bool IsPostgresUri(std::string_view uri);

// Checks that `uri` is a PostgreSQL URI that libpq can read; the error names what is wrong
// without repeating the URI (it may hold a password).
Status CheckUri(std::string_view uri);

}  // namespace fathom::catalog::pg
