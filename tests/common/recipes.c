/* recipes.c — attribute tables and recipes of every graph-side descriptor (see recipes.h).
 *
 * Tables: hipdnn-api.md §2.3 and include/HipdnnBackendAttributeName.h. Shapes in the recipes:
 * op-semantics.md (§1.2 conv, §3 norms, §4 SDPA, §5 block scaling); letters in comments are
 * N batch, C channels, K filters, H/W spatial, B batch, H heads, S sequence, D head dim.
 *
 * This file: applying a recipe to a descriptor and checking what GetAttribute returns. The
 * tables and registry are in recipes_tables.c, the recipes in recipes_ops.c and recipes_attn.c,
 * their helpers in recipes_util.c.
 */
#include "recipes.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tu.h"

#include "recipes_util.h"

/* ---- applying and checking --------------------------------------------------------------------- */

int rc_variants(const rc_desc *spec)
{
    return spec->variants > 1 ? spec->variants : 1;
}

void rc_fill_variant(rc_ctx *c, const rc_desc *spec, bool full, int variant,
                     hipdnnHandle_t handle)
{
    memset(c, 0, sizeof *c);
    c->spec = spec;
    c->full = full;
    c->variant = variant % rc_variants(spec);
    c->handle = handle;
    cr_assert_leq(spec->n_attrs, RC_MAX_ATTRS);
    spec->recipe(c);
    /* the recipe must cover the table: every required attribute, every settable one if full */
    for (int i = 0; i < spec->n_attrs; i++) {
        const rc_attr *a = &spec->attrs[i];
        bool settable = a->kind != RC_GET_ONLY && a->kind != RC_DECLARED && !a->alt;
        if (a->required || (full && settable) || a->kind == RC_GET_ONLY)
            cr_assert_gt(c->v[i].n, 0, "recipe for %s (%s) leaves %s unset", spec->name,
                         full ? "full" : "minimal", a->name);
    }
}

void rc_fill(rc_ctx *c, const rc_desc *spec, bool full, hipdnnHandle_t handle)
{
    rc_fill_variant(c, spec, full, 0, handle);
}

static const void *elements(const rc_val *v, const rc_attr *a)
{
    if (a->type == HIPDNN_TYPE_BACKEND_DESCRIPTOR)
        return v->d;
    if (a->type == HIPDNN_TYPE_CHAR)
        return v->u.s;
    return &v->u;
}

hipdnnStatus_t rc_set(const rc_ctx *c, hipdnnBackendDescriptor_t d, int i)
{
    const rc_attr *a = &c->spec->attrs[i];
    return hipdnnBackendSetAttribute(d, a->id, a->type, c->v[i].n, elements(&c->v[i], a));
}

hipdnnBackendDescriptor_t rc_create(const rc_ctx *c, int skip)
{
    hipdnnBackendDescriptor_t d = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(c->spec->type, &d));
    /* the data type first: a by-value tensor's VALUE_EXT needs it */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < c->spec->n_attrs; i++) {
            const rc_attr *a = &c->spec->attrs[i];
            bool first = a->id == HIPDNN_ATTR_TENSOR_DATA_TYPE;
            if (i == skip || c->v[i].n == 0 || a->kind == RC_GET_ONLY ||
                a->kind == RC_DECLARED || first != (pass == 0))
                continue;
            hipdnnStatus_t st = rc_set(c, d, i);
            cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "%s: setting %s -> %s [%s]", c->spec->name,
                         a->name, tu_st(st), tu_msg());
        }
    return d;
}

hipdnnBackendDescriptor_t rc_build(const rc_ctx *c)
{
    hipdnnBackendDescriptor_t d = rc_create(c, -1);
    hipdnnStatus_t st = hipdnnBackendFinalize(d);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "finalizing a %s %s -> %s [%s]",
                 c->full ? "full" : "minimal", c->spec->name, tu_st(st), tu_msg());
    return d;
}

/* Checks the descriptors returned for a descriptor-valued attribute. */
static void check_descs(const rc_ctx *c, const rc_attr *a, const rc_val *v,
                        hipdnnBackendDescriptor_t *got, int64_t n)
{
    for (int64_t k = 0; k < n; k++) {
        cr_expect_neq(got[k], NULL, "%s %s: element %lld is NULL", c->spec->name, a->name,
                      (long long)k);
        if (got[k] == NULL)
            continue;
        if (a->kind == RC_OPS) {
            int type = -1;
            int64_t cnt = 0;
            hipdnnStatus_t st = hipdnnBackendGetAttribute(got[k], HIPDNN_ATTR_OPERATION_TYPE_EXT,
                                                          HIPDNN_TYPE_OPERATION_TYPE_EXT, 1,
                                                          &cnt, &type);
            cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
            cr_expect_eq(type, v->op_type[k], "%s %s[%lld]: operation type %d, expected %d",
                         c->spec->name, a->name, (long long)k, type, v->op_type[k]);
        } else {
            int64_t uid = -1, cnt = 0;
            hipdnnStatus_t st = hipdnnBackendGetAttribute(got[k], HIPDNN_ATTR_TENSOR_UNIQUE_ID,
                                                          I64, 1, &cnt, &uid);
            cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
            cr_expect_eq(uid, v->uid[k], "%s %s[%lld]: uid %lld, expected %lld", c->spec->name,
                         a->name, (long long)k, (long long)uid, (long long)v->uid[k]);
        }
        cr_expect_eq(hipdnnBackendDestroyDescriptor(got[k]), HIPDNN_STATUS_SUCCESS);
    }
}

int64_t rc_count(const rc_ctx *c, int i)
{
    const rc_attr *a = &c->spec->attrs[i];
    bool nul = a->kind == RC_STRING || (a->kind == RC_GET_ONLY && a->type == CHR);
    return nul && c->v[i].n > 0 ? c->v[i].n + 1 : c->v[i].n;
}

void rc_check_get(const rc_ctx *c, hipdnnBackendDescriptor_t d, int i)
{
    const rc_attr *a = &c->spec->attrs[i];
    const rc_val *v = &c->v[i];
    int64_t n = -7;
    hipdnnStatus_t st = hipdnnBackendGetAttribute(d, a->id, a->type, 0, &n, NULL);
    if (a->kind == RC_DECLARED) {
        cr_expect_eq(st, HIPDNN_STATUS_NOT_SUPPORTED, "%s %s (declared only): get -> %s",
                     c->spec->name, a->name, tu_st(st));
        return;
    }
    cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s %s: size query -> %s [%s]", c->spec->name,
                 a->name, tu_st(st), tu_msg());
    int64_t want = rc_count(c, i);
    cr_expect_eq(n, want, "%s %s: size query says %lld, expected %lld", c->spec->name, a->name,
                 (long long)n, (long long)want);
    if (v->n == 0 || st != HIPDNN_STATUS_SUCCESS)
        return;
    if (a->type == HIPDNN_TYPE_BACKEND_DESCRIPTOR) {
        hipdnnBackendDescriptor_t got[RC_MAX_DESCS + 1] = {0};
        n = -7;
        st = hipdnnBackendGetAttribute(d, a->id, a->type, v->n, &n, got);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s %s: get -> %s [%s]", c->spec->name, a->name,
                     tu_st(st), tu_msg());
        cr_expect_eq(n, v->n, "%s %s: got %lld descriptors, expected %lld", c->spec->name,
                     a->name, (long long)n, (long long)v->n);
        cr_expect_eq(got[v->n], NULL, "%s %s: wrote past the requested count", c->spec->name,
                     a->name);
        if (st == HIPDNN_STATUS_SUCCESS)
            check_descs(c, a, v, got, n < v->n ? (n < 0 ? 0 : n) : v->n);
        return;
    }
    if (a->kind == RC_GET_ONLY && a->type == CHR) { /* a graph key: 32 lowercase hex digits */
        char key[64];
        memset(key, 0x55, sizeof key);
        st = hipdnnBackendGetAttribute(d, a->id, a->type, sizeof key, &n, key);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s %s: %s", c->spec->name, a->name, tu_st(st));
        cr_expect_eq(n, 33, "%s %s: count %lld", c->spec->name, a->name, (long long)n);
        bool hex = key[32] == '\0';
        for (int k = 0; k < 32; k++)
            hex &= (key[k] >= '0' && key[k] <= '9') || (key[k] >= 'a' && key[k] <= 'f');
        cr_expect(hex, "%s %s: '%.40s' is not 32 lowercase hex digits", c->spec->name, a->name,
                  key);
        return;
    }
    /* plain values: poison, request exactly what is there (+1 NUL for strings) */
    size_t es = rc_elem_size(a->type), bytes = (size_t)want * es;
    unsigned char buf[RC_STR_MAX + 64];
    memset(buf, 0xa5, sizeof buf);
    n = -7;
    st = hipdnnBackendGetAttribute(d, a->id, a->type, want, &n, buf);
    cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s %s: get -> %s [%s]", c->spec->name, a->name,
                 tu_st(st), tu_msg());
    cr_expect_eq(n, want, "%s %s: get wrote %lld elements, expected %lld", c->spec->name,
                 a->name, (long long)n, (long long)want);
    cr_expect_eq(memcmp(buf, elements(v, a), (size_t)v->n * es), 0, "%s %s: value differs",
                 c->spec->name, a->name);
    if (a->kind == RC_STRING)
        cr_expect_eq(buf[v->n], 0, "%s %s: not NUL-terminated", c->spec->name, a->name);
    cr_expect_eq(buf[bytes], 0xa5, "%s %s: wrote past the requested count", c->spec->name,
                 a->name);
}

void rc_release(rc_ctx *c)
{
    while (c->n_owned > 0) {
        hipdnnStatus_t st = hipdnnBackendDestroyDescriptor(c->owned[--c->n_owned]);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "destroying a recipe descriptor: %s", tu_msg());
    }
}
