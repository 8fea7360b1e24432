/* test_roundtrip.c — graph serialization round trips and the serialization API's contract.
 *
 * Owns: descriptor graph -> FlatBuffer (hipdnnBackendGetSerializedBinaryGraph_ext) -> graph
 * (hipdnnBackendCreateAndDeserializeGraph_ext) -> the same JSON model, for a graph of every
 * operation type with every optional attribute set, and the same through the JSON text; the
 * two-call size pattern; argument errors; the "HDGP" graph+plan container; every example graph
 * under examples/graphs (HIPDNN_TEST_GRAPHS_DIR overrides the folder).
 * Does not own: flatc interoperability (test_flatc.c), malformed input (test_fuzz.c).
 *
 * Links the internal library (the container is built with serialize/fe_fb.h's builder).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <glob.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/tu.h"
#include "serialize/fe_fb.h"
#include "sz_util.h"

static hipdnnHandle_t handle;

static void setup(void)
{
    TU_OK(hipdnnCreate(&handle));
}

static void teardown(void)
{
    cr_expect_eq(hipdnnDestroy(handle), HIPDNN_STATUS_SUCCESS);
}

/* g -> binary -> new graph -> JSON, and g -> JSON text -> new graph -> JSON; both equal g's
 * JSON, before and after the new graph is finalized. */
static void check_round_trips(hipdnnBackendDescriptor_t g, const char *what)
{
    json_t *want = sz_json(g);
    size_t len = 0;
    uint8_t *bin = sz_binary(g, &len);
    char *text = sz_json_text(g);
    hipdnnBackendDescriptor_t from_bin = NULL, from_json = NULL;
    TU_OK(hipdnnBackendCreateAndDeserializeGraph_ext(&from_bin, bin, len));
    TU_OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&from_json, text, strlen(text)));
    hipdnnBackendDescriptor_t both[2] = {from_bin, from_json};
    const char *how[2] = {"binary", "JSON text"};
    for (int i = 0; i < 2; i++) {
        char ctx[160];
        json_t *got = sz_json(both[i]);
        snprintf(ctx, sizeof ctx, "%s via %s (unfinalized)", what, how[i]);
        sz_same(want, got, ctx);
        json_decref(got);
        TU_OK(hipdnnBackendSetAttribute(both[i], HIPDNN_ATTR_OPERATIONGRAPH_HANDLE,
                                        HIPDNN_TYPE_HANDLE, 1, &handle));
        TU_OK(hipdnnBackendFinalize(both[i]));
        got = sz_json(both[i]);
        snprintf(ctx, sizeof ctx, "%s via %s (finalized)", what, how[i]);
        sz_same(want, got, ctx);
        json_decref(got);
        /* and serializing the copy gives the same bytes */
        size_t len2 = 0;
        uint8_t *bin2 = sz_binary(both[i], &len2);
        cr_expect(len2 == len && memcmp(bin, bin2, len) == 0, "%s via %s: the bytes differ", what,
                  how[i]);
        free(bin2);
        TU_OK(hipdnnBackendDestroyDescriptor(both[i]));
    }
    free(bin);
    free(text);
    json_decref(want);
}

/* ---- every operation type --------------------------------------------------------------------------- */

/* Whether attribute a holds its serialized field's schema default, which writers leave out
 * (FlatBuffers' rule): false for the bools (SDPA's generate_stats is optional, "= null"), the
 * first value of the DiagonalAlignment / AttentionImplementation enums, and 0 for the integer
 * fields without "= null" (serialize/schema/hipdnn_graph.fbs). */
static bool holds_schema_default(const rc_attr *a, const rc_val *v)
{
    static const hipdnnBackendAttributeName_t zero_ints[] = {
        HIPDNN_ATTR_OPERATION_GENSTATS_MODE_EXT, HIPDNN_ATTR_OPERATION_LAYERNORM_NORMALIZED_DIM_COUNT_EXT,
        HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE};
    if (a->kind != RC_SCALAR)
        return false;
    switch (a->type) {
    case HIPDNN_TYPE_BOOLEAN: return a->id != HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT && !v->u.b;
    case HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT:
    case HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT: return v->u.e == 0;
    case HIPDNN_TYPE_INT64:
    case HIPDNN_TYPE_INT32:
        for (size_t i = 0; i < sizeof zero_ints / sizeof zero_ints[0]; i++)
            if (a->id == zero_ints[i])
                return a->type == HIPDNN_TYPE_INT64 ? v->u.i64[0] == 0 : v->u.i32[0] == 0;
        return false;
    default: return false;
    }
}

static int op_index[32];

ParameterizedTestParameters(roundtrip, one_op_graph_with_every_optional_attribute)
{
    const rc_desc *specs[32];
    int n = sz_op_specs(specs, 32);
    for (int i = 0; i < n; i++)
        op_index[i] = i;
    return cr_make_param_array(int, op_index, (size_t)n);
}
ParameterizedTest(int *k, roundtrip, one_op_graph_with_every_optional_attribute, .init = setup,
                  .fini = teardown)
{
    const rc_desc *specs[32];
    sz_op_specs(specs, 32);
    tu_seed("roundtrip::one_op_graph_with_every_optional_attribute");
    for (int var = 0; var < rc_variants(specs[*k]); var++) {
        sz_graph g;
        sz_build(&g, handle, &specs[*k], 1, var, true);
        /* the JSON model names the op's table and holds a field per set attribute */
        json_t *doc = sz_json(g.graph);
        json_t *node = json_array_get(json_object_get(doc, "nodes"), 0);
        const json_t *attrs = json_object_get(node, "attributes");
        cr_expect(json_is_string(json_object_get(node, "attributes_type")), "%s", specs[*k]->name);
        cr_expect(json_is_string(json_object_get(node, "name")), "%s: node name missing",
                  specs[*k]->name);
        cr_expect(json_is_string(json_object_get(node, "compute_data_type")),
                  "%s: compute type missing", specs[*k]->name);
        /* every set attribute but the name and the compute type is one field (SDPA's MMA core
         * mode is a DataType field of its own), unless it holds its schema default */
        int fields = 0;
        for (int i = 0; i < specs[*k]->n_attrs; i++) {
            const rc_attr *a = &specs[*k]->attrs[i];
            fields += g.ctx[0].v[i].n > 0 && a->kind != RC_GET_ONLY &&
                      a->id != HIPDNN_ATTR_OPERATION_NAME_EXT &&
                      (a->type != HIPDNN_TYPE_DATA_TYPE || a->id == HIPDNN_ATTR_SDPA_FWD_MMA_CORE_MODE_EXT) &&
                      !holds_schema_default(a, &g.ctx[0].v[i]);
        }
        cr_expect_eq((int)json_object_size(attrs), fields, "%s: %zu fields, expected %d",
                     specs[*k]->name, json_object_size(attrs), fields);
        json_decref(doc);
        check_round_trips(g.graph, specs[*k]->name);
        sz_free(&g);
    }
}

Test(roundtrip, graph_of_every_operation_type, .init = setup, .fini = teardown)
{
    const rc_desc *specs[32];
    tu_seed("roundtrip::graph_of_every_operation_type");
    int n = sz_op_specs(specs, 32);
    cr_assert_eq(n, 18, "expected 18 operation types, the tables have %d", n);
    sz_graph g;
    sz_build(&g, handle, specs, n, (int)tu_range(0, 1), true);
    json_t *doc = sz_json(g.graph);
    cr_expect_geq(json_array_size(json_object_get(doc, "nodes")), (size_t)n);
    json_decref(doc);
    check_round_trips(g.graph, "all operations");
    sz_free(&g);
}

/* Serializing does not need a finalized graph. */
Test(roundtrip, unfinalized_graph_serializes, .init = setup, .fini = teardown)
{
    const rc_desc *specs[32];
    tu_seed("roundtrip::unfinalized_graph_serializes");
    int n = sz_op_specs(specs, 32);
    sz_graph g;
    sz_build(&g, handle, &specs[tu_range(0, n - 1)], 1, (int)tu_range(0, 1), false);
    json_t *before = sz_json(g.graph);
    TU_OK(hipdnnBackendFinalize(g.graph));
    json_t *after = sz_json(g.graph);
    sz_same(before, after, "unfinalized vs finalized");
    json_decref(before);
    json_decref(after);
    sz_free(&g);
}

/* ---- the API contract ---------------------------------------------------------------------------------- */

Test(api, two_call_size_pattern, .init = setup, .fini = teardown)
{
    const rc_desc *specs[32];
    tu_seed("api::two_call_size_pattern");
    int n = sz_op_specs(specs, 32);
    sz_graph g;
    sz_build(&g, handle, &specs[tu_range(0, n - 1)], 1, (int)tu_range(0, 1), true);
    for (int form = 0; form < 2; form++) { /* binary, JSON */
        size_t need = 0, got = 0;
#define get(D, REQ, N, BUF)                                                                      \
    (form == 0 ? hipdnnBackendGetSerializedBinaryGraph_ext(D, REQ, N, (uint8_t *)(BUF))         \
               : hipdnnBackendGetSerializedJsonGraph_ext(D, REQ, N, (char *)(BUF)))
        TU_OK(get(g.graph, 0, &need, NULL));
        cr_assert_gt(need, 8);
        unsigned char *buf = malloc(need + 64);
        cr_assert_not_null(buf);
        /* too small: SIZE_INSUFFICIENT, the size needed reported, nothing written */
        size_t small = (size_t)tu_range(1, (int64_t)need - 1);
        memset(buf, 0xcd, need + 64);
        TU_EQ(get(g.graph, small, &got, buf), HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT);
        cr_expect_eq(got, need);
        cr_expect_eq(buf[0], 0xcd, "an insufficient buffer was written");
        TU_EQ(get(g.graph, need - 1, &got, buf), HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT);
        /* exactly enough, and more than enough */
        TU_OK(get(g.graph, need, &got, buf));
        cr_expect_eq(got, need);
        if (form == 1)
            cr_expect_eq(buf[need - 1], '\0', "JSON size excludes its NUL");
        memset(buf, 0xcd, need + 64);
        TU_OK(get(g.graph, need + 64, &got, buf));
        cr_expect_eq(got, need);
        cr_expect_eq(buf[need], 0xcd, "wrote past the serialization");
        /* NULL arguments */
        TU_EQ(get(g.graph, need, NULL, buf), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
        TU_EQ(get(NULL, need, &got, buf), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
        free(buf);
#undef get
    }
    sz_free(&g);
}

Test(api, only_operation_graphs_serialize, .init = setup, .fini = teardown)
{
    tu_seed("api::only_operation_graphs_serialize");
    const hipdnnBackendDescriptorType_t others[] = {
        HIPDNN_BACKEND_TENSOR_DESCRIPTOR, HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR,
        HIPDNN_BACKEND_ENGINE_DESCRIPTOR, HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR,
        HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        hipdnnBackendDescriptor_t d = NULL;
        size_t n = 12345;
        unsigned char buf[64];
        TU_OK(hipdnnBackendCreateDescriptor(others[i], &d));
        TU_EXPECT(hipdnnBackendGetSerializedBinaryGraph_ext(d, 0, &n, NULL),
                  HIPDNN_STATUS_BAD_PARAM, "binary");
        TU_EXPECT(hipdnnBackendGetSerializedJsonGraph_ext(d, sizeof buf, &n, (char *)buf),
                  HIPDNN_STATUS_BAD_PARAM, "JSON");
        cr_expect_eq(n, 12345, "size written for a non-graph");
        TU_OK(hipdnnBackendDestroyDescriptor(d));
    }
    /* a finalized tensor too */
    rc_ctx c;
    rc_fill(&c, rc_spec_of(HIPDNN_BACKEND_TENSOR_DESCRIPTOR), false, handle);
    hipdnnBackendDescriptor_t t = rc_build(&c);
    size_t n = 0;
    TU_EQ(hipdnnBackendGetSerializedBinaryGraph_ext(t, 0, &n, NULL), HIPDNN_STATUS_BAD_PARAM);
    TU_OK(hipdnnBackendDestroyDescriptor(t));
    rc_release(&c);
}

Test(api, deserialize_argument_checks)
{
    hipdnnBackendDescriptor_t sentinel = (hipdnnBackendDescriptor_t)(uintptr_t)0x5151, d = sentinel;
    const uint8_t bytes[16] = {0};
    TU_EQ(hipdnnBackendCreateAndDeserializeGraph_ext(NULL, bytes, sizeof bytes),
          HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(hipdnnBackendCreateAndDeserializeGraph_ext(&d, NULL, 16),
          HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(hipdnnBackendCreateAndDeserializeGraph_ext(&d, bytes, 0), HIPDNN_STATUS_BAD_PARAM);
    TU_EQ(hipdnnBackendCreateAndDeserializeGraph_ext(&d, bytes, sizeof bytes),
          HIPDNN_STATUS_BAD_PARAM);
    TU_EQ(hipdnnBackendCreateAndDeserializeJsonGraph_ext(NULL, "{}", 2),
          HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&d, NULL, 2),
          HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&d, "{}", 0), HIPDNN_STATUS_BAD_PARAM);
    TU_EQ(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&d, "", 1), HIPDNN_STATUS_BAD_PARAM);
    cr_expect_eq(d, sentinel, "the output was written by a failed call");
}

/* A tensor [4] FLOAT named `name` (len bytes) through the API; returns the finalize status. */
static hipdnnStatus_t named_tensor(const char *name, int64_t len, hipdnnBackendDescriptor_t *out)
{
    int64_t dims[] = {4}, uid = 3;
    hipdnnDataType_t dt = HIPDNN_DATA_FLOAT;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, out));
    TU_OK(hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_UNIQUE_ID, HIPDNN_TYPE_INT64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &dt));
    TU_OK(hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 1, dims));
    TU_OK(hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_STRIDES, HIPDNN_TYPE_INT64, 1, (int64_t[]){1}));
    hipdnnStatus_t st = hipdnnBackendSetAttribute(*out, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR, len, name);
    return st == HIPDNN_STATUS_SUCCESS ? hipdnnBackendFinalize(*out) : st;
}

/* Names are text: a NUL byte inside one is refused (through the API and in a FlatBuffer, whose
 * strings may hold any byte), so the JSON a graph is written as always reads back; a trailing
 * terminator counted in the length is dropped. */
Test(api, a_name_with_a_nul_byte_is_refused, .init = setup, .fini = teardown)
{
    hipdnnBackendDescriptor_t t;
    TU_EQ(named_tensor("a\0b", 3, &t), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "HIPDNN_ATTR_TENSOR_NAME_EXT: the text has a NUL byte at offset 1") != NULL,
              "%s", tu_msg());
    hipdnnBackendDestroyDescriptor(t);
    TU_OK(named_tensor("abc", 4, &t)); /* "abc" and its terminator */
    char got[8] = "zzzzzzz";
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_NAME_EXT, HIPDNN_TYPE_CHAR, sizeof got, &n, got));
    cr_expect_str_eq(got, "abc");
    hipdnnBackendDestroyDescriptor(t);

    /* a FlatBuffer whose first name (from the JSON text: renamed "xqqy...") becomes "x\0qy..." */
    sz_graph g;
    const rc_desc *spec = rc_spec_of(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    sz_build(&g, handle, &spec, 1, 0, true);
    char *text = sz_json_text(g.graph);
    char *name = strstr(text, "\"name\": \"");
    cr_assert(name != NULL && strlen(name) > 16, "the graph's JSON has a long enough name");
    memcpy(name + 9, "xqqy", 4);
    hipdnnBackendDescriptor_t renamed = NULL;
    TU_OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&renamed, text, strlen(text)));
    free(text);
    size_t len = 0;
    uint8_t *bin = sz_binary(renamed, &len), *at = NULL;
    hipdnnBackendDestroyDescriptor(renamed);
    for (size_t i = 0; i + 4 <= len && at == NULL; i++)
        if (memcmp(bin + i, "xqqy", 4) == 0)
            at = bin + i;
    cr_assert_not_null(at);
    at[1] = '\0';
    hipdnnBackendDescriptor_t d = NULL;
    TU_EQ(hipdnnBackendCreateAndDeserializeGraph_ext(&d, bin, len), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "NUL byte") != NULL, "%s", tu_msg());
    free(bin);
    sz_free(&g);
}

/* The JSON length may or may not count a terminating NUL; bytes after it are not read. */
Test(api, json_terminator_is_optional, .init = setup, .fini = teardown)
{
    const rc_desc *specs[32];
    tu_seed("api::json_terminator_is_optional");
    int n = sz_op_specs(specs, 32);
    sz_graph g;
    sz_build(&g, handle, &specs[tu_range(0, n - 1)], 1, (int)tu_range(0, 1), true);
    char *text = sz_json_text(g.graph);
    size_t len = strlen(text);
    json_t *want = sz_json(g.graph);
    /* an exact-size heap copy without NUL, so reading past it is caught by ASan */
    char *exact = malloc(len);
    cr_assert_not_null(exact);
    memcpy(exact, text, len);
    hipdnnBackendDescriptor_t a = NULL, b = NULL;
    TU_OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&a, exact, len));
    TU_OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&b, text, len + 1));
    json_t *ja = sz_json(a), *jb = sz_json(b);
    sz_same(want, ja, "without NUL");
    sz_same(want, jb, "with NUL");
    json_decref(ja);
    json_decref(jb);
    json_decref(want);
    TU_OK(hipdnnBackendDestroyDescriptor(a));
    TU_OK(hipdnnBackendDestroyDescriptor(b));
    free(exact);
    free(text);
    sz_free(&g);
}

/* A graph the API would refuse cannot be serialized into existence. */
Test(api, an_invalid_unfinalized_graph_does_not_serialize, .init = setup, .fini = teardown)
{
    rc_ctx c;
    tu_seed("api::an_invalid_unfinalized_graph_does_not_serialize");
    rc_fill(&c, rc_spec_of(HIPDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR_EXT), false, handle);
    hipdnnBackendDescriptor_t op = rc_build(&c), g = NULL;
    hipdnnBackendDescriptor_t twice[2] = {op, op};
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    hipdnnStatus_t st = hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS,
                                                  HIPDNN_TYPE_BACKEND_DESCRIPTOR, 2, twice);
    if (st == HIPDNN_STATUS_SUCCESS) {
        size_t n = 0;
        TU_EQ(hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &n, NULL), HIPDNN_STATUS_BAD_PARAM);
        TU_EQ(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &n, NULL), HIPDNN_STATUS_BAD_PARAM);
    }
    /* and a graph without operations */
    hipdnnBackendDescriptor_t empty = NULL;
    size_t n = 0;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &empty));
    TU_EQ(hipdnnBackendGetSerializedBinaryGraph_ext(empty, 0, &n, NULL), HIPDNN_STATUS_BAD_PARAM);
    TU_OK(hipdnnBackendDestroyDescriptor(empty));
    TU_OK(hipdnnBackendDestroyDescriptor(g));
    TU_OK(hipdnnBackendDestroyDescriptor(op));
    rc_release(&c);
}

/* ---- the "HDGP" graph+plan container (hipdnn-api.md §3.5) ------------------------------------------------ */

/* table SerializedGraphAndPlan { graph_blob: [ubyte]; plan_blob: [ubyte]; } file_identifier "HDGP" */
static uint8_t *container(const uint8_t *graph, size_t len, const uint8_t *plan, size_t plan_len,
                          size_t *out_len)
{
    fe_fbb *b = fe_fbb_new();
    cr_assert_not_null(b);
    fe_fbt *root = fe_fbb_table(b);
    cr_assert_eq(fe_fbt_vec_scalars(root, 0, 1, len, graph), FE_FBB_OK);
    if (plan != NULL)
        cr_assert_eq(fe_fbt_vec_scalars(root, 1, 1, plan_len, plan), FE_FBB_OK);
    uint8_t *out = NULL;
    cr_assert_eq(fe_fbb_finish(b, root, "HDGP", &out, out_len), FE_FBB_OK);
    fe_fbb_free(b);
    return out;
}

Test(container, graph_inside_an_hdgp_container, .init = setup, .fini = teardown)
{
    const rc_desc *specs[32];
    tu_seed("container::graph_inside_an_hdgp_container");
    int n = sz_op_specs(specs, 32);
    sz_graph g;
    sz_build(&g, handle, &specs[tu_range(0, n - 1)], 1, (int)tu_range(0, 1), true);
    size_t len = 0, clen = 0;
    uint8_t *bin = sz_binary(g.graph, &len);
    uint8_t plan[37];
    tu_bytes(plan, sizeof plan);
    json_t *want = sz_json(g.graph);
    for (int with_plan = 0; with_plan < 2; with_plan++) {
        uint8_t *c = container(bin, len, with_plan ? plan : NULL, sizeof plan, &clen);
        hipdnnBackendDescriptor_t d = NULL;
        TU_OK(hipdnnBackendCreateAndDeserializeGraph_ext(&d, c, clen));
        json_t *got = sz_json(d);
        sz_same(want, got, with_plan ? "HDGP with a plan" : "HDGP graph only");
        json_decref(got);
        TU_OK(hipdnnBackendDestroyDescriptor(d));
        free(c);
    }
    /* an empty graph blob */
    uint8_t *c = container(bin, 0, NULL, 0, &clen);
    hipdnnBackendDescriptor_t d = NULL;
    TU_EQ(hipdnnBackendCreateAndDeserializeGraph_ext(&d, c, clen), HIPDNN_STATUS_BAD_PARAM);
    free(c);
    json_decref(want);
    free(bin);
    sz_free(&g);
}

/* ---- example graphs ------------------------------------------------------------------------------------ */

Test(examples, every_example_graph_round_trips, .init = setup, .fini = teardown)
{
    const char *dir = getenv("HIPDNN_TEST_GRAPHS_DIR");
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/*.json",
             dir != NULL && *dir ? dir : HIPDNN_SOURCE_DIR "/examples/graphs");
    glob_t gl;
    int rc = glob(pattern, 0, NULL, &gl);
    if (rc == GLOB_NOMATCH || (rc == 0 && gl.gl_pathc == 0)) {
        if (rc == 0)
            globfree(&gl);
        cr_skip_test("no example graphs match %s", pattern);
    }
    cr_assert_eq(rc, 0, "glob %s failed", pattern);
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        size_t len = 0;
        char *text = tu_read_file(gl.gl_pathv[i], &len);
        cr_expect_not_null(text, "%s: unreadable", gl.gl_pathv[i]);
        if (text == NULL)
            continue;
        hipdnnBackendDescriptor_t g = NULL;
        hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, len);
        free(text);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s: %s [%s]", gl.gl_pathv[i], tu_st(st), tu_msg());
        if (st != HIPDNN_STATUS_SUCCESS)
            continue;
        TU_OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                        &handle));
        st = hipdnnBackendFinalize(g);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s: finalize %s [%s]", gl.gl_pathv[i], tu_st(st),
                     tu_msg());
        check_round_trips(g, gl.gl_pathv[i]);
        TU_OK(hipdnnBackendDestroyDescriptor(g));
    }
    globfree(&gl);
}
