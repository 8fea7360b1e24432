/* test_engines_unfused.c — the unfused JIT engine through the public API: enumerated (count,
 * id by name, info, name order), ranked between jit_fused and reference by the heuristics, its
 * ENGINE descriptor (the JIT engines' knobs, behavior note), engine-config and plan workspace sizes, and a
 * NOT_SUPPORTED with a reason where there is no GPU. Includes nothing but the public header.
 *
 * Graph: x [37, 5] fp32 -> ABS -> v1 (virtual fp32) -> NEG -> v2 (virtual fp16) -> RELU -> y.
 * jit_fused runs it as one pointwise region (no workspace); jit_unfused as three kernels with
 * v1 and v2 in the workspace: 740 -> 768 and 370 -> 512 bytes (256-byte slots), 1280 in all.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

static hipdnnHandle_t handle;
static hipdnnBackendDescriptor_t graph, ts[4], ops[3];

static hipdnnBackendDescriptor_t tensor(int64_t uid, hipdnnDataType_t dt, bool is_virtual)
{
    int64_t dims[] = {37, 5}, strides[] = {5, 1};
    hipdnnBackendDescriptor_t t;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 2, dims));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, 2, strides));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &is_virtual));
    TU_OK(hipdnnBackendFinalize(t));
    return t;
}

static void setup(void)
{
    TU_OK(hipdnnCreate(&handle));
    ts[0] = tensor(1, HIPDNN_DATA_FLOAT, false), ts[1] = tensor(2, HIPDNN_DATA_FLOAT, true);
    ts[2] = tensor(3, HIPDNN_DATA_HALF, true), ts[3] = tensor(4, HIPDNN_DATA_FLOAT, false);
    ops[0] = tu_unary(HIPDNN_POINTWISE_ABS, ts[0], ts[1]);
    ops[1] = tu_unary(HIPDNN_POINTWISE_NEG, ts[1], ts[2]);
    ops[2] = tu_unary(HIPDNN_POINTWISE_RELU_FWD, ts[2], ts[3]);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 3, ops));
    TU_OK(hipdnnBackendFinalize(graph));
}

static void teardown(void)
{
    hipdnnBackendDestroyDescriptor(graph);
    for (int i = 0; i < 3; i++)
        hipdnnBackendDestroyDescriptor(ops[i]);
    for (int i = 0; i < 4; i++)
        hipdnnBackendDestroyDescriptor(ts[i]);
    hipdnnDestroy(handle);
}

TestSuite(engines_unfused, .init = setup, .fini = teardown);

static int64_t id_of(const char *name)
{
    int64_t id = -1;
    TU_OK(hipdnnGetEngineIdByName_ext(handle, name, &id));
    return id;
}

/* An ENGINE for engine `id` on the graph; its finalize status in *st. */
static hipdnnBackendDescriptor_t engine(int64_t id, hipdnnStatus_t *st)
{
    hipdnnBackendDescriptor_t e;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, DESC, 1, &graph));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id));
    *st = hipdnnBackendFinalize(e);
    return e;
}

/* Whether the JIT engines can run here (a GPU present): jit_fused takes this graph then. */
static bool have_gpu(void)
{
    hipdnnStatus_t st;
    hipdnnBackendDescriptor_t e = engine(id_of("jit_fused"), &st);
    hipdnnBackendDestroyDescriptor(e);
    return st == HIPDNN_STATUS_SUCCESS;
}

Test(engines_unfused, enumerated)
{
    size_t n = 0;
    TU_OK(hipdnnGetEngineCount_ext(handle, &n));
    cr_assert_eq(n, 3);
    int64_t fused = id_of("jit_fused"), unfused = id_of("jit_unfused"), ref = id_of("reference");
    cr_expect(fused != unfused && unfused != ref && fused != ref);
    /* info by index lists the engines in name order */
    const char *want[] = {"jit_fused", "jit_unfused", "reference"}, *types[] = {"gpu", "gpu", "host"};
    for (size_t i = 0; i < 3; i++) {
        char name[32], type[16];
        size_t name_len = sizeof name, type_len = sizeof type;
        int64_t id = -1;
        TU_OK(hipdnnGetEngineInfo_ext(handle, i, &id, name, &name_len, NULL, NULL, NULL, NULL, type, &type_len));
        cr_expect_str_eq(name, want[i]);
        cr_expect_str_eq(type, types[i]);
        cr_expect_eq(id, id_of(want[i]));
    }
}

Test(engines_unfused, engine_knobs_notes_or_reason)
{
    bool gpu = have_gpu();
    hipdnnStatus_t st;
    hipdnnBackendDescriptor_t e = engine(id_of("jit_unfused"), &st);
    if (!gpu) {
        cr_expect_eq(st, HIPDNN_STATUS_NOT_SUPPORTED);
        char msg[512];
        hipdnnGetLastErrorString(msg, sizeof msg);
        cr_expect(strstr(msg, "jit_unfused") != NULL && strstr(msg, "GPU") != NULL, "%s", msg);
        hipdnnBackendDestroyDescriptor(e);
        return;
    }
    TU_OK(st);
    char name[32];
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_NAME_EXT, HIPDNN_TYPE_CHAR, sizeof name, &n, name));
    cr_expect_str_eq(name, "jit_unfused");
    TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_KNOB_INFO, DESC, 0, &n, NULL));
    int64_t fused_knobs = 0;
    hipdnnBackendDescriptor_t f = engine(id_of("jit_fused"), &st);
    TU_OK(hipdnnBackendGetAttribute(f, HIPDNN_ATTR_ENGINE_KNOB_INFO, DESC, 0, &fused_knobs, NULL));
    hipdnnBackendDestroyDescriptor(f);
    cr_expect(n >= 2 && n == fused_knobs, "the JIT engines share their knobs (%lld, %lld)", (long long)n,
              (long long)fused_knobs);
    hipdnnBackendBehaviorNote_t note = (hipdnnBackendBehaviorNote_t)-1;
    TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_BEHAVIOR_NOTE, HIPDNN_TYPE_BEHAVIOR_NOTE, 1, &n, &note));
    cr_expect_eq(n, 1);
    cr_expect_eq(note, HIPDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION);
    hipdnnBackendDestroyDescriptor(e);
}

/* Workspace of the engine config and of the plan built from it. */
static void expect_workspace(const char *engine_name, int64_t want)
{
    hipdnnStatus_t st;
    hipdnnBackendDescriptor_t e = engine(id_of(engine_name), &st), cfg, plan;
    TU_OK(st);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    TU_OK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &e));
    TU_OK(hipdnnBackendFinalize(cfg));
    int64_t ws = -1, n = 0;
    TU_OK(hipdnnBackendGetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n, &ws));
    cr_expect_eq(ws, want, "%s: engine config workspace %lld", engine_name, (long long)ws);
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DESC, 1, &cfg));
    TU_OK(hipdnnBackendFinalize(plan));
    ws = -1;
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n, &ws));
    cr_expect_eq(ws, want, "%s: plan workspace %lld", engine_name, (long long)ws);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(cfg);
    hipdnnBackendDestroyDescriptor(e);
}

Test(engines_unfused, workspace_sizes)
{
    if (!have_gpu())
        cr_skip_test("no GPU: the JIT engines do not finalize (tests/unit/engines/test_fe_engines "
                     "checks their workspace sizes without one)");
    expect_workspace("jit_unfused", 768 + 512);
    expect_workspace("jit_fused", 0);
}

/* Heuristics: with a GPU every jit_fused config, then jit_unfused's (defaults, then 1-wide),
 * then the reference; without one, the reference alone. */
Test(engines_unfused, heuristics_rank)
{
    hipdnnBackendDescriptor_t heur, cfgs[64];
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, DESC, 1, &graph));
    TU_OK(hipdnnBackendFinalize(heur));
    int64_t n = 0, got = 0;
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, 0, &n, NULL));
    bool gpu = have_gpu();
    cr_assert(gpu ? n >= 4 && n <= 64 : n == 1, "%lld configs", (long long)n);
    for (int64_t i = 0; i < n; i++)
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, n, &got, cfgs));
    int64_t rank[3] = {id_of("jit_fused"), id_of("jit_unfused"), id_of("reference")};
    int at = 0, seen[3] = {0};
    for (int64_t i = 0; i < n; i++) {
        TU_OK(hipdnnBackendFinalize(cfgs[i]));
        hipdnnBackendDescriptor_t e;
        int64_t one = 0, id = -1;
        TU_OK(hipdnnBackendGetAttribute(cfgs[i], HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &one, &e));
        TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &one, &id));
        while (at < 3 && rank[at] != id)
            at++; /* engines appear in rank order, never going back */
        cr_assert_lt(at, 3, "config %lld: engine %lld out of rank order", (long long)i, (long long)id);
        seen[at]++;
        hipdnnBackendDestroyDescriptor(e);
        hipdnnBackendDestroyDescriptor(cfgs[i]);
    }
    cr_expect_eq(seen[2], 1, "the reference engine last, once");
    if (gpu) {
        cr_expect_geq(seen[0], 1, "jit_fused first");
        cr_expect_eq(seen[1], 2, "jit_unfused: defaults and 1-wide");
    }
    hipdnnBackendDestroyDescriptor(heur);
}
