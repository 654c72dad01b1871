// store_migration.h — converting older store layouts to the current one, in place.
//
// Called by a writer inside its schema transaction (the caller commits or rolls back), so a
// crash mid-conversion leaves the old layout intact.
#pragma once

#include "fathom/status.h"
#include "store/sqlite_handle.h"

namespace fathom::store {

// Version 1 (events: one row per event) -> the current layout: creates it with
// `create_schema`, moves every event into chunks, keeps last_id and drops `events`.
Status MigrateFromVersion1(const Connection& db, const char* create_schema);

}  // namespace fathom::store
