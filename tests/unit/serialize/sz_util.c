/* sz_util.c — graphs and serialized forms for the serialization suites (see sz_util.h). */
#include "sz_util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/tu.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

int sz_op_specs(const rc_desc **out, int max)
{
    int n = 0;
    for (int i = 0; i < rc_n_specs && n < max; i++)
        if (rc_specs[i].op_type >= 0)
            out[n++] = &rc_specs[i];
    return n;
}

static bool is_virtual(hipdnnBackendDescriptor_t t)
{
    bool v = false;
    int64_t n = 0;
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_IS_VIRTUAL, HIPDNN_TYPE_BOOLEAN, 1, &n, &v));
    return n == 1 && v;
}

/* An IDENTITY pointwise op copying virtual tensor t into a new physical tensor. */
static hipdnnBackendDescriptor_t consumer(rc_ctx *extra, hipdnnBackendDescriptor_t t)
{
    int64_t dims[8], n = 0;
    hipdnnDataType_t dt;
    hipdnnPointwiseMode_t mode = HIPDNN_POINTWISE_IDENTITY;
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_DATA_TYPE, HIPDNN_TYPE_DATA_TYPE, 1, &n,
                                    &dt));
    TU_OK(hipdnnBackendGetAttribute(t, HIPDNN_ATTR_TENSOR_DIMENSIONS, HIPDNN_TYPE_INT64, 8, &n, dims));
    hipdnnBackendDescriptor_t out = rc_tensor(extra, -1, dt, (int)n, dims, false), op = NULL;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_IN_0_EXT, DESC, 1, &t));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_POINTWISE_OUT_0_EXT, DESC, 1, &out));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_POINTWISE_MODE, HIPDNN_TYPE_POINTWISE_MODE, 1,
                                    &mode));
    TU_OK(hipdnnBackendFinalize(op));
    cr_assert_lt(extra->n_owned, RC_MAX_OWNED);
    extra->owned[extra->n_owned++] = op;
    return op;
}

void sz_build(sz_graph *g, hipdnnHandle_t handle, const rc_desc *const *specs, int n,
              int variant, bool finalize)
{
    hipdnnBackendDescriptor_t ops[2 * SZ_MAX_OPS];
    int n_ops = 0;
    cr_assert_leq(n, SZ_MAX_OPS);
    memset(g, 0, sizeof *g);
    g->extra.spec = rc_spec_of(HIPDNN_BACKEND_TENSOR_DESCRIPTOR);
    for (int i = 0; i < n; i++) {
        rc_ctx *c = &g->ctx[g->n_ctx++];
        rc_fill_variant(c, specs[i], true, variant, handle);
        ops[n_ops++] = rc_build(c);
        cr_assert_lt(c->n_owned, RC_MAX_OWNED);
        c->owned[c->n_owned++] = ops[n_ops - 1];
        for (int a = 0; a < c->spec->n_attrs; a++) {
            const rc_attr *at = &c->spec->attrs[a];
            if (at->kind != RC_TENSOR && at->kind != RC_TENSORS)
                continue;
            for (int64_t k = 0; k < c->v[a].n; k++)
                if (is_virtual(c->v[a].d[k]))
                    ops[n_ops++] = consumer(&g->extra, c->v[a].d[k]);
        }
    }
    hipdnnBackendDescriptor_t d = NULL;
    hipdnnDataType_t f32 = HIPDNN_DATA_FLOAT, bf16 = HIPDNN_DATA_BFLOAT16;
    int64_t engine = (int64_t)tu_rand();
    bool override = tu_rand() & 1;
    char name[48];
    int len = snprintf(name, sizeof name, "graph_%llx", (unsigned long long)tu_rand());
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &d));
    TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1,
                                    &handle));
    /* in two batches: OPS appends */
    TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, 1, ops));
    if (n_ops > 1)
        TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_OPS, DESC, n_ops - 1, ops + 1));
    TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_NAME_EXT, HIPDNN_TYPE_CHAR, len,
                                    name));
    TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_COMPUTE_DATA_TYPE_EXT,
                                    HIPDNN_TYPE_DATA_TYPE, 1, &f32));
    TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_INTERMEDIATE_DATA_TYPE_EXT,
                                    HIPDNN_TYPE_DATA_TYPE, 1, &f32));
    TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_IO_DATA_TYPE_EXT,
                                    HIPDNN_TYPE_DATA_TYPE, 1, &bf16));
    TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_PREFERRED_ENGINE_ID_EXT,
                                    HIPDNN_TYPE_INT64, 1, &engine));
    TU_OK(hipdnnBackendSetAttribute(d, HIPDNN_ATTR_OPERATIONGRAPH_IS_OVERRIDE_SHAPE_ENABLED_EXT,
                                    HIPDNN_TYPE_BOOLEAN, 1, &override));
    if (finalize)
        TU_OK(hipdnnBackendFinalize(d));
    g->graph = d;
}

void sz_free(sz_graph *g)
{
    if (g->graph != NULL)
        cr_expect_eq(hipdnnBackendDestroyDescriptor(g->graph), HIPDNN_STATUS_SUCCESS);
    g->graph = NULL;
    for (int i = 0; i < g->n_ctx; i++)
        rc_release(&g->ctx[i]);
    rc_release(&g->extra);
    g->n_ctx = 0;
}

char *sz_json_text(hipdnnBackendDescriptor_t graph)
{
    size_t n = 0;
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(graph, 0, &n, NULL));
    char *text = malloc(n);
    cr_assert_not_null(text);
    TU_OK(hipdnnBackendGetSerializedJsonGraph_ext(graph, n, &n, text));
    return text;
}

uint8_t *sz_binary(hipdnnBackendDescriptor_t graph, size_t *len)
{
    TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(graph, 0, len, NULL));
    uint8_t *bin = malloc(*len);
    cr_assert_not_null(bin);
    TU_OK(hipdnnBackendGetSerializedBinaryGraph_ext(graph, *len, len, bin));
    return bin;
}

json_t *sz_json(hipdnnBackendDescriptor_t graph)
{
    char *text = sz_json_text(graph);
    json_error_t err;
    json_t *doc = json_loads(text, 0, &err);
    cr_assert_not_null(doc, "the library's JSON does not parse: %s\n%s", err.text, text);
    free(text);
    return doc;
}

static void dump(const char *what, const char *side, const json_t *doc)
{
    char *s = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
    fprintf(stderr, "---- %s: %s ----\n%s\n", what, side, s != NULL ? s : "(null)");
    free(s);
}

bool sz_same(const json_t *a, const json_t *b, const char *what)
{
    bool same = json_equal(a, b);
    cr_expect(same, "%s: the JSON models differ (both printed on stderr)", what);
    if (!same) {
        dump(what, "first", a);
        dump(what, "second", b);
    }
    return same;
}

static bool loose(const json_t *a, const json_t *b, char *path, size_t cap)
{
    if (json_is_number(a) && json_is_number(b) && (json_is_real(a) || json_is_real(b))) {
        double x = json_number_value(a), y = json_number_value(b);
        /* flatc 2.0.8 prints floats in fixed notation with 6 decimals: off by <= 5e-7 */
        if ((float)x == (float)y || fabs(x - y) <= 6e-7)
            return true;
        snprintf(path + strlen(path), cap - strlen(path), " (%.9g vs %.9g)", x, y);
        return false;
    }
    if (json_typeof(a) != json_typeof(b) && !(json_is_boolean(a) && json_is_boolean(b)))
        return false;
    size_t at = strlen(path);
    if (json_is_object(a)) {
        const char *key;
        json_t *va;
        if (json_object_size(a) != json_object_size(b))
            return false;
        json_object_foreach((json_t *)a, key, va) {
            snprintf(path + at, cap - at, ".%s", key);
            json_t *vb = json_object_get(b, key);
            if (vb == NULL || !loose(va, vb, path, cap))
                return false;
        }
        path[at] = '\0';
        return true;
    }
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++) {
            snprintf(path + at, cap - at, "[%zu]", i);
            if (!loose(json_array_get(a, i), json_array_get(b, i), path, cap))
                return false;
        }
        path[at] = '\0';
        return true;
    }
    return json_equal(a, b);
}

bool sz_same_loose(const json_t *a, const json_t *b, const char *what)
{
    char path[512] = "";
    bool same = loose(a, b, path, sizeof path);
    cr_expect(same, "%s: the JSON models differ at %s (both printed on stderr)", what, path);
    if (!same) {
        dump(what, "first", a);
        dump(what, "second", b);
    }
    return same;
}

