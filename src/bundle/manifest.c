/* manifest.c — manifest.json: building it from entry graphs, writing, reading, identity. */
#include "bundle/manifest.h"
#include "base/error.h"
#include "base/sha256.h"
#include "models/vision_entry.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const role_names[] = {"weight", "input", "state"};

const char *ts_type_string(const ts_type *t, char *buf, size_t cap)
{
    size_t at = (size_t)snprintf(buf, cap, "%s[", ts_dtype_name(t->dtype));
    for (int i = 0; i < t->rank && at < cap; i++) at += (size_t)snprintf(buf + at, cap - at, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
    if (at < cap) snprintf(buf + at, cap - at, "]");
    return buf;
}

void ts_manifest_fini(ts_manifest *m)
{
    free(m->weights);
    free(m->vision.weights);
    free(m->audio.weights);
    free(m->quant.weights);
    free(m->tensors.names);
    for (int b = 0; b < TS_BUNDLE_MAX_BUCKETS; b++) {
        free(m->vision.entries[b].inputs);
        free(m->vision.entries[b].results);
        free(m->audio.entries[b].inputs);
        free(m->audio.entries[b].results);
    }
    for (int b = 0; b < TS_BUNDLE_MAX_BUCKETS; b++)
        for (int e = 0; e < TS_ENTRY_COUNT; e++) {
            free(m->entries[b][e].inputs);
            free(m->entries[b][e].results);
        }
    memset(m, 0, sizeof(*m));
}

static void describe(ts_descriptor *d, const char *name, const char *role, const ts_type *t)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->name, sizeof(d->name), "%s", name);
    snprintf(d->role, sizeof(d->role), "%s", role);
    d->type = *t;
}

/* Fills an entry's descriptors from its graph; the weights go to (or are checked against) the
 * schema `*weights`, created by the first entry that uses it. */
static ts_status describe_graph(ts_descriptor **weights, int *n_schema, ts_entry_descriptors *e, const ts_graph *g, const char *file,
                                const char *const *result_names, int n_names, ts_error *err)
{
    snprintf(e->file, sizeof(e->file), "%s", file);
    int n_weights = 0, n_inputs = 0;
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == TS_OP_PARAMETER) {
            if (g->nodes[i].attrs.parameter.role == TS_PARAM_WEIGHT) n_weights++;
            else n_inputs++;
        }
    bool first = *weights == NULL;
    if (first) {
        *weights = calloc((size_t)(n_weights ? n_weights : 1), sizeof(ts_descriptor));
        *n_schema = n_weights;
    } else if (n_weights != *n_schema) {
        return ts_error_set(err, TS_ERR_INTERNAL, "%s has %d weights, the first entry %d", file, n_weights, *n_schema);
    }
    e->inputs = calloc((size_t)(n_inputs ? n_inputs : 1), sizeof(ts_descriptor));
    e->results = calloc((size_t)(g->n_outputs ? g->n_outputs : 1), sizeof(ts_descriptor));
    if (!*weights || !e->inputs || !e->results) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "manifest: out of memory");
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        int index = n->attrs.parameter.index;
        const char *role = role_names[n->attrs.parameter.role];
        if (n->attrs.parameter.role == TS_PARAM_WEIGHT) {
            if (index >= n_weights) return ts_error_set(err, TS_ERR_INTERNAL, "%s: weight %s after an input", file, n->name);
            ts_descriptor d;
            describe(&d, n->name, role, &n->type);
            if (first) (*weights)[index] = d;
            else if (strcmp((*weights)[index].name, d.name) != 0 || !ts_type_equal(&(*weights)[index].type, &d.type))
                return ts_error_set(err, TS_ERR_INTERNAL, "%s: weight %d differs from the first entry's", file, index);
        } else {
            describe(&e->inputs[e->n_inputs++], n->name, role, &n->type);
        }
    }
    for (int32_t k = 0; k < g->n_outputs; k++)
        describe(&e->results[e->n_results++], k < n_names ? result_names[k] : "extra", "result", ts_graph_type(g, g->outputs[k]));
    return TS_OK;
}

ts_status ts_manifest_add_entry(ts_manifest *m, int bucket, ts_entry entry, const ts_graph *g, const char *file, ts_error *err)
{
    static const char *const prefill_results[] = {"last_logits", "k", "v"}, *const decode_results[] = {"logits", "k", "v"};
    bool decode = entry == TS_ENTRY_DECODE || entry == TS_ENTRY_DECODE_K;
    return describe_graph(&m->weights, &m->n_weights, &m->entries[bucket][entry], g, file, decode ? decode_results : prefill_results, 3,
                          err);
}

ts_status ts_manifest_add_vision_entry(ts_manifest *m, int bucket, const ts_graph *g, const char *file, ts_error *err)
{
    static const char *const results[] = {"image_embeds", "deepstack"};
    return describe_graph(&m->vision.weights, &m->vision.n_weights, &m->vision.entries[bucket], g, file, results, 2, err);
}

ts_status ts_manifest_add_audio_entry(ts_manifest *m, int bucket, const ts_graph *g, const char *file, ts_error *err)
{
    static const char *const results[] = {"audio_embeds"};
    return describe_graph(&m->audio.weights, &m->audio.n_weights, &m->audio.entries[bucket], g, file, results, 1, err);
}

bool ts_manifest_has_entry(const ts_manifest *m, ts_entry e)
{
    switch (e) {
    case TS_ENTRY_PREFILL_EMBEDDINGS_DEEPSTACK: return m->n_deepstack > 0;
    case TS_ENTRY_DECODE_K: return m->draft_width > 0;
    default: return e >= 0 && e < TS_ENTRY_COUNT;
    }
}

int ts_manifest_entries(const ts_manifest *m, ts_entry out[TS_ENTRY_COUNT])
{
    int n = 0;
    for (int e = 0; e < TS_ENTRY_COUNT; e++)
        if (ts_manifest_has_entry(m, (ts_entry)e)) out[n++] = (ts_entry)e;
    return n;
}

int ts_manifest_entry_count(const ts_manifest *m)
{
    ts_entry list[TS_ENTRY_COUNT];
    return ts_manifest_entries(m, list);
}

int ts_manifest_module_count(const ts_manifest *m)
{
    return m->n_buckets * ts_manifest_entry_count(m) + m->vision.n_buckets + m->audio.n_buckets;
}

const char *ts_manifest_module_file(const ts_manifest *m, int i)
{
    ts_entry list[TS_ENTRY_COUNT];
    int ne = ts_manifest_entries(m, list), lm = m->n_buckets * ne;
    return i < lm                        ? m->entries[i / ne][list[i % ne]].file
           : i < lm + m->vision.n_buckets ? m->vision.entries[i - lm].file
                                          : m->audio.entries[i - lm - m->vision.n_buckets].file;
}

/* ---------------------------------------------------------------- JSON */

static cJSON *type_json(const ts_type *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "dtype", ts_dtype_name(t->dtype));
    cJSON *shape = cJSON_AddArrayToObject(o, "shape");
    for (int i = 0; i < t->rank; i++) cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)t->dims[i]));
    return o;
}

static cJSON *descriptor_json(const ts_descriptor *d, int argument)
{
    cJSON *o = type_json(&d->type);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "role", d->role);
    if (argument >= 0) cJSON_AddNumberToObject(o, "argument", argument);
    return o;
}

static const char *entry_key(int e) { return ts_entry_name((ts_entry)e); }

/* Everything but the identity, in a fixed key order (cJSON keeps insertion order). */
static cJSON *manifest_json(const ts_manifest *m)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "abi_version", m->abi_version);
    cJSON_AddStringToObject(root, "family", m->family);
    cJSON_AddStringToObject(root, "config_digest", m->config_digest);
    cJSON *policy = cJSON_AddObjectToObject(root, "dtype_policy");
    cJSON_AddStringToObject(policy, "weights",
                            m->quant.version ? "as stored in the checkpoint (F32, BF16 or F16), widened to f32; the quantized matrices as "
                                               "the quantization object says, dequantized to f32 in the modules"
                                             : "as stored in the checkpoint (F32, BF16 or F16), widened to f32");
    cJSON_AddStringToObject(policy, "compute", m->compute);
    cJSON_AddStringToObject(policy, "kv", m->kv_dtype);
    cJSON *pos = cJSON_AddObjectToObject(root, "positions");
    cJSON_AddStringToObject(pos, "mode", m->position_mode);
    if (strcmp(m->position_mode, "1d") != 0) {
        cJSON *sec = cJSON_AddArrayToObject(pos, "mrope_section");
        for (int i = 0; i < 3; i++) cJSON_AddItemToArray(sec, cJSON_CreateNumber(m->mrope_section[i]));
    }
    if (m->embed_scale != 0) {
        cJSON *emb = cJSON_AddObjectToObject(root, "embeddings");
        cJSON_AddNumberToObject(emb, "scale", m->embed_scale);
    }
    cJSON *mask = cJSON_AddObjectToObject(root, "mask");
    cJSON_AddStringToObject(mask, "prefill.main", "causal over its own keys; rows at or past length are padding");
    cJSON_AddStringToObject(mask, "prefill_embeddings.main", "additive bias [Lp, Lp] only (0 = attend, large negative = masked)");
    cJSON_AddStringToObject(mask, "decode.main", "causal: slot b attends cache rows 0 … cache_len[b]");
    if (m->n_deepstack)
        cJSON_AddStringToObject(mask, "prefill_embeddings_deepstack.main", "as prefill_embeddings.main");
    if (m->draft_width)
        cJSON_AddStringToObject(mask, "decode_k.main", "causal: slot b's row j attends cache rows 0 … cache_len[b] + j");
    if (m->image_blocks)
        cJSON_AddStringToObject(
            mask, "image_blocks",
            "prefill_embeddings.main's bias is one slot's 4-D mask [1, 1, Lp, Lp] "
            "with the batch and head dims dropped: causal, and every image's "
            "tokens see the whole image (0), rows at or past length causal "
            "padding; local layers add their sliding window in the graph; one "
            "call per prompt (never split inside an image)");
    cJSON *kv = cJSON_AddObjectToObject(root, "kv_layout");
    cJSON_AddStringToObject(kv, "prefill", "k, v: [layers, capacity, kv_heads, head_dim]; rows >= length are zero");
    cJSON_AddStringToObject(kv, "decode", "k, v: [slots, layers, capacity, kv_heads, head_dim]; row cache_len[b] is written; "
                            "k and v are donated to results 1 and 2 (tf.aliasing_output): updated in place");
    if (m->draft_width)
        cJSON_AddStringToObject(kv, "decode_k", "as decode; rows cache_len[b] … cache_len[b] + k - 1 are written (cache_len[b] <= capacity - k)");
    if (m->n_deepstack) {
        cJSON *ds = cJSON_AddObjectToObject(root, "deepstack");
        cJSON *layers = cJSON_AddArrayToObject(ds, "layers");
        for (int i = 0; i < m->n_deepstack; i++) cJSON_AddItemToArray(layers, cJSON_CreateNumber(m->deepstack_layers[i]));
        cJSON_AddStringToObject(ds, "visual_capacity", "Nv_max = prefill_capacity");
        cJSON_AddStringToObject(ds, "payload",
                                "visual_positions i32[Nv_max], layer_features f32[layers, Nv_max, hidden], visual_count i32[]: entries "
                                "0 … visual_count-1 sorted, unique, below length, finite; the rest position 0 with zero features");
    }
    if (m->draft_width) {
        cJSON *dk = cJSON_AddObjectToObject(root, "decode_k");
        cJSON_AddNumberToObject(dk, "version", TS_BUNDLE_DECODE_K_VERSION);
        cJSON_AddNumberToObject(dk, "k", (double)m->draft_width);
        cJSON_AddStringToObject(dk, "optional",
                                "an optional entry: present in every bucket when this object is, absent with it; a runtime without it "
                                "decodes one token per slot and call (decode.main)");
        cJSON_AddStringToObject(dk, "use",
                                "speculative decoding: per slot the pending token and up to k - 1 drafted tokens at positions "
                                "cache_len[b] + j (rope_delta added), one call; logits [slots, k, vocab], row j predicting the token "
                                "after row j's; a slot with fewer drafts pads its rows with any valid token (their logits are ignored, "
                                "their cache rows lie past the accepted length); rollback = the runtime keeps the accepted length, "
                                "later calls overwrite the rest");
    }
    cJSON *weights = cJSON_AddArrayToObject(root, "weights");
    for (int i = 0; i < m->n_weights; i++) cJSON_AddItemToArray(weights, descriptor_json(&m->weights[i], i));
    const ts_quant_manifest *qm = &m->quant;
    if (qm->version) {
        cJSON *qo = cJSON_AddObjectToObject(root, "quantization");
        cJSON_AddNumberToObject(qo, "version", qm->version);
        cJSON_AddStringToObject(qo, "method", qm->method);
        cJSON_AddStringToObject(qo, "file", qm->file);
        cJSON_AddStringToObject(qo, "dequantization", TS_BUNDLE_QUANT_RULE);
        cJSON *qw = cJSON_AddArrayToObject(qo, "weights");
        for (int i = 0; i < qm->n_weights; i++) {
            const ts_quant_weight *w = &qm->weights[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "weight", w->weight);
            cJSON_AddNumberToObject(o, "bits", w->bits);
            cJSON_AddNumberToObject(o, "block", (double)w->block);
            cJSON_AddStringToObject(o, "scale_dtype", ts_dtype_name(w->scale_dtype));
            cJSON_AddBoolToObject(o, "zero_points", w->zero_points);
            if (w->act_order) cJSON_AddBoolToObject(o, "act_order", true);
            cJSON *shape = cJSON_AddArrayToObject(o, "shape");
            cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)w->out));
            cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)w->in));
            cJSON_AddItemToArray(qw, o);
        }
    }
    if (m->tensors.version) {
        cJSON *to = cJSON_AddObjectToObject(root, "bundle_weights");
        cJSON_AddNumberToObject(to, "version", m->tensors.version);
        cJSON_AddStringToObject(to, "file", m->tensors.file);
        cJSON_AddStringToObject(to, "rule", "these schema weights are read from the bundle's file (safetensors), by name, not from the checkpoint");
        cJSON *names = cJSON_AddArrayToObject(to, "tensors");
        for (int i = 0; i < m->tensors.n; i++) cJSON_AddItemToArray(names, cJSON_CreateString(m->tensors.names[i]));
    }
    if (m->adapters.n) {
        cJSON *ao = cJSON_AddObjectToObject(root, "adapters");
        cJSON_AddNumberToObject(ao, "version", TS_BUNDLE_ADAPTERS_VERSION);
        cJSON *names = cJSON_AddArrayToObject(ao, "names");
        for (int i = 0; i < m->adapters.n; i++) cJSON_AddItemToArray(names, cJSON_CreateString(m->adapters.names[i]));
        cJSON_AddStringToObject(ao, "input",
                                "adapters i32 in the tokens' shape (prefill entries [Lp], decode.main [slots], decode_k.main [slots, k]): "
                                "each row's adapter, an index into names (0 = none: the base weights alone); every dense projection is "
                                "tessera.lora_linear over the stacked lora_A, lora_B and lora.scale weights");
    }
    cJSON *buckets = cJSON_AddArrayToObject(root, "buckets");
    for (int b = 0; b < m->n_buckets; b++) {
        cJSON *bo = cJSON_CreateObject();
        cJSON_AddNumberToObject(bo, "capacity", (double)m->buckets[b].capacity);
        cJSON_AddNumberToObject(bo, "prefill_capacity", (double)m->buckets[b].prefill_capacity);
        cJSON_AddNumberToObject(bo, "slots", (double)m->buckets[b].slots);
        if (m->n_deepstack) cJSON_AddNumberToObject(bo, "visual_capacity", (double)m->visual_capacity[b]);
        cJSON *entries = cJSON_AddObjectToObject(bo, "entries");
        ts_entry list[TS_ENTRY_COUNT];
        for (int i = 0, n = ts_manifest_entries(m, list); i < n; i++) {
            const ts_entry_descriptors *ed = &m->entries[b][list[i]];
            cJSON *eo = cJSON_AddObjectToObject(entries, entry_key(list[i]));
            cJSON_AddStringToObject(eo, "module", ed->file);
            cJSON *args = cJSON_AddArrayToObject(eo, "arguments");
            for (int i = 0; i < ed->n_inputs; i++) cJSON_AddItemToArray(args, descriptor_json(&ed->inputs[i], m->n_weights + i));
            cJSON *res = cJSON_AddArrayToObject(eo, "results");
            for (int i = 0; i < ed->n_results; i++) cJSON_AddItemToArray(res, descriptor_json(&ed->results[i], -1));
        }
        cJSON_AddItemToArray(buckets, bo);
    }
    const ts_vision_manifest *v = &m->vision;
    if (v->n_buckets) {
        cJSON *vo = cJSON_AddObjectToObject(root, "vision");
        cJSON_AddStringToObject(vo, "layout", v->layout);
        cJSON_AddNumberToObject(vo, "patch_size", (double)v->patch_size);
        cJSON_AddNumberToObject(vo, "temporal_patch_size", (double)v->temporal_patch_size);
        cJSON_AddNumberToObject(vo, "merge_size", (double)v->merge_size);
        cJSON_AddNumberToObject(vo, "width", (double)v->width);
        cJSON_AddNumberToObject(vo, "depth", (double)v->depth);
        cJSON_AddNumberToObject(vo, "out_hidden", (double)v->out_hidden);
        if (strcmp(v->layout, "patch_rows_deepstack") == 0) {
            cJSON_AddNumberToObject(vo, "deepstack_levels", (double)v->deepstack_levels);
            cJSON_AddNumberToObject(vo, "position_embeddings", (double)v->position_embeddings);
        }
        if (strcmp(v->layout, "patch_rows_windowed") == 0)
            cJSON_AddNumberToObject(vo, "window", (double)v->window);
        if (strcmp(v->layout, "hd_views") == 0)
            cJSON_AddNumberToObject(vo, "view_patches", (double)v->view_patches);
        cJSON *vw = cJSON_AddArrayToObject(vo, "weights");
        for (int i = 0; i < v->n_weights; i++) cJSON_AddItemToArray(vw, descriptor_json(&v->weights[i], i));
        cJSON *vb = cJSON_AddArrayToObject(vo, "buckets");
        for (int b = 0; b < v->n_buckets; b++) {
            const ts_entry_descriptors *ed = &v->entries[b];
            cJSON *bo = cJSON_CreateObject();
            cJSON_AddNumberToObject(bo, "patches", (double)v->patches[b]);
            cJSON *eo = cJSON_AddObjectToObject(bo, "vision.main");
            cJSON_AddStringToObject(eo, "module", ed->file);
            cJSON *args = cJSON_AddArrayToObject(eo, "arguments");
            for (int i = 0; i < ed->n_inputs; i++) cJSON_AddItemToArray(args, descriptor_json(&ed->inputs[i], v->n_weights + i));
            cJSON *res = cJSON_AddArrayToObject(eo, "results");
            for (int i = 0; i < ed->n_results; i++) cJSON_AddItemToArray(res, descriptor_json(&ed->results[i], -1));
            cJSON_AddItemToArray(vb, bo);
        }
    }
    const ts_audio_manifest *au = &m->audio;
    if (au->n_buckets) {
        cJSON *ao = cJSON_AddObjectToObject(root, "audio");
        cJSON_AddNumberToObject(ao, "version", TS_BUNDLE_AUDIO_VERSION);
        cJSON_AddStringToObject(ao, "padding",
                                "a clip of frames <= the bucket's feature frames goes in zero-padded, its count in `frames`; the module "
                                "masks the padding (the encoder's rows for the clip alone), its rows first in audio_embeds, zero rows after");
        cJSON *pn = cJSON_AddArrayToObject(ao, "projectors");
        for (int i = 0; i < au->n_projectors; i++) cJSON_AddItemToArray(pn, cJSON_CreateString(au->projectors[i]));
        cJSON_AddStringToObject(ao, "projector", "audio.main's `projector` i32[]: the index of the projection its rows take (projectors)");
        cJSON *aw = cJSON_AddArrayToObject(ao, "weights");
        for (int i = 0; i < au->n_weights; i++) cJSON_AddItemToArray(aw, descriptor_json(&au->weights[i], i));
        cJSON *ab = cJSON_AddArrayToObject(ao, "buckets");
        for (int b = 0; b < au->n_buckets; b++) {
            const ts_entry_descriptors *ed = &au->entries[b];
            cJSON *bo = cJSON_CreateObject();
            cJSON_AddNumberToObject(bo, "frames", (double)au->frames[b]);
            cJSON *eo = cJSON_AddObjectToObject(bo, "audio.main");
            cJSON_AddStringToObject(eo, "module", ed->file);
            cJSON *args = cJSON_AddArrayToObject(eo, "arguments");
            for (int i = 0; i < ed->n_inputs; i++) cJSON_AddItemToArray(args, descriptor_json(&ed->inputs[i], au->n_weights + i));
            cJSON *res = cJSON_AddArrayToObject(eo, "results");
            for (int i = 0; i < ed->n_results; i++) cJSON_AddItemToArray(res, descriptor_json(&ed->results[i], -1));
            cJSON_AddItemToArray(ab, bo);
        }
    }
    const ts_portable_manifest *pm = &m->portable;
    if (pm->target[0]) {
        cJSON *po = cJSON_AddObjectToObject(root, "portable");
        cJSON_AddStringToObject(po, "format", "StableHLO portable artifact (VHLO bytecode): X.mlirbc beside each module X.mlir");
        cJSON_AddStringToObject(po, "stablehlo_target", pm->target);
        cJSON_AddStringToObject(po, "producer", pm->producer);
        cJSON *arts = cJSON_AddArrayToObject(po, "artifacts");
        for (int i = 0; i < ts_manifest_module_count(m); i++) {
            cJSON *ao = cJSON_CreateObject();
            cJSON_AddStringToObject(ao, "module", ts_manifest_module_file(m, i));
            cJSON_AddStringToObject(ao, "sha256", pm->sha256[i]);
            cJSON_AddItemToArray(arts, ao);
        }
    }
    return root;
}

static void identity_of(const ts_manifest *m, const char *const *texts, char out[65])
{
    cJSON *root = manifest_json(m);
    char *canonical = cJSON_PrintUnformatted(root);
    ts_sha256 h;
    ts_sha256_init(&h);
    if (canonical) ts_sha256_update(&h, canonical, strlen(canonical));
    for (int i = 0; i < ts_manifest_module_count(m); i++) {
        uint8_t sep = 0;
        ts_sha256_update(&h, &sep, 1);
        if (texts[i]) ts_sha256_update(&h, texts[i], strlen(texts[i]));
    }
    ts_sha256_final_hex(&h, out);
    free(canonical);
    cJSON_Delete(root);
}

ts_status ts_manifest_write(ts_manifest *m, const char *const *module_texts, char **json, ts_error *err)
{
    identity_of(m, module_texts, m->identity);
    cJSON *root = manifest_json(m);
    cJSON_AddStringToObject(root, "identity", m->identity);
    *json = cJSON_Print(root);
    cJSON_Delete(root);
    return *json ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "manifest: out of memory");
}

ts_status ts_manifest_check_identity(const ts_manifest *m, const char *const *module_texts, ts_error *err)
{
    char actual[65];
    identity_of(m, module_texts, actual);
    if (strcmp(actual, m->identity) != 0)
        return ts_error_set(err, TS_ERR_FORMAT, "identity differs: the manifest says %.16s…, its content and modules hash to %.16s…",
                            m->identity, actual);
    return TS_OK;
}

/* ---------------------------------------------------------------- reading */

typedef struct {
    const char *origin;
    ts_error *err;
} reader;

static ts_status bad(reader *r, const char *path, const char *what)
{
    return ts_error_set(r->err, TS_ERR_FORMAT, "%s: %s: %s", r->origin, path, what);
}

static ts_status read_string(reader *r, const cJSON *o, const char *key, const char *path, char *out, size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char p[320];
    snprintf(p, sizeof(p), "%s%s", path, key);
    if (!cJSON_IsString(v)) return bad(r, p, "expected a string");
    if (strlen(v->valuestring) >= cap) return bad(r, p, "too long");
    strcpy(out, v->valuestring);
    return TS_OK;
}

static ts_status read_int(reader *r, const cJSON *o, const char *key, const char *path, int64_t lo, int64_t hi, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char p[320];
    snprintf(p, sizeof(p), "%s%s", path, key);
    if (!cJSON_IsNumber(v) || v->valuedouble != (double)(int64_t)v->valuedouble) return bad(r, p, "expected an integer");
    if (v->valuedouble < (double)lo || v->valuedouble > (double)hi) return bad(r, p, "out of range");
    *out = (int64_t)v->valuedouble;
    return TS_OK;
}

static ts_status read_descriptor(reader *r, const cJSON *o, const char *path, ts_descriptor *d)
{
    memset(d, 0, sizeof(*d));
    char dtype[16];
    ts_status st;
    if ((st = read_string(r, o, "name", path, d->name, sizeof(d->name))) != TS_OK) return st;
    if ((st = read_string(r, o, "role", path, d->role, sizeof(d->role))) != TS_OK) return st;
    if ((st = read_string(r, o, "dtype", path, dtype, sizeof(dtype))) != TS_OK) return st;
    d->type.dtype = TS_DTYPE_COUNT;
    for (int t = 0; t < TS_DTYPE_COUNT; t++)
        if (strcmp(ts_dtype_name((ts_dtype)t), dtype) == 0) d->type.dtype = (ts_dtype)t;
    char p[320];
    snprintf(p, sizeof(p), "%sdtype", path);
    if (d->type.dtype == TS_DTYPE_COUNT) return bad(r, p, "unknown dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
    snprintf(p, sizeof(p), "%sshape", path);
    if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) > TS_MAX_DIMS) return bad(r, p, "expected at most 8 dimensions");
    const cJSON *dim;
    cJSON_ArrayForEach(dim, shape)
    {
        if (!cJSON_IsNumber(dim) || dim->valuedouble < 0 || dim->valuedouble > 1e12 || dim->valuedouble != (double)(int64_t)dim->valuedouble)
            return bad(r, p, "dimensions must be non-negative integers");
        d->type.dims[d->type.rank++] = (int64_t)dim->valuedouble;
    }
    return TS_OK;
}

static ts_status read_descriptors(reader *r, const cJSON *arr, const char *path, ts_descriptor **out, int *n)
{
    if (!cJSON_IsArray(arr)) return bad(r, path, "expected an array");
    int count = cJSON_GetArraySize(arr);
    *out = calloc((size_t)(count ? count : 1), sizeof(ts_descriptor));
    if (!*out) return ts_error_set(r->err, TS_ERR_OUT_OF_MEMORY, "manifest: out of memory");
    *n = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, arr)
    {
        char p[256];
        snprintf(p, sizeof(p), "%s[%d].", path, *n);
        if (!cJSON_IsObject(item)) return bad(r, p, "expected an object");
        ts_status st = read_descriptor(r, item, p, &(*out)[*n]);
        if (st != TS_OK) return st;
        (*n)++;
    }
    return TS_OK;
}

static ts_status read_dtype(reader *r, const cJSON *o, const char *key, const char *path, ts_dtype *out)
{
    char name[16], p[320];
    ts_status st = read_string(r, o, key, path, name, sizeof(name));
    if (st != TS_OK) return st;
    for (int t = 0; t < TS_DTYPE_COUNT; t++)
        if (strcmp(ts_dtype_name((ts_dtype)t), name) == 0) {
            *out = (ts_dtype)t;
            return TS_OK;
        }
    snprintf(p, sizeof(p), "%s%s", path, key);
    return bad(r, p, "unknown dtype");
}

/* An entry object parent[key] ({module, arguments, results}) into ed; errors name
 * "<path><key>". */
static ts_status read_entry(reader *r, const cJSON *parent, const char *key, const char *path, ts_entry_descriptors *ed)
{
    char ep[200], sub[240];
    ts_status st;
    snprintf(ep, sizeof(ep), "%s%s", path, key);
    const cJSON *eo = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!cJSON_IsObject(eo)) return ts_error_set(r->err, TS_ERR_NOT_FOUND, "%s: %s: missing entry", r->origin, ep);
    snprintf(sub, sizeof(sub), "%s.", ep);
    if ((st = read_string(r, eo, "module", sub, ed->file, sizeof(ed->file))) != TS_OK) return st;
    if (strstr(ed->file, "..") || ed->file[0] == '/') return bad(r, sub, "module path must stay inside the bundle");
    snprintf(sub, sizeof(sub), "%s.arguments", ep);
    if ((st = read_descriptors(r, cJSON_GetObjectItemCaseSensitive(eo, "arguments"), sub, &ed->inputs, &ed->n_inputs)) != TS_OK) return st;
    snprintf(sub, sizeof(sub), "%s.results", ep);
    return read_descriptors(r, cJSON_GetObjectItemCaseSensitive(eo, "results"), sub, &ed->results, &ed->n_results);
}

/* bundle_weights' syntax; its tensors are held to the schema and the file at open
 * (bundle_tensors.c). */
static ts_status parse_tensors(reader *r, const cJSON *to, ts_tensors_manifest *t)
{
    ts_status st;
    int64_t v;
    if (!cJSON_IsObject(to)) return bad(r, "bundle_weights", "expected an object");
    if ((st = read_int(r, to, "version", "bundle_weights.", 1, 1 << 20, &v)) != TS_OK) return st;
    if (v != TS_BUNDLE_TENSORS_VERSION)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: bundle_weights.version %lld (this build reads version %d)", r->origin,
                            (long long)v, TS_BUNDLE_TENSORS_VERSION);
    t->version = (int)v;
    if ((st = read_string(r, to, "file", "bundle_weights.", t->file, sizeof(t->file))) != TS_OK) return st;
    if (!t->file[0] || strchr(t->file, '/') || strstr(t->file, "..")) return bad(r, "bundle_weights.file", "expected a file name inside the bundle");
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(to, "tensors"), *item;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1) return bad(r, "bundle_weights.tensors", "expected a non-empty array of names");
    t->names = calloc((size_t)cJSON_GetArraySize(arr), sizeof(*t->names));
    if (!t->names) return ts_error_set(r->err, TS_ERR_OUT_OF_MEMORY, "manifest: out of memory");
    cJSON_ArrayForEach(item, arr)
    {
        if (!cJSON_IsString(item) || !item->valuestring[0] || strlen(item->valuestring) >= sizeof(t->names[0]))
            return bad(r, "bundle_weights.tensors", "expected weight names");
        strcpy(t->names[t->n++], item->valuestring);
    }
    return TS_OK;
}

/* An array of lo … hi unique non-empty names (each under 32 bytes) into names[*n], "expected
 * <range>" naming `path` otherwise: the adapters' and audio.main's projectors' index tables. */
static ts_status read_names(reader *r, const cJSON *arr, const char *path, int lo, int hi, const char *range, char (*names)[32], int *n)
{
    const cJSON *item;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < lo || cJSON_GetArraySize(arr) > hi) return bad(r, path, range);
    cJSON_ArrayForEach(item, arr)
    {
        if (!cJSON_IsString(item) || !item->valuestring[0] || strlen(item->valuestring) >= sizeof(names[0]))
            return bad(r, path, "expected names");
        for (int i = 0; i < *n; i++)
            if (strcmp(names[i], item->valuestring) == 0) return bad(r, path, "a name repeats");
        strcpy(names[(*n)++], item->valuestring);
    }
    return TS_OK;
}

/* The adapters object's syntax: version, names (the first "none", each unique); the entries'
 * `adapters` inputs and the lora weights are checked at open (bundle.c). */
static ts_status parse_adapters(reader *r, const cJSON *ao, ts_adapter_manifest *a)
{
    ts_status st;
    int64_t v;
    if (!cJSON_IsObject(ao)) return bad(r, "adapters", "expected an object");
    if ((st = read_int(r, ao, "version", "adapters.", 1, 1 << 20, &v)) != TS_OK) return st;
    if (v != TS_BUNDLE_ADAPTERS_VERSION)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: adapters.version %lld (this build reads version %d)", r->origin, (long long)v,
                            TS_BUNDLE_ADAPTERS_VERSION);
    if ((st = read_names(r, cJSON_GetObjectItemCaseSensitive(ao, "names"), "adapters.names", 2, TS_BUNDLE_MAX_ADAPTERS,
                         "expected 2 to 16 names, the first \"none\"", a->names, &a->n)) != TS_OK)
        return st;
    if (strcmp(a->names[0], "none") != 0) return bad(r, "adapters.names[0]", "expected \"none\" (index 0: no adapter)");
    return TS_OK;
}

/* The audio object's syntax; its entries' contract is checked at open (bundle.c). */
static ts_status parse_audio(reader *r, const cJSON *ao, ts_audio_manifest *a)
{
    ts_status st;
    int64_t v;
    if (!cJSON_IsObject(ao)) return bad(r, "audio", "expected an object");
    if ((st = read_int(r, ao, "version", "audio.", 1, 1 << 20, &v)) != TS_OK) return st;
    if (v != TS_BUNDLE_AUDIO_VERSION)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: audio.version %lld (this build reads version %d)", r->origin, (long long)v,
                            TS_BUNDLE_AUDIO_VERSION);
    if ((st = read_names(r, cJSON_GetObjectItemCaseSensitive(ao, "projectors"), "audio.projectors", 1, TS_BUNDLE_MAX_PROJECTORS,
                         "expected 1 to 4 names", a->projectors, &a->n_projectors)) != TS_OK)
        return st;
    if ((st = read_descriptors(r, cJSON_GetObjectItemCaseSensitive(ao, "weights"), "audio.weights", &a->weights, &a->n_weights)) != TS_OK)
        return st;
    const cJSON *ab = cJSON_GetObjectItemCaseSensitive(ao, "buckets"), *bo;
    if (!cJSON_IsArray(ab) || cJSON_GetArraySize(ab) < 1 || cJSON_GetArraySize(ab) > TS_BUNDLE_MAX_BUCKETS)
        return bad(r, "audio.buckets", "expected 1 to 16 buckets");
    cJSON_ArrayForEach(bo, ab)
    {
        int b = a->n_buckets;
        char p[64];
        snprintf(p, sizeof(p), "audio.buckets[%d].", b);
        if (!cJSON_IsObject(bo)) return bad(r, p, "expected an object");
        if ((st = read_int(r, bo, "frames", p, 1, 1 << 24, &a->frames[b])) != TS_OK) return st;
        if ((st = read_entry(r, bo, "audio.main", p, &a->entries[b])) != TS_OK) return st;
        a->n_buckets++;
    }
    return TS_OK;
}

/* The quantization object's syntax; what it says is checked against the weights and modules at
 * open (bundle_quant.c). */
static ts_status parse_quantization(reader *r, const cJSON *qo, ts_quant_manifest *q)
{
    ts_status st;
    int64_t v;
    if (!cJSON_IsObject(qo)) return bad(r, "quantization", "expected an object");
    if ((st = read_int(r, qo, "version", "quantization.", 1, 1 << 20, &v)) != TS_OK) return st;
    if (v != TS_BUNDLE_QUANT_VERSION)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: quantization.version %lld (this build reads version %d)", r->origin, (long long)v,
                            TS_BUNDLE_QUANT_VERSION);
    q->version = (int)v;
    if ((st = read_string(r, qo, "method", "quantization.", q->method, sizeof(q->method))) != TS_OK) return st;
    if ((st = read_string(r, qo, "file", "quantization.", q->file, sizeof(q->file))) != TS_OK) return st;
    if (!q->file[0] || strchr(q->file, '/') || strstr(q->file, "..")) return bad(r, "quantization.file", "expected a file name inside the bundle");
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(qo, "weights");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1) return bad(r, "quantization.weights", "expected a non-empty array");
    q->weights = calloc((size_t)cJSON_GetArraySize(arr), sizeof(ts_quant_weight));
    if (!q->weights) return ts_error_set(r->err, TS_ERR_OUT_OF_MEMORY, "manifest: out of memory");
    const cJSON *item;
    cJSON_ArrayForEach(item, arr)
    {
        ts_quant_weight *w = &q->weights[q->n_weights];
        char p[64];
        snprintf(p, sizeof(p), "quantization.weights[%d].", q->n_weights);
        if (!cJSON_IsObject(item)) return bad(r, p, "expected an object");
        if ((st = read_string(r, item, "weight", p, w->weight, sizeof(w->weight))) != TS_OK) return st;
        if ((st = read_int(r, item, "bits", p, 1, 64, &v)) != TS_OK) return st;
        w->bits = (int)v;
        if ((st = read_int(r, item, "block", p, 1, (int64_t)1 << 30, &w->block)) != TS_OK) return st;
        if ((st = read_dtype(r, item, "scale_dtype", p, &w->scale_dtype)) != TS_OK) return st;
        const cJSON *zero = cJSON_GetObjectItemCaseSensitive(item, "zero_points"), *shape = cJSON_GetObjectItemCaseSensitive(item, "shape");
        char sub[96];
        snprintf(sub, sizeof(sub), "%szero_points", p);
        if (!cJSON_IsBool(zero)) return bad(r, sub, "expected true or false");
        w->zero_points = cJSON_IsTrue(zero);
        const cJSON *order = cJSON_GetObjectItemCaseSensitive(item, "act_order");
        snprintf(sub, sizeof(sub), "%sact_order", p);
        if (order && !cJSON_IsBool(order)) return bad(r, sub, "expected true or false");
        w->act_order = cJSON_IsTrue(order);
        snprintf(sub, sizeof(sub), "%sshape", p);
        if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) != 2) return bad(r, sub, "expected [out, in]");
        int64_t dims[2];
        for (int d = 0; d < 2; d++) {
            const cJSON *x = cJSON_GetArrayItem(shape, d);
            if (!cJSON_IsNumber(x) || x->valuedouble < 1 || x->valuedouble > 1e12 || x->valuedouble != (double)(int64_t)x->valuedouble)
                return bad(r, sub, "dimensions must be positive integers");
            dims[d] = (int64_t)x->valuedouble;
        }
        w->out = dims[0], w->in = dims[1];
        q->n_weights++;
    }
    return TS_OK;
}

static ts_status parse(reader *r, const cJSON *root, ts_manifest *m)
{
    ts_status st;
    int64_t v = 0;
    if (!cJSON_IsObject(root)) return bad(r, "(top)", "expected an object");
    if ((st = read_int(r, root, "abi_version", "", 0, 1 << 20, &v)) != TS_OK) return st;
    m->abi_version = (int)v;
    if (m->abi_version != TS_BUNDLE_ABI_VERSION)
        return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: abi_version %d (this build reads version %d)", r->origin, m->abi_version, TS_BUNDLE_ABI_VERSION);
    if ((st = read_string(r, root, "family", "", m->family, sizeof(m->family))) != TS_OK) return st;
    if ((st = read_string(r, root, "config_digest", "", m->config_digest, sizeof(m->config_digest))) != TS_OK) return st;
    if ((st = read_string(r, root, "identity", "", m->identity, sizeof(m->identity))) != TS_OK) return st;
    const cJSON *policy = cJSON_GetObjectItemCaseSensitive(root, "dtype_policy");
    if (!cJSON_IsObject(policy)) return bad(r, "dtype_policy", "expected an object");
    if ((st = read_string(r, policy, "compute", "dtype_policy.", m->compute, sizeof(m->compute))) != TS_OK) return st;
    if ((st = read_string(r, policy, "kv", "dtype_policy.", m->kv_dtype, sizeof(m->kv_dtype))) != TS_OK) return st;
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(root, "positions");
    if (!cJSON_IsObject(pos)) return bad(r, "positions", "expected an object");
    if ((st = read_string(r, pos, "mode", "positions.", m->position_mode, sizeof(m->position_mode))) != TS_OK) return st;
    const cJSON *sec = cJSON_GetObjectItemCaseSensitive(pos, "mrope_section");
    if (sec) {
        if (!cJSON_IsArray(sec) || cJSON_GetArraySize(sec) != 3) return bad(r, "positions.mrope_section", "expected three integers");
        for (int i = 0; i < 3; i++) m->mrope_section[i] = cJSON_GetArrayItem(sec, i)->valueint;
    }
    const cJSON *emb = cJSON_GetObjectItemCaseSensitive(root, "embeddings");
    if (emb) {
        const cJSON *scale = cJSON_GetObjectItemCaseSensitive(emb, "scale");
        if (!cJSON_IsNumber(scale) || !(scale->valuedouble > 0) || !isfinite(scale->valuedouble))
            return bad(r, "embeddings.scale", "expected a positive number");
        m->embed_scale = scale->valuedouble;
    }
    const cJSON *mask = cJSON_GetObjectItemCaseSensitive(root, "mask");
    m->image_blocks =
        cJSON_IsObject(mask) && cJSON_GetObjectItemCaseSensitive(mask, "image_blocks");
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(root, "deepstack");
    if (ds) {
        const cJSON *layers = cJSON_GetObjectItemCaseSensitive(ds, "layers");
        if (!cJSON_IsObject(ds) || !cJSON_IsArray(layers) || cJSON_GetArraySize(layers) < 1 || cJSON_GetArraySize(layers) > TS_MAX_DEEPSTACK)
            return bad(r, "deepstack.layers", "expected 1 to 16 layer indices");
        const cJSON *l;
        cJSON_ArrayForEach(l, layers)
        {
            int i = m->n_deepstack;
            if (!cJSON_IsNumber(l) || l->valuedouble != (double)(int32_t)l->valuedouble || l->valuedouble < 0 ||
                (i && l->valuedouble <= m->deepstack_layers[i - 1]))
                return bad(r, "deepstack.layers", "expected ascending non-negative integers");
            m->deepstack_layers[m->n_deepstack++] = (int32_t)l->valuedouble;
        }
    }
    const cJSON *dk = cJSON_GetObjectItemCaseSensitive(root, "decode_k");
    if (dk) {
        if (!cJSON_IsObject(dk)) return bad(r, "decode_k", "expected an object");
        if ((st = read_int(r, dk, "version", "decode_k.", 1, 1 << 20, &v)) != TS_OK) return st;
        if (v != TS_BUNDLE_DECODE_K_VERSION)
            return ts_error_set(r->err, TS_ERR_UNSUPPORTED, "%s: decode_k.version %lld (this build reads version %d)", r->origin, (long long)v,
                                TS_BUNDLE_DECODE_K_VERSION);
        if ((st = read_int(r, dk, "k", "decode_k.", 2, TS_ENTRY_MAX_DRAFT_WIDTH, &m->draft_width)) != TS_OK) return st;
    }
    if ((st = read_descriptors(r, cJSON_GetObjectItemCaseSensitive(root, "weights"), "weights", &m->weights, &m->n_weights)) != TS_OK) return st;
    const cJSON *qo = cJSON_GetObjectItemCaseSensitive(root, "quantization");
    if (qo && (st = parse_quantization(r, qo, &m->quant)) != TS_OK) return st;
    const cJSON *to = cJSON_GetObjectItemCaseSensitive(root, "bundle_weights");
    if (to && (st = parse_tensors(r, to, &m->tensors)) != TS_OK) return st;
    const cJSON *ao = cJSON_GetObjectItemCaseSensitive(root, "adapters");
    if (ao && (st = parse_adapters(r, ao, &m->adapters)) != TS_OK) return st;
    const cJSON *buckets = cJSON_GetObjectItemCaseSensitive(root, "buckets");
    if (!cJSON_IsArray(buckets) || cJSON_GetArraySize(buckets) < 1 || cJSON_GetArraySize(buckets) > TS_BUNDLE_MAX_BUCKETS)
        return bad(r, "buckets", "expected 1 to 16 buckets");
    const cJSON *bo;
    cJSON_ArrayForEach(bo, buckets)
    {
        int b = m->n_buckets;
        char p[64];
        snprintf(p, sizeof(p), "buckets[%d].", b);
        if (!cJSON_IsObject(bo)) return bad(r, p, "expected an object");
        ts_bucket *bk = &m->buckets[b];
        if ((st = read_int(r, bo, "capacity", p, 1, 1 << 24, &bk->capacity)) != TS_OK) return st;
        if ((st = read_int(r, bo, "prefill_capacity", p, 1, bk->capacity, &bk->prefill_capacity)) != TS_OK) return st;
        if ((st = read_int(r, bo, "slots", p, 1, TS_MAX_BATCH, &bk->slots)) != TS_OK) return st;
        if (m->n_deepstack && (st = read_int(r, bo, "visual_capacity", p, 1, bk->prefill_capacity, &m->visual_capacity[b])) != TS_OK)
            return st;
        const cJSON *entries = cJSON_GetObjectItemCaseSensitive(bo, "entries");
        ts_entry list[TS_ENTRY_COUNT];
        int n_list = ts_manifest_entries(m, list);
        for (int i = 0; i < n_list; i++) {
            int e = list[i];
            char ep[80];
            snprintf(ep, sizeof(ep), "%sentries.", p);
            if ((st = read_entry(r, entries, entry_key(e), ep, &m->entries[b][e])) != TS_OK) return st;
        }
        /* Every entry read; one more is an optional entry without its object. */
        const cJSON *named;
        cJSON_ArrayForEach(named, entries)
        {
            int known = 0;
            for (int i = 0; i < n_list; i++) known |= strcmp(named->string, entry_key(list[i])) == 0;
            if (!known) {
                char ep[200];
                snprintf(ep, sizeof(ep), "%sentries.%s", p, named->string);
                return bad(r, ep, "not an entry of this bundle (an optional entry needs its object, e.g. decode_k)");
            }
        }
        m->n_buckets++;
    }
    const cJSON *vo = cJSON_GetObjectItemCaseSensitive(root, "vision");
    if (vo) {
        ts_vision_manifest *v = &m->vision;
        if (!cJSON_IsObject(vo)) return bad(r, "vision", "expected an object");
        if ((st = read_string(r, vo, "layout", "vision.", v->layout, sizeof(v->layout))) != TS_OK) return st;
        bool deepstack = strcmp(v->layout, "patch_rows_deepstack") == 0,
             windowed = strcmp(v->layout, "patch_rows_windowed") == 0, hd = strcmp(v->layout, "hd_views") == 0;
        if (!ts_vision_layout_find(v->layout)) {
            char expected[160];
            snprintf(expected, sizeof(expected), "expected %s", ts_vision_layout_names());
            return bad(r, "vision.layout", expected);
        }
        if ((st = read_int(r, vo, "patch_size", "vision.", 1, 1 << 16, &v->patch_size)) != TS_OK) return st;
        if ((st = read_int(r, vo, "temporal_patch_size", "vision.", 1, 1 << 16, &v->temporal_patch_size)) != TS_OK) return st;
        if ((st = read_int(r, vo, "merge_size", "vision.", 1, 1 << 16, &v->merge_size)) != TS_OK) return st;
        if ((st = read_int(r, vo, "width", "vision.", 1, 1 << 20, &v->width)) != TS_OK) return st;
        if ((st = read_int(r, vo, "depth", "vision.", 1, 1 << 10, &v->depth)) != TS_OK) return st;
        if ((st = read_int(r, vo, "out_hidden", "vision.", 1, 1 << 20, &v->out_hidden)) != TS_OK) return st;
        if (deepstack) {
            int64_t levels;
            if ((st = read_int(r, vo, "deepstack_levels", "vision.", 1, 16, &levels)) != TS_OK) return st;
            v->deepstack_levels = (int)levels;
            if ((st = read_int(r, vo, "position_embeddings", "vision.", 1, (int64_t)1 << 30, &v->position_embeddings)) != TS_OK) return st;
        }
        if (windowed &&
            (st = read_int(r, vo, "window", "vision.", 1, 1 << 16, &v->window)) != TS_OK)
            return st;
        if (hd && (st = read_int(r, vo, "view_patches", "vision.", 1, 1 << 20, &v->view_patches)) != TS_OK)
            return st;
        if ((st = read_descriptors(r, cJSON_GetObjectItemCaseSensitive(vo, "weights"), "vision.weights", &v->weights, &v->n_weights)) != TS_OK)
            return st;
        const cJSON *vb = cJSON_GetObjectItemCaseSensitive(vo, "buckets");
        if (!cJSON_IsArray(vb) || cJSON_GetArraySize(vb) < 1 || cJSON_GetArraySize(vb) > TS_BUNDLE_MAX_BUCKETS)
            return bad(r, "vision.buckets", "expected 1 to 16 buckets");
        cJSON_ArrayForEach(bo, vb)
        {
            int b = v->n_buckets;
            char p[64];
            snprintf(p, sizeof(p), "vision.buckets[%d].", b);
            if (!cJSON_IsObject(bo)) return bad(r, p, "expected an object");
            if ((st = read_int(r, bo, "patches", p, 1, 1 << 24, &v->patches[b])) != TS_OK) return st;
            if ((st = read_entry(r, bo, "vision.main", p, &v->entries[b])) != TS_OK) return st;
            v->n_buckets++;
        }
    }
    const cJSON *au = cJSON_GetObjectItemCaseSensitive(root, "audio");
    if (au && (st = parse_audio(r, au, &m->audio)) != TS_OK) return st;
    const cJSON *po = cJSON_GetObjectItemCaseSensitive(root, "portable");
    if (po) {
        ts_portable_manifest *pm = &m->portable;
        if (!cJSON_IsObject(po)) return bad(r, "portable", "expected an object");
        if ((st = read_string(r, po, "stablehlo_target", "portable.", pm->target, sizeof(pm->target))) != TS_OK) return st;
        if ((st = read_string(r, po, "producer", "portable.", pm->producer, sizeof(pm->producer))) != TS_OK) return st;
        if (!pm->target[0]) return bad(r, "portable.stablehlo_target", "expected a version");
        const cJSON *arts = cJSON_GetObjectItemCaseSensitive(po, "artifacts");
        int n = ts_manifest_module_count(m);
        if (!cJSON_IsArray(arts) || cJSON_GetArraySize(arts) != n) return bad(r, "portable.artifacts", "expected one artifact per module");
        for (int i = 0; i < n; i++) {
            const cJSON *ao = cJSON_GetArrayItem(arts, i);
            char p[64], file[64];
            snprintf(p, sizeof(p), "portable.artifacts[%d].", i);
            if (!cJSON_IsObject(ao)) return bad(r, p, "expected an object");
            if ((st = read_string(r, ao, "module", p, file, sizeof(file))) != TS_OK) return st;
            if (strcmp(file, ts_manifest_module_file(m, i)) != 0) return bad(r, p, "not the module in that place");
            if ((st = read_string(r, ao, "sha256", p, pm->sha256[i], sizeof(pm->sha256[i]))) != TS_OK) return st;
            if (strlen(pm->sha256[i]) != 64) return bad(r, p, "sha256 must be 64 hex digits");
        }
    }
    return TS_OK;
}

ts_status ts_manifest_read(const char *json, size_t len, const char *origin, ts_manifest *m, ts_error *err)
{
    memset(m, 0, sizeof(*m));
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, false);
    if (!root) return ts_error_set(err, TS_ERR_FORMAT, "%s: not valid JSON (at byte %td)", origin, end ? end - json : (ptrdiff_t)0);
    reader r = {origin, err};
    ts_status st = parse(&r, root, m);
    cJSON_Delete(root);
    if (st != TS_OK) ts_manifest_fini(m);
    return st;
}

ts_status ts_descriptor_check(const ts_descriptor *d, const ts_type *actual, const char *what, ts_error *err)
{
    if (ts_type_equal(&d->type, actual)) return TS_OK;
    char want[128], got[128];
    return ts_error_set(err, TS_ERR_FORMAT, "%s %s: declared %s, found %s", what, d->name, ts_type_string(&d->type, want, sizeof(want)),
                        ts_type_string(actual, got, sizeof(got)));
}
