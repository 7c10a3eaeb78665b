/* prefix_cache.h — KV rows of prompt prefixes shared between requests (the ts_prefix_cache_*
 * calls declared in tessera.h, defined in prefix_cache.c): automatic prefix caching.
 *
 * Blocks. A block is TS_PREFIX_BLOCK (16) consecutive positions' key and value rows of every
 * layer (ts_sequence_read_rows's layout), copied out of a request's sequence after its prefill.
 * Only full blocks are kept: a prompt of n rows offers floor(n / 16) of them.
 *
 * Keys. Block k's key is SHA-256(key of block k − 1 ‖ what decides its 16 rows), chained from
 * the first block, so a key names the whole prefix up to its block's end. Per row it hashes:
 *   - how the row enters: a token id through the token prefill, a token's embedding in an image
 *     prompt's embedding prefill (another kernel path: never mixed with the first), or an image
 *     row as (media digest, offset of the row within its image) — the digest is
 *     ts_pixel_values_digest, over the pixel values, shape and grid the tower sees;
 *   - its rotary positions, all rows of them (M-RoPE's t, h, w depend on the images' grids).
 * Everything else a row's K/V depends on is a function of that: DeepStack rows (a tower's side
 * rows added to early layers' hidden states) come from the same pixels, so the media digest keys
 * them; an image-block attention bias (image tokens seeing their whole image) follows from which
 * rows are image rows;
 * the rope delta only moves positions after the prompt, which the request's own inputs carry.
 * The sequence's LoRA adapter (ts_sequence_set_adapter) changes every row: a named adapter seeds
 * the chain with SHA-256 of its name ("none" keeps the zero seed), so rows are shared only
 * between requests of the same adapter.
 * The model, its weights, the KV type and the compute policy are fixed for one cache (one per
 * server), so they are not hashed.
 *
 * Sharing is by copy. ts_prefix_cache_begin appends the matched blocks' rows to the request's
 * own empty sequence and the caller prefills the rest: nothing in a sequence points into the
 * cache and a cached block is never written, so the divergence point needs no copy-on-write —
 * the request's own rows simply start after the copy.
 *
 * Reference counts and eviction. A block is referenced by every cached block chained from it (its
 * children); an insertion that goes over the budget evicts the least recently used unreferenced
 * block, repeatedly, so a cached block's whole parent chain is always cached. A hit touches its
 * chain. The budget counts rows and per-block bookkeeping; a block that cannot fit is not stored.
 *
 * Exactness. The goal is logits bit-identical to a prefill of the whole prompt, and it is met
 * only under a condition the cache checks: the CPU kernels give a row the same bits in any call
 * of ≥ 16 rows (the tiled GEMM paths, whose per-row sums do not depend on how rows are grouped —
 * prefix_cache_test checks it), while a shorter call takes other paths (row dots; and attention
 * from 4 queries) with another summation order. So
 *   - a block is stored only when each of its rows was prefilled in a call of ≥ 16 rows (or was
 *     itself restored), and
 *   - a restore of P rows is taken only when, under the caller's chunk rule, every row of a
 *     prefill of the whole prompt lies in a call of ≥ 16 rows up to P, and from P on each row lies
 *     in calls of ≥ 16 rows both ways or in the very same call; else a shorter prefix that
 *     satisfies it (perhaps none).
 * With --prefill-chunk ≥ 16 (the server's default is 256) the loss is at most one block;
 * below 16 nothing is stored. Generated tokens are not stored (their rows come from decode steps,
 * another path).
 *
 * Refused: sequences whose layers keep fewer rows than their capacity (sliding-window rings, for a
 * capacity beyond the window) — the prefix rows are overwritten before a request ends.
 */
#ifndef TS_ENGINE_PREFIX_CACHE_H
#define TS_ENGINE_PREFIX_CACHE_H

#include "tessera.h"

#endif
