/* fe_json_model.c — operation graph descriptors <-> the graph's JSON object model.
 *
 * The JSON model mirrors the FlatBuffer schema (schema/hipdnn_graph.fbs) field for field in
 * flatc's JSON dialect: tables are objects keyed by field name, enums by name, a union as
 * "<field>_type": "<Member>" plus "<field>": {...}. It is the hub of serialization:
 *   descriptors --fe_graph_to_json--> JSON model --fe_fb_encode_graph--> FlatBuffer bytes
 *   descriptors <-fe_graph_from_json-- JSON model <-fe_fb_decode_graph-- FlatBuffer bytes
 * Reading builds every tensor and operation through the same attribute setters and finalize
 * checks as the public API, so a file can never produce a graph the API would refuse.
 * Fields are written when the attribute is set, in schema order; reading accepts any order.
 * Defaults follow FlatBuffers: a scalar field equal to its schema default is left out when
 * writing (tensor uids excepted: they are identities, always written) and an absent one reads
 * as that default (fe_wire_default), unless the schema makes it optional ("= null", FE_NULL):
 * then absent means unset. hipDNN's frontend numbers tensors from uid 0, so its uid-0 tensors
 * arrive with no uid at all. A node that needs a compute_data_type and has none takes the
 * graph's.
 * A graph-valued attribute (an SDPA score or mask modifier, FE_W_GRAPH) is a nested Graph
 * object; reading one accepts POINTWISE nodes only (so nesting stops at one level), builds
 * it like a top-level graph and finalizes it with a placeholder handle (score_mod_handle: a
 * sub-graph is never executed on its own; do not hipdnnDestroy what its HANDLE query gives).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/fe_graph.h"
#include "serialize/fe_serialize.h"

#define MFAIL(...) base_fail(HIPDNN_STATUS_BAD_PARAM, "graph JSON: " __VA_ARGS__)

static hipdnnStatus_t oom(void)
{
    return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "serializing a graph: out of memory");
}

/* Re-raises the current last error with a context prefix. */
static hipdnnStatus_t with_context(hipdnnStatus_t st, const char *ctx)
{
    char prev[HIPDNN_ERROR_STRING_MAX_LENGTH];
    base_last_error(prev, sizeof prev, false);
    return base_fail(st, "%s: %s", ctx, prev);
}

/* ---- value conversions shared by both directions --------------------------------------------------- */

static const char *dtype_json_name(int api_value)
{
    return fe_enum_to_name("DataType", fe_dtype_to_wire((hipdnnDataType_t)api_value));
}

static bool dtype_from_json(const json_t *j, int *api_value)
{
    int w;
    hipdnnDataType_t t;
    if (json_is_string(j) && fe_enum_from_name("DataType", json_string_value(j), &w) &&
        fe_dtype_from_wire(w, &t)) {
        *api_value = (int)t;
        return true;
    }
    if (json_is_integer(j) && fe_dtype_from_wire((int)json_integer_value(j), &t)) {
        *api_value = (int)t;
        return true;
    }
    return false;
}

/* ---- descriptors -> JSON ----------------------------------------------------------------------------- */

/* Appends v (taken over) to a; on failure releases both and returns NULL, so an element
 * lost to a failed allocation fails the whole array instead of silently shortening it. */
static json_t *push(json_t *a, json_t *v)
{
    if (json_array_append_new(a, v) == 0)
        return a;
    json_decref(a);
    return NULL;
}

static json_t *int_array(const void *arr, int64_t n, size_t elem)
{
    json_t *a = json_array();
    for (int64_t i = 0; a != NULL && i < n; i++) {
        json_int_t v = elem == 8 ? (json_int_t)((const int64_t *)arr)[i]
                                 : (json_int_t)((const int32_t *)arr)[i];
        a = push(a, json_integer(v));
    }
    return a;
}

static json_t *attr_to_json(const fe_attr *a, const fe_val *v)
{
    switch ((fe_wire)a->wire) {
    case FE_W_UID: return json_integer(fe_tensor(v->one.obj).uid);
    case FE_W_UIDS: {
        json_t *arr = json_array();
        for (int64_t i = 0; arr != NULL && i < v->n; i++)
            arr = push(arr, json_integer(fe_tensor(((fe_obj **)v->arr)[i]).uid));
        return arr;
    }
    case FE_W_I64: return json_integer(v->one.i64);
    case FE_W_I32: return json_integer(v->one.i32);
    case FE_W_I64S: return int_array(v->arr, v->n, 8);
    case FE_W_I32S: return int_array(v->arr, v->n, 4);
    case FE_W_F32: return fe_json_f32(v->one.f32);
    case FE_W_BOOL: return json_boolean(v->one.b);
    case FE_W_ENUM: return json_string(fe_enum_to_name(a->enum_name, v->one.e));
    case FE_W_DTYPE: return json_string(dtype_json_name(v->one.e));
    case FE_W_CONVMODE:
        return json_string(v->one.e == HIPDNN_CONVOLUTION ? "CONVOLUTION" : "CROSS_CORRELATION");
    case FE_W_STRING: return json_stringn(v->arr, (size_t)v->n);
    case FE_W_BYTES: {
        json_t *arr = json_array();
        for (int64_t i = 0; arr != NULL && i < v->n; i++)
            arr = push(arr, json_integer(((const unsigned char *)v->arr)[i]));
        return arr;
    }
    case FE_W_GRAPH: {
        json_t *sub = NULL;
        return fe_graph_to_json(v->one.obj, &sub) == HIPDNN_STATUS_SUCCESS ? sub : NULL;
    }
    case FE_W_NONE: break;
    }
    return NULL;
}

json_t *fe_wire_default(const fe_attr *a)
{
    if (a->field == NULL || (a->flags & FE_NULL))
        return NULL;
    switch ((fe_wire)a->wire) {
    case FE_W_UID:
    case FE_W_I64:
    case FE_W_I32: return json_integer(a->wire_dflt);
    case FE_W_F32: return json_real((double)a->wire_dflt);
    case FE_W_BOOL: return json_false();
    case FE_W_ENUM:
        return fe_enum_unset(a->enum_name, 0) ? NULL : json_string(fe_enum_to_name(a->enum_name, 0));
    case FE_W_NONE: case FE_W_UIDS: case FE_W_I32S: case FE_W_I64S: case FE_W_DTYPE:
    case FE_W_CONVMODE: case FE_W_STRING: case FE_W_BYTES: case FE_W_GRAPH:
        return NULL; /* DataType / ConvMode 0 is UNSET; strings, vectors, tables: none */
    }
    return NULL; /* a value outside the enum */
}

/* Whether v, the value of attribute a, is written: uids always, other fields unless equal to
 * the schema default (what a FlatBuffers writer leaves out). */
static bool worth_writing(const fe_attr *a, const json_t *v)
{
    if (a->wire == FE_W_UID || a->id == HIPDNN_ATTR_TENSOR_UNIQUE_ID)
        return true;
    json_t *d = fe_wire_default(a);
    bool same = d != NULL && json_equal(d, v);
    json_decref(d);
    return !same;
}

/* Adds every set, serialized attribute of o (except the compute type) to obj. */
static bool attrs_to_json(fe_obj *o, json_t *obj)
{
    for (int i = 0; i < o->cls->n_attrs; i++) {
        const fe_attr *a = &o->cls->attrs[i];
        if (a->wire == FE_W_NONE || (a->flags & FE_COMPUTE) || o->vals[i].n == 0)
            continue;
        json_t *v = attr_to_json(a, &o->vals[i]);
        if (v != NULL && !worth_writing(a, v)) {
            json_decref(v);
            continue;
        }
        if (json_object_set_new(obj, a->field, v) != 0)
            return false;
    }
    return true;
}

/* The schema's TensorValue member that carries a by-value scalar of type t. */
static const char *value_member(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FLOAT: return "Float32Value";
    case HIPDNN_DATA_DOUBLE: return "Float64Value";
    case HIPDNN_DATA_HALF: return "Float16Value";
    case HIPDNN_DATA_BFLOAT16: return "BFloat16Value";
    case HIPDNN_DATA_INT32: return "Int32Value";
    case HIPDNN_DATA_INT64: return "Int64Value";
    case HIPDNN_DATA_BOOLEAN: return "BoolValue";
    case HIPDNN_DATA_INT8: case HIPDNN_DATA_UINT8: case HIPDNN_DATA_FP8_E4M3:
    case HIPDNN_DATA_FP8_E5M2: case HIPDNN_DATA_FP8_E8M0: case HIPDNN_DATA_FP4_E2M1:
    case HIPDNN_DATA_INT4: case HIPDNN_DATA_FP6_E2M3_EXT: case HIPDNN_DATA_FP6_E3M2_EXT:
    case HIPDNN_DATA_FP8_E4M3_FNUZ: case HIPDNN_DATA_FP8_E5M2_FNUZ:
        return "Float8Value"; /* 1-byte types, the raw byte */
    }
    return "Float8Value"; /* a value outside the enum */
}

/* The by-value scalar's bytes as the JSON number of its TensorValue member. */
static json_t *value_number(hipdnnDataType_t t, const unsigned char *b)
{
    float f; double d; uint16_t h; int32_t i32; int64_t i64;
    switch (t) {
    case HIPDNN_DATA_FLOAT: memcpy(&f, b, 4); return fe_json_f32(f);
    case HIPDNN_DATA_DOUBLE: memcpy(&d, b, 8); return isfinite(d) ? json_real(d) : fe_json_f32((float)d);
    case HIPDNN_DATA_HALF: memcpy(&h, b, 2); return fe_json_f32(base_fp16_to_f32(h));
    case HIPDNN_DATA_BFLOAT16: memcpy(&h, b, 2); return fe_json_f32(base_bf16_to_f32(h));
    case HIPDNN_DATA_INT32: memcpy(&i32, b, 4); return json_integer(i32);
    case HIPDNN_DATA_INT64: memcpy(&i64, b, 8); return json_integer(i64);
    case HIPDNN_DATA_BOOLEAN: return json_boolean(b[0] != 0);
    case HIPDNN_DATA_INT8: case HIPDNN_DATA_UINT8: case HIPDNN_DATA_FP8_E4M3:
    case HIPDNN_DATA_FP8_E5M2: case HIPDNN_DATA_FP8_E8M0: case HIPDNN_DATA_FP4_E2M1:
    case HIPDNN_DATA_INT4: case HIPDNN_DATA_FP6_E2M3_EXT: case HIPDNN_DATA_FP6_E3M2_EXT:
    case HIPDNN_DATA_FP8_E4M3_FNUZ: case HIPDNN_DATA_FP8_E5M2_FNUZ: return json_integer(b[0]);
    }
    return json_integer(b[0]); /* a value outside the enum */
}

static bool value_to_json(fe_tensor_view t, const unsigned char *bytes, json_t *obj)
{
    json_t *s = json_object();
    if (s == NULL || json_object_set_new(s, "value", value_number(t.dtype, bytes)) != 0) {
        json_decref(s);
        return false;
    }
    if (json_object_set_new(obj, "value_type", json_string(value_member(t.dtype))) != 0) {
        json_decref(s);
        return false;
    }
    return json_object_set_new(obj, "value", s) == 0;
}

static json_t *tensor_to_json(fe_obj *t)
{
    json_t *obj = json_object();
    if (obj == NULL || !attrs_to_json(t, obj))
        goto fail;
    fe_val *val = fe_get(t, HIPDNN_ATTR_TENSOR_VALUE_EXT);
    if (val->n > 0 && !value_to_json(fe_tensor(t), val->arr, obj))
        goto fail;
    return obj;
fail:
    json_decref(obj);
    return NULL;
}

static json_t *node_to_json(fe_obj *op)
{
    json_t *node = json_object(), *attrs = json_object();
    if (node == NULL || attrs == NULL || !attrs_to_json(op, attrs))
        goto fail;
    fe_val *name = fe_get(op, HIPDNN_ATTR_OPERATION_NAME_EXT);
    if (name->n > 0 && json_object_set_new(node, "name", json_stringn(name->arr, (size_t)name->n)))
        goto fail;
    for (int i = 0; i < op->cls->n_attrs; i++)
        if ((op->cls->attrs[i].flags & FE_COMPUTE) && op->vals[i].n > 0 &&
            json_object_set_new(node, "compute_data_type",
                                json_string(dtype_json_name(op->vals[i].one.e))))
            goto fail;
    if (json_object_set_new(node, "attributes_type", json_string(op->cls->table)) != 0)
        goto fail;
    if (json_object_set_new(node, "attributes", attrs) == 0)
        return node;
    attrs = NULL;
fail:
    json_decref(attrs);
    json_decref(node);
    return NULL;
}

static hipdnnStatus_t graph_body_to_json(fe_obj *g, const fe_graph_info *gi, json_t *doc)
{
    json_t *tensors = json_array(), *nodes = json_array();
    /* both calls always run: each takes its value over, also when it fails */
    int failed = json_object_set_new(doc, "tensors", tensors);
    failed |= json_object_set_new(doc, "nodes", nodes);
    if (failed)
        return oom();
    for (int i = 0; i < gi->n_tensors; i++)
        if (json_array_append_new(tensors, tensor_to_json(gi->tensors[i].t)) != 0)
            return oom();
    for (int i = 0; i < gi->n_ops; i++)
        if (json_array_append_new(nodes, node_to_json(gi->ops[i])) != 0)
            return oom();
    /* graph-level fields after tensors/nodes in the schema order */
    fe_val *pe = fe_get(g, HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT);
    fe_val *ov = fe_get(g, HIPDNN_ATTR_OPERATIONGRAPH_IS_OVERRIDE_SHAPE_ENABLED_EXT);
    if (pe->n > 0 && json_object_set_new(doc, "preferred_engine_id", json_integer(pe->one.i64)))
        return oom();
    if (ov->n > 0 && ov->one.b && json_object_set_new(doc, "is_override_shape_enabled", json_true()))
        return oom();
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t graph_head_to_json(fe_obj *g, json_t *doc)
{
    static const hipdnnBackendAttributeName_t head[] = {
        HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT, HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT,
        HIPDNN_ATTR_OPERATIONGRAPH_INTERMEDIATE_DATA_TYPE_EXT,
        HIPDNN_ATTR_OPERATIONGRAPH_IO_DATA_TYPE_EXT};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) {
        const fe_attr *a = fe_find_attr(g->cls, head[i]);
        fe_val *v = fe_val_of(g, a);
        if (v->n > 0 && json_object_set_new(doc, a->field, attr_to_json(a, v)) != 0)
            return oom();
    }
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_graph_to_json(fe_obj *g, json_t **out)
{
    fe_graph_info local, *gi = g->finalized ? &((fe_graph_state *)g->priv)->gi : NULL;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (!g->finalized) {
        st = fe_graph_analyse(g, &local);
        gi = &local;
    }
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    json_t *doc = json_object();
    st = doc == NULL ? oom() : graph_head_to_json(g, doc);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = graph_body_to_json(g, gi, doc);
    if (!g->finalized)
        fe_graph_info_free(&local);
    if (st != HIPDNN_STATUS_SUCCESS) {
        json_decref(doc);
        return st;
    }
    *out = doc;
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- JSON -> descriptors ------------------------------------------------------------------------------ */

/* Tensors read so far, as live handles sorted by uid for lookup. */
typedef struct tensor_map {
    hipdnnBackendDescriptor_t *h;
    int64_t *uid;
    int n;
} tensor_map;

static hipdnnBackendDescriptor_t map_find(const tensor_map *m, int64_t uid)
{
    int lo = 0, hi = m->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (m->uid[mid] < uid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->uid[lo] == uid ? m->h[lo] : NULL;
}

static void map_free(tensor_map *m)
{
    for (int i = 0; i < m->n; i++)
        if (m->h[i] != NULL)
            fe_destroy_descriptor(m->h[i]);
    base_free(m->h);
    base_free(m->uid);
    *m = (tensor_map){0};
}

static bool json_int_in(const json_t *j, int64_t lo, int64_t hi, int64_t *out)
{
    if (!json_is_integer(j) || json_integer_value(j) < lo || json_integer_value(j) > hi)
        return false;
    *out = json_integer_value(j);
    return true;
}

/* Reads a JSON array of integers in [lo, hi] into a new array of elem-byte integers. */
static hipdnnStatus_t int_array_from_json(const json_t *j, size_t elem, int64_t lo, int64_t hi,
                                          void **out, int64_t *n)
{
    if (!json_is_array(j))
        return MFAIL("expected an array of integers");
    size_t len = json_array_size(j);
    char *buf = base_malloc(len * elem + 1);
    if (buf == NULL)
        return oom();
    for (size_t i = 0; i < len; i++) {
        int64_t v;
        if (!json_int_in(json_array_get(j, i), lo, hi, &v)) {
            base_free(buf);
            return MFAIL("element %zu is not an integer in [%lld, %lld]", i, (long long)lo,
                         (long long)hi);
        }
        if (elem == 8)
            memcpy(buf + i * 8, &v, 8);
        else if (elem == 4)
            memcpy(buf + i * 4, &(int32_t){(int32_t)v}, 4);
        else
            buf[i] = (char)v;
    }
    *out = buf;
    *n = (int64_t)len;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t set_tensors(fe_obj *o, const fe_attr *a, const json_t *j, const tensor_map *m)
{
    int64_t n = 1, *uids = NULL, one;
    void *arr = NULL;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    if (a->wire == FE_W_UID) {
        if (!json_int_in(j, INT64_MIN, INT64_MAX, &one))
            return MFAIL("expected a tensor uid");
        uids = &one;
    } else if ((st = int_array_from_json(j, 8, INT64_MIN, INT64_MAX, &arr, &n)) != 0) {
        return st;
    } else {
        uids = arr;
    }
    hipdnnBackendDescriptor_t *hs = base_calloc((size_t)n + 1, sizeof *hs);
    if (hs == NULL)
        st = oom();
    for (int64_t i = 0; st == HIPDNN_STATUS_SUCCESS && i < n; i++)
        if ((hs[i] = map_find(m, uids[i])) == NULL)
            st = MFAIL("tensor uid %lld is not in the graph's tensors", (long long)uids[i]);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_set_attr(o, a->id, a->type, n, hs);
    base_free(hs);
    base_free(arr);
    return st;
}

static hipdnnStatus_t set_scalar_from_json(fe_obj *o, const fe_attr *a, const json_t *j)
{
    double d;
    int64_t i64;
    int e;
    switch ((fe_wire)a->wire) {
    case FE_W_I64:
        if (!json_int_in(j, INT64_MIN, INT64_MAX, &i64))
            return MFAIL("expected an integer");
        return fe_set_attr(o, a->id, a->type, 1, &i64);
    case FE_W_I32:
        if (!json_int_in(j, INT32_MIN, INT32_MAX, &i64))
            return MFAIL("expected a 32-bit integer");
        return fe_set_attr(o, a->id, a->type, 1, &(int32_t){(int32_t)i64});
    case FE_W_F32:
        if (!fe_json_number(j, &d))
            return MFAIL("expected a number");
        return fe_set_attr(o, a->id, a->type, 1, &(float){(float)d});
    case FE_W_BOOL:
        if (!json_is_boolean(j))
            return MFAIL("expected true or false");
        return fe_set_attr(o, a->id, a->type, 1, &(bool){json_is_true(j)});
    case FE_W_ENUM:
        if (!(json_is_string(j) && fe_enum_from_name(a->enum_name, json_string_value(j), &e)) &&
            !(json_is_integer(j) && fe_enum_to_name(a->enum_name, (int)json_integer_value(j)) &&
              (e = (int)json_integer_value(j), true)))
            return MFAIL("expected a %s name", a->enum_name);
        return fe_set_attr(o, a->id, a->type, 1, &e);
    case FE_W_DTYPE:
        if (!dtype_from_json(j, &e))
            return MFAIL("expected a DataType name");
        return fe_set_attr(o, a->id, a->type, 1, &e);
    case FE_W_CONVMODE:
        if (!json_is_string(j) || !fe_enum_from_name("ConvMode", json_string_value(j), &e) || e == 0)
            return MFAIL("expected CONVOLUTION or CROSS_CORRELATION");
        e = e == 1 ? HIPDNN_CONVOLUTION : HIPDNN_CROSS_CORRELATION;
        return fe_set_attr(o, a->id, a->type, 1, &e);
    case FE_W_STRING:
        if (!json_is_string(j))
            return MFAIL("expected a string");
        return fe_set_attr(o, a->id, a->type, (int64_t)json_string_length(j), json_string_value(j));
    case FE_W_NONE: case FE_W_UID: case FE_W_UIDS: case FE_W_I32S: case FE_W_I64S: case FE_W_BYTES:
    case FE_W_GRAPH: return MFAIL("field cannot be read");
    }
    return MFAIL("field cannot be read"); /* a value outside the enum */
}

static hipdnnStatus_t set_array_from_json(fe_obj *o, const fe_attr *a, const json_t *j)
{
    void *arr = NULL;
    int64_t n = 0;
    hipdnnStatus_t st;
    if (a->wire == FE_W_I64S)
        st = int_array_from_json(j, 8, INT64_MIN, INT64_MAX, &arr, &n);
    else if (a->wire == FE_W_I32S)
        st = int_array_from_json(j, 4, INT32_MIN, INT32_MAX, &arr, &n);
    else
        st = int_array_from_json(j, 1, 0, 255, &arr, &n);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_set_attr(o, a->id, a->type, n, arr);
    base_free(arr);
    return st;
}

/* The handle of score-modifier sub-graphs read from a file (never used to run anything). */
static struct hipdnnHandle score_mod_handle = {FE_HANDLE_MAGIC, NULL};

/* Whether every node of a nested graph document is pointwise (checked before building it). */
static bool pointwise_only(const json_t *doc)
{
    const json_t *nodes = json_object_get(doc, "nodes");
    for (size_t i = 0; json_is_array(nodes) && i < json_array_size(nodes); i++) {
        const json_t *type = json_object_get(json_array_get(nodes, i), "attributes_type");
        if (!json_is_string(type) || strcmp(json_string_value(type), "PointwiseAttributes") != 0)
            return false;
    }
    return true;
}

/* A nested Graph object -> a finalized OPERATIONGRAPH set as attribute a of o. */
static hipdnnStatus_t set_graph(fe_obj *o, const fe_attr *a, const json_t *j)
{
    if (!json_is_object(j) || !pointwise_only(j))
        return MFAIL("a score or mask modifier must be a Graph object whose nodes are all PointwiseAttributes");
    fe_obj *g = NULL;
    hipdnnBackendDescriptor_t d = NULL;
    hipdnnHandle_t h = &score_mod_handle;
    hipdnnStatus_t st = fe_graph_from_json(j, &g);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_set_attr(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_finalize(g);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_wrap(g, &d);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_set_attr(o, a->id, a->type, 1, &d);
    if (d != NULL)
        fe_destroy_descriptor(d);
    if (g != NULL)
        fe_obj_unref(g);
    return st;
}

static hipdnnStatus_t set_field(fe_obj *o, const fe_attr *a, const json_t *j, const tensor_map *m)
{
    switch ((fe_wire)a->wire) {
    case FE_W_GRAPH: return set_graph(o, a, j);
    case FE_W_UID:
    case FE_W_UIDS: return set_tensors(o, a, j, m);
    case FE_W_I64S:
    case FE_W_I32S:
    case FE_W_BYTES: return set_array_from_json(o, a, j);
    case FE_W_NONE: case FE_W_I64: case FE_W_I32: case FE_W_F32: case FE_W_BOOL: case FE_W_ENUM:
    case FE_W_DTYPE: case FE_W_CONVMODE: case FE_W_STRING: return set_scalar_from_json(o, a, j);
    }
    return set_scalar_from_json(o, a, j); /* a value outside the enum */
}

static const fe_attr *attr_by_field(const fe_class *c, const char *field)
{
    for (int i = 0; i < c->n_attrs; i++)
        if (c->attrs[i].field != NULL && !(c->attrs[i].flags & FE_COMPUTE) &&
            strcmp(c->attrs[i].field, field) == 0)
            return &c->attrs[i];
    return NULL;
}

/* Sets every field of a JSON table object on o; `skip` lists keys handled by the caller. */
static hipdnnStatus_t set_fields(fe_obj *o, const json_t *obj, const tensor_map *m,
                                 const char *const *skip)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        bool skipped = false;
        for (int i = 0; skip != NULL && skip[i] != NULL; i++)
            skipped |= strcmp(skip[i], key) == 0;
        if (skipped)
            continue;
        const fe_attr *a = attr_by_field(o->cls, key);
        if (a == NULL)
            return MFAIL("%s has no field '%s'", o->cls->table, key);
        hipdnnStatus_t st = set_field(o, a, val, m);
        if (st != HIPDNN_STATUS_SUCCESS) {
            char ctx[160];
            snprintf(ctx, sizeof ctx, "%s field '%s'", o->cls->table, key);
            return with_context(st, ctx);
        }
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* Gives every serialized scalar attribute that obj leaves out its schema default (see
 * fe_wire_default); attributes already set (by the caller) keep their value. */
static hipdnnStatus_t set_defaults(fe_obj *o, const json_t *obj, const tensor_map *m)
{
    for (int i = 0; i < o->cls->n_attrs; i++) {
        const fe_attr *a = &o->cls->attrs[i];
        if (a->wire == FE_W_NONE || (a->flags & FE_COMPUTE) || o->vals[i].n > 0 ||
            json_object_get(obj, a->field) != NULL)
            continue;
        json_t *d = fe_wire_default(a);
        hipdnnStatus_t st = d != NULL ? set_field(o, a, d, m) : HIPDNN_STATUS_SUCCESS;
        if (st != HIPDNN_STATUS_SUCCESS) {
            char ctx[200], *text = json_dumps(d, JSON_ENCODE_ANY);
            snprintf(ctx, sizeof ctx, "%s field '%s' (absent, so its default %s)", o->cls->table,
                     a->field, text != NULL ? text : "");
            free(text);
            st = with_context(st, ctx);
        }
        json_decref(d);
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
    }
    return HIPDNN_STATUS_SUCCESS;
}

/* TensorValue member -> the tensor's value bytes (the data type must match the member). */
static hipdnnStatus_t value_from_json(fe_obj *t, const json_t *type, const json_t *val)
{
    const json_t *v = json_object_get(val, "value");
    if (!json_is_string(type) || !json_is_object(val) || v == NULL ||
        json_object_size(val) != 1 || (!fe_json_number(v, &(double){0}) && !json_is_boolean(v)))
        return MFAIL("a tensor value needs \"value_type\" and \"value\": {\"value\": ...}");
    hipdnnDataType_t dt = (hipdnnDataType_t)fe_get(t, HIPDNN_ATTR_TENSOR_DATA_TYPE)->one.e;
    if (strcmp(json_string_value(type), value_member(dt)) != 0)
        return MFAIL("a %s tensor's value must be a %s, not %s", fe_dtype_name(dt),
                     value_member(dt), json_string_value(type));
    double d = 0;
    if (json_is_boolean(v))
        d = json_is_true(v);
    else
        fe_json_number(v, &d);
    unsigned char bytes[8] = {0};
    switch (dt) {
    case HIPDNN_DATA_FLOAT: memcpy(bytes, &(float){(float)d}, 4); break;
    case HIPDNN_DATA_DOUBLE: memcpy(bytes, &d, 8); break;
    case HIPDNN_DATA_HALF: memcpy(bytes, &(uint16_t){base_f32_to_fp16((float)d)}, 2); break;
    case HIPDNN_DATA_BFLOAT16: memcpy(bytes, &(uint16_t){base_f32_to_bf16((float)d)}, 2); break;
    case HIPDNN_DATA_INT32: memcpy(bytes, &(int32_t){(int32_t)json_integer_value(v)}, 4); break;
    case HIPDNN_DATA_INT64: memcpy(bytes, &(int64_t){json_integer_value(v)}, 8); break;
    case HIPDNN_DATA_BOOLEAN: bytes[0] = d != 0; break;
    case HIPDNN_DATA_INT8: case HIPDNN_DATA_UINT8: case HIPDNN_DATA_FP8_E4M3:
    case HIPDNN_DATA_FP8_E5M2: case HIPDNN_DATA_FP8_E8M0: case HIPDNN_DATA_FP4_E2M1:
    case HIPDNN_DATA_INT4: case HIPDNN_DATA_FP6_E2M3_EXT: case HIPDNN_DATA_FP6_E3M2_EXT:
    case HIPDNN_DATA_FP8_E4M3_FNUZ: case HIPDNN_DATA_FP8_E5M2_FNUZ:
        bytes[0] = (unsigned char)json_integer_value(v); break;
    }
    return fe_set_attr(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, HIPDNN_TYPE_CHAR,
                       (int64_t)fe_dtype_size(dt), bytes);
}

static hipdnnStatus_t tensor_from_json(const json_t *obj, fe_obj **out)
{
    static const char *const skip[] = {"value_type", "value", NULL};
    if (!json_is_object(obj))
        return MFAIL("a tensor must be an object");
    fe_obj *t;
    hipdnnStatus_t st = fe_obj_new(&fe_tensor_class, &t);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    st = set_fields(t, obj, NULL, skip);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = set_defaults(t, obj, NULL);
    if (st == HIPDNN_STATUS_SUCCESS && json_object_get(obj, "value") != NULL)
        st = value_from_json(t, json_object_get(obj, "value_type"), json_object_get(obj, "value"));
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_finalize(t);
    if (st != HIPDNN_STATUS_SUCCESS) {
        fe_obj_unref(t);
        return st;
    }
    *out = t;
    return HIPDNN_STATUS_SUCCESS;
}

/* Sorts the map by uid (insertion sort on indices; maps are built once). */
static hipdnnStatus_t map_sort(tensor_map *m)
{
    for (int i = 1; i < m->n; i++)
        for (int j = i; j > 0 && m->uid[j - 1] > m->uid[j]; j--) {
            int64_t u = m->uid[j];
            m->uid[j] = m->uid[j - 1];
            m->uid[j - 1] = u;
            hipdnnBackendDescriptor_t h = m->h[j];
            m->h[j] = m->h[j - 1];
            m->h[j - 1] = h;
        }
    for (int i = 1; i < m->n; i++)
        if (m->uid[i] == m->uid[i - 1])
            return MFAIL("two tensors have uid %lld", (long long)m->uid[i]);
    return HIPDNN_STATUS_SUCCESS;
}

/* A tensor naming a ragged offset uid gets that tensor of the list attached (the graph then holds
 * it as an input of the ops using the ragged tensor: fe_graph.c); a uid the list lacks is refused.
 * The tensors are finalized already but no caller has seen them: attaching completes them. */
static hipdnnStatus_t attach_ragged(const tensor_map *m)
{
    for (int i = 0; i < m->n; i++) {
        fe_obj *t = m->h[i]->obj;
        fe_val *uid = fe_get(t, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC);
        if (uid->n == 0)
            continue;
        hipdnnBackendDescriptor_t ro = map_find(m, uid->one.i64);
        if (ro == m->h[i])
            return MFAIL("tensor uid %lld: ragged_offset_tensor_uid %lld is the tensor itself",
                         (long long)m->uid[i], (long long)uid->one.i64);
        if (ro == NULL)
            return MFAIL("tensor uid %lld: ragged_offset_tensor_uid %lld is not in \"tensors\"",
                         (long long)m->uid[i], (long long)uid->one.i64);
        const fe_attr *a = fe_find_attr(t->cls, HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT);
        hipdnnStatus_t st = a->set(t, a, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ro);
        if (st != HIPDNN_STATUS_SUCCESS) {
            char ctx[64];
            snprintf(ctx, sizeof ctx, "tensor uid %lld", (long long)m->uid[i]);
            return with_context(st, ctx);
        }
    }
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t tensors_from_json(const json_t *arr, tensor_map *m)
{
    if (!json_is_array(arr))
        return MFAIL("\"tensors\" must be an array");
    size_t n = json_array_size(arr);
    m->h = base_calloc(n + 1, sizeof *m->h);
    m->uid = base_calloc(n + 1, sizeof *m->uid);
    if (m->h == NULL || m->uid == NULL)
        return oom();
    for (size_t i = 0; i < n; i++) {
        fe_obj *t = NULL;
        hipdnnStatus_t st = tensor_from_json(json_array_get(arr, i), &t);
        if (st == HIPDNN_STATUS_SUCCESS) {
            st = fe_wrap(t, &m->h[m->n]);
            m->uid[m->n] = fe_tensor(t).uid;
            m->n += st == HIPDNN_STATUS_SUCCESS;
            fe_obj_unref(t);
        }
        if (st != HIPDNN_STATUS_SUCCESS) {
            char ctx[64];
            snprintf(ctx, sizeof ctx, "tensor #%zu", i);
            return with_context(st, ctx);
        }
    }
    hipdnnStatus_t st = map_sort(m);
    return st == HIPDNN_STATUS_SUCCESS ? attach_ragged(m) : st;
}

/* The node's name and compute type. hipDNN's frontends may write the compute type once, on the
 * Graph (graph_ct, may be NULL): an operation that needs one (a convolution) and has none
 * takes the graph's. Others stay unset: lowering falls back to the graph's type for them. */
static hipdnnStatus_t node_head_from_json(fe_obj *op, const json_t *node, const json_t *graph_ct)
{
    const json_t *name = json_object_get(node, "name");
    const json_t *ct = json_object_get(node, "compute_data_type");
    for (int i = 0; ct == NULL && i < op->cls->n_attrs; i++)
        if ((op->cls->attrs[i].flags & (FE_COMPUTE | FE_REQ)) == (FE_COMPUTE | FE_REQ))
            ct = graph_ct;
    if (name != NULL) {
        if (!json_is_string(name))
            return MFAIL("a node name must be a string");
        hipdnnStatus_t st = fe_set_attr(op, HIPDNN_ATTR_OPERATION_NAME_EXT, HIPDNN_TYPE_CHAR,
                                        (int64_t)json_string_length(name), json_string_value(name));
        if (st != HIPDNN_STATUS_SUCCESS)
            return st;
    }
    for (int i = 0; ct != NULL && i < op->cls->n_attrs; i++)
        if (op->cls->attrs[i].flags & FE_COMPUTE)
            return set_scalar_from_json(op, &op->cls->attrs[i], ct);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t check_keys(const json_t *obj, const char *const *allowed, const char *what)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        int i = 0;
        while (allowed[i] != NULL && strcmp(allowed[i], key) != 0)
            i++;
        if (allowed[i] == NULL)
            return MFAIL("%s has no field '%s'", what, key);
    }
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t node_from_json(const json_t *node, const json_t *graph_ct, const tensor_map *m,
                                     fe_obj **out)
{
    static const char *const node_keys[] = {"name", "compute_data_type", "attributes_type",
                                            "attributes", NULL};
    static const char *const advisory[] = {"umd_flops", "umd_bytes", NULL};
    if (!json_is_object(node))
        return MFAIL("a node must be an object");
    hipdnnStatus_t st = check_keys(node, node_keys, "Node");
    const json_t *type = json_object_get(node, "attributes_type");
    const json_t *attrs = json_object_get(node, "attributes");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    if (!json_is_string(type) || !json_is_object(attrs))
        return MFAIL("a node needs \"attributes_type\" and an \"attributes\" object");
    const fe_class *cls = fe_op_class_by_table(json_string_value(type));
    if (cls == NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "graph JSON: operation '%s' is not supported by this backend",
                         json_string_value(type));
    fe_obj *op;
    if ((st = fe_obj_new(cls, &op)) != HIPDNN_STATUS_SUCCESS)
        return st;
    st = node_head_from_json(op, node, graph_ct);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = set_fields(op, attrs, m, advisory);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = set_defaults(op, attrs, m);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_finalize(op);
    if (st != HIPDNN_STATUS_SUCCESS) {
        fe_obj_unref(op);
        return st;
    }
    *out = op;
    return HIPDNN_STATUS_SUCCESS;
}

/* Appends every node as an operation of graph g (graph_ct: the graph's compute type, or NULL). */
static hipdnnStatus_t nodes_from_json(fe_obj *g, const json_t *arr, const json_t *graph_ct,
                                      const tensor_map *m)
{
    if (!json_is_array(arr))
        return MFAIL("\"nodes\" must be an array");
    size_t n = json_array_size(arr);
    hipdnnBackendDescriptor_t *hs = base_calloc(n + 1, sizeof *hs);
    if (hs == NULL)
        return oom();
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    size_t made = 0;
    for (; made < n && st == HIPDNN_STATUS_SUCCESS; made++) {
        fe_obj *op = NULL;
        st = node_from_json(json_array_get(arr, made), graph_ct, m, &op);
        if (st != HIPDNN_STATUS_SUCCESS) {
            char ctx[64];
            snprintf(ctx, sizeof ctx, "node #%zu", made);
            st = with_context(st, ctx);
            break;
        }
        st = fe_wrap(op, &hs[made]);
        fe_obj_unref(op);
    }
    if (st == HIPDNN_STATUS_SUCCESS && n > 0)
        st = fe_set_attr(g, HIPDNN_ATTR_OPERATIONGRAPH_OPS, HIPDNN_TYPE_BACKEND_DESCRIPTOR,
                         (int64_t)n, hs);
    for (size_t i = 0; i < n; i++)
        if (hs[i] != NULL)
            fe_destroy_descriptor(hs[i]);
    base_free(hs);
    return st;
}

hipdnnStatus_t fe_graph_from_json(const json_t *doc, fe_obj **out)
{
    static const char *const graph_keys[] = {
        "name", "compute_data_type", "intermediate_data_type", "io_data_type", "tensors", "nodes",
        "preferred_engine_id", "is_override_shape_enabled", "min_required_engine_api_version",
        "id", NULL};
    static const char *const body[] = {"tensors", "nodes", "min_required_engine_api_version",
                                       "id", NULL};
    if (!json_is_object(doc))
        return MFAIL("the document must be an object (a Graph)");
    hipdnnStatus_t st = check_keys(doc, graph_keys, "Graph");
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    tensor_map m = {0};
    fe_obj *g = NULL;
    st = fe_obj_new(&fe_graph_class, &g);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = set_fields(g, doc, NULL, body);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = set_defaults(g, doc, NULL);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = tensors_from_json(json_object_get(doc, "tensors"), &m);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = nodes_from_json(g, json_object_get(doc, "nodes"), json_object_get(doc, "compute_data_type"), &m);
    map_free(&m);
    if (st == HIPDNN_STATUS_SUCCESS) { /* a valid graph: what finalize would check */
        fe_graph_info gi;
        st = fe_graph_analyse(g, &gi);
        if (st == HIPDNN_STATUS_SUCCESS)
            fe_graph_info_free(&gi);
    }
    if (st != HIPDNN_STATUS_SUCCESS) {
        fe_obj_unref(g);
        return st;
    }
    *out = g;
    return HIPDNN_STATUS_SUCCESS;
}
