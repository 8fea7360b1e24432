/* fe_fb_graph.c — the graph's JSON object model <-> hipDNN FlatBuffer `Graph` bytes.
 *
 * A small reflection of schema/hipdnn_graph.fbs drives both directions: each table is a
 * list of (field name, field id, kind). Graph, Node, TensorAttributes and the scalar value
 * structs are listed here; every operation's attributes table is derived from its
 * descriptor class (fe_op_attrs.c), so the API tables and the wire cannot disagree. A
 * table-valued field (an SDPA score modifier's nested Graph) is a sub-table of that name.
 * Nodes are read in both of hipDNN's layouts (with or without Node.compute_data_type) and
 * written in the current one. Absent fields stay absent in the JSON model; fe_json_model.c gives
 * them their schema defaults. Decoding reads only through the bounds-checked fe_fb reader; malformed bytes are
 * HIPDNN_STATUS_BAD_PARAM with the table and field named, never a crash.
 */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "serialize/fe_fb.h"
#include "graph/fe_graph.h"
#include "serialize/fe_serialize.h"

/* A decode result meaning "failed, and the reason is already recorded in *st". */
#define RC_REPORTED (-2)
#define CFAIL(...) base_fail(HIPDNN_STATUS_BAD_PARAM, "graph FlatBuffer: " __VA_ARGS__)

typedef enum kind {
    K_BOOL, K_ENUM, K_U32, K_I32, K_I64, K_F32, K_F64, K_STR,
    K_VEC_I64, K_VEC_I32, K_VEC_U8, K_TABLE, K_VEC_TABLE, K_UNION, K_STRUCT,
} kind;

typedef struct fb_field {
    const char *name;
    uint16_t id; /* for unions: the value's id (the type is id - 1) */
    uint8_t kind;
    const char *ref; /* enum, table, union or struct name */
} fb_field;

#define MAX_FIELDS 64
typedef struct fb_table {
    const char *name;
    fb_field f[MAX_FIELDS];
    int n;
} fb_table;

/* ---- the reflection ------------------------------------------------------------------------------ */

static const fb_table graph_table = {"Graph", {
    {"name", 0, K_STR, NULL}, {"compute_data_type", 1, K_ENUM, "DataType"},
    {"intermediate_data_type", 2, K_ENUM, "DataType"}, {"io_data_type", 3, K_ENUM, "DataType"},
    {"tensors", 4, K_VEC_TABLE, "TensorAttributes"}, {"nodes", 5, K_VEC_TABLE, "Node"},
    {"preferred_engine_id", 6, K_I64, NULL}, {"is_override_shape_enabled", 7, K_BOOL, NULL},
    {"min_required_engine_api_version", 8, K_STRUCT, "EngineApiVersion"},
    {"id", 9, K_STRUCT, "Uuid"}}, 10};
static const fb_table node_table = {"Node", {
    {"name", 0, K_STR, NULL}, {"compute_data_type", 1, K_ENUM, "DataType"},
    {"attributes", 3, K_UNION, "NodeAttributes"}}, 3};
/* The Node layout of hipDNN frontends before Node.compute_data_type existed (name, then the
 * union at ids 1 + 2). Every node carries its attributes, so the vtable tells the layouts
 * apart: a node with field 3 is current, one without is this older form (node_layout). */
static const fb_table node_table_v1 = {"Node", {
    {"name", 0, K_STR, NULL}, {"attributes", 2, K_UNION, "NodeAttributes"}}, 2};
static const fb_table tensor_table = {"TensorAttributes", {
    {"uid", 0, K_I64, NULL}, {"name", 1, K_STR, NULL}, {"data_type", 2, K_ENUM, "DataType"},
    {"strides", 3, K_VEC_I64, NULL}, {"dims", 4, K_VEC_I64, NULL}, {"virtual", 5, K_BOOL, NULL},
    {"value", 7, K_UNION, "TensorValue"}, {"is_runtime_pass_by_value", 8, K_BOOL, NULL},
    {"ragged_offset_tensor_uid", 9, K_I64, NULL}, {"alignment", 10, K_I64, NULL},
    {"ragged_offset_multiplier", 11, K_I64, NULL}}, 11};

/* Structs: one scalar "value" field, EngineApiVersion (3 x u32) or Uuid (16 bytes). */
typedef struct fb_struct {
    const char *name;
    uint8_t code;  /* TensorValue member code, 0 if not a member */
    uint8_t kind;  /* K_F32 / K_F64 / K_I32 / K_I64 / K_BOOL / K_U32 (u8 raw) ; see pack */
    uint8_t size, align;
} fb_struct;

static const fb_struct structs[] = {
    {"Float32Value", 1, K_F32, 4, 4},  {"Float16Value", 2, K_F32, 4, 4},
    {"BFloat16Value", 3, K_F32, 4, 4}, {"Float8Value", 4, K_VEC_U8, 1, 1},
    {"Int32Value", 5, K_I32, 4, 4},    {"Float64Value", 6, K_F64, 8, 8},
    {"Int64Value", 7, K_I64, 8, 8},    {"BoolValue", 8, K_BOOL, 1, 1},
    {"EngineApiVersion", 0, K_U32, 12, 4}, {"Uuid", 0, K_STR, 16, 1},
};

static const fb_struct *struct_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof structs / sizeof structs[0]; i++)
        if (strcmp(structs[i].name, name) == 0)
            return &structs[i];
    return NULL;
}

static const fb_struct *value_member(int code)
{
    for (size_t i = 0; i < sizeof structs / sizeof structs[0]; i++)
        if (structs[i].code != 0 && structs[i].code == code)
            return &structs[i];
    return NULL;
}

/* NodeAttributes members, in union code order (1..23), then our extensions. */
static const char *const node_members[] = {
    NULL, "BatchnormInferenceAttributes", "PointwiseAttributes", "BatchnormBackwardAttributes",
    "BatchnormAttributes", "ConvolutionFwdAttributes", "ConvolutionBwdAttributes",
    "ConvolutionWrwAttributes", "BatchnormInferenceAttributesVarianceExt", "MatmulAttributes",
    "RMSNormAttributes", "LayernormAttributes", "SdpaAttributes",
    "BlockScaleDequantizeAttributes", "BlockScaleQuantizeAttributes", "SdpaBackwardAttributes",
    "CustomOpAttributes", "RMSNormBackwardAttributes", "ReductionAttributes",
    "ResampleFwdAttributes", "LayernormBackwardAttributes", "ResampleBwdAttributes",
    "MoeGroupedMatmulAttributes", "MoeGroupedMatmulBwdAttributes"};
#define EXT_GENSTATS 100
#define EXT_PAGED 101

static const char *node_member_name(int code)
{
    if (code > 0 && code < (int)(sizeof node_members / sizeof node_members[0]))
        return node_members[code];
    return code == EXT_GENSTATS ? "GenStatsAttributesExt"
         : code == EXT_PAGED    ? "PagedCacheLoadAttributesExt" : NULL;
}

static int node_member_code(const char *name)
{
    for (int c = 1; c <= EXT_PAGED; c++)
        if (node_member_name(c) != NULL && strcmp(node_member_name(c), name) == 0)
            return c;
    return 0;
}

/* An operation's attributes table, derived from its descriptor class. */
static bool op_table(const char *name, fb_table *t)
{
    static const uint8_t wire_kind[] = {
        [FE_W_UID] = K_I64, [FE_W_UIDS] = K_VEC_I64, [FE_W_I64] = K_I64, [FE_W_I32] = K_I32,
        [FE_W_I32S] = K_VEC_I32, [FE_W_I64S] = K_VEC_I64, [FE_W_F32] = K_F32, [FE_W_BOOL] = K_BOOL,
        [FE_W_ENUM] = K_ENUM, [FE_W_DTYPE] = K_ENUM, [FE_W_CONVMODE] = K_ENUM,
        [FE_W_STRING] = K_STR, [FE_W_BYTES] = K_VEC_U8, [FE_W_GRAPH] = K_TABLE};
    const fe_class *cls = fe_op_class_by_table(name);
    if (cls == NULL)
        return false;
    *t = (fb_table){.name = cls->table};
    for (int i = 0; i < cls->n_attrs && t->n < MAX_FIELDS; i++) {
        const fe_attr *a = &cls->attrs[i];
        if (a->wire == FE_W_NONE || a->fb_id < 0 || (a->flags & FE_COMPUTE))
            continue;
        const char *ref = a->wire == FE_W_DTYPE ? "DataType"
                        : a->wire == FE_W_CONVMODE ? "ConvMode"
                        : a->wire == FE_W_GRAPH ? "Graph" : a->enum_name;
        t->f[t->n++] = (fb_field){a->field, (uint16_t)a->fb_id, wire_kind[a->wire], ref};
    }
    return true;
}

static bool table_by_name(const char *name, fb_table *t)
{
    const fb_table *fixed[] = {&graph_table, &node_table, &tensor_table};
    for (size_t i = 0; i < 3; i++)
        if (strcmp(fixed[i]->name, name) == 0) {
            *t = *fixed[i];
            return true;
        }
    return op_table(name, t);
}

/* ================================ encode: JSON -> FlatBuffer ================================= */

typedef struct enc {
    fe_fbb *b;
    hipdnnStatus_t st;
} enc;

static fe_fbt *enc_table(enc *e, const char *tname, const json_t *obj, int depth);

static bool enc_fail(enc *e, hipdnnStatus_t st)
{
    if (e->st == HIPDNN_STATUS_SUCCESS)
        e->st = st;
    return false;
}

static hipdnnStatus_t enc_oom(const fb_field *f)
{
    return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "serializing a graph: out of memory (field '%s')", f->name);
}

static bool int_in(const json_t *j, int64_t lo, int64_t hi, int64_t *v)
{
    if (!json_is_integer(j) || json_integer_value(j) < lo || json_integer_value(j) > hi)
        return false;
    *v = json_integer_value(j);
    return true;
}

static bool enc_vec_ints(enc *e, fe_fbt *t, const fb_field *f, const json_t *j)
{
    size_t es = f->kind == K_VEC_I64 ? 8 : f->kind == K_VEC_I32 ? 4 : 1;
    int64_t lo = es == 8 ? INT64_MIN : es == 4 ? INT32_MIN : 0;
    int64_t hi = es == 8 ? INT64_MAX : es == 4 ? INT32_MAX : 255;
    size_t n = json_array_size(j);
    uint8_t *buf = base_malloc(n * es + 1);
    if (!json_is_array(j) || buf == NULL) {
        base_free(buf);
        return enc_fail(e, json_is_array(j) ? enc_oom(f) : CFAIL("field '%s' must be an array", f->name));
    }
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (!int_in(json_array_get(j, i), lo, hi, &v)) {
            base_free(buf);
            return enc_fail(e, CFAIL("field '%s' element %zu is out of range", f->name, i));
        }
        if (es == 8) memcpy(buf + i * 8, &v, 8);
        else if (es == 4) memcpy(buf + i * 4, &(int32_t){(int32_t)v}, 4);
        else buf[i] = (uint8_t)v;
    }
    fe_fbt_vec_scalars(t, f->id, es, n, buf);
    base_free(buf);
    return true;
}

/* Packs a struct from its JSON object into little-endian bytes. */
static bool pack_struct(const fb_struct *s, const json_t *j, uint8_t *out)
{
    double d;
    memset(out, 0, s->size);
    if (strcmp(s->name, "EngineApiVersion") == 0) {
        const char *k[] = {"major", "minor", "patch"};
        for (int i = 0; i < 3; i++) {
            int64_t v;
            if (!int_in(json_object_get(j, k[i]), 0, UINT32_MAX, &v))
                return false;
            memcpy(out + 4 * i, &(uint32_t){(uint32_t)v}, 4);
        }
        return true;
    }
    if (strcmp(s->name, "Uuid") == 0) {
        const json_t *a = json_object_get(j, "bytes");
        for (size_t i = 0; i < 16; i++) {
            int64_t v;
            if (!int_in(json_array_get(a, i), 0, 255, &v))
                return false;
            out[i] = (uint8_t)v;
        }
        return json_array_size(a) == 16;
    }
    const json_t *v = json_object_get(j, "value");
    int64_t iv;
    switch (s->kind) { /* a FlatBuffer field kind, stored as a byte */
    case K_F32: if (!fe_json_number(v, &d)) return false; memcpy(out, &(float){(float)d}, 4); return true;
    case K_F64: if (!fe_json_number(v, &d)) return false; memcpy(out, &d, 8); return true;
    case K_I32: if (!int_in(v, INT32_MIN, INT32_MAX, &iv)) return false; memcpy(out, &(int32_t){(int32_t)iv}, 4); return true;
    case K_I64: if (!int_in(v, INT64_MIN, INT64_MAX, &iv)) return false; memcpy(out, &iv, 8); return true;
    case K_BOOL: if (!json_is_boolean(v)) return false; out[0] = json_is_true(v); return true;
    default: if (!int_in(v, 0, 255, &iv)) return false; out[0] = (uint8_t)iv; return true;
    }
}

static bool enc_union(enc *e, fe_fbt *t, const fb_field *f, const json_t *obj, int depth)
{
    char key[80];
    snprintf(key, sizeof key, "%s_type", f->name);
    const json_t *type = json_object_get(obj, key), *val = json_object_get(obj, f->name);
    if (!json_is_string(type) || !json_is_object(val))
        return enc_fail(e, CFAIL("union '%s' needs \"%s\" and an object value", f->name, key));
    const char *member = json_string_value(type);
    if (strcmp(f->ref, "TensorValue") == 0) {
        const fb_struct *s = struct_by_name(member);
        uint8_t bytes[16];
        if (s == NULL || s->code == 0 || !pack_struct(s, val, bytes))
            return enc_fail(e, CFAIL("bad tensor value of type '%s'", member));
        fe_fbt_union_struct(t, f->id, s->code, s->size, s->align, bytes);
        return true;
    }
    int code = node_member_code(member);
    fe_fbt *sub = code != 0 ? enc_table(e, member, val, depth + 1) : NULL;
    if (sub == NULL)
        return code != 0 ? false : enc_fail(e, CFAIL("unknown operation table '%s'", member));
    fe_fbt_union(t, f->id, (uint8_t)code, sub);
    return true;
}

static bool enc_vec_tables(enc *e, fe_fbt *t, const fb_field *f, const json_t *j, int depth)
{
    size_t n = json_array_size(j);
    fe_fbt **subs = base_calloc(n + 1, sizeof *subs);
    if (!json_is_array(j) || subs == NULL) {
        base_free(subs);
        return enc_fail(e, json_is_array(j) ? enc_oom(f) : CFAIL("field '%s' must be an array", f->name));
    }
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++)
        ok = (subs[i] = enc_table(e, f->ref, json_array_get(j, i), depth + 1)) != NULL;
    if (ok)
        fe_fbt_vec_tables(t, f->id, n, subs);
    base_free(subs);
    return ok;
}

static bool enc_scalar(enc *e, fe_fbt *t, const fb_field *f, const json_t *j)
{
    double d;
    int64_t v;
    int ev;
    switch (f->kind) { /* a FlatBuffer field kind, stored as a byte */
    case K_BOOL: if (!json_is_boolean(j)) break; fe_fbt_bool(t, f->id, json_is_true(j)); return true;
    case K_I64: if (!int_in(j, INT64_MIN, INT64_MAX, &v)) break; fe_fbt_i64(t, f->id, v); return true;
    case K_I32: if (!int_in(j, INT32_MIN, INT32_MAX, &v)) break; fe_fbt_i32(t, f->id, (int32_t)v); return true;
    case K_F32: if (!fe_json_number(j, &d)) break; fe_fbt_f32(t, f->id, (float)d); return true;
    case K_STR: if (!json_is_string(j)) break;
        fe_fbt_string(t, f->id, json_string_value(j), json_string_length(j)); return true;
    case K_ENUM:
        if (!json_is_string(j) || !fe_enum_from_name(f->ref, json_string_value(j), &ev)) break;
        fe_fbt_i8(t, f->id, (int8_t)ev);
        return true;
    default: break;
    }
    return enc_fail(e, CFAIL("field '%s' has a value of the wrong kind", f->name));
}

static bool enc_field(enc *e, fe_fbt *t, const fb_field *f, const json_t *obj, int depth)
{
    const json_t *j = json_object_get(obj, f->name);
    if (f->kind == K_UNION)
        return j == NULL || enc_union(e, t, f, obj, depth);
    if (j == NULL)
        return true;
    switch (f->kind) { /* a FlatBuffer field kind, stored as a byte */
    case K_VEC_I64: case K_VEC_I32: case K_VEC_U8: return enc_vec_ints(e, t, f, j);
    case K_VEC_TABLE: return enc_vec_tables(e, t, f, j, depth);
    case K_TABLE: {
        fe_fbt *sub = enc_table(e, f->ref, j, depth + 1);
        if (sub != NULL)
            fe_fbt_table(t, f->id, sub);
        return sub != NULL;
    }
    case K_STRUCT: {
        const fb_struct *s = struct_by_name(f->ref);
        uint8_t bytes[16];
        if (!pack_struct(s, j, bytes))
            return enc_fail(e, CFAIL("field '%s' is not a valid %s", f->name, f->ref));
        fe_fbt_struct(t, f->id, s->size, s->align, bytes);
        return true;
    }
    default: return enc_scalar(e, t, f, j);
    }
}

static fe_fbt *enc_table(enc *e, const char *tname, const json_t *obj, int depth)
{
    fb_table desc;
    if (!table_by_name(tname, &desc) || !json_is_object(obj) || depth > FE_FB_MAX_DEPTH) {
        enc_fail(e, CFAIL("a %s must be an object", tname));
        return NULL;
    }
    fe_fbt *t = fe_fbb_table(e->b);
    for (int i = 0; t != NULL && i < desc.n; i++)
        if (!enc_field(e, t, &desc.f[i], obj, depth))
            return NULL;
    return t;
}

hipdnnStatus_t fe_fb_encode_graph(const json_t *doc, uint8_t **out, size_t *len)
{
    enc e = {fe_fbb_new(), HIPDNN_STATUS_SUCCESS};
    if (e.b == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "serializing a graph: out of memory");
    fe_fbt *root = enc_table(&e, "Graph", doc, 0);
    if (root != NULL && fe_fbb_finish(e.b, root, NULL, out, len) != 0)
        e.st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "serializing a graph: %s",
                         fe_fbb_strerror(fe_fbb_status(e.b)));
    else if (root == NULL && e.st == HIPDNN_STATUS_SUCCESS)
        e.st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "serializing a graph: out of memory");
    fe_fbb_free(e.b);
    return e.st;
}

/* ================================ decode: FlatBuffer -> JSON ================================= */

static json_t *dec_table(const fe_fb_table *t, const char *tname, hipdnnStatus_t *st);

static bool dec_bad(hipdnnStatus_t *st, const char *table, const fb_field *f)
{
    *st = CFAIL("table %s field '%s' is malformed", table, f->name);
    return false;
}

static hipdnnStatus_t dec_oom(void)
{
    return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "reading a graph: out of memory");
}

/* Sets o[key] = v (taken over); on failure releases o and returns NULL, so that a member lost
 * to a failed allocation fails the decode instead of silently vanishing. */
static json_t *put_or_drop(json_t *o, const char *key, json_t *v)
{
    if (json_object_set_new(o, key, v) == 0)
        return o;
    json_decref(o);
    return NULL;
}

static json_t *unpack_struct(const fb_struct *s, const uint8_t *p)
{
    json_t *o = json_object();
    if (strcmp(s->name, "EngineApiVersion") == 0) {
        o = put_or_drop(o, "major", json_integer(fe_fb_ld_u32(p)));
        o = o != NULL ? put_or_drop(o, "minor", json_integer(fe_fb_ld_u32(p + 4))) : NULL;
        return o != NULL ? put_or_drop(o, "patch", json_integer(fe_fb_ld_u32(p + 8))) : NULL;
    }
    json_t *v;
    switch (s->kind) { /* a FlatBuffer field kind, stored as a byte */
    case K_F32: v = fe_json_f32(fe_fb_ld_f32(p)); break;
    case K_F64: v = isfinite(fe_fb_ld_f64(p)) ? json_real(fe_fb_ld_f64(p)) : fe_json_f32((float)fe_fb_ld_f64(p)); break;
    case K_I32: v = json_integer(fe_fb_ld_i32(p)); break;
    case K_I64: v = json_integer(fe_fb_ld_i64(p)); break;
    case K_BOOL: v = json_boolean(p[0] != 0); break;
    case K_STR: {
        v = json_array();
        for (int i = 0; i < 16 && v != NULL; i++)
            if (json_array_append_new(v, json_integer(p[i])) != 0) {
                json_decref(v);
                v = NULL;
            }
        return put_or_drop(o, "bytes", v);
    }
    default: v = json_integer(p[0]); break;
    }
    return put_or_drop(o, "value", v);
}

static json_t *dec_vec(const fe_fb_table *t, const fb_field *f, hipdnnStatus_t *st, int *rc)
{
    fe_fb_vec v;
    if ((*rc = fe_fb_vector(t, f->id, &v)) != FE_FB_OK)
        return NULL;
    size_t es = f->kind == K_VEC_I64 ? 8 : 4;
    if (f->kind != K_VEC_TABLE && !fe_fb_vec_fits(&v, f->kind == K_VEC_U8 ? 1 : es)) {
        *rc = FE_FB_BAD;
        return NULL;
    }
    json_t *a = json_array();
    if (a == NULL) {
        *st = dec_oom();
        *rc = RC_REPORTED;
    }
    for (uint32_t i = 0; a != NULL && i < v.len && *rc == FE_FB_OK; i++) {
        int64_t i64 = 0;
        int32_t i32 = 0;
        uint8_t u8 = 0;
        fe_fb_table sub;
        json_t *x = NULL;
        switch (f->kind) { /* a FlatBuffer field kind, stored as a byte */
        case K_VEC_I64: *rc = fe_fb_vec_i64(&v, i, &i64); x = json_integer(i64); break;
        case K_VEC_I32: *rc = fe_fb_vec_i32(&v, i, &i32); x = json_integer(i32); break;
        case K_VEC_U8: *rc = fe_fb_vec_u8(&v, i, &u8); x = json_integer(u8); break;
        default:
            *rc = fe_fb_vec_table(&v, i, &sub);
            x = *rc == FE_FB_OK ? dec_table(&sub, f->ref, st) : NULL;
            if (x == NULL && *rc == FE_FB_OK)
                *rc = RC_REPORTED;
        }
        if (*rc == FE_FB_OK && (x == NULL || json_array_append_new(a, x) != 0)) {
            *st = dec_oom(); /* an element lost to a failed allocation */
            *rc = RC_REPORTED;
        } else if (*rc != FE_FB_OK) {
            json_decref(x);
        }
    }
    return a;
}

static json_t *dec_union(const fe_fb_table *t, const fb_field *f, hipdnnStatus_t *st, int *rc,
                         const char **member)
{
    uint8_t code;
    if ((*rc = fe_fb_u8(t, (uint16_t)(f->id - 1), 0, &code)) != FE_FB_OK || code == 0) {
        *rc = *rc == FE_FB_BAD ? FE_FB_BAD : FE_FB_ABSENT;
        return NULL;
    }
    if (strcmp(f->ref, "TensorValue") == 0) {
        const fb_struct *s = value_member(code);
        const uint8_t *p;
        if (s == NULL || (*rc = fe_fb_union_struct(t, f->id, s->size, &p)) != FE_FB_OK) {
            *rc = FE_FB_BAD;
            return NULL;
        }
        *member = s->name;
        json_t *x = unpack_struct(s, p);
        if (x == NULL) {
            /* jansson has no NaN/inf: such a value cannot be carried (not an allocation) */
            bool finite = s->kind == K_F32 ? isfinite(fe_fb_ld_f32(p))
                        : s->kind == K_F64 ? isfinite(fe_fb_ld_f64(p)) : true;
            *st = finite ? dec_oom() : CFAIL("a %s tensor value is not finite", s->name);
            *rc = RC_REPORTED;
        }
        return x;
    }
    *member = node_member_name(code);
    fb_table probe;
    if (*member == NULL || !table_by_name(*member, &probe)) {
        *st = base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                        "graph FlatBuffer: operation %s (union code %d) is not supported by this "
                        "backend", *member != NULL ? *member : "of an unknown kind", code);
        *rc = RC_REPORTED;
        return NULL;
    }
    fe_fb_table sub;
    uint8_t type_again;
    if ((*rc = fe_fb_union(t, f->id, &type_again, &sub)) != FE_FB_OK)
        return NULL;
    json_t *x = dec_table(&sub, *member, st);
    if (x == NULL)
        *rc = RC_REPORTED;
    return x;
}

static json_t *dec_scalar(const fe_fb_table *t, const fb_field *f, int *rc)
{
    bool b; int64_t i64; int32_t i32; uint32_t u32; float f32; int8_t e;
    const char *s; uint32_t len; const uint8_t *p;
    switch (f->kind) { /* a FlatBuffer field kind, stored as a byte */
    case K_BOOL: return (*rc = fe_fb_bool(t, f->id, false, &b)) == FE_FB_OK ? json_boolean(b) : NULL;
    case K_I64: return (*rc = fe_fb_i64(t, f->id, 0, &i64)) == FE_FB_OK ? json_integer(i64) : NULL;
    case K_I32: return (*rc = fe_fb_i32(t, f->id, 0, &i32)) == FE_FB_OK ? json_integer(i32) : NULL;
    case K_U32: return (*rc = fe_fb_u32(t, f->id, 0, &u32)) == FE_FB_OK ? json_integer(u32) : NULL;
    case K_F32: return (*rc = fe_fb_f32(t, f->id, 0, &f32)) == FE_FB_OK ? fe_json_f32(f32) : NULL;
    case K_STR:
        return (*rc = fe_fb_string(t, f->id, &s, &len)) == FE_FB_OK ? json_stringn(s, len) : NULL;
    case K_ENUM: {
        if ((*rc = fe_fb_i8(t, f->id, 0, &e)) != FE_FB_OK)
            return NULL;
        const char *name = fe_enum_to_name(f->ref, e);
        if (name == NULL)
            *rc = FE_FB_BAD;
        return name != NULL ? json_string(name) : NULL;
    }
    case K_STRUCT: {
        const fb_struct *st = struct_by_name(f->ref);
        return (*rc = fe_fb_struct(t, f->id, st->size, &p)) == FE_FB_OK ? unpack_struct(st, p) : NULL;
    }
    default: *rc = FE_FB_BAD; return NULL;
    }
}

/* A table-valued field (a score modifier's Graph). */
static json_t *dec_subtable(const fe_fb_table *t, const fb_field *f, hipdnnStatus_t *st, int *rc)
{
    fe_fb_table sub;
    if ((*rc = fe_fb_subtable(t, f->id, &sub)) != FE_FB_OK)
        return NULL;
    json_t *x = dec_table(&sub, f->ref, st);
    if (x == NULL)
        *rc = RC_REPORTED;
    return x;
}

static bool dec_field(const fe_fb_table *t, const char *tname, const fb_field *f, json_t *obj,
                      hipdnnStatus_t *st)
{
    int rc = FE_FB_ABSENT;
    const char *member = NULL;
    json_t *x;
    if (f->kind == K_UNION)
        x = dec_union(t, f, st, &rc, &member);
    else if (f->kind == K_TABLE)
        x = dec_subtable(t, f, st, &rc);
    else if (f->kind == K_VEC_I64 || f->kind == K_VEC_I32 || f->kind == K_VEC_U8 ||
             f->kind == K_VEC_TABLE)
        x = dec_vec(t, f, st, &rc);
    else
        x = dec_scalar(t, f, &rc);
    if (rc == FE_FB_ABSENT)
        return true;
    if (rc != FE_FB_OK || x == NULL) {
        json_decref(x);
        return rc == RC_REPORTED ? false : dec_bad(st, tname, f);
    }
    if (member != NULL) {
        char key[80];
        snprintf(key, sizeof key, "%s_type", f->name);
        if (json_object_set_new(obj, key, json_string(member)) != 0) {
            json_decref(x);
            *st = dec_oom();
            return false;
        }
    }
    if (json_object_set_new(obj, f->name, x) != 0) {
        *st = dec_oom();
        return false;
    }
    return true;
}

/* The layout a serialized table is read with: Node has two (node_table_v1). */
static bool layout_of(const fe_fb_table *t, const char *tname, fb_table *desc)
{
    if (strcmp(tname, "Node") == 0 && !fe_fb_present(t, 3)) {
        *desc = node_table_v1;
        return true;
    }
    return table_by_name(tname, desc);
}

static json_t *dec_table(const fe_fb_table *t, const char *tname, hipdnnStatus_t *st)
{
    fb_table desc;
    json_t *obj = json_object();
    if (obj == NULL || !layout_of(t, tname, &desc)) {
        json_decref(obj);
        *st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "reading a graph: out of memory");
        return NULL;
    }
    for (int i = 0; i < desc.n; i++)
        if (!dec_field(t, tname, &desc.f[i], obj, st)) {
            json_decref(obj);
            return NULL;
        }
    return obj;
}

hipdnnStatus_t fe_fb_decode_graph(const uint8_t *buf, size_t len, json_t **out)
{
    fe_fb_table root;
    if (fe_fb_root(buf, len, &root) != FE_FB_OK)
        return CFAIL("%zu bytes are not a FlatBuffer (bad root table)", len);
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    json_t *doc = dec_table(&root, "Graph", &st);
    if (doc == NULL)
        return st != HIPDNN_STATUS_SUCCESS ? st : CFAIL("unreadable graph");
    *out = doc;
    return HIPDNN_STATUS_SUCCESS;
}
