// The translation unit the tests' precompiled header is made with (tests/CMakeLists.txt): under
// the sanitizers every test target reuses it.
