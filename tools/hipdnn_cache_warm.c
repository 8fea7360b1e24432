/* hipdnn_cache_warm.c — `hipdnn-cache warm`: compiles the kernels of operation graphs into a
 * kernel cache ahead of time, through the public API only (include/).
 *
 * For each graph file (hipDNN's FlatBuffer Graph, or its JSON form; a directory stands for its
 * *.json and *.bin files): deserialize, finalize, ask the heuristics, and finalize an execution
 * plan with a KERNEL_CACHE descriptor on the cache directory attached, for the first ranked
 * engine config whose engine compiles kernels (HIPDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION), or for
 * every such config with --all-configs. The plan's HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT
 * says how many kernels it has, how many its finalize compiled and how many it found cached.
 * With --arch the process compiles for that target (hipdnnSetCompileTarget_ext; no GPU needed)
 * and its plans are compile-only; without it, for this process's GPU.
 *
 * A graph fails when it cannot be read, deserialized or finalized, when a plan fails, or when no
 * engine that compiles kernels supports it (then the reason names each engine's refusal); with
 * --skip-unsupported that last case is "skipped" instead, listed in the summary, and not a
 * failure.
 *
 * Owns: the graph list, the worker threads (--jobs: each with its own handle and KERNEL_CACHE
 * descriptor; the compile target is set once, before they start; LMDB serves threads and
 * processes alike), the progress bar (stderr, on a terminal), the per-graph lines (stdout;
 * failures on stderr), the summary line and the --json report.
 * Does not own: the command line or the default directory (hipdnn_cache.c).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"
#include "hipdnn_cache.h"

#define MSG_MAX HIPDNN_ERROR_STRING_MAX_LENGTH /* the library's messages */
#define WHY_MAX (2 * MSG_MAX)                 /* ours, with one of theirs inside */

typedef enum { GRAPH_OK, GRAPH_FAILED, GRAPH_SKIPPED } graph_status;

typedef struct graph_job {
    char *path;
    graph_status status;
    bool done;                            /* already decided while listing (a bad directory) */
    int64_t plans, kernels, compiled, cached;
    int64_t plans_cached;                 /* plans the plan table served (no code generation) */
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

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- the graph list ---------------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

static graph_job *add_job(warm_run *r, const char *path)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        graph_job *g = realloc(r->g, (size_t)cap * sizeof *g);
        if (g == NULL)
            return NULL;
        r->g = g, r->cap = cap;
    }
    graph_job *j = &r->g[r->n];
    *j = (graph_job){.path = strdup(path)};
    if (j->path == NULL)
        return NULL;
    r->n++;
    return j;
}

static int graph_file(const struct dirent *d)
{
    return d->d_name[0] != '.' && (ends_with(d->d_name, ".json") || ends_with(d->d_name, ".bin"));
}

/* A directory's graph files in name order; an unreadable or empty directory is a failed entry. */
static bool add_dir(warm_run *r, const char *dir)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, graph_file, alphasort);
    bool ok = true;
    if (n <= 0) {
        graph_job *j = add_job(r, dir);
        if (j == NULL)
            return false;
        j->status = GRAPH_FAILED, j->done = true;
        snprintf(j->why, sizeof j->why, "%s",
                 n < 0 ? strerror(errno) : "no *.json or *.bin graph files in the directory");
    }
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", list[i]->d_name);
        ok = ok && add_job(r, path) != NULL;
        free(list[i]);
    }
    free(list);
    return ok;
}

static bool list_graphs(warm_run *r)
{
    for (int i = 0; i < r->o->n_paths; i++) {
        const char *p = r->o->paths[i];
        struct stat st;
        bool ok = stat(p, &st) == 0 && S_ISDIR(st.st_mode) ? add_dir(r, p) : add_job(r, p) != NULL;
        if (!ok)
            return false;
    }
    return true;
}

/* ---- one graph --------------------------------------------------------------------------------- */

/* Drops the thread's last error (a refusal this file expected and handled). */
static void clear_error(void)
{
    char msg[MSG_MAX];
    hipdnnGetLastErrorString(msg, sizeof msg);
}

/* Records a failed call's reason ("what: the library's message"); false when st is a failure. */
static bool ok_or_why(hipdnnStatus_t st, graph_job *j, const char *what)
{
    if (st == HIPDNN_STATUS_SUCCESS)
        return true;
    char msg[MSG_MAX];
    hipdnnGetLastErrorString(msg, sizeof msg);
    snprintf(j->why, sizeof j->why, "%s: %s", what, msg[0] ? msg : hipdnnGetErrorString(st));
    return false;
}

static char *read_file(const char *path, size_t *len, graph_job *j)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf == NULL)
        snprintf(j->why, sizeof j->why, "cannot read the file: %s", f == NULL ? strerror(errno) : n == 0 ? "it is empty"
                                                                                              : "read error");
    if (f != NULL)
        fclose(f);
    *len = buf != NULL ? (size_t)n : 0;
    return buf;
}

/* Deserializes (JSON when the text starts with '{', else FlatBuffer) and finalizes a graph. */
static bool load_graph(hipdnnHandle_t h, graph_job *j, hipdnnBackendDescriptor_t *g)
{
    size_t len;
    char *bytes = read_file(j->path, &len, j);
    if (bytes == NULL)
        return false;
    size_t lead = strspn(bytes, " \t\r\n");
    bool json = lead < len && bytes[lead] == '{';
    hipdnnStatus_t st = json ? hipdnnBackendCreateAndDeserializeJsonGraph_ext(g, bytes, len)
                             : hipdnnBackendCreateAndDeserializeGraph_ext(g, (const uint8_t *)bytes, len);
    free(bytes);
    if (!ok_or_why(st, j, json ? "not a valid JSON graph" : "not a valid FlatBuffer graph"))
        return false;
    if (ok_or_why(hipdnnBackendSetAttribute(*g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h), j,
                  "setting the graph's handle") &&
        ok_or_why(hipdnnBackendFinalize(*g), j, "finalizing the graph"))
        return true;
    hipdnnBackendDestroyDescriptor(*g);
    return false;
}

/* True when the config's engine compiles kernels when a plan is built. */
static bool compiles_kernels(hipdnnBackendDescriptor_t cfg)
{
    hipdnnBackendDescriptor_t eng = NULL;
    int64_t n = 0;
    hipdnnBackendBehaviorNote_t notes[16];
    bool yes = false;
    if (hipdnnBackendGetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng) !=
        HIPDNN_STATUS_SUCCESS)
        return false;
    if (hipdnnBackendGetAttribute(eng, HIPDNN_ATTR_ENGINE_BEHAVIOR_NOTE, HIPDNN_TYPE_BEHAVIOR_NOTE, 16, &n, notes) ==
        HIPDNN_STATUS_SUCCESS)
        for (int64_t i = 0; i < n && i < 16; i++)
            yes = yes || notes[i] == HIPDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION;
    hipdnnBackendDestroyDescriptor(eng);
    clear_error();
    return yes;
}

/* The heuristics' ranked configs (finalized) whose engines compile kernels, best first. */
static bool compiling_configs(hipdnnBackendDescriptor_t graph, graph_job *j, hipdnnBackendDescriptor_t **out,
                              int64_t *n_out)
{
    hipdnnBackendDescriptor_t heur;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    int64_t n = 0;
    *out = NULL, *n_out = 0;
    if (!ok_or_why(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur), j, "heuristics"))
        return false;
    bool ok = ok_or_why(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode),
                        j, "heuristics") &&
              ok_or_why(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                                  HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph), j, "heuristics") &&
              ok_or_why(hipdnnBackendFinalize(heur), j, "heuristics") &&
              ok_or_why(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
                                                  0, &n, NULL), j, "heuristics");
    hipdnnBackendDescriptor_t *cfg = ok ? calloc((size_t)n + 1, sizeof *cfg) : NULL;
    int64_t made = 0;
    ok = ok && cfg != NULL;
    for (; ok && made < n; made++)
        ok = ok_or_why(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg[made]), j,
                       "engine config");
    ok = ok && ok_or_why(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS,
                                                   HIPDNN_TYPE_BACKEND_DESCRIPTOR, n, &n, cfg), j, "heuristics");
    hipdnnBackendDestroyDescriptor(heur);
    int64_t kept = 0;
    for (int64_t i = 0; i < made; i++) {
        if (ok && i < n && hipdnnBackendFinalize(cfg[i]) == HIPDNN_STATUS_SUCCESS && compiles_kernels(cfg[i]))
            cfg[kept++] = cfg[i];
        else
            hipdnnBackendDestroyDescriptor(cfg[i]);
    }
    clear_error();
    if (!ok || kept == 0) {
        free(cfg);
        cfg = NULL;
    }
    *out = cfg, *n_out = kept;
    return ok;
}

/* Why no engine that compiles kernels took the graph: each engine's refusal, from finalizing an
 * ENGINE descriptor for it. */
static void unsupported_reason(hipdnnHandle_t h, hipdnnBackendDescriptor_t graph, const char *target,
                               graph_job *j)
{
    size_t n = 0, at = 0;
    at += (size_t)snprintf(j->why, sizeof j->why, "no engine that compiles kernels supports the graph on %s", target);
    hipdnnGetEngineCount_ext(h, &n);
    const char *sep = " (";
    for (size_t i = 0; i < n && at < sizeof j->why; i++) {
        char name[64] = "", msg[MSG_MAX];
        size_t name_len = sizeof name;
        int64_t id = 0;
        hipdnnBackendDescriptor_t eng;
        if (hipdnnGetEngineInfo_ext(h, i, &id, name, &name_len, NULL, NULL, NULL, NULL, NULL, NULL) !=
                HIPDNN_STATUS_SUCCESS ||
            hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &eng) != HIPDNN_STATUS_SUCCESS)
            continue;
        hipdnnStatus_t st = hipdnnBackendSetAttribute(eng, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH,
                                                      HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = hipdnnBackendSetAttribute(eng, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id);
        if (st == HIPDNN_STATUS_SUCCESS)
            st = hipdnnBackendFinalize(eng);
        hipdnnGetLastErrorString(msg, sizeof msg);
        hipdnnBackendDestroyDescriptor(eng);
        if (st == HIPDNN_STATUS_SUCCESS)
            continue;
        const char *cut = strstr(msg, "does not support this graph: "); /* the engine is named already */
        cut = cut != NULL ? cut + strlen("does not support this graph: ") : msg;
        at += (size_t)snprintf(j->why + at, sizeof j->why - at, "%s%s: %s", sep, name, cut);
        sep = "; ";
    }
    if (strcmp(sep, "; ") == 0 && at < sizeof j->why)
        snprintf(j->why + at, sizeof j->why - at, ")");
}

/* Finalizes a plan for cfg with the kernel cache attached and adds its cache stats to j. */
static bool warm_config(hipdnnBackendDescriptor_t cfg, hipdnnBackendDescriptor_t kcache, graph_job *j)
{
    hipdnnBackendDescriptor_t plan;
    int64_t stats[4] = {0}, n = 0;
    if (!ok_or_why(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan), j, "plan"))
        return false;
    bool ok = ok_or_why(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                                  HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg), j, "plan") &&
              ok_or_why(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE,
                                                  HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &kcache), j, "plan") &&
              ok_or_why(hipdnnBackendFinalize(plan), j, "building the plan") &&
              ok_or_why(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT,
                                                  HIPDNN_TYPE_INT64, 4, &n, stats), j, "the plan's cache stats");
    hipdnnBackendDestroyDescriptor(plan);
    if (ok)
        j->plans++, j->kernels += stats[0], j->compiled += stats[1], j->cached += stats[2], j->plans_cached += stats[3];
    return ok;
}

static void warm_graph(const hc_warm_opts *o, hipdnnHandle_t h, hipdnnBackendDescriptor_t kcache, graph_job *j)
{
    double t0 = now_ms();
    hipdnnBackendDescriptor_t graph, *cfg = NULL;
    int64_t n_cfg = 0;
    j->status = GRAPH_FAILED;
    if (load_graph(h, j, &graph)) {
        if (compiling_configs(graph, j, &cfg, &n_cfg) && n_cfg == 0) {
            unsupported_reason(h, graph, o->arch != NULL ? o->arch : "this GPU", j);
            j->status = o->skip_unsupported ? GRAPH_SKIPPED : GRAPH_FAILED;
        }
        int64_t n_warm = o->all_configs ? n_cfg : n_cfg > 0;
        bool ok = n_warm > 0;
        for (int64_t i = 0; ok && i < n_warm; i++)
            ok = warm_config(cfg[i], kcache, j);
        for (int64_t i = 0; i < n_cfg; i++)
            hipdnnBackendDestroyDescriptor(cfg[i]);
        free(cfg);
        if (ok)
            j->status = GRAPH_OK;
        hipdnnBackendDestroyDescriptor(graph);
    }
    j->ms = now_ms() - t0;
}

/* ---- output ------------------------------------------------------------------------------------ */

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

/* One graph's line: successes and skips on stdout (not with --json or a bar), failures on stderr. */
static void report_graph(warm_run *r, const graph_job *j)
{
    pthread_mutex_lock(&r->mu);
    r->done++, r->kernels += j->kernels, r->compiled += j->compiled, r->cached += j->cached;
    if (r->bar)
        fputs("\r\033[K", stderr);
    if (j->status == GRAPH_FAILED)
        fprintf(stderr, "hipdnn-cache: warm: graph %s: FAILED: %s\n", j->path, j->why);
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
    return s == GRAPH_OK ? "ok" : s == GRAPH_SKIPPED ? "skipped" : "failed";
}

static bool put_json_report(const warm_run *r, const char *target, int failed, int skipped, double ms)
{
    json_t *graphs = json_array();
    for (int i = 0; i < r->n; i++) {
        const graph_job *j = &r->g[i];
        json_t *e = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "graph", j->path, "status",
                              status_name(j->status), "plans", (json_int_t)j->plans, "plans_cached",
                              (json_int_t)j->plans_cached, "kernels", (json_int_t)j->kernels,
                              "compiled", (json_int_t)j->compiled, "cached", (json_int_t)j->cached, "ms",
                              (json_int_t)(j->ms + 0.5));
        if (e != NULL && j->status != GRAPH_OK)
            json_object_set_new(e, "reason", json_string(j->why));
        json_array_append_new(graphs, e);
    }
    json_t *doc = json_pack("{s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:i, s:i, s:I}", "dir", r->o->dir, "target", target,
                            "graphs", graphs, "warmed", (json_int_t)(r->n - failed - skipped), "kernels",
                            (json_int_t)r->kernels, "compiled", (json_int_t)r->compiled, "cached",
                            (json_int_t)r->cached, "failed", failed, "skipped", skipped, "ms", (json_int_t)(ms + 0.5));
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

static void summary(const warm_run *r, const char *target, double ms)
{
    int failed = 0, skipped = 0;
    for (int i = 0; i < r->n; i++)
        failed += r->g[i].status == GRAPH_FAILED, skipped += r->g[i].status == GRAPH_SKIPPED;
    if (r->o->json) {
        if (!put_json_report(r, target, failed, skipped, ms))
            fprintf(stderr, "hipdnn-cache: warm: writing JSON failed\n");
        return;
    }
    char names[512];
    printf("warmed %d of %d graphs for %s: %" PRId64 " kernels, %" PRId64 " compiled, %" PRId64
           " already cached; %d failed", r->n - failed - skipped, r->n, target, r->kernels, r->compiled, r->cached,
           failed);
    if (failed > 0) {
        names_with(r, GRAPH_FAILED, names, sizeof names);
        printf(" (%s)", names);
    }
    if (skipped > 0) {
        names_with(r, GRAPH_SKIPPED, names, sizeof names);
        printf("; %d skipped, no engine compiles them for %s (%s)", skipped, target, names);
    }
    printf("; %.0f ms\n", ms);
}

/* ---- workers ----------------------------------------------------------------------------------- */

/* A finalized KERNEL_CACHE descriptor on the directory. */
static hipdnnStatus_t open_kcache(const char *dir, hipdnnBackendDescriptor_t *kc)
{
    hipdnnStatus_t st = hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, kc);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    st = hipdnnBackendSetAttribute(*kc, HIPDNN_ATTR_KERNEL_CACHE_DIRECTORY_EXT, HIPDNN_TYPE_CHAR,
                                   (int64_t)strlen(dir), dir);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = hipdnnBackendFinalize(*kc);
    if (st != HIPDNN_STATUS_SUCCESS)
        hipdnnBackendDestroyDescriptor(*kc);
    return st;
}

/* Takes graphs until none is left; a worker that cannot start fails the graphs it takes. */
static void *worker(void *arg)
{
    warm_run *r = arg;
    hipdnnHandle_t h = NULL;
    hipdnnBackendDescriptor_t kcache = NULL;
    char why[MSG_MAX] = "";
    hipdnnStatus_t st = hipdnnCreate(&h);
    if (st == HIPDNN_STATUS_SUCCESS && (st = open_kcache(r->o->dir, &kcache)) != HIPDNN_STATUS_SUCCESS)
        kcache = NULL;
    if (st != HIPDNN_STATUS_SUCCESS)
        hipdnnGetLastErrorString(why, sizeof why);
    for (int i; (i = atomic_fetch_add(&r->next, 1)) < r->n;) {
        graph_job *j = &r->g[i];
        if (j->done) {
        } else if (st != HIPDNN_STATUS_SUCCESS) {
            j->status = GRAPH_FAILED;
            snprintf(j->why, sizeof j->why, "opening the handle and the kernel cache %s: %s", r->o->dir, why);
        } else {
            warm_graph(r->o, h, kcache, j);
        }
        report_graph(r, j);
    }
    if (kcache != NULL)
        hipdnnBackendDestroyDescriptor(kcache);
    if (h != NULL)
        hipdnnDestroy(h);
    return NULL;
}

/* ---- the command ------------------------------------------------------------------------------- */

int hc_warm_target(const hc_warm_opts *o)
{
    char msg[MSG_MAX];
    if (o->arch != NULL) {
        if (hipdnnSetCompileTarget_ext(o->arch, o->sm_count) == HIPDNN_STATUS_SUCCESS)
            return -1;
        hipdnnGetLastErrorString(msg, sizeof msg);
        fprintf(stderr, "hipdnn-cache: warm: --arch %s: %s (see hipdnn-cache --help)\n", o->arch, msg);
        return HC_EXIT_USAGE;
    }
    void *probe = NULL;
    if (hipdnnDeviceMalloc_ext(&probe, 1) == HIPDNN_STATUS_SUCCESS) {
        hipdnnDeviceFree_ext(probe);
        return -1;
    }
    hipdnnGetLastErrorString(msg, sizeof msg);
    fprintf(stderr, "hipdnn-cache: warm: no GPU here (%s); name the target with --arch, e.g. --arch sm_90 "
            "(see hipdnn-cache --help)\n", msg);
    return HC_EXIT_USAGE;
}

int hc_warm(const hc_warm_opts *o)
{
    int rc = -1;
    warm_run r = {.o = o, .mu = PTHREAD_MUTEX_INITIALIZER, .bar = isatty(STDERR_FILENO) == 1};
    if (!list_graphs(&r)) {
        fprintf(stderr, "hipdnn-cache: warm: out of memory listing the graphs\n");
        rc = HC_EXIT_FAIL;
    }
    double t0 = now_ms();
    int n_extra = (o->jobs < r.n ? o->jobs : r.n) - 1; /* threads besides this one */
    pthread_t *tid = rc < 0 && n_extra > 0 ? calloc((size_t)n_extra, sizeof *tid) : NULL;
    int started = 0;
    while (tid != NULL && started < n_extra && pthread_create(&tid[started], NULL, worker, &r) == 0)
        started++;
    if (rc < 0)
        worker(&r); /* this thread works too (alone with --jobs 1); it takes what is left */
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    if (r.bar)
        fputs("\r\033[K", stderr);
    if (rc < 0) {
        summary(&r, o->arch != NULL ? o->arch : "this GPU", now_ms() - t0);
        rc = HC_EXIT_OK;
        for (int i = 0; i < r.n; i++)
            rc = r.g[i].status == GRAPH_FAILED ? HC_EXIT_FAIL : rc;
    }
    for (int i = 0; i < r.n; i++)
        free(r.g[i].path);
    free(r.g);
    return rc;
}
