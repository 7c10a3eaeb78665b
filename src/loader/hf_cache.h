/* hf_cache.h — a model id ("ORG/NAME") found in the local Hugging Face cache.
 *
 * ts_model_path_resolve (tessera.h) keeps an existing folder as it is. Otherwise an id of the
 * form ORG/NAME is looked up where huggingface_hub stores downloads: $HF_HUB_CACHE, else
 * $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub; in it
 * models--ORG--NAME/snapshots/<commit>, the commit named by refs/main when that file exists,
 * else the snapshot modified last. The snapshot's config.json must resolve (the cache keeps
 * files as links into blobs/; a broken link means an interrupted download). Nothing is
 * downloaded. Errors list every place looked at.
 */
#ifndef TS_LOADER_HF_CACHE_H
#define TS_LOADER_HF_CACHE_H

#include "tessera.h"

/* The hub folder from the environment, as above (no check that it exists). */
ts_status ts_hf_hub_dir(char *out, size_t cap, ts_error *err);

#endif
