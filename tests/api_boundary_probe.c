/* api_boundary_probe.c — must not compile: the api_boundary test (tests/tests.cmake) builds it
 * with the include path of src/server and src/cli and expects the compiler to refuse the engine
 * header below. The first two includes are what those folders may use, and must be found. */
#include "base/error.h"
#include "tessera.h"

#include "engine/model.h"

int ts_api_boundary_probe(void) { return 0; }
