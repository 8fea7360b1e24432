/* test_graph.c — OPERATIONGRAPH structure rules through the public API.
 *
 * Owns: what finalizing an operation graph checks (hipdnn-api.md §2.3.5, §3.1): a handle and
 * at least one operation, unique tensor UIDs, one producer per tensor, no cycles, no virtual
 * tensor read without a producer, no operation twice; OPS appending across calls and being read
 * back whole and in order; operations appended in any order.
 * Does not own: per-attribute rules (test_descriptors.c), serialization (tests/unit/serialize).
 *
 * Graphs here are chains and small DAGs of pointwise operations on [R, D] FLOAT tensors.
 */
#include <criterion/criterion.h>
#include <hipdnn_backend.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

static hipdnnHandle_t handle;
static int64_t dims[2];

static void setup(void)
{
    TU_OK(hipdnnCreate(&handle));
}

static void teardown(void)
{
    tu_kept_release();
    cr_expect_eq(hipdnnDestroy(handle), HIPDNN_STATUS_SUCCESS);
}


/* A finalized FLOAT tensor [R, D] with the given uid. */
static hipdnnBackendDescriptor_t tensor(int64_t uid, bool is_virtual)
{
    hipdnnBackendDescriptor_t t = NULL;
    hipdnnDataType_t dt = HIPDNN_DATA_FLOAT;
    int64_t strides[2] = {dims[1], 1};
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 2, dims));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, 2, strides));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1,
                                    &is_virtual));
    TU_OK(hipdnnBackendFinalize(t));
    return tu_keep(t);
}

/* A finalized pointwise op: out = in0 (unary) or out = in0 + in1. */
static hipdnnBackendDescriptor_t pw(const char *name, hipdnnBackendDescriptor_t in0,
                                    hipdnnBackendDescriptor_t in1, hipdnnBackendDescriptor_t out)
{
    hipdnnBackendDescriptor_t op = NULL;
    hipdnnPointwiseMode_t mode = in1 != NULL ? HIPDNN_POINTWISE_ADD : HIPDNN_POINTWISE_RELU_FWD;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &in0));
    if (in1 != NULL)
        TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_1_EXT, DESC, 1, &in1));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, &out));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1,
                                    &mode));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_NAME_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(name), name));
    TU_OK(hipdnnBackendFinalize(op));
    return tu_keep(op);
}

/* A graph with the handle set (unless !with_handle) and the ops appended in one call. */
static hipdnnBackendDescriptor_t graph(bool with_handle, int n, hipdnnBackendDescriptor_t *ops)
{
    hipdnnBackendDescriptor_t g = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    if (with_handle)
        TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                        &handle));
    if (n > 0)
        TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, n, ops));
    return tu_keep(g);
}

/* Finalize fails with BAD_PARAM; the message contains `word` (case-sensitive). */
static void expect_refused(hipdnnBackendDescriptor_t g, const char *what, const char *word)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(msg, sizeof msg);
    hipdnnStatus_t st = hipdnnBackendFinalize(g);
    hipdnnGetLastErrorString(msg, sizeof msg);
    cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM, "%s: finalize -> %s [%s]", what, tu_st(st), msg);
    if (word != NULL)
        cr_expect_neq(strstr(msg, word), NULL, "%s: message '%s' lacks '%s'", what, msg, word);
    /* still unfinalized */
    int64_t n = 0;
    cr_expect_eq(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 0, &n, NULL),
                 HIPDNN_STATUS_NOT_INITIALIZED, "%s: refused graph reads as finalized", what);
}

static void random_dims(const char *test)
{
    tu_seed(test);
    dims[0] = tu_range(1, 64);
    dims[1] = tu_range(1, 64);
}

/* A chain x -> op0 -> t0 -> op1 -> t1 ... -> y of n unary ops (intermediates virtual). */
static void chain(int n, int64_t uid0, hipdnnBackendDescriptor_t *ops, hipdnnBackendDescriptor_t *ts)
{
    ts[0] = tensor(uid0, false);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "op%d", i);
        ts[i + 1] = tensor(uid0 + i + 1, i + 1 < n);
        ops[i] = pw(name, ts[i], NULL, ts[i + 1]);
    }
}

/* The names of the ops of a finalized graph, in the order OPS returns them. */
static int op_names(hipdnnBackendDescriptor_t g, char names[][32], int max)
{
    hipdnnBackendDescriptor_t got[64] = {0};
    int64_t n = -1;
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 0, &n, NULL));
    cr_assert(n >= 0 && n <= max && n <= 64, "%lld ops", (long long)n);
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, n, &n, got));
    for (int64_t i = 0; i < n; i++) {
        int64_t len = 0;
        memset(names[i], 0, 32);
        TU_OK(hipdnnBackendGetAttribute(got[i], HIPDNN_ATTR_OPERATION_NAME_EXT, HIPDNN_TYPE_CHAR,
                                        32, &len, names[i]));
        TU_OK(hipdnnBackendDestroyDescriptor(got[i]));
    }
    return (int)n;
}

/* ---- what finalize refuses --------------------------------------------------------------------- */

Test(graph, needs_a_handle, .init = setup, .fini = teardown)
{
    hipdnnBackendDescriptor_t ops[1], ts[2];
    random_dims("graph::needs_a_handle");
    chain(1, 10, ops, ts);
    hipdnnBackendDescriptor_t g = graph(false, 1, ops);
    expect_refused(g, "no handle", "HIPDNN_ATTR_OPERATIONGRAPH_HANDLE");
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                    &handle));
    TU_OK(hipdnnBackendFinalize(g));
    hipdnnHandle_t back = NULL;
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &n,
                                    &back));
    cr_expect_eq(back, handle);
}

Test(graph, needs_operations, .init = setup, .fini = teardown)
{
    hipdnnBackendDescriptor_t g = graph(true, 0, NULL);
    expect_refused(g, "no ops", "HIPDNN_ATTR_OPERATIONGRAPH_OPS");
}

/* Two different tensor descriptors with one uid, used by different ops. */
Test(graph, refuses_duplicate_uids, .init = setup, .fini = teardown)
{
    random_dims("graph::refuses_duplicate_uids");
    int64_t uid = tu_range(1, 1000000);
    hipdnnBackendDescriptor_t a = tensor(uid, false), b = tensor(uid + 1, false);
    hipdnnBackendDescriptor_t c = tensor(uid + 2, false), twin = tensor(uid, false);
    hipdnnBackendDescriptor_t ops[2] = {pw("first", a, NULL, b), pw("second", twin, NULL, c)};
    expect_refused(graph(true, 2, ops), "duplicate uid", NULL);
    /* the same descriptor shared by two ops is fine */
    hipdnnBackendDescriptor_t d = tensor(uid + 3, false);
    hipdnnBackendDescriptor_t ok[2] = {pw("first", a, NULL, b), pw("third", a, NULL, d)};
    TU_OK(hipdnnBackendFinalize(graph(true, 2, ok)));
}

Test(graph, refuses_cycles, .init = setup, .fini = teardown)
{
    random_dims("graph::refuses_cycles");
    for (int v = 0; v < 2; v++) { /* the two tensors physical, then virtual */
        hipdnnBackendDescriptor_t a = tensor(1, v), b = tensor(2, v);
        hipdnnBackendDescriptor_t ops[2] = {pw("ab", a, NULL, b), pw("ba", b, NULL, a)};
        expect_refused(graph(true, 2, ops), v ? "cycle (virtual)" : "cycle", NULL);
    }
    /* a longer cycle behind an entry: x -> p0 -> ... -> p3 -> back to p1's input */
    hipdnnBackendDescriptor_t x = tensor(10, false), t[4];
    for (int i = 0; i < 4; i++)
        t[i] = tensor(11 + i, false);
    hipdnnBackendDescriptor_t ops[4] = {pw("p0", x, t[3], t[0]), pw("p1", t[0], NULL, t[1]),
                                        pw("p2", t[1], NULL, t[2]), pw("p3", t[2], NULL, t[3])};
    expect_refused(graph(true, 4, ops), "cycle of 4", NULL);
    /* an op reading its own output */
    hipdnnBackendDescriptor_t s = tensor(20, false);
    hipdnnBackendDescriptor_t self[1] = {pw("self", s, NULL, s)};
    expect_refused(graph(true, 1, self), "self loop", NULL);
}

Test(graph, refuses_a_dangling_virtual_tensor, .init = setup, .fini = teardown)
{
    random_dims("graph::refuses_a_dangling_virtual_tensor");
    hipdnnBackendDescriptor_t v = tensor(1, true), y = tensor(2, false);
    hipdnnBackendDescriptor_t ops[1] = {pw("reads_virtual", v, NULL, y)};
    expect_refused(graph(true, 1, ops), "dangling virtual", "virtual");
    /* the same read is fine once an op of the graph produces it */
    hipdnnBackendDescriptor_t x = tensor(3, false);
    hipdnnBackendDescriptor_t both[2] = {ops[0], pw("makes_virtual", x, NULL, v)};
    TU_OK(hipdnnBackendFinalize(graph(true, 2, both)));
}

Test(graph, refuses_an_operation_added_twice, .init = setup, .fini = teardown)
{
    random_dims("graph::refuses_an_operation_added_twice");
    hipdnnBackendDescriptor_t ops[2], ts[3];
    chain(2, 100, ops, ts);
    /* in one call */
    hipdnnBackendDescriptor_t twice[3] = {ops[0], ops[1], ops[0]};
    hipdnnBackendDescriptor_t g = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    tu_keep(g);
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                    &handle));
    /* refused when appended, or else at finalize */
    hipdnnStatus_t st = hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 3, twice);
    if (st == HIPDNN_STATUS_SUCCESS)
        expect_refused(g, "same op twice in one call", "twice");
    else
        cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM, "%s", tu_st(st));
    /* in two calls */
    g = graph(true, 2, ops);
    st = hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &ops[1]);
    if (st == HIPDNN_STATUS_SUCCESS)
        expect_refused(g, "same op twice in two calls", "twice");
    else
        cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM, "%s", tu_st(st));
    /* two equal but distinct op descriptors are two ops: both write ts[2] -> refused too */
    hipdnnBackendDescriptor_t again[2] = {ops[0], pw("op1_copy", ts[1], NULL, ts[2])};
    g = graph(true, 2, again);
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, &ops[1]));
    expect_refused(g, "two producers of one tensor", NULL);
}

Test(graph, refuses_a_tensor_written_twice, .init = setup, .fini = teardown)
{
    random_dims("graph::refuses_a_tensor_written_twice");
    hipdnnBackendDescriptor_t a = tensor(1, false), b = tensor(2, false), y = tensor(3, false);
    hipdnnBackendDescriptor_t ops[2] = {pw("a_to_y", a, NULL, y), pw("b_to_y", b, NULL, y)};
    expect_refused(graph(true, 2, ops), "two writers", "written");
}

/* ---- OPS: appending, reading back, order -------------------------------------------------------- */

Test(graph, ops_append_across_calls_and_read_back_in_order, .init = setup, .fini = teardown)
{
    random_dims("graph::ops_append_across_calls_and_read_back_in_order");
    int n = (int)tu_range(2, 12);
    hipdnnBackendDescriptor_t ops[12], ts[13];
    chain(n, 1000, ops, ts);
    hipdnnBackendDescriptor_t g = graph(true, 0, NULL);
    /* append in random-sized batches */
    for (int i = 0; i < n;) {
        int k = (int)tu_range(1, n - i);
        TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, k, &ops[i]));
        i += k;
    }
    /* a failed append (an unfinalized op after a good one) adds nothing */
    hipdnnBackendDescriptor_t unfinalized = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &unfinalized));
    tu_keep(unfinalized);
    hipdnnBackendDescriptor_t bad[2] = {ops[0], unfinalized};
    TU_EQ(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 2, bad),
          HIPDNN_STATUS_BAD_PARAM_NOT_FINALIZED);
    TU_OK(hipdnnBackendFinalize(g));

    int64_t count = -1;
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 0, &count, NULL));
    cr_expect_eq(count, n, "OPS count %lld, expected %d", (long long)count, n);
    /* fewer than all: an error, nothing handed out */
    hipdnnBackendDescriptor_t got[13] = {0};
    int64_t written = -1;
    hipdnnStatus_t st = hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, n - 1,
                                                  &written, got);
    cr_expect_neq(st, HIPDNN_STATUS_SUCCESS, "OPS read with %d < %d slots succeeded", n - 1, n);
    cr_expect_eq(st, HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT, "%s", tu_st(st));
    for (int i = 0; i < n; i++)
        cr_expect_eq(got[i], NULL, "a failed OPS read handed out element %d", i);
    /* more than enough: n handles, in order */
    char names[13][32];
    cr_expect_eq(op_names(g, names, 13), n);
    for (int i = 0; i < n; i++) {
        char want[32];
        snprintf(want, sizeof want, "op%d", i);
        cr_expect_str_eq(names[i], want, "OPS[%d] is '%s'", i, names[i]);
    }
}

/* Appended in a random order, a DAG still finalizes; serialized, its nodes are in a
 * topological order. */
Test(graph, any_append_order_finalizes, .init = setup, .fini = teardown)
{
    random_dims("graph::any_append_order_finalizes");
    for (int round = 0; round < 10; round++) {
        /* a random DAG: op i reads x or the outputs of earlier ops */
        int n = (int)tu_range(2, 10);
        hipdnnBackendDescriptor_t x = tensor(1, false), out[10], ops[10];
        int64_t base = 100 * (round + 1);
        for (int i = 0; i < n; i++) {
            char name[32];
            snprintf(name, sizeof name, "n%d", i);
            hipdnnBackendDescriptor_t in0 = i == 0 ? x : out[tu_range(0, i - 1)];
            hipdnnBackendDescriptor_t in1 = i > 0 && tu_rand() & 1 ? out[tu_range(0, i - 1)] : NULL;
            out[i] = tensor(base + i, i + 1 < n && tu_rand() % 3 != 0);
            ops[i] = pw(name, in0, in1, out[i]);
        }
        for (int i = n - 1; i > 0; i--) { /* shuffle */
            int j = (int)tu_range(0, i);
            hipdnnBackendDescriptor_t t = ops[i];
            ops[i] = ops[j];
            ops[j] = t;
        }
        hipdnnBackendDescriptor_t g = graph(true, n, ops);
        TU_OK(hipdnnBackendFinalize(g));
        /* the serialized form lists producers before consumers */
        size_t len = 0;
        TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &len, NULL));
        char *text = malloc(len);
        cr_assert_not_null(text);
        TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, len, &len, text));
        json_error_t err;
        json_t *doc = json_loads(text, 0, &err);
        free(text);
        cr_assert_not_null(doc, "%s", err.text);
        json_t *nodes = json_object_get(doc, "nodes");
        cr_assert_eq(json_array_size(nodes), (size_t)n);
        int64_t produced[32];
        int n_produced = 0;
        for (size_t i = 0; i < json_array_size(nodes); i++) {
            json_t *attrs = json_object_get(json_array_get(nodes, i), "attributes");
            const char *keys[] = {"in_0_tensor_uid", "in_1_tensor_uid"};
            for (int k = 0; k < 2; k++) {
                json_t *u = json_object_get(attrs, keys[k]);
                if (u == NULL || json_integer_value(u) < base)
                    continue; /* x, or no second input */
                bool found = false;
                for (int p = 0; p < n_produced; p++)
                    found |= produced[p] == json_integer_value(u);
                cr_expect(found, "round %d: node %zu reads uid %lld before it is produced", round,
                          i, (long long)json_integer_value(u));
            }
            produced[n_produced++] = json_integer_value(json_object_get(attrs, "out_0_tensor_uid"));
        }
        json_decref(doc);
    }
}

Test(graph, one_operation_in_two_graphs, .init = setup, .fini = teardown)
{
    random_dims("graph::one_operation_in_two_graphs");
    hipdnnBackendDescriptor_t ops[1], ts[2];
    chain(1, 5, ops, ts);
    hipdnnBackendDescriptor_t g1 = graph(true, 1, ops), g2 = graph(true, 1, ops);
    TU_OK(hipdnnBackendFinalize(g1));
    TU_OK(hipdnnBackendFinalize(g2));
    char names[1][32];
    cr_expect_eq(op_names(g2, names, 1), 1);
    cr_expect_str_eq(names[0], "op0");
}

/* Every handle the caller made is destroyed before the graph is finalized and read. */
Test(graph, outlives_the_callers_handles, .init = setup, .fini = teardown)
{
    random_dims("graph::outlives_the_callers_handles");
    int n = (int)tu_range(1, 6);
    hipdnnBackendDescriptor_t ops[6], ts[7];
    chain(n, 40, ops, ts);
    hipdnnBackendDescriptor_t g = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                    &handle));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, n, ops));
    tu_kept_release();
    TU_OK(hipdnnBackendFinalize(g));
    tu_keep(g);
    char names[6][32];
    cr_expect_eq(op_names(g, names, 6), n);
    size_t len = 0;
    TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &len, NULL));
    cr_expect_gt(len, 0);
}

/* ---- the graph key (HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT) ------------------------------------ */

/* A DAG of n pointwise ops (op i reads x or an earlier output, ADD when a second input is
 * drawn) from a fixed plan; uids start at uid0, names carry `tag`, ops are appended in the
 * given order. Returns the key of the finalized graph. */
typedef struct dag_plan {
    int n;
    int in0[8], in1[8]; /* -1: x; -2: no second input; else an earlier op */
    bool virt[8];
} dag_plan;

static void graph_key(const dag_plan *p, int64_t uid0, const char *tag, const int *order,
                      char key[64])
{
    hipdnnBackendDescriptor_t x = tensor(uid0, false), out[8], ops[8], appended[8];
    for (int i = 0; i < p->n; i++) {
        char name[48];
        snprintf(name, sizeof name, "%s_%d", tag, i);
        out[i] = tensor(uid0 + 1 + i, p->virt[i]);
        ops[i] = pw(name, p->in0[i] < 0 ? x : out[p->in0[i]],
                    p->in1[i] == -2 ? NULL : p->in1[i] < 0 ? x : out[p->in1[i]], out[i]);
    }
    for (int i = 0; i < p->n; i++)
        appended[i] = ops[order[i]];
    hipdnnBackendDescriptor_t g = graph(true, p->n, appended);
    int64_t n = 0;
    TU_EQ(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR, 64,
                                    &n, key),
          HIPDNN_STATUS_NOT_INITIALIZED);
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT, HIPDNN_TYPE_CHAR,
                                    (int64_t)strlen(tag), tag));
    TU_OK(hipdnnBackendFinalize(g));
    memset(key, 0, 64);
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR, 64,
                                    &n, key));
    cr_expect_eq(n, 33, "key count %lld", (long long)n);
    cr_expect_eq(strlen(key), 32, "key '%s'", key);
}

Test(graph, key_ignores_uids_names_and_append_order, .init = setup, .fini = teardown)
{
    random_dims("graph::key_ignores_uids_names_and_append_order");
    dag_plan p = {.n = (int)tu_range(2, 8)};
    for (int i = 0; i < p.n; i++) {
        p.in0[i] = i == 0 ? -1 : (int)tu_range(-1, i - 1);
        p.in1[i] = i > 0 && tu_rand() & 1 ? (int)tu_range(-1, i - 1) : -2;
        p.virt[i] = i + 1 < p.n && tu_rand() % 3 == 0;
    }
    int order[8], shuffled[8];
    for (int i = 0; i < p.n; i++)
        order[i] = shuffled[i] = i;
    for (int i = p.n - 1; i > 0; i--) {
        int j = (int)tu_range(0, i), t = shuffled[i];
        shuffled[i] = shuffled[j];
        shuffled[j] = t;
    }
    char k1[64], k2[64], k3[64], k4[64];
    graph_key(&p, 100, "first", order, k1);
    graph_key(&p, 7000 + tu_range(0, 1000), "second", shuffled, k2);
    cr_expect_str_eq(k1, k2, "other uids, names and append order changed the key");
    /* a semantic change: another width */
    dims[1] += 1;
    graph_key(&p, 100, "first", order, k3);
    cr_expect_str_neq(k1, k3, "another tensor width kept the key");
    dims[1] -= 1;
    /* another structure: the last op reads x instead */
    int last = p.n - 1, saved = p.in0[last];
    p.in0[last] = p.in0[last] == -1 ? (last > 0 ? last - 1 : -1) : -1;
    graph_key(&p, 100, "first", order, k4);
    if (p.in0[last] != saved)
        cr_expect_str_neq(k1, k4, "another wiring kept the key");
}
