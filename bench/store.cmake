# store_benchmark: Google Benchmark micro-benchmarks of the SQLite event store (append rows/s
# per sync mode, retention and path-index costs, replay rate). Run: build/store_benchmark
find_package(benchmark CONFIG REQUIRED)
fathom_executable(store_benchmark SOURCES store_benchmark.cpp DEPS fathom_store benchmark::benchmark)
