/* test_gpu_bn.c — batchnorm training (+ ReLU epilogue, running statistics), batchnorm backward
 * and genstats (+ scale/bias/ReLU prologue) on the GPU: the channel-reduction kernels of
 * kernel_templates/channorm.hip, run by the fused JIT engine against the reference engine.
 *
 * Random shapes each run (N, C, H, W with odd sizes; also rank 3 and 5), layouts NCHW, NHWC and
 * NHWC with padded rows (gaps in memory), bf16 / fp16 / fp32 inputs, fp32 per-channel tensors;
 * device outputs poisoned, compared at the output type's tolerance (gpu_util.c). The variances
 * a case reads (inverse variance of the backward pass, previous running variance) are filled
 * positive. HIPDNN_TEST_SEED replays a run.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "gpu_util.h"

TestSuite(gpu_bn, .init = gpu_setup, .fini = gpu_teardown);

enum layout { NCHW, NHWC, NHWC_PADDED };
static const char *layout_name[] = {"NCHW", "NHWC", "NHWC+pad"};

/* uids of the inputs that must be positive (see fill_variances) */
enum { UID_PREV_VAR = 6, UID_INV_VAR = 34 };

typedef struct shape {
    int rank;
    int64_t d[5];
    enum layout layout;
} shape;

static void strides_of(const shape *s, enum layout l, int64_t *st)
{
    if (l == NCHW) {
        packed(s->rank, s->d, st, 0);
        return;
    }
    int64_t step = 1; /* channel innermost; the next dim padded by 5 elements */
    st[1] = step, step = s->d[1] + (l == NHWC_PADDED ? 5 : 0);
    for (int i = s->rank - 1; i >= 2; i--)
        st[i] = step, step *= s->d[i];
    st[0] = step;
}

static json_t *x_like(int uid, const char *dt, const shape *s, enum layout l, bool is_virtual)
{
    int64_t st[5];
    strides_of(s, l, st);
    return tensor(uid, dt, s->rank, s->d, st, is_virtual);
}

static json_t *per_channel(int uid, const shape *s)
{
    int64_t d[5], st[5];
    for (int i = 0; i < s->rank; i++)
        d[i] = i == 1 ? s->d[1] : 1, st[i] = i == 0 ? s->d[1] : 1;
    return tensor(uid, "FLOAT", s->rank, d, st, false);
}

/* N*spatial >= 2 (a single position makes the unbiased running variance NaN). */
static shape random_shape(int rank, int64_t max_c, int64_t max_hw, enum layout l)
{
    shape s = {.rank = rank, .layout = l};
    int64_t m;
    do {
        s.d[0] = rnd(1, 8), s.d[1] = rnd(1, (int)max_c), m = s.d[0];
        for (int i = 2; i < rank; i++)
            s.d[i] = rnd(1, (int)max_hw), m *= s.d[i];
    } while (m < 2);
    return s;
}

static void describe(char *buf, size_t n, const char *op, const char *dt, const shape *s)
{
    int k = snprintf(buf, n, "%s %s [", op, dt);
    for (int i = 0; i < s->rank; i++)
        k += snprintf(buf + k, n - (size_t)k, "%s%lld", i ? "," : "", (long long)s->d[i]);
    snprintf(buf + k, n - (size_t)k, "] %s", layout_name[s->layout]);
}

static bool fill_variances(const ir_tensor *t, ir_buf *b)
{
    if (t->uid != UID_PREV_VAR && t->uid != UID_INV_VAR)
        return false;
    int64_t idx[IR_MAX_RANK] = {0};
    do
        ir_store(b, idx, 0.5 + 1.5 * (double)rand() / RAND_MAX);
    while (ir_next_index(b, idx));
    return true;
}

/* Finalizes {t, n}, runs it on the JIT engine and the reference engine, compares. */
static void run(json_t *t, json_t *n, const char *what)
{
    hipdnnBackendDescriptor_t g = finalize_graph(t, n);
    check_graph_with(g, "jit_fused", fill_variances, what);
    hipdnnBackendDestroyDescriptor(g);
}

/* x -> batchnorm training -> y; `relu`: y virtual (fp32) -> ReLU -> out (x's type and layout);
 * `running`: prev running mean / variance and momentum in, next ones out. */
static void bn_training_case(const char *dt, shape s, bool relu, bool running)
{
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, x_like(1, dt, &s, s.layout, false));
    json_array_append_new(t, per_channel(2, &s));
    json_array_append_new(t, per_channel(3, &s));
    json_array_append_new(t, scalar(4, 1e-3f));
    json_array_append_new(t, x_like(10, relu ? "FLOAT" : dt, &s, s.layout, relu));
    json_array_append_new(t, per_channel(11, &s));
    json_array_append_new(t, per_channel(12, &s));
    json_t *a = json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "x_tensor_uid", 1, "scale_tensor_uid", 2,
                          "bias_tensor_uid", 3, "epsilon_tensor_uid", 4, "y_tensor_uid", 10,
                          "mean_tensor_uid", 11, "inv_variance_tensor_uid", 12);
    if (running) {
        json_array_append_new(t, per_channel(5, &s));
        json_array_append_new(t, per_channel(UID_PREV_VAR, &s));
        json_array_append_new(t, scalar(7, 0.1f));
        json_array_append_new(t, per_channel(8, &s));
        json_array_append_new(t, per_channel(9, &s));
        json_object_set_new(a, "prev_running_mean_tensor_uid", json_integer(5));
        json_object_set_new(a, "prev_running_variance_tensor_uid", json_integer(UID_PREV_VAR));
        json_object_set_new(a, "momentum_tensor_uid", json_integer(7));
        json_object_set_new(a, "next_running_mean_tensor_uid", json_integer(8));
        json_object_set_new(a, "next_running_variance_tensor_uid", json_integer(9));
    }
    json_array_append_new(n, node("BatchnormAttributes", a));
    if (relu) {
        json_array_append_new(t, x_like(13, dt, &s, s.layout, false));
        json_array_append_new(n, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}",
            "operation", "RELU_FWD", "in_0_tensor_uid", 10, "out_0_tensor_uid", 13)));
    }
    char what[200];
    describe(what, sizeof what, relu ? "bn_training + relu" : "bn_training", dt, &s);
    if (running)
        strcat(what, " running stats");
    run(t, n, what);
}

/* dy, x -> batchnorm backward (saved mean, inv variance, scale) -> dx, dscale, dbias; dx in
 * `dx_layout`. */
static void bn_backward_case(const char *dt, shape s, enum layout dx_layout)
{
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, x_like(31, dt, &s, s.layout, false));
    json_array_append_new(t, x_like(32, dt, &s, s.layout, false));
    json_array_append_new(t, per_channel(33, &s));
    json_array_append_new(t, per_channel(UID_INV_VAR, &s));
    json_array_append_new(t, per_channel(35, &s));
    json_array_append_new(t, x_like(36, dt, &s, dx_layout, false));
    json_array_append_new(t, per_channel(37, &s));
    json_array_append_new(t, per_channel(38, &s));
    json_array_append_new(n, node("BatchnormBackwardAttributes", json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}",
        "dy_tensor_uid", 31, "x_tensor_uid", 32, "mean_tensor_uid", 33, "inv_variance_tensor_uid", UID_INV_VAR,
        "scale_tensor_uid", 35, "dx_tensor_uid", 36, "dscale_tensor_uid", 37, "dbias_tensor_uid", 38)));
    char what[200];
    describe(what, sizeof what, "bn_backward", dt, &s);
    if (dx_layout != s.layout)
        snprintf(what + strlen(what), sizeof what - strlen(what), ", dx %s", layout_name[dx_layout]);
    run(t, n, what);
}

/* x -> genstats -> sum, sq_sum; with `prologue`: genstats of relu(x * scale + bias), the
 * per-channel scale and bias fused before the reduction (the ReLU result stays virtual). */
static void genstats_case(const char *dt, shape s, bool prologue)
{
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, x_like(41, dt, &s, s.layout, false));
    int in = 41;
    if (prologue) {
        json_array_append_new(t, per_channel(42, &s));
        json_array_append_new(t, per_channel(43, &s));
        json_array_append_new(t, x_like(44, "FLOAT", &s, s.layout, true));
        json_array_append_new(t, x_like(45, "FLOAT", &s, s.layout, true));
        json_array_append_new(t, x_like(46, "FLOAT", &s, s.layout, true));
        const char *ops[3] = {"MUL", "ADD", "RELU_FWD"};
        int ins[3][2] = {{41, 42}, {44, 43}, {45, -1}};
        for (int i = 0; i < 3; i++) {
            json_t *a = json_pack("{s:s, s:i, s:i}", "operation", ops[i], "in_0_tensor_uid", ins[i][0],
                                  "out_0_tensor_uid", 44 + i);
            if (ins[i][1] >= 0)
                json_object_set_new(a, "in_1_tensor_uid", json_integer(ins[i][1]));
            json_array_append_new(n, node("PointwiseAttributes", a));
        }
        in = 46;
    }
    json_array_append_new(t, per_channel(47, &s));
    json_array_append_new(t, per_channel(48, &s));
    json_array_append_new(n, node("GenStatsAttributesExt", json_pack("{s:i,s:i,s:i}", "x_tensor_uid", in,
                                  "sum_tensor_uid", 47, "sq_sum_tensor_uid", 48)));
    char what[200];
    describe(what, sizeof what, prologue ? "scale+bias+relu -> genstats" : "genstats", dt, &s);
    run(t, n, what);
}

static const char *dtypes[] = {"BFLOAT16", "HALF", "FLOAT"};

Test(gpu_bn, bn_training_random_shapes)
{
    for (int i = 0; i < 9; i++) {
        shape s = random_shape(i == 4 ? 3 : i == 7 ? 5 : 4, 96, i == 7 ? 9 : 35, (enum layout)(i % 3));
        bn_training_case(dtypes[i % 3], s, i % 2 == 0, i % 4 < 2);
    }
}

/* Larger inputs: many blocks per channel (the reduction's split path) for both block shapes. */
Test(gpu_bn, bn_training_large)
{
    shape a = {.rank = 4, .d = {16, 32, 56, 56}, .layout = NHWC};
    bn_training_case("BFLOAT16", a, true, true);
    shape b = {.rank = 4, .d = {8, 3, 111, 113}, .layout = NCHW};
    bn_training_case("HALF", b, false, true);
    shape c = {.rank = 4, .d = {rnd(20, 40), rnd(1, 7), rnd(60, 90), rnd(60, 90)}, .layout = NHWC_PADDED};
    bn_training_case("FLOAT", c, true, false);
}

Test(gpu_bn, bn_backward_random_shapes)
{
    for (int i = 0; i < 9; i++) {
        shape s = random_shape(i == 5 ? 3 : i == 8 ? 5 : 4, 96, i == 8 ? 9 : 35, (enum layout)((i + 1) % 3));
        bn_backward_case(dtypes[i % 3], s, i == 6 ? NCHW : s.layout);
    }
    shape big = {.rank = 4, .d = {16, 64, 28, 28}, .layout = NHWC};
    bn_backward_case("BFLOAT16", big, NHWC);
    shape tall = {.rank = 4, .d = {4, 5, 127, 129}, .layout = NCHW};
    bn_backward_case("HALF", tall, NCHW);
}

Test(gpu_bn, genstats_random_shapes)
{
    for (int i = 0; i < 8; i++) {
        shape s = random_shape(i == 3 ? 3 : 4, 96, 35, (enum layout)(i % 3));
        genstats_case(dtypes[i % 3], s, i % 2 == 1);
    }
    shape big = {.rank = 4, .d = {8, 16, 64, 65}, .layout = NHWC};
    genstats_case("HALF", big, true);
}
