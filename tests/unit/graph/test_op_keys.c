/* test_op_keys.c — the graph key against the operation table (graph/fe_ops.def).
 *
 * For every row of the table (every operation class of fe_classes) and every attribute row of
 * its class that a kernel can depend on — a value, not a tensor, not FE_NO_KEY, not refused
 * or get-only — two graphs that differ in that attribute (built from JSON through the public
 * deserializer and finalized) must have different graph keys. The attribute list comes from
 * the library's own rows, so an attribute added there is covered at once: this test fails,
 * naming it, until `varies` below says how to set it to two valid values. An attribute whose
 * valid values require other fields (a phase and its statistics, a mode and its parameter)
 * sets them in both variants alike (a `ctx`), so only the attribute differs where it can.
 * Invariance: the same graphs with every uid renumbered, every name changed and the tensors
 * listed in reverse order give the same key.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/fe_engines.h"
#include "hipdnn_jit_custom_op.h"

static hipdnnHandle_t handle;

/* CustomOpAttributes' rows need a provider that owns their ids ("test.op", "test.other"). */
static int accept(const hipdnnJitCustomOpCall_t *c, char *why, size_t n) { return (void)c, (void)why, (void)n, 0; }
static const hipdnnJitCustomOpProvider_t test_provider = {
    .api_version = HIPDNN_JIT_CUSTOM_OP_API_VERSION, .name = "test", .version = "0", .check = accept,
    .reference = accept};

static void setup(void)
{
    cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS);
    if (fe_custom_find("test.op") == NULL)
        cr_assert_eq(hipdnnJitRegisterCustomOpProvider_ext(&test_provider), HIPDNN_STATUS_SUCCESS);
}
static void teardown(void) { hipdnnDestroy(handle); }
TestSuite(op_keys, .init = setup, .fini = teardown);

/* ---- the graphs ----------------------------------------------------------------------------- */

/* One op's base graph: its tensors ("uid name dtype d0xd1x.."; strides packed) and its node's
 * attributes (JSON with ' for "). */
typedef struct base {
    const char *table;
    const char *tensors;
    const char *attrs;
} base;

static const base bases[] = {
    {"PointwiseAttributes", "1 x FLOAT 2x8; 2 y FLOAT 2x8",
     "{'operation':'RELU_FWD','in_0_tensor_uid':1,'out_0_tensor_uid':2}"},
    {"MatmulAttributes", "1 a FLOAT 1x4x8; 2 b FLOAT 1x8x16; 3 c FLOAT 1x4x16",
     "{'a_tensor_uid':1,'b_tensor_uid':2,'c_tensor_uid':3}"},
    /* 1x1 filter, X 3x3, stride 2: Y is 2x2 with padding 0 or 1 on one side and any dilation,
     * so each can change alone (strides: X 2x2, Y 1x1 for stride 2 or 3) */
    {"ConvolutionFwdAttributes", "1 x FLOAT 1x4x3x3; 2 w FLOAT 4x4x1x1; 3 y FLOAT 1x4x2x2",
     "{'x_tensor_uid':1,'w_tensor_uid':2,'y_tensor_uid':3,'pre_padding':[0,0],'post_padding':[0,0],"
     "'stride':[2,2],'dilation':[1,1],'conv_mode':'CROSS_CORRELATION'}"},
    {"ConvolutionBwdAttributes", "1 dy FLOAT 1x4x2x2; 2 w FLOAT 4x4x1x1; 3 dx FLOAT 1x4x3x3",
     "{'dy_tensor_uid':1,'w_tensor_uid':2,'dx_tensor_uid':3,'pre_padding':[0,0],'post_padding':[0,0],"
     "'stride':[2,2],'dilation':[1,1],'conv_mode':'CROSS_CORRELATION'}"},
    {"ConvolutionWrwAttributes", "1 x FLOAT 1x4x3x3; 2 dy FLOAT 1x4x2x2; 3 dw FLOAT 4x4x1x1",
     "{'x_tensor_uid':1,'dy_tensor_uid':2,'dw_tensor_uid':3,'pre_padding':[0,0],'post_padding':[0,0],"
     "'stride':[2,2],'dilation':[1,1],'conv_mode':'CROSS_CORRELATION'}"},
    {"BatchnormInferenceAttributes",
     "1 x FLOAT 2x4x3x3; 2 m FLOAT 1x4x1x1; 3 v FLOAT 1x4x1x1; 4 s FLOAT 1x4x1x1; 5 b FLOAT 1x4x1x1; "
     "6 y FLOAT 2x4x3x3",
     "{'x_tensor_uid':1,'mean_tensor_uid':2,'inv_variance_tensor_uid':3,'scale_tensor_uid':4,"
     "'bias_tensor_uid':5,'y_tensor_uid':6}"},
    {"BatchnormInferenceAttributesVarianceExt",
     "1 x FLOAT 2x4x3x3; 2 m FLOAT 1x4x1x1; 3 v FLOAT 1x4x1x1; 4 s FLOAT 1x4x1x1; 5 b FLOAT 1x4x1x1; "
     "6 y FLOAT 2x4x3x3; 7 e FLOAT 1x1x1x1",
     "{'x_tensor_uid':1,'mean_tensor_uid':2,'variance_tensor_uid':3,'scale_tensor_uid':4,"
     "'bias_tensor_uid':5,'y_tensor_uid':6,'epsilon_tensor_uid':7}"},
    {"BatchnormAttributes",
     "1 x FLOAT 2x4x3x3; 2 s FLOAT 1x4x1x1; 3 b FLOAT 1x4x1x1; 4 e FLOAT 1x1x1x1; 5 y FLOAT 2x4x3x3",
     "{'x_tensor_uid':1,'scale_tensor_uid':2,'bias_tensor_uid':3,'epsilon_tensor_uid':4,'y_tensor_uid':5}"},
    {"BatchnormBackwardAttributes",
     "1 dy FLOAT 2x4x3x3; 2 x FLOAT 2x4x3x3; 3 m FLOAT 1x4x1x1; 4 v FLOAT 1x4x1x1; 5 s FLOAT 1x4x1x1; "
     "6 dx FLOAT 2x4x3x3; 7 ds FLOAT 1x4x1x1; 8 db FLOAT 1x4x1x1",
     "{'dy_tensor_uid':1,'x_tensor_uid':2,'mean_tensor_uid':3,'inv_variance_tensor_uid':4,"
     "'scale_tensor_uid':5,'dx_tensor_uid':6,'dscale_tensor_uid':7,'dbias_tensor_uid':8}"},
    {"GenStatsAttributesExt", "1 x FLOAT 2x4x3x3; 2 s FLOAT 1x4x1x1; 3 q FLOAT 1x4x1x1",
     "{'x_tensor_uid':1,'sum_tensor_uid':2,'sq_sum_tensor_uid':3}"},
    {"LayernormAttributes",
     "1 x FLOAT 2x4x8; 2 s FLOAT 1x4x8; 3 b FLOAT 1x4x8; 4 e FLOAT 1x1x1; 5 y FLOAT 2x4x8; "
     "6 m FLOAT 2x1x1; 7 v FLOAT 2x1x1",
     "{'x_tensor_uid':1,'scale_tensor_uid':2,'bias_tensor_uid':3,'epsilon_tensor_uid':4,"
     "'y_tensor_uid':5,'mean_tensor_uid':6,'inv_variance_tensor_uid':7,'forward_phase':'TRAINING'}"},
    {"RMSNormAttributes", "1 x FLOAT 2x8; 2 s FLOAT 1x8; 3 e FLOAT 1x1; 4 y FLOAT 2x8; 5 r FLOAT 2x1",
     "{'x_tensor_uid':1,'scale_tensor_uid':2,'epsilon_tensor_uid':3,'y_tensor_uid':4,"
     "'inv_rms_tensor_uid':5,'forward_phase':'TRAINING'}"},
    {"SdpaAttributes", "1 q FLOAT 1x2x8x16; 2 k FLOAT 1x2x8x16; 3 v FLOAT 1x2x8x16; 4 o FLOAT 1x2x8x16",
     "{'q_tensor_uid':1,'k_tensor_uid':2,'v_tensor_uid':3,'o_tensor_uid':4}"},
    {"SdpaBackwardAttributes",
     "1 q FLOAT 1x2x8x16; 2 k FLOAT 1x2x8x16; 3 v FLOAT 1x2x8x16; 4 o FLOAT 1x2x8x16; "
     "5 do FLOAT 1x2x8x16; 6 st FLOAT 1x2x8x1; 7 dq FLOAT 1x2x8x16; 8 dk FLOAT 1x2x8x16; "
     "9 dv FLOAT 1x2x8x16",
     "{'q_tensor_uid':1,'k_tensor_uid':2,'v_tensor_uid':3,'o_tensor_uid':4,'do_tensor_uid':5,"
     "'stats_tensor_uid':6,'dq_tensor_uid':7,'dk_tensor_uid':8,'dv_tensor_uid':9}"},
    {"PagedCacheLoadAttributesExt",
     "1 c FLOAT 4x2x4x16; 2 y FLOAT 1x2x8x16; 3 sl INT32 1x1x1x1; 4 pt INT32 1x1x2x1",
     "{'container_tensor_uid':1,'y_tensor_uid':2,'seq_len_tensor_uid':3,'page_table_tensor_uid':4}"},
    {"BlockScaleQuantizeAttributes", "1 x FLOAT 4x64; 2 y FP8_E4M3 4x64; 3 s FP8_E8M0 4x2",
     "{'x_tensor_uid':1,'y_tensor_uid':2,'scale_tensor_uid':3,'block_size':32}"},
    {"BlockScaleDequantizeAttributes", "1 x FP8_E4M3 4x64; 2 s FP8_E8M0 4x2; 3 y FLOAT 4x64",
     "{'x_tensor_uid':1,'scale_tensor_uid':2,'y_tensor_uid':3,'block_size':[1,32]}"},
    {"CustomOpAttributes", "1 x FLOAT 2x8; 2 y FLOAT 2x8",
     "{'custom_op_id':'test.op','input_tensor_uids':[1],'output_tensor_uids':[2]}"},
};

/* How to vary one attribute: the field set to a, then to b (JSON with ' for "), after `ctx`
 * (fields set in both variants; null removes one) and, for b only, `b_ctx` and `b_tensors`
 * (another tensor list, where the attribute's valid values follow the tensors' shapes);
 * `tensors` replaces the base's tensors in both. "compute_data_type" is the node's compute
 * type (the class's COMP row). */
typedef struct vary {
    const char *table, *field;
    const char *a, *b;
    const char *ctx, *b_ctx, *b_tensors, *tensors;
} vary;

#define CONV_VARIES(T, STRIDE_TENSORS)                                                          \
    {T, "pre_padding", "[0,0]", "[1,1]", NULL, NULL, NULL, NULL},                                     \
    {T, "post_padding", "[0,0]", "[1,1]", NULL, NULL, NULL, NULL},                                    \
    {T, "stride", "[2,2]", "[3,3]", NULL, NULL, NULL, STRIDE_TENSORS},                          \
    {T, "dilation", "[1,1]", "[2,2]", NULL, NULL, NULL, NULL},                                        \
    {T, "conv_mode", "'CROSS_CORRELATION'", "'CONVOLUTION'", NULL, NULL, NULL, NULL},                 \
    {T, "compute_data_type", "'FLOAT'", "'HALF'", NULL, NULL, NULL, NULL}
#define COMPUTE_VARIES(T) {T, "compute_data_type", "'FLOAT'", "'HALF'", NULL, NULL, NULL, NULL}
#define SDPA_VARIES(T)                                                                          \
    {T, "alibi_mask", "false", "true", "{'right_bound':0}", NULL, NULL, NULL},                                       \
    {T, "causal_mask", "false", "true", NULL, NULL, NULL, NULL},                                      \
    {T, "causal_mask_bottom_right", "false", "true", NULL, NULL, NULL, NULL},                         \
    {T, "attn_scale_value", "0.5", "0.25", NULL, NULL, NULL, NULL},                                   \
    {T, "left_bound", "2", "3", "{'right_bound':0}", NULL, NULL, NULL},                               \
    {T, "right_bound", "0", "1", NULL, NULL, NULL, NULL},                                             \
    {T, "diagonal_alignment", "'TOP_LEFT'", "'BOTTOM_RIGHT'", "{'right_bound':0}", NULL, NULL, NULL}, \
    {T, "compute_data_type", "'FLOAT'", "'HALF'", NULL, NULL, NULL, NULL}

/* SDPA with two more one-element INT32 tensors (uids 10, 11): sequence lengths or the
 * dropout's seed and offset */
#define SDPA_FWD_EXTRA                                                                          \
    "1 q FLOAT 1x2x8x16; 2 k FLOAT 1x2x8x16; 3 v FLOAT 1x2x8x16; 4 o FLOAT 1x2x8x16; "        \
    "10 a INT32 1x1x1x1; 11 b INT32 1x1x1x1"
#define SDPA_BWD_EXTRA                                                                          \
    "1 q FLOAT 1x2x8x16; 2 k FLOAT 1x2x8x16; 3 v FLOAT 1x2x8x16; 4 o FLOAT 1x2x8x16; "        \
    "5 do FLOAT 1x2x8x16; 6 st FLOAT 1x2x8x1; 7 dq FLOAT 1x2x8x16; 8 dk FLOAT 1x2x8x16; "     \
    "9 dv FLOAT 1x2x8x16; 10 a INT32 1x1x1x1; 11 b INT32 1x1x1x1"
#define SEQ_LENS "{'seq_len_q_tensor_uid':10,'seq_len_kv_tensor_uid':11}"
#define SEED_OFFSET "{'seed_tensor_uid':10,'offset_tensor_uid':11}"

static const vary varies[] = {
    {"PointwiseAttributes", "operation", "'RELU_FWD'", "'TANH_FWD'", NULL, NULL, NULL, NULL},
    {"PointwiseAttributes", "relu_lower_clip", "0.0", "0.5", NULL, NULL, NULL, NULL},
    {"PointwiseAttributes", "relu_upper_clip", "6.0", "3.0", NULL, NULL, NULL, NULL},
    {"PointwiseAttributes", "relu_lower_clip_slope", "0.0", "0.125", NULL, NULL, NULL, NULL},
    {"PointwiseAttributes", "axis_tensor_uid", "0", "1", "{'operation':'GEN_INDEX'}", NULL, NULL, NULL},
    {"PointwiseAttributes", "swish_beta", "1.0", "2.0", "{'operation':'SWISH_FWD'}", NULL, NULL, NULL},
    {"PointwiseAttributes", "elu_alpha", "1.0", "2.0", "{'operation':'ELU_FWD'}", NULL, NULL, NULL},
    {"PointwiseAttributes", "softplus_beta", "1.0", "2.0", "{'operation':'SOFTPLUS_FWD'}", NULL, NULL, NULL},
    COMPUTE_VARIES("PointwiseAttributes"),
    COMPUTE_VARIES("MatmulAttributes"),
    CONV_VARIES("ConvolutionFwdAttributes", "1 x FLOAT 1x4x2x2; 2 w FLOAT 4x4x1x1; 3 y FLOAT 1x4x1x1"),
    CONV_VARIES("ConvolutionBwdAttributes", "1 dy FLOAT 1x4x1x1; 2 w FLOAT 4x4x1x1; 3 dx FLOAT 1x4x2x2"),
    CONV_VARIES("ConvolutionWrwAttributes", "1 x FLOAT 1x4x2x2; 2 dy FLOAT 1x4x1x1; 3 dw FLOAT 4x4x1x1"),
    COMPUTE_VARIES("BatchnormInferenceAttributes"),
    COMPUTE_VARIES("BatchnormInferenceAttributesVarianceExt"),
    COMPUTE_VARIES("BatchnormAttributes"),
    COMPUTE_VARIES("BatchnormBackwardAttributes"),
    COMPUTE_VARIES("GenStatsAttributesExt"),
    {"LayernormAttributes", "forward_phase", "'TRAINING'", "'INFERENCE'", NULL,
     "{'mean_tensor_uid':null,'inv_variance_tensor_uid':null}",
     "1 x FLOAT 2x4x8; 2 s FLOAT 1x4x8; 3 b FLOAT 1x4x8; 4 e FLOAT 1x1x1; 5 y FLOAT 2x4x8", NULL},
    {"LayernormAttributes", "normalized_dim_count", "2", "1", NULL, NULL,
     "1 x FLOAT 2x4x8; 2 s FLOAT 1x1x8; 3 b FLOAT 1x1x8; 4 e FLOAT 1x1x1; 5 y FLOAT 2x4x8; "
     "6 m FLOAT 2x4x1; 7 v FLOAT 2x4x1", NULL},
    COMPUTE_VARIES("LayernormAttributes"),
    {"RMSNormAttributes", "forward_phase", "'TRAINING'", "'INFERENCE'", NULL,
     "{'inv_rms_tensor_uid':null}", "1 x FLOAT 2x8; 2 s FLOAT 1x8; 3 e FLOAT 1x1; 4 y FLOAT 2x8", NULL},
    COMPUTE_VARIES("RMSNormAttributes"),
    SDPA_VARIES("SdpaAttributes"),
    {"SdpaAttributes", "padding_mask", "false", "true", SEQ_LENS, NULL, NULL, SDPA_FWD_EXTRA},
    {"SdpaAttributes", "dropout_probability", "0.0", "0.25", SEED_OFFSET, NULL, NULL, SDPA_FWD_EXTRA},
    SDPA_VARIES("SdpaBackwardAttributes"),
    {"SdpaBackwardAttributes", "padding_mask", "false", "true", SEQ_LENS, NULL, NULL, SDPA_BWD_EXTRA},
    {"SdpaBackwardAttributes", "dropout_probability", "0.0", "0.25", SEED_OFFSET, NULL, NULL,
     SDPA_BWD_EXTRA},
    COMPUTE_VARIES("PagedCacheLoadAttributesExt"),
    {"BlockScaleQuantizeAttributes", "block_size", "32", "16", NULL, NULL,
     "1 x FLOAT 4x64; 2 y FP8_E4M3 4x64; 3 s FP8_E8M0 4x4", NULL},
    {"BlockScaleQuantizeAttributes", "axis", "1", "0", NULL, NULL,
     "1 x FLOAT 64x4; 2 y FP8_E4M3 64x4; 3 s FP8_E8M0 2x4", NULL},
    {"BlockScaleQuantizeAttributes", "transpose", "false", "true", NULL, NULL, NULL, NULL},
    COMPUTE_VARIES("BlockScaleQuantizeAttributes"),
    {"BlockScaleDequantizeAttributes", "block_size", "[1,32]", "[1,16]", NULL, NULL,
     "1 x FP8_E4M3 4x64; 2 s FP8_E8M0 4x4; 3 y FLOAT 4x64", NULL},
    {"BlockScaleDequantizeAttributes", "is_negative_scale", "false", "true", NULL, NULL, NULL, NULL},
    COMPUTE_VARIES("BlockScaleDequantizeAttributes"),
    {"CustomOpAttributes", "custom_op_id", "'test.op'", "'test.other'", NULL, NULL, NULL, NULL},
    {"CustomOpAttributes", "data", "[1,2,3]", "[1,2,4]", NULL, NULL, NULL, NULL},
    COMPUTE_VARIES("CustomOpAttributes"),
};

/* ---- building and keying -------------------------------------------------------------------- */

static json_t *parse(const char *text)
{
    char *t = strdup(text);
    for (char *c = t; *c; c++)
        *c = *c == '\'' ? '"' : *c;
    json_error_t err;
    json_t *j = json_loads(t, JSON_DECODE_ANY, &err);
    cr_assert_not_null(j, "bad test JSON %s: %s", text, err.text);
    free(t);
    return j;
}

/* "uid name dtype d0xd1x..; ..." -> the JSON tensors, strides packed. */
static json_t *tensors_of(const char *spec)
{
    json_t *arr = json_array();
    char *copy = strdup(spec), *save = NULL;
    for (char *item = strtok_r(copy, ";", &save); item != NULL; item = strtok_r(NULL, ";", &save)) {
        long long uid;
        char name[32], dtype[32], dims[64];
        cr_assert_eq(sscanf(item, " %lld %31s %31s %63s", &uid, name, dtype, dims), 4, "%s", item);
        int64_t d[8];
        int r = 0;
        for (char *p = dims; *p && r < 8; p += *p == 'x')
            d[r++] = strtoll(p, &p, 10);
        json_t *jd = json_array(), *js = json_array();
        int64_t stride = 1, st[8];
        for (int i = r - 1; i >= 0; i--)
            st[i] = stride, stride *= d[i];
        for (int i = 0; i < r; i++)
            json_array_append_new(jd, json_integer(d[i])), json_array_append_new(js, json_integer(st[i]));
        json_t *t = json_object();
        json_object_set_new(t, "uid", json_integer(uid));
        json_object_set_new(t, "name", json_string(name));
        json_object_set_new(t, "data_type", json_string(dtype));
        json_object_set_new(t, "strides", js);
        json_object_set_new(t, "dims", jd);
        json_array_append_new(arr, t);
    }
    free(copy);
    return arr;
}

static json_t *graph_of(const char *table, const char *tensors, const char *attrs)
{
    json_t *g = json_object(), *node = json_object(), *nodes = json_array();
    json_object_set_new(g, "name", json_string("op_keys"));
    json_object_set_new(g, "tensors", tensors_of(tensors));
    json_object_set_new(node, "name", json_string("op"));
    json_object_set_new(node, "compute_data_type", json_string("FLOAT"));
    json_object_set_new(node, "attributes_type", json_string(table));
    json_object_set_new(node, "attributes", parse(attrs));
    json_array_append_new(nodes, node);
    json_object_set_new(g, "nodes", nodes);
    return g;
}

/* Sets field (null: removes it) on the node or its attributes. */
static void set_field(json_t *g, const char *field, json_t *v)
{
    json_t *node = json_array_get(json_object_get(g, "nodes"), 0);
    json_t *obj = strcmp(field, "compute_data_type") == 0 ? node : json_object_get(node, "attributes");
    if (json_is_null(v))
        json_object_del(obj, field);
    else
        json_object_set(obj, field, v);
}

static void merge(json_t *g, const char *ctx)
{
    if (ctx == NULL)
        return;
    json_t *c = parse(ctx), *v;
    const char *k;
    json_object_foreach(c, k, v)
        set_field(g, k, v);
    json_decref(c);
}

/* The graph key of a JSON graph; false (and why) when it is not a valid graph. */
static bool key_of(json_t *g, char key[33], char *why, size_t why_len)
{
    char *text = json_dumps(g, JSON_COMPACT);
    hipdnnBackendDescriptor_t d = NULL;
    hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeJsonGraph_ext(&d, text, strlen(text));
    if (st == HIPDNN_STATUS_SUCCESS)
        st = hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = hipdnnBackendFinalize(d);
    int64_t n = 0;
    if (st == HIPDNN_STATUS_SUCCESS)
        st = hipdnnBackendGetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR, 33, &n, key);
    if (st != HIPDNN_STATUS_SUCCESS)
        hipdnnGetLastErrorString(why, why_len);
    hipdnnBackendDestroyDescriptor(d);
    free(text);
    return st == HIPDNN_STATUS_SUCCESS;
}

static const base *base_of(const char *table)
{
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
        if (strcmp(bases[i].table, table) == 0)
            return &bases[i];
    return NULL;
}

static const vary *vary_of(const char *table, const char *field)
{
    for (size_t i = 0; i < sizeof varies / sizeof varies[0]; i++)
        if (strcmp(varies[i].table, table) == 0 && strcmp(varies[i].field, field) == 0)
            return &varies[i];
    return NULL;
}

/* Does a kernel depend on this row (by the table's own flags)? */
static bool affects_kernel(const fe_attr *a)
{
    if (a->flags & (FE_NO_KEY | FE_REFUSED | FE_GET_ONLY))
        return false;
    return a->wire != FE_W_UID && a->wire != FE_W_UIDS && a->wire != FE_W_NONE && a->field != NULL;
}

/* The example graph whose SDPA has a score modifier, with its TANH step made `op`. */
static json_t *softcap_with(const char *op)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/graphs/sdpa_softcap.json", HIPDNN_SOURCE_DIR);
    json_t *g = json_load_file(path, 0, NULL);
    cr_assert_not_null(g, "%s", path);
    json_t *sub = json_object_get(json_object_get(json_array_get(json_object_get(g, "nodes"), 0),
                                                  "attributes"), "score_mod_graph");
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(sub, "nodes"), i, n) {
        json_t *at = json_object_get(n, "attributes");
        if (strcmp(json_string_value(json_object_get(at, "operation")), "TANH_FWD") == 0)
            json_object_set_new(at, "operation", json_string(op));
    }
    return g;
}

/* `table`'s base graph (SDPA forward or backward: scores [1,2,8,8]) with a mask modifier keeping
 * the scores where col `cmp` row (CMP_LE: causal). */
static json_t *mask_with(const char *table, const char *cmp)
{
    const base *b = base_of(table);
    json_t *g = graph_of(b->table, b->tensors, b->attrs), *sub = json_object(), *nodes = json_array();
    json_t *ts = tensors_of("100 idx INT32 1x2x8x8; 101 row INT32 1x2x8x8; 102 col INT32 1x2x8x8; "
                            "103 keep BOOLEAN 1x2x8x8");
    for (size_t i = 1; i < 4; i++)
        json_object_set_new(json_array_get(ts, i), "virtual", json_true());
    char node[3][256];
    snprintf(node[0], sizeof node[0], "{'operation':'GEN_INDEX','axis_tensor_uid':2,'in_0_tensor_uid':100,'out_0_tensor_uid':101}");
    snprintf(node[1], sizeof node[1], "{'operation':'GEN_INDEX','axis_tensor_uid':3,'in_0_tensor_uid':100,'out_0_tensor_uid':102}");
    snprintf(node[2], sizeof node[2], "{'operation':'%s','in_0_tensor_uid':102,'in_1_tensor_uid':101,'out_0_tensor_uid':103}", cmp);
    for (int i = 0; i < 3; i++) {
        json_t *n = json_object();
        json_object_set_new(n, "name", json_string("mask_op"));
        json_object_set_new(n, "compute_data_type", json_string("FLOAT"));
        json_object_set_new(n, "attributes_type", json_string("PointwiseAttributes"));
        json_object_set_new(n, "attributes", parse(node[i]));
        json_array_append_new(nodes, n);
    }
    json_object_set_new(sub, "name", json_string("mask"));
    json_object_set_new(sub, "compute_data_type", json_string("FLOAT"));
    json_object_set_new(sub, "tensors", ts);
    json_object_set_new(sub, "nodes", nodes);
    set_field(g, "mask_mod_graph", sub);
    json_decref(sub);
    merge(g, "{'mask_mod_input_uid':100,'mask_mod_output_uid':103}");
    return g;
}

/* ---- the tests ------------------------------------------------------------------------------------ */

/* Every operation of the table, every attribute a kernel can depend on: two values, two keys. */
Test(op_keys, every_kernel_attribute_changes_the_key)
{
    int n_ops = 0, n_checked = 0;
    for (int c = 0; c < fe_n_classes; c++) {
        const fe_class *cls = fe_classes[c];
        if (cls == NULL || cls->op_type == 0)
            continue;
        n_ops++;
        const base *b = base_of(cls->table);
        cr_assert_not_null(b, "%s (%s) has no base graph in test_op_keys.c", cls->name, cls->table);
        char k0[33], why[512] = "";
        json_t *g0 = graph_of(b->table, b->tensors, b->attrs);
        cr_assert(key_of(g0, k0, why, sizeof why), "%s: the base graph is not valid: %s", cls->table, why);
        json_decref(g0);
        for (int i = 0; i < cls->n_attrs; i++) {
            const fe_attr *a = &cls->attrs[i];
            if (!affects_kernel(a))
                continue;
            char ka[33], kb[33];
            json_t *ga, *gb;
            if (a->wire == FE_W_GRAPH && strcmp(a->field, "mask_mod_graph") == 0) { /* one comparison changed */
                ga = mask_with(cls->table, "CMP_LE"), gb = mask_with(cls->table, "CMP_LT");
            } else if (a->wire == FE_W_GRAPH) { /* a sub-graph: one of its steps changed */
                cr_assert_str_eq(a->field, "score_mod_graph", "%s: test_op_keys.c does not vary this sub-graph", a->name);
                ga = softcap_with("TANH_FWD"), gb = softcap_with("SIGMOID_FWD");
            } else {
                const vary *v = vary_of(cls->table, a->field);
                cr_assert_not_null(v, "%s of %s (%s field '%s') affects kernels but test_op_keys.c "
                                   "does not vary it: add it to `varies`, or mark its row FE_NO_KEY "
                                   "saying why", a->name, cls->name, cls->table, a->field);
                const char *ts = v->tensors ? v->tensors : b->tensors;
                ga = graph_of(b->table, ts, b->attrs);
                gb = graph_of(b->table, v->b_tensors ? v->b_tensors : ts, b->attrs);
                merge(ga, v->ctx), merge(gb, v->ctx), merge(gb, v->b_ctx);
                json_t *va = parse(v->a), *vb = parse(v->b);
                set_field(ga, v->field, va), set_field(gb, v->field, vb);
                json_decref(va), json_decref(vb);
            }
            cr_assert(key_of(ga, ka, why, sizeof why), "%s = a: not a valid graph: %s", a->name, why);
            cr_assert(key_of(gb, kb, why, sizeof why), "%s = b: not a valid graph: %s", a->name, why);
            cr_expect_str_neq(ka, kb, "%s of %s: two values, one graph key", a->name, cls->name);
            json_decref(ga), json_decref(gb);
            n_checked++;
        }
    }
    cr_expect_eq(n_ops, 18, "the table has %d operations", n_ops);
    cr_log_info("%d attributes of %d operations change the key", n_checked, n_ops);
}

/* Adds `by` to every uid (tensors and *_uid / *_uids fields), renames everything, reverses the
 * tensor list. */
static void renumber(json_t *j, int64_t by)
{
    const char *k;
    json_t *v, *e;
    size_t i;
    if (json_is_array(j)) {
        json_array_foreach(j, i, v)
            renumber(v, by);
        return;
    }
    json_object_foreach(j, k, v) {
        size_t n = strlen(k);
        bool uid = strcmp(k, "uid") == 0 || (n > 4 && strcmp(k + n - 4, "_uid") == 0 &&
                                              strcmp(k, "axis_tensor_uid") != 0); /* GEN_INDEX's axis */
        bool uids = n > 5 && strcmp(k + n - 5, "_uids") == 0;
        if (uid && json_is_integer(v))
            json_integer_set(v, json_integer_value(v) + by);
        else if (uids)
            json_array_foreach(v, i, e) json_integer_set(e, json_integer_value(e) + by);
        else if (strcmp(k, "name") == 0 && json_is_string(v))
            json_string_set(v, "renamed");
        else if (json_is_object(v) || json_is_array(v))
            renumber(v, by);
    }
}

static void reverse(json_t *g, const char *list)
{
    json_t *t = json_object_get(g, list), *r = json_array();
    for (size_t i = json_array_size(t); i > 0; i--)
        json_array_append(r, json_array_get(t, i - 1));
    json_object_set_new(g, list, r);
}

/* Every operation's base graph, and graphs of several ops with a score or mask modifier: uids,
 * names and the order of tensors and of ops do not reach the key. */
Test(op_keys, uids_names_and_order_do_not_change_the_key)
{
    json_t *mods[3] = {softcap_with("TANH_FWD"), mask_with("SdpaAttributes", "CMP_LE"),
                       mask_with("SdpaBackwardAttributes", "CMP_LE")};
    for (int i = 0; i < 3; i++) {
        char s0[33], s1[33], swhy[512] = "";
        cr_assert(key_of(mods[i], s0, swhy, sizeof swhy), "modifier graph %d: %s", i, swhy);
        renumber(mods[i], 1000);
        reverse(mods[i], "tensors"), reverse(mods[i], "nodes");
        cr_assert(key_of(mods[i], s1, swhy, sizeof swhy), "modifier graph %d renumbered: %s", i, swhy);
        cr_expect_str_eq(s0, s1, "modifier graph %d: renumbering, renaming and reordering changed the key", i);
        json_decref(mods[i]);
    }
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        char k0[33], k1[33], why[512] = "";
        json_t *g = graph_of(bases[i].table, bases[i].tensors, bases[i].attrs);
        cr_assert(key_of(g, k0, why, sizeof why), "%s: %s", bases[i].table, why);
        renumber(g, 1000);
        reverse(g, "tensors"), reverse(g, "nodes");
        cr_assert(key_of(g, k1, why, sizeof why), "%s renumbered: %s", bases[i].table, why);
        cr_expect_str_eq(k0, k1, "%s: renumbering uids, renaming and reordering changed the key",
                         bases[i].table);
        json_decref(g);
    }
}
