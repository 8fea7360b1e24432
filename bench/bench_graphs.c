/* bench_graphs.c — times whole example graphs (JSON files) on the two GPU engines, jit_fused
 * (the fusion partition) and jit_unfused (one kernel per op, intermediates in workspace), and
 * prints what each achieves.
 *
 * The graph is read from its JSON model with jansson, as the framework that wrote it would
 * (public API only). Every non-virtual tensor gets device memory filled with random values in
 * [-2, 2] (in its own type; random bits for types packed below a byte and block scales of 0.5,
 * 1 or 2 for E8M0); the workspace is allocated to the plan's size. Timing: bench_median_ms (events,
 * warm-up, median of REPS, inputs rotated over SETS buffer sets). Bytes counted: every
 * non-virtual tensor once (what an ideal fused kernel moves); FLOPs: 2·M·N·K for a matmul,
 * 2·(output elements)·(C/groups·filter size) for a forward convolution, 4·B·Hq·Sq·Skv·D for
 * attention (2.5x backward, halved under a causal band), else none.
 * Output: "graph engine ms GB/s TFLOP/s" per line, for bench/compare_graphs.py.
 * Usage: bench_graphs GRAPH.json...
 */
#include <math.h>
#include <string.h>

#include "bench_util.h"

#define SETS 2
#define REPS 30
#define MAX_RANK 8

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    *len = fread(text, 1, (size_t)n, f);
    fclose(f);
    return text;
}

/* ---- the graph's JSON model (the file the framework wrote), read with jansson -------------- */

/* Bytes per element of a data type named as in the JSON model; 0 for types packed below a
 * byte (FP4, FP6, INT4). */
static size_t dtype_size(const char *t)
{
    static const struct { const char *name; size_t size; } sizes[] = {
        {"DOUBLE", 8}, {"INT64", 8}, {"FLOAT", 4}, {"INT32", 4}, {"HALF", 2}, {"BFLOAT16", 2},
        {"INT8", 1}, {"UINT8", 1}, {"BOOLEAN", 1}, {"FP8_E4M3", 1}, {"FP8_E5M2", 1}, {"FP8_E8M0", 1},
        {"FP8_E4M3_FNUZ", 1}, {"FP8_E5M2_FNUZ", 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(t, sizes[i].name) == 0)
            return sizes[i].size;
    return 0;
}

/* The tensor object with this uid, or NULL. */
static json_t *tensor_of(json_t *doc, json_int_t uid)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(doc, "tensors"), i, t)
        if (json_integer_value(json_object_get(t, "uid")) == uid)
            return t;
    return NULL;
}

/* dims[d] of the tensor an attribute names ("a_tensor_uid"); its rank (0 when absent). */
static int dims_of(json_t *doc, json_t *attrs, const char *key, double dims[MAX_RANK])
{
    json_t *t = tensor_of(doc, json_integer_value(json_object_get(attrs, key)));
    json_t *d = json_object_get(t, "dims");
    int rank = (int)json_array_size(d);
    rank = rank > MAX_RANK ? MAX_RANK : rank;
    for (int i = 0; i < rank; i++)
        dims[i] = (double)json_integer_value(json_array_get(d, (size_t)i));
    return rank;
}

static double product(const double *dims, int from, int rank)
{
    double p = 1;
    for (int i = from; i < rank; i++)
        p *= dims[i];
    return p;
}

static double graph_flops(json_t *doc)
{
    double flops = 0, a[MAX_RANK], b[MAX_RANK], y[MAX_RANK];
    size_t i;
    json_t *node;
    json_array_foreach(json_object_get(doc, "nodes"), i, node) {
        const char *type = json_string_value(json_object_get(node, "attributes_type"));
        json_t *at = json_object_get(node, "attributes");
        type = type != NULL ? type : "";
        if (strcmp(type, "MatmulAttributes") == 0) {
            int ra = dims_of(doc, at, "a_tensor_uid", a), ry = dims_of(doc, at, "c_tensor_uid", y);
            flops += ra > 0 ? 2 * product(y, 0, ry) * a[ra - 1] : 0;
        } else if (strcmp(type, "SdpaAttributes") == 0 || strcmp(type, "SdpaBackwardAttributes") == 0) {
            /* 4·B·Hq·Sq·Skv·D forward, 2.5x that backward (bench_attention's convention), halved
             * under a causal band that starts on the diagonal */
            if (dims_of(doc, at, "q_tensor_uid", a) < 4 || dims_of(doc, at, "k_tensor_uid", b) < 4)
                continue;
            double f = 4 * a[0] * a[1] * a[2] * b[2] * a[3];
            json_t *right = json_object_get(at, "right_bound");
            if (right != NULL && json_integer_value(right) == 0 && json_object_get(at, "left_bound") == NULL)
                f /= 2;
            flops += strcmp(type, "SdpaBackwardAttributes") == 0 ? 2.5 * f : f;
        } else if (strcmp(type, "ConvolutionFwdAttributes") == 0) { /* w [K, C/groups, filter...] */
            int rw = dims_of(doc, at, "w_tensor_uid", b), ry = dims_of(doc, at, "y_tensor_uid", y);
            flops += 2 * product(y, 0, ry) * product(b, 1, rw);
        }
    }
    return flops;
}

/* ---- random inputs -------------------------------------------------------------------------- */

static uint16_t half_of(float f) /* IEEE binary16, round to nearest even; |f| <= 2 here */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    float a = fabsf(f);
    if (a < 6.103515625e-05f) /* subnormal: units of 2^-24 */
        return sign | (uint16_t)lrintf(a * 16777216.0f);
    int e;
    float m = frexpf(a, &e); /* a = m·2^e, m in [0.5, 1) */
    uint32_t mant = (uint32_t)lrintf((m * 2 - 1) * 1024);
    uint32_t bits = ((uint32_t)(e - 1 + 15) << 10) + mant; /* a carry into the exponent is right */
    return sign | (uint16_t)bits;
}

/* OCP FP8 E4M3 (bias 7, 3 mantissa bits), for |f| <= 2: round to nearest. */
static uint8_t e4m3_of(float f)
{
    uint8_t sign = f < 0 ? 0x80 : 0;
    float a = fabsf(f);
    if (a < 0.015625f) /* subnormal: units of 2^-9 */
        return sign | (uint8_t)lrintf(a * 512.0f);
    int e;
    float m = frexpf(a, &e);
    return sign | (uint8_t)(((uint32_t)(e - 1 + 7) << 3) + (uint32_t)lrintf((m * 2 - 1) * 8));
}

/* Element i of a buffer of type t set to v (in [-2, 2]); packed types get random bits. */
static void store(void *buf, size_t i, const char *t, float v)
{
    unsigned char *p = buf;
    size_t es = dtype_size(t);
    if (strcmp(t, "FLOAT") == 0) {
        memcpy(p + 4 * i, &v, 4);
    } else if (strcmp(t, "DOUBLE") == 0) {
        double d = v;
        memcpy(p + 8 * i, &d, 8);
    } else if (strcmp(t, "HALF") == 0) {
        uint16_t h = half_of(v);
        memcpy(p + 2 * i, &h, 2);
    } else if (strcmp(t, "INT32") == 0 || strcmp(t, "INT64") == 0 || strcmp(t, "INT8") == 0) {
        int64_t n = (int64_t)lrintf(v); /* little-endian: the low bytes */
        memcpy(p + es * i, &n, es);
    } else if (strcmp(t, "UINT8") == 0) {
        p[i] = (unsigned char)(v < 0 ? 0 : lrintf(v));
    } else if (strcmp(t, "BOOLEAN") == 0) {
        p[i] = v > 0;
    } else if (strncmp(t, "FP8_E5M2", 8) == 0) {
        p[i] = (unsigned char)(half_of(v) >> 8); /* E5M2 is binary16's top byte (truncated) */
    } else if (strncmp(t, "FP8_E4M3", 8) == 0) {
        p[i] = e4m3_of(v);
    } else if (strcmp(t, "FP8_E8M0") == 0) {
        p[i] = (unsigned char)(126 + rand() % 3); /* scales 0.5, 1, 2 */
    } else { /* FP4, FP6, INT4: i counts bytes */
        p[i] = (unsigned char)rand();
    }
}

/* Device memory of the tensor's extent (dims and strides), random values in [-2, 2] in its own
 * type; *bytes receives its size. */
static void *random_tensor(json_t *t, size_t *bytes)
{
    int64_t last = 0;
    json_t *dims = json_object_get(t, "dims"), *strides = json_object_get(t, "strides");
    for (size_t d = 0; d < json_array_size(dims); d++)
        last += (json_integer_value(json_array_get(dims, d)) - 1) * json_integer_value(json_array_get(strides, d));
    const char *type = json_string_value(json_object_get(t, "data_type"));
    type = type != NULL ? type : "FLOAT";
    size_t es = dtype_size(type), n = (size_t)(last + 1);
    *bytes = n * (es ? es : 1);
    if (strcmp(type, "BFLOAT16") == 0) /* the fast generator: attention inputs are ~100 MB */
        return bench_random_bf16(n);
    void *host = malloc(*bytes), *dev;
    for (size_t i = 0; i < *bytes / (es ? es : 1); i++)
        store(host, i, type, (float)((double)rand() / RAND_MAX * 4 - 2));
    CHECK(hipdnnDeviceMalloc_ext(&dev, *bytes));
    CHECK(hipdnnMemcpyHostToDevice_ext(dev, host, *bytes));
    free(host);
    return dev;
}

static void run_graph(const char *path)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    json_t *doc = text != NULL ? json_loadb(text, len, 0, NULL) : NULL;
    if (doc == NULL) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(text);
        return;
    }
    hipdnnBackendDescriptor_t g;
    CHECK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, len));
    CHECK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &bench_handle));
    CHECK(hipdnnBackendFinalize(g));
    free(text);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int64_t uids[64];
    void *bufs[SETS][64];
    int n = 0;
    double bytes = 0;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(doc, "tensors"), i, t) {
        if (n == 64 || json_is_true(json_object_get(t, "virtual")) || json_object_get(t, "value") != NULL)
            continue; /* virtual tensors live inside the graph; by-value scalars travel in it */
        size_t b = 0;
        for (int s = 0; s < SETS; s++)
            bufs[s][n] = random_tensor(t, &b);
        uids[n++] = json_integer_value(json_object_get(t, "uid")), bytes += (double)b;
    }
    const char *engines[] = {"jit_fused", "jit_unfused"};
    for (int e = 0; e < 2; e++) {
        hipdnnBackendDescriptor_t plan = bench_engine_plan(g, engines[e]);
        if (plan == NULL) {
            printf("%-22s %-12s %9s %8s %8s (engine does not support the graph)\n", name, engines[e], "-", "-", "-");
            continue;
        }
        float ms = bench_plan_ms(plan, n, uids, &bufs[0][0], 64, SETS, 5, REPS);
        printf("%-22s %-12s %9.4f %8.1f %8.1f\n", name, engines[e], ms, bytes / (ms * 1e-3) / 1e9,
               graph_flops(doc) / (ms * 1e-3) / 1e12);
        fflush(stdout);
        hipdnnBackendDestroyDescriptor(plan);
    }
    for (int s = 0; s < SETS; s++)
        for (int k = 0; k < n; k++)
            hipdnnDeviceFree_ext(bufs[s][k]);
    hipdnnBackendDestroyDescriptor(g);
    json_decref(doc);
}

int main(int argc, char **argv)
{
    bench_init("bench_graphs");
    printf("%-22s %-12s %9s %8s %8s\n", "graph", "engine", "ms", "GB/s", "TFLOP/s");
    for (int i = 1; i < argc; i++)
        run_graph(argv[i]);
    hipdnnDestroy(bench_handle);
    return 0;
}
