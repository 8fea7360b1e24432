/* dyn_graphs.c — the dynamic-shape tests' graph families (dyn_graphs.h), as JSON text. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_graphs.h"
#include "tu.h"

typedef struct text {
    char *p;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        cr_assert_not_null(t->p);
    }
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* A tensor; strides NULL: packed, the second-to-last dim's stride padded by `pad`. */
static void tensor(text *t, int uid, const char *dtype, int rank, const int64_t *dims, int64_t pad,
                   bool is_virtual)
{
    int64_t st[8], s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        st[i] = s;
        s *= dims[i] + (i == rank - 1 ? pad : 0);
    }
    put(t, "%s{\"uid\": %d, \"data_type\": \"%s\", \"virtual\": %s, \"dims\": [", t->len > 14 ? ", " : "",
        uid, dtype, is_virtual ? "true" : "false");
    for (int i = 0; i < rank; i++)
        put(t, "%s%lld", i ? ", " : "", (long long)dims[i]);
    put(t, "], \"strides\": [");
    for (int i = 0; i < rank; i++)
        put(t, "%s%lld", i ? ", " : "", (long long)st[i]);
    put(t, "]}");
}

static void epsilon(text *t, int uid, int rank)
{
    const int64_t one[4] = {1, 1, 1, 1};
    tensor(t, uid, "FLOAT", rank, one, 0, false);
    t->len--; /* reopen the object */
    put(t, ", \"value_type\": \"Float32Value\", \"value\": {\"value\": 1e-05}}");
}

static void node(text *t, bool first, const char *type, const char *attrs)
{
    put(t, "%s{\"compute_data_type\": \"FLOAT\", \"attributes_type\": \"%s\", \"attributes\": {%s}}",
        first ? "" : ", ", type, attrs);
}

static void pointwise(text *t, bool first, const char *op, int a, int b, int y)
{
    char attrs[256];
    if (b > 0)
        snprintf(attrs, sizeof attrs, "\"operation\": \"%s\", \"in_0_tensor_uid\": %d, \"in_1_tensor_uid\": %d, "
                 "\"out_0_tensor_uid\": %d", op, a, b, y);
    else
        snprintf(attrs, sizeof attrs, "\"operation\": \"%s\", \"in_0_tensor_uid\": %d, \"out_0_tensor_uid\": %d",
                 op, a, y);
    node(t, first, "PointwiseAttributes", attrs);
}

static void norms(text *t, dyn_family f, int64_t b, int64_t s, int64_t h)
{
    const int64_t x[3] = {b, s, h}, w[3] = {1, 1, h}, row[3] = {b, s, 1};
    tensor(t, 1, "BFLOAT16", 3, x, 0, false);
    tensor(t, 2, "FLOAT", 3, w, 0, false);
    tensor(t, 3, f == DYN_LAYERNORM ? "FLOAT" : "BFLOAT16", 3, f == DYN_LAYERNORM ? w : x, 0, false);
    epsilon(t, 4, 3);
    tensor(t, 5, "BFLOAT16", 3, x, 0, false);
    if (f == DYN_LAYERNORM) {
        tensor(t, 6, "FLOAT", 3, row, 0, false);
        tensor(t, 7, "FLOAT", 3, row, 0, false);
        put(t, "], \"nodes\": [");
        node(t, true, "LayernormAttributes", "\"x_tensor_uid\": 1, \"scale_tensor_uid\": 2, \"bias_tensor_uid\": 3, "
             "\"epsilon_tensor_uid\": 4, \"y_tensor_uid\": 5, \"normalized_dim_count\": 1, \"mean_tensor_uid\": 6, "
             "\"inv_variance_tensor_uid\": 7, \"forward_phase\": \"TRAINING\"");
        return;
    }
    tensor(t, 6, "BFLOAT16", 3, x, 0, false); /* r = x + res, stored */
    put(t, "], \"nodes\": [");
    pointwise(t, true, "ADD", 1, 3, 6);
    node(t, false, "RMSNormAttributes", "\"x_tensor_uid\": 6, \"scale_tensor_uid\": 2, \"epsilon_tensor_uid\": 4, "
         "\"y_tensor_uid\": 5, \"forward_phase\": \"INFERENCE\"");
}

static void pointwises(text *t, dyn_family f, int64_t b, int64_t s, int64_t h)
{
    const int64_t x[3] = {b, s, h}, bias[3] = {1, 1, h}, gate[3] = {b, 1, 1}, scale[3] = {1, s, 1};
    if (f == DYN_POINTWISE_BCAST) {
        tensor(t, 1, "BFLOAT16", 3, x, 0, false);
        tensor(t, 2, "FLOAT", 3, bias, 0, false);
        tensor(t, 3, "FLOAT", 3, gate, 0, false);
        tensor(t, 4, "FLOAT", 3, x, 0, true);
        tensor(t, 5, "BFLOAT16", 3, x, 0, false);
        tensor(t, 6, "BFLOAT16", 3, x, 0, false); /* relu of stored bf16 y: bf16 tolerance */
        put(t, "], \"nodes\": [");
        pointwise(t, true, "ADD", 1, 2, 4);
        pointwise(t, false, "MUL", 4, 3, 5);
        pointwise(t, false, "RELU_FWD", 5, 0, 6);
        return;
    }
    tensor(t, 1, "BFLOAT16", 3, x, 8, false);
    tensor(t, 2, "FLOAT", 3, scale, 0, false);
    tensor(t, 3, "FLOAT", 3, bias, 0, false);
    tensor(t, 4, "FLOAT", 3, x, 0, true);
    tensor(t, 5, "BFLOAT16", 3, x, 16, false);
    put(t, "], \"nodes\": [");
    pointwise(t, true, "MUL", 1, 2, 4);
    pointwise(t, false, "ADD", 4, 3, 5);
}

static void matmuls(text *t, dyn_family f, int64_t b, int64_t s, int64_t k)
{
    int64_t n = k;
    if (f == DYN_MATMUL_BIAS) {
        const int64_t a[3] = {b, s, k}, w[3] = {1, k, n}, c[3] = {b, s, n}, bias[3] = {1, 1, n};
        tensor(t, 1, "BFLOAT16", 3, a, 0, false);
        tensor(t, 2, "BFLOAT16", 3, w, 0, false);
        tensor(t, 3, "FLOAT", 3, c, 0, true);
        tensor(t, 4, "FLOAT", 3, bias, 0, false);
        tensor(t, 5, "FLOAT", 3, c, 0, true);
        tensor(t, 6, "BFLOAT16", 3, c, 0, false);
        put(t, "], \"nodes\": [");
        node(t, true, "MatmulAttributes", "\"a_tensor_uid\": 1, \"b_tensor_uid\": 2, \"c_tensor_uid\": 3");
        pointwise(t, false, "ADD", 3, 4, 5);
        pointwise(t, false, "RELU_FWD", 5, 0, 6);
        return;
    }
    const int64_t a[4] = {b, 2, s, k}, w[4] = {b, 2, k, n}, c[4] = {b, 2, s, n};
    tensor(t, 1, "BFLOAT16", 4, a, 0, false);
    tensor(t, 2, "BFLOAT16", 4, w, 0, false);
    tensor(t, 3, "BFLOAT16", 4, c, 0, false);
    put(t, "], \"nodes\": [");
    node(t, true, "MatmulAttributes", "\"a_tensor_uid\": 1, \"b_tensor_uid\": 2, \"c_tensor_uid\": 3");
}

const char *dyn_family_name(dyn_family f)
{
    static const char *names[] = {"layernorm", "rmsnorm_residual", "pointwise_bcast", "pointwise_padded",
                                  "matmul_bias", "matmul_batched"};
    return f < DYN_FAMILIES ? names[f] : "?";
}

char *dyn_graph_json(dyn_family f, int64_t b, int64_t s, int64_t inner)
{
    text t = {0};
    put(&t, "{\"tensors\": [");
    if (f == DYN_LAYERNORM || f == DYN_RMSNORM_RESIDUAL)
        norms(&t, f, b, s, inner);
    else if (f == DYN_POINTWISE_BCAST || f == DYN_POINTWISE_PADDED)
        pointwises(&t, f, b, s, inner);
    else
        matmuls(&t, f, b, s, inner);
    put(&t, "]}");
    return t.p;
}

hipdnnBackendDescriptor_t dyn_graph(hipdnnHandle_t handle, dyn_family f, int64_t b, int64_t s,
                                    int64_t inner, bool dynamic)
{
    char *json = dyn_graph_json(f, b, s, inner);
    hipdnnBackendDescriptor_t g;
    cr_assert_eq(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, json, strlen(json)), HIPDNN_STATUS_SUCCESS,
                 "%s: %s\n%s", dyn_family_name(f), tu_msg(), json);
    cr_assert_eq(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle),
                 HIPDNN_STATUS_SUCCESS);
    if (dynamic)
        cr_assert_eq(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED,
                                               HIPDNN_TYPE_BOOLEAN, 1, &dynamic), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    cr_assert_eq(hipdnnBackendFinalize(g), HIPDNN_STATUS_SUCCESS, "%s: %s\n%s", dyn_family_name(f), tu_msg(), json);
    free(json);
    return g;
}
