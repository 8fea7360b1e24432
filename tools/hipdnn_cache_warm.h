/* hipdnn_cache_warm.h — what warm's two files share (private to tools/): one graph's job and
 * result, the run, and the output (hipdnn_cache_warm_out.c) the workers (hipdnn_cache_warm.c)
 * report to.
 */
#ifndef HIPDNN_TOOLS_HIPDNN_CACHE_WARM_H
#define HIPDNN_TOOLS_HIPDNN_CACHE_WARM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hipdnn_backend.h"
#include "hipdnn_cache.h"

#define MSG_MAX HIPDNN_ERROR_STRING_MAX_LENGTH /* the library's messages */
#define WHY_MAX (2 * MSG_MAX)                 /* ours, with one of theirs inside */

typedef enum { GRAPH_OK, GRAPH_FAILED, GRAPH_SKIPPED, GRAPH_NOT_STORED } graph_status;

typedef struct graph_job {
    char *path;
    graph_status status;
    bool done;                            /* already decided while listing (a bad directory) */
    int64_t plans, kernels, compiled, cached;
    int64_t plans_cached;                 /* plans the plan table served (no code generation) */
    int64_t kernels_not_stored, plans_not_stored; /* compiled, but the cache could not store them */
    double ms;
    char why[WHY_MAX];                    /* a failed or skipped graph's reason */
} graph_job;

typedef struct warm_run {
    const hc_warm_opts *o;
    graph_job *g;
    int n, cap;
    atomic_int next;                      /* the next graph a worker takes */
    pthread_mutex_t mu;                   /* output and the running totals */
    int done;
    int64_t kernels, compiled, cached;
    bool bar;                             /* a progress bar on stderr */
} warm_run;

/* One graph's line: successes and skips on stdout (not with --json or a bar), failures and
 * graphs not stored on stderr; the bar redrawn. */
void hc_warm_report_graph(warm_run *r, const graph_job *j);
/* The summary line, or the --json report. */
void hc_warm_summary(const warm_run *r, const char *target, double ms);

#endif
