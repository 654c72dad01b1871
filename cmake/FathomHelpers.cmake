# One helper per target kind.

# fathom_library(NAME SOURCES a.cpp ... DEPS target ...)
function(fathom_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include ${CMAKE_BINARY_DIR}/generated
                                     PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# fathom_executable(NAME SOURCES ... DEPS ...)
# Linked with mimalloc when FATHOM_MIMALLOC_LIBRARY is set (first, so that it replaces malloc).
function(fathom_executable name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PRIVATE ${FATHOM_MIMALLOC_LIBRARY} ${ARG_DEPS})
endfunction()

# fathom_preload_library(NAME SOURCES ...): an LD_PRELOAD tracer (libfathom-io.so,
# libfathom-h5.so), built with the tracers' runtime (src/preload_runtime/) into lib/fathom/.
# It is loaded into programs fathom knows nothing of, so it links nothing but libc: no C++
# library (checked at link time by --no-undefined with the C driver), no sanitizers (a program
# cannot load a sanitized library unless it is sanitized itself), no exceptions, no static
# constructors but its own. It exports only the functions it wraps (the rest is hidden): two
# tracers preloaded together never bind to each other's insides.
function(fathom_preload_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  set(runtime ${PROJECT_SOURCE_DIR}/src/preload_runtime)
  add_library(${name} SHARED ${ARG_SOURCES} ${runtime}/process_env.cpp ${runtime}/trace_sink.cpp
                             ${runtime}/writer_thread.cpp)
  set(options -Wall -Wextra)
  if(FATHOM_WERROR)
    list(APPEND options -Werror)
  endif()
  set_target_properties(${name} PROPERTIES COMPILE_OPTIONS "${options}" LINK_OPTIONS ""
                        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
                        LINKER_LANGUAGE C OUTPUT_NAME ${name} LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/fathom)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(${name} PRIVATE -O2 -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-semantic-interposition
                                         -Wno-ignored-attributes -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=0 -ftls-model=initial-exec)
  target_link_options(${name} PRIVATE -Wl,--no-undefined -Wl,-z,now -nodefaultlibs)
  target_link_libraries(${name} PRIVATE c dl pthread gcc_s)
endfunction()

# fathom_test(NAME SOURCES ... DEPS ... [TIMEOUT seconds] [SERIAL] [ONE_PROCESS] [RELEASE_ONLY])
# SERIAL: never run beside another test (load tests whose figures other tests would disturb).
# ONE_PROCESS: the binary is one ctest entry, NAME, run once, so that its tests share a
# fixture too costly to make per test (a database server started per test suite).
# RELEASE_ONLY: long stress runs at full size, left out of the sanitizer build (FATHOM_SANITIZE),
# which runs the unit and fast integration tests of the same code. They carry the ctest label
# "release" and belong to the target fathom_release_suite (see the Makefile's CI split).
# A GoogleTest binary; otherwise every TEST becomes one ctest entry. Tests find the CLI through the
# FATHOM_BINARY definition and the build directory through FATHOM_BUILD_DIR.
function(fathom_test name)
  cmake_parse_arguments(ARG "SERIAL;ONE_PROCESS;RELEASE_ONLY" "TIMEOUT" "SOURCES;DEPS" ${ARGN})
  if(ARG_RELEASE_ONLY AND FATHOM_SANITIZE)
    return()
  endif()
  set(serial FALSE)
  if(ARG_SERIAL)
    set(serial TRUE)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  if(TARGET fathom_test_pch)
    target_precompile_headers(${name} REUSE_FROM fathom_test_pch)
  endif()
  target_compile_definitions(${name} PRIVATE FATHOM_BINARY="${CMAKE_BINARY_DIR}/fathom"
                                             FATHOM_BUILD_DIR="${CMAKE_BINARY_DIR}")
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  set(labels unit)
  if(ARG_RELEASE_ONLY)
    set(labels release)
    set_property(GLOBAL APPEND PROPERTY FATHOM_RELEASE_SUITE ${name})
  endif()
  if(ARG_ONE_PROCESS)
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} RUN_SERIAL ${serial} LABELS ${labels})
  else()
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
                         PROPERTIES TIMEOUT ${ARG_TIMEOUT} RUN_SERIAL ${serial} LABELS ${labels})
  endif()
endfunction()
