/* stablehlo_reader_fuzz.c — libFuzzer target: arbitrary bytes as StableHLO text.
 *
 * Feeds ts_stablehlo_read. A failure must carry a "line L:C" message; a success must print, and
 * that text must read back and print to the same bytes (the reader accepts what the printer
 * writes, and nothing it reads changes on a second trip). A crash, sanitizer report or leak is a
 * bug. Graphs holding big constants skip the printing (their text would dwarf the input).
 */
#include "export/printer.h"
#include "export/reader.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_graph *g;
    ts_error err;
    ts_status st = ts_stablehlo_read((const char *)data, size, "fuzz", &g, &err);
    if (st != TS_OK) {
        if (st != TS_ERR_OUT_OF_MEMORY && !strstr(err.message, "fuzz: line ")) abort();
        return 0;
    }
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == TS_OP_CONSTANT && ts_type_bytes(&g->nodes[i].type) > (1u << 16)) {
            ts_graph_destroy(g);
            return 0;
        }
    char *text, *again = NULL;
    size_t len, len2;
    if (ts_stablehlo_print(g, "fuzz", &text, &len, &err) != TS_OK) abort();
    ts_graph *back;
    if (ts_stablehlo_read(text, len, "printed", &back, &err) != TS_OK) abort();
    if (ts_stablehlo_print(back, "fuzz", &again, &len2, &err) != TS_OK) abort();
    if (len != len2 || memcmp(text, again, len) != 0) abort();
    free(text);
    free(again);
    ts_graph_destroy(back);
    ts_graph_destroy(g);
    return 0;
}
