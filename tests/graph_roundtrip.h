/* graph_roundtrip.h — the two checks every tower test makes of its graph once the fused run has
 * given `outs`: the decomposed graph (what the exporter prints) holds only primitives and computes
 * each output within tol · max(1, max |fused|) on the reference evaluator; and the graph printed as
 * StableHLO and read back runs to the same bits. Include after check.h and fixture_compare.h.
 */
#ifndef TS_TESTS_GRAPH_ROUNDTRIP_H
#define TS_TESTS_GRAPH_ROUNDTRIP_H

#include "cpu/executor.h"
#include "cpu/reference.h"
#include "export/printer.h"
#include "export/reader.h"
#include "graph/decompose.h"

#include <stdlib.h>
#include <string.h>

/* `first` names output 0 in the log line; `module` is the StableHLO module's name. */
static inline void check_graph_roundtrip(ts_graph *g, void **params, const void **outs, ts_context *ctx,
                                         const char *module, const char *first, double tol)
{
    ts_error err = {0};
    ts_graph *dg = NULL;
    void **vals = NULL;
    CHECK_INT_EQ(ts_graph_decompose(g, &dg, NULL, &err), TS_OK);
    bool ran = dg && ts_reference_run(dg, (const void *const *)params, &vals, &err) == TS_OK;
    CHECK(ran);
    if (!ran) fprintf(stderr, "  decomposed: %s\n", err.message);
    bool primitive = ran;
    for (int32_t i = 0; ran && i < dg->n_nodes; i++) primitive &= !ts_op_get_info(dg->nodes[i].op)->composite;
    CHECK(primitive);
    for (int o = 0; ran && o < dg->n_outputs; o++) {
        double scale, d = max_diff(vals[dg->outputs[o]], outs[o], (size_t)ts_type_elements(ts_graph_type(dg, dg->outputs[o])), &scale);
        if (o == 0) fprintf(stderr, "  decomposed vs fused: %s max |diff| %.3g\n", first, d);
        if (!(d <= tol * scale)) fprintf(stderr, "  decomposed output %d differs by %.3g\n", o, d);
        CHECK(d <= tol * scale);
    }
    if (vals) ts_reference_free(dg, vals);
    ts_graph_destroy(dg);

    char *text = NULL;
    size_t len = 0;
    ts_graph *back = NULL;
    ts_program *back_prog = NULL;
    const void **back_outs = calloc((size_t)g->n_outputs + 1, sizeof(*back_outs));
    bool exported = back_outs && ts_stablehlo_print(g, module, &text, &len, &err) == TS_OK &&
                    ts_stablehlo_read(text, len, module, &back, &err) == TS_OK &&
                    ts_program_create(back, ctx, &back_prog, &err) == TS_OK &&
                    ts_program_run(back_prog, params, back_outs, &err) == TS_OK;
    if (!exported) fprintf(stderr, "  StableHLO round trip: %s\n", err.message);
    CHECK(exported);
    for (int o = 0; exported && o < g->n_outputs; o++)
        CHECK(memcmp(back_outs[o], outs[o], ts_type_bytes(ts_graph_type(g, g->outputs[o]))) == 0);
    if (exported) fprintf(stderr, "  StableHLO round trip (%zu bytes of text): same outputs\n", len);
    ts_program_destroy(back_prog);
    ts_graph_destroy(back);
    free(back_outs);
    free(text);
}

#endif
