/* test_emu_pointwise.c — the emitted pointwise kernels (kernel_templates/pointwise.hip,
 * codegen/cg_pointwise.c) run on the host emulator (emu_run.h) against the reference
 * interpreter, element by element, on random shapes and fresh random data:
 *   chains       unary / binary / ternary chains over many pointwise modes, fp32 / fp16 / bf16
 *   broadcast    bias [1, 1, H], gate [B, 1, 1], [1] scalars in memory, by-value constants and
 *                run-time scalars, two stored results
 *   layouts      inputs NHWC or transposed, outputs NCHW with padded rows (iteration order
 *                from the output's strides; the scalar path), and the 8-wide vector path
 *   tails        sizes that are no multiple of 8 or of the block, grids capped below the
 *                element count (the grid-stride loop), the vector-width knob at 1
 *   others       GEN_INDEX, batchnorm inference + ReLU, block-scale dequantize, dynamic shapes
 * and a self-check: wrong emitted sources (an index off by one, a loop bound off by one) fail
 * the comparison. The GPU runs the same kernels in tests/gpu/test_gpu.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../common/tu.h"
#include "emu_run.h"

TestSuite(emu_pointwise);

static const hipdnnDataType_t float_types[] = {HIPDNN_DATA_FLOAT, HIPDNN_DATA_HALF, HIPDNN_DATA_BFLOAT16};

static hipdnnDataType_t any_float(void) { return float_types[tu_range(0, 2)]; }

/* dims of `rank` with between lo and hi elements; the last a multiple of 8 when `last_of_8`, and
 * never 1 (so it is the fastest dim, the one the vector path runs along). */
static void random_dims(int rank, int64_t *dims, int64_t lo, int64_t hi, bool last_of_8)
{
    int64_t n;
    do {
        n = 1;
        for (int d = 0; d < rank; d++) {
            dims[d] = d == rank - 1 ? (last_of_8 ? 8 * tu_range(1, 24) : tu_range(2, 200)) : tu_range(1, 40);
            n *= dims[d];
        }
    } while (n > hi || n < lo);
}

static void describe(emu_case *c, const char *what, int rank, const int64_t *dims)
{
    int at = snprintf(c->what, sizeof c->what, "%s [", what);
    for (int d = 0; d < rank && at < (int)sizeof c->what; d++)
        at += snprintf(c->what + at, sizeof c->what - (size_t)at, "%s%lld", d ? "," : "", (long long)dims[d]);
    if (at < (int)sizeof c->what)
        snprintf(c->what + at, sizeof c->what - (size_t)at, "] sm %d vec<=%d", c->target.sm_count,
                 c->target.max_vec);
}

/* ---- chains of pointwise modes ---------------------------------------------------------------- */

/* A mode, its arity and whether its operands must be positive (logs, roots, divisors). */
typedef struct mode_info {
    int mode, arity;
    bool positive;
} mode_info;

static const mode_info unary_modes[] = {
    {HIPDNN_POINTWISE_ABS, 1, false},          {HIPDNN_POINTWISE_CEIL, 1, false},
    {HIPDNN_POINTWISE_FLOOR, 1, false},        {HIPDNN_POINTWISE_ERF, 1, false},
    {HIPDNN_POINTWISE_EXP, 1, false},          {HIPDNN_POINTWISE_LOG, 1, true},
    {HIPDNN_POINTWISE_NEG, 1, false},          {HIPDNN_POINTWISE_RECIPROCAL, 1, true},
    {HIPDNN_POINTWISE_RSQRT, 1, true},         {HIPDNN_POINTWISE_SQRT, 1, true},
    {HIPDNN_POINTWISE_SIN, 1, false},          {HIPDNN_POINTWISE_TANH_FWD, 1, false},
    {HIPDNN_POINTWISE_SIGMOID_FWD, 1, false},  {HIPDNN_POINTWISE_SWISH_FWD, 1, false},
    {HIPDNN_POINTWISE_ELU_FWD, 1, false},      {HIPDNN_POINTWISE_SOFTPLUS_FWD, 1, false},
    {HIPDNN_POINTWISE_GELU_FWD, 1, false},     {HIPDNN_POINTWISE_GELU_APPROX_TANH_FWD, 1, false},
    {HIPDNN_POINTWISE_RELU_FWD, 1, false},     {HIPDNN_POINTWISE_IDENTITY, 1, false},
};
static const mode_info binary_modes[] = {
    {HIPDNN_POINTWISE_ADD, 2, false},          {HIPDNN_POINTWISE_SUB, 2, false},
    {HIPDNN_POINTWISE_MUL, 2, false},          {HIPDNN_POINTWISE_DIV, 2, true},
    {HIPDNN_POINTWISE_MAX, 2, false},          {HIPDNN_POINTWISE_MIN, 2, false},
    {HIPDNN_POINTWISE_ADD_SQUARE, 2, false},   {HIPDNN_POINTWISE_CMP_GT, 2, false},
    {HIPDNN_POINTWISE_RELU_BWD, 2, false},     {HIPDNN_POINTWISE_TANH_BWD, 2, false},
    {HIPDNN_POINTWISE_SIGMOID_BWD, 2, false},  {HIPDNN_POINTWISE_GELU_BWD, 2, false},
};

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Inputs x, y, w of one shape and type: n = -x, p = -n (= x: a region grows through virtual
 * tensors only, so every op reads one), t1 = unary(p), t2 = binary(t1, y), gt = (n < w),
 * out = gt ? t2 : y stored, and z = |t2| too when `two_outputs`. Domains: a positive-only
 * mode reads inputs drawn positive. The comparison reads exact values only, so float and
 * double agree on it. */
static void chain_case(emu_case *c, int rank, const int64_t *dims, hipdnnDataType_t dt, bool two_outputs)
{
    const mode_info *u = &unary_modes[tu_range(0, N_OF(unary_modes) - 1)];
    const mode_info *b = &binary_modes[tu_range(0, N_OF(binary_modes) - 1)];
    int x = emu_tensor(c, dt, rank, dims, NULL, false), y = emu_tensor(c, dt, rank, dims, NULL, false);
    int w = emu_tensor(c, dt, rank, dims, NULL, false);
    int n = emu_tensor(c, HIPDNN_DATA_FLOAT, rank, dims, NULL, true);
    int p = emu_tensor(c, HIPDNN_DATA_FLOAT, rank, dims, NULL, true);
    int t1 = emu_tensor(c, HIPDNN_DATA_FLOAT, rank, dims, NULL, true);
    int t2 = emu_tensor(c, HIPDNN_DATA_FLOAT, rank, dims, NULL, true);
    int gt = emu_tensor(c, HIPDNN_DATA_FLOAT, rank, dims, NULL, true);
    int out = emu_tensor(c, any_float(), rank, dims, NULL, false);
    if (u->positive)
        emu_positive(c, x);
    if (b->positive) /* DIV: the divisor y; the dividend t1 may be anything */
        emu_positive(c, y);
    emu_pw(c, HIPDNN_POINTWISE_NEG, x, -1, -1, n);
    emu_pw(c, HIPDNN_POINTWISE_NEG, n, -1, -1, p);
    emu_pw(c, u->mode, p, -1, -1, t1);
    emu_pw(c, b->mode, t1, y, -1, t2);
    emu_pw(c, HIPDNN_POINTWISE_CMP_LT, n, w, -1, gt);
    emu_pw(c, HIPDNN_POINTWISE_BINARY_SELECT, t2, y, gt, out);
    if (two_outputs)
        emu_pw(c, HIPDNN_POINTWISE_ABS, t2, -1, -1, emu_tensor(c, dt, rank, dims, NULL, false));
    char what[96];
    snprintf(what, sizeof what, "mode %d -> mode %d -> select, dtype %d%s", u->mode, b->mode, (int)dt,
             two_outputs ? " (two outputs)" : "");
    describe(c, what, rank, dims);
    emu_seal(c);
}

Test(emu_pointwise, chains)
{
    emu_seed("emu_pointwise chains");
    int vec8 = 0;
    for (int i = 0; i < 8; i++) {
        emu_case c = {.target = emu_target(132)};
        ir_graph_init(&c.g);
        int rank = (int)tu_range(1, 4);
        int64_t dims[IR_MAX_RANK];
        random_dims(rank, dims, 2, 6000, i % 2 == 0);
        chain_case(&c, rank, dims, float_types[i % 3], i % 4 == 1);
        cg_kernel kn;
        emu_check(&c, &kn);
        cr_expect_eq(kn.align, i % 2 == 0 ? 16 : dims[rank - 1] % 8 == 0 ? 16 : 1,
                     "packed rows of a multiple of 8 take the vector path, others the scalar one");
        vec8 += kn.align == 16;
        cg_kernel_free(&kn);
    }
    cr_expect_geq(vec8, 4);
}

/* ---- broadcasting, scalars, two outputs, dynamic shapes ---------------------------------------- */

/* x [B, S, H] (dt) + bias [1, 1, H] (fp32), * gate [B, 1, 1] (fp16, its batch stride gate_stride),
 * * s (a run-time scalar),
 * + 0.25 (by value), * one [1, 1, 1] (fp32 in memory), GELU -> g; y = g (bf16) and z = relu(g)
 * (fp32) stored. */
static void broadcast_case(emu_case *c, const int64_t *d, hipdnnDataType_t dt, int64_t gate_stride)
{
    int64_t bias_d[3] = {1, 1, d[2]}, gate_d[3] = {d[0], 1, 1}, gate_s[3] = {gate_stride, 1, 1}, one_d[3] = {1, 1, 1};
    int x = emu_tensor(c, dt, 3, d, NULL, false), bias = emu_tensor(c, HIPDNN_DATA_FLOAT, 3, bias_d, NULL, false);
    int gate = emu_tensor(c, HIPDNN_DATA_HALF, 3, gate_d, gate_s, false);
    int s = emu_scalar(c, tu_float(-2.0f, 2.0f), 3, true), k = emu_scalar(c, 0.25f, 1, false);
    int one = emu_tensor(c, HIPDNN_DATA_FLOAT, 3, one_d, NULL, false);
    int v[6];
    for (int i = 0; i < 6; i++)
        v[i] = emu_tensor(c, HIPDNN_DATA_FLOAT, 3, d, NULL, true);
    int y = emu_tensor(c, HIPDNN_DATA_BFLOAT16, 3, d, NULL, false), z = emu_tensor(c, HIPDNN_DATA_FLOAT, 3, d, NULL, false);
    emu_pw(c, HIPDNN_POINTWISE_ADD, x, bias, -1, v[0]);
    emu_pw(c, HIPDNN_POINTWISE_MUL, v[0], gate, -1, v[1]);
    emu_pw(c, HIPDNN_POINTWISE_MUL, v[1], s, -1, v[2]);
    emu_pw(c, HIPDNN_POINTWISE_ADD, v[2], k, -1, v[3]);
    emu_pw(c, HIPDNN_POINTWISE_MUL, v[3], one, -1, v[4]);
    emu_pw(c, HIPDNN_POINTWISE_GELU_FWD, v[4], -1, -1, v[5]);
    emu_pw(c, HIPDNN_POINTWISE_IDENTITY, v[5], -1, -1, y);
    emu_pw(c, HIPDNN_POINTWISE_RELU_FWD, v[5], -1, -1, z);
}

Test(emu_pointwise, broadcast_scalars_dynamic)
{
    emu_seed("emu_pointwise broadcast_scalars_dynamic");
    for (int i = 0; i < 6; i++) {
        emu_case c = {.target = emu_target(132)};
        ir_graph_init(&c.g);
        c.g.dynamic_shape = i % 3 == 2;
        int64_t d[3];
        random_dims(3, d, 2, 8000, i % 2 == 0);
        int64_t gate_stride = i < 4 ? 8 : 1; /* a vector kernel needs 8-element steps on the outer dims */
        broadcast_case(&c, d, float_types[i % 3], gate_stride);
        describe(&c, c.g.dynamic_shape ? "x + bias * gate * s + k * one, gelu; relu (dynamic shape)"
                                       : "x + bias * gate * s + k * one, gelu; relu", 3, d);
        emu_seal(&c);
        cg_kernel kn;
        emu_check(&c, &kn);
        int n_int64 = 0, n_scalar = 0;
        for (int a = 0; a < kn.n_args; a++)
            n_int64 += kn.args[a].kind == CG_ARG_INT64, n_scalar += kn.args[a].kind == CG_ARG_SCALAR;
        cr_expect_eq(n_scalar, 1, "the run-time scalar is a kernel parameter");
        cr_expect(c.target.max_vec == 0 && (n_int64 > 0) == (i % 3 == 2), "dynamic dims are parameters");
        cr_expect_eq(kn.align, d[2] % 8 == 0 && (gate_stride == 8 || d[0] == 1) ? 16 : 1);
        cg_kernel_free(&kn);
    }
}

/* ---- layouts ------------------------------------------------------------------------------------ */

/* out = swish(x * w - y) over [N, C, H, W], w [1, C, 1, 1]. `nhwc`: x, y, out all NHWC (the
 * channel is the fastest dim); else x NHWC, y CNHW and out NCHW with padded rows. */
static void layout_case(emu_case *c, const int64_t *d, bool nhwc)
{
    static const int order_nhwc[4] = {0, 2, 3, 1}, order_cnhw[4] = {1, 0, 2, 3};
    int64_t xs[4], ys[4], os[4], wd[4] = {1, d[1], 1, 1};
    emu_strides(4, d, order_nhwc, 0, xs);
    emu_strides(4, d, nhwc ? order_nhwc : order_cnhw, 0, ys);
    emu_strides(4, d, nhwc ? order_nhwc : NULL, nhwc ? 0 : tu_range(1, 5), os);
    int x = emu_tensor(c, any_float(), 4, d, xs, false), y = emu_tensor(c, any_float(), 4, d, ys, false);
    int w = emu_tensor(c, any_float(), 4, wd, NULL, false);
    int t = emu_tensor(c, HIPDNN_DATA_FLOAT, 4, d, xs, true), u = emu_tensor(c, HIPDNN_DATA_FLOAT, 4, d, xs, true);
    int out = emu_tensor(c, any_float(), 4, d, os, false);
    emu_pw(c, HIPDNN_POINTWISE_MUL, x, w, -1, t);
    emu_pw(c, HIPDNN_POINTWISE_SUB, t, y, -1, u);
    emu_pw(c, HIPDNN_POINTWISE_SWISH_FWD, u, -1, -1, out);
    describe(c, nhwc ? "swish(x * w - y), NHWC" : "swish(x * w - y), x NHWC, y CNHW, out NCHW padded", 4, d);
    emu_seal(c);
}

Test(emu_pointwise, layouts)
{
    emu_seed("emu_pointwise layouts");
    for (int i = 0; i < 6; i++) {
        emu_case c = {.target = emu_target(132)};
        ir_graph_init(&c.g);
        int64_t d[4];
        do
            d[0] = tu_range(1, 3), d[1] = i % 4 == 0 ? 8 * tu_range(1, 4) : tu_range(2, 40),
            d[2] = tu_range(1, 12), d[3] = tu_range(2, 30); /* C, W > 1: the fastest dims stay so */
        while (d[0] * d[1] * d[2] * d[3] > 12000);
        bool nhwc = i % 2 == 0;
        layout_case(&c, d, nhwc);
        cg_kernel kn;
        emu_check(&c, &kn);
        cr_expect_eq(kn.align, nhwc && d[1] % 8 == 0 ? 16 : 1, "vectorized exactly along a packed channel");
        cg_kernel_free(&kn);
    }
}

/* ---- tails, grid-stride loops, the vector-width knob ---------------------------------------------- */

Test(emu_pointwise, tails_and_grid_stride)
{
    emu_seed("emu_pointwise tails_and_grid_stride");
    /* numel, last dim, multiprocessors (the grid is capped at 16 blocks per one), max_vec */
    const struct { int64_t rows, cols; int sm, max_vec; } cases[] = {
        {tu_range(20, 90), tu_range(100, 300) | 1, 1, 0},  /* scalar, several sweeps, odd tail */
        {tu_range(33, 60), 1024, 1, 0},                    /* vector, more groups than one sweep */
        {tu_range(2, 9), 8 * tu_range(3, 40), 132, 1},     /* the knob forces the scalar path */
        {1, 257, 132, 0},                                  /* one block and one element */
    };
    for (int i = 0; i < 4; i++) {
        emu_case c = {.target = emu_target(cases[i].sm)};
        c.target.max_vec = cases[i].max_vec;
        ir_graph_init(&c.g);
        int64_t d[2] = {cases[i].rows, cases[i].cols};
        hipdnnDataType_t dt = float_types[i % 3];
        int x = emu_tensor(&c, dt, 2, d, NULL, false), y = emu_tensor(&c, dt, 2, d, NULL, false);
        int t = emu_tensor(&c, HIPDNN_DATA_FLOAT, 2, d, NULL, true), out = emu_tensor(&c, dt, 2, d, NULL, false);
        emu_pw(&c, HIPDNN_POINTWISE_MAX, x, y, -1, t);
        emu_pw(&c, HIPDNN_POINTWISE_TANH_FWD, t, -1, -1, out);
        describe(&c, "tanh(max(x, y))", 2, d);
        emu_seal(&c);
        cg_kernel kn;
        emu_check(&c, &kn);
        int vec = d[1] % 8 == 0 && cases[i].max_vec != 1 ? 8 : 1;
        int64_t blocks = (d[0] * d[1] / vec + 255) / 256, cap = 16LL * cases[i].sm;
        cr_expect_eq(kn.align, vec == 8 ? 16 : 1);
        cr_expect_eq(kn.grid[0], blocks < cap ? blocks : cap, "%s: grid", c.what);
        cg_kernel_free(&kn);
    }
}

/* ---- GEN_INDEX, batchnorm inference, dequantize -------------------------------------------------- */

Test(emu_pointwise, gen_index)
{
    emu_seed("emu_pointwise gen_index");
    for (int i = 0; i < 3; i++) {
        emu_case c = {.target = emu_target(132)};
        ir_graph_init(&c.g);
        int64_t d[3];
        random_dims(3, d, 2, 5000, true);
        int x = emu_tensor(&c, HIPDNN_DATA_FLOAT, 3, d, NULL, false), y = emu_tensor(&c, HIPDNN_DATA_HALF, 3, d, NULL, false);
        int idx = emu_tensor(&c, HIPDNN_DATA_FLOAT, 3, d, NULL, true), out = emu_tensor(&c, HIPDNN_DATA_FLOAT, 3, d, NULL, false);
        ir_op gen = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {x, -1, -1}, .out = {idx}};
        gen.a.pw = (ir_pointwise){.mode = HIPDNN_POINTWISE_GEN_INDEX, .axis = i, .relu_upper = INFINITY};
        cr_assert_geq(ir_add_op(&c.g, &gen), 0);
        emu_pw(&c, HIPDNN_POINTWISE_ADD, idx, y, -1, out);
        char what[64];
        snprintf(what, sizeof what, "gen_index(axis %d) + y", i);
        describe(&c, what, 3, d);
        emu_seal(&c);
        cg_kernel kn;
        emu_check(&c, &kn);
        cr_expect_eq(kn.align, 1, "GEN_INDEX needs each element's coordinates: the scalar path");
        cg_kernel_free(&kn);
    }
}

/* y = relu(bn_inference(x)) over [N, C, H, W] (NCHW or NHWC), per-channel fp32 operands; the
 * variance form (inv = rsqrt(var + eps)) when `variance`. */
Test(emu_pointwise, bn_inference_relu)
{
    emu_seed("emu_pointwise bn_inference_relu");
    static const int order_nhwc[4] = {0, 2, 3, 1};
    for (int i = 0; i < 4; i++) {
        emu_case c = {.target = emu_target(132)};
        ir_graph_init(&c.g);
        int64_t d[4] = {tu_range(1, 3), i < 2 ? 8 * tu_range(1, 4) : tu_range(2, 20), tu_range(1, 9), tu_range(2, 30)};
        int64_t cd[4] = {1, d[1], 1, 1}, xs[4];
        bool nhwc = i % 2 == 0, variance = i >= 2;
        emu_strides(4, d, nhwc ? order_nhwc : NULL, 0, xs);
        hipdnnDataType_t dt = float_types[i % 3];
        int x = emu_tensor(&c, dt, 4, d, xs, false), ch[4];
        for (int k = 0; k < 4; k++)
            ch[k] = emu_tensor(&c, HIPDNN_DATA_FLOAT, 4, cd, NULL, false);
        emu_positive(&c, ch[1]); /* inverse deviation or variance */
        int eps = variance ? emu_scalar(&c, 1e-3f, 4, false) : -1;
        int y = emu_tensor(&c, HIPDNN_DATA_FLOAT, 4, d, xs, true), out = emu_tensor(&c, dt, 4, d, xs, false);
        ir_op bn = {.kind = IR_OP_BN_INFER, .n_in = 6, .n_out = 1, .in = {x, ch[0], ch[1], ch[2], ch[3], eps}, .out = {y}};
        bn.a.norm.from_variance = variance;
        cr_assert_geq(ir_add_op(&c.g, &bn), 0);
        emu_pw(&c, HIPDNN_POINTWISE_RELU_FWD, y, -1, -1, out);
        describe(&c, variance ? "relu(bn_inference, variance form)" : "relu(bn_inference)", 4, d);
        emu_seal(&c);
        cg_kernel kn;
        emu_check(&c, &kn);
        cr_expect_eq(kn.align, nhwc && d[1] % 8 == 0 ? 16 : 1);
        cg_kernel_free(&kn);
    }
}

/* y = relu(dequantize(x, scale) + bias [1, K]) over [M, K]: blocks bm x bk, K and M no multiples
 * of them. */
Test(emu_pointwise, dequantize)
{
    emu_seed("emu_pointwise dequantize");
    const struct { hipdnnDataType_t x, s; int64_t bm, bk; } cases[] = {
        {HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP8_E8M0, 1, 32},
        {HIPDNN_DATA_FP4_E2M1, HIPDNN_DATA_FP8_E4M3, 1, 16},
        {HIPDNN_DATA_INT8, HIPDNN_DATA_FP8_E8M0, 4, 8},
    };
    for (int i = 0; i < 3; i++) {
        emu_case c = {.target = emu_target(132)};
        ir_graph_init(&c.g);
        int64_t d[2] = {tu_range(1, 40), 2 * tu_range(1, 100)}, sd[2], bd[2] = {1, d[1]};
        sd[0] = (d[0] + cases[i].bm - 1) / cases[i].bm, sd[1] = (d[1] + cases[i].bk - 1) / cases[i].bk;
        int x = emu_tensor(&c, cases[i].x, 2, d, NULL, false), s = emu_tensor(&c, cases[i].s, 2, sd, NULL, false);
        int bias = emu_tensor(&c, HIPDNN_DATA_FLOAT, 2, bd, NULL, false);
        int y = emu_tensor(&c, HIPDNN_DATA_FLOAT, 2, d, NULL, true), t = emu_tensor(&c, HIPDNN_DATA_FLOAT, 2, d, NULL, true);
        int out = emu_tensor(&c, HIPDNN_DATA_BFLOAT16, 2, d, NULL, false);
        emu_positive(&c, s);
        ir_op dq = {.kind = IR_OP_BS_DEQUANTIZE, .n_in = 2, .n_out = 1, .in = {x, s}, .out = {y}};
        dq.a.quant = (ir_quant){.block = {(int32_t)cases[i].bm, (int32_t)cases[i].bk}, .n_block = 2, .axis = -1};
        cr_assert_geq(ir_add_op(&c.g, &dq), 0);
        emu_pw(&c, HIPDNN_POINTWISE_ADD, y, bias, -1, t);
        emu_pw(&c, HIPDNN_POINTWISE_RELU_FWD, t, -1, -1, out);
        char what[96];
        snprintf(what, sizeof what, "relu(dequantize(dtype %d, scale %d, %lldx%lld) + bias)", (int)cases[i].x,
                 (int)cases[i].s, (long long)cases[i].bm, (long long)cases[i].bk);
        describe(&c, what, 2, d);
        emu_seal(&c);
        emu_check(&c, NULL);
    }
}

/* ---- the self-check: a wrong kernel is caught ------------------------------------------------------ */

Test(emu_pointwise, wrong_sources_are_caught)
{
    emu_seed("emu_pointwise wrong_sources_are_caught");
    emu_case c = {.target = emu_target(132)};
    ir_graph_init(&c.g);
    int64_t d[4] = {2, tu_range(3, 9), tu_range(2, 7), tu_range(5, 21)};
    layout_case(&c, d, false); /* the scalar path: x is tensor 0, read as p0 */
    const char *const wrong[][2] = {
        {"(p0, ", "(p0, 1 + "},                                       /* x read one element on */
        {"i < HD_NUMEL; i += stride", "i + 1 < HD_NUMEL; i += stride"}, /* the last element skipped */
        {"hd_pointwise<30>(", "hd_pointwise<2>("},                    /* x + w for x * w */
    };
    emu_expect_caught(&c, wrong, 3);
}
