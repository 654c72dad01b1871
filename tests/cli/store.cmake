# `fathom events` and the store under `fathom watch` killed at random (included by CMakeLists.txt).
fathom_test(events_command_test SOURCES events_command_test.cpp DEPS fathom_store fathom_test_support
            nlohmann_json::nlohmann_json)
fathom_test(store_crash_test SOURCES store_crash_test.cpp DEPS fathom_store fathom_test_support
            nlohmann_json::nlohmann_json TIMEOUT 600)
