# fathom — the two commands of the quick start:
#   make run DIR=/path/to/watch   install what is missing, build, watch DIR recursively with the store
#   make test                     install what is missing, build, run every test (also under ASan+UBSan,
#                                 the benchmarks' smoke runs and the long stress runs aside) and every
#                                 fuzzer for FUZZ_SECONDS each (6 in CI, else 20); in CI (CI=true) the
#                                 release build runs only the stress and smoke runs (label "release")
BUILD      ?= build
ASAN_BUILD ?= build-asan
STORE      ?= fathom-events.db
DIR        ?=
WERROR     := $(if $(CI),ON,OFF)
CMAKE_ARGS ?=
# In CI, line tables only: stack traces keep file:line, and the three builds fit on a small disk.
DEBUG_ARGS := $(if $(CI),-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG",)
# Fuzzing stays short in CI; `make fuzz` (or FUZZ_SECONDS=N) fuzzes longer.
FUZZ_SECONDS ?= $(if $(CI),6,20)
PREFIX     ?= /usr/local

.PHONY: deps build build-asan build-release-suite run test test-release test-asan fuzz bench install clean

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFATHOM_WERROR=$(WERROR) $(DEBUG_ARGS) $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD)

# The sanitizer build uses clang-14 and lld: a third less build time than GCC for the same
# ASan+UBSan checks.
ASAN_TOOLS := -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
              -DCMAKE_EXE_LINKER_FLAGS_INIT=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS_INIT=-fuse-ld=lld

build-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFATHOM_SANITIZE=ON -DFATHOM_BUILD_BENCH=OFF -DFATHOM_WERROR=$(WERROR) $(ASAN_TOOLS) $(DEBUG_ARGS) $(CMAKE_ARGS) >/dev/null
	@cmake --build $(ASAN_BUILD)

run: build
	@if [ -z "$(DIR)" ]; then echo "usage: make run DIR=/path/to/watch [STORE=events.db]" >&2; exit 2; fi
	./$(BUILD)/fathom watch -r "$(DIR)" --store "$(STORE)"

# In CI the release build makes and runs only the suite labelled "release" (the long stress runs
# and the benchmarks' smoke runs); every other test runs once, under ASan+UBSan (test-asan).
# Elsewhere both builds run every test they have.
test-release: $(if $(CI),build-release-suite,build)
	ctest --test-dir $(BUILD) --output-on-failure -j2 $(if $(CI),-L release,)

build-release-suite: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFATHOM_WERROR=$(WERROR) $(DEBUG_ARGS) $(CMAKE_ARGS) >/dev/null
	@cmake --build $(BUILD) --target fathom_release_suite

test-asan: build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j2

fuzz: deps
	FUZZ_DEBUG=$(if $(CI),-g1,-g) bash scripts/run-fuzzers.sh $(FUZZ_SECONDS)

test: test-release test-asan fuzz

install: build
	cmake --install $(BUILD) --prefix "$(PREFIX)"

bench: build
	/usr/bin/python3 bench/run_local_bench.py --build $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
