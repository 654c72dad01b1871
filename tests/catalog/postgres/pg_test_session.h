// pg_test_session.h — what the PostgreSQL layer's tests share: a session on a test server
// that must open, and a row count.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "catalog/postgres/session.h"

namespace fathom::catalog::pg {

// A session on `uri`; fails the test (and returns nullopt) when it does not open.
inline std::optional<Session> OpenOrFail(const std::string& uri, SessionOptions options = {}) {
  auto session = Session::Open(uri, options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return std::nullopt;
  return std::move(session).value();
}

// SELECT count(*) FROM `table`, or -1 (with a test failure) when the query fails.
inline int64_t CountRows(Session& session, const std::string& table) {
  auto rows = session.Query("SELECT count(*) FROM " + table, {}, "count the rows");
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  return rows.ok() ? rows->Int(0, 0) : -1;
}

}  // namespace fathom::catalog::pg
