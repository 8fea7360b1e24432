/* fault_scenario.c — the GPU scenario of the fault sweeps (contract: fault_scenario.h): a graph
 * from tests/fault/graphs through heuristics, plan, device memory, execute and teardown on the
 * fake runtime (fault_rt.c), every call through FS_STEP.
 * Does not own: the faults (the sweeps' injectors), the device (fault_rt.c).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tu.h"
#include "fault_rt.h"
#include "fault_scenario.h"
#include "engines/fe_jit.h"
#include "hipdnn_jit.h"
#include "runtime/rt.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR
#define MAX_CFGS 32
#define MAX_UIDS 16

/* ---- steps ---------------------------------------------------------------------------------------- */

bool fs_failed(fs_run *r, const char *call, hipdnnStatus_t st, long fired_before)
{
    bool fired = r->inj->fired() != fired_before;
    if (st == HIPDNN_STATUS_SUCCESS) {
        r->absorbed += fired;
        return false;
    }
    cr_assert(fired, "%s failed without an injected fault (%s): %s [%s]", call, r->inj->name, tu_st(st), tu_msg());
    cr_assert(st > HIPDNN_STATUS_SUCCESS && st <= HIPDNN_STATUS_VERSION_MISMATCH, "%s returned %d, not a status",
              call, (int)st);
    cr_assert_neq(tu_msg()[0], '\0', "%s failed without a message", call);
    cr_assert_not_null(r->inj->explain, "%s failed on an injected %s fault, which must never fail a call: %s [%s]",
                       call, r->inj->name, tu_st(st), tu_msg());
    r->inj->explain(call, st);
    r->failures++;
    r->inj->off();
    return true;
}

void fs_retried(const char *call, hipdnnStatus_t st)
{
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "retrying %s after an injected failure: %s [%s]", call, tu_st(st),
                 tu_msg());
}

/* ---- the graph's tensors ---------------------------------------------------------------------------- */

static char *graph_text(const char *file, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/fault/graphs/%s", HIPDNN_SOURCE_DIR, file);
    char *text = tu_read_file(path, len);
    cr_assert_not_null(text, "%s", path);
    return text;
}

/* Bytes of tensor `uid` of the JSON graph (packed: every graph file's tensors are). */
static size_t tensor_bytes(const char *text, int64_t uid)
{
    json_t *doc = json_loads(text, 0, NULL);
    cr_assert_not_null(doc);
    size_t i, bytes = 0;
    json_t *t;
    json_array_foreach(json_object_get(doc, "tensors"), i, t) {
        if (json_integer_value(json_object_get(t, "uid")) != uid)
            continue;
        const char *dt = json_string_value(json_object_get(t, "data_type"));
        bytes = strcmp(dt, "FLOAT") == 0 ? 4 : 2;
        size_t d;
        json_t *dim;
        json_array_foreach(json_object_get(t, "dims"), d, dim)
            bytes *= (size_t)json_integer_value(dim);
    }
    json_decref(doc);
    cr_assert_gt(bytes, 0, "uid %lld is not a tensor of the graph", (long long)uid);
    return bytes;
}

/* ---- the scenario's parts ------------------------------------------------------------------------------ */

static hipdnnBackendDescriptor_t graph(fs_run *r, hipdnnHandle_t h, const char *text, size_t len)
{
    hipdnnBackendDescriptor_t g = NULL;
    FS_STEP(r, hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, len));
    FS_STEP(r, hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    FS_STEP(r, hipdnnBackendFinalize(g));
    return g;
}

/* The heuristics' first config of `engine` (finalized, as they all are to read their engine). */
static hipdnnBackendDescriptor_t config(fs_run *r, hipdnnHandle_t h, hipdnnBackendDescriptor_t g, const char *engine)
{
    int64_t want = -1, n = 0;
    FS_STEP(r, hipdnnGetEngineIdByName_ext(h, engine, &want));
    hipdnnBackendDescriptor_t heur = NULL, cfgs[MAX_CFGS], chosen = NULL;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    FS_STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    FS_STEP(r, hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    FS_STEP(r, hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, DESC, 1, &g));
    FS_STEP(r, hipdnnBackendFinalize(heur));
    FS_STEP(r, hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, 0, &n, NULL));
    cr_assert(n >= 1 && n <= MAX_CFGS, "%lld heuristic results", (long long)n);
    int64_t cap = n;
    for (int64_t i = 0; i < cap; i++)
        FS_STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    FS_STEP(r, hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, cap, &n, cfgs));
    for (int64_t i = 0; i < cap; i++) {
        hipdnnBackendDescriptor_t e = NULL;
        int64_t one = 0, id = -1;
        FS_STEP(r, hipdnnBackendFinalize(cfgs[i]));
        FS_STEP(r, hipdnnBackendGetAttribute(cfgs[i], HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &one, &e));
        FS_STEP(r, hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &one, &id));
        FS_STEP(r, hipdnnBackendDestroyDescriptor(e));
        if (id == want && chosen == NULL)
            chosen = cfgs[i];
        else
            FS_STEP(r, hipdnnBackendDestroyDescriptor(cfgs[i]));
    }
    FS_STEP(r, hipdnnBackendDestroyDescriptor(heur));
    cr_assert_not_null(chosen, "the heuristics rank no config of %s (is the fake GPU seen?)", engine);
    return chosen;
}

/* A config of cfg's engine with one knob set (cfg destroyed). */
static hipdnnBackendDescriptor_t with_knob(fs_run *r, hipdnnBackendDescriptor_t cfg, const char *id, int64_t value)
{
    hipdnnBackendDescriptor_t e = NULL, kc = NULL, out = NULL;
    int64_t one = 0;
    FS_STEP(r, hipdnnBackendGetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &one, &e));
    FS_STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &kc));
    FS_STEP(r, hipdnnBackendSetAttribute(kc, HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, HIPDNN_TYPE_CHAR, (int64_t)strlen(id),
                                         id));
    FS_STEP(r, hipdnnBackendSetAttribute(kc, HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, HIPDNN_TYPE_INT64, 1, &value));
    FS_STEP(r, hipdnnBackendFinalize(kc));
    FS_STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &out));
    FS_STEP(r, hipdnnBackendSetAttribute(out, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &e));
    FS_STEP(r, hipdnnBackendSetAttribute(out, HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, DESC, 1, &kc));
    FS_STEP(r, hipdnnBackendFinalize(out));
    FS_STEP(r, hipdnnBackendDestroyDescriptor(kc));
    FS_STEP(r, hipdnnBackendDestroyDescriptor(e));
    FS_STEP(r, hipdnnBackendDestroyDescriptor(cfg));
    return out;
}

static hipdnnBackendDescriptor_t kernel_cache(fs_run *r, const char *dir)
{
    hipdnnBackendDescriptor_t c = NULL;
    FS_STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &c));
    FS_STEP(r, hipdnnBackendSetAttribute(c, HIPDNN_ATTR_KERNEL_CACHE_DIRECTORY_EXT, HIPDNN_TYPE_CHAR,
                                         (int64_t)strlen(dir), dir));
    FS_STEP(r, hipdnnBackendFinalize(c));
    return c;
}

static hipdnnBackendDescriptor_t plan(fs_run *r, hipdnnHandle_t h, hipdnnBackendDescriptor_t cfg,
                                      hipdnnBackendDescriptor_t cache)
{
    hipdnnBackendDescriptor_t p = NULL;
    int64_t n = 0;
    FS_STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &p));
    FS_STEP(r, hipdnnBackendSetAttribute(p, HIPDNN_ATTR_EXECUTION_PLAN_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    FS_STEP(r, hipdnnBackendSetAttribute(p, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DESC, 1, &cfg));
    FS_STEP(r, hipdnnBackendSetAttribute(p, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, DESC, 1, &cache));
    FS_STEP(r, hipdnnBackendFinalize(p));
    FS_STEP(r, hipdnnBackendGetAttribute(p, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE_STATS_EXT, HIPDNN_TYPE_INT64, 6,
                                         &n, r->stats));
    return p;
}

typedef struct buffers {
    int n;
    int64_t uids[MAX_UIDS];
    void *ptrs[MAX_UIDS];
    size_t bytes[MAX_UIDS];
    void *ws;
} buffers;

/* The workspace and every tensor the plan binds, in device memory: poisoned, then filled. */
static void device_memory(fs_run *r, hipdnnBackendDescriptor_t p, const char *text, buffers *b)
{
    int64_t ws = 0, n = 0;
    FS_STEP(r, hipdnnBackendGetAttribute(p, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n, &ws));
    if (ws > 0)
        FS_STEP(r, hipdnnDeviceMalloc_ext(&b->ws, (size_t)ws));
    FS_STEP(r, hipdnnBackendGetAttribute(p, HIPDNN_ATTR_EXECUTION_PLAN_TENSOR_UIDS_EXT, HIPDNN_TYPE_INT64, MAX_UIDS,
                                         &n, b->uids));
    cr_assert(n >= 2 && n <= MAX_UIDS);
    for (b->n = 0; b->n < n; b->n++) {
        int i = b->n;
        b->bytes[i] = tensor_bytes(text, b->uids[i]);
        FS_STEP(r, hipdnnDeviceMalloc_ext(&b->ptrs[i], b->bytes[i]));
        void *host = malloc(b->bytes[i]);
        cr_assert_not_null(host);
        tu_bytes(host, b->bytes[i]);
        FS_STEP(r, rt_memset(b->ptrs[i], 0xff, b->bytes[i]));
        FS_STEP(r, hipdnnMemcpyHostToDevice_ext(b->ptrs[i], host, b->bytes[i]));
        free(host);
    }
}

/* hipdnnBackendExecute, with the trace holding this attempt's launches only: a failed attempt may
 * have launched its first kernels before one failed. */
static hipdnnStatus_t execute_traced(hipdnnHandle_t h, hipdnnBackendDescriptor_t p, hipdnnBackendDescriptor_t pack)
{
    fault_rt_trace_reset();
    return hipdnnBackendExecute(h, p, pack);
}

/* Execute between two events, then a sync and the last tensor back. */
static void execute(fs_run *r, hipdnnHandle_t h, hipdnnBackendDescriptor_t p, buffers *b)
{
    hipdnnBackendDescriptor_t pack = NULL;
    FS_STEP(r, hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
    FS_STEP(r, hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, b->n, b->uids));
    FS_STEP(r, hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, b->n,
                                         b->ptrs));
    FS_STEP(r, hipdnnBackendSetAttribute(pack, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &b->ws));
    FS_STEP(r, hipdnnBackendFinalize(pack));
    rt_event ev[2] = {NULL, NULL};
    float ms = -1.0f;
    FS_STEP(r, rt_event_create(&ev[0]));
    FS_STEP(r, rt_event_create(&ev[1]));
    FS_STEP(r, rt_event_record(ev[0], NULL));
    FS_STEP(r, execute_traced(h, p, pack));
    FS_STEP(r, rt_event_record(ev[1], NULL));
    FS_STEP(r, rt_event_elapsed_ms(ev[0], ev[1], &ms));
    cr_expect_geq(ms, 0.0f);
    rt_event_destroy(ev[0]), rt_event_destroy(ev[1]);
    FS_STEP(r, hipdnnStreamSynchronize_ext(h));
    int last = b->n - 1;
    void *out = malloc(b->bytes[last]);
    cr_assert_not_null(out);
    FS_STEP(r, hipdnnMemcpyDeviceToHost_ext(out, b->ptrs[last], b->bytes[last]));
    free(out);
    FS_STEP(r, hipdnnBackendDestroyDescriptor(pack));
}

char *fs_scenario(fs_run *r, const fs_graph *gr, const char *cache_dir)
{
    size_t len = 0;
    char *text = graph_text(gr->file, &len);
    hipdnnHandle_t h = NULL;
    fault_rt_unbind(); /* the run's first device call binds the context */
    FS_STEP(r, hipdnnCreate(&h));
    hipdnnBackendDescriptor_t g = graph(r, h, text, len);
    hipdnnBackendDescriptor_t cfg = config(r, h, g, gr->engine);
    if (gr->knob != NULL)
        cfg = with_knob(r, cfg, gr->knob, gr->knob_value);
    hipdnnBackendDescriptor_t cache = kernel_cache(r, cache_dir);
    hipdnnBackendDescriptor_t p = plan(r, h, cfg, cache);
    buffers b = {0};
    fault_rt_unbind(); /* allocated by a thread that never used the device */
    device_memory(r, p, text, &b);
    execute(r, h, p, &b);
    fault_rt_unbind(); /* freed as by a thread that never used the device */
    for (int i = 0; i < b.n; i++)
        FS_STEP(r, hipdnnDeviceFree_ext(b.ptrs[i]));
    FS_STEP(r, hipdnnDeviceFree_ext(b.ws));
    FS_STEP(r, hipdnnBackendDestroyDescriptor(p));
    FS_STEP(r, hipdnnBackendDestroyDescriptor(cache));
    FS_STEP(r, hipdnnBackendDestroyDescriptor(cfg));
    FS_STEP(r, hipdnnBackendDestroyDescriptor(g));
    FS_STEP(r, hipdnnDestroy(h));
    free(text);
    return strdup(fault_rt_trace());
}

void fs_expect_device_empty(const char *when)
{
    fe_module_unload_idle();
    fault_rt_live l = fault_rt_live_now();
    cr_assert(l.allocs == 0 && l.modules == 0 && l.events == 0 && l.programs == 0,
              "%s: the device still holds %ld allocations (%zu bytes), %ld modules, %ld events, %ld programs",
              when, l.allocs, l.bytes, l.modules, l.events, l.programs);
}
