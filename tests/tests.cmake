# Test registration. Unit tests are the *_test.c files beside the code (src/<area>/x_test.c); each
# becomes an executable and a ctest case. Script tests (tests/*.sh) drive the
# built CLI against oracles and fixtures; they get the binary and the repository root.
file(GLOB_RECURSE TS_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/*_test.c)
foreach(src ${TS_UNIT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE tessera_core)
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  # 77 = skipped: a test whose oracle (e.g. PIL at test time) is not installed.
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "TS_ROOT=${CMAKE_SOURCE_DIR}"
    SKIP_RETURN_CODE 77)
endforeach()

file(GLOB TS_SCRIPT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/*_test.sh)
foreach(script ${TS_SCRIPT_TESTS})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME ${name} COMMAND bash ${script} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "TS_BIN=$<TARGET_FILE:tessera>;TS_ROOT=${CMAKE_SOURCE_DIR};TS_BUILD=${CMAKE_BINARY_DIR}"
    SKIP_RETURN_CODE 77)
endforeach()
