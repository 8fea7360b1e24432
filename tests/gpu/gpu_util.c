/* gpu_util.c — the GPU tests' harness: suite setup (skip without a GPU), graph building in the
 * JSON model, running a graph on the JIT engine and on the reference engine, and comparing every
 * output element by element (tu_close.h: each within the bound for its type and the family and
 * accumulation length of the ops that made it; no unwritten element); attention's comparisons and
 * the backward's harness (the forward's O and Stats as its inputs). The test files
 * (test_gpu_*.c) hold the cases; without a GPU every case skips in gpu_setup (tu_main.c: exit 77,
 * ctest: skipped).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_util.h"
#include "../common/tu_close_ir.h"

hipdnnHandle_t handle;
unsigned seed;

#define MAX_TEST_KNOBS 8
static int n_knobs;
static const char *knob_ids[MAX_TEST_KNOBS];
static int64_t knob_values[MAX_TEST_KNOBS];

void gpu_set_knobs(int n, const char *const *ids, const int64_t *values)
{
    cr_assert(n >= 0 && n <= MAX_TEST_KNOBS);
    n_knobs = n;
    for (int i = 0; i < n; i++)
        knob_ids[i] = ids[i], knob_values[i] = values[i];
}

/* HIPDNN_TEST_KNOBS="id=v,id=v": knobs every JIT plan of the run takes where a test sets none of
 * its own (gpu_set_knobs), so a whole suite can run on a candidate default before it becomes one;
 * parsed once (at most MAX_TEST_KNOBS, ids up to 47 characters). */
static int n_env;
static char env_ids[MAX_TEST_KNOBS][48];
static const char *env_id_ptrs[MAX_TEST_KNOBS];
static int64_t env_values[MAX_TEST_KNOBS];

static void env_knobs(void)
{
    static int parsed;
    const char *spec = getenv("HIPDNN_TEST_KNOBS");
    if (parsed++ || spec == NULL)
        return;
    for (const char *p = spec; *p != '\0' && n_env < MAX_TEST_KNOBS;) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        end = end != NULL ? end : p + strlen(p);
        cr_assert(eq != NULL && eq < end && eq - p < 48, "HIPDNN_TEST_KNOBS wants id=v[,id=v]...: %s", spec);
        memcpy(env_ids[n_env], p, (size_t)(eq - p));
        env_ids[n_env][eq - p] = '\0';
        env_id_ptrs[n_env] = env_ids[n_env];
        env_values[n_env++] = strtoll(eq + 1, NULL, 10);
        p = *end == ',' ? end + 1 : end;
    }
    cr_log_info("HIPDNN_TEST_KNOBS: %s", spec);
}

void gpu_setup(void)
{
    if (rt_init() != HIPDNN_STATUS_SUCCESS) {
        char msg[256];
        hipdnnGetLastErrorString(msg, sizeof msg);
        cr_skip_test("no GPU on this machine: %s", msg);
    }
    TU_OK(hipdnnCreate(&handle));
    const char *env = getenv("HIPDNN_TEST_SEED");
    seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)clock();
    srand(seed);
    cr_log_info("seed %u", seed);
}

void gpu_teardown(void)
{
    if (handle != NULL)
        hipdnnDestroy(handle);
}

int rnd(int lo, int hi) { return lo + rand() % (hi - lo + 1); }

/* ---- graph building (JSON model) ------------------------------------------------------------------ */

json_t *tensor(int uid, const char *dtype, int rank, const int64_t *dims, const int64_t *strides,
                      bool is_virtual)
{
    json_t *d = json_array(), *s = json_array();
    for (int i = 0; i < rank; i++)
        json_array_append_new(d, json_integer(dims[i])), json_array_append_new(s, json_integer(strides[i]));
    return json_pack("{s:i, s:s, s:o, s:o, s:b}", "uid", uid, "data_type", dtype, "strides", s, "dims", d,
                     "virtual", is_virtual);
}

json_t *scalar(int uid, float v)
{
    int64_t one[4] = {1, 1, 1, 1};
    json_t *t = tensor(uid, "FLOAT", 2, one, one, false);
    json_object_set_new(t, "value_type", json_string("Float32Value"));
    json_object_set_new(t, "value", json_pack("{s:f}", "value", v));
    return t;
}

void packed(int rank, const int64_t *dims, int64_t *strides, int64_t row_pad)
{
    strides[rank - 1] = 1;
    for (int i = rank - 2; i >= 0; i--)
        strides[i] = strides[i + 1] * dims[i + 1] + (i == rank - 2 ? row_pad : 0);
}

json_t *node(const char *type, json_t *attrs)
{
    return json_pack("{s:s, s:s, s:o}", "compute_data_type", "FLOAT", "attributes_type", type,
                     "attributes", attrs);
}

hipdnnBackendDescriptor_t finalize_graph(json_t *tensors, json_t *nodes)
{
    json_t *doc = json_pack("{s:o, s:o}", "tensors", tensors, "nodes", nodes);
    char *text = json_dumps(doc, 0);
    hipdnnBackendDescriptor_t g = tu_json_graph(handle, text, strlen(text), "the case's graph");
    free(text);
    json_decref(doc);
    return g;
}

/* ---- running ---------------------------------------------------------------------------------------- */

hipdnnBackendDescriptor_t plan_with(hipdnnBackendDescriptor_t g, const char *engine)
{
    return plan_with_cache(g, engine, NULL);
}

hipdnnBackendDescriptor_t plan_with_cache(hipdnnBackendDescriptor_t g, const char *engine, hipdnnBackendDescriptor_t cache)
{
    int64_t id, n;
    TU_OK(hipdnnGetEngineIdByName_ext(handle, engine, &id));
    hipdnnBackendDescriptor_t e, cfg, plan;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id));
    TU_OK(hipdnnBackendFinalize(e));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    TU_OK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e));
    env_knobs();
    bool own = n_knobs > 0;
    int nk = own ? n_knobs : n_env;
    const char *const *ids = own ? knob_ids : env_id_ptrs;
    const int64_t *values = own ? knob_values : env_values;
    for (int i = 0; strcmp(engine, "reference") != 0 && i < nk; i++) {
        hipdnnBackendDescriptor_t kc;
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &kc));
        TU_OK(hipdnnBackendSetAttribute(kc, HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, HIPDNN_TYPE_CHAR,
                                        (int64_t)strlen(ids[i]), ids[i]));
        TU_OK(hipdnnBackendSetAttribute(kc, HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, HIPDNN_TYPE_INT64, 1, &values[i]));
        TU_OK(hipdnnBackendFinalize(kc));
        TU_OK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &kc));
        hipdnnBackendDestroyDescriptor(kc);
    }
    TU_OK(hipdnnBackendFinalize(cfg));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    if (cache != NULL)
        TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
                                        1, &cache));
    TU_OK(hipdnnBackendFinalize(plan));
    hipdnnBackendDestroyDescriptor(cfg), hipdnnBackendDestroyDescriptor(e);
    (void)n;
    return plan;
}

int64_t workspace_of(hipdnnBackendDescriptor_t plan)
{
    int64_t ws = 0, n;
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n, &ws));
    return ws;
}

hipdnnStatus_t try_execute(hipdnnBackendDescriptor_t plan, int n, int64_t *uids, void **ptrs, void *ws)
{
    hipdnnBackendDescriptor_t pack = tu_pack(n, uids, ptrs, ws);
    hipdnnStatus_t st = hipdnnBackendExecute(handle, plan, pack);
    hipdnnBackendDestroyDescriptor(pack);
    return st;
}

void execute(hipdnnBackendDescriptor_t plan, int n, int64_t *uids, void **ptrs, void *ws)
{
    TU_OK(try_execute(plan, n, uids, ptrs, ws));
}

size_t extent_bytes(const ir_tensor *t)
{
    int64_t last = 0;
    for (int i = 0; i < t->rank; i++)
        last += (t->dims[i] - 1) * t->strides[i];
    size_t es = fe_dtype_size(t->dtype);
    return (size_t)(last + 1) * (es ? es : 1);
}

ir_buf view(const ir_tensor *t, void *data)
{
    ir_buf b = {.data = data, .dtype = t->dtype, .rank = t->rank};
    memcpy(b.dims, t->dims, sizeof b.dims);
    memcpy(b.strides, t->strides, sizeof b.strides);
    return b;
}

double tolerance(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FLOAT: return 2e-5;
    case HIPDNN_DATA_HALF: return 2e-3;
    case HIPDNN_DATA_BFLOAT16: return 1.2e-2;
    default: return 8e-2; /* fp8 */
    }
}

void check_graph(hipdnnBackendDescriptor_t g, const char *what)
{
    check_graph_with(g, "jit_fused", NULL, what);
}

void check_graph_both_jit(hipdnnBackendDescriptor_t g, const char *what)
{
    const char *engines[] = {"jit_fused", "jit_unfused"};
    for (int e = 0; e < 2; e++) {
        char on[256];
        snprintf(on, sizeof on, "%s on %s", what, engines[e]);
        check_graph_with(g, engines[e], NULL, on);
    }
}

void check_graph_with(hipdnnBackendDescriptor_t g, const char *engine, gpu_fill_fn fill, const char *what)
{
    hipdnnBackendDescriptor_t plan = plan_with(g, engine);
    check_plan(g, plan, fill, what);
    hipdnnBackendDestroyDescriptor(plan);
}

/* ---- per-element comparison (tests/common/tu_close_ir.h) ------------------------------------ */

/* The default comparison: every element within its tolerance (tu_close_ir.h): no unwritten
 * element, NaN and infinities where the reference has them. */
void gpu_compare_output(const ir_graph *ir, int ti, const ir_buf *got, const ir_buf *want, const char *what)
{
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: output uid %lld (seed %u)", what, (long long)ir->t[ti].uid, seed);
    tu_close_tensor(ir, ti, got, want, ctx, true);
}

void gpu_compare_attention(const ir_tensor *t, const ir_buf *got, const ir_buf *want, const char *what)
{
    int64_t idx[IR_MAX_RANK] = {0}, n = ir_buf_numel(got), i = 0;
    double *g = malloc((size_t)n * sizeof *g), *w = malloc((size_t)n * sizeof *w);
    double num = 0, den = 0;
    do {
        g[i] = ir_load(got, idx), w[i] = ir_load(want, idx);
        if (isfinite(w[i]) && isfinite(g[i]))
            num += (g[i] - w[i]) * (g[i] - w[i]), den += w[i] * w[i];
        i++;
    } while (ir_next_index(got, idx));
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: uid %lld (seed %u)", what, (long long)t->uid, seed);
    tu_expect_close(ctx, g, w, (size_t)n, tu_tol_for(t->dtype, TU_ATTENTION, 1));
    /* and, over the finite elements, the relative L2 error of op-semantics.md §4.11 */
    double rel = sqrt(num / (den > 0 ? den : 1));
    double tol = t->dtype == HIPDNN_DATA_FLOAT ? 1e-3 : tolerance(t->dtype);
    cr_expect_leq(rel, tol, "%s: uid %lld rel err %.3g > %.3g", what, (long long)t->uid, rel, tol);
    free(g), free(w);
}

void check_plan(hipdnnBackendDescriptor_t g, hipdnnBackendDescriptor_t gpu_plan, gpu_fill_fn fill,
                const char *what)
{
    check_plan_cmp(g, gpu_plan, fill, NULL, what);
}

static int executions = 1; /* check_plan_cmp: GPU executions of the plan, each checked */

void gpu_set_executions(int n) { executions = n < 1 ? 1 : n; }

void check_plan_cmp(hipdnnBackendDescriptor_t g, hipdnnBackendDescriptor_t gpu_plan, gpu_fill_fn fill,
                    gpu_compare_fn cmp, const char *what)
{
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    int n = 0;
    int64_t uids[64];
    void *host[64], *dev[64], *ref[64];
    const ir_tensor *ts[64];
    for (int i = 0; i < ir->n_t; i++) {
        const ir_tensor *t = &ir->t[i];
        if (t->is_virtual || t->by_value)
            continue;
        size_t bytes = extent_bytes(t);
        ts[n] = t, uids[n] = t->uid;
        host[n] = malloc(bytes), ref[n] = malloc(bytes);
        TU_OK(rt_malloc(&dev[n], bytes));
        memset(host[n], 0xff, bytes);
        ir_buf b = view(t, host[n]);
        if (t->producer < 0 && (fill == NULL || !fill(t, &b))) { /* an input: random in [-2, 2] */
            int64_t idx[IR_MAX_RANK] = {0};
            do
                ir_store(&b, idx, (double)rand() / RAND_MAX * 4 - 2);
            while (ir_next_index(&b, idx));
        }
        memcpy(ref[n], host[n], bytes);
        TU_OK(rt_memcpy_h2d(dev[n], host[n], bytes));
        n++;
    }
    hipdnnBackendDescriptor_t ref_plan = plan_with(g, "reference");
    int64_t ws = workspace_of(gpu_plan), ref_ws_size = workspace_of(ref_plan);
    void *dws = NULL, *hws = malloc((size_t)ref_ws_size + 1);
    if (ws > 0) {
        TU_OK(rt_malloc(&dws, (size_t)ws));
        TU_OK(rt_memset(dws, 0xff, (size_t)ws));
    }
    execute(ref_plan, n, uids, ref, hws);
    for (int e = 0; e < executions; e++) { /* each execution's outputs poisoned before it runs */
        for (int i = 0; e > 0 && i < n; i++)
            if (ts[i]->producer >= 0)
                TU_OK(rt_memset(dev[i], 0xff, extent_bytes(ts[i])));
        execute(gpu_plan, n, uids, dev, dws);
        TU_OK(rt_stream_sync(NULL));
        for (int i = 0; i < n; i++) {
            if (ts[i]->producer < 0)
                continue;
            TU_OK(rt_memcpy_d2h(host[i], dev[i], extent_bytes(ts[i])));
            ir_buf got = view(ts[i], host[i]), want = view(ts[i], ref[i]);
            if (cmp != NULL)
                cmp(ts[i], &got, &want, what);
            else
                gpu_compare_output(ir, (int)(ts[i] - ir->t), &got, &want, what);
        }
    }
    for (int i = 0; i < n; i++)
        free(host[i]), free(ref[i]), rt_free(dev[i]);
    free(hws);
    rt_free(dws);
    hipdnnBackendDestroyDescriptor(ref_plan);
}

/* ---- attention backward ----------------------------------------------------------------------- */

void gpu_compare_grad(const ir_tensor *t, const ir_buf *got, const ir_buf *want, bool kv, const char *what)
{
    tu_tol tol = {kv && t->dtype == HIPDNN_DATA_BFLOAT16 ? 7e-2 : 2e-2, 2e-2};
    int64_t idx[IR_MAX_RANK] = {0}, n = ir_buf_numel(got), i = 0;
    double *g = malloc((size_t)n * sizeof *g), *w = malloc((size_t)n * sizeof *w), num = 0, den = 0;
    cr_assert(g != NULL && w != NULL);
    do {
        g[i] = ir_load(got, idx), w[i] = ir_load(want, idx);
        if (isfinite(g[i]))
            num += (g[i] - w[i]) * (g[i] - w[i]), den += w[i] * w[i];
        i++;
    } while (ir_next_index(got, idx));
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: uid %lld (seed %u)", what, (long long)t->uid, seed);
    tu_expect_close(ctx, g, w, (size_t)n, tol);
    double rel = sqrt(num / (den > 0 ? den : 1)), l2 = 2 * tolerance(t->dtype);
    cr_expect_leq(rel, l2, "%s: uid %lld rel err %.3g > %.3g", what, (long long)t->uid, rel, l2);
    free(g), free(w);
}

/* Runs plan over the tensors of ir in memory, pointers by uid. */
static void execute_by_uid(hipdnnBackendDescriptor_t plan, const ir_graph *ir, void **ptrs, void *ws)
{
    int64_t uids[GPU_MAX_UID];
    void *p[GPU_MAX_UID];
    int n = 0;
    for (int i = 0; i < ir->n_t; i++)
        if (!ir->t[i].is_virtual && !ir->t[i].by_value)
            uids[n] = ir->t[i].uid, p[n++] = ptrs[ir->t[i].uid];
    execute(plan, n, uids, p, ws);
}

/* The JIT plan's outputs poisoned, the plan run. */
static void run_poisoned(hipdnnBackendDescriptor_t plan, const ir_graph *ir, const ir_tensor *const *ts,
                         void *const *dev, const size_t *bytes, void *dws)
{
    for (int u = 0; u < GPU_MAX_UID; u++)
        if (ts[u] != NULL && ts[u]->producer >= 0)
            TU_OK(rt_memset(dev[u], 0xff, bytes[u]));
    execute_by_uid(plan, ir, (void **)dev, dws);
    TU_OK(rt_stream_sync(NULL));
}

void gpu_check_backward(hipdnnBackendDescriptor_t gb, hipdnnBackendDescriptor_t gf, gpu_fill_fn fill, gpu_uid_pred kv,
                        gpu_uid_pred bitwise, const char *what)
{
    const ir_graph *ir = fe_graph_of(gb->obj)->ir;
    const ir_tensor *ts[GPU_MAX_UID] = {0};
    void *host[GPU_MAX_UID] = {0}, *ref[GPU_MAX_UID] = {0}, *dev[GPU_MAX_UID] = {0};
    size_t bytes[GPU_MAX_UID] = {0};
    for (int i = 0; i < ir->n_t; i++) {
        const ir_tensor *t = &ir->t[i];
        if (t->is_virtual || t->by_value)
            continue;
        cr_assert(t->uid >= 0 && t->uid < GPU_MAX_UID, "uid %lld past the harness' table", (long long)t->uid);
        int u = (int)t->uid;
        ts[u] = t, bytes[u] = extent_bytes(t);
        host[u] = malloc(bytes[u]), ref[u] = malloc(bytes[u]);
        cr_assert(host[u] != NULL && ref[u] != NULL);
        memset(host[u], 0xff, bytes[u]);
        ir_buf v = view(t, host[u]);
        if (t->producer < 0 && (fill == NULL || !fill(t, &v))) {
            int64_t idx[IR_MAX_RANK] = {0};
            do
                ir_store(&v, idx, (double)rand() / RAND_MAX * 4 - 2);
            while (ir_next_index(&v, idx));
        }
    }
    hipdnnBackendDescriptor_t fwd = plan_with(gf, "reference");
    void *fws = malloc((size_t)workspace_of(fwd) + 1);
    execute_by_uid(fwd, fe_graph_of(gf->obj)->ir, host, fws); /* O and Stats of these inputs */
    free(fws);
    for (int u = 0; u < GPU_MAX_UID; u++)
        if (ts[u] != NULL) {
            memcpy(ref[u], host[u], bytes[u]);
            TU_OK(rt_malloc(&dev[u], bytes[u]));
            TU_OK(rt_memcpy_h2d(dev[u], host[u], bytes[u]));
        }
    hipdnnBackendDescriptor_t plan = plan_with(gb, "jit_fused"), rplan = plan_with(gb, "reference");
    int64_t ws = workspace_of(plan);
    void *dws = NULL, *hws = malloc((size_t)workspace_of(rplan) + 1);
    if (ws > 0)
        TU_OK(rt_malloc(&dws, (size_t)ws));
    run_poisoned(plan, ir, ts, dev, bytes, dws);
    execute_by_uid(rplan, ir, ref, hws);
    for (int u = 0; u < GPU_MAX_UID; u++) {
        if (ts[u] == NULL || ts[u]->producer < 0)
            continue;
        TU_OK(rt_memcpy_d2h(host[u], dev[u], bytes[u]));
        ir_buf got = view(ts[u], host[u]), want = view(ts[u], ref[u]);
        gpu_compare_grad(ts[u], &got, &want, kv != NULL && kv(u), what);
    }
    if (bitwise != NULL) /* a second run gives the same bytes where the case says it must */
        run_poisoned(plan, ir, ts, dev, bytes, dws);
    for (int u = 0; bitwise != NULL && u < GPU_MAX_UID; u++) {
        if (ts[u] == NULL || ts[u]->producer < 0 || !bitwise(u))
            continue;
        void *again = malloc(bytes[u]);
        cr_assert_not_null(again);
        TU_OK(rt_memcpy_d2h(again, dev[u], bytes[u]));
        cr_expect_eq(memcmp(again, host[u], bytes[u]), 0, "%s: uid %d differs between two runs", what, u);
        free(again);
    }
    for (int u = 0; u < GPU_MAX_UID; u++)
        if (ts[u] != NULL)
            free(host[u]), free(ref[u]), rt_free(dev[u]);
    free(hws);
    rt_free(dws);
    hipdnnBackendDestroyDescriptor(rplan);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(fwd);
}
