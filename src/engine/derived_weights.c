/* derived_weights.c — see derived_weights.h. */
#include "engine/derived_weights.h"
#include "base/error.h"
#include "models/family.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct derived {
    struct derived *next;
    ts_tensor_info info;
    void *data;
    char name[];
} derived;

struct ts_derived_weights {
    const ts_checkpoint *ckpt;
    const ts_model_config *cfg;
    const ts_family_desc *family;
    pthread_mutex_t lock;
    derived *list;
    size_t bytes;
};

ts_status ts_derived_weights_create(const ts_checkpoint *ckpt, const ts_model_config *cfg,
                                    ts_derived_weights **out, ts_error *err)
{
    *out = calloc(1, sizeof(**out));
    if (!*out) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "weights: out of memory");
    (*out)->ckpt = ckpt, (*out)->cfg = cfg, (*out)->family = cfg->family;
    pthread_mutex_init(&(*out)->lock, NULL);
    return TS_OK;
}

void ts_derived_weights_destroy(ts_derived_weights *d)
{
    if (!d) return;
    for (derived *e = d->list, *next; e; e = next) {
        next = e->next;
        free(e->data);
        free(e);
    }
    pthread_mutex_destroy(&d->lock);
    free(d);
}

size_t ts_derived_weights_bytes(const ts_derived_weights *d)
{
    return d ? d->bytes : 0;
}

const ts_tensor_info *ts_derived_weights_find(void *self, const char *name, int rank,
                                              const int64_t *dims)
{
    (void)rank, (void)dims;
    ts_derived_weights *d = self;
    const ts_tensor_info *t = ts_checkpoint_find(d->ckpt, name);
    if (t || !d->family || !d->family->derive_weight) return t;
    pthread_mutex_lock(&d->lock);
    derived *e = d->list;
    while (e && strcmp(e->name, name) != 0)
        e = e->next;
    if (!e) {
        size_t len = strlen(name);
        ts_tensor_info info = {0};
        void *data = NULL;
        if (d->family->derive_weight(d->ckpt, d->cfg, name, &info, &data) &&
            (e = malloc(sizeof(*e) + len + 1))) {
            memcpy(e->name, name, len + 1);
            e->info = info, e->info.name = e->name, e->data = data;
            e->next = d->list, d->list = e;
            if (data) d->bytes += info.n_bytes;
        } else {
            free(data);
        }
    }
    pthread_mutex_unlock(&d->lock);
    return e ? &e->info : NULL;
}
