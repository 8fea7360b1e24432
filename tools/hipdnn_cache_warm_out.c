/* hipdnn_cache_warm_out.c — what `hipdnn-cache warm` prints: the progress bar (stderr, on a
 * terminal), one line per graph (stdout; failed and not-stored graphs on stderr with their
 * reason), the summary line, and the --json report (hipdnn_cache_warm.h). A graph is "not stored"
 * when its kernels compiled but the cache could not take some of them or its plan (full, or
 * not writable): the summary counts those graphs and records, and so does --json
 * (kernels_not_stored, plans_not_stored, per graph and in total).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "hipdnn_cache_warm.h"

/* ---- lines ------------------------------------------------------------------------------------ */

static void draw_bar(const warm_run *r)
{
    char bar[31];
    int w = (int)sizeof bar - 1, full = r->n > 0 ? r->done * w / r->n : w;
    for (int i = 0; i < w; i++)
        bar[i] = i < full ? '#' : '.';
    bar[w] = '\0';
    fprintf(stderr, "\r\033[K[%s] %d/%d graphs, %" PRId64 " kernels (%" PRId64 " compiled, %" PRId64 " cached)",
            bar, r->done, r->n, r->kernels, r->compiled, r->cached);
    fflush(stderr);
}

void hc_warm_report_graph(warm_run *r, const graph_job *j)
{
    pthread_mutex_lock(&r->mu);
    r->done++, r->kernels += j->kernels, r->compiled += j->compiled, r->cached += j->cached;
    if (r->bar)
        fputs("\r\033[K", stderr);
    if (j->status == GRAPH_FAILED || j->status == GRAPH_NOT_STORED)
        fprintf(stderr, "hipdnn-cache: warm: graph %s: %s: %s\n", j->path,
                j->status == GRAPH_FAILED ? "FAILED" : "NOT STORED", j->why);
    else if (r->o->json || r->bar)
        ;
    else if (j->status == GRAPH_SKIPPED)
        printf("graph %s: skipped: %s\n", j->path, j->why);
    else
        printf("graph %s: %" PRId64 " kernel%s, %" PRId64 " compiled, %" PRId64 " cached, %.0f ms\n", j->path,
               j->kernels, j->kernels == 1 ? "" : "s", j->compiled, j->cached, j->ms);
    if (r->bar)
        draw_bar(r);
    else
        fflush(stdout);
    pthread_mutex_unlock(&r->mu);
}

static const char *status_name(graph_status s)
{
    return s == GRAPH_OK ? "ok" : s == GRAPH_SKIPPED ? "skipped" : s == GRAPH_NOT_STORED ? "not_stored" : "failed";
}

/* Graphs by status and what was not stored, for the summary. */
typedef struct tally {
    int failed, skipped, not_stored;
    int64_t kernels_not_stored, plans_not_stored;
} tally;

static json_t *graph_json(const graph_job *j)
{
    json_t *e = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "graph", j->path, "status",
                          status_name(j->status), "plans", (json_int_t)j->plans, "plans_cached",
                          (json_int_t)j->plans_cached, "kernels", (json_int_t)j->kernels, "compiled",
                          (json_int_t)j->compiled, "cached", (json_int_t)j->cached, "kernels_not_stored",
                          (json_int_t)j->kernels_not_stored, "plans_not_stored", (json_int_t)j->plans_not_stored,
                          "ms", (json_int_t)(j->ms + 0.5));
    if (e != NULL && j->status != GRAPH_OK)
        json_object_set_new(e, "reason", json_string(j->why));
    return e;
}

static bool put_json_report(const warm_run *r, const char *target, const tally *t, double ms)
{
    json_t *graphs = json_array();
    for (int i = 0; i < r->n; i++)
        json_array_append_new(graphs, graph_json(&r->g[i]));
    json_t *doc = json_pack("{s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:i, s:i, s:i, s:I, s:I, s:I}", "dir", r->o->dir,
                            "target", target, "graphs", graphs, "warmed",
                            (json_int_t)(r->n - t->failed - t->skipped - t->not_stored), "kernels",
                            (json_int_t)r->kernels, "compiled", (json_int_t)r->compiled, "cached",
                            (json_int_t)r->cached, "failed", t->failed, "skipped", t->skipped, "not_stored",
                            t->not_stored, "kernels_not_stored", (json_int_t)t->kernels_not_stored,
                            "plans_not_stored", (json_int_t)t->plans_not_stored, "ms", (json_int_t)(ms + 0.5));
    bool ok = doc != NULL && json_dumpf(doc, stdout, JSON_INDENT(2)) == 0;
    json_decref(doc);
    fputc('\n', stdout);
    return ok;
}

/* "NAME, NAME" of the graphs with status s (at most a few, then "..."). */
static void names_with(const warm_run *r, graph_status s, char *buf, size_t size)
{
    size_t at = 0;
    int shown = 0;
    buf[0] = '\0';
    for (int i = 0; i < r->n && at < size; i++) {
        if (r->g[i].status != s)
            continue;
        const char *base = strrchr(r->g[i].path, '/');
        base = base != NULL && base[1] != '\0' ? base + 1 : r->g[i].path;
        at += (size_t)snprintf(buf + at, size - at, shown == 0 ? "%s" : shown < 8 ? ", %s" : ", ...", base);
        if (shown++ == 8)
            break;
    }
}

static tally count(const warm_run *r)
{
    tally t = {0};
    for (int i = 0; i < r->n; i++) {
        const graph_job *j = &r->g[i];
        t.failed += j->status == GRAPH_FAILED, t.skipped += j->status == GRAPH_SKIPPED;
        t.not_stored += j->status == GRAPH_NOT_STORED;
        t.kernels_not_stored += j->kernels_not_stored, t.plans_not_stored += j->plans_not_stored;
    }
    return t;
}

/* "; 2 not stored (a.json, b.json: 2 kernels and 1 plan could not be written to the cache)" */
static void print_not_stored(const warm_run *r, const tally *t)
{
    char names[512], kernels[48] = "", plans[48] = "";
    names_with(r, GRAPH_NOT_STORED, names, sizeof names);
    if (t->kernels_not_stored > 0)
        snprintf(kernels, sizeof kernels, "%" PRId64 " kernel%s", t->kernels_not_stored,
                 t->kernels_not_stored == 1 ? "" : "s");
    if (t->plans_not_stored > 0)
        snprintf(plans, sizeof plans, "%" PRId64 " plan%s", t->plans_not_stored, t->plans_not_stored == 1 ? "" : "s");
    printf("; %d not stored (%s: %s%s%s could not be written to the cache)", t->not_stored, names, kernels,
           kernels[0] && plans[0] ? " and " : "", plans);
}

void hc_warm_summary(const warm_run *r, const char *target, double ms)
{
    tally t = count(r);
    if (r->o->json) {
        if (!put_json_report(r, target, &t, ms))
            fprintf(stderr, "hipdnn-cache: warm: writing JSON failed\n");
        return;
    }
    char names[512];
    int failed = t.failed, skipped = t.skipped;
    printf("warmed %d of %d graphs for %s: %" PRId64 " kernels, %" PRId64 " compiled, %" PRId64
           " already cached; %d failed", r->n - failed - skipped - t.not_stored, r->n, target, r->kernels, r->compiled,
           r->cached, failed);
    if (failed > 0) {
        names_with(r, GRAPH_FAILED, names, sizeof names);
        printf(" (%s)", names);
    }
    if (t.not_stored > 0)
        print_not_stored(r, &t);
    if (skipped > 0) {
        names_with(r, GRAPH_SKIPPED, names, sizeof names);
        printf("; %d skipped, no engine compiles them for %s (%s)", skipped, target, names);
    }
    printf("; %.0f ms\n", ms);
}
