# Test registration. Unit tests are the *_test.c files beside the code (src/<area>/x_test.c); each
# becomes an executable and a ctest case. Script tests (tests/*.sh) drive the
# built CLI against oracles and fixtures; they get the binary and the repository root.
file(GLOB_RECURSE TS_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/*_test.c)
foreach(src ${TS_UNIT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  # Unit tests reach the internals they test (src/), unlike the CLI and the server.
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests
                             ${UTF8PROC_INCLUDE})
  target_link_libraries(${name} PRIVATE tessera_server tessera_core)
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

# The public API's boundary (CMakeLists.txt): a file that includes an engine header, compiled with
# the include path src/server and src/cli get, must fail on that include. The probe is built only
# by this test; the test passes on the compiler's "not found" for engine/model.h, so a probe that
# compiles (a boundary gone) or fails for another reason is a failure.
add_library(api_boundary_probe OBJECT EXCLUDE_FROM_ALL ${CMAKE_SOURCE_DIR}/tests/api_boundary_probe.c)
target_include_directories(api_boundary_probe PRIVATE ${CMAKE_SOURCE_DIR}/include ${TS_API_BASE_INCLUDE}
                           ${TS_API_SERVER_INCLUDE})
add_test(NAME api_boundary COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target api_boundary_probe)
set_tests_properties(api_boundary PROPERTIES
  PASS_REGULAR_EXPRESSION "engine/model\\.h'?:? (No such file|file not found)")

# Phi-4-multimodal's HD pixel values as a file, the compiler oracles' vision.main input
# (tests/phi4_bundle_oracle_test.sh builds it on demand).
add_executable(phi4_pixels EXCLUDE_FROM_ALL ${CMAKE_SOURCE_DIR}/tests/oracle/phi4_pixels.c)
target_include_directories(phi4_pixels PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(phi4_pixels PRIVATE tessera_core)
