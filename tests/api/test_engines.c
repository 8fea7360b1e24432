/* test_engines.c — the execution-side descriptors through the public API: ENGINEHEUR (modes,
 * results protocol, preferred engine, find-first), ENGINE (global index, name, knobs, notes,
 * refusals), ENGINECFG (knob choices, workspace), EXECUTION_PLAN (tensor uids, engine index,
 * workspace), and the refusal of INTERMEDIATE_INFO / LAYOUT_INFO with a reason.
 * Includes nothing but the public header.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"
#include "../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

static hipdnnHandle_t handle;
static hipdnnBackendDescriptor_t graph, x, y, op;

static hipdnnBackendDescriptor_t tensor(int64_t uid, bool is_virtual)
{
    int64_t dims[] = {2, 3};
    return tu_tensor(uid, HIPDNN_DATA_FLOAT, 2, dims, is_virtual, NULL, 0);
}

/* graph: y = relu(x), uids 7 -> 9 */
static void setup(void)
{
    TU_OK(hipdnnCreate(&handle));
    x = tensor(7, false), y = tensor(9, false);
    hipdnnPointwiseMode_t mode = HIPDNN_POINTWISE_RELU_FWD;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &x));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, &y));
    TU_OK(hipdnnBackendFinalize(op));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &op));
    TU_OK(hipdnnBackendFinalize(graph));
}

static void teardown(void)
{
    hipdnnBackendDestroyDescriptor(graph);
    hipdnnBackendDestroyDescriptor(op);
    hipdnnBackendDestroyDescriptor(x);
    hipdnnBackendDestroyDescriptor(y);
    hipdnnDestroy(handle);
}

TestSuite(engines, .init = setup, .fini = teardown);

static int64_t reference_id_of(hipdnnHandle_t h)
{
    int64_t id = -1;
    TU_OK(hipdnnGetEngineIdByName_ext(h, "reference", &id));
    return id;
}

static int64_t reference_id(void) { return reference_id_of(handle); }

static hipdnnBackendDescriptor_t engine(int64_t id, hipdnnStatus_t want)
{
    hipdnnBackendDescriptor_t e;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, DESC, 1, &graph));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id));
    cr_assert_eq(hipdnnBackendFinalize(e), want);
    return e;
}

Test(engines, heuristics_results_protocol)
{
    hipdnnBackendDescriptor_t heur, cfgs[4];
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    cr_expect_eq(hipdnnBackendFinalize(heur), HIPDNN_STATUS_BAD_PARAM, "mode and graph are required");
    hipdnnBackendHeurMode_t bad = (hipdnnBackendHeurMode_t)7;
    cr_expect_eq(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &bad),
                 HIPDNN_STATUS_BAD_PARAM);
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, DESC, 1, &graph));
    int64_t n = -1;
    cr_expect_eq(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, 0, &n, NULL),
                 HIPDNN_STATUS_NOT_INITIALIZED, "results need a finalized heuristic");
    TU_OK(hipdnnBackendFinalize(heur));
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, 0, &n, NULL));
    cr_assert_geq(n, 1);
    cr_assert_leq(n, 4);
    for (int64_t i = 0; i < n; i++)
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    int64_t got = 0;
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, n, &got, cfgs));
    cr_expect_eq(got, n);
    /* the last ranked engine is the reference engine */
    TU_OK(hipdnnBackendFinalize(cfgs[n - 1]));
    hipdnnBackendDescriptor_t e;
    int64_t one = 0, id = -1;
    TU_OK(hipdnnBackendGetAttribute(cfgs[n - 1], HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &one, &e));
    TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &one, &id));
    cr_expect_eq(id, reference_id());
    hipdnnBackendDestroyDescriptor(e);
    for (int64_t i = 0; i < n; i++)
        hipdnnBackendDestroyDescriptor(cfgs[i]);
    /* a finalized config cannot take results again; a non-config is refused */
    hipdnnBackendDescriptor_t not_cfg = x;
    cr_expect_neq(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, 1, &got, &not_cfg),
                  HIPDNN_STATUS_SUCCESS);
    hipdnnBackendDestroyDescriptor(heur);
}

Test(engines, engine_descriptor)
{
    hipdnnBackendDescriptor_t e = engine(reference_id(), HIPDNN_STATUS_SUCCESS);
    char name[32];
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_NAME_EXT, HIPDNN_TYPE_CHAR, sizeof name, &n, name));
    cr_expect_str_eq(name, "reference");
    cr_expect_eq(n, (int64_t)strlen("reference") + 1);
    TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_KNOB_INFO, DESC, 0, &n, NULL));
    cr_expect_eq(n, 0, "the reference engine has no knobs");
    TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_BEHAVIOR_NOTE, HIPDNN_TYPE_BEHAVIOR_NOTE, 0, &n, NULL));
    cr_expect_eq(n, 0, "no runtime compilation in the reference engine");
    cr_expect_eq(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_LAYOUT_INFO, DESC, 0, &n, NULL),
                 HIPDNN_STATUS_NOT_SUPPORTED);
    cr_expect_eq(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &n),
                 HIPDNN_STATUS_NOT_INITIALIZED);
    hipdnnBackendDestroyDescriptor(e);
    hipdnnBackendDestroyDescriptor(engine(424242, HIPDNN_STATUS_BAD_PARAM));
}

Test(engines, config_knobs_and_plan)
{
    hipdnnBackendDescriptor_t e = engine(reference_id(), HIPDNN_STATUS_SUCCESS), cfg, choice, plan;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    TU_OK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &e));
    /* a knob the engine does not have */
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &choice));
    int64_t v = 4;
    TU_OK(hipdnnBackendSetAttribute(choice, HIPDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, HIPDNN_TYPE_CHAR, 8, "no.such"));
    TU_OK(hipdnnBackendSetAttribute(choice, HIPDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, HIPDNN_TYPE_INT64, 1, &v));
    TU_OK(hipdnnBackendFinalize(choice));
    TU_OK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, DESC, 1, &choice));
    cr_expect_eq(hipdnnBackendFinalize(cfg), HIPDNN_STATUS_BAD_PARAM);
    char msg[512];
    hipdnnGetLastErrorString(msg, sizeof msg);
    cr_expect_not_null(strstr(msg, "no.such"), "%s", msg);
    hipdnnBackendDestroyDescriptor(cfg);

    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    TU_OK(hipdnnBackendSetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &e));
    TU_OK(hipdnnBackendFinalize(cfg));
    int64_t ws = -1, n = 0;
    TU_OK(hipdnnBackendGetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n, &ws));
    cr_expect_eq(ws, 0, "relu of a graph input into a graph output needs no workspace");
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    cr_expect_eq(hipdnnBackendFinalize(plan), HIPDNN_STATUS_BAD_PARAM, "the engine config is required");
    TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DESC, 1, &cfg));
    cr_expect_eq(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, DESC, 1, &cfg),
                 HIPDNN_STATUS_BAD_PARAM, "the plan's kernel cache must be a KERNEL_CACHE descriptor");
    TU_OK(hipdnnBackendFinalize(plan));
    int64_t uids[4] = {0}, id = -1;
    cr_expect_eq(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_TENSOR_UIDS_EXT, HIPDNN_TYPE_INT64, 1, &n, uids),
                 HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, "all uids must fit");
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_TENSOR_UIDS_EXT, HIPDNN_TYPE_INT64, 4, &n, uids));
    cr_expect_eq(n, 2);
    cr_expect(uids[0] == 7 && uids[1] == 9, "uids %lld %lld", (long long)uids[0], (long long)uids[1]);
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_GLOBAL_INDEX_EXT, HIPDNN_TYPE_INT64, 1, &n, &id));
    cr_expect_eq(id, reference_id());
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &n, &ws));
    cr_expect_eq(ws, 0);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(cfg);
    hipdnnBackendDestroyDescriptor(choice);
    hipdnnBackendDestroyDescriptor(e);
}

Test(engines, preferred_engine_and_find_first)
{
    int64_t id = reference_id(), n = 0;
    hipdnnBackendDescriptor_t g2, heur;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g2));
    TU_OK(hipdnnBackendSetAttribute(g2, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(g2, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &op));
    TU_OK(hipdnnBackendSetAttribute(g2, HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT, HIPDNN_TYPE_INT64, 1, &id));
    TU_OK(hipdnnBackendFinalize(g2));
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    bool first = true;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, DESC, 1, &g2));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_FIND_FIRST_EXT, HIPDNN_TYPE_BOOLEAN, 1, &first));
    TU_OK(hipdnnBackendFinalize(heur));
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, 0, &n, NULL));
    cr_expect_eq(n, 1, "find-first keeps one result");
    hipdnnBackendDescriptor_t cfg, e;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, 1, &n, &cfg));
    TU_OK(hipdnnBackendFinalize(cfg));
    TU_OK(hipdnnBackendGetAttribute(cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &n, &e));
    int64_t got = -1;
    TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &n, &got));
    cr_expect_eq(got, id, "the preferred engine ranks first");
    hipdnnBackendDestroyDescriptor(e), hipdnnBackendDestroyDescriptor(cfg);
    hipdnnBackendDestroyDescriptor(heur), hipdnnBackendDestroyDescriptor(g2);
}

Test(engines, info_descriptors_refuse_with_a_reason)
{
    hipdnnBackendDescriptorType_t types[] = {HIPDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR,
                                             HIPDNN_BACKEND_LAYOUT_INFO_DESCRIPTOR};
    for (int i = 0; i < 2; i++) {
        hipdnnBackendDescriptor_t d;
        TU_OK(hipdnnBackendCreateDescriptor(types[i], &d));
        cr_expect_eq(hipdnnBackendFinalize(d), HIPDNN_STATUS_NOT_SUPPORTED);
        char msg[512];
        hipdnnGetLastErrorString(msg, sizeof msg);
        cr_expect_not_null(strstr(msg, "not meaningful"), "%s", msg);
        TU_OK(hipdnnBackendDestroyDescriptor(d));
    }
}

Test(engines, graph_reports_engine_count)
{
    int64_t n = 0, count = -1;
    size_t engines = 0;
    TU_OK(hipdnnGetEngineCount_ext(handle, &engines));
    TU_OK(hipdnnBackendGetAttribute(graph, HIPDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT, HIPDNN_TYPE_INT64, 1, &n, &count));
    cr_expect_eq(count, (int64_t)engines);
}

/* A graph no engine runs (a custom op of an id nobody implements): heuristics finalize is
 * NOT_SUPPORTED and its message gives every engine's reason, so the caller does not read an
 * empty ranking with an unrelated message left in the last-error slot. */
Test(engines, no_engine_for_the_graph_says_why, .init = NULL, .fini = NULL)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    hipdnnBackendDescriptor_t in = tensor(1, false), out = tensor(2, false), custom, g, heur;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT, &custom));
    TU_OK(hipdnnBackendSetAttribute(custom, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT, HIPDNN_TYPE_CHAR, 14,
                                    "nobody.runs.it"));
    TU_OK(hipdnnBackendSetAttribute(custom, HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT, DESC, 1, &in));
    TU_OK(hipdnnBackendSetAttribute(custom, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, DESC, 1, &out));
    TU_OK(hipdnnBackendFinalize(custom));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &custom));
    TU_OK(hipdnnBackendFinalize(g));
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, DESC, 1, &g));
    TU_EQ(hipdnnBackendFinalize(heur), HIPDNN_STATUS_NOT_SUPPORTED);
    const char *msg = tu_msg();
    cr_expect(strstr(msg, "no engine supports this graph (") != NULL, "%s", msg);
    cr_expect(strstr(msg, "jit_fused: ") && strstr(msg, "jit_unfused: ") && strstr(msg, "reference: "),
              "every engine's reason: %s", msg);
    cr_expect(strstr(msg, "nobody.runs.it") != NULL, "the reasons name the op: %s", msg);
    hipdnnBackendDescriptor_t all[] = {heur, g, custom, in, out};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        hipdnnBackendDestroyDescriptor(all[i]);
    hipdnnDestroy(h);
}

/* A tensor with a ragged offset (the packed THD layout) is never run as if it were dense: here the
 * attention example with Q made ragged but no sequence lengths (which say which rows of each batch
 * exist) is refused with the reason, on the reference engine too (packed attention that runs:
 * test_ragged_sdpa.c). */
Test(engines, a_ragged_tensor_is_refused_with_the_reason, .init = NULL, .fini = NULL)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    char path[512];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/examples/graphs/sdpa_causal.json", HIPDNN_SOURCE_DIR);
    char *text = tu_read_file(path, &n), *q = strstr(text, "\"name\": \"q\",");
    cr_assert_not_null(q, "the example names its q tensor");
    /* q names offset tensor 99, which joins the tensor list */
    static const char ragged[] = "\"ragged_offset_tensor_uid\": 99, ";
    static const char ro[] = "{\"uid\": 99, \"data_type\": \"INT32\", \"dims\": [5, 1, 1, 1], "
                             "\"strides\": [1, 1, 1, 1]}, ";
    char *list = strstr(text, "\"tensors\": [");
    cr_assert_not_null(list);
    size_t at_list = (size_t)(list - text) + strlen("\"tensors\": ["), at = (size_t)(q - text);
    size_t len = n + sizeof ragged - 1 + sizeof ro - 1;
    char *edited = malloc(len + 1);
    memcpy(edited, text, at_list);
    memcpy(edited + at_list, ro, sizeof ro - 1);
    memcpy(edited + at_list + sizeof ro - 1, text + at_list, at - at_list);
    memcpy(edited + at + sizeof ro - 1, ragged, sizeof ragged - 1);
    memcpy(edited + at + sizeof ro - 1 + sizeof ragged - 1, q, n - at + 1);
    hipdnnBackendDescriptor_t g = tu_json_graph(h, edited, len, "sdpa_causal.json, ragged q"), plan = NULL;
    TU_EQ(tu_try_plan(h, g, reference_id_of(h), &plan), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_expect(strstr(tu_msg(), "a packed (ragged) operand needs SEQ_LEN_Q and SEQ_LEN_KV") != NULL, "%s", tu_msg());
    cr_expect_null(plan);
    hipdnnBackendDestroyDescriptor(g);
    free(edited);
    free(text);
    hipdnnDestroy(h);
}
