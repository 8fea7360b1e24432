/* bench_plan.c — plan-build time through the kernel cache, for whole graph files (the
 * examples): execution-plan finalize (jit_fused, default knobs) timed
 *   cold:         a new process and an empty cache directory (lowering, codegen, loading NVRTC,
 *                 compiling, module load: a process's first plan of a graph never seen);
 *   warm, new:    a new process opening the warmed directory (LMDB plan and kernel records,
 *                 module load; the process's GPU and cache are opened before the clock starts);
 *   warm, same:   the same process again (the cache's memory front and the loaded modules);
 *   new shape:    the same graph with a smaller leading (batch / row) dim, in the warm process
 *                 (5 sizes, median): another plan each, but with --dynamic (HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_
 *                 ENABLED) its kernels are the cached ones (the "compiled" column says so).
 * Medians over repeated runs (cold: a fresh directory each time). Public API only.
 *
 *   bench_plan [--arch sm_90] [--dynamic] GRAPH.json ...   (--arch: compile-only, no GPU needed)
 *
 * "path ms": in the new process, the whole path a framework takes for a second graph object of
 * the same file: deserialize, finalize, heuristics, engine config, plan finalize.
 * Prints a table and one "RESULT name kernels cold_ms new_ms same_us newshape_ms compiled path_ms"
 * line per graph.
 */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR
#define COLD_RUNS 3
#define NEW_RUNS 7
#define SAME_RUNS 50
#define SHAPE_RUNS 5

static hipdnnHandle_t handle;
static const char *self, *arch;
static bool dynamic;

static void die(const char *what)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(msg, sizeof msg);
    fprintf(stderr, "bench_plan: %s: %s\n", what, msg);
    exit(1);
}

#define CHECK(call)                                                                              \
    do {                                                                                         \
        if ((call) != HIPDNN_STATUS_SUCCESS)                                                     \
            die(#call);                                                                          \
    } while (0)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The graph of JSON text, or NULL (the reason in the last error) when the library refuses it. */
static hipdnnBackendDescriptor_t try_graph_of(const char *text, size_t n)
{
    hipdnnBackendDescriptor_t g = NULL;
    if (hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, n) != HIPDNN_STATUS_SUCCESS)
        return NULL;
    if (hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle) ==
            HIPDNN_STATUS_SUCCESS &&
        (!dynamic || hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED,
                                               HIPDNN_TYPE_BOOLEAN, 1, &dynamic) == HIPDNN_STATUS_SUCCESS) &&
        hipdnnBackendFinalize(g) == HIPDNN_STATUS_SUCCESS)
        return g;
    hipdnnBackendDestroyDescriptor(g);
    return NULL;
}

static hipdnnBackendDescriptor_t graph_of(const char *text, size_t n)
{
    hipdnnBackendDescriptor_t g;
    CHECK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, n));
    CHECK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    if (dynamic)
        CHECK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, HIPDNN_TYPE_BOOLEAN,
                                        1, &dynamic));
    CHECK(hipdnnBackendFinalize(g));
    return g;
}

static hipdnnBackendDescriptor_t load_graph(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        exit(1);
    }
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    return graph_of(text, n);
}

/* The graph at path with its leading dim scaled by (8 - k) / 8: the first tensor's outermost dim
 * of 8 or more (the batch, the sequence, or the rows of a row-major operand), in every tensor with
 * that size there. NULL when the scaled graph is not valid (e.g. Q's heads scaled while grouped K/V
 * heads are not); the reason is left in the last error. */
static hipdnnBackendDescriptor_t smaller_graph(const char *path, int k)
{
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    if (doc == NULL) {
        fprintf(stderr, "bench_plan: %s: %s\n", path, err.text);
        exit(1);
    }
    json_t *tensors = json_object_get(doc, "tensors");
    json_t *first = json_object_get(json_array_get(tensors, 0), "dims");
    size_t at = 0;
    while (at + 1 < json_array_size(first) && json_integer_value(json_array_get(first, at)) < 8)
        at++;
    json_int_t lead = json_integer_value(json_array_get(first, at));
    for (size_t i = 0; i < json_array_size(tensors); i++) {
        json_t *dims = json_object_get(json_array_get(tensors, i), "dims");
        if (lead >= 8 && json_integer_value(json_array_get(dims, at)) == lead)
            json_array_set_new(dims, at, json_integer(lead * (8 - k) / 8));
    }
    char *text = json_dumps(doc, 0);
    hipdnnBackendDescriptor_t g = try_graph_of(text, strlen(text));
    free(text);
    json_decref(doc);
    return g;
}

static hipdnnBackendDescriptor_t open_cache(const char *dir)
{
    hipdnnBackendDescriptor_t c;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &c));
    CHECK(hipdnnBackendSetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_DIRECTORY_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(dir), dir));
    CHECK(hipdnnBackendFinalize(c));
    return c;
}

static hipdnnBackendDescriptor_t jit_config(hipdnnBackendDescriptor_t g)
{
    hipdnnBackendDescriptor_t e, cfg;
    int64_t id = 1; /* jit_fused */
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    CHECK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, DESC, 1, &g));
    CHECK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id));
    CHECK(hipdnnBackendFinalize(e));
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    CHECK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &e));
    CHECK(hipdnnBackendFinalize(cfg));
    hipdnnBackendDestroyDescriptor(e);
    return cfg;
}

/* The heuristics' first engine config for g (FALLBACK mode, as a framework asks). */
static hipdnnBackendDescriptor_t heuristic_config(hipdnnBackendDescriptor_t g)
{
    hipdnnBackendDescriptor_t heur, cfg;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    int64_t n = 0;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    CHECK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    CHECK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, DESC, 1, &g));
    CHECK(hipdnnBackendFinalize(heur));
    CHECK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, 1, &n, &cfg));
    hipdnnBackendDestroyDescriptor(heur);
    CHECK(hipdnnBackendFinalize(cfg));
    return cfg;
}

/* One plan finalize of cfg with cache c: milliseconds, and its cache stats. */
static double plan_ms(hipdnnBackendDescriptor_t cfg, hipdnnBackendDescriptor_t c, int64_t st[4])
{
    hipdnnBackendDescriptor_t plan;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    CHECK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DESC, 1, &cfg));
    CHECK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, DESC, 1, &c));
    double t0 = now_ms();
    CHECK(hipdnnBackendFinalize(plan));
    double ms = now_ms() - t0;
    int64_t n = 0;
    CHECK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT, HIPDNN_TYPE_INT64, 4,
                                    &n, st));
    hipdnnBackendDestroyDescriptor(plan);
    return ms;
}

/* A new process's first plan build from dir (the child prints "<ms> <compiled> <plan_cached>"). */
static double new_process_ms(const char *graph, const char *dir, int64_t *compiled, int64_t *plan_cached,
                             double *whole_ms)
{
    int fd[2];
    if (pipe(fd) != 0)
        exit(1);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        const char *argv[8] = {self};
        int n = 1;
        if (arch != NULL)
            argv[n++] = "--arch", argv[n++] = arch;
        if (dynamic)
            argv[n++] = "--dynamic";
        argv[n++] = "--child", argv[n++] = graph, argv[n++] = dir;
        execv(self, (char *const *)argv);
        _exit(127);
    }
    close(fd[1]);
    char buf[128] = "";
    FILE *f = fdopen(fd[0], "r");
    double ms = NAN, whole = NAN;
    long long c = -1, p = -1;
    if (f == NULL || fgets(buf, sizeof buf, f) == NULL || sscanf(buf, "%lf %lld %lld %lf", &ms, &c, &p, &whole) != 4)
        fprintf(stderr, "bench_plan: the child for %s printed '%s'\n", graph, buf);
    if (f != NULL)
        fclose(f);
    int status;
    waitpid(pid, &status, 0);
    *compiled = c, *plan_cached = p, *whole_ms = whole;
    return ms;
}

/* A new process's first plan of the graph: the plan finalize alone (what the table reports),
 * then, for the framework's view, the whole path again from the graph file of a second graph
 * object: deserialize, finalize, heuristics, engine config, plan. */
static int child(const char *graph, const char *dir)
{
    if (arch == NULL) { /* the GPU and its context come up before the clock starts */
        void *p = NULL;
        CHECK(hipdnnDeviceMalloc_ext(&p, 256));
        hipdnnDeviceFree_ext(p);
    }
    hipdnnBackendDescriptor_t g = load_graph(graph), c = open_cache(dir), cfg = jit_config(g);
    int64_t st[4];
    double ms = plan_ms(cfg, c, st);
    double t0 = now_ms();
    hipdnnBackendDescriptor_t g2 = load_graph(graph), cfg2 = heuristic_config(g2);
    int64_t st2[4];
    double whole = now_ms() - t0 + plan_ms(cfg2, c, st2);
    printf("%.4f %lld %lld %.4f\n", ms, (long long)st[1], (long long)st[3], whole);
    return 0;
}

static void bench_graph(const char *path)
{
    const char *name = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
    hipdnnBackendDescriptor_t g = load_graph(path), cfg = jit_config(g);
    double cold[COLD_RUNS], fresh[NEW_RUNS], same[SAME_RUNS], whole[NEW_RUNS], unused;
    int64_t st[4] = {0}, kernels = 0;
    char dir[64];
    for (int r = 0; r < COLD_RUNS; r++) {
        if (r > 0) {
            char cmd[128];
            snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
            if (system(cmd) != 0)
                fprintf(stderr, "bench_plan: could not remove %s\n", dir);
        }
        snprintf(dir, sizeof dir, "/tmp/bench-plan-XXXXXX");
        if (mkdtemp(dir) == NULL)
            exit(1);
        int64_t compiled, plan_cached;
        cold[r] = new_process_ms(path, dir, &compiled, &plan_cached, &unused);
        if (compiled < 1 || plan_cached != 0)
            fprintf(stderr, "bench_plan: %s: a cold build compiled %lld kernels (plan cached %lld)\n", name,
                    (long long)compiled, (long long)plan_cached);
    }
    for (int r = 0; r < NEW_RUNS; r++) {
        int64_t compiled, plan_cached;
        fresh[r] = new_process_ms(path, dir, &compiled, &plan_cached, &whole[r]);
        if (compiled != 0 || plan_cached != 1)
            fprintf(stderr, "bench_plan: %s: a new process compiled %lld kernels (plan cached %lld)\n", name,
                    (long long)compiled, (long long)plan_cached);
    }
    hipdnnBackendDescriptor_t c = open_cache(dir);
    for (int r = 0; r < SAME_RUNS; r++) {
        same[r] = plan_ms(cfg, c, st);
        kernels = st[0];
        if (st[1] != 0 || st[3] != 1)
            fprintf(stderr, "bench_plan: %s: a same-process build compiled %lld kernels\n", name, (long long)st[1]);
    }
    double shapes[SHAPE_RUNS];
    int64_t compiled = 0;
    int sized = 0;
    for (int k = 1; k <= SHAPE_RUNS; k++) {
        hipdnnBackendDescriptor_t sg = smaller_graph(path, k);
        if (sg == NULL) { /* reported, not fatal: the other columns stand */
            char why[HIPDNN_ERROR_STRING_MAX_LENGTH];
            hipdnnGetLastErrorString(why, sizeof why);
            fprintf(stderr, "bench_plan: %s: no new-shape column: the graph scaled by %d/8 is refused: %s\n",
                    name, 8 - k, why);
            break;
        }
        hipdnnBackendDescriptor_t scfg = jit_config(sg);
        shapes[sized++] = plan_ms(scfg, c, st);
        compiled += st[1];
        hipdnnBackendDestroyDescriptor(scfg), hipdnnBackendDestroyDescriptor(sg);
    }
    double shape_ms = sized == SHAPE_RUNS ? median(shapes, SHAPE_RUNS) : -1; /* -1: not measured */
    st[1] = compiled, st[0] = kernels * sized;
    double mc = median(cold, COLD_RUNS), mn = median(fresh, NEW_RUNS), ms = median(same, SAME_RUNS);
    double mw = median(whole, NEW_RUNS);
    printf("%-24s %7lld %10.1f %10.3f %10.3f %12.1f %9.0fx %10.2f %5lld/%lld %10.3f\n", name, (long long)kernels, mc,
           mn, mn / (double)(kernels > 0 ? kernels : 1), ms * 1e3, mc / mn, shape_ms, (long long)st[1],
           (long long)st[0], mw);
    printf("RESULT %s %lld %.3f %.4f %.2f %.3f %lld %.4f\n", name, (long long)kernels, mc, mn, ms * 1e3, shape_ms,
           (long long)st[1], mw);
    fflush(stdout);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    hipdnnBackendDestroyDescriptor(c);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_plan: could not remove %s\n", dir);
    hipdnnBackendDestroyDescriptor(cfg);
    hipdnnBackendDestroyDescriptor(g);
}

int main(int argc, char **argv)
{
    self = argv[0];
    int i = 1;
    for (;;) {
        if (i + 1 < argc && strcmp(argv[i], "--arch") == 0)
            arch = argv[i + 1], i += 2;
        else if (i < argc && strcmp(argv[i], "--dynamic") == 0)
            dynamic = true, i++;
        else
            break;
    }
    setenv("HIPDNN_CACHE_DISABLE", "1", 1); /* only the caches this program opens */
    if (arch != NULL)
        CHECK(hipdnnSetCompileTarget_ext(arch, 0));
    CHECK(hipdnnCreate(&handle));
    if (i + 2 < argc + 0 && strcmp(argv[i], "--child") == 0)
        return child(argv[i + 1], argv[i + 2]);
    if (i >= argc) {
        fprintf(stderr, "usage: bench_plan [--arch ARCH] GRAPH.json ...\n");
        return 2;
    }
    printf("plan finalize (jit_fused, default knobs)%s%s; medians: cold %d, new process %d, same process %d runs\n",
           arch != NULL ? " compile-only" : "", dynamic ? ", dynamic-shape graphs" : "", COLD_RUNS, NEW_RUNS, SAME_RUNS);
    printf("%-24s %7s %10s %10s %10s %12s %10s %10s %9s %10s\n", "graph", "kernels", "cold ms", "new ms", "new ms/k",
           "same us", "cold/new", "shape ms", "compiled", "path ms");
    for (; i < argc; i++)
        bench_graph(argv[i]);
    hipdnnDestroy(handle);
    return 0;
}
