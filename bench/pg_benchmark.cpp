// pg_benchmark — Google Benchmark micro-benchmarks of bulk inserts into a PostgreSQL table
// shaped like the catalog's names (parent bigint, name bytea, id bigint, primary key
// (parent, name)), through the catalog's libpq layer (src/catalog/postgres/).
//
// BM_PreparedInsert/<batch>: rows/s of one prepared INSERT per row, a transaction per batch.
// BM_PipelinedInsert/<batch>: the same INSERTs through Session::RunEach (pipeline mode, a
//   round trip per 1000 rows).
// BM_Copy/<batch>: rows/s of one binary COPY per batch (encoding included), a transaction
//   per batch.
// The server is a throwaway PostgreSQL 15 on loopback made like the tests' one
// (tests/support/postgres_server.h): fsync off, so the figures leave out the disk's flushes.
#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/postgres/session.h"
#include "support/postgres_server.h"

namespace fathom::catalog::pg {
namespace {

// One server for the whole run, made at the first benchmark.
testing::PostgresServer& Server() {
  static testing::PostgresServer server;
  return server;
}

// A session on an empty names table, or nullopt after reporting why not.
std::optional<Session> EmptyTable(benchmark::State& state) {
  auto session = Session::Open(Server().uri());
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return std::nullopt;
  }
  Status made = session->Exec(
      "DROP TABLE IF EXISTS names; "
      "CREATE TABLE names (parent bigint, name bytea, id bigint, PRIMARY KEY (parent, name))",
      "make the names table");
  if (!made.ok()) {
    state.SkipWithError(made.message().c_str());
    return std::nullopt;
  }
  return std::move(session).value();
}

// Entries spread over directories of 1000 names, like a scanned tree.
std::string Name(int64_t id) { return "file-" + std::to_string(id) + ".dat"; }
int64_t Parent(int64_t id) { return id / 1000; }

void BM_PreparedInsert(benchmark::State& state) {
  auto session = EmptyTable(state);
  if (!session) return;
  auto insert = session->Prepare("INSERT INTO names VALUES ($1, $2, $3)",
                                 {Type::kInt, Type::kBytes, Type::kInt}, "insert a name");
  if (!insert.ok()) {
    state.SkipWithError(insert.status().message().c_str());
    return;
  }
  const int64_t batch = state.range(0);
  int64_t id = 0;
  for (auto _ : state) {
    Status status = session->Begin();
    for (int64_t i = 0; i < batch && status.ok(); ++i, ++id) {
      const std::string name = Name(id);
      status = session->Run(*insert, {Param::Int(Parent(id)), Param::Bytes(name), Param::Int(id)}).status();
    }
    if (status.ok()) status = session->Commit();
    if (!status.ok()) {
      state.SkipWithError(status.message().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_PreparedInsert)->ArgName("batch")->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PipelinedInsert(benchmark::State& state) {
  auto session = EmptyTable(state);
  if (!session) return;
  auto insert = session->Prepare("INSERT INTO names VALUES ($1, $2, $3)",
                                 {Type::kInt, Type::kBytes, Type::kInt}, "insert a name");
  if (!insert.ok()) {
    state.SkipWithError(insert.status().message().c_str());
    return;
  }
  const int64_t batch = state.range(0);
  int64_t id = 0;
  std::vector<std::string> names(static_cast<size_t>(batch));
  std::vector<Param> params;
  for (auto _ : state) {
    params.clear();
    for (int64_t i = 0; i < batch; ++i, ++id) {
      std::string& name = names[static_cast<size_t>(i)];
      name = Name(id);
      params.push_back(Param::Int(Parent(id)));
      params.push_back(Param::Bytes(name));
      params.push_back(Param::Int(id));
    }
    Status status = session->Begin();
    if (status.ok()) status = session->RunEach(*insert, params).status();
    if (status.ok()) status = session->Commit();
    if (!status.ok()) {
      state.SkipWithError(status.message().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_PipelinedInsert)->ArgName("batch")->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Copy(benchmark::State& state) {
  auto session = EmptyTable(state);
  if (!session) return;
  const int64_t batch = state.range(0);
  int64_t id = 0;
  CopyRows rows;
  for (auto _ : state) {
    rows.Clear();
    for (int64_t i = 0; i < batch; ++i, ++id) {
      rows.StartRow(3);
      rows.AddInt(Parent(id));
      rows.AddBytes(Name(id));
      rows.AddInt(id);
    }
    Status status = session->Begin();
    if (status.ok()) {
      status = session->Copy("COPY names (parent, name, id) FROM STDIN (FORMAT binary)", rows, "copy names")
                   .status();
    }
    if (status.ok()) status = session->Commit();
    if (!status.ok()) {
      state.SkipWithError(status.message().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(BM_Copy)->ArgName("batch")->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace fathom::catalog::pg

BENCHMARK_MAIN();
