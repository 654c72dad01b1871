// sqlite_file_open.h — opening one of fathom's SQLite files (a catalog, a rules outbox) for
// reading or writing, with the same checks and words for each: a directory given for the
// file, a missing file for a reader, and a reader on media where the -shm file beside it can
// neither be found nor made (read as immutable when the WAL holds nothing, refused with the
// way out when it does). Any thread; the connection is the caller's.
#pragma once

#include <string>
#include <string_view>

#include "store/sqlite_handle.h"

namespace fathom::store {

// `a_noun`: the file as "not a ..." names it ("a fathom catalog"); `missing_remedy`: what to do
// when a reader finds no file ("create it with a scan first"). Writers create the file.
Result<Connection> OpenSqliteFile(const std::string& path, bool read_only, int busy_timeout_ms,
                                  const SqliteFileKind& kind, std::string_view a_noun,
                                  std::string_view missing_remedy);

}  // namespace fathom::store
