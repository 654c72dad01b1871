# inotify source tests: real kernel events in temporary directories.
fathom_test(inotify_source_test
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/inotify_source_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/inotify_moves_test.cpp
                    ${CMAKE_CURRENT_LIST_DIR}/inotify_overflow_test.cpp
            DEPS fathom_source_inotify fathom_test_support Threads::Threads)
fathom_test(inotify_limits_test
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/inotify_limits_test.cpp
            DEPS fathom_source_inotify fathom_test_support)
# Load test: its rate would be disturbed by (and would disturb) other tests.
fathom_test(inotify_no_loss_test
            SOURCES ${CMAKE_CURRENT_LIST_DIR}/inotify_no_loss_test.cpp
            DEPS fathom_source_inotify fathom_test_support
            SERIAL TIMEOUT 180)
