/* hipdnn_cache_warm.c — `hipdnn-cache warm`: compiles the kernels of operation graphs into a
 * kernel cache ahead of time, through the public API only (include/).
 *
 * For each graph file (hipDNN's FlatBuffer Graph, or its JSON form; a directory stands for its
 * *.json and *.bin files): deserialize, finalize, ask the heuristics, and finalize an execution
 * plan with a KERNEL_CACHE descriptor on the cache directory attached, for the first ranked
 * engine config whose engine compiles kernels (HIPDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION), or for
 * every such config with --all-configs. The plan's HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT
 * says how many kernels it has, how many its finalize compiled, how many it found cached, and how
 * many kernels (and whether the plan) could not be stored: a cache that is full or cannot be
 * written leaves a graph "not stored" — compiled, yet the next process compiles it again — which
 * the graph's line, the summary, --json and the exit status all report.
 * --plugin names custom-op plugin libraries (include/hipdnn_jit_custom_op.h), loaded before any
 * handle exists, so graphs with their custom ops warm like others (the library's built-in
 * providers need none).
 * With --arch the process compiles for that target (hipdnnSetCompileTarget_ext; no GPU needed)
 * and its plans are compile-only; without it, for this process's GPU.
 *
 * A graph fails when it cannot be read, deserialized or finalized, when a plan fails, or when no
 * engine that compiles kernels supports it (then the reason names each engine's refusal); with
 * --skip-unsupported that last case is "skipped" instead, listed in the summary, and not a
 * failure. Exit status 1 when a graph failed or was not stored.
 *
 * Owns: the graph list, the worker threads (--jobs: each with its own handle and KERNEL_CACHE
 * descriptor; the compile target is set once, before they start; LMDB serves threads and
 * processes alike). The progress bar, the per-graph lines, the summary and the --json report
 * are hipdnn_cache_warm_out.c.
 * Does not own: the command line or the default directory (hipdnn_cache.c).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
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
#include "hipdnn_cache_warm.h"

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
    int64_t stats[6] = {0}, n = 0;
    if (!ok_or_why(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan), j, "plan"))
        return false;
    bool ok = ok_or_why(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                                  HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg), j, "plan") &&
              ok_or_why(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE,
                                                  HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &kcache), j, "plan") &&
              ok_or_why(hipdnnBackendFinalize(plan), j, "building the plan") &&
              ok_or_why(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT,
                                                  HIPDNN_TYPE_INT64, 6, &n, stats), j, "the plan's cache stats");
    hipdnnBackendDestroyDescriptor(plan);
    if (ok)
        j->plans++, j->kernels += stats[0], j->compiled += stats[1], j->cached += stats[2], j->plans_cached += stats[3];
    if (ok && n >= 6)
        j->kernels_not_stored += stats[4], j->plans_not_stored += stats[5];
    return ok;
}

/* "compiled, but 2 of 3 kernels and the plan could not be stored in the kernel cache DIR (...)" */
static void not_stored_reason(const hc_warm_opts *o, graph_job *j)
{
    char kernels[64] = "", plans[64] = "";
    if (j->kernels_not_stored > 0)
        snprintf(kernels, sizeof kernels, "%" PRId64 " of %" PRId64 " kernel%s", j->kernels_not_stored,
                 j->compiled, j->compiled == 1 ? "" : "s");
    if (j->plans_not_stored > 0)
        snprintf(plans, sizeof plans, j->plans == 1 ? "the plan" : "%" PRId64 " of %" PRId64 " plans",
                 j->plans_not_stored, j->plans);
    snprintf(j->why, sizeof j->why, "compiled, but %s%s%s could not be stored in the kernel cache %s (it is full "
             "or cannot be written; HIPDNN_LOG_LEVEL=warn shows why): the next run builds %s again", kernels,
             kernels[0] && plans[0] ? " and " : "", plans, o->dir,
             j->kernels_not_stored + j->plans_not_stored > 1 ? "them" : "it");
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
            j->status = j->kernels_not_stored + j->plans_not_stored > 0 ? GRAPH_NOT_STORED : GRAPH_OK;
        if (j->status == GRAPH_NOT_STORED)
            not_stored_reason(o, j);
        hipdnnBackendDestroyDescriptor(graph);
    }
    j->ms = now_ms() - t0;
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
        hc_warm_report_graph(r, j);
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
    if (o->n_plugins > 0 && hipdnnSetEnginePluginPaths_ext((size_t)o->n_plugins, o->plugins,
                                                           HIPDNN_PLUGIN_LOADING_ADDITIVE) != HIPDNN_STATUS_SUCCESS) {
        hipdnnGetLastErrorString(msg, sizeof msg);
        return hc_usage_error("warm", "warm: --plugin: %s", msg);
    }
    if (o->arch != NULL) {
        if (hipdnnSetCompileTarget_ext(o->arch, o->sm_count) == HIPDNN_STATUS_SUCCESS)
            return -1;
        hipdnnGetLastErrorString(msg, sizeof msg);
        return hc_usage_error("warm", "warm: --arch %s: %s", o->arch, msg);
    }
    void *probe = NULL;
    if (hipdnnDeviceMalloc_ext(&probe, 1) == HIPDNN_STATUS_SUCCESS) {
        hipdnnDeviceFree_ext(probe);
        return -1;
    }
    hipdnnGetLastErrorString(msg, sizeof msg);
    return hc_usage_error("warm", "warm: no GPU here (%s); name the target with --arch, e.g. --arch sm_90", msg);
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
        hc_warm_summary(&r, o->arch != NULL ? o->arch : "this GPU", now_ms() - t0);
        rc = HC_EXIT_OK;
        for (int i = 0; i < r.n; i++)
            rc = r.g[i].status == GRAPH_FAILED || r.g[i].status == GRAPH_NOT_STORED ? HC_EXIT_FAIL : rc;
    }
    for (int i = 0; i < r.n; i++)
        free(r.g[i].path);
    free(r.g);
    return rc;
}
