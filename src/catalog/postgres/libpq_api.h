// libpq_api.h — libpq's functions, loaded the first time a PostgreSQL catalog is named (see
// core/lazy_library.h): commands that never use PostgreSQL never load libpq.
//
// Contract: LoadLibPq() loads libpq.so.5 once and returns the table, or an error naming the
// package to install; every path into PostgreSQL starts with it (CheckUri). Pq() is the
// table for code that runs after that (it ends the program, naming the library, if it could
// not be loaded). Threading: any thread; the table is immutable once loaded.
#pragma once

#include <libpq-fe.h>

#include "core/lazy_library.h"

namespace fathom::catalog::pg {

#define FATHOM_LIBPQ_FUNCTIONS(X) \
  X(PQclear) \
  X(PQcmdStatus) \
  X(PQcmdTuples) \
  X(PQconnectdbParams) \
  X(PQconnectionNeedsPassword) \
  X(PQconninfoFree) \
  X(PQconninfoParse) \
  X(PQdb) \
  X(PQenterPipelineMode) \
  X(PQerrorMessage) \
  X(PQexec) \
  X(PQexecParams) \
  X(PQexecPrepared) \
  X(PQexitPipelineMode) \
  X(PQfinish) \
  X(PQfreemem) \
  X(PQftype) \
  X(PQgetResult) \
  X(PQgetisnull) \
  X(PQgetlength) \
  X(PQgetvalue) \
  X(PQhost) \
  X(PQnfields) \
  X(PQntuples) \
  X(PQpipelineSync) \
  X(PQport) \
  X(PQprepare) \
  X(PQputCopyData) \
  X(PQputCopyEnd) \
  X(PQresultErrorField) \
  X(PQresultStatus) \
  X(PQsendQueryPrepared) \
  X(PQsetNoticeProcessor) \
  X(PQstatus) \
  X(PQtransactionStatus) \
  X(PQuser)

struct LibPq {
  FATHOM_LIBPQ_FUNCTIONS(FATHOM_LIBRARY_MEMBER)
};

Result<const LibPq*> LoadLibPq();
const LibPq& Pq();

}  // namespace fathom::catalog::pg
