/* recipes_util.c — helpers the recipes set attributes with: uids unique across a test program,
 * tensors and by-value scalars owned by the context, typed setters that record each value for
 * rc_check_get, names, the common operation attributes (recipes_util.h). Public API only.
 */
#include "recipes.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tu.h"

#include "recipes_util.h"

/* ---- helpers used by the recipes ------------------------------------------------------------- */

int64_t rcu_next_uid; /* uids are unique across every recipe of a test program */

rc_val *rcu_val(rc_ctx *c, hipdnnBackendAttributeName_t id)
{
    int i = rc_index(c->spec, id);
    cr_assert_geq(i, 0, "recipe for %s uses attribute %d, which its table lacks", c->spec->name,
                  (int)id);
    return &c->v[i];
}

void rcu_own(rc_ctx *c, hipdnnBackendDescriptor_t d)
{
    cr_assert_lt(c->n_owned, RC_MAX_OWNED, "recipe owns too many descriptors");
    c->owned[c->n_owned++] = d;
}

hipdnnBackendDescriptor_t rc_tensor(rc_ctx *c, int64_t uid, hipdnnDataType_t dt, int rank,
                                    const int64_t *dims, bool is_virtual)
{
    if (rcu_next_uid == 0)
        rcu_next_uid = tu_range(1, (int64_t)1 << 40);
    if (uid < 0)
        uid = rcu_next_uid++;
    hipdnnBackendDescriptor_t t = tu_tensor(uid, dt, rank, dims, is_virtual, NULL, 0);
    rcu_own(c, t);
    return t;
}

/* A by-value scalar of `rank` dims of 1, holding the `size` bytes at value. */
hipdnnBackendDescriptor_t rcu_scalar(rc_ctx *c, int rank, hipdnnDataType_t dt,
                                        const void *value, size_t size)
{
    int64_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, uid;
    hipdnnBackendDescriptor_t t = NULL;
    if (rcu_next_uid == 0)
        rcu_next_uid = tu_range(1, (int64_t)1 << 40);
    uid = rcu_next_uid++;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, &t));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, I64, 1, &uid));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, DT, 1, &dt));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, I64, rank, ones));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_STRIDES, I64, rank, ones));
    TU_OK(hipdnnBackendSetAttribute(t, HIPDNN_ATTR_TENSOR_VALUE_EXT, CHR, (int64_t)size, value));
    TU_OK(hipdnnBackendFinalize(t));
    rcu_own(c, t);
    return t;
}

hipdnnBackendDescriptor_t rc_scalar_f32(rc_ctx *c, int rank, float value)
{
    return rcu_scalar(c, rank, HIPDNN_DATA_FLOAT, &value, sizeof value);
}

static int64_t uid_of(hipdnnBackendDescriptor_t t)
{
    int64_t uid = 0, n = 0;
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_UNIQUE_ID, I64, 1, &n, &uid));
    return uid;
}

/* Puts tensors ts[0..n) as the value of attribute id. */
void rcu_put_tensors(rc_ctx *c, hipdnnBackendAttributeName_t id, int n,
                        const hipdnnBackendDescriptor_t *ts)
{
    rc_val *v = rcu_val(c, id);
    cr_assert_leq(n, RC_MAX_DESCS);
    v->n = n;
    for (int i = 0; i < n; i++) {
        v->d[i] = ts[i];
        v->uid[i] = uid_of(ts[i]);
    }
}

void rcu_put(rc_ctx *c, hipdnnBackendAttributeName_t id, hipdnnBackendDescriptor_t t)
{
    rcu_put_tensors(c, id, 1, &t);
}

/* A new tensor as the value of attribute id. */
hipdnnBackendDescriptor_t rcu_tensor(rc_ctx *c, hipdnnBackendAttributeName_t id,
                                        hipdnnDataType_t dt, int rank, const int64_t *dims,
                                        bool is_virtual)
{
    hipdnnBackendDescriptor_t t = rc_tensor(c, -1, dt, rank, dims, is_virtual);
    rcu_put(c, id, t);
    return t;
}

void rcu_s_i64(rc_ctx *c, hipdnnBackendAttributeName_t id, int64_t x)
{
    rc_val *v = rcu_val(c, id);
    v->n = 1;
    v->u.i64[0] = x;
}
void rcu_s_i32(rc_ctx *c, hipdnnBackendAttributeName_t id, int32_t x)
{
    rc_val *v = rcu_val(c, id);
    v->n = 1;
    v->u.i32[0] = x;
}
void rcu_s_f32(rc_ctx *c, hipdnnBackendAttributeName_t id, float x)
{
    rc_val *v = rcu_val(c, id);
    v->n = 1;
    v->u.f32 = x;
}
void rcu_s_bool(rc_ctx *c, hipdnnBackendAttributeName_t id, bool x)
{
    rc_val *v = rcu_val(c, id);
    v->n = 1;
    v->u.b = x;
}
void rcu_s_enum(rc_ctx *c, hipdnnBackendAttributeName_t id, int x)
{
    rc_val *v = rcu_val(c, id);
    v->n = 1;
    v->u.e = x;
}
void rcu_a_i64(rc_ctx *c, hipdnnBackendAttributeName_t id, int n, const int64_t *x)
{
    rc_val *v = rcu_val(c, id);
    v->n = n;
    memcpy(v->u.i64, x, (size_t)n * sizeof *x);
}
void rcu_a_i32(rc_ctx *c, hipdnnBackendAttributeName_t id, int n, const int32_t *x)
{
    rc_val *v = rcu_val(c, id);
    v->n = n;
    memcpy(v->u.i32, x, (size_t)n * sizeof *x);
}
void rcu_s_bytes(rc_ctx *c, hipdnnBackendAttributeName_t id, const void *p, size_t n)
{
    rc_val *v = rcu_val(c, id);
    cr_assert_leq(n, sizeof v->u.s);
    v->n = (int64_t)n;
    memcpy(v->u.s, p, n);
}
/* A random printable name "<prefix>_xxxx...". */
void rcu_s_name(rc_ctx *c, hipdnnBackendAttributeName_t id, const char *prefix)
{
    char s[RC_STR_MAX];
    int len = snprintf(s, sizeof s, "%s_", prefix);
    int extra = (int)tu_range(1, 40);
    for (int i = 0; i < extra && len < RC_STR_MAX - 1; i++)
        s[len++] = "abcdefghijklmnopqrstuvwxyz0123456789-_."[tu_range(0, 38)];
    rcu_s_bytes(c, id, s, (size_t)len);
}

hipdnnDataType_t rcu_any_float_type(void)
{
    static const hipdnnDataType_t t[] = {HIPDNN_DATA_FLOAT, HIPDNN_DATA_HALF, HIPDNN_DATA_BFLOAT16};
    return t[tu_range(0, 2)];
}

/* The common op attributes: a name in a full recipe, the expected operation type always. */
void rcu_op_common(rc_ctx *c)
{
    if (c->full)
        rcu_s_name(c, HIPDNN_ATTR_OPERATION_NAME_EXT, "op");
    rcu_s_enum(c, HIPDNN_ATTR_OPERATION_TYPE_EXT, c->spec->op_type);
}

