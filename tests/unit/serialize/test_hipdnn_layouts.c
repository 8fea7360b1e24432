/* test_hipdnn_layouts.c — graphs as hipDNN's own C++ frontend serializes them.
 *
 * Owns: FlatBuffer bytes written here with our builder (serialize/fe_fb.h) the way hipDNN's
 * frontend (Nov 2025) writes them, read through hipdnnBackendCreateAndDeserializeGraph_ext:
 *   - the older Node layout (name 0, union type 1, union value 2; no compute_data_type) next to
 *     the current one (compute_data_type at 1, the union at 2 + 3);
 *   - FlatBuffers' rule that a scalar equal to its schema default is not written: tensor uids
 *     numbered from 0 arrive with no uid / *_tensor_uid field, an enum 0 (TOP_LEFT, AUTO) and
 *     a false bool arrive absent, while absent "= null" fields stay unset;
 *   - the compute type given once on the Graph (a convolution takes it);
 *   - a by-value scalar of shape [1] against a rank-3 operand.
 * Graphs that execute run on the reference engine with fresh random inputs (seed printed),
 * outputs poisoned with NaN, every element compared with a plain loop in double.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/tu.h"
#include "../../common/tu_close.h"
#include "serialize/fe_fb.h"

static hipdnnHandle_t handle;

static void setup(void) { TU_OK(hipdnnCreate(&handle)); }
static void teardown(void) { hipdnnDestroy(handle); }
TestSuite(hipdnn_layouts, .init = setup, .fini = teardown);

/* ---- the wire, as hipDNN's schema numbers it ------------------------------------------------- */

enum { G_NAME, G_COMPUTE, G_INTERMEDIATE, G_IO, G_TENSORS, G_NODES };
enum { T_UID, T_NAME, T_DTYPE, T_STRIDES, T_DIMS, T_VIRTUAL, T_VALUE_TYPE, T_VALUE };
enum { WIRE_FLOAT = 1 };                                      /* DataType */
enum { U_POINTWISE = 2, U_CONV_FWD = 5, U_LAYERNORM = 11, U_SDPA = 12 }; /* NodeAttributes */
enum { PW_ADD = 2, PW_MUL = 30 };                             /* PointwiseMode */
enum { PW_OPERATION = 0, PW_IN_0 = 5, PW_IN_1 = 6, PW_OUT_0 = 8 };
enum { CONV_X, CONV_W, CONV_Y, CONV_PRE, CONV_POST, CONV_STRIDE, CONV_DILATION, CONV_MODE };
enum { LN_X, LN_SCALE, LN_BIAS, LN_EPS, LN_Y, LN_DIM_COUNT, LN_MEAN, LN_INV_VAR, LN_PHASE };
enum { SDPA_Q, SDPA_K, SDPA_V, SDPA_O, SDPA_CAUSAL = 31, SDPA_SCALE_VALUE = 34 };

typedef enum { NODE_OLD, NODE_NEW } node_layout;

/* Scalar setters that behave like a FlatBuffers writer: a value equal to the default (0,
 * false) is not written at all. */
static void put_i64(fe_fbt *t, uint16_t id, int64_t v)
{
    if (v != 0)
        cr_assert_eq(fe_fbt_i64(t, id, v), FE_FBB_OK);
}
static void put_i8(fe_fbt *t, uint16_t id, int8_t v)
{
    if (v != 0)
        cr_assert_eq(fe_fbt_i8(t, id, v), FE_FBB_OK);
}

/* A packed fp32 tensor (uid 0 is left out, as FlatBuffers writes it); value: by-value fp32. */
static fe_fbt *tensor(fe_fbb *b, int64_t uid, const char *name, int rank, const int64_t *dims,
                      bool is_virtual, const float *value)
{
    int64_t strides[8];
    tu_packed_strides(rank, dims, strides);
    fe_fbt *t = fe_fbb_table(b);
    put_i64(t, T_UID, uid);
    fe_fbt_string(t, T_NAME, name, strlen(name));
    put_i8(t, T_DTYPE, WIRE_FLOAT);
    fe_fbt_vec_scalars(t, T_STRIDES, 8, (size_t)rank, strides);
    fe_fbt_vec_scalars(t, T_DIMS, 8, (size_t)rank, dims);
    if (is_virtual)
        fe_fbt_bool(t, T_VIRTUAL, true);
    if (value != NULL)
        fe_fbt_union_struct(t, T_VALUE, 1 /* Float32Value */, 4, 4, value);
    return t;
}

/* A node in either layout; compute: the wire DataType, 0 for none (only NODE_NEW carries one). */
static fe_fbt *node(fe_fbb *b, node_layout layout, const char *name, int compute, uint8_t code,
                    fe_fbt *attrs)
{
    fe_fbt *n = fe_fbb_table(b);
    fe_fbt_string(n, 0, name, strlen(name));
    if (layout == NODE_OLD) {
        fe_fbt_union(n, 2, code, attrs);
    } else {
        put_i8(n, 1, (int8_t)compute);
        fe_fbt_union(n, 3, code, attrs);
    }
    return n;
}

static fe_fbt *pointwise(fe_fbb *b, int mode, int64_t in0, int64_t in1, int64_t out0)
{
    fe_fbt *a = fe_fbb_table(b);
    put_i8(a, PW_OPERATION, (int8_t)mode);
    put_i64(a, PW_IN_0, in0);
    if (in1 >= 0)
        cr_assert_eq(fe_fbt_i64(a, PW_IN_1, in1), FE_FBB_OK); /* "= null": written even when 0 */
    put_i64(a, PW_OUT_0, out0);
    return a;
}

/* The Graph root (compute: wire DataType or 0) and its bytes (free()). */
static uint8_t *graph_bytes(fe_fbb *b, int compute, fe_fbt **tensors, size_t n_tensors,
                            fe_fbt **nodes, size_t n_nodes, size_t *len)
{
    fe_fbt *g = fe_fbb_table(b);
    fe_fbt_string(g, G_NAME, "hipdnn_frontend_graph", 21);
    put_i8(g, G_COMPUTE, (int8_t)compute);
    put_i8(g, G_INTERMEDIATE, WIRE_FLOAT);
    put_i8(g, G_IO, WIRE_FLOAT);
    fe_fbt_vec_tables(g, G_TENSORS, n_tensors, tensors);
    fe_fbt_vec_tables(g, G_NODES, n_nodes, nodes);
    uint8_t *out = NULL;
    cr_assert_eq(fe_fbb_finish(b, g, NULL, &out, len), FE_FBB_OK, "%s",
                 fe_fbb_strerror(fe_fbb_status(b)));
    return out;
}

static hipdnnBackendDescriptor_t deserialize(const uint8_t *bytes, size_t len)
{
    hipdnnBackendDescriptor_t g = NULL;
    TU_OK(hipdnnBackendCreateAndDeserializeGraph_ext(&g, bytes, len));
    TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendFinalize(g));
    return g;
}

/* The status of deserializing bytes; the message is left in tu_msg(). */
static hipdnnStatus_t try_deserialize(const uint8_t *bytes, size_t len)
{
    hipdnnBackendDescriptor_t g = NULL;
    hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeGraph_ext(&g, bytes, len);
    if (g != NULL)
        hipdnnBackendDestroyDescriptor(g);
    return st;
}

/* Bytes of the graph (tensors ts, nodes ns of builder b, which is freed) must be refused with
 * status want and a message containing needle. */
static void expect_refused(fe_fbb *b, fe_fbt **ts, size_t n_ts, fe_fbt **ns, size_t n_ns,
                           hipdnnStatus_t want, const char *needle)
{
    size_t len = 0;
    uint8_t *bytes = graph_bytes(b, WIRE_FLOAT, ts, n_ts, ns, n_ns, &len);
    fe_fbb_free(b);
    hipdnnStatus_t st = try_deserialize(bytes, len);
    cr_expect_eq(st, want, "%s, expected %s [%s]", tu_st(st), tu_st(want), tu_msg());
    cr_expect(strstr(tu_msg(), needle) != NULL, "the message names '%s': %s", needle, tu_msg());
    free(bytes);
}

/* ---- running on the reference engine ----------------------------------------------------------- */

static void set_desc(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a, hipdnnBackendDescriptor_t v)
{
    TU_OK(hipdnnBackendSetAttribute(d, a, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v));
}

/* Heuristics -> the last-ranked config (the reference engine, which runs on host memory) ->
 * plan -> execute with n (uid, pointer) bindings. */
static void run_reference(hipdnnBackendDescriptor_t graph, int n, const int64_t *uids, void **ptrs)
{
    hipdnnBackendDescriptor_t heur, cfgs[8], plan, pack;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    set_desc(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
    TU_OK(hipdnnBackendFinalize(heur));
    int64_t count = 0, ws = 0;
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL));
    cr_assert(count >= 1 && count <= 8, "%lld engine configs", (long long)count);
    for (int64_t i = 0; i < count; i++)
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, count, &count, cfgs));
    TU_OK(hipdnnBackendFinalize(cfgs[count - 1]));
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    set_desc(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfgs[count - 1]);
    TU_OK(hipdnnBackendFinalize(plan));
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &count, &ws));
    void *workspace = malloc((size_t)ws + 1);
    pack = tu_pack(n, uids, ptrs, workspace);
    TU_OK(hipdnnBackendExecute(handle, plan, pack));
    free(workspace);
    hipdnnBackendDestroyDescriptor(pack);
    hipdnnBackendDestroyDescriptor(plan);
    for (int64_t i = 0; i < count; i++)
        hipdnnBackendDestroyDescriptor(cfgs[i]);
    hipdnnBackendDestroyDescriptor(heur);
}

static float *random_floats(size_t n)
{
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = tu_float(-2.0f, 2.0f);
    return v;
}

static float *poisoned(size_t n)
{
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = NAN;
    return v;
}

/* Every element of an fp32 output within tu_close's bound for family f (length: the sum's). */
static void expect_close(const char *what, const float *got, const double *want, size_t n,
                         tu_family f, long long length)
{
    double *g = malloc(n * sizeof *g);
    for (size_t i = 0; i < n; i++)
        g[i] = got[i];
    tu_expect_close(what, g, want, n, tu_tol_for(HIPDNN_DATA_FLOAT, f, length));
    free(g);
}

/* The first operation of a finalized graph (a new handle: destroy it). */
static hipdnnBackendDescriptor_t first_op(hipdnnBackendDescriptor_t g)
{
    hipdnnBackendDescriptor_t ops[4] = {NULL};
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 4, &n, ops));
    cr_assert_geq(n, 1);
    for (int64_t i = 1; i < n; i++)
        hipdnnBackendDestroyDescriptor(ops[i]);
    return ops[0];
}

static int64_t get_i64(hipdnnBackendDescriptor_t d, hipdnnBackendAttributeName_t a)
{
    int64_t v = -1, n = 0;
    TU_OK(hipdnnBackendGetAttribute(d, a, HIPDNN_TYPE_INT64, 1, &n, &v));
    return v;
}

/* ---- tests -------------------------------------------------------------------------------------- */

/* z = x + y with x, y, z numbered 0, 1, 2: x's uid and in_0 are absent from the bytes. */
static uint8_t *add_graph(node_layout layout, size_t *len)
{
    int64_t dims[] = {2, 3, 5};
    fe_fbb *b = fe_fbb_new();
    fe_fbt *ts[] = {tensor(b, 0, "x", 3, dims, false, NULL), tensor(b, 1, "y", 3, dims, false, NULL),
                    tensor(b, 2, "z", 3, dims, false, NULL)};
    fe_fbt *ns[] = {node(b, layout, "add", 0, U_POINTWISE, pointwise(b, PW_ADD, 0, 1, 2))};
    uint8_t *bytes = graph_bytes(b, WIRE_FLOAT, ts, 3, ns, 1, len);
    fe_fbb_free(b);
    return bytes;
}

Test(hipdnn_layouts, old_node_layout_with_uid_0_runs)
{
    tu_seed("hipdnn_layouts::old_node_layout_with_uid_0_runs");
    size_t len = 0, n = 2 * 3 * 5;
    uint8_t *bytes = add_graph(NODE_OLD, &len);
    hipdnnBackendDescriptor_t g = deserialize(bytes, len);
    free(bytes);
    /* the absent uid is uid 0 */
    hipdnnBackendDescriptor_t op = first_op(g), x = NULL;
    int64_t count = 0;
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &x));
    cr_expect_eq(get_i64(x, HIPDNN_ATTR_TENSOR_UNIQUE_ID), 0);
    cr_expect_eq(get_i64(x, HIPDNN_ATTR_TENSOR_BYTE_ALIGNMENT), 16, "the schema default of alignment");
    bool is_virtual = true;
    TU_OK(hipdnnBackendGetAttribute(x, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &count, &is_virtual));
    cr_expect_not(is_virtual, "an absent 'virtual' is false");
    hipdnnBackendDestroyDescriptor(x);
    hipdnnBackendDestroyDescriptor(op);

    float *xv = random_floats(n), *yv = random_floats(n), *zv = poisoned(n);
    double *want = malloc(n * sizeof *want);
    for (size_t i = 0; i < n; i++)
        want[i] = (double)xv[i] + (double)yv[i];
    int64_t uids[] = {0, 1, 2};
    void *ptrs[] = {xv, yv, zv};
    run_reference(g, 3, uids, ptrs);
    expect_close("z", zv, want, n, TU_POINTWISE, 1);
    free(xv), free(yv), free(zv), free(want);
    hipdnnBackendDestroyDescriptor(g);
}

/* The same graph in both Node layouts reads as the same graph (the same JSON model). */
Test(hipdnn_layouts, both_node_layouts_read_alike)
{
    char *text[2];
    for (int l = 0; l < 2; l++) {
        size_t len = 0, tlen = 0;
        uint8_t *bytes = add_graph(l == 0 ? NODE_OLD : NODE_NEW, &len);
        hipdnnBackendDescriptor_t g = deserialize(bytes, len);
        free(bytes);
        TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &tlen, NULL));
        text[l] = malloc(tlen);
        TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(g, tlen, &tlen, text[l]));
        hipdnnBackendDestroyDescriptor(g);
    }
    cr_expect_str_eq(text[0], text[1]);
    cr_expect(strstr(text[0], "\"uid\": 0") != NULL, "uid 0 is written back:\n%s", text[0]);
    free(text[0]), free(text[1]);
}

/* An absent "= null" field stays unset: ADD without in_1 is refused, never bound to uid 0. An
 * absent enum whose 0 is UNSET (the pointwise mode) is unset too. */
Test(hipdnn_layouts, absent_optional_fields_stay_unset)
{
    int64_t dims[] = {4, 4};
    fe_fbb *b = fe_fbb_new();
    fe_fbt *ts[] = {tensor(b, 0, "x", 2, dims, false, NULL), tensor(b, 1, "z", 2, dims, false, NULL)};
    fe_fbt *ns[] = {node(b, NODE_OLD, "add", 0, U_POINTWISE, pointwise(b, PW_ADD, 0, -1, 1))};
    expect_refused(b, ts, 2, ns, 1, HIPDNN_STATUS_BAD_PARAM, "IN_1");

    b = fe_fbb_new();
    fe_fbt *ts2[] = {tensor(b, 0, "x", 2, dims, false, NULL), tensor(b, 1, "z", 2, dims, false, NULL)};
    fe_fbt *ns2[] = {node(b, NODE_OLD, "no_mode", 0, U_POINTWISE, pointwise(b, 0, 0, -1, 1))};
    expect_refused(b, ts2, 2, ns2, 1, HIPDNN_STATUS_BAD_PARAM, "HIPDNN_ATTR_POINTWISE_MODE");
}

/* SDPA with every defaulted field absent: diagonal alignment TOP_LEFT and implementation AUTO
 * (enum 0), causal_mask false (bool), attn_scale_value unset ("= null"). */
Test(hipdnn_layouts, absent_enum_and_bool_fields_read_as_defaults)
{
    int64_t dims[] = {1, 2, 8, 16};
    fe_fbb *b = fe_fbb_new();
    fe_fbt *ts[] = {tensor(b, 0, "q", 4, dims, false, NULL), tensor(b, 1, "k", 4, dims, false, NULL),
                    tensor(b, 2, "v", 4, dims, false, NULL), tensor(b, 3, "o", 4, dims, false, NULL)};
    fe_fbt *a = fe_fbb_table(b);
    put_i64(a, SDPA_Q, 0), put_i64(a, SDPA_K, 1), put_i64(a, SDPA_V, 2), put_i64(a, SDPA_O, 3);
    fe_fbt *ns[] = {node(b, NODE_OLD, "sdpa", 0, U_SDPA, a)};
    size_t len = 0;
    uint8_t *bytes = graph_bytes(b, WIRE_FLOAT, ts, 4, ns, 1, &len);
    fe_fbb_free(b);
    hipdnnBackendDescriptor_t g = deserialize(bytes, len), op = first_op(g);
    free(bytes);
    int64_t n = 0;
    int e = -1;
    bool causal = true;
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_SDPA_FWD_DIAGONAL_ALIGNMENT_EXT, HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT, 1, &n, &e));
    cr_expect_eq(e, HIPDNN_DIAGONAL_ALIGNMENT_TOP_LEFT_EXT);
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_SDPA_FWD_IMPLEMENTATION_EXT, HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT, 1, &n, &e));
    cr_expect_eq(e, HIPDNN_ATTENTION_IMPLEMENTATION_AUTO_EXT);
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, HIPDNN_TYPE_BOOLEAN, 1, &n, &causal));
    cr_expect_not(causal);
    float scale = 0;
    n = -1;
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT, HIPDNN_TYPE_FLOAT, 1, &n, &scale));
    cr_expect_eq(n, 0, "attn_scale_value is optional (\"= null\"): absent means unset, not 0");
    hipdnnBackendDestroyDescriptor(op);
    hipdnnBackendDestroyDescriptor(g);
}

/* Layernorm without normalized_dim_count (absent = 0, its default) infers the count from the
 * scale: y = (x - mean) / sqrt(var + eps) * scale + bias over the last dim. */
Test(hipdnn_layouts, absent_dim_count_infers)
{
    tu_seed("hipdnn_layouts::absent_dim_count_infers");
    const int64_t R = 6, D = 10;
    int64_t xd[] = {R, D}, wd[] = {1, D}, one[] = {1};
    float eps = 1e-5f;
    fe_fbb *b = fe_fbb_new();
    fe_fbt *ts[] = {tensor(b, 0, "x", 2, xd, false, NULL), tensor(b, 1, "scale", 2, wd, false, NULL),
                    tensor(b, 2, "bias", 2, wd, false, NULL), tensor(b, 3, "eps", 1, one, false, &eps),
                    tensor(b, 4, "y", 2, xd, false, NULL)};
    fe_fbt *a = fe_fbb_table(b);
    put_i64(a, LN_X, 0), put_i64(a, LN_SCALE, 1), put_i64(a, LN_BIAS, 2), put_i64(a, LN_EPS, 3);
    put_i64(a, LN_Y, 4), put_i8(a, LN_PHASE, 1 /* INFERENCE */);
    fe_fbt *ns[] = {node(b, NODE_OLD, "ln", 0, U_LAYERNORM, a)};
    size_t len = 0;
    uint8_t *bytes = graph_bytes(b, WIRE_FLOAT, ts, 5, ns, 1, &len);
    fe_fbb_free(b);
    hipdnnBackendDescriptor_t g = deserialize(bytes, len);
    free(bytes);
    float *xv = random_floats((size_t)(R * D)), *sv = random_floats((size_t)D), *bv = random_floats((size_t)D);
    float *yv = poisoned((size_t)(R * D));
    double *want = malloc((size_t)(R * D) * sizeof *want);
    for (int64_t r = 0; r < R; r++) {
        double mean = 0, var = 0;
        for (int64_t d = 0; d < D; d++)
            mean += xv[r * D + d] / (double)D;
        for (int64_t d = 0; d < D; d++)
            var += (xv[r * D + d] - mean) * (xv[r * D + d] - mean) / (double)D;
        for (int64_t d = 0; d < D; d++)
            want[r * D + d] = (xv[r * D + d] - mean) / sqrt(var + eps) * sv[d] + bv[d];
    }
    int64_t uids[] = {0, 1, 2, 4};
    void *ptrs[] = {xv, sv, bv, yv};
    run_reference(g, 4, uids, ptrs);
    expect_close("y", yv, want, (size_t)(R * D), TU_REDUCTION, D);
    free(xv), free(sv), free(bv), free(yv), free(want);
    hipdnnBackendDestroyDescriptor(g);
}

/* y = conv(x, w): 1x1 filter, no padding, stride 1 (vectors written explicitly). */
static uint8_t *conv_graph(int graph_compute, size_t *len)
{
    int64_t xd[] = {1, 3, 4, 4}, wd[] = {2, 3, 1, 1}, yd[] = {1, 2, 4, 4};
    int64_t zeros[] = {0, 0}, ones[] = {1, 1};
    fe_fbb *b = fe_fbb_new();
    fe_fbt *ts[] = {tensor(b, 0, "x", 4, xd, false, NULL), tensor(b, 1, "w", 4, wd, false, NULL),
                    tensor(b, 2, "y", 4, yd, false, NULL)};
    fe_fbt *a = fe_fbb_table(b);
    put_i64(a, CONV_X, 0), put_i64(a, CONV_W, 1), put_i64(a, CONV_Y, 2);
    fe_fbt_vec_scalars(a, CONV_PRE, 8, 2, zeros);
    fe_fbt_vec_scalars(a, CONV_POST, 8, 2, zeros);
    fe_fbt_vec_scalars(a, CONV_STRIDE, 8, 2, ones);
    fe_fbt_vec_scalars(a, CONV_DILATION, 8, 2, ones);
    put_i8(a, CONV_MODE, 2 /* CROSS_CORRELATION */);
    fe_fbt *ns[] = {node(b, NODE_OLD, "conv", 0, U_CONV_FWD, a)};
    uint8_t *bytes = graph_bytes(b, graph_compute, ts, 3, ns, 1, len);
    fe_fbb_free(b);
    return bytes;
}

/* A node without a compute type takes the graph's; with neither, the convolution is refused
 * with the attribute named. */
Test(hipdnn_layouts, compute_type_from_the_graph)
{
    tu_seed("hipdnn_layouts::compute_type_from_the_graph");
    size_t len = 0;
    uint8_t *bytes = conv_graph(WIRE_FLOAT, &len);
    hipdnnBackendDescriptor_t g = deserialize(bytes, len), op = first_op(g);
    free(bytes);
    int64_t n = 0;
    hipdnnDataType_t ct = HIPDNN_DATA_DOUBLE;
    TU_OK(hipdnnBackendGetAttribute(op, HIPDNN_ATTR_CONVOLUTION_COMP_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &n, &ct));
    cr_expect_eq(ct, HIPDNN_DATA_FLOAT);
    hipdnnBackendDestroyDescriptor(op);
    float *xv = random_floats(48), *wv = random_floats(6), *yv = poisoned(32);
    double want[32];
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 16; p++) {
            want[k * 16 + p] = 0;
            for (int c = 0; c < 3; c++)
                want[k * 16 + p] += (double)xv[c * 16 + p] * wv[k * 3 + c];
        }
    int64_t uids[] = {0, 1, 2};
    void *ptrs[] = {xv, wv, yv};
    run_reference(g, 3, uids, ptrs);
    expect_close("y", yv, want, 32, TU_DOT, 3);
    free(xv), free(wv), free(yv);
    hipdnnBackendDestroyDescriptor(g);

    bytes = conv_graph(0, &len);
    cr_expect_eq(try_deserialize(bytes, len), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "HIPDNN_ATTR_CONVOLUTION_COMP_TYPE") != NULL, "%s", tu_msg());
    free(bytes);
}

/* y = x * s + t: x [3,4,5], s a by-value [1] scalar, t a [1] tensor in memory (both rank 1). */
Test(hipdnn_layouts, rank_1_scalars_broadcast)
{
    tu_seed("hipdnn_layouts::rank_1_scalars_broadcast");
    int64_t xd[] = {3, 4, 5}, one[] = {1};
    float s = tu_float(-3.0f, 3.0f);
    fe_fbb *b = fe_fbb_new();
    fe_fbt *ts[] = {tensor(b, 0, "x", 3, xd, false, NULL), tensor(b, 1, "s", 1, one, false, &s),
                    tensor(b, 2, "xs", 3, xd, true, NULL), tensor(b, 3, "t", 1, one, false, NULL),
                    tensor(b, 4, "y", 3, xd, false, NULL)};
    fe_fbt *ns[] = {node(b, NODE_OLD, "mul", 0, U_POINTWISE, pointwise(b, PW_MUL, 0, 1, 2)),
                    node(b, NODE_OLD, "add", 0, U_POINTWISE, pointwise(b, PW_ADD, 2, 3, 4))};
    size_t len = 0, n = 60;
    uint8_t *bytes = graph_bytes(b, WIRE_FLOAT, ts, 5, ns, 2, &len);
    fe_fbb_free(b);
    hipdnnBackendDescriptor_t g = deserialize(bytes, len);
    free(bytes);
    float *xv = random_floats(n), *tv = random_floats(1), *yv = poisoned(n);
    double want[60];
    for (size_t i = 0; i < n; i++)
        want[i] = (double)((float)((double)xv[i] * s)) + tv[0]; /* xs is an fp32 tensor */
    int64_t uids[] = {0, 3, 4};
    void *ptrs[] = {xv, tv, yv};
    run_reference(g, 3, uids, ptrs);
    expect_close("y", yv, want, n, TU_POINTWISE, 1);
    free(xv), free(tv), free(yv);
    hipdnnBackendDestroyDescriptor(g);
}

/* Only scalars extend their rank: a [5] operand against [3,4,5] is still refused, by name. */
Test(hipdnn_layouts, lower_rank_non_scalars_are_refused)
{
    int64_t xd[] = {3, 4, 5}, vd[] = {5};
    fe_fbb *b = fe_fbb_new();
    fe_fbt *ts[] = {tensor(b, 0, "x", 3, xd, false, NULL), tensor(b, 1, "v", 1, vd, false, NULL),
                    tensor(b, 2, "y", 3, xd, false, NULL)};
    fe_fbt *ns[] = {node(b, NODE_OLD, "add", 0, U_POINTWISE, pointwise(b, PW_ADD, 0, 1, 2))};
    expect_refused(b, ts, 3, ns, 1, HIPDNN_STATUS_BAD_PARAM, "IN_1 [5] has rank 1");
}
