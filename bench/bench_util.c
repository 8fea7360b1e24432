/* bench_util.c — shared pieces of the benchmark programs (see bench_util.h); public API only. */
#include <string.h>

#include "bench_util.h"

hipdnnHandle_t bench_handle;
bool bench_dynamic;

void bench_init(const char *program)
{
    void *probe;
    if (hipdnnDeviceMalloc_ext(&probe, 16) != HIPDNN_STATUS_SUCCESS) {
        fprintf(stderr, "%s: no GPU\n", program);
        exit(1);
    }
    hipdnnDeviceFree_ext(probe);
    bench_timer_init();
    CHECK(hipdnnCreate(&bench_handle));
    srand(1);
}

json_t *bench_node(const char *type, json_t *attrs)
{
    return json_pack("{s:s, s:s, s:o}", "compute_data_type", "FLOAT", "attributes_type", type,
                     "attributes", attrs);
}

hipdnnBackendDescriptor_t bench_graph(json_t *tensors, json_t *nodes)
{
    json_t *doc = json_pack("{s:o, s:o}", "tensors", tensors, "nodes", nodes);
    char *text = json_dumps(doc, 0);
    hipdnnBackendDescriptor_t g;
    CHECK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, strlen(text)));
    CHECK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &bench_handle));
    if (bench_dynamic)
        CHECK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED, HIPDNN_TYPE_BOOLEAN,
                                        1, &bench_dynamic));
    CHECK(hipdnnBackendFinalize(g));
    free(text);
    json_decref(doc);
    return g;
}

/* A finalized engine config of `eng` with the given knob choices. */
static hipdnnBackendDescriptor_t config_with(hipdnnBackendDescriptor_t eng, int n_knobs, const char *const *ids,
                                             const int64_t *values)
{
    hipdnnBackendDescriptor_t cfg;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    CHECK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &eng));
    for (int i = 0; i < n_knobs; i++) {
        hipdnnBackendDescriptor_t kc;
        CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &kc));
        CHECK(hipdnnBackendSetAttribute(kc, HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, HIPDNN_TYPE_CHAR,
                                        (int64_t)strlen(ids[i]), ids[i]));
        CHECK(hipdnnBackendSetAttribute(kc, HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, HIPDNN_TYPE_INT64, 1, &values[i]));
        CHECK(hipdnnBackendFinalize(kc));
        CHECK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &kc));
        hipdnnBackendDestroyDescriptor(kc);
    }
    CHECK(hipdnnBackendFinalize(cfg));
    return cfg;
}

hipdnnBackendDescriptor_t bench_jit_plan_ranked(hipdnnBackendDescriptor_t g, int rank, char *label, size_t len)
{
    hipdnnBackendDescriptor_t heur, cfgs[64], plan = NULL, eng;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    int64_t n = 0, m = 0;
    char name[64] = "";
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    CHECK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    CHECK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CHECK(hipdnnBackendFinalize(heur));
    CHECK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, NULL));
    if (rank >= n || n > 64) {
        hipdnnBackendDestroyDescriptor(heur);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++)
        CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    CHECK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, n, &n, cfgs));
    hipdnnBackendDescriptor_t cfg = cfgs[rank];
    CHECK(hipdnnBackendFinalize(cfg));
    CHECK(hipdnnBackendGetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &m, &eng));
    CHECK(hipdnnBackendGetAttribute(eng, HIPDNN_ATTR_ENGINE_NAME_EXT, HIPDNN_TYPE_CHAR, sizeof name, &m, name));
    if (strcmp(name, "jit_fused") == 0) {
        CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
        CHECK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
        CHECK(hipdnnBackendFinalize(plan));
    }
    if (label != NULL && len > 0) { /* the knob choices, "defaults" when none */
        hipdnnBackendDescriptor_t ch[32];
        int64_t k = 0;
        CHECK(hipdnnBackendGetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 32, &k, ch));
        snprintf(label, len, "%s", k == 0 ? "defaults" : "");
        for (int64_t i = 0; i < k; i++) {
            char id[64] = "";
            int64_t v = 0, c = 0;
            CHECK(hipdnnBackendGetAttribute(ch[i], HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, HIPDNN_TYPE_CHAR, sizeof id, &c, id));
            CHECK(hipdnnBackendGetAttribute(ch[i], HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, HIPDNN_TYPE_INT64, 1, &c, &v));
            size_t used = strlen(label);
            snprintf(label + used, len - used, "%s%s=%lld", i ? "," : "", strchr(id, '.') ? strchr(id, '.') + 1 : id,
                     (long long)v);
            hipdnnBackendDestroyDescriptor(ch[i]);
        }
    }
    for (int64_t i = 0; i < n; i++)
        hipdnnBackendDestroyDescriptor(cfgs[i]);
    hipdnnBackendDestroyDescriptor(eng), hipdnnBackendDestroyDescriptor(heur);
    return plan;
}

hipdnnBackendDescriptor_t bench_jit_plan(hipdnnBackendDescriptor_t g)
{
    hipdnnBackendDescriptor_t plan = bench_jit_plan_ranked(g, 0, NULL, 0);
    if (plan == NULL) {
        fprintf(stderr, "the heuristics' first engine is not jit_fused\n");
        exit(1);
    }
    return plan;
}

hipdnnBackendDescriptor_t bench_engine_plan(hipdnnBackendDescriptor_t g, const char *engine)
{
    int64_t id;
    hipdnnBackendDescriptor_t e, cfg, plan = NULL;
    CHECK(hipdnnGetEngineIdByName_ext(bench_handle, engine, &id));
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    CHECK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CHECK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id));
    if (hipdnnBackendFinalize(e) != HIPDNN_STATUS_SUCCESS) { /* the engine does not take the graph */
        hipdnnBackendDestroyDescriptor(e);
        return NULL;
    }
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    CHECK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e));
    CHECK(hipdnnBackendFinalize(cfg));
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    CHECK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    CHECK(hipdnnBackendFinalize(plan));
    hipdnnBackendDestroyDescriptor(cfg), hipdnnBackendDestroyDescriptor(e);
    return plan;
}

hipdnnBackendDescriptor_t bench_pack(int n, int64_t *uids, void **ptrs)
{
    return bench_pack_ws(n, uids, ptrs, NULL);
}

hipdnnBackendDescriptor_t bench_pack_ws(int n, int64_t *uids, void **ptrs, void *ws)
{
    hipdnnBackendDescriptor_t p;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &p));
    CHECK(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, n, uids));
    CHECK(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, n, ptrs));
    CHECK(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &ws));
    CHECK(hipdnnBackendFinalize(p));
    return p;
}

void *bench_random_bf16(size_t n)
{
    unsigned short *h = malloc(n * 2 + 2);
    unsigned s = (unsigned)rand() | 1u;
    for (size_t i = 0; i < n; i++) { /* xorshift: fast enough for gigabytes of input */
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        float f = (float)(s >> 8) * (4.0f / 16777216.0f) - 2.0f;
        unsigned u;
        memcpy(&u, &f, 4);
        h[i] = (unsigned short)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
    }
    void *dev;
    CHECK(hipdnnDeviceMalloc_ext(&dev, n * 2));
    CHECK(hipdnnMemcpyHostToDevice_ext(dev, h, n * 2));
    free(h);
    return dev;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

float bench_median_ms(hipdnnBackendDescriptor_t plan, hipdnnBackendDescriptor_t *packs, int n_packs,
                      int warmup, int reps)
{
    for (int i = 0; i < warmup; i++)
        CHECK(hipdnnBackendExecute(bench_handle, plan, packs[i % n_packs]));
    /* PyTorch's timer (bench/torch_timing.py) exactly: an event pair around each call, all recorded
     * before the first is read, so the queue stays ahead of the GPU and the pairs time the GPU's
     * work, not this thread's (the host cost of a call is bench_execute's) */
    void **ev = malloc(sizeof *ev * 2 * (size_t)reps);
    float *ms = malloc(sizeof *ms * (size_t)reps);
    if (ev == NULL || ms == NULL) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < 2 * reps; i++)
        ev[i] = bench_event_create();
    for (int i = 0; i < reps; i++) {
        bench_event_record(ev[2 * i]);
        CHECK(hipdnnBackendExecute(bench_handle, plan, packs[i % n_packs]));
        bench_event_record(ev[2 * i + 1]);
    }
    for (int i = 0; i < reps; i++)
        ms[i] = bench_event_ms(ev[2 * i], ev[2 * i + 1]);
    qsort(ms, (size_t)reps, sizeof *ms, cmp_float);
    float median = ms[reps / 2];
    for (int i = 0; i < 2 * reps; i++)
        bench_event_destroy(ev[i]);
    free(ms), free(ev);
    return median;
}

hipdnnBackendDescriptor_t bench_jit_plan_with(hipdnnBackendDescriptor_t g, int n_knobs, const char *const *ids,
                                              const int64_t *values)
{
    int64_t id;
    hipdnnBackendDescriptor_t eng, cfg, plan;
    CHECK(hipdnnGetEngineIdByName_ext(bench_handle, "jit_fused", &id));
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &eng));
    CHECK(hipdnnBackendSetAttribute(eng, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    CHECK(hipdnnBackendSetAttribute(eng, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id));
    CHECK(hipdnnBackendFinalize(eng));
    cfg = config_with(eng, n_knobs, ids, values);
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    CHECK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg));
    CHECK(hipdnnBackendFinalize(plan));
    hipdnnBackendDestroyDescriptor(cfg), hipdnnBackendDestroyDescriptor(eng);
    return plan;
}

float bench_plan_ms(hipdnnBackendDescriptor_t plan, int n, int64_t *uids, void **ptrs, int stride, int n_sets,
                    int warmup, int reps)
{
    int64_t ws = 0, cnt = 0;
    CHECK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &cnt, &ws));
    void *wsp = NULL;
    if (ws > 0)
        CHECK(hipdnnDeviceMalloc_ext(&wsp, (size_t)ws));
    hipdnnBackendDescriptor_t packs[8];
    n_sets = n_sets < 8 ? n_sets : 8;
    for (int s = 0; s < n_sets; s++)
        packs[s] = bench_pack_ws(n, uids, ptrs + (size_t)s * (size_t)stride, wsp);
    float ms = bench_median_ms(plan, packs, n_sets, warmup, reps);
    for (int s = 0; s < n_sets; s++)
        hipdnnBackendDestroyDescriptor(packs[s]);
    if (wsp != NULL)
        hipdnnDeviceFree_ext(wsp);
    return ms;
}
