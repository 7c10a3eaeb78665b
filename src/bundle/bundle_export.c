/* bundle_export.c — writes a model's entries as StableHLO modules plus manifest.json.
 *
 * Layout: BUNDLE/manifest.json and BUNDLE/c<capacity>/<entry>.mlir per bucket, vision/p<N>.mlir
 * per patch bucket, audio/f<F>.mlir per audio bucket (the family's audio entry), and the bundle's
 * own weight files (weights.safetensors: bundle_tensors.h; quantized.safetensors). The modules are
 * printed from the same entry graphs the bundle runtime and the tests execute; the manifest is
 * derived from those graphs, so its descriptors are the modules' signatures by construction.
 * With options->portable_python each module also gets its portable artifact (bundle/portable.h).
 * A quantized model (options->quantize, or a GPTQ/AWQ checkpoint) has its entry graphs rewritten
 * by the engine's quantization rewrite (graph/quantize.h) before they are described and printed,
 * and its integer tensors written beside the modules (bundle/bundle_quant.h).
 */
#include "base/error.h"
#include "base/file.h"
#include "base/sha256.h"
#include "bundle/bundle_quant.h"
#include "bundle/bundle_tensors.h"
#include "bundle/manifest.h"
#include "bundle/portable.h"
#include "engine/derived_weights.h"
#include "engine/lora.h"
#include "engine/packed_weights.h"
#include "engine/quantized_weights.h"
#include "engine/synthetic.h"
#include "graph/quantize.h"
#include "export/printer.h"
#include "models/decoder_entries.h"
#include "models/family.h"
#include "models/vision_entry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const ts_tensor_info *find_tensor(void *self, const char *name, int rank, const int64_t *dims)
{
    (void)rank, (void)dims;
    return ts_checkpoint_find(self, name);
}

static ts_status make_dir(const char *path, ts_error *err)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) return ts_error_set(err, TS_ERR_IO, "%s: %s", path, strerror(errno));
    return TS_OK;
}

static ts_status make_dir_in(const char *root, const char *name, ts_error *err)
{
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/%s", root, name);
    return make_dir(dir, err);
}

static ts_status write_file(const char *path, const char *text, ts_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) return ts_error_set(err, TS_ERR_IO, "%s: %s", path, strerror(errno));
    size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, f) == len;
    ok &= fclose(f) == 0;
    return ok ? TS_OK : ts_error_set(err, TS_ERR_IO, "%s: write failed", path);
}

/* A tower's module (vision/p<N>.mlir, audio/f<F>.mlir): printed as "<kind>_main_<p|f><N>" (its
 * file name with the folder's entry) and written; *text kept for the identity. */
static ts_status write_module(const ts_graph *g, const char *bundle_dir, const char *rel, char **text, ts_error *err)
{
    char path[1200], module[64];
    const char *slash = strchr(rel, '/');
    snprintf(path, sizeof(path), "%s/%s", bundle_dir, rel);
    snprintf(module, sizeof(module), "%.*s_main_%.*s", (int)(slash - rel), rel, (int)(strlen(slash + 1) - strlen(".mlir")), slash + 1);
    size_t len;
    ts_status st = ts_stablehlo_print(g, module, text, &len, err);
    return st == TS_OK ? write_file(path, *text, err) : st;
}

ts_status ts_bundle_config_digest(const char *model_dir, char out[65], ts_error *err)
{
    char path[1024];
    ts_status st = ts_path_join(path, sizeof(path), model_dir, "config.json", err);
    return st == TS_OK ? ts_file_sha256(path, out, err) : st;
}

static const char *entry_file(ts_entry e)
{
    static const char *const files[] = {"prefill.mlir", "prefill_embeddings.mlir", "decode.mlir", "prefill_embeddings_deepstack.mlir",
                                        "decode_k.mlir"};
    return files[e];
}

/* Shapes only: a synthetic export needs the weight schema, not the weights. */
typedef struct {
    ts_dtype dtype;
    ts_tensor_info info;
    char name[256];
} shape_source;

static const ts_tensor_info *find_shape(void *self, const char *name, int rank, const int64_t *dims)
{
    shape_source *s = self;
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->info = (ts_tensor_info){.name = s->name, .dtype = s->dtype, .n_dims = rank, .file = "(synthetic)"};
    for (int i = 0; i < rank; i++) s->info.shape[i] = dims[i];
    return &s->info;
}

/* How the matrices are quantized in the modules: choose (the language model's) = NULL for none;
 * tower (vision.main's) = NULL for a float tower. */
typedef struct {
    ts_quant_chooser choose, tower;
    void *user;
    const char *method; /* the manifest's quantization.method */
} quant_plan;

/* What a checkpoint export knows beyond the weight source: the checkpoint itself (which schema
 * weights the bundle must hold: bundle_tensors.h) and the LoRA adapters it serves, or NULL. */
typedef struct {
    const char *model_dir;
    const ts_checkpoint *ckpt;
    const ts_lora_set *lora;
} export_source;

static ts_status export_bundle(const ts_model_config *cfg, const char *config_digest, const ts_weight_source *src,
                               const quant_plan *quant, const export_source *from, const char *bundle_dir,
                               const ts_bundle_options *options, ts_error *err);

static bool in_checkpoint(void *self, const char *name) { return ts_checkpoint_find(self, name) != NULL; }

/* The weights as the engine serves them (engine/model.c): the family's derived parts (views of
 * fused tensors, stacked experts) and the LoRA adapters the checkpoint ships, a GPTQ/AWQ
 * checkpoint's packed matrices unpacked, or --quantize's at load; the same stores, so a bundle's
 * integer weights are the engine's bytes. The tower follows the engine too: --quantize quantizes
 * it with the engine's chooser (ts_quantized_weights_choose_tower); a GPTQ/AWQ checkpoint's tower
 * matrices are quantized where the checkpoint packed them, the rest stay as stored. Weights no
 * checkpoint holds by name go to the bundle's own file (bundle_tensors.h). */
ts_status ts_bundle_export(const char *model_dir, const char *bundle_dir, const ts_bundle_options *options, ts_error *err)
{
    ts_model_config cfg;
    ts_checkpoint *ck = NULL;
    ts_derived_weights *derived = NULL;
    ts_lora_set *lora = NULL;
    ts_packed_weights *packed = NULL;
    ts_quantized_weights *quantized = NULL;
    ts_quant_config qc;
    quant_plan plan = {0};
    char digest[65];
    const char *format = options ? options->quantize : NULL;
    int bits = !format ? 0 : strcmp(format, "q8") == 0 ? 8 : strcmp(format, "q4") == 0 ? 4 : -1;
    ts_status st = bits < 0 ? ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "quantization format '%s' (expected q8 or q4)", format) : TS_OK;
    if (st == TS_OK) st = ts_model_config_load(model_dir, &cfg, err);
    if (st == TS_OK) st = ts_checkpoint_open(model_dir, &ck, err);
    if (st == TS_OK) st = ts_bundle_config_digest(model_dir, digest, err);
    if (st == TS_OK) st = ts_quant_config_load(model_dir, &qc, err);
    if (st == TS_OK) st = ts_derived_weights_create(ck, &cfg, &derived, err);
    ts_weight_source src = {derived ? ts_derived_weights_find : find_tensor, derived ? (void *)derived : (void *)ck};
    ts_decoder_spec spec;
    if (st == TS_OK) st = ts_decoder_spec_init(&cfg, &spec, err);
    if (st == TS_OK) st = ts_lora_set_load(model_dir, &cfg, &spec, &src, &lora, err);
    if (st == TS_OK && lora && (bits || qc.method != TS_QUANT_NONE))
        st = ts_error_set(err, TS_ERR_UNSUPPORTED, "a quantized bundle of a model with LoRA adapters is not built (export it unquantized)");
    if (st == TS_OK && lora) src = ts_lora_set_source(lora);
    if (st == TS_OK && qc.method != TS_QUANT_NONE) {
        if (bits) st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "--quantize %s: the checkpoint is already quantized (%s)", format,
                                    ts_quant_method_name(qc.method));
        if (st == TS_OK) st = ts_packed_weights_create(ck, NULL, &qc, &packed, err);
        if (st == TS_OK) src = ts_packed_weights_source(packed);
        plan = (quant_plan){ts_packed_weights_choose, ts_packed_weights_choose, packed,
                            ts_quant_method_name(qc.method)};
    }
    if (st == TS_OK && bits > 0) {
        st = ts_quantized_weights_create(&src, NULL, bits, false, &quantized, err);
        if (st == TS_OK) src = ts_quantized_weights_source(quantized);
        plan = (quant_plan){ts_quantized_weights_choose, ts_quantized_weights_choose_tower, quantized, format};
    }
    export_source from = {model_dir, ck, lora};
    if (st == TS_OK) st = export_bundle(&cfg, digest, &src, &plan, &from, bundle_dir, options, err);
    else ts_error_prefix(err, "export %s: ", bundle_dir);
    ts_quantized_weights_destroy(quantized);
    ts_packed_weights_destroy(packed);
    ts_lora_set_destroy(lora);
    ts_derived_weights_destroy(derived);
    ts_checkpoint_close(ck);
    return st;
}

ts_status ts_bundle_export_synthetic(const char *preset, ts_dtype dtype, const char *bundle_dir,
                                     const ts_bundle_options *options, ts_error *err)
{
    ts_model_config cfg;
    ts_status st = ts_model_config_preset(preset, &cfg, err);
    if (st != TS_OK) return st;
    char digest[65];
    ts_sha256_hex(preset, strlen(preset), digest);
    shape_source shapes = {.dtype = dtype};
    ts_weight_source src = {find_shape, &shapes};
    const quant_plan none = {0};
    if (options && options->quantize)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "export: a synthetic bundle has no weights to quantize (--quantize)");
    const export_source from = {NULL, NULL, NULL};
    return export_bundle(&cfg, digest, &src, &none, &from, bundle_dir, options, err);
}

/* A ts_weight_keeper: the weights of the schema the first entry made (every entry shares it). */
static bool in_schema(void *self, const char *name)
{
    const ts_manifest *m = self;
    for (int i = 0; i < m->n_weights; i++)
        if (strcmp(m->weights[i].name, name) == 0) return true;
    return false;
}

static ts_status export_bundle(const ts_model_config *cfg, const char *config_digest, const ts_weight_source *source,
                               const quant_plan *quant, const export_source *from, const char *bundle_dir,
                               const ts_bundle_options *options, ts_error *err)
{
    static const int64_t default_capacity = 4096;
    const int64_t *caps = options && options->capacities ? options->capacities : &default_capacity;
    int n_caps = options && options->capacities ? options->n_capacities : 1;
    if (n_caps < 1 || n_caps > TS_BUNDLE_MAX_BUCKETS)
        return ts_error_set(err, TS_ERR_RANGE, "export: %d capacity buckets (1..%d allowed)", n_caps, TS_BUNDLE_MAX_BUCKETS);
    for (int i = 0; i < n_caps; i++)
        if (caps[i] < 1 || (i && caps[i] <= caps[i - 1]))
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "export: capacities must be positive and ascending");
    int64_t slots = options && options->slots ? options->slots : 1;

    ts_decoder_spec spec;
    ts_manifest man;
    memset(&man, 0, sizeof(man));
    char *texts[TS_BUNDLE_MAX_MODULES] = {0};
    char *json = NULL;
    ts_status st = ts_decoder_spec_init(cfg, &spec, err);
    /* LoRA: every entry takes `adapters`, the manifest names them by index. */
    if (st == TS_OK && from->lora) {
        spec.lora_adapters = ts_lora_set_count(from->lora);
        spec.lora_rank = ts_lora_set_rank(from->lora);
        if (spec.lora_adapters > TS_BUNDLE_MAX_ADAPTERS)
            st = ts_error_set(err, TS_ERR_RANGE, "export: %d adapters (at most %d)", spec.lora_adapters, TS_BUNDLE_MAX_ADAPTERS);
        for (int i = 0; st == TS_OK && i < spec.lora_adapters; i++)
            snprintf(man.adapters.names[man.adapters.n++], sizeof(man.adapters.names[0]), "%s", ts_lora_set_name(from->lora, i));
    }
    int n_vision = options && options->vision_patches ? options->n_vision_patches : 0;
    if (n_vision < 0 || n_vision > TS_BUNDLE_MAX_BUCKETS)
        return ts_error_set(err, TS_ERR_RANGE, "export: %d vision buckets (0..%d allowed)", n_vision, TS_BUNDLE_MAX_BUCKETS);
    for (int i = 0; i < n_vision; i++)
        if (options->vision_patches[i] < 1 || (i && options->vision_patches[i] <= options->vision_patches[i - 1]))
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "export: vision patch buckets must be positive and ascending");
    snprintf(man.config_digest, sizeof(man.config_digest), "%s", config_digest);
    if (st == TS_OK) st = make_dir(bundle_dir, err);
    man.abi_version = TS_BUNDLE_ABI_VERSION;
    snprintf(man.family, sizeof(man.family), "%s", ts_family_name(cfg->family));
    strcpy(man.compute, "f32");
    strcpy(man.kv_dtype, "f32");
    strcpy(man.position_mode, !spec.mrope ? "1d" : cfg->text.mrope_interleaved ? "mrope_interleaved" : "mrope");
    memcpy(man.mrope_section, cfg->text.mrope_section, sizeof(man.mrope_section));
    /* DeepStack (tower rows added after chosen language layers): its layers go into the manifest,
     * and with them a fourth entry. */
    man.n_deepstack = st == TS_OK ? spec.n_deepstack : 0;
    if (man.n_deepstack) memcpy(man.deepstack_layers, spec.deepstack_layers, sizeof(man.deepstack_layers));
    /* The descriptor's image rule: the bias prefill_embeddings.main takes then holds image blocks.
     */
    man.image_blocks =
        cfg->family && cfg->family->image_attention == TS_IMAGE_ATTENTION_BIDIRECTIONAL;
    man.embed_scale = st == TS_OK ? spec.embed_scale : 0;
    /* Speculative decoding: decode_k.main verifies draft_width rows per slot (checked by the
     * entry builder against every bucket). */
    man.draft_width = options ? options->draft_width : 0;
    if (man.draft_width && (man.draft_width < 2 || man.draft_width > TS_ENTRY_MAX_DRAFT_WIDTH))
        st = ts_error_set(err, TS_ERR_RANGE, "export: draft width %lld (2..%d rows per slot, or 0 for none)", (long long)man.draft_width,
                          TS_ENTRY_MAX_DRAFT_WIDTH);
    ts_entry list[TS_ENTRY_COUNT];
    int n_entries = ts_manifest_entries(&man, list);
    for (int b = 0; b < n_caps && st == TS_OK; b++) {
        int64_t lp = options && options->prefill_capacity ? options->prefill_capacity : caps[b];
        if (lp > caps[b]) lp = caps[b];
        man.buckets[b] = (ts_bucket){caps[b], lp, slots};
        man.n_buckets = b + 1;
        char dir[1024];
        snprintf(dir, sizeof(dir), "%s/c%lld", bundle_dir, (long long)caps[b]);
        st = make_dir(dir, err);
        ts_entry_shape shape = {caps[b], lp, slots, man.draft_width};
        if (man.n_deepstack) man.visual_capacity[b] = ts_entry_visual_capacity(&shape);
        for (int e = 0; e < n_entries && st == TS_OK; e++) {
            ts_graph *g;
            char rel[64], path[1200], module[64];
            ts_entry entry = list[e];
            snprintf(rel, sizeof(rel), "c%lld/%s", (long long)caps[b], entry_file(entry));
            snprintf(path, sizeof(path), "%s/%s", bundle_dir, rel);
            snprintf(module, sizeof(module), "%s_c%lld", ts_entry_name(entry), (long long)caps[b]);
            for (char *c = module; *c; c++)
                if (*c == '.') *c = '_';
            st = ts_graph_create(&g, err);
            if (st != TS_OK) break;
            size_t len;
            st = ts_decoder_build_entry(g, &spec, source, entry, &shape, err);
            if (st == TS_OK && quant->choose) {
                ts_graph *q;
                st = ts_graph_quantize_keeping(g, quant->choose, quant->user, man.weights ? in_schema : NULL, &man, &q, err);
                ts_graph_destroy(g);
                g = st == TS_OK ? q : NULL;
            }
            if (st == TS_OK) st = ts_manifest_add_entry(&man, b, entry, g, rel, err);
            if (st == TS_OK) st = ts_stablehlo_print(g, module, &texts[b * n_entries + e], &len, err);
            if (st == TS_OK) st = write_file(path, texts[b * n_entries + e], err);
            ts_graph_destroy(g);
        }
    }
    /* The tower's entries, one per patch bucket. */
    if (st == TS_OK && n_vision) {
        ts_vision_manifest *v = &man.vision;
        ts_vision_entry_geometry geo = {0};
        st = ts_vision_entry_geometry_of(cfg, &geo, err);
        snprintf(v->layout, sizeof(v->layout), "%s", st == TS_OK ? geo.layout : "");
        v->patch_size = geo.patch, v->temporal_patch_size = geo.temporal, v->merge_size = geo.merge;
        v->width = geo.width, v->depth = geo.depth, v->out_hidden = geo.out_hidden;
        v->deepstack_levels = geo.deepstack, v->position_embeddings = geo.position_embeddings,
        v->window = geo.window;
        v->view_patches = st == TS_OK && strcmp(geo.layout, "hd_views") == 0 ? geo.image_patches : 0;
        char dir[1024];
        snprintf(dir, sizeof(dir), "%s/vision", bundle_dir);
        if (st == TS_OK) st = make_dir(dir, err);
        for (int b = 0; b < n_vision && st == TS_OK; b++) {
            int64_t n = options->vision_patches[b];
            char rel[64];
            snprintf(rel, sizeof(rel), "vision/p%lld.mlir", (long long)n);
            ts_graph *g;
            int at = ts_manifest_module_count(&man);
            st = ts_graph_create(&g, err);
            if (st != TS_OK) break;
            st = ts_vision_entry_build(g, cfg, source, n, err);
            if (st == TS_OK && quant->tower) {
                ts_graph *q;
                st = ts_graph_quantize(g, quant->tower, quant->user, &q, err);
                ts_graph_destroy(g);
                g = st == TS_OK ? q : NULL;
            }
            v->patches[b] = n;
            if (st == TS_OK) st = ts_manifest_add_vision_entry(&man, b, g, rel, err);
            if (st == TS_OK) v->n_buckets = b + 1;
            if (st == TS_OK) st = write_module(g, bundle_dir, rel, &texts[at], err);
            ts_graph_destroy(g);
        }
    }
    /* The audio encoder's entries, one per duration bucket (the family's graph). */
    int n_audio = options && options->audio_frames ? options->n_audio_frames : 0;
    const ts_audio_path *audio = cfg->family ? cfg->family->audio : NULL;
    if (st == TS_OK && n_audio && (!audio || !audio->entry || !from->model_dir))
        st = ts_error_set(err, TS_ERR_UNSUPPORTED, "export: %s has no audio encoder entry to export (--audio-frames)",
                          ts_family_name(cfg->family));
    if (st == TS_OK && (n_audio < 0 || n_audio > TS_BUNDLE_MAX_BUCKETS))
        st = ts_error_set(err, TS_ERR_RANGE, "export: %d audio buckets (0..%d allowed)", n_audio, TS_BUNDLE_MAX_BUCKETS);
    if (st == TS_OK && n_audio) st = make_dir_in(bundle_dir, "audio", err);
    for (int b = 0; b < n_audio && st == TS_OK; b++) {
        int64_t f = options->audio_frames[b];
        if (f < 1 || (b && f <= options->audio_frames[b - 1])) {
            st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "export: audio frame buckets must be positive and ascending");
            break;
        }
        char rel[64];
        snprintf(rel, sizeof(rel), "audio/f%lld.mlir", (long long)f);
        ts_graph *g;
        int at = ts_manifest_module_count(&man);
        st = ts_graph_create(&g, err);
        if (st != TS_OK) break;
        st = audio->entry(g, from->model_dir, cfg, source, f, err);
        man.audio.frames[b] = f;
        for (int i = 0; i < audio->n_projectors && i < TS_BUNDLE_MAX_PROJECTORS; i++)
            snprintf(man.audio.projectors[i], sizeof(man.audio.projectors[i]), "%s", audio->projectors[i]);
        man.audio.n_projectors = audio->n_projectors;
        if (st == TS_OK) st = ts_manifest_add_audio_entry(&man, b, g, rel, err);
        if (st == TS_OK) man.audio.n_buckets = b + 1;
        if (st == TS_OK) st = write_module(g, bundle_dir, rel, &texts[at], err);
        ts_graph_destroy(g);
    }
    if (st == TS_OK && quant->choose) st = ts_bundle_quant_describe(&man, quant->method, err);
    if (st == TS_OK) st = ts_bundle_quant_write(&man, source, bundle_dir, err);
    if (st == TS_OK) st = ts_bundle_tensors_describe(&man, from->ckpt ? in_checkpoint : NULL, (void *)from->ckpt, err);
    if (st == TS_OK) st = ts_bundle_tensors_write(&man, source, bundle_dir, err);
    if (st == TS_OK && options && options->portable_python) st = ts_portable_write(bundle_dir, options->portable_python, &man, err);
    if (st == TS_OK) st = ts_manifest_write(&man, (const char *const *)texts, &json, err);
    if (st == TS_OK) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/manifest.json", bundle_dir);
        st = write_file(path, json, err);
    }
    free(json);
    for (int i = 0; i < TS_BUNDLE_MAX_MODULES; i++) free(texts[i]);
    ts_manifest_fini(&man);
    if (st != TS_OK) ts_error_prefix(err, "export %s: ", bundle_dir);
    return st;
}
