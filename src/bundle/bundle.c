/* bundle.c — the bundle runtime: load and verify a bundle against a model folder, admit requests
 * to a capacity bucket, and run entries with every argument validated twice.
 *
 * Opening checks, in order, before anything runs: manifest syntax and ABI version, identity
 * (manifest + module texts), the portable artifacts' digests when there are any, config digest,
 * family, a quantized bundle's own weights (bundle_quant.h: the manifest's bits, block, scale dtype
 * and zero points against the schema and the file's tensors), the weight schema against the
 * checkpoint (the quantized tensors against the bundle's file), then each module (parsed back into a graph)
 * against its descriptors — argument order, names, roles, types, results — and its donations:
 * decode.main's k and v go to results 1 and 2 (tf.aliasing_output), updated in place by the plan,
 * and nothing else is donated; every tessera.qlinear as the manifest's quantization says. Errors name the field that differs. vision.main modules (one per
 * patch bucket) are checked the same way against the tower's own weight schema.
 *
 * A call is validated at the API (ts_bundle_run: against the manifest descriptors, plus value
 * ranges) and again at entry execution (run_entry: against the module graph's own parameters,
 * plus the same ranges), so a caller that bypasses one layer still meets the other.
 * prefill_embeddings_deepstack.main (tower rows added to chosen layers) is held to its contract at
 * open (the DeepStack layers those of the model's config, visual_positions i32[Nv_max],
 * layer_features f32[K, Nv_max, H], visual_count i32[] with Nv_max the bucket's visual_capacity ≤
 * Lp) and each call to its values in both layers: visual_count within 0 … Nv_max and ≤ length, the
 * first visual_count positions sorted, unique and below length with finite features, every padding
 * entry exactly the filler (position 0, zero features).
 * The weights no checkpoint holds (bundle_weights: a family's derived parts, LoRA stacks) are read
 * from the bundle's own file, each listed name held to the schema and the file (bundle_tensors.h).
 * LoRA: with an adapters object every language entry must take `adapters` i32 in its tokens'
 * shape and the schema lora.scale [K]; without one no entry may; each call's values are within
 * 0 … K−1 in both layers, the error naming the input and the row. audio.main (one module per
 * duration bucket, its own weight schema) takes audio_features f32[F, mels] and frames i32[] and
 * returns f32[tokens, hidden]; each call's frames is within 1 … F and its features finite, in both
 * layers (ts_bundle_run_audio). Running vision.main and encoding images through it is
 * bundle_vision.c's; encoding audio clips through audio.main bundle_audio.c's.
 */
#include "bundle/bundle.h"
#include "base/error.h"
#include "base/file.h"
#include "bundle/bundle_internal.h"
#include "bundle/bundle_quant.h"
#include "bundle/bundle_tensors.h"
#include "models/vision_entry.h"
#include "bundle/portable.h"
#include "cpu/executor.h"
#include "export/reader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ts_status ts_bundle_config_digest(const char *model_dir, char out[65], ts_error *err);
static int input_index(const ts_entry_descriptors *ed, const char *name);

void ts_bundle_close(ts_bundle *b)
{
    if (!b) return;
    for (int i = 0; i < TS_BUNDLE_MAX_BUCKETS; i++)
        for (int e = 0; e < TS_ENTRY_COUNT; e++) {
            ts_program_destroy(b->programs[i][e]);
            ts_graph_destroy(b->graphs[i][e]);
            free(b->params[i][e]);
        }
    for (int i = 0; i < TS_BUNDLE_MAX_BUCKETS; i++) {
        ts_program_destroy(b->vision_programs[i]);
        ts_graph_destroy(b->vision_graphs[i]);
        free(b->vision_params[i]);
        ts_program_destroy(b->audio_programs[i]);
        ts_graph_destroy(b->audio_graphs[i]);
        free(b->audio_params[i]);
    }
    ts_checkpoint_close(b->ckpt);
    ts_checkpoint_close(b->quant);
    ts_checkpoint_close(b->held);
    ts_manifest_fini(&b->man);
    free(b);
}

/* A weight's tensor: the bundle's own files hold the quantized ones and those no checkpoint has
 * (bundle_weights), the checkpoint the rest; where names the place for an error. */
static const ts_tensor_info *weight_tensor(const ts_bundle *b, const char *name, const char **where)
{
    if (b->quant && ts_bundle_quant_owns(&b->man, name)) {
        if (where) *where = "bundle's quantized weights";
        return ts_checkpoint_find(b->quant, name);
    }
    if (b->held && ts_bundle_tensors_owns(&b->man, name)) {
        if (where) *where = "bundle's weights file";
        return ts_checkpoint_find(b->held, name);
    }
    if (where) *where = "checkpoint";
    return ts_checkpoint_find(b->ckpt, name);
}

/* A weight may be declared in another shape with the same dtype and element count (the towers
 * take patch_embed's [D, C, T, P, P] as the [D, C·T·P·P] matrix it is): the bytes are the same. */
static ts_status check_weights(ts_bundle *b, const ts_descriptor *weights, int n_weights, ts_error *err)
{
    for (int i = 0; i < n_weights; i++) {
        const ts_descriptor *d = &weights[i];
        const char *where;
        const ts_tensor_info *t = weight_tensor(b, d->name, &where);
        if (!t) return ts_error_set(err, TS_ERR_NOT_FOUND, "weights[%d] %s: not in the %s", i, d->name, where);
        ts_type actual = ts_type_make(t->dtype, t->n_dims, t->shape);
        if (actual.dtype == d->type.dtype && ts_type_elements(&actual) == ts_type_elements(&d->type)) actual = d->type;
        char what[32];
        snprintf(what, sizeof(what), "weights[%d]", i);
        ts_status st = ts_descriptor_check(d, &actual, what, err);
        if (st != TS_OK) {
            ts_error_prefix(err, "weight schema: ");
            return st;
        }
    }
    return TS_OK;
}

/* The module's signature must be the manifest's: weights in schema order, then the inputs. */
static ts_status check_module(const ts_descriptor *weights, int n_weights, const ts_entry_descriptors *ed, const char *name,
                              const ts_graph *g, ts_error *err)
{
    int expected = n_weights + ed->n_inputs;
    if (g->n_parameters != expected)
        return ts_error_set(err, TS_ERR_FORMAT, "%s: the module has %d arguments, the manifest %d", ed->file, g->n_parameters, expected);
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        int index = n->attrs.parameter.index;
        const ts_descriptor *d = index < n_weights ? &weights[index] : &ed->inputs[index - n_weights];
        static const char *const roles[] = {"weight", "input", "state"};
        if (strcmp(d->name, n->name) != 0 || strcmp(d->role, roles[n->attrs.parameter.role]) != 0)
            return ts_error_set(err, TS_ERR_FORMAT, "%s argument %d: argument order mismatch: the module has %s (%s), the manifest %s (%s)",
                                name, index, n->name, roles[n->attrs.parameter.role], d->name, d->role);
        char what[160];
        snprintf(what, sizeof(what), "%s argument %d", name, index);
        ts_status st = ts_descriptor_check(d, &n->type, what, err);
        if (st != TS_OK) return st;
    }
    if (g->n_outputs != ed->n_results)
        return ts_error_set(err, TS_ERR_FORMAT, "%s: the module returns %d results, the manifest %d", name, g->n_outputs, ed->n_results);
    for (int k = 0; k < g->n_outputs; k++) {
        char what[160];
        snprintf(what, sizeof(what), "%s result %d", name, k);
        ts_status st = ts_descriptor_check(&ed->results[k], ts_graph_type(g, g->outputs[k]), what, err);
        if (st != TS_OK) return st;
    }
    return TS_OK;
}

/* vision.main's contract. A layout of one fixed-size picture per call: one bucket of (S/P)²
 * patches, pixel_values f32[C, S, S] → f32[tokens, out_hidden]. A patch-row layout: buckets of N
 * patches ascending, each a multiple of merge², with the argument names and types of its
 * ts_vision_layout (pixel_values f32[N, D] with D the same in every bucket) — a second result is
 * deepstack f32[K, N / merge², out_hidden] with K the manifest's vision.deepstack_levels, the
 * language side's DeepStack layers. ts_bundle_encode_images builds its arguments from this. */
static ts_status check_vision_contract(const ts_manifest *m, ts_error *err)
{
    const ts_vision_manifest *v = &m->vision;
    const ts_vision_layout *layout = ts_vision_layout_find(v->layout);
    if (v->n_buckets && !layout)
        return ts_error_set(err, TS_ERR_FORMAT, "vision: layout \"%s\" is not one Tessera runs",
                            v->layout);
    if (v->n_buckets && !layout->types) {
        const ts_entry_descriptors *ed = &v->entries[0];
        const ts_type *px = ed->n_inputs == 1 ? &ed->inputs[0].type : NULL, *out = ed->n_results == 1 ? &ed->results[0].type : NULL;
        int64_t side = px && px->rank == 3 ? px->dims[1] / v->patch_size : 0;
        if (v->n_buckets != 1 || !px || !out || strcmp(ed->inputs[0].name, "pixel_values") != 0 || px->dtype != TS_DTYPE_F32 ||
            px->dims[1] != px->dims[2] || px->dims[1] % v->patch_size || side * side != v->patches[0] || out->dtype != TS_DTYPE_F32 ||
            out->rank != 2 || out->dims[1] != v->out_hidden)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s: a %s vision.main has one bucket of (S/%lld)² patches, takes "
                                "pixel_values f32[C, S, S] and "
                                "returns f32[tokens, %lld]",
                                ed->file, v->layout, (long long)v->patch_size,
                                (long long)v->out_hidden);
        return TS_OK;
    }
    if (v->n_buckets && layout->n_results > 1 && v->deepstack_levels != m->n_deepstack)
        return ts_error_set(err, TS_ERR_FORMAT,
                            "vision: vision.main gives %d DeepStack levels, the bundle's prefill_embeddings_deepstack.main takes %d",
                            v->deepstack_levels, m->n_deepstack);
    const ts_vision_entry_geometry geo = {.layout = v->layout,
                                          .patch = v->patch_size,
                                          .image_patches = v->view_patches,
                                          .merge = v->merge_size,
                                          .out_hidden = v->out_hidden,
                                          .deepstack = v->deepstack_levels};
    /* hd_views' buckets are whole views; the patch-row layouts' whole merge units. */
    int64_t unit = v->view_patches ? v->view_patches : v->merge_size * v->merge_size, dim = 0;
    for (int b = 0; b < v->n_buckets; b++) {
        const ts_entry_descriptors *ed = &v->entries[b];
        int64_t n = v->patches[b];
        if ((b && n <= v->patches[b - 1]) || n % unit)
            return ts_error_set(err, TS_ERR_FORMAT, "vision bucket %d: %lld patches (buckets ascend, each a multiple of %lld)", b,
                                (long long)n, (long long)unit);
        /* D: pixel_values' values per row (a patch row, or a view's picture). */
        const ts_type *px0 = ed->n_inputs ? &ed->inputs[0].type : NULL;
        if (!dim) dim = px0 && px0->rank >= 2 && px0->dims[0] > 0 ? ts_type_elements(px0) / px0->dims[0] : 0;
        ts_type inputs[TS_VISION_MAX_ARGS], results[2];
        layout->types(&geo, n, dim > 0 ? dim : 1, inputs, results);
        bool ok = dim > 0 && ed->n_inputs == layout->n_inputs && ed->n_results == layout->n_results;
        for (int i = 0; ok && i < layout->n_inputs; i++)
            ok = strcmp(ed->inputs[i].name, layout->inputs[i]) == 0 &&
                 ts_type_equal(&ed->inputs[i].type, &inputs[i]);
        for (int i = 0; ok && i < layout->n_results; i++)
            ok = ts_type_equal(&ed->results[i].type, &results[i]);
        if (!ok) {
            char want[512] = "", t[128];
            for (int i = 0, at = 0;
                 i < layout->n_inputs + layout->n_results && at < (int)sizeof(want); i++) {
                bool input = i < layout->n_inputs;
                ts_type_string(input ? &inputs[i] : &results[i - layout->n_inputs], t, sizeof(t));
                if (input && i == 0 && inputs[0].rank == 2) snprintf(t, sizeof(t), "F32[%lld, D]", (long long)n);
                at += snprintf(want + at, sizeof(want) - (size_t)at, "%s%s %s",
                               i == 0                  ? ""
                               : i == layout->n_inputs ? " and return "
                                                       : ", ",
                               input                   ? layout->inputs[i]
                               : i == layout->n_inputs ? "image_embeds"
                                                       : "deepstack",
                               t);
            }
            return ts_error_set(err, TS_ERR_FORMAT, "%s: vision.main (layout %s) must take %s",
                                ed->file, v->layout, want);
        }
    }
    return TS_OK;
}

/* prefill_embeddings_deepstack.main's contract, per bucket: prefill_embeddings.main's four inputs,
 * then visual_positions i32[Nv_max], layer_features f32[K, Nv_max, H], visual_count i32[], with
 * K the manifest's DeepStack layers — those the model's config declares — and Nv_max the bucket's
 * visual_capacity (≤ Lp). */
static ts_status check_deepstack_contract(const ts_manifest *m, const ts_model_config *cfg, ts_error *err)
{
    ts_decoder_spec spec;
    ts_status st = ts_decoder_spec_init(cfg, &spec, err);
    if (st != TS_OK) return st;
    bool same = spec.n_deepstack == m->n_deepstack;
    for (int i = 0; same && i < m->n_deepstack; i++) same = spec.deepstack_layers[i] == m->deepstack_layers[i];
    if (!same) {
        char ours[128] = "", theirs[128] = "";
        for (int i = 0, at = 0; i < m->n_deepstack && at < (int)sizeof(ours); i++)
            at += snprintf(ours + at, sizeof(ours) - (size_t)at, "%s%d", i ? ", " : "", m->deepstack_layers[i]);
        for (int i = 0, at = 0; i < spec.n_deepstack && at < (int)sizeof(theirs); i++)
            at += snprintf(theirs + at, sizeof(theirs) - (size_t)at, "%s%d", i ? ", " : "", spec.deepstack_layers[i]);
        return ts_error_set(err, TS_ERR_FORMAT, "deepstack: the manifest's DeepStack layers [%s] are not the model config's [%s]", ours,
                            theirs);
    }
    for (int b = 0; b < m->n_buckets && m->n_deepstack; b++) {
        const ts_entry_descriptors *plain = &m->entries[b][TS_ENTRY_PREFILL_EMBEDDINGS];
        const ts_entry_descriptors *ed = &m->entries[b][TS_ENTRY_PREFILL_EMBEDDINGS_DEEPSTACK];
        int64_t nv = m->visual_capacity[b], h = plain->n_inputs > 0 && plain->inputs[0].type.rank == 2 ? plain->inputs[0].type.dims[1] : 0;
        bool ok = ed->n_inputs == plain->n_inputs + 3 && ed->n_results == plain->n_results && nv >= 1 && nv <= m->buckets[b].prefill_capacity;
        for (int i = 0; ok && i < plain->n_inputs; i++)
            ok = strcmp(ed->inputs[i].name, plain->inputs[i].name) == 0 && ts_type_equal(&ed->inputs[i].type, &plain->inputs[i].type);
        if (ok) {
            const ts_descriptor *pos = &ed->inputs[plain->n_inputs], *feat = pos + 1, *count = pos + 2;
            int64_t fd[3] = {m->n_deepstack, nv, h};
            ts_type want_pos = ts_type_make(TS_DTYPE_I32, 1, &nv), want_feat = ts_type_make(TS_DTYPE_F32, 3, fd),
                    want_count = ts_type_make(TS_DTYPE_I32, 0, NULL);
            ok = strcmp(pos->name, "visual_positions") == 0 && ts_type_equal(&pos->type, &want_pos) &&
                 strcmp(feat->name, "layer_features") == 0 && ts_type_equal(&feat->type, &want_feat) &&
                 strcmp(count->name, "visual_count") == 0 && ts_type_equal(&count->type, &want_count);
        }
        if (!ok)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s: prefill_embeddings_deepstack.main must take prefill_embeddings.main's arguments, then "
                                "visual_positions i32[%lld], layer_features f32[%d, %lld, %lld], visual_count i32[] "
                                "(visual_capacity %lld, within the prefill capacity %lld)",
                                ed->file, (long long)nv, m->n_deepstack, (long long)nv, (long long)h, (long long)nv,
                                (long long)m->buckets[b].prefill_capacity);
    }
    return TS_OK;
}

/* Donation (tf.aliasing_output): decode.main's k and v arguments go to its results 1 and 2 and
 * no other argument of any module is donated; the plan must honour it, writing each cache result
 * over its argument (so a step updates one row per slot and layer, never copies the cache). */
static ts_status check_donation(const ts_graph *g, const ts_program *program, int n_weights, bool decode, const char *name,
                                ts_error *err)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        int index = n->attrs.parameter.index, alias = ts_graph_parameter_alias(g, i);
        int want = !decode || index < n_weights ? -1 : strcmp(n->name, "k") == 0 ? 1 : strcmp(n->name, "v") == 0 ? 2 : -1;
        if (alias == want) continue;
        if (want < 0)
            return ts_error_set(err, TS_ERR_FORMAT, "%s argument %d (%s) is donated to result %d (tf.aliasing_output); the contract donates %s",
                                name, index, n->name, alias, decode ? "only k and v" : "no argument");
        if (alias < 0)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s argument %d (%s) must be donated to result %d (tf.aliasing_output = %d : i32); the module does not declare it",
                                name, index, n->name, want, want);
        return ts_error_set(err, TS_ERR_FORMAT, "%s argument %d (%s) is donated to result %d; the contract donates it to result %d", name,
                            index, n->name, alias, want);
    }
    for (int32_t i = 0; decode && i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        int alias = n->op == TS_OP_PARAMETER ? ts_graph_parameter_alias(g, i) : -1;
        if (alias >= 0 && !ts_program_output_in_place(program, alias, n->attrs.parameter.index))
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "%s: result %d cannot be written over its donated argument %s in place (the module reads the old cache "
                                "after updating it)",
                                name, alias, n->name);
    }
    return TS_OK;
}

/* decode_k.main against decode.main in every bucket: the same arguments and results but K rows
 * per slot (tokens [B, K], positions [B, K] or [3, B, K], logits [B, K, V]), K the manifest's. */
static ts_status check_decode_k_contract(const ts_manifest *m, ts_error *err)
{
    for (int b = 0; m->draft_width && b < m->n_buckets; b++) {
        const ts_entry_descriptors *one = &m->entries[b][TS_ENTRY_DECODE], *ed = &m->entries[b][TS_ENTRY_DECODE_K];
        int64_t k = m->draft_width;
        if (k > m->buckets[b].capacity)
            return ts_error_set(err, TS_ERR_FORMAT, "decode_k.k %lld exceeds bucket %d's capacity %lld", (long long)k, b,
                                (long long)m->buckets[b].capacity);
        bool same = ed->n_inputs == one->n_inputs && ed->n_results == one->n_results;
        for (int i = 0; same && i < ed->n_inputs; i++) {
            ts_type want = one->inputs[i].type;
            bool rows = strcmp(one->inputs[i].name, "tokens") == 0 || strcmp(one->inputs[i].name, "positions") == 0 ||
                        strcmp(one->inputs[i].name, "adapters") == 0;
            if (rows) want.dims[want.rank++] = k;
            same = strcmp(ed->inputs[i].name, one->inputs[i].name) == 0 && ts_type_equal(&ed->inputs[i].type, &want);
        }
        for (int i = 0; same && i < ed->n_results; i++) {
            ts_type want = one->results[i].type;
            if (i == 0) {
                want.rank = 3, want.dims[2] = want.dims[1], want.dims[1] = k;
            }
            same = strcmp(ed->results[i].name, one->results[i].name) == 0 && ts_type_equal(&ed->results[i].type, &want);
        }
        if (!same)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "buckets[%d].entries.decode_k.main: expected decode.main's arguments and results with %lld rows per slot "
                                "(tokens [slots, k], positions [.., slots, k], logits [slots, k, vocab])",
                                b, (long long)k);
    }
    return TS_OK;
}

/* audio.main's contract, per bucket (ascending feature frames F): audio_features f32[F, M] (M
 * the same in every bucket), frames i32[] and projector i32[] (1 … 4 projectors named); one result f32[T, H], T ascending with F and H the
 * language model's width (prefill_embeddings.main's embeddings). */
static ts_status check_audio_contract(const ts_manifest *m, ts_error *err)
{
    const ts_audio_manifest *a = &m->audio;
    const ts_entry_descriptors *pe = &m->entries[0][TS_ENTRY_PREFILL_EMBEDDINGS];
    int64_t hidden = pe->n_inputs && pe->inputs[0].type.rank == 2 ? pe->inputs[0].type.dims[1] : 0, mels = 0, tokens = 0;
    if (a->n_buckets && (a->n_projectors < 1 || a->n_projectors > TS_BUNDLE_MAX_PROJECTORS))
        return ts_error_set(err, TS_ERR_FORMAT, "audio: %d projectors named (1..%d)", a->n_projectors, TS_BUNDLE_MAX_PROJECTORS);
    for (int b = 0; b < a->n_buckets; b++) {
        const ts_entry_descriptors *ed = &a->entries[b];
        int64_t f = a->frames[b];
        if (!mels && ed->n_inputs && ed->inputs[0].type.rank == 2) mels = ed->inputs[0].type.dims[1];
        int64_t fd[2] = {f, mels};
        ts_type feats = ts_type_make(TS_DTYPE_F32, 2, fd), count = ts_type_make(TS_DTYPE_I32, 0, NULL);
        const ts_type *out = ed->n_results == 1 ? &ed->results[0].type : NULL;
        bool ok = (!b || f > a->frames[b - 1]) && mels > 0 && ed->n_inputs == 3 && strcmp(ed->inputs[0].name, "audio_features") == 0 &&
                  ts_type_equal(&ed->inputs[0].type, &feats) && strcmp(ed->inputs[1].name, "frames") == 0 &&
                  ts_type_equal(&ed->inputs[1].type, &count) && strcmp(ed->inputs[2].name, "projector") == 0 &&
                  ts_type_equal(&ed->inputs[2].type, &count) && out && out->dtype == TS_DTYPE_F32 && out->rank == 2 &&
                  out->dims[1] == hidden && out->dims[0] >= tokens && out->dims[0] >= 1 && out->dims[0] <= f;
        if (!ok)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s: audio bucket %d (%lld frames, ascending) must take audio_features F32[%lld, %lld], frames "
                                "I32[] and projector I32[] and return audio_embeds F32[tokens, %lld]",
                                ed->file, b, (long long)f, (long long)f, (long long)mels, (long long)hidden);
        tokens = out->dims[0];
    }
    return TS_OK;
}

/* LoRA's contract: with an adapters object (K names) every language entry takes `adapters` i32
 * in its tokens' shape (the prefill entries [Lp], decode [slots], decode_k [slots, k]) and the
 * schema has lora.scale F32[K]; without one, no entry takes it. */
static ts_status check_adapters_contract(const ts_manifest *m, ts_error *err)
{
    int64_t k = m->adapters.n;
    const ts_descriptor *scale = NULL;
    for (int i = 0; i < m->n_weights; i++)
        if (strcmp(m->weights[i].name, "lora.scale") == 0) scale = &m->weights[i];
    if (k && (!scale || scale->type.rank != 1 || scale->type.dims[0] != k))
        return ts_error_set(err, TS_ERR_FORMAT, "adapters: %lld names, the weight schema has %s (expected lora.scale [%lld])", (long long)k,
                            scale ? "another lora.scale" : "no lora.scale", (long long)k);
    if (!k && scale) return ts_error_set(err, TS_ERR_FORMAT, "weights: lora.scale without an adapters object");
    ts_entry list[TS_ENTRY_COUNT];
    int n = ts_manifest_entries(m, list);
    for (int b = 0; b < m->n_buckets; b++)
        for (int i = 0; i < n; i++) {
            const ts_entry_descriptors *ed = &m->entries[b][list[i]];
            int at = input_index(ed, "adapters");
            if (!k && at < 0) continue;
            if (!k)
                return ts_error_set(err, TS_ERR_FORMAT, "%s: takes adapters, the manifest has no adapters object", ed->file);
            ts_type want = {0};
            if (list[i] == TS_ENTRY_DECODE || list[i] == TS_ENTRY_DECODE_K) {
                int tok = input_index(ed, "tokens");
                if (tok >= 0) want = ts_type_make(TS_DTYPE_I32, ed->inputs[tok].type.rank, ed->inputs[tok].type.dims);
            } else {
                want = ts_type_make(TS_DTYPE_I32, 1, &m->buckets[b].prefill_capacity);
            }
            if (at < 0 || !ts_type_equal(&ed->inputs[at].type, &want)) {
                char t[128];
                return ts_error_set(err, TS_ERR_FORMAT, "%s: %s must take adapters %s (one adapter index per row)", ed->file,
                                    ts_entry_name(list[i]), ts_type_string(&want, t, sizeof(t)));
            }
        }
    return TS_OK;
}

static ts_status load(ts_bundle *b, const char *bundle_dir, const char *model_dir, ts_error *err)
{
    char path[1200], *json;
    size_t len;
    ts_status st = ts_path_join(path, sizeof(path), bundle_dir, "manifest.json", err);
    if (st == TS_OK) st = ts_file_read(path, &json, &len, err);
    if (st != TS_OK) return st;
    st = ts_manifest_read(json, len, "manifest.json", &b->man, err);
    free(json);
    if (st != TS_OK) return st;
    int n_modules = ts_manifest_module_count(&b->man);
    char *texts[TS_BUNDLE_MAX_MODULES] = {0};
    size_t lens[TS_BUNDLE_MAX_MODULES] = {0};
    for (int i = 0; i < n_modules && st == TS_OK; i++) {
        snprintf(path, sizeof(path), "%s/%s", bundle_dir, ts_manifest_module_file(&b->man, i));
        st = ts_file_read(path, &texts[i], &lens[i], err);
    }
    if (st == TS_OK) st = ts_manifest_check_identity(&b->man, (const char *const *)texts, err);
    if (st == TS_OK) st = ts_portable_check(bundle_dir, &b->man, err);
    if (st == TS_OK) st = check_vision_contract(&b->man, err);
    char digest[65];
    if (st == TS_OK) st = ts_bundle_config_digest(model_dir, digest, err);
    if (st == TS_OK && strcmp(digest, b->man.config_digest) != 0)
        st = ts_error_set(err, TS_ERR_FORMAT, "config_digest differs: the bundle was made for %.16s…, %s/config.json is %.16s…",
                          b->man.config_digest, model_dir, digest);
    ts_model_config cfg;
    if (st == TS_OK) st = ts_model_config_load(model_dir, &cfg, err);
    if (st == TS_OK && strcmp(ts_family_name(cfg.family), b->man.family) != 0)
        st = ts_error_set(err, TS_ERR_FORMAT, "family differs: bundle %s, model %s", b->man.family, ts_family_name(cfg.family));
    if (st == TS_OK) st = ts_checkpoint_open(model_dir, &b->ckpt, err);
    if (st == TS_OK && b->man.quant.version) {
        st = ts_path_join(path, sizeof(path), bundle_dir, b->man.quant.file, err);
        if (st == TS_OK) st = ts_checkpoint_open(path, &b->quant, err);
        if (st == TS_OK) st = ts_bundle_quant_check(&b->man, b->quant, err);
        else ts_error_prefix(err, "quantization: ");
    }
    if (st == TS_OK && b->man.tensors.version) {
        st = ts_path_join(path, sizeof(path), bundle_dir, b->man.tensors.file, err);
        if (st == TS_OK) st = ts_checkpoint_open(path, &b->held, err);
        if (st == TS_OK) st = ts_bundle_tensors_check(&b->man, b->held, err);
        else ts_error_prefix(err, "bundle_weights: ");
    }
    if (st == TS_OK) st = check_adapters_contract(&b->man, err);
    if (st == TS_OK) st = check_weights(b, b->man.weights, b->man.n_weights, err);
    if (st == TS_OK) st = check_weights(b, b->man.vision.weights, b->man.vision.n_weights, err);
    if (st == TS_OK) st = check_weights(b, b->man.audio.weights, b->man.audio.n_weights, err);
    if (st == TS_OK) st = check_audio_contract(&b->man, err);
    if (st == TS_OK) st = check_deepstack_contract(&b->man, &cfg, err);
    ts_entry list[TS_ENTRY_COUNT];
    int n_entries = ts_manifest_entries(&b->man, list), n_text = b->man.n_buckets * n_entries;
    if (st == TS_OK) st = check_decode_k_contract(&b->man, err);
    int n_vision = b->man.vision.n_buckets;
    for (int i = 0; i < n_modules && st == TS_OK; i++) {
        /* Module order: the language entries, the vision buckets, the audio buckets. */
        bool vision = i >= n_text && i < n_text + n_vision, audio = i >= n_text + n_vision;
        int bucket = audio ? i - n_text - n_vision : vision ? i - n_text : i / n_entries;
        ts_entry e = list[i % n_entries];
        const char *name = audio ? "audio.main" : vision ? "vision.main" : ts_entry_name(e);
        const ts_descriptor *weights = audio ? b->man.audio.weights : vision ? b->man.vision.weights : b->man.weights;
        int n_weights = audio ? b->man.audio.n_weights : vision ? b->man.vision.n_weights : b->man.n_weights;
        const ts_entry_descriptors *ed = audio    ? &b->man.audio.entries[bucket]
                                         : vision ? &b->man.vision.entries[bucket]
                                                  : &b->man.entries[bucket][e];
        ts_graph **g = audio ? &b->audio_graphs[bucket] : vision ? &b->vision_graphs[bucket] : &b->graphs[bucket][e];
        ts_program **program = audio ? &b->audio_programs[bucket] : vision ? &b->vision_programs[bucket] : &b->programs[bucket][e];
        void ***params = audio ? &b->audio_params[bucket] : vision ? &b->vision_params[bucket] : &b->params[bucket][e];
        bool lm = !vision && !audio, decode = lm && (e == TS_ENTRY_DECODE || e == TS_ENTRY_DECODE_K);
        st = ts_stablehlo_read(texts[i], lens[i], ed->file, g, err);
        if (st == TS_OK) st = check_module(weights, n_weights, ed, name, *g, err);
        if (st == TS_OK) st = ts_bundle_quant_check_module(&b->man, *g, ed->file, err);
        if (st == TS_OK) st = ts_program_create(*g, b->ctx, program, err);
        /* decode_k.main's rows each computed as decode.main computes a row (the row dots, one query
         * at a time), so speculating through the bundle keeps its greedy output. */
        if (st == TS_OK && decode) st = ts_program_set_row_segments(*program, NULL, 0, true, err);
        if (st == TS_OK) st = check_donation(*g, *program, n_weights, decode, name, err);
        if (st == TS_OK) {
            *params = calloc((size_t)(*g)->n_parameters + 1, sizeof(void *));
            if (!*params) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
        }
        for (int32_t k = 0; st == TS_OK && k < n_weights; k++)
            (*params)[k] = (void *)weight_tensor(b, weights[k].name, NULL)->data;
    }
    for (int i = 0; i < n_modules; i++) free(texts[i]);
    if (st == TS_OK) {
        const ts_entry_descriptors *pre = &b->man.entries[0][TS_ENTRY_PREFILL];
        b->vocab = pre->n_results > 0 && pre->results[0].type.rank == 1 ? pre->results[0].type.dims[0] : 0;
        if (b->vocab < 1) st = ts_error_set(err, TS_ERR_FORMAT, "manifest: prefill.main's first result must be last_logits f32[V]");
    }
    return st;
}

ts_status ts_bundle_open(ts_context *ctx, const char *bundle_dir, const char *model_dir, ts_bundle **out, ts_error *err)
{
    *out = NULL;
    ts_bundle *b = calloc(1, sizeof(*b));
    if (!b) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle: out of memory");
    b->ctx = ctx;
    ts_status st = load(b, bundle_dir, model_dir, err);
    if (st != TS_OK) {
        ts_bundle_close(b);
        ts_error_prefix(err, "bundle %s: ", bundle_dir);
        return st;
    }
    *out = b;
    return TS_OK;
}

int ts_bundle_bucket_count(const ts_bundle *b) { return b->man.n_buckets; }

void ts_bundle_bucket(const ts_bundle *b, int bucket, int64_t *capacity, int64_t *prefill_capacity, int64_t *slots)
{
    const ts_bucket *k = &b->man.buckets[bucket];
    if (capacity) *capacity = k->capacity;
    if (prefill_capacity) *prefill_capacity = k->prefill_capacity;
    if (slots) *slots = k->slots;
}

ts_status ts_bundle_admit(const ts_bundle *b, int64_t prompt, int64_t max_new, int *bucket, ts_error *err)
{
    if (prompt < 1 || max_new < 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "admission: %lld prompt tokens and %lld new tokens", (long long)prompt, (long long)max_new);
    for (int i = 0; i < b->man.n_buckets; i++) {
        const ts_bucket *k = &b->man.buckets[i];
        if (prompt <= k->prefill_capacity && prompt + max_new <= k->capacity) {
            *bucket = i;
            return TS_OK;
        }
    }
    const ts_bucket *big = &b->man.buckets[b->man.n_buckets - 1];
    return ts_error_set(err, TS_ERR_RANGE,
                        "admission: %lld prompt tokens + %lld new tokens = %lld do not fit the largest bucket (capacity %lld, prefill %lld)",
                        (long long)prompt, (long long)max_new, (long long)(prompt + max_new), (long long)big->capacity,
                        (long long)big->prefill_capacity);
}

/* ---------------------------------------------------------------- calls */

ts_status ts_bundle_range_i32(const void *data, int64_t n, int64_t lo, int64_t hi,
                              const char *entry, const char *name, ts_error *err)
{
    const int32_t *v = data;
    for (int64_t i = 0; i < n; i++)
        if (v[i] < lo || v[i] > hi)
            return ts_error_set(err, TS_ERR_RANGE, "%s: %s[%lld] = %d is outside %lld..%lld", entry, name, (long long)i, v[i],
                                (long long)lo, (long long)hi);
    return TS_OK;
}

static int input_index(const ts_entry_descriptors *ed, const char *name)
{
    for (int i = 0; i < ed->n_inputs; i++)
        if (strcmp(ed->inputs[i].name, name) == 0) return i;
    return -1;
}

/* The DeepStack payload of prefill_embeddings_deepstack.main (see the top of this file). */
static ts_status check_deepstack_values(const ts_bundle *b, int bucket, const void *const *data, ts_error *err)
{
    static const char *const entry = "prefill_embeddings_deepstack.main";
    const ts_entry_descriptors *ed = &b->man.entries[bucket][TS_ENTRY_PREFILL_EMBEDDINGS_DEEPSTACK];
    int at_pos = input_index(ed, "visual_positions"), at_feat = input_index(ed, "layer_features"), at_count = input_index(ed, "visual_count"),
        at_len = input_index(ed, "length");
    if (at_pos < 0 || at_feat < 0 || at_count < 0 || at_len < 0) return ts_error_set(err, TS_ERR_INTERNAL, "%s: contract not checked", entry);
    int64_t nv = b->man.visual_capacity[bucket], hidden = ed->inputs[at_feat].type.dims[2];
    const int32_t *positions = data[at_pos], count = *(const int32_t *)data[at_count], length = *(const int32_t *)data[at_len];
    const float *features = data[at_feat];
    if (count < 0 || count > nv)
        return ts_error_set(err, TS_ERR_RANGE, "%s: visual_count = %d is outside 0..%lld (the bucket's static maximum Nv_max)", entry, count,
                            (long long)nv);
    if (count > length)
        return ts_error_set(err, TS_ERR_RANGE, "%s: visual_count = %d exceeds length = %d (one image row per prompt row at most)", entry,
                            count, length);
    for (int64_t j = 0; j < nv; j++) {
        int32_t p = positions[j];
        if (j >= count && p != 0)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "%s: visual_positions[%lld] = %d is padding (at or past visual_count = %d) and must be 0", entry, (long long)j,
                                p, count);
        if (j < count && (p < 0 || p >= length))
            return ts_error_set(err, TS_ERR_RANGE, "%s: visual_positions[%lld] = %d is outside the prompt rows 0..%d", entry, (long long)j, p,
                                length - 1);
        if (j < count && j > 0 && p <= positions[j - 1])
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: visual_positions[%lld] = %d %s visual_positions[%lld] = %d (sorted, unique)",
                                entry, (long long)j, p, p == positions[j - 1] ? "repeats" : "comes before", (long long)j - 1,
                                positions[j - 1]);
    }
    for (int k = 0; k < b->man.n_deepstack; k++)
        for (int64_t j = 0; j < nv; j++) {
            const float *row = features + ((int64_t)k * nv + j) * hidden;
            for (int64_t i = 0; i < hidden; i++) {
                if (j < count && !isfinite(row[i]))
                    return ts_error_set(err, TS_ERR_RANGE, "%s: layer_features[%d][%lld][%lld] is %s", entry, k, (long long)j, (long long)i,
                                        isnan(row[i]) ? "NaN" : "infinite");
                if (j >= count && row[i] != 0.0f)
                    return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                        "%s: layer_features[%d][%lld][%lld] is padding (at or past visual_count = %d) and must be 0", entry,
                                        k, (long long)j, (long long)i, count);
            }
        }
    return TS_OK;
}

/* Value ranges, given each argument's bytes in descriptor order. */
static ts_status check_values(const ts_bundle *b, int bucket, ts_entry e, const void *const *data, ts_error *err)
{
    const ts_bucket *k = &b->man.buckets[bucket];
    const ts_entry_descriptors *ed = &b->man.entries[bucket][e];
    const char *entry = ts_entry_name(e);
    ts_status st = TS_OK;
    for (int i = 0; i < ed->n_inputs && st == TS_OK; i++) {
        const ts_descriptor *d = &ed->inputs[i];
        int64_t n = ts_type_elements(&d->type);
        if (strcmp(d->name, "tokens") == 0)
            st = ts_bundle_range_i32(data[i], n, 0, b->vocab - 1, entry, d->name, err);
        else if (strcmp(d->name, "length") == 0)
            st = ts_bundle_range_i32(data[i], 1, 1, k->prefill_capacity, entry, d->name, err);
        else if (strcmp(d->name, "positions") == 0)
            st = ts_bundle_range_i32(data[i], n, 0, k->capacity - 1, entry, d->name, err);
        else if (strcmp(d->name, "cache_len") == 0) /* decode_k.main writes K rows from cache_len */
            st = ts_bundle_range_i32(data[i], n, 0, k->capacity - (e == TS_ENTRY_DECODE_K ? b->man.draft_width : 1), entry, d->name, err);
        else if (strcmp(d->name, "adapters") == 0)
            st = ts_bundle_range_i32(data[i], n, 0, b->man.adapters.n - 1, entry, d->name, err);
        else if (strcmp(d->name, "rope_delta") == 0)
            st = ts_bundle_range_i32(data[i], n, -k->capacity, k->capacity, entry, d->name, err);
        else if (d->type.dtype == TS_DTYPE_F32 && d->role[0] == 'i') {
            /* Activations and biases: no NaN; embeddings also finite (a bias may hold -inf). */
            bool embeddings = strcmp(d->name, "embeddings") == 0;
            const float *f = data[i];
            for (int64_t j = 0; j < n; j++)
                if (isnan(f[j]) || (embeddings && isinf(f[j]))) {
                    st = ts_error_set(err, TS_ERR_RANGE, "%s: %s[%lld] is %s", entry, d->name, (long long)j, isnan(f[j]) ? "NaN" : "infinite");
                    break;
                }
        }
    }
    if (st == TS_OK && e == TS_ENTRY_PREFILL_EMBEDDINGS_DEEPSTACK) st = check_deepstack_values(b, bucket, data, err);
    return st;
}

ts_status ts_bundle_bind_args(const ts_graph *g, int n_weights, void **params, const char *entry,
                              const ts_tensor_arg *args, int n_args, const void **data,
                              ts_error *err)
{
    if (n_args > 16 || n_weights + n_args != g->n_parameters)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: %d arguments for a module of %d", entry, n_args, g->n_parameters - n_weights);
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op != TS_OP_PARAMETER || n->attrs.parameter.index < n_weights) continue;
        int a = n->attrs.parameter.index - n_weights;
        ts_type given = ts_type_make(args[a].dtype, args[a].rank, args[a].dims);
        if (!ts_type_equal(&given, &n->type) || args[a].n_bytes != ts_type_bytes(&n->type) || !args[a].data) {
            char want[128], got[128];
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: module argument %s is %s; given %s, %zu bytes", entry, n->name,
                                ts_type_string(&n->type, want, sizeof(want)), ts_type_string(&given, got, sizeof(got)), args[a].n_bytes);
        }
        params[n->attrs.parameter.index] = (void *)args[a].data;
        data[a] = args[a].data;
    }
    return TS_OK;
}

/* Entry execution: checks the bound buffers against the module graph itself, then runs. */
static ts_status run_entry(ts_bundle *b, int bucket, ts_entry e, const ts_tensor_arg *args, int n_args, const void **outputs,
                           ts_error *err)
{
    const void *data[16];
    ts_status st = ts_bundle_bind_args(b->graphs[bucket][e], b->man.n_weights, b->params[bucket][e],
                                       ts_entry_name(e), args, n_args, data, err);
    if (st == TS_OK) st = check_values(b, bucket, e, data, err);
    if (st != TS_OK) return st;
    return ts_program_run(b->programs[bucket][e], b->params[bucket][e], outputs, err);
}

ts_status ts_bundle_run(ts_bundle *b, int bucket, const char *entry, const ts_tensor_arg *args, int n_args, const void **outputs,
                        ts_error *err)
{
    if (bucket < 0 || bucket >= b->man.n_buckets)
        return ts_error_set(err, TS_ERR_RANGE, "bucket %d (the bundle has %d)", bucket, b->man.n_buckets);
    ts_entry list[TS_ENTRY_COUNT];
    int i_entry = 0, n_entries = ts_manifest_entries(&b->man, list);
    while (i_entry < n_entries && strcmp(ts_entry_name(list[i_entry]), entry) != 0) i_entry++;
    if (i_entry == n_entries) {
        char names[200] = "";
        for (int i = 0, at = 0; i < n_entries && at < (int)sizeof(names); i++)
            at += snprintf(names + at, sizeof(names) - (size_t)at, "%s%s", i ? ", " : "", ts_entry_name(list[i]));
        return ts_error_set(err, TS_ERR_NOT_FOUND, "no entry '%s' (entries: %s)", entry, names);
    }
    ts_entry e = list[i_entry];
    const ts_entry_descriptors *ed = &b->man.entries[bucket][e];
    if (n_args != ed->n_inputs)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: %d arguments given, %d expected", entry, n_args, ed->n_inputs);
    const void *data[16];
    for (int i = 0; i < n_args; i++) {
        const ts_descriptor *d = &ed->inputs[i];
        const ts_tensor_arg *a = &args[i];
        if (!a->name || strcmp(a->name, d->name) != 0)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: argument %d is '%s', expected '%s' (argument order)", entry, i,
                                a->name ? a->name : "(unnamed)", d->name);
        if (a->dtype != d->type.dtype)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: %s has dtype %s, expected %s", entry, d->name, ts_dtype_name(a->dtype),
                                ts_dtype_name(d->type.dtype));
        ts_type given = ts_type_make(a->dtype, a->rank, a->dims);
        if (!ts_type_equal(&given, &d->type)) {
            char want[128], got[128];
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: %s has shape %s, expected %s", entry, d->name,
                                ts_type_string(&given, got, sizeof(got)), ts_type_string(&d->type, want, sizeof(want)));
        }
        if (a->n_bytes != ts_type_bytes(&d->type) || !a->data)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: %s has %zu bytes, expected %zu", entry, d->name, a->n_bytes,
                                ts_type_bytes(&d->type));
        data[i] = a->data;
    }
    /* A donated argument (decode.main's k, v) is written in place: it may share no byte with
     * another argument. */
    for (int i = 0; i < n_args; i++)
        for (int j = 0; j < n_args && strcmp(ed->inputs[i].role, "state") == 0; j++) {
            const char *x = args[i].data, *y = args[j].data;
            if (j != i && x < y + args[j].n_bytes && y < x + args[i].n_bytes)
                return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "%s: %s is donated (updated in place) and shares bytes with %s", entry,
                                    ed->inputs[i].name, ed->inputs[j].name);
        }
    ts_status st = check_values(b, bucket, (ts_entry)e, data, err);
    if (st != TS_OK) return st;
    return run_entry(b, bucket, (ts_entry)e, args, n_args, outputs, err);
}

/* audio.main's values: frames within 1 … the bucket's frames, projector one of the manifest's,
 * the features finite. */
static ts_status check_audio_values(const ts_bundle *b, int bucket, const void *const *data, ts_error *err)
{
    int64_t f = b->man.audio.frames[bucket], mels = b->man.audio.entries[bucket].inputs[0].type.dims[1];
    ts_status st = ts_bundle_range_i32(data[1], 1, 1, f, "audio.main", "frames", err);
    if (st == TS_OK) st = ts_bundle_range_i32(data[2], 1, 0, b->man.audio.n_projectors - 1, "audio.main", "projector", err);
    const float *x = data[0];
    for (int64_t i = 0; st == TS_OK && i < f * mels; i++)
        if (!isfinite(x[i]))
            st = ts_error_set(err, TS_ERR_RANGE, "audio.main: audio_features[%lld][%lld] is %s", (long long)(i / mels),
                              (long long)(i % mels), isnan(x[i]) ? "NaN" : "infinite");
    return st;
}

ts_status ts_bundle_run_audio(ts_bundle *b, int bucket, const ts_tensor_arg *args, int n_args, const void **outputs, ts_error *err)
{
    const ts_audio_manifest *a = &b->man.audio;
    if (bucket < 0 || bucket >= a->n_buckets)
        return ts_error_set(err, TS_ERR_RANGE, "audio bucket %d (the bundle has %d)", bucket, a->n_buckets);
    const ts_entry_descriptors *ed = &a->entries[bucket];
    if (n_args != ed->n_inputs)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "audio.main: %d arguments given, %d expected", n_args, ed->n_inputs);
    const void *data[16];
    for (int i = 0; i < n_args; i++) {
        ts_type given = ts_type_make(args[i].dtype, args[i].rank, args[i].dims);
        if (!args[i].name || strcmp(args[i].name, ed->inputs[i].name) != 0 || !ts_type_equal(&given, &ed->inputs[i].type) ||
            args[i].n_bytes != ts_type_bytes(&given) || !args[i].data) {
            char want[128], got[128];
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "audio.main: argument %d is %s %s, expected %s %s (bucket of %lld frames)", i,
                                args[i].name ? args[i].name : "(unnamed)", ts_type_string(&given, got, sizeof(got)), ed->inputs[i].name,
                                ts_type_string(&ed->inputs[i].type, want, sizeof(want)), (long long)a->frames[bucket]);
        }
        data[i] = args[i].data;
    }
    ts_status st = check_audio_values(b, bucket, data, err);
    /* The second layer: against the module graph's own parameters, then the values again. */
    if (st == TS_OK)
        st = ts_bundle_bind_args(b->audio_graphs[bucket], a->n_weights, b->audio_params[bucket], "audio.main", args, n_args, data, err);
    if (st == TS_OK) st = check_audio_values(b, bucket, data, err);
    return st == TS_OK ? ts_program_run(b->audio_programs[bucket], b->audio_params[bucket], outputs, err) : st;
}

int ts_bundle_audio_buckets(const ts_bundle *b, const int64_t **frames)
{
    if (frames) *frames = b->man.audio.frames;
    return b->man.audio.n_buckets;
}

ts_side_kind ts_bundle_side_inputs(const ts_bundle *b, const int32_t **layers, int *n_layers)
{
    if (layers) *layers = b->man.n_deepstack ? b->man.deepstack_layers : NULL;
    if (n_layers) *n_layers = b->man.n_deepstack;
    if (b->man.n_deepstack) return TS_SIDE_DEEPSTACK;
    return b->man.image_blocks ? TS_SIDE_ATTENTION_BIAS : TS_SIDE_NONE;
}

int64_t ts_bundle_visual_capacity(const ts_bundle *b, int bucket)
{
    return b->man.n_deepstack && bucket >= 0 && bucket < b->man.n_buckets ? b->man.visual_capacity[bucket] : 0;
}

int64_t ts_bundle_draft_width(const ts_bundle *b) { return b->man.draft_width; }

int ts_bundle_adapter_count(const ts_bundle *b) { return b->man.adapters.n; }

int ts_bundle_adapter_index(const ts_bundle *b, const char *name)
{
    if (!name || strcmp(name, "none") == 0) return 0;
    for (int i = 1; i < b->man.adapters.n; i++)
        if (strcmp(b->man.adapters.names[i], name) == 0) return i;
    return -1;
}

int ts_bundle_position_rows(const ts_bundle *b) { return strcmp(b->man.position_mode, "1d") == 0 ? 1 : 3; }

ts_status ts_bundle_kv_shape(const ts_bundle *b, int64_t *vocab, int64_t *layers, int64_t *kv_heads, int64_t *head_dim, ts_error *err)
{
    const ts_entry_descriptors *pre = &b->man.entries[0][TS_ENTRY_PREFILL];
    if (pre->n_results < 2 || pre->results[1].type.rank != 4)
        return ts_error_set(err, TS_ERR_FORMAT, "manifest: prefill.main's k must be f32[layers, capacity, kv_heads, head_dim]");
    *vocab = b->vocab;
    *layers = pre->results[1].type.dims[0];
    *kv_heads = pre->results[1].type.dims[2];
    *head_dim = pre->results[1].type.dims[3];
    return TS_OK;
}
