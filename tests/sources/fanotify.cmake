# fanotify source tests: real kernel events (as root) in temporary directories under /tmp and
# /dev/shm, plus the source's pure parts.
fathom_test(fanotify_source_test
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/fanotify_source_test.cpp
            DEPS fathom_source_fanotify fathom_test_support)
fathom_test(fanotify_internals_test
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/fanotify_internals_test.cpp
            DEPS fathom_source_fanotify)
fathom_test(fanotify_matches_inotify_test
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/fanotify_matches_inotify_test.cpp
            DEPS fathom_source_fanotify fathom_source_inotify fathom_test_support)
# Times Start(): other tests' load would disturb the figure.
fathom_test(fanotify_setup_cost_test
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/fanotify_setup_cost_test.cpp
            DEPS fathom_source_fanotify fathom_test_support
            SERIAL TIMEOUT 300)
