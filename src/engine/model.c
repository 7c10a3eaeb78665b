/* model.c — a loaded model: config, mapped checkpoint, and step programs built on demand.
 *
 * A step program is the decoder graph for one shape (sequence count, tokens per sequence, cache
 * capacity, diagnostic outputs), planned by the CPU executor. Programs are kept in a small cache
 * keyed by shape, so steady decode reuses one program; prompts of a new length build theirs
 * (graph building and planning take well under a millisecond per layer). Weights are bound once
 * per program from the checkpoint mapping; inputs and caches per call.
 *
 * DeepStack payloads (ts_deepstack) are checked twice: against the model's config where the
 * public call comes in, and against the program's declared shape right before it runs
 * (ts_decoder_check_deepstack). They are bound for that one run and never kept: nothing about
 * them outlives the call, so a decode step cannot read one.
 *
 * longrope (spec.rope_long_after > 0, Phi-4-multimodal): transformers rotates every row of a
 * forward with the long factors when that forward's max position + 1 passes
 * original_max_position_embeddings, and generation that crosses it drops the cache and runs the
 * whole sequence again (prepare_inputs_for_generation). Here a sequence is short or long
 * (rope_long, until reset): a step whose rows reach past the threshold on an empty sequence runs
 * long; on a short sequence holding rows, its rows are first computed again with the long factors
 * from the inputs the sequence recorded (history: token ids, and every row's embedding once an
 * embedding row came), then the step runs long. A sequence whose inputs are not all recorded
 * (rows restored by ts_sequence_append_rows without their tokens, side inputs) is refused there.
 * A step that fails after such a switch leaves the sequence long at its old length (its rows
 * already computed again), not as it was.
 */
#include "engine/model.h"
#include "engine/derived_weights.h"
#include "engine/lora.h"
#include "base/context.h"
#include "base/error.h"
#include "cpu/executor.h"
#include "cpu/kernels.h"
#include "engine/packed_weights.h"
#include "engine/quantized_weights.h"
#include "engine/synthetic.h"
#include "graph/quantize.h"
#include "engine/mm_inputs.h"
#include "engine/vision.h"
#include "media/audio.h"
#include "models/decoder.h"
#include "models/family.h"
#include "models/weights.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for a server's steps: decode shapes (one per batch size) and mixed steps (the batch's row counts,
 * sorted, are the key, not which slots hold them). */
#define PROGRAM_CACHE 24

typedef struct {
    ts_step_shape shape;
    ts_graph *graph;
    ts_program *program;
    void **params;
    int32_t n_params, first_input;
    uint64_t last_used;
} step_program;

/* The buffers a step fills per call that scale with its rows or sequences (positions, tokens,
 * adapter rows, output slots): kept on the model and grown once, so a steady decode step
 * allocates nothing. One set per model is enough: a model runs one call at a time (tessera.h),
 * and no slot is used by two frames of one call. Embedding-sized buffers (image prompt chunks,
 * DeepStack features) stay per call: a prefill's compute dwarfs their allocation, and the model
 * should not keep the largest prompt's embeddings for its lifetime. */
enum { SCRATCH_POSITIONS, SCRATCH_TOKENS, SCRATCH_ADAPTERS, SCRATCH_OUTPUTS, SCRATCH_SLOTS };

struct ts_model {
    ts_context *ctx;
    ts_model_config config;
    ts_checkpoint *checkpoint;      /* a loaded model's weights … */
    ts_derived_weights *derived;     /* … found there, or derived by the family (stacked experts) … */
    ts_synthetic_weights *synthetic; /* … or a benchmark model's */
    ts_weight_source weights;
    ts_quantized_weights *quantized; /* after ts_model_quantize: serves `weights`, wraps base_weights */
    ts_weight_source base_weights;
    ts_packed_weights *packed;       /* a GPTQ/AWQ checkpoint's unpacked matrices: serves `weights` */
    int quant_bits;                  /* 0: float weights */
    int lm_matrices;                 /* the quantized store's first matrices are the language model's */
    int64_t lm_float_bytes;          /* its matrices kept in floats (a width 32 does not divide) */
    ts_quant_chooser choose;         /* which matrices the graph rewrite quantizes */
    void *choose_user;
    char quant_summary[1024];
    ts_vision *vision; /* the image tower, for families whose image path is built */
    void *audio;       /* the family's audio encoder (models/audio_path.h), when its path is built */
    ts_lora_set *lora; /* the checkpoint's LoRA adapters (serves `weights`), or NULL */
    ts_decoder_spec spec;
    ts_dtype kv_dtype;
    step_program programs[PROGRAM_CACHE];
    uint64_t clock;
    /* A step's index buffers (step_scratch), each grown to the largest step and reused */
    struct {
        void *data;
        size_t bytes;
    } scratch[SCRATCH_SLOTS];
};

struct ts_sequence {
    ts_model *model;
    int64_t capacity, length;
    int64_t local_rows; /* rows of a sliding-window layer's ring (0: capacity, window masked) */
    int64_t rope_delta; /* M-RoPE: position of the next token = length + rope_delta (0 for text) */
    int adapter;        /* LoRA adapter every row of this sequence runs with (0: none) */
    /* longrope (see the top): rows computed with the long factors; the inputs of the first
     * `history` rows (≤ spec.rope_long_after; fewer than length: a switch is refused): token
     * ids [rope_long_after], and when history_rows is set every row's embedding
     * [rope_long_after][hidden]. */
    bool rope_long;
    int64_t history;
    int32_t *history_tokens;
    float *history_rows;
    /* [layers][k|v][rows][kv_heads][head_dim] of the model's kv_dtype, rows = capacity, or
     * local_rows for a local layer (position p at row p mod local_rows) */
    uint8_t *cache;
};

/* Builds a one-token graph: every weight is checked (or, synthetic, created) by name, shape
 * and dtype before the model is handed out. */
static ts_status check_weights(ts_model *m, ts_error *err)
{
    ts_graph *g;
    ts_status st = ts_graph_create(&g, err);
    if (st != TS_OK) return st;
    ts_step_shape probe = {.n_seqs = 1, .n_tokens = {1}, .capacity = 1};
    st = ts_decoder_build(g, &m->spec, &m->weights, &probe, err);
    ts_graph_destroy(g);
    return st;
}

/* A GPTQ/AWQ checkpoint: its packed matrices unpacked once, every matmul over them quantized. */
static ts_status use_packed(ts_model *m, const ts_quant_config *qc, ts_error *err)
{
    ts_status st = ts_packed_weights_create(m->checkpoint, m->ctx->pool, qc, &m->packed, err);
    if (st != TS_OK) return st;
    m->weights = ts_packed_weights_source(m->packed);
    m->quant_bits = qc->bits;
    m->choose = ts_packed_weights_choose;
    m->choose_user = m->packed;
    char groups[48], order[48] = "";
    if (qc->group_size == -1) snprintf(groups, sizeof(groups), "one group per row");
    else snprintf(groups, sizeof(groups), "groups of %lld", (long long)qc->group_size);
    if (ts_packed_weights_permuted(m->packed))
        snprintf(order, sizeof(order), ", act order in %d", ts_packed_weights_permuted(m->packed));
    snprintf(m->quant_summary, sizeof(m->quant_summary), "%s %d-bit (%s, zero points%s): %d matrices, %.2f MB unpacked",
             ts_quant_method_name(qc->method), qc->bits, groups, order, ts_packed_weights_count(m->packed),
             (double)ts_packed_weights_bytes(m->packed) / 1e6);
    return TS_OK;
}

/* The checkpoint's LoRA adapters, when its family has some and the folder ships them: served per
 * row through the weight source, every dense projection a lora_linear. */
static ts_status use_lora(ts_model *m, const char *dir, ts_error *err)
{
    ts_status st = ts_lora_set_load(dir, &m->config, &m->spec, &m->weights, &m->lora, err);
    if (st != TS_OK || !m->lora) return st;
    m->spec.lora_adapters = ts_lora_set_count(m->lora);
    m->spec.lora_rank = ts_lora_set_rank(m->lora);
    m->weights = ts_lora_set_source(m->lora);
    return TS_OK;
}

ts_status ts_model_load(ts_context *ctx, const char *dir, const ts_model_options *options, ts_model **out, ts_error *err)
{
    *out = NULL;
    ts_model *m = calloc(1, sizeof(*m));
    if (!m) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "model: out of memory");
    m->ctx = ctx;
    m->kv_dtype = TS_DTYPE_F32;
    const char *kv = options ? options->kv_cache : NULL;
    if (kv && strcmp(kv, "bf16") == 0) m->kv_dtype = TS_DTYPE_BF16;
    else if (kv && strcmp(kv, "f32") != 0) {
        free(m);
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "kv cache type '%s' (expected f32 or bf16)", kv);
    }
    ts_status st = ts_model_config_load(dir, &m->config, err);
    if (st == TS_OK) st = ts_decoder_spec_init(&m->config, &m->spec, err);
    if (st == TS_OK) st = ts_checkpoint_open(options && options->weights ? options->weights : dir, &m->checkpoint, err);
    if (st == TS_OK) st = ts_derived_weights_create(m->checkpoint, &m->config, &m->derived, err);
    m->weights = (ts_weight_source){ts_derived_weights_find, m->derived};
    ts_quant_config qc;
    if (st == TS_OK) st = ts_quant_config_load(dir, &qc, err);
    if (st == TS_OK && qc.method != TS_QUANT_NONE) st = use_packed(m, &qc, err);
    if (st == TS_OK) st = use_lora(m, dir, err);
    if (st == TS_OK) st = check_weights(m, err);
    /* A GPTQ/AWQ checkpoint's tower and projector: what it packed runs quantized, the rest in
     * floats (published checkpoints mostly leave the tower unquantized). */
    if (st == TS_OK && ts_vision_has_tower(&m->config))
        st = ts_vision_create(ctx, &m->config, &m->weights, m->choose, m->choose_user, &m->vision, err);
    if (st == TS_OK && ts_family_audio_path(&m->config))
        st = m->config.family->audio->encoder->create(ctx, dir, &m->config, &m->weights, &m->audio, err);
    if (st == TS_OK && options && options->quantize) st = ts_model_quantize(m, options->quantize, err);
    if (st != TS_OK) {
        ts_model_destroy(m);
        ts_error_prefix(err, "%s: ", dir);
        return st;
    }
    *out = m;
    return TS_OK;
}

ts_status ts_model_create_synthetic(ts_context *ctx, const char *preset, ts_dtype dtype, ts_model **out, ts_error *err)
{
    *out = NULL;
    ts_model *m = calloc(1, sizeof(*m));
    if (!m) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "model: out of memory");
    m->ctx = ctx;
    m->kv_dtype = TS_DTYPE_F32;
    ts_status st = ts_model_config_preset(preset, &m->config, err);
    if (st == TS_OK) st = ts_decoder_spec_init(&m->config, &m->spec, err);
    if (st == TS_OK) st = ts_synthetic_weights_create(dtype, 0x7e55e7a, &m->synthetic, err);
    m->weights = (ts_weight_source){ts_synthetic_weights_find, m->synthetic};
    if (st == TS_OK) st = check_weights(m, err);
    if (st == TS_OK && ts_vision_has_tower(&m->config))
        st = ts_vision_create(ctx, &m->config, &m->weights, NULL, NULL, &m->vision, err);
    if (st != TS_OK) {
        ts_model_destroy(m);
        ts_error_prefix(err, "synthetic %s: ", preset);
        return st;
    }
    *out = m;
    return TS_OK;
}

size_t ts_model_weight_bytes(const ts_model *m)
{
    if (m->packed) return (size_t)ts_packed_weights_bytes(m->packed);
    if (m->quantized) {
        ts_quantization_report r; /* the language model's: the tower is not streamed per token */
        ts_quantized_weights_report_range(m->quantized, 0, m->lm_matrices, &r);
        return (size_t)(r.bytes + m->lm_float_bytes);
    }
    if (m->synthetic) return ts_synthetic_weights_bytes(m->synthetic);
    size_t bytes = 0; /* a loaded checkpoint: every tensor of its mapping */
    for (size_t i = 0; m->checkpoint && i < ts_checkpoint_tensor_count(m->checkpoint); i++)
        bytes += ts_checkpoint_tensor_at(m->checkpoint, i)->n_bytes;
    return bytes;
}

static void program_clear(step_program *p)
{
    ts_program_destroy(p->program);
    ts_graph_destroy(p->graph);
    free(p->params);
    memset(p, 0, sizeof(*p));
}

void ts_model_destroy(ts_model *m)
{
    if (!m) return;
    for (int i = 0; i < PROGRAM_CACHE; i++) program_clear(&m->programs[i]);
    for (int i = 0; i < SCRATCH_SLOTS; i++) free(m->scratch[i].data);
    ts_vision_destroy(m->vision);
    if (m->audio) m->config.family->audio->encoder->destroy(m->audio);
    ts_lora_set_destroy(m->lora);
    ts_quantized_weights_destroy(m->quantized);
    ts_packed_weights_destroy(m->packed);
    ts_derived_weights_destroy(m->derived);
    ts_checkpoint_close(m->checkpoint);
    ts_synthetic_weights_destroy(m->synthetic);
    free(m);
}

/* "q8: N matrices, …; weight error … overall, worst …% (name)" over the store's matrices
 * first … end − 1. */
static int describe(const ts_quantized_weights *q, int first, int end, char *out, size_t cap)
{
    ts_quantization_report r;
    ts_quantized_weights_report_range(q, first, end, &r);
    return snprintf(out, cap, "q%d: %d matrices, %.2f M weights, %.2f MB; weight error |W - Wq|/|W| %.3f%% overall, worst %.3f%% (%s)",
                    r.bits, r.matrices, (double)r.weights / 1e6, (double)r.bytes / 1e6, 100.0 * r.rel_error_all,
                    100.0 * r.rel_error_max, r.worst ? r.worst : "-");
}

/* ", N matrices kept in floats (…)", or nothing when none was. */
static int describe_kept(const ts_float_matrices *kept, char *out, size_t cap)
{
    if (!kept->count) return 0;
    return snprintf(out, cap, ", %d %s kept in floats (width not a multiple of %d: %s%s)", kept->count,
                    kept->count > 1 ? "matrices" : "matrix", TS_QUANT_BLOCK, kept->example, kept->count > 1 ? ", ..." : "");
}

/* The decoder graph for `shape`, with its matmuls quantized when the model is. */
static ts_status build_graph(ts_model *m, const ts_step_shape *shape, ts_graph **out, ts_error *err)
{
    ts_graph *g;
    *out = NULL;
    ts_status st = ts_graph_create(&g, err);
    if (st == TS_OK) st = ts_decoder_build(g, &m->spec, &m->weights, shape, err);
    if (st == TS_OK && m->quant_bits) {
        ts_graph *q;
        st = ts_graph_quantize(g, m->choose, m->choose_user, &q, err);
        ts_graph_destroy(g);
        g = st == TS_OK ? q : NULL;
    }
    if (st != TS_OK) {
        ts_graph_destroy(g);
        return st;
    }
    *out = g;
    return TS_OK;
}

ts_status ts_model_quantize(ts_model *m, const char *format, ts_error *err)
{
    int bits = format && strcmp(format, "q8") == 0 ? 8 : format && strcmp(format, "q4") == 0 ? 4 : 0;
    if (!bits) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "quantization format '%s' (expected q8 or q4)", format ? format : "(null)");
    if (m->quant_bits)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "model is already quantized (%s)", m->packed ? "its checkpoint is" : m->quant_summary);
    /* Its projections run as LoRA linears, which the rewrite does not take: refused, rather than
     * a "quantized" model whose language model stays in floats. */
    if (m->lora)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "quantize %s: the checkpoint's projections carry %d LoRA adapters; quantizing LoRA-adapted "
                            "linears is not supported",
                            format, ts_lora_set_count(m->lora));
    ts_quantized_weights *q;
    ts_status st = ts_quantized_weights_create(&m->weights, m->ctx, bits, m->checkpoint != NULL, &q, err);
    if (st != TS_OK) return st;
    for (int i = 0; i < PROGRAM_CACHE; i++) program_clear(&m->programs[i]);
    m->base_weights = m->weights;
    m->quantized = q;
    m->weights = ts_quantized_weights_source(q);
    m->quant_bits = bits;
    m->choose = ts_quantized_weights_choose;
    m->choose_user = q;
    /* Quantize every matrix now (a one-token graph names them all), so failures show here. */
    ts_graph *g;
    ts_step_shape probe = {.n_seqs = 1, .n_tokens = {1}, .capacity = 1};
    st = build_graph(m, &probe, &g, err);
    for (int32_t i = 0; st == TS_OK && i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op == TS_OP_PARAMETER && n->attrs.parameter.role == TS_PARAM_WEIGHT && strchr(n->name, ':') &&
            !m->weights.find(m->weights.self, n->name, n->type.rank, n->type.dims))
            st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "quantize: cannot quantize %s", n->name);
    }
    ts_float_matrices lm_kept = {0}, kept = {0};
    if (st == TS_OK) ts_graph_float_matrices(g, TS_QUANT_BLOCK, &lm_kept);
    ts_graph_destroy(g);
    m->lm_matrices = ts_quantized_weights_count(q);
    m->lm_float_bytes = lm_kept.bytes;
    /* The vision tower and projector too, through the same store (the tower reads the model's
     * weight source): their own report follows the language model's. */
    if (st == TS_OK && m->vision) st = ts_vision_quantize(m->vision, ts_quantized_weights_choose_tower, q, &kept, err);
    if (st != TS_OK) {
        m->weights = m->base_weights;
        m->quant_bits = 0;
        m->quantized = NULL;
        m->choose = NULL, m->choose_user = NULL;
        ts_quantized_weights_destroy(q);
        return st;
    }
    size_t cap = sizeof(m->quant_summary);
    int at = describe(q, 0, m->lm_matrices, m->quant_summary, cap);
    if (at > 0 && (size_t)at < cap) at += describe_kept(&lm_kept, m->quant_summary + at, cap - (size_t)at);
    int tower = ts_quantized_weights_count(q) - m->lm_matrices;
    if (m->vision && tower > 0 && at > 0 && (size_t)at < cap)
        at += snprintf(m->quant_summary + at, cap - (size_t)at, "; vision tower ");
    if (m->vision && tower > 0 && at > 0 && (size_t)at < cap)
        at += describe(q, m->lm_matrices, m->lm_matrices + tower, m->quant_summary + at, cap - (size_t)at);
    else if (m->vision && at > 0 && (size_t)at < cap)
        at += snprintf(m->quant_summary + at, cap - (size_t)at, "; vision tower not quantized");
    if (m->vision && at > 0 && (size_t)at < cap) describe_kept(&kept, m->quant_summary + at, cap - (size_t)at);
    return TS_OK;
}

const char *ts_model_quantization_summary(const ts_model *m) { return m->quant_bits ? m->quant_summary : ""; }

const ts_model_config *ts_model_get_config(const ts_model *m) { return &m->config; }
int64_t ts_model_vocab_size(const ts_model *m) { return m->spec.vocab; }
int64_t ts_model_kv_heads(const ts_model *m) { return m->spec.kv_heads; }
int64_t ts_model_head_dim(const ts_model *m) { return m->spec.head_dim; }

static bool same_shape(const ts_step_shape *a, const ts_step_shape *b)
{
    if (a->n_seqs != b->n_seqs || a->capacity != b->capacity || a->local_rows != b->local_rows ||
        a->kv_dtype != b->kv_dtype || a->all_logits != b->all_logits ||
        a->from_embeddings != b->from_embeddings || a->hidden_states != b->hidden_states ||
        a->n_visual != b->n_visual || a->decode_rows != b->decode_rows)
        return false;
    for (int i = 0; i < a->n_seqs; i++)
        if (a->n_tokens[i] != b->n_tokens[i] || a->attention_bias[i] != b->attention_bias[i] ||
            a->rope_long[i] != b->rope_long[i])
            return false;
    return true;
}

static ts_status get_program(ts_model *m, const ts_step_shape *shape, step_program **out, ts_error *err)
{
    step_program *victim = &m->programs[0];
    for (int i = 0; i < PROGRAM_CACHE; i++) {
        step_program *p = &m->programs[i];
        if (p->program && same_shape(&p->shape, shape)) {
            p->last_used = ++m->clock;
            *out = p;
            return TS_OK;
        }
        if (!p->program || p->last_used < victim->last_used) victim = p;
    }
    program_clear(victim);
    ts_status st = build_graph(m, shape, &victim->graph, err);
    if (st == TS_OK) st = ts_program_create(victim->graph, m->ctx, &victim->program, err);
    if (st == TS_OK) {
        victim->n_params = victim->graph->n_parameters;
        victim->params = calloc((size_t)victim->n_params, sizeof(void *));
        if (!victim->params) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "model: out of memory");
    }
    if (st != TS_OK) {
        program_clear(victim);
        return st;
    }
    st = ts_weights_bind(victim->graph, &m->weights, victim->params, err);
    /* Each sequence's rows take the matmul path they take alone (cpu/ops.h). */
    if (st == TS_OK) st = ts_program_set_row_segments(victim->program, shape->n_tokens, shape->n_seqs, shape->decode_rows, err);
    if (st != TS_OK) {
        program_clear(victim);
        return st;
    }
    victim->first_input = ts_decoder_first_input(victim->graph);
    victim->shape = *shape;
    victim->last_used = ++m->clock;
    *out = victim;
    return TS_OK;
}

/* ---------------------------------------------------------------- sequences */

/* Rows of a sliding-window layer's ring for a sequence of `capacity` tokens: the window (a decode
 * step writes its row before attending, a longer call attends over the ring and its own rows
 * first: see ring_attention in decoder.c), or 0 when the ring would save nothing. */
static int64_t ring_rows(const ts_decoder_spec *spec, int64_t capacity)
{
    bool local = false;
    for (int l = 0; l < spec->layers; l++)
        local |= spec->local_layer[l];
    return local && spec->sliding_window > 0 && capacity > spec->sliding_window
               ? spec->sliding_window
               : 0;
}

static int64_t layer_rows(const ts_decoder_spec *spec, int64_t capacity, int64_t local_rows, int l)
{
    return local_rows > 0 && spec->local_layer[l] ? local_rows : capacity;
}

/* Bytes of one layer's keys (or values). */
static size_t layer_cache_bytes(const ts_model *m, int64_t rows)
{
    return (size_t)rows * (size_t)m->spec.kv_heads * (size_t)m->spec.head_dim *
           ts_dtype_size(m->kv_dtype);
}

/* Layer l's keys (value false) or values in the sequence's cache. */
static uint8_t *layer_cache(const ts_sequence *s, int l, bool value)
{
    const ts_decoder_spec *spec = &s->model->spec;
    size_t at = 0;
    for (int i = 0; i < l; i++)
        at += 2 * layer_cache_bytes(s->model, layer_rows(spec, s->capacity, s->local_rows, i));
    size_t bytes = layer_cache_bytes(s->model, layer_rows(spec, s->capacity, s->local_rows, l));
    return s->cache + at + (value ? bytes : 0);
}

ts_status ts_model_config_kv_size(const ts_model_config *cfg, int64_t context, ts_kv_size *out,
                                  ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (context < 1)
        return ts_error_set(err, TS_ERR_RANGE, "kv size: context %lld (≥ 1 needed)",
                            (long long)context);
    ts_decoder_spec *spec = malloc(sizeof(*spec));
    if (!spec) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "kv size: out of memory");
    ts_status st = ts_decoder_spec_init(cfg, spec, err);
    if (st == TS_OK) {
        out->context = context;
        out->ring_rows = ring_rows(spec, context);
        out->layers = (int)spec->layers;
        uint64_t row =
            2 * (uint64_t)spec->kv_heads * (uint64_t)spec->head_dim; /* keys and values, elements */
        for (int l = 0; l < spec->layers; l++) {
            out->local_layers += spec->local_layer[l] && spec->sliding_window > 0;
            out->elements += row * (uint64_t)layer_rows(spec, context, out->ring_rows, l);
            out->full_elements += row * (uint64_t)context;
        }
    }
    free(spec);
    return st;
}

ts_status ts_sequence_create_rows(ts_model *m, int64_t capacity, int64_t local_rows,
                                  ts_sequence **out, ts_error *err)
{
    *out = NULL;
    if (capacity < 1 || capacity > (1 << 24))
        return ts_error_set(err, TS_ERR_RANGE, "sequence capacity %lld outside 1..%d", (long long)capacity, 1 << 24);
    if (m->spec.rope_positions > 0 && capacity > m->spec.rope_positions)
        return ts_error_set(err, TS_ERR_RANGE,
                            "sequence capacity %lld: this model's rotary embedding holds %lld "
                            "positions (max_position_embeddings)",
                            (long long)capacity, (long long)m->spec.rope_positions);
    if (local_rows != 0 && (m->spec.sliding_window < 1 || local_rows < m->spec.sliding_window ||
                            local_rows > capacity))
        return ts_error_set(
            err, TS_ERR_RANGE, "sequence: %lld ring rows (the window is %lld, the capacity %lld)",
            (long long)local_rows, (long long)m->spec.sliding_window, (long long)capacity);
    ts_sequence *s = calloc(1, sizeof(*s));
    size_t bytes = 0;
    for (int l = 0; l < m->spec.layers; l++)
        bytes += 2 * layer_cache_bytes(m, layer_rows(&m->spec, capacity, local_rows, l));
    if (s) s->cache = calloc(bytes, 1);
    if (s && m->spec.rope_long_after > 0)
        s->history_tokens = malloc(sizeof(int32_t) * (size_t)m->spec.rope_long_after);
    if (!s || !s->cache || (m->spec.rope_long_after > 0 && !s->history_tokens)) {
        if (s) free(s->cache), free(s->history_tokens);
        free(s);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "sequence: cannot allocate a %zu-byte KV cache", bytes);
    }
    s->model = m;
    s->capacity = capacity;
    s->local_rows = local_rows;
    *out = s;
    return TS_OK;
}

ts_status ts_sequence_create(ts_model *m, int64_t capacity, ts_sequence **out, ts_error *err)
{
    return ts_sequence_create_rows(m, capacity, ring_rows(&m->spec, capacity), out, err);
}

ts_status ts_sequence_create_draft(ts_model *m, int64_t capacity, int draft_tokens, ts_sequence **out,
                                   ts_error *err)
{
    if (draft_tokens < 0 || draft_tokens > TS_MAX_DRAFT)
        return ts_error_set(err, TS_ERR_RANGE, "sequence: %d draft tokens (0..%d)", draft_tokens,
                            TS_MAX_DRAFT);
    int64_t rows = ring_rows(&m->spec, capacity);
    /* A ring that would reach the capacity saves nothing: full caches, the window as a mask. */
    if (rows > 0) rows = rows + draft_tokens < capacity ? rows + draft_tokens : 0;
    return ts_sequence_create_rows(m, capacity, rows, out, err);
}

void ts_sequence_destroy(ts_sequence *s)
{
    if (!s) return;
    free(s->cache);
    free(s->history_tokens);
    free(s->history_rows);
    free(s);
}

int64_t ts_sequence_length(const ts_sequence *s) { return s->length; }
int64_t ts_sequence_capacity(const ts_sequence *s) { return s->capacity; }
void ts_sequence_reset(ts_sequence *s)
{
    s->length = 0;
    s->rope_delta = 0;
    s->adapter = 0;
    s->rope_long = false;
    s->history = 0;
    free(s->history_rows);
    s->history_rows = NULL;
}

ts_status ts_sequence_set_adapter(ts_sequence *s, const char *name, ts_error *err)
{
    int i = ts_lora_set_index(s->model->lora, name);
    if (i < 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "LoRA adapter \"%s\": %s", name,
                            s->model->lora ? "the checkpoint does not ship it"
                                           : "this model has no LoRA adapters");
    /* Rows already in the cache were computed with the current adapter. */
    if (s->length > 0 && i != s->adapter)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "LoRA adapter \"%s\": the sequence holds %lld positions computed with "
                            "\"%s\" (reset it first)",
                            name, (long long)s->length, ts_lora_set_name(s->model->lora, s->adapter));
    s->adapter = i;
    return TS_OK;
}

const char *ts_sequence_adapter(const ts_sequence *s)
{
    return ts_lora_set_name(s->model->lora, s->adapter);
}

ts_status ts_sequence_set_modalities(ts_sequence *s, unsigned modalities, ts_error *err)
{
    unsigned inputs = (modalities & TS_MODALITY_AUDIO ? TS_INPUT_AUDIO : 0u) |
                      (modalities & TS_MODALITY_IMAGE ? TS_INPUT_IMAGE : 0u);
    return ts_sequence_set_adapter(s, ts_model_adapter_for(s->model, inputs), err);
}

const char *ts_model_adapter_for(const ts_model *m, unsigned inputs)
{
    const ts_family_desc *f = m->config.family;
    const char *name = f && f->lora_for_input ? f->lora_for_input(inputs) : NULL;
    return ts_lora_set_index(m->lora, name) > 0 ? name : NULL;
}

int64_t ts_sequence_draft_room(const ts_sequence *s)
{
    /* Rows a ring holds beyond the window: a verify step writes that many rows past what is kept,
     * and only those rows' evictions are ones a rollback never needs (see ts_sequence_truncate). */
    int64_t room = s->local_rows > 0 ? s->local_rows - s->model->spec.sliding_window : INT64_MAX;
    /* longrope: a short sequence's verify rows stay within the pretraining length, as decoding
     * them one at a time would (a step that passes it switches the whole sequence to long). */
    int64_t after = s->model->spec.rope_long_after;
    if (after > 0 && !s->rope_long && s->length < after && after - s->length - 1 < room)
        room = after - s->length - 1;
    return room;
}

ts_status ts_sequence_truncate(ts_sequence *s, int64_t length, ts_error *err)
{
    if (length < 0 || length > s->length)
        return ts_error_set(err, TS_ERR_RANGE, "sequence: truncate to %lld of %lld tokens",
                            (long long)length, (long long)s->length);
    /* The long factors stay with the sequence: rows kept up to the pretraining length would
     * have been short ones in a sequence that never passed it. */
    if (s->rope_long && length <= s->model->spec.rope_long_after && length > 0)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "sequence: truncate to %lld tokens: its rows were computed with "
                            "longrope's long factors (past original_max_position_embeddings %lld); "
                            "reset it and prefill again",
                            (long long)length, (long long)s->model->spec.rope_long_after);
    /* Rows past the length are masked by position (full caches: causal from each query's start;
     * rings: a stale row's assumed position is older than any query's window) and overwritten by
     * the next writes. The rope delta is per sequence, not per row: it stays. */
    s->length = length;
    if (length == 0) s->rope_long = false;
    if (s->history > length) s->history = length;
    return TS_OK;
}

const void *ts_sequence_cache(const ts_sequence *s, int layer, bool value)
{
    return layer_cache(s, layer, value);
}

int64_t ts_sequence_cache_rows(const ts_sequence *s, int layer)
{
    return layer_rows(&s->model->spec, s->capacity, s->local_rows, layer);
}

const void *ts_sequence_cache_row(const ts_sequence *s, int layer, bool value, int64_t position)
{
    int64_t rows = ts_sequence_cache_rows(s, layer);
    if (position < 0 || position >= s->length || position < s->length - rows) return NULL;
    return layer_cache(s, layer, value) +
           layer_cache_bytes(s->model, 1) * (size_t)(position % rows);
}

size_t ts_model_position_bytes(const ts_model *m)
{
    return 2 * (size_t)m->spec.layers * layer_cache_bytes(m, 1);
}

bool ts_sequence_read_rows(const ts_sequence *s, int64_t first, int64_t count, void *out)
{
    if (first < 0 || count < 0 || first + count > s->length) return false;
    size_t row = layer_cache_bytes(s->model, 1);
    uint8_t *to = out;
    for (int l = 0; l < s->model->spec.layers; l++)
        for (int v = 0; v < 2; v++)
            for (int64_t p = first; p < first + count; p++, to += row) {
                const void *from = ts_sequence_cache_row(s, l, v, p);
                if (!from) return false;
                memcpy(to, from, row);
            }
    return true;
}

ts_status ts_sequence_append_rows(ts_sequence *s, const void *rows, int64_t count, ts_error *err)
{
    if (count < 0 || count > s->capacity - s->length)
        return ts_error_set(err, TS_ERR_RANGE, "sequence: %lld rows do not fit after %lld of %lld",
                            (long long)count, (long long)s->length, (long long)s->capacity);
    size_t row = layer_cache_bytes(s->model, 1);
    const uint8_t *from = rows;
    for (int l = 0; l < s->model->spec.layers; l++) {
        int64_t n_rows = ts_sequence_cache_rows(s, l);
        for (int v = 0; v < 2; v++) {
            uint8_t *cache = layer_cache(s, l, v);
            for (int64_t p = s->length; p < s->length + count; p++, from += row)
                memcpy(cache + row * (size_t)(p % n_rows), from, row);
        }
    }
    s->length += count;
    return TS_OK;
}

/* ---------------------------------------------------------------- steps */

/* Slot `slot` of the model's step scratch with room for `bytes` (contents undefined), or NULL
 * when out of memory (the slot is then empty). */
static void *step_scratch(ts_model *m, int slot, size_t bytes)
{
    if (m->scratch[slot].bytes < bytes) {
        free(m->scratch[slot].data);
        m->scratch[slot].data = malloc(bytes);
        m->scratch[slot].bytes = m->scratch[slot].data ? bytes : 0;
    }
    return m->scratch[slot].data;
}

static ts_status check_tokens(const ts_model *m, const int32_t *tokens, size_t n, ts_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= m->spec.vocab)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "token %d at index %zu is outside the vocabulary (0..%lld)",
                                tokens[i], i, (long long)m->spec.vocab - 1);
    return TS_OK;
}

/* Rotary positions [rows][N] of a step from each sequence's length and rope delta: one row, or
 * the (t, h, w) rows of M-RoPE, which for text tokens all equal the cache position plus the
 * sequence's rope delta. */
static void default_positions(const ts_model *m, ts_sequence *const *seqs,
                              const ts_step_shape *shape, int64_t n, int32_t *positions)
{
    int rows = m->spec.mrope ? 3 : 1;
    int64_t at = 0;
    for (int s = 0; s < shape->n_seqs; s++)
        for (int64_t i = 0; i < shape->n_tokens[s]; i++, at++)
            for (int r = 0; r < rows; r++)
                positions[r * n + at] = (int32_t)(seqs[s]->length + i + seqs[s]->rope_delta);
}

/* longrope: whether n more rows make sequence s long (its rows then rotate with the long
 * factors), and whether it must first be computed again (a short sequence holding rows). */
static bool goes_long(const ts_sequence *s, int64_t n)
{
    int64_t after = s->model->spec.rope_long_after;
    return after > 0 && (s->rope_long || s->length + n > after);
}

static bool needs_relong(const ts_sequence *s, int64_t n)
{
    return !s->rope_long && s->length > 0 && goes_long(s, n);
}

/* Records the inputs of sequence s's `rows` new rows (tokens, or embeddings when the step is
 * from embeddings; side: the rows had side inputs, which are not kept) while it is short and
 * every earlier row is recorded. Out of memory only stops the recording (a later switch is then
 * refused). */
static void record_history(ts_sequence *s, const int32_t *tokens, const float *embeddings,
                           int64_t rows, bool side)
{
    const ts_model *m = s->model;
    int64_t at = s->length, h = m->spec.hidden;
    if (!s->history_tokens || s->rope_long || s->history != at ||
        at + rows > m->spec.rope_long_after)
        return;
    if (side) return;
    if (embeddings && !s->history_rows) {
        /* The first embedding rows: the earlier token rows as their embeddings, so the whole
         * sequence can be run again from embeddings. */
        s->history_rows = malloc(sizeof(float) * (size_t)(m->spec.rope_long_after * h));
        if (!s->history_rows ||
            (at > 0 && ts_model_embed_tokens(m, s->history_tokens, (size_t)at, s->history_rows,
                                             NULL) != TS_OK)) {
            free(s->history_rows), s->history_rows = NULL;
            return;
        }
    }
    if (s->history_rows) {
        if (embeddings)
            memcpy(s->history_rows + at * h, embeddings, sizeof(float) * (size_t)(rows * h));
        else if (ts_model_embed_tokens(m, tokens, (size_t)rows, s->history_rows + at * h,
                                       NULL) != TS_OK)
            return;
    }
    for (int64_t i = 0; i < rows; i++) s->history_tokens[at + i] = tokens ? tokens[i] : -1;
    s->history = at + rows;
}

void ts_sequence_record_tokens(ts_sequence *s, const int32_t *tokens, int64_t n)
{
    int64_t at = s->history;
    if (!s->history_tokens || s->history_rows || at < 0 || at + n > s->length ||
        at + n > s->model->spec.rope_long_after)
        return;
    memcpy(s->history_tokens + at, tokens, sizeof(int32_t) * (size_t)n);
    s->history = at + n;
}

bool ts_sequence_rope_long(const ts_sequence *s) { return s->rope_long; }

void ts_sequence_begin_prompt(ts_sequence *s, int64_t n)
{
    if (s->length == 0 && goes_long(s, n)) s->rope_long = true;
}

static ts_status step_run(ts_model *m, const ts_step_rows *in, int n_seqs, float *logits,
                          ts_error *err);

/* A short sequence about to pass the pretraining length: its rows computed again, from the
 * recorded inputs, with the long factors (the reference's dropped cache). On failure the
 * sequence keeps its length and stays short (its cache rows may have been rewritten). */
static ts_status relong(ts_model *m, ts_sequence *s, ts_error *err)
{
    if (s->history != s->length)
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "longrope: the sequence passes original_max_position_embeddings "
                            "%lld, so its %lld rows must be computed again with the long factors, "
                            "but the inputs of rows %lld.. are not kept (restored from a cache, "
                            "or with side inputs); prefill the whole prompt instead",
                            (long long)m->spec.rope_long_after, (long long)s->length,
                            (long long)s->history);
    int64_t length = s->length;
    float *logits = malloc(sizeof(float) * (size_t)m->spec.vocab);
    if (!logits) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "longrope: out of memory");
    ts_step_rows rows = {.seq = s, .n = (size_t)length};
    if (s->history_rows) rows.embeddings = s->history_rows;
    else rows.tokens = s->history_tokens;
    s->length = 0, s->rope_long = true;
    ts_status st = step_run(m, &rows, 1, logits, err);
    if (st != TS_OK) s->length = length, s->rope_long = false;
    free(logits);
    return st;
}

/* Every sequence of a step that would cross the threshold, switched first (see relong). */
static ts_status relong_all(ts_model *m, ts_sequence *const *seqs, const int64_t *n, int n_seqs,
                            ts_error *err)
{
    for (int s = 0; s < n_seqs; s++) {
        ts_status st = needs_relong(seqs[s], n[s]) ? relong(m, seqs[s], err) : TS_OK;
        if (st != TS_OK) {
            ts_error_prefix(err, "step: sequence %d: ", s);
            return st;
        }
    }
    return TS_OK;
}

/* Runs one step: binds tokens (or embeddings), positions ([rows][N], every row's), starts, the
 * DeepStack inputs (when the shape declares them; deepstack is then non-NULL, its positions
 * counting the rows of all sequences), each sequence's attention bias (attention[s], where the
 * shape declares one) and every sequence's caches. */
static ts_status run_step(ts_model *m, ts_sequence *const *seqs, const ts_step_shape *shape,
                          const void *tokens, const int32_t *positions,
                          const ts_deepstack *deepstack,
                          const ts_attention_bias *const *attention, const void **outputs,
                          ts_error *err)
{
    ts_status st = TS_OK;
    /* Each bias's contract at the same boundary (shape against its sequence's rows, values). */
    for (int s = 0; s < shape->n_seqs; s++)
        if (shape->attention_bias[s] &&
            (st = attention && attention[s]
                      ? ts_decoder_check_attention_bias(attention[s]->bias, attention[s]->shape,
                                                        shape->n_tokens[s], err)
                      : ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                     "attention bias: the step declares one, none given")) != TS_OK)
            return st;
    if (shape->n_visual > 0) {
        /* The graph/runtime boundary: the program's contract, checked on what is bound. */
        ts_decoder_deepstack_inputs in = {0};
        if (deepstack)
            in = (ts_decoder_deepstack_inputs){
                deepstack->visual_positions,
                deepstack->n_visual,
                deepstack->layer_features,
                (int64_t)deepstack->n_layers * deepstack->n_visual * m->spec.hidden,
                deepstack->layer_indices,
                deepstack->n_layers};
        st = ts_decoder_check_deepstack(&m->spec, shape, &in, err);
        if (st != TS_OK) return st;
    }
    /* longrope: which sequences' rows rotate with the long factors (a crossing sequence holding
     * rows was switched by relong before: callers check needs_relong). */
    ts_step_shape long_shape;
    if (m->spec.rope_long_after > 0) {
        long_shape = *shape;
        for (int s = 0; s < shape->n_seqs; s++) {
            if (needs_relong(seqs[s], shape->n_tokens[s]))
                return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                    "step: sequence %d passes original_max_position_embeddings "
                                    "without its rows computed again",
                                    s);
            long_shape.rope_long[s] = goes_long(seqs[s], shape->n_tokens[s]);
        }
        shape = &long_shape;
    }
    step_program *p;
    st = get_program(m, shape, &p, err);
    if (st != TS_OK) return st;
    int32_t starts[TS_MAX_BATCH];
    for (int s = 0; s < shape->n_seqs; s++) starts[s] = (int32_t)seqs[s]->length;
    int32_t k = p->first_input;
    p->params[k++] = (void *)tokens;
    p->params[k++] = (void *)positions;
    p->params[k++] = starts;
    if (shape->n_visual > 0) {
        p->params[k++] = (void *)deepstack->visual_positions;
        p->params[k++] = (void *)deepstack->layer_features;
    }
    for (int s = 0; s < shape->n_seqs; s++)
        if (shape->attention_bias[s]) p->params[k++] = (void *)attention[s]->bias;
    if (m->spec.lora_adapters > 0) {
        /* Every row of a sequence runs with that sequence's adapter. */
        int64_t rows = 0;
        for (int s = 0; s < shape->n_seqs; s++) rows += shape->n_tokens[s];
        int32_t *adapters = step_scratch(m, SCRATCH_ADAPTERS, sizeof(int32_t) * (size_t)rows);
        if (!adapters)
            return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "step: out of memory");
        for (int s = 0, row = 0; s < shape->n_seqs; s++)
            for (int64_t i = 0; i < shape->n_tokens[s]; i++) adapters[row++] = seqs[s]->adapter;
        p->params[k++] = adapters;
    }
    for (int s = 0; s < shape->n_seqs; s++)
        for (int l = 0; l < m->spec.layers; l++) {
            p->params[k++] = layer_cache(seqs[s], l, false);
            p->params[k++] = layer_cache(seqs[s], l, true);
        }
    st = ts_program_run(p->program, p->params, outputs, err);
    /* Nothing of this call's inputs stays bound to the cached program. */
    for (int32_t i = p->first_input; i < k; i++)
        p->params[i] = NULL;
    if (st != TS_OK) return st;
    for (int s = 0, row = 0; s < shape->n_seqs; row += (int)shape->n_tokens[s], s++) {
        bool side = shape->attention_bias[s] || (deepstack && deepstack->n_visual > 0);
        const float *embedded =
            shape->from_embeddings ? (const float *)tokens + row * m->spec.hidden : NULL;
        if (seqs[s]->history_tokens)
            record_history(seqs[s], embedded ? NULL : (const int32_t *)tokens + row, embedded,
                           shape->n_tokens[s], side);
        seqs[s]->rope_long |= shape->rope_long[s];
        seqs[s]->length += shape->n_tokens[s];
    }
    return TS_OK;
}

static ts_status check_prefill(const ts_model *m, const ts_sequence *seq, const int32_t *tokens, size_t n, ts_error *err)
{
    if (seq->model != m) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: the sequence belongs to another model");
    if (n == 0) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: no tokens");
    if ((int64_t)n > seq->capacity - seq->length)
        return ts_error_set(err, TS_ERR_RANGE, "prefill: %zu tokens do not fit: the sequence holds %lld of %lld", n,
                            (long long)seq->length, (long long)seq->capacity);
    return check_tokens(m, tokens, n, err);
}

/* The program's output slots, cleared, in the model's step scratch (not freed by the caller). */
static void **output_slots(ts_model *m, int n_seqs, bool hidden, const void ***outputs)
{
    size_t layers = (size_t)m->spec.layers;
    size_t count = 1 + 2 * (size_t)n_seqs * layers +
                   (hidden ? layers + 1 + (size_t)ts_decoder_sparse_layers(&m->spec) : 0);
    *outputs = step_scratch(m, SCRATCH_OUTPUTS, count * sizeof(void *));
    if (*outputs) memset((void *)*outputs, 0, count * sizeof(void *));
    return (void **)*outputs;
}

/* The step behind every public call (validated by its caller): each sequence's rows stacked in
 * the order of their row counts, fewest first (the matmuls then split into at most two runs, row
 * dots and tiled: cpu/ops.h), text rows embedded here when another sequence brings embeddings
 * (ts_model_embed_tokens gives the graph's embedding bit for bit), DeepStack payloads merged
 * with their positions moved to their sequence's rows, then the logits put back in the caller's
 * order. */
static ts_status step_run(ts_model *m, const ts_step_rows *in, int n_seqs, float *logits,
                          ts_error *err)
{
    ts_sequence *all[TS_MAX_BATCH];
    int64_t counts[TS_MAX_BATCH];
    for (int i = 0; i < n_seqs; i++) all[i] = in[i].seq, counts[i] = (int64_t)in[i].n;
    ts_status relonged = relong_all(m, all, counts, n_seqs, err);
    if (relonged != TS_OK) return relonged;
    int order[TS_MAX_BATCH];
    for (int i = 0; i < n_seqs; i++) {
        int j = i;
        for (; j > 0 && in[order[j - 1]].n > in[i].n; j--) order[j] = order[j - 1];
        order[j] = i;
    }
    ts_step_shape shape = {.n_seqs = n_seqs,
                           .capacity = in[0].seq->capacity,
                           .local_rows = in[0].seq->local_rows,
                           .kv_dtype = m->kv_dtype};
    ts_sequence *seqs[TS_MAX_BATCH];
    const ts_attention_bias *attention[TS_MAX_BATCH] = {0};
    int64_t n = 0, offset[TS_MAX_BATCH];
    for (int k = 0; k < n_seqs; k++) {
        const ts_step_rows *r = &in[order[k]];
        const ts_side_inputs *side = r->embeddings ? r->side : NULL;
        seqs[k] = r->seq;
        shape.n_tokens[k] = (int64_t)r->n;
        offset[k] = n;
        n += (int64_t)r->n;
        shape.from_embeddings |= r->embeddings != NULL;
        if (side && side->kind == TS_SIDE_DEEPSTACK) shape.n_visual += side->deepstack->n_visual;
        if (side && side->kind == TS_SIDE_ATTENTION_BIAS)
            attention[k] = side->attention, shape.attention_bias[k] = true;
    }
    int prow = m->spec.mrope ? 3 : 1;
    int64_t h = m->spec.hidden, levels = m->spec.n_deepstack, nv = shape.n_visual;
    int32_t *positions = step_scratch(m, SCRATCH_POSITIONS, sizeof(int32_t) * (size_t)(prow * n));
    int32_t *tokens = shape.from_embeddings ? NULL : step_scratch(m, SCRATCH_TOKENS, sizeof(int32_t) * (size_t)n);
    float *embeddings = shape.from_embeddings ? malloc(sizeof(float) * (size_t)(n * h)) : NULL;
    int32_t *visual = nv ? malloc(sizeof(int32_t) * (size_t)nv) : NULL;
    float *features = nv ? malloc(sizeof(float) * (size_t)(levels * nv * h)) : NULL;
    const void **outs = NULL;
    ts_status st = TS_OK;
    if (!positions || (!tokens && !embeddings) || (nv && (!visual || !features)) ||
        !output_slots(m, n_seqs, false, &outs))
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "step: out of memory");
    if (st == TS_OK) default_positions(m, seqs, &shape, n, positions);
    for (int k = 0, v = 0; st == TS_OK && k < n_seqs; k++) {
        const ts_step_rows *r = &in[order[k]];
        int64_t at = offset[k], rows = (int64_t)r->n;
        if (!embeddings) memcpy(tokens + at, r->tokens, sizeof(int32_t) * (size_t)rows);
        else if (r->embeddings) memcpy(embeddings + at * h, r->embeddings, sizeof(float) * (size_t)(rows * h));
        else st = ts_model_embed_tokens(m, r->tokens, r->n, embeddings + at * h, err);
        for (int p = 0; r->embeddings && r->positions && p < prow; p++)
            memcpy(positions + p * n + at, r->positions + p * rows, sizeof(int32_t) * (size_t)rows);
        const ts_deepstack *ds = r->embeddings && r->side && r->side->kind == TS_SIDE_DEEPSTACK
                                     ? r->side->deepstack
                                     : NULL;
        if (!ds || ds->n_visual == 0) continue;
        for (int64_t j = 0; j < ds->n_visual; j++) visual[v + j] = (int32_t)(at + ds->visual_positions[j]);
        for (int64_t l = 0; l < levels; l++)
            memcpy(features + (l * nv + v) * h, ds->layer_features + l * ds->n_visual * h,
                   sizeof(float) * (size_t)(ds->n_visual * h));
        v += (int)ds->n_visual;
    }
    ts_deepstack merged = {visual, nv, features, m->spec.deepstack_layers, m->spec.n_deepstack};
    if (st == TS_OK)
        st = run_step(m, seqs, &shape, embeddings ? (const void *)embeddings : tokens, positions,
                      nv ? &merged : NULL, attention, outs, err);
    size_t vocab = (size_t)m->spec.vocab;
    for (int k = 0; st == TS_OK && k < n_seqs; k++) {
        const ts_step_rows *r = &in[order[k]];
        memcpy(logits + (size_t)order[k] * vocab, (const float *)outs[0] + (size_t)k * vocab,
               sizeof(float) * vocab);
        if (r->embeddings) r->seq->rope_delta = r->rope_delta;
    }
    free(embeddings), free(visual), free(features);
    return st;
}

ts_status ts_model_prefill(ts_model *m, ts_sequence *seq, const int32_t *tokens, size_t n, float *logits, ts_error *err)
{
    ts_status st = check_prefill(m, seq, tokens, n, err);
    if (st != TS_OK) return st;
    ts_step_rows rows = {.seq = seq, .n = n, .tokens = tokens};
    return step_run(m, &rows, 1, logits, err);
}

/* The public DeepStack payload against the model's config and this call's n rows; then the
 * contents (sorted, unique, in-range positions; finite features) by the graph's own check. */
static ts_status check_deepstack_payload(const ts_model *m, const ts_deepstack *ds, size_t n,
                                         ts_error *err)
{
    if (!ds)
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "deepstack: no payload (NULL); side inputs of kind TS_SIDE_NONE prefill without one");
    const ts_decoder_spec *spec = &m->spec;
    if (spec->n_deepstack == 0) {
        if (ds->n_visual != 0 || ds->n_layers != 0)
            return ts_error_set(
                err, TS_ERR_INVALID_ARGUMENT,
                "deepstack: %s has no DeepStack layers; only an empty payload (n_visual 0, "
                "n_layers 0) is accepted, got n_visual %lld, n_layers %d",
                ts_family_name(m->config.family), (long long)ds->n_visual, ds->n_layers);
        return TS_OK;
    }
    if (ds->n_layers != spec->n_deepstack)
        return ts_error_set(
            err, TS_ERR_INVALID_ARGUMENT,
            "deepstack: n_layers is %d, the model's DeepStack has %d layers (0..%d)", ds->n_layers,
            spec->n_deepstack, spec->n_deepstack - 1);
    if (!ds->layer_indices)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "deepstack: layer_indices is NULL");
    for (int i = 0; i < ds->n_layers; i++)
        if (ds->layer_indices[i] != spec->deepstack_layers[i])
            return ts_error_set(
                err, TS_ERR_INVALID_ARGUMENT,
                "deepstack: layer_indices[%d] = %d, but the model adds level %d after layer %d", i,
                ds->layer_indices[i], i, spec->deepstack_layers[i]);
    if (ds->n_visual < 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "deepstack: n_visual %lld is negative",
                            (long long)ds->n_visual);
    if (ds->n_visual == 0) return TS_OK;
    if (ds->n_visual > (int64_t)n)
        return ts_error_set(err, TS_ERR_RANGE,
                            "deepstack: n_visual %lld is more than the %zu rows of this call",
                            (long long)ds->n_visual, n);
    if (!ds->visual_positions)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "deepstack: visual_positions is NULL");
    if (!ds->layer_features)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "deepstack: layer_features is NULL");
    ts_step_shape shape = {
        .n_seqs = 1, .n_tokens = {(int64_t)n}, .from_embeddings = true, .n_visual = ds->n_visual};
    ts_decoder_deepstack_inputs in = {
        ds->visual_positions, ds->n_visual,
        ds->layer_features,   (int64_t)ds->n_layers * ds->n_visual * spec->hidden,
        ds->layer_indices,    ds->n_layers};
    return ts_decoder_check_deepstack(spec, &shape, &in, err);
}

/* Rows that fit, non-negative positions, finite embeddings. */
static ts_status check_embedded(const ts_model *m, const ts_sequence *seq, const float *embeddings,
                                size_t n, const int32_t *positions, ts_error *err)
{
    if (seq->model != m) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: the sequence belongs to another model");
    if (n == 0) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: no rows");
    if (!embeddings)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: embeddings is NULL");
    if ((int64_t)n > seq->capacity - seq->length)
        return ts_error_set(err, TS_ERR_RANGE, "prefill: %zu rows do not fit: the sequence holds %lld of %lld", n,
                            (long long)seq->length, (long long)seq->capacity);
    int rows = m->spec.mrope ? 3 : 1;
    for (size_t i = 0; positions && i < (size_t)rows * n; i++)
        if (positions[i] < 0)
            return ts_error_set(err, TS_ERR_RANGE, "prefill: position %d at index %zu is negative", positions[i], i);
    for (size_t i = 0; i < n * (size_t)m->spec.hidden; i++)
        if (!isfinite(embeddings[i]))
            return ts_error_set(err, TS_ERR_RANGE, "prefill: embedding value %zu is not finite", i);
    return TS_OK;
}

/* A prefill from embeddings as ts_model_prefill_embeddings takes it: the side inputs' kind and
 * payload, the rows and positions. */
static ts_status check_embedded_call(const ts_model *m, const ts_sequence *seq,
                                     const float *embeddings, size_t n, const int32_t *positions,
                                     const ts_side_inputs *side, ts_error *err)
{
    ts_side_kind kind = side ? side->kind : TS_SIDE_NONE;
    if (kind != TS_SIDE_NONE && kind != TS_SIDE_DEEPSTACK && kind != TS_SIDE_ATTENTION_BIAS)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: side inputs of unknown kind %d",
                            (int)kind);
    if (kind == TS_SIDE_ATTENTION_BIAS && !side->attention)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "attention bias: no payload (NULL); side inputs of kind TS_SIDE_NONE "
                            "prefill causally");
    ts_status st = check_embedded(m, seq, embeddings, n, positions, err);
    if (st == TS_OK && kind == TS_SIDE_DEEPSTACK)
        st = check_deepstack_payload(m, side->deepstack, n, err);
    return st;
}

ts_status ts_model_prefill_embeddings(ts_model *m, ts_sequence *seq, const float *embeddings,
                                      size_t n, const int32_t *positions, int64_t rope_delta,
                                      const ts_side_inputs *side, float *logits, ts_error *err)
{
    if (side && side->kind != TS_SIDE_NONE && (!seq || !logits))
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: %s is NULL",
                            !seq ? "seq" : "logits");
    ts_status st = check_embedded_call(m, seq, embeddings, n, positions, side, err);
    if (st != TS_OK) return st;
    ts_step_rows rows = {.seq = seq,
                         .n = n,
                         .embeddings = embeddings,
                         .positions = positions,
                         .rope_delta = rope_delta,
                         .side = side};
    return step_run(m, &rows, 1, logits, err);
}

ts_status ts_model_step(ts_model *m, const ts_step_rows *rows, int n_seqs, float *logits,
                        ts_error *err)
{
    if (n_seqs < 1 || n_seqs > TS_MAX_BATCH)
        return ts_error_set(err, TS_ERR_RANGE, "step: %d sequences (1..%d allowed)", n_seqs,
                            TS_MAX_BATCH);
    if (!rows || !logits)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "step: %s is NULL",
                            !rows ? "rows" : "logits");
    for (int s = 0; s < n_seqs; s++) {
        const ts_step_rows *r = &rows[s];
        ts_status st = TS_OK;
        if (!r->seq) st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "the sequence is NULL");
        else if (r->embeddings)
            st = check_embedded_call(m, r->seq, r->embeddings, r->n, r->positions, r->side, err);
        else if (r->side && r->side->kind != TS_SIDE_NONE)
            st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "side inputs need embeddings, not tokens");
        else if (!r->tokens)
            st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "neither tokens nor embeddings");
        else st = check_prefill(m, r->seq, r->tokens, r->n, err);
        if (st == TS_OK && (r->seq->capacity != rows[0].seq->capacity ||
                            r->seq->local_rows != rows[0].seq->local_rows))
            st = ts_error_set(err, TS_ERR_UNSUPPORTED,
                              "sequences of one step must share a capacity (%lld vs %lld) and "
                              "ring rows (%lld vs %lld)",
                              (long long)r->seq->capacity, (long long)rows[0].seq->capacity,
                              (long long)r->seq->local_rows, (long long)rows[0].seq->local_rows);
        for (int t = 0; st == TS_OK && t < s; t++)
            if (rows[t].seq == r->seq)
                st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "the sequence of entry %d again", t);
        if (st != TS_OK) {
            ts_error_prefix(err, "step: sequence %d: ", s);
            return st;
        }
    }
    return step_run(m, rows, n_seqs, logits, err);
}

ts_side_kind ts_model_side_inputs(const ts_model *m, const int32_t **layers, int *n_layers)
{
    if (layers) *layers = m->spec.n_deepstack ? m->spec.deepstack_layers : NULL;
    if (n_layers) *n_layers = m->spec.n_deepstack;
    if (m->spec.n_deepstack) return TS_SIDE_DEEPSTACK;
    /* The family's rule for image tokens (descriptor), not its name. */
    const ts_family_desc *f = m->config.family;
    return f && f->image_attention == TS_IMAGE_ATTENTION_BIDIRECTIONAL ? TS_SIDE_ATTENTION_BIAS
                                                                       : TS_SIDE_NONE;
}

int64_t ts_model_sliding_window(const ts_model *m)
{
    for (int64_t l = 0; l < m->spec.layers && l < TS_MAX_LAYERS; l++)
        if (m->spec.local_layer[l] && m->spec.sliding_window > 0) return m->spec.sliding_window;
    return 0;
}

int ts_model_position_rows(const ts_model *m)
{
    return m->spec.mrope ? 3 : 1;
}

ts_status ts_model_embed_tokens(const ts_model *m, const int32_t *tokens, size_t n, float *out, ts_error *err)
{
    ts_status st = check_tokens(m, tokens, n, err);
    if (st != TS_OK) return st;
    int64_t h = m->spec.hidden, dims[2] = {m->spec.vocab, h};
    char name[160];
    snprintf(name, sizeof(name), "%sembed_tokens.weight", m->spec.prefix);
    const ts_tensor_info *t = m->weights.find(m->weights.self, name, 2, dims);
    if (!t) return ts_error_set(err, TS_ERR_NOT_FOUND, "no tensor %s", name);
    for (size_t i = 0; i < n; i++)
        for (int64_t j = 0; j < h; j++) {
            size_t at = (size_t)tokens[i] * (size_t)h + (size_t)j;
            float v;
            if (t->dtype == TS_DTYPE_F32) v = ((const float *)t->data)[at];
            else if (t->dtype == TS_DTYPE_BF16) {
                uint32_t bits = (uint32_t)((const uint16_t *)t->data)[at] << 16;
                memcpy(&v, &bits, 4);
            } else v = ts_f16_to_f32_scalar(((const uint16_t *)t->data)[at]);
            /* Scaled as the graph's embedding is (families with embed_scale), before any image row
             * replaces a token's. */
            out[i * (size_t)h + (size_t)j] = m->spec.embed_scale != 0 ? v * (float)m->spec.embed_scale : v;
        }
    return TS_OK;
}

ts_status ts_model_prefill_diagnostic(ts_model *m, ts_sequence *seq, const int32_t *tokens, size_t n,
                                      const ts_diagnostic_prefill *out, ts_error *err)
{
    bool embedded = out->embeddings != NULL;
    ts_side_kind kind = out->side ? out->side->kind : TS_SIDE_NONE;
    if (kind != TS_SIDE_NONE && kind != TS_SIDE_DEEPSTACK && kind != TS_SIDE_ATTENTION_BIAS)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "prefill: side inputs of unknown kind %d",
                            (int)kind);
    const ts_deepstack *deepstack = kind == TS_SIDE_DEEPSTACK ? out->side->deepstack : NULL;
    const ts_attention_bias *attention =
        kind == TS_SIDE_ATTENTION_BIAS ? out->side->attention : NULL;
    if (kind == TS_SIDE_ATTENTION_BIAS && !attention)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "attention bias: no payload (NULL)");
    if ((deepstack || attention) && !embedded)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "prefill: a side-input payload needs embeddings, not tokens");
    ts_status st = embedded ? TS_OK : check_prefill(m, seq, tokens, n, err);
    if (st != TS_OK) return st;
    if (embedded && (int64_t)n > seq->capacity - seq->length)
        return ts_error_set(err, TS_ERR_RANGE, "prefill: %zu rows do not fit", n);
    if (out->side && out->side->kind == TS_SIDE_DEEPSTACK &&
        (st = check_deepstack_payload(m, deepstack, n, err)) != TS_OK)
        return st;
    int64_t count = (int64_t)n;
    if ((st = relong_all(m, &seq, &count, 1, err)) != TS_OK) return st;
    ts_step_shape shape = {.n_seqs = 1,
                           .n_tokens = {(int64_t)n},
                           .capacity = seq->capacity,
                           .local_rows = seq->local_rows,
                           .kv_dtype = m->kv_dtype,
                           .all_logits = true,
                           .hidden_states = true,
                           .from_embeddings = embedded,
                           .n_visual = deepstack ? deepstack->n_visual : 0,
                           .attention_bias = {attention != NULL}};
    const void **outs;
    int32_t *positions = step_scratch(m, SCRATCH_POSITIONS, sizeof(int32_t) * n * (m->spec.mrope ? 3 : 1));
    if (!positions || !output_slots(m, 1, true, &outs))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "prefill: out of memory");
    if (out->positions) memcpy(positions, out->positions, sizeof(int32_t) * n * (m->spec.mrope ? 3 : 1));
    else default_positions(m, &seq, &shape, (int64_t)n, positions);
    st = run_step(m, &seq, &shape, embedded ? (const void *)out->embeddings : tokens, positions,
                  deepstack, &attention, outs, err);
    if (st == TS_OK) {
        memcpy(out->logits, outs[0], sizeof(float) * n * (size_t)m->spec.vocab);
        size_t first_hidden = 1 + 2 * (size_t)m->spec.layers;
        for (int64_t l = 0; l <= m->spec.layers; l++)
            memcpy(out->hidden[l], outs[first_hidden + (size_t)l], sizeof(float) * n * (size_t)m->spec.hidden);
        size_t first_router = first_hidden + (size_t)m->spec.layers + 1;
        /* The sparse layers' router outputs come in layer order; dense layers have none. */
        for (int l = 0, k = 0; out->router_probs && l < m->spec.layers; l++)
            if (ts_decoder_layer_sparse(&m->spec, l))
                memcpy(out->router_probs[l], outs[first_router + (size_t)k++], sizeof(float) * n * (size_t)m->spec.experts);
    }
    return st;
}

ts_status ts_model_decode(ts_model *m, ts_sequence *const *seqs, const int32_t *tokens, int n_seqs, float *logits, ts_error *err)
{
    if (n_seqs < 1 || n_seqs > TS_MAX_BATCH)
        return ts_error_set(err, TS_ERR_RANGE, "decode: %d sequences (1..%d allowed)", n_seqs, TS_MAX_BATCH);
    struct {
        int64_t capacity, local_rows;
    } shape = {seqs[0]->capacity, seqs[0]->local_rows};
    for (int s = 0; s < n_seqs; s++) {
        if (seqs[s]->model != m) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "decode: sequence %d belongs to another model", s);
        if (seqs[s]->capacity != shape.capacity || seqs[s]->local_rows != shape.local_rows)
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "decode: sequences of one batch must share a capacity (%lld vs "
                                "%lld) and ring rows (%lld vs %lld)",
                                (long long)seqs[s]->capacity, (long long)shape.capacity,
                                (long long)seqs[s]->local_rows, (long long)shape.local_rows);
        if (seqs[s]->length >= seqs[s]->capacity)
            return ts_error_set(err, TS_ERR_RANGE, "decode: sequence %d is full (%lld tokens)", s, (long long)seqs[s]->capacity);
        for (int t = 0; t < s; t++)
            if (seqs[t] == seqs[s]) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "decode: sequence %d appears twice", s);
    }
    ts_status st = check_tokens(m, tokens, (size_t)n_seqs, err);
    if (st != TS_OK) return st;
    ts_step_rows rows[TS_MAX_BATCH];
    for (int s = 0; s < n_seqs; s++) rows[s] = (ts_step_rows){.seq = seqs[s], .n = 1, .tokens = tokens + s};
    return step_run(m, rows, n_seqs, logits, err);
}

ts_status ts_model_verify(ts_model *m, ts_sequence *const *seqs, int n_seqs, const int32_t *tokens,
                          const int64_t *n_tokens, float *logits, ts_error *err)
{
    if (n_seqs < 1 || n_seqs > TS_MAX_BATCH)
        return ts_error_set(err, TS_ERR_RANGE, "verify: %d sequences (1..%d allowed)", n_seqs,
                            TS_MAX_BATCH);
    ts_step_shape shape = {.n_seqs = n_seqs,
                           .capacity = seqs[0]->capacity,
                           .local_rows = seqs[0]->local_rows,
                           .kv_dtype = m->kv_dtype,
                           .all_logits = true,
                           .decode_rows = true};
    size_t total = 0;
    for (int s = 0; s < n_seqs; s++) {
        if (seqs[s]->model != m)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                                "verify: sequence %d belongs to another model", s);
        if (seqs[s]->capacity != shape.capacity || seqs[s]->local_rows != shape.local_rows)
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "verify: sequences of one step must share a capacity and ring rows");
        if (n_tokens[s] < 1 || n_tokens[s] > seqs[s]->capacity - seqs[s]->length)
            return ts_error_set(err, TS_ERR_RANGE,
                                "verify: %lld rows for sequence %d, which holds %lld of %lld",
                                (long long)n_tokens[s], s, (long long)seqs[s]->length,
                                (long long)seqs[s]->capacity);
        /* A ring keeps only window + room rows: more rows than the room could not be rolled back.
         * longrope: a short sequence's rows may not pass the pretraining length. */
        if (n_tokens[s] - 1 > ts_sequence_draft_room(seqs[s]))
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                seqs[s]->local_rows > 0
                                    ? "verify: %lld rows for sequence %d, but its sliding-window "
                                      "ring keeps only %lld rows beyond the window"
                                    : "verify: %lld rows for sequence %d, but only %lld drafts fit "
                                      "before original_max_position_embeddings (longrope)",
                                (long long)n_tokens[s], s, (long long)ts_sequence_draft_room(seqs[s]));
        for (int t = 0; t < s; t++)
            if (seqs[t] == seqs[s])
                return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "verify: sequence %d appears twice", s);
        shape.n_tokens[s] = n_tokens[s];
        total += (size_t)n_tokens[s];
    }
    ts_status st = check_tokens(m, tokens, total, err);
    if (st == TS_OK) st = relong_all(m, seqs, n_tokens, n_seqs, err);
    if (st != TS_OK) return st;
    const void **outs = NULL;
    int32_t *positions = step_scratch(m, SCRATCH_POSITIONS, sizeof(int32_t) * total * (size_t)(m->spec.mrope ? 3 : 1));
    if (!positions || !output_slots(m, n_seqs, false, &outs))
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "verify: out of memory");
    default_positions(m, seqs, &shape, (int64_t)total, positions);
    st = run_step(m, seqs, &shape, tokens, positions, NULL, NULL, outs, err);
    if (st == TS_OK) memcpy(logits, outs[0], sizeof(float) * total * (size_t)m->spec.vocab);
    return st;
}

ts_status ts_model_prefill_images(ts_model *m, ts_sequence *seq, const int32_t *ids, size_t n, const ts_pixel_values *images,
                                  int n_images, float *logits, ts_error *err)
{
    /* Refused before the tower runs when a stage after it is missing (the one predicate). */
    if (!m->vision || !ts_vision_has_image_prefill(&m->config))
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model", ts_family_name(m->config.family));
    ts_encoded_media media;
    ts_status st = ts_model_encode_images(m, images, n_images, &media, err);
    if (st == TS_OK) st = ts_model_prefill_media(m, seq, ids, n, images, n_images, &media, logits, err);
    ts_encoded_media_free(&media);
    return st;
}

ts_status ts_model_prefill_media(ts_model *m, ts_sequence *seq, const int32_t *ids, size_t n, const ts_pixel_values *images,
                                 int n_images, const ts_encoded_media *media, float *logits, ts_error *err)
{
    ts_mm_inputs in = {0};
    ts_status st = ts_mm_inputs_build(m, ids, n, images, n_images, media, &in, err);
    ts_side_inputs side = ts_mm_inputs_side(&in);
    /* 1-D positions go as NULL (length + i), so a prompt after earlier rows continues from them. */
    if (st == TS_OK)
        st = ts_model_prefill_embeddings(m, seq, in.embeddings, n,
                                         in.position_rows == 3 ? in.positions : NULL, in.rope_delta,
                                         &side, logits, err);
    ts_mm_inputs_free(&in);
    return st;
}

ts_vision *ts_model_vision(const ts_model *m) { return m->vision; }
const ts_weight_source *ts_model_weights(const ts_model *m) { return &m->weights; }
ts_dtype ts_model_kv_dtype(const ts_model *m) { return m->kv_dtype; }
void ts_sequence_set_rope_delta(ts_sequence *s, int64_t delta) { s->rope_delta = delta; }

int64_t ts_model_image_tokens(const ts_model *m, const ts_pixel_values *pv)
{
    return m->vision ? ts_vision_image_tokens(m->vision, pv) : 0;
}

static ts_status no_audio(const ts_model *m, ts_error *err)
{
    return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: this model does not accept audio input", ts_family_name(m->config.family));
}

ts_status ts_model_encode_audio_features(ts_model *m, ts_context *ctx, const float *features, int64_t frames, int64_t width,
                                         unsigned modalities, ts_encoded_media *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!m->audio) return no_audio(m, err);
    const ts_audio_path *a = m->config.family->audio;
    int64_t tokens = a->tokens(&m->config, frames);
    unsigned inputs = TS_INPUT_AUDIO | (modalities & TS_MODALITY_IMAGE ? TS_INPUT_IMAGE : 0u);
    ts_status st = a->encoder->encode(m->audio, ctx ? ctx : m->ctx, features, frames, width, inputs, &out->audio_rows,
                                      &out->n_audio_rows, err);
    /* The prompt was expanded with tokens(frames): rows of another count would shift every row. */
    if (st == TS_OK && out->n_audio_rows != tokens)
        st = ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "audio: the encoder made %lld rows for a clip of %lld tokens",
                          (long long)out->n_audio_rows, (long long)tokens);
    out->hidden = m->config.text.hidden_size;
    if (st != TS_OK) ts_encoded_media_free(out);
    return st;
}

/* The model's own encoder as ts_model_encode_audio_with's step. */
typedef struct {
    ts_model *m;
    ts_context *ctx;
    unsigned modalities; /* TS_MODALITY_* of the prompt the clip is for (Phi-4: vision_speech) */
} own_encoder;

static ts_status own_encode(void *self, const float *features, int64_t frames, int64_t width, ts_encoded_media *one, ts_error *err)
{
    own_encoder *o = self;
    return ts_model_encode_audio_features(o->m, o->ctx, features, frames, width, o->modalities, one, err);
}

ts_status ts_model_encode_audio(ts_model *m, ts_context *ctx, const void *clip, size_t len,
                                const ts_audio_limits *limits, ts_encoded_media *out, ts_error *err)
{
    return ts_model_encode_audio_for(m, ctx, clip, len, limits, TS_MODALITY_AUDIO, out, err);
}

ts_status ts_model_encode_audio_for(ts_model *m, ts_context *ctx, const void *clip, size_t len,
                                    const ts_audio_limits *limits, unsigned modalities, ts_encoded_media *out,
                                    ts_error *err)
{
    own_encoder o = {m, ctx, modalities};
    return ts_model_encode_audio_with(m, clip, len, limits, own_encode, &o, out, err);
}

int64_t ts_model_audio_tokens(const ts_model *m, int64_t frames)
{
    return m->audio ? m->config.family->audio->tokens(&m->config, frames) : 0;
}

int ts_model_audio_projector(const ts_model *m, unsigned modalities)
{
    const ts_audio_path *a = m->audio ? m->config.family->audio : NULL;
    unsigned inputs = TS_INPUT_AUDIO | (modalities & TS_MODALITY_IMAGE ? TS_INPUT_IMAGE : 0u);
    return a && a->projector ? a->projector(inputs) : 0;
}

ts_status ts_model_encode_audio_with(ts_model *m, const void *clip, size_t len, const ts_audio_limits *limits,
                                     ts_audio_rows_fn encode, void *self, ts_encoded_media *out, ts_error *err)
{
    if (!m->audio) return no_audio(m, err);
    const ts_audio_path *a = m->config.family->audio;
    float *features = NULL;
    int64_t frames = 0, width = 0;
    ts_audio samples = {0};
    ts_encoded_media one = {0};
    ts_status st = ts_audio_decode(clip, len, limits, a->sample_rate, &samples, err);
    if (st == TS_OK) st = a->features(&m->config, samples.samples, samples.n_samples, &features, &frames, &width, err);
    ts_audio_free(&samples);
    if (st == TS_OK) st = encode(self, features, frames, width, &one, err);
    free(features);
    /* Appended after the earlier clips' rows: a prompt's clips are joined in order. */
    size_t row = sizeof(float) * (size_t)m->config.text.hidden_size;
    float *rows = st == TS_OK ? realloc(out->audio_rows, row * (size_t)(out->n_audio_rows + one.n_audio_rows) + 1) : NULL;
    if (st == TS_OK && !rows) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "audio: out of memory for %lld rows", (long long)one.n_audio_rows);
    if (st == TS_OK) {
        memcpy((char *)rows + row * (size_t)out->n_audio_rows, one.audio_rows, row * (size_t)one.n_audio_rows);
        out->audio_rows = rows, out->n_audio_rows += one.n_audio_rows, out->hidden = one.hidden;
    }
    ts_encoded_media_free(&one);
    return st;
}

ts_status ts_model_encode_images(ts_model *m, const ts_pixel_values *images, int n_images,
                                 ts_encoded_media *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!m->vision)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: images are not supported for this model", ts_family_name(m->config.family));
    return ts_mm_encode(m->vision, m->config.text.hidden_size, images, n_images, out, err);
}
