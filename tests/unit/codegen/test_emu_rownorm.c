/* test_emu_rownorm.c — the emitted layernorm / rmsnorm kernels (kernel_templates/rownorm.hip,
 * codegen/cg_rownorm.c) run on the host emulator (emu_run.h, warp shuffles and barriers
 * included) against the reference interpreter, element by element, on random shapes, knobs and
 * fresh random data:
 *   norms        layernorm and rmsnorm, inference and training (mean / inverse deviation
 *                saved), with or without scale and bias, fp32 / fp16 / bf16, one or two
 *                normalized dims, padded rows, an epsilon by value or as a run-time scalar
 *   fusion       a residual-add prologue (its sum stored), epilogues (scale and ReLU, an FP8
 *                cast), block-scale quantize tails (MXFP8, NVFP4, MXINT8, blocks smaller than
 *                a vector) whose amax meets through group shuffles
 *   paths        every path the emitter selects, counted over a fixed set of shapes and knobs:
 *                vector widths 8 / 1 / 2, one warp or many, several slices per thread, row
 *                tails, idle warps, prefetching blocks looping over rows, pivot-shifted
 *                statistics, dynamic shapes
 * and a self-check: wrong emitted sources (a column off by one, a wrong count, a shuffle to
 * the wrong lane) fail the comparison. The GPU runs the same kernels in tests/gpu/test_gpu.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../common/tu.h"
#include "emu_run.h"

TestSuite(emu_rownorm);

static const hipdnnDataType_t float_types[] = {HIPDNN_DATA_FLOAT, HIPDNN_DATA_HALF, HIPDNN_DATA_BFLOAT16};

enum quant_tail { Q_NONE, Q_MXFP8, Q_NVFP4, Q_MXINT8, Q_BLOCK4 };

/* One norm kernel: x [dims] (rows padded by `pad` when one dim is normalized) -> [x = x0 + res,
 * stored] -> norm over the trailing k dims -> y, then the epilogue or quantize tail. */
typedef struct norm_spec {
    bool rms, stats, bias, residual, runtime_eps;
    int epi;                 /* 0: y stored; 1: relu(y * 0.5) -> out; 2: y cast to FP8 E4M3 */
    enum quant_tail quant;
    hipdnnDataType_t dt;
    int rank, k;
    int64_t dims[4], pad;
} norm_spec;

static const char *quant_name[] = {"", " -> MXFP8", " -> NVFP4 (exact input)", " -> MXINT8 (exact input)",
                                   " -> fp8 blocks of 4"};

static void describe(emu_case *c, const norm_spec *s)
{
    int at = snprintf(c->what, sizeof c->what, "%s%s%s%s dtype %d [", s->residual ? "x + res -> " : "",
                      s->rms ? "rmsnorm" : "layernorm", s->stats ? " training" : "", s->bias ? "+bias" : "",
                      (int)s->dt);
    for (int d = 0; d < s->rank && at < (int)sizeof c->what; d++)
        at += snprintf(c->what + at, sizeof c->what - (size_t)at, "%s%lld", d ? "," : "", (long long)s->dims[d]);
    if (at < (int)sizeof c->what)
        snprintf(c->what + at, sizeof c->what - (size_t)at, "] k %d pad %lld%s%s%s | lpt %d prefetch %d shifted %d "
                 "vec<=%d sm %d%s", s->k, (long long)s->pad, s->epi == 1 ? " -> relu(y/2)" : s->epi == 2 ? " -> fp8" : "",
                 quant_name[s->quant], s->runtime_eps ? " eps at run time" : "", c->target.loads_per_thread,
                 c->target.row_prefetch, c->target.shifted_stats, c->target.max_vec, c->target.sm_count,
                 c->g.dynamic_shape ? " dynamic" : "");
}

/* dims with the trailing k set to 1 (statistics), or the leading ones set to 1 (scale, bias). */
static void keep_dims(const norm_spec *s, bool lead, int64_t *out)
{
    for (int d = 0; d < s->rank; d++)
        out[d] = (d < s->rank - s->k) == lead ? s->dims[d] : 1;
}

/* The quantize tail on v: MXFP8 quantizes y itself (an FP8 code a float rounding flips is within
 * the tolerance); the exact formats quantize y * 0 + bias [1.., C], equal in float and double, so
 * their codes compare exactly. */
static void quant_tail(emu_case *c, const norm_spec *s, int v)
{
    static const struct { int block; hipdnnDataType_t y, scale; } fmts[] = {
        {0, 0, 0}, {32, HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP8_E8M0}, {16, HIPDNN_DATA_FP4_E2M1, HIPDNN_DATA_FP8_E4M3},
        {32, HIPDNN_DATA_INT8, HIPDNN_DATA_FP8_E8M0}, {4, HIPDNN_DATA_FP8_E5M2, HIPDNN_DATA_FP8_E4M3}};
    const int64_t *d = s->dims;
    int r = s->rank, in = v;
    if (s->quant == Q_NVFP4 || s->quant == Q_MXINT8) {
        int64_t cd[4];
        keep_dims(s, false, cd);
        int zero = emu_scalar(c, 0.0f, 1, false), b = emu_tensor(c, HIPDNN_DATA_FLOAT, r, cd, NULL, false);
        int t = emu_tensor(c, HIPDNN_DATA_FLOAT, r, d, NULL, true);
        in = emu_tensor(c, HIPDNN_DATA_FLOAT, r, d, NULL, true);
        emu_pw(c, HIPDNN_POINTWISE_MUL, v, zero, -1, t);
        emu_pw(c, HIPDNN_POINTWISE_ADD, t, b, -1, in);
    }
    int64_t sd[4];
    memcpy(sd, d, sizeof sd);
    sd[r - 1] /= fmts[s->quant].block;
    int q = emu_tensor(c, fmts[s->quant].y, r, d, NULL, false), sc = emu_tensor(c, fmts[s->quant].scale, r, sd, NULL, false);
    ir_op op = {.kind = IR_OP_BS_QUANTIZE, .n_in = 1, .n_out = 2, .in = {in}, .out = {q, sc}};
    op.a.quant = (ir_quant){.block = {fmts[s->quant].block}, .n_block = 1, .axis = r - 1};
    cr_assert_geq(ir_add_op(&c->g, &op), 0);
}

static void norm_graph(emu_case *c, const norm_spec *s)
{
    int r = s->rank;
    int64_t xs[4], cd[4], sd[4];
    emu_strides(r, s->dims, NULL, s->k == 1 ? s->pad : 0, xs);
    keep_dims(s, false, cd);
    keep_dims(s, true, sd);
    int x = emu_tensor(c, s->dt, r, s->dims, xs, false);
    if (s->residual) {
        int res = emu_tensor(c, s->dt, r, s->dims, xs, false), sum = emu_tensor(c, s->dt, r, s->dims, xs, false);
        emu_pw(c, HIPDNN_POINTWISE_ADD, x, res, -1, sum);
        x = sum;
    }
    int scale = emu_tensor(c, HIPDNN_DATA_FLOAT, r, cd, NULL, false);
    int bias = s->bias ? emu_tensor(c, HIPDNN_DATA_FLOAT, r, cd, NULL, false) : -1;
    int eps = emu_scalar(c, 1e-5f, 1, s->runtime_eps);
    bool y_out = s->epi == 0 && s->quant == Q_NONE;
    int y = emu_tensor(c, y_out ? s->dt : HIPDNN_DATA_FLOAT, r, s->dims, xs, !y_out);
    int mean = s->stats && !s->rms ? emu_tensor(c, HIPDNN_DATA_FLOAT, r, sd, NULL, false) : -1;
    int inv = s->stats ? emu_tensor(c, HIPDNN_DATA_FLOAT, r, sd, NULL, false) : -1;
    ir_op op = {.kind = s->rms ? IR_OP_RMSNORM : IR_OP_LAYERNORM, .n_in = 4};
    if (s->rms)
        op.n_out = 2, op.in[0] = x, op.in[1] = scale, op.in[2] = eps, op.in[3] = bias, op.out[0] = y, op.out[1] = inv;
    else
        op.n_out = 3, op.in[0] = x, op.in[1] = scale, op.in[2] = bias, op.in[3] = eps, op.out[0] = y,
        op.out[1] = mean, op.out[2] = inv;
    op.a.norm = (ir_norm){.phase = s->stats ? HIPDNN_NORM_FWD_TRAINING : HIPDNN_NORM_FWD_INFERENCE,
                          .normalized_dims = s->k};
    cr_assert_geq(ir_add_op(&c->g, &op), 0);
    if (s->epi == 1) {
        int half = emu_scalar(c, 0.5f, 1, false), t = emu_tensor(c, HIPDNN_DATA_FLOAT, r, s->dims, xs, true);
        emu_pw(c, HIPDNN_POINTWISE_MUL, y, half, -1, t);
        emu_pw(c, HIPDNN_POINTWISE_RELU_FWD, t, -1, -1, emu_tensor(c, s->dt, r, s->dims, xs, false));
    } else if (s->epi == 2) {
        emu_pw(c, HIPDNN_POINTWISE_IDENTITY, y, -1, -1, emu_tensor(c, HIPDNN_DATA_FP8_E4M3, r, s->dims, xs, false));
    }
    if (s->quant != Q_NONE)
        quant_tail(c, s, y);
    describe(c, s);
    emu_seal(c);
}

/* ---- the paths the emitter chose ------------------------------------------------------------------ */

typedef struct paths {
    int vec[9], one_warp, many_warps, slices, tail, idle_lanes, prefetch_loop, shifted, group_shfl,
        sub_vec_block, dynamic;
} paths;

/* Counts what kn's #defines select (rownorm.hip's holes) and checks them against the case. */
static void count_paths(const emu_case *c, const norm_spec *s, const cg_kernel *kn, paths *p)
{
    const char *src = kn->source;
    long long vec = emu_define(src, "HD_VEC", -1), threads = emu_define(src, "HD_THREADS", -1);
    long long cols = emu_define(src, "HD_COLS", -1), qblock = emu_define(src, "HD_QBLOCK", 0);
    long long rows = 1, per = (cols + threads * vec - 1) / (threads * vec);
    for (int d = 0; d < s->rank - s->k; d++)
        rows *= s->dims[d];
    cr_assert(vec >= 1 && vec <= 8 && threads >= 32 && threads <= 1024 && cols >= 1, "%s: defines", c->what);
    cr_expect_eq(emu_define(src, "HD_RMS", -1), s->rms);
    cr_expect_eq(emu_define(src, "HD_PREFETCH", -1), c->target.row_prefetch);
    cr_expect_eq(kn->block[0], (unsigned)threads);
    p->vec[vec]++;
    p->one_warp += threads == 32, p->many_warps += threads > 32;
    p->slices += per > 1;
    p->tail += cols % (threads * vec) != 0;
    p->idle_lanes += cols < threads * vec && cols % (32 * vec) != 0;
    p->prefetch_loop += c->target.row_prefetch && kn->grid[0] < rows;
    p->shifted += !s->rms && c->target.shifted_stats;
    p->group_shfl += qblock >= vec && qblock / vec > 1;
    p->sub_vec_block += qblock > 0 && qblock < vec;
    p->dynamic += c->g.dynamic_shape;
}

static void check_spec(const norm_spec *s, cg_target t, bool dynamic, paths *p)
{
    emu_case c = {.target = t};
    ir_graph_init(&c.g);
    c.g.dynamic_shape = dynamic;
    norm_graph(&c, s);
    norm_spec keep = *s;
    cg_kernel kn;
    emu_case info = c; /* what and target, for count_paths (the graph is freed by emu_check) */
    emu_check(&c, &kn);
    if (p != NULL)
        count_paths(&info, &keep, &kn, p);
    cg_kernel_free(&kn);
}

static cg_target random_target(void)
{
    static const int lpt[] = {1, 2, 4, 8};
    cg_target t = emu_target(tu_range(0, 1) ? 1 : 132);
    t.loads_per_thread = lpt[tu_range(0, 3)];
    t.row_prefetch = (int)tu_range(0, 1);
    t.shifted_stats = (int)tu_range(0, 1);
    t.max_vec = tu_range(0, 4) == 0 ? 1 : 0;
    return t;
}

/* ---- cases ----------------------------------------------------------------------------------------- */

Test(emu_rownorm, random_norms)
{
    emu_seed("emu_rownorm random_norms");
    for (int i = 0; i < 10; i++) {
        norm_spec s = {.rms = i % 2 == 1, .stats = tu_range(0, 1), .bias = tu_range(0, 2) > 0,
                       .residual = i % 3 == 0, .runtime_eps = i % 4 == 3, .epi = i % 5 == 2 ? 1 : i % 5 == 4 ? 2 : 0,
                       .dt = float_types[i % 3], .rank = (int)tu_range(2, 3)};
        s.k = s.rank == 3 && i % 4 == 1 ? 2 : 1;
        for (int d = 0; d < s.rank; d++)
            s.dims[d] = tu_range(1, d < s.rank - s.k ? 6 : 40);
        if (s.k == 1)
            s.dims[s.rank - 1] = tu_range(0, 1) ? 8 * tu_range(1, 300) : tu_range(1, 2500);
        s.pad = s.k == 1 && i % 3 == 1 ? tu_range(0, 1) * 8 + tu_range(0, 1) * tu_range(1, 7) : 0;
        check_spec(&s, random_target(), false, NULL);
    }
}

Test(emu_rownorm, quantize_tails)
{
    emu_seed("emu_rownorm quantize_tails");
    const enum quant_tail tails[] = {Q_MXFP8, Q_NVFP4, Q_MXINT8, Q_BLOCK4, Q_MXFP8, Q_NVFP4};
    for (int i = 0; i < 6; i++) {
        norm_spec s = {.rms = i % 2 == 0, .stats = i % 3 == 0, .bias = true, .quant = tails[i],
                       .dt = float_types[i % 3], .rank = 2, .k = 1};
        s.dims[0] = tu_range(1, 12);
        s.dims[1] = 32 * tu_range(1, i < 4 ? 40 : 3) + (i == 5 ? 16 : 0); /* NVFP4: 16 | C */
        cg_target t = random_target();
        if (i >= 4)
            t.max_vec = 1; /* one element per thread: a block spans 16 or 32 lanes */
        check_spec(&s, t, false, NULL);
    }
}

/* Fixed shapes and knobs that together take every path; each case on fresh data and random
 * options, and the paths counted from the emitted #defines. */
Test(emu_rownorm, every_path)
{
    emu_seed("emu_rownorm every_path");
    const struct { int64_t rows, cols; int lpt, prefetch, shifted, max_vec, sm; bool dynamic; enum quant_tail q; } cases[] = {
        {7, 5, 4, 0, 0, 0, 132, false, Q_NONE},       /* 5 columns: one warp, 27 idle lanes, scalar */
        {5, 2048, 1, 0, 0, 0, 132, false, Q_NONE},    /* vec 8, 256 threads, one slice each */
        {4, 3000, 4, 0, 1, 0, 132, false, Q_NONE},    /* vec 8, slices with a row tail, shifted stats */
        {3, 1001, 8, 0, 0, 0, 132, false, Q_NONE},    /* scalar, 128 threads x 8 slices, tail */
        {9, 4096, 1, 1, 0, 0, 1, false, Q_NONE},      /* prefetching blocks loop over rows */
        {6, 700, 2, 1, 1, 1, 1, true, Q_NONE},        /* the knob's scalar path, dynamic rows */
        {20, 96, 4, 0, 1, 0, 132, true, Q_NONE},      /* one warp, idle lanes, dynamic */
        {5, 320, 4, 0, 0, 0, 132, false, Q_MXFP8},    /* amax over groups of 4 lanes */
        {3, 64, 4, 0, 0, 0, 132, false, Q_BLOCK4},    /* blocks of 4 inside one vector */
        {4, 96, 1, 0, 0, 1, 132, false, Q_MXINT8},    /* vec 1: a block spans the whole warp */
        {4, 112, 1, 0, 0, 1, 132, false, Q_NVFP4},    /* FP4 pairs: vec 2, groups of 8 lanes */
    };
    paths p = {0};
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        norm_spec s = {.rms = cases[i].shifted ? false : tu_range(0, 1), .stats = tu_range(0, 1),
                       .bias = tu_range(0, 1), .quant = cases[i].q, .dt = float_types[tu_range(0, 2)],
                       .rank = 2, .k = 1, .dims = {cases[i].rows, cases[i].cols}};
        cg_target t = emu_target(cases[i].sm);
        t.loads_per_thread = cases[i].lpt, t.row_prefetch = cases[i].prefetch;
        t.shifted_stats = cases[i].shifted, t.max_vec = cases[i].max_vec;
        check_spec(&s, t, cases[i].dynamic, &p);
    }
    cr_expect(p.vec[8] > 0 && p.vec[1] > 0 && p.vec[2] > 0, "vector widths 8 %d, 1 %d, 2 %d", p.vec[8], p.vec[1],
              p.vec[2]);
    cr_expect(p.one_warp > 0 && p.many_warps > 0, "one warp %d, many %d", p.one_warp, p.many_warps);
    cr_expect(p.slices > 0 && p.tail > 0 && p.idle_lanes > 0, "slices %d, tails %d, idle lanes %d", p.slices, p.tail,
              p.idle_lanes);
    cr_expect(p.prefetch_loop > 0 && p.shifted > 0 && p.dynamic > 0, "prefetch loops %d, shifted %d, dynamic %d",
              p.prefetch_loop, p.shifted, p.dynamic);
    cr_expect(p.group_shfl > 0 && p.sub_vec_block > 0, "group shuffles %d, blocks inside a vector %d", p.group_shfl,
              p.sub_vec_block);
}

/* ---- the self-check: a wrong kernel is caught ------------------------------------------------------ */

Test(emu_rownorm, wrong_sources_are_caught)
{
    emu_seed("emu_rownorm wrong_sources_are_caught");
    emu_case c = {.target = emu_target(132)};
    ir_graph_init(&c.g);
    c.target.max_vec = 1; /* scalar accesses: a shifted index stays legal */
    norm_spec s = {.stats = true, .bias = true, .dt = HIPDNN_DATA_FLOAT, .rank = 2, .k = 1,
                   .dims = {tu_range(2, 6), tu_range(200, 900)}};
    norm_graph(&c, &s);
    const char *const wrong[][2] = {
        /* x read one column on */
        {"hd_ldv<HD_DT_FLOAT, HD_VEC>(p0, (0LL + ((r / 1LL) % ", "hd_ldv<HD_DT_FLOAT, HD_VEC>(p0, 1 + (0LL + ((r / 1LL) % "},
        {"cnt += HD_VEC;\n        local_mean", "cnt += HD_VEC + 1;\n        local_mean"}, /* a wrong count */
        {"hd_shfl_xor(s.mean, m)", "hd_shfl_xor(s.mean, m / 2)"}, /* a shuffle from the wrong lane */
        {"if (col < HD_COLS) {", "if (col + 1 < HD_COLS) {"},     /* the row's last element skipped */
    };
    emu_expect_caught(&c, wrong, 4);
}
