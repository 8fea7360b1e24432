/* fe_jit_counters.c — the device words a JIT plan's kernels keep from one launch to the next
 * (CG_ARG_COUNTER): the persistent attention kernel's work-tile counter (sdpa_fwd.hip's HD_DYN).
 * A plan holds one word per stream it runs on, zeroed when first used there; the kernel leaves
 * it zero as it ends, so the next launch starts from zero without a memset. Launches on one
 * stream are ordered, so two of them never share a word at once; two streams get two words. */
#include <pthread.h>

#include "engines/fe_jit.h"

#define COUNTER_BYTES 16

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* every plan's table (held for a lookup) */

hipdnnStatus_t fe_counter_for(fe_counters *c, void *stream, void **out)
{
    *out = NULL;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    pthread_mutex_lock(&mu);
    int i = 0;
    while (i < c->n && c->slot[i].stream != stream)
        i++;
    if (i == c->n && c->n == c->cap) { /* room for more streams */
        int cap = c->cap > 0 ? 2 * c->cap : 4;
        fe_counter *grown = base_realloc(c->slot, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "hipdnnBackendExecute: no host memory for a counter");
        else
            c->slot = grown, c->cap = cap;
    }
    if (st == HIPDNN_STATUS_SUCCESS && i == c->n) {
        void *dev = NULL;
        st = rt_malloc(&dev, COUNTER_BYTES);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = rt_memset(dev, 0, COUNTER_BYTES);
        if (st == HIPDNN_STATUS_SUCCESS)
            c->slot[i] = (fe_counter){.stream = stream, .dev = dev}, c->n++;
        else if (dev != NULL)
            rt_free(dev);
    }
    if (st == HIPDNN_STATUS_SUCCESS)
        *out = c->slot[i].dev;
    pthread_mutex_unlock(&mu);
    return st;
}

void fe_counters_free(fe_counters *c)
{
    for (int i = 0; i < c->n; i++)
        rt_free(c->slot[i].dev);
    base_free(c->slot);
    *c = (fe_counters){0};
}
