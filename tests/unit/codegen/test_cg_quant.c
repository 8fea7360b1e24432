/* test_cg_quant.c — codegen for block-scale quantize / dequantize and the paged KV-cache load:
 * every kernel the fusion forms for these graphs (standalone quantize in each format, with a
 * prologue, as the tail of batchnorm inference and of a norm row kernel; dequantize in pointwise
 * regions; the paged load, 16-byte and one-element copies) is emitted deterministically and
 * compiles with NVRTC for sm_90 and sm_80 (compile only: skips without NVRTC); every template
 * also compiles on its own after the NVIDIA prelude. Cases no template handles answer
 * NOT_SUPPORTED with a reason naming the problem. Numerical checks are tests/gpu/'s job.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_int.h"
#include "runtime/rt.h"

TestSuite(codegen_quant);

static bool have_compiler(void)
{
    rt_compiler_info info;
    return rt_compiler_for("sm_90", &info) == HIPDNN_STATUS_SUCCESS; /* NVRTC */
}

/* ---- building IR graphs ------------------------------------------------------------------------ */

static int tensor(ir_graph *g, hipdnnDataType_t dt, int rank, const int64_t *dims, bool virt)
{
    ir_tensor t = {.uid = 100 + g->n_t, .dtype = dt, .rank = rank, .is_virtual = virt};
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--)
        t.dims[d] = dims[d], t.strides[d] = s, s *= dims[d];
    return ir_add_tensor(g, &t);
}

static int scalar(ir_graph *g, int rank, float v)
{
    ir_tensor t = {.uid = 100 + g->n_t, .dtype = HIPDNN_DATA_FLOAT, .rank = rank, .by_value = true};
    for (int d = 0; d < rank; d++)
        t.dims[d] = t.strides[d] = 1;
    memcpy(t.value, &v, sizeof v);
    return ir_add_tensor(g, &t);
}

/* A copy of tensor ti's dims with dim d divided by div. */
static int like(ir_graph *g, int ti, hipdnnDataType_t dt, int d, int64_t div, bool virt)
{
    int64_t dims[IR_MAX_RANK];
    memcpy(dims, g->t[ti].dims, sizeof dims);
    if (d >= 0)
        dims[d] = (dims[d] + div - 1) / div;
    return tensor(g, dt, g->t[ti].rank, dims, virt);
}

static void quantize(ir_graph *g, int x, int y, int s, int block, int axis)
{
    ir_op op = {.kind = IR_OP_BS_QUANTIZE, .n_in = 1, .n_out = 2, .in = {x}, .out = {y, s}};
    op.a.quant.block[0] = block, op.a.quant.n_block = 1, op.a.quant.axis = axis;
    ir_add_op(g, &op);
}

static void dequantize(ir_graph *g, int x, int s, int y, int bm, int bk)
{
    ir_op op = {.kind = IR_OP_BS_DEQUANTIZE, .n_in = 2, .n_out = 1, .in = {x, s}, .out = {y}};
    op.a.quant.block[0] = bm, op.a.quant.block[1] = bk, op.a.quant.n_block = 2;
    ir_add_op(g, &op);
}

static void pointwise(ir_graph *g, int mode, int a, int b, int y)
{
    ir_op op = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {a, b, -1}, .out = {y}};
    op.a.pw.mode = mode;
    ir_add_op(g, &op);
}

/* x [R, C] -> rmsnorm (scale [1, C], epsilon) -> y (virtual float unless y_dt says otherwise). */
static int rmsnorm(ir_graph *g, int x, hipdnnDataType_t y_dt, bool y_virtual)
{
    int64_t wd[2] = {1, g->t[x].dims[1]};
    int w = tensor(g, HIPDNN_DATA_FLOAT, 2, wd, false), eps = scalar(g, 2, 1e-5f);
    int y = like(g, x, y_dt, -1, 1, y_virtual);
    ir_op op = {.kind = IR_OP_RMSNORM, .n_in = 4, .n_out = 2, .in = {x, w, eps, -1}, .out = {y, -1}};
    op.a.norm.normalized_dims = 1;
    ir_add_op(g, &op);
    return y;
}

/* ---- emission ----------------------------------------------------------------------------------- */

/* Every kernel of g: supported, emitted twice with the same bytes, compiled for sm_90 and sm_80
 * with NVRTC when present. Returns the number of successful compiles. */
static int emit_and_compile(ir_graph *g, const char *what, const char *tpl)
{
    cr_assert_eq(ir_graph_seal(g), HIPDNN_STATUS_SUCCESS, "%s: seal", what);
    ir_partition p;
    cr_assert_eq(ir_fuse(g, &p), HIPDNN_STATUS_SUCCESS);
    int compiled = 0;
    const char *archs[] = {"sm_90", "sm_80"};
    for (int k = 0; k < p.n; k++) {
        char why[256] = "";
        cr_assert(cg_supports(g, &p.k[k], why, sizeof why), "%s kernel %d: %s", what, k, why);
        for (int a = 0; a < 2; a++) {
            cg_target t = {.platform = "nvidia", .sm_count = 132};
            snprintf(t.arch, sizeof t.arch, "%s", archs[a]);
            cg_kernel k1, k2;
            cr_assert_eq(cg_emit(g, &p.k[k], &t, &k1), HIPDNN_STATUS_SUCCESS);
            cr_assert_eq(cg_emit(g, &p.k[k], &t, &k2), HIPDNN_STATUS_SUCCESS);
            cr_expect_str_eq(k1.source, k2.source, "%s: emission is deterministic", what);
            cr_expect_not_null(strstr(k1.source, tpl), "%s: emitted from %s", what, tpl);
            cg_dump(what, k1.source);
            if (have_compiler()) {
                void *code = NULL;
                size_t len = 0;
                char *log = NULL;
                hipdnnStatus_t st = rt_compile(k1.source, what, t.arch, NULL, 0, &code, &len, &log);
                cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s for %s:\n%s\n---- source ----\n%s", what, t.arch,
                             log ? log : "", k1.source);
                compiled += st == HIPDNN_STATUS_SUCCESS;
                free(code), free(log);
            }
            cg_kernel_free(&k1), cg_kernel_free(&k2);
        }
    }
    ir_partition_free(&p);
    ir_graph_free(g);
    return compiled;
}

/* The reason codegen gives for g's first kernel, which must be unsupported. */
static void expect_refused(ir_graph *g, int kernel, const char *phrase)
{
    cr_assert_eq(ir_graph_seal(g), HIPDNN_STATUS_SUCCESS);
    ir_partition p;
    cr_assert_eq(ir_fuse(g, &p), HIPDNN_STATUS_SUCCESS);
    cr_assert_gt(p.n, kernel);
    char why[256] = "";
    cr_expect(!cg_supports(g, &p.k[kernel], why, sizeof why), "expected NOT_SUPPORTED (%s)", phrase);
    cr_expect_not_null(strstr(why, phrase), "reason \"%s\" lacks \"%s\"", why, phrase);
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
    cg_kernel k;
    cr_expect_eq(cg_emit(g, &p.k[kernel], &t, &k), HIPDNN_STATUS_NOT_SUPPORTED);
    ir_partition_free(&p);
    ir_graph_free(g);
}

static int expected(int kernels) { return have_compiler() ? 2 * kernels : 0; }

/* ---- supported kernels ------------------------------------------------------------------------------ */

Test(codegen_quant, standalone_quantize_formats)
{
    const hipdnnDataType_t ys[] = {HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP8_E5M2, HIPDNN_DATA_FP4_E2M1,
                                   HIPDNN_DATA_INT8, HIPDNN_DATA_FP4_E2M1};
    const hipdnnDataType_t ss[] = {HIPDNN_DATA_FP8_E8M0, HIPDNN_DATA_FP8_E8M0, HIPDNN_DATA_FP8_E4M3,
                                   HIPDNN_DATA_FP8_E8M0, HIPDNN_DATA_FP8_E8M0};
    const int blocks[] = {32, 32, 16, 7, 128}; /* 128: beyond the register-held blocks */
    for (int i = 0; i < 5; i++) {
        ir_graph g;
        ir_graph_init(&g);
        int64_t xd[3] = {3, 5, blocks[i] * 3};
        int x = tensor(&g, i % 2 ? HIPDNN_DATA_HALF : HIPDNN_DATA_BFLOAT16, 3, xd, false);
        int axis = i == 3 ? 1 : 2;
        if (i == 3)
            g.t[x].dims[1] = 7 * 3, g.t[x].strides[0] = 21 * xd[2];
        int y = like(&g, x, ys[i], -1, 1, false), s = like(&g, x, ss[i], axis, blocks[i], false);
        quantize(&g, x, y, s, blocks[i], axis);
        char what[64];
        snprintf(what, sizeof what, "quantize_%d", i);
        cr_expect_eq(emit_and_compile(&g, what, "blockquant.hip"), expected(1));
    }
}

/* bf16 a + b (written) -> quantize; fp8 + E8M0 scales -> dequantize -> NVFP4 quantize. */
Test(codegen_quant, quantize_with_prologue)
{
    ir_graph g;
    ir_graph_init(&g);
    int64_t d[2] = {9, 96};
    int a = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, d, false), b = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, d, false);
    int sum = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, d, false);
    pointwise(&g, HIPDNN_POINTWISE_ADD, a, b, sum);
    quantize(&g, sum, like(&g, sum, HIPDNN_DATA_FP8_E4M3, -1, 1, false),
             like(&g, sum, HIPDNN_DATA_FP8_E8M0, 1, 32, false), 32, 1);
    cr_expect_eq(emit_and_compile(&g, "add_quantize", "blockquant.hip"), expected(1));

    ir_graph_init(&g);
    int x = tensor(&g, HIPDNN_DATA_FP8_E4M3, 2, d, false);
    int sx = like(&g, x, HIPDNN_DATA_FP8_E8M0, 1, 32, false), v = like(&g, x, HIPDNN_DATA_FLOAT, -1, 1, true);
    dequantize(&g, x, sx, v, 1, 32);
    quantize(&g, v, like(&g, v, HIPDNN_DATA_FP4_E2M1, -1, 1, false), like(&g, v, HIPDNN_DATA_FP8_E4M3, 1, 16, false),
             16, 1);
    cr_expect_eq(emit_and_compile(&g, "requantize", "blockquant.hip"), expected(1));
}

/* rmsnorm -> quantize in the row kernel: 8-wide rows, 1-wide rows made 2-wide for FP4 pairs,
 * blocks smaller than a vector, blocks over 32 lanes, and y written as well. */
Test(codegen_quant, norm_quantize_tail)
{
    const hipdnnDataType_t ys[] = {HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP4_E2M1, HIPDNN_DATA_INT8,
                                   HIPDNN_DATA_FP8_E5M2};
    const int blocks[] = {32, 16, 4, 256};
    for (int i = 0; i < 4; i++) {
        ir_graph g;
        ir_graph_init(&g);
        int64_t d[2] = {17, blocks[i] * 5};
        int x = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, d, false);
        if (i == 1)
            g.t[x].strides[0] = d[1] + 3; /* rows not 16-byte aligned */
        int y = rmsnorm(&g, x, i == 3 ? HIPDNN_DATA_BFLOAT16 : HIPDNN_DATA_FLOAT, i != 3);
        quantize(&g, y, like(&g, y, ys[i], -1, 1, false),
                 like(&g, y, i == 1 ? HIPDNN_DATA_FP8_E4M3 : HIPDNN_DATA_FP8_E8M0, 1, blocks[i], false), blocks[i], 1);
        char what[64];
        snprintf(what, sizeof what, "rmsnorm_quantize_%d", i);
        ir_partition p;
        cr_assert_eq(ir_graph_seal(&g), HIPDNN_STATUS_SUCCESS);
        cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
        cr_expect_eq(p.n, 1, "the norm and its quantize form one kernel");
        ir_partition_free(&p);
        cr_expect_eq(emit_and_compile(&g, what, "rownorm.hip"), expected(1));
    }
    /* a single row ([1, C]: its tensors classify as per-column) */
    ir_graph g;
    ir_graph_init(&g);
    int64_t d[2] = {1, 96};
    int x = tensor(&g, HIPDNN_DATA_HALF, 2, d, false), y = rmsnorm(&g, x, HIPDNN_DATA_FLOAT, true);
    quantize(&g, y, like(&g, y, HIPDNN_DATA_FP4_E2M1, -1, 1, false), like(&g, y, HIPDNN_DATA_FP8_E4M3, 1, 16, false),
             16, 1);
    cr_expect_eq(emit_and_compile(&g, "rmsnorm_quantize_one_row", "rownorm.hip"), expected(1));
}

/* x [N, C, H, W] NHWC -> batchnorm inference -> quantize along C: the elementwise anchor's
 * epilogue ends in the quantize. */
Test(codegen_quant, bn_inference_quantize_tail)
{
    ir_graph g;
    ir_graph_init(&g);
    int64_t d[4] = {2, 64, 3, 5}, cd[4] = {1, 64, 1, 1};
    int x = tensor(&g, HIPDNN_DATA_BFLOAT16, 4, d, false);
    int st[4];
    for (int i = 0; i < 4; i++)
        st[i] = tensor(&g, HIPDNN_DATA_FLOAT, 4, cd, false);
    int y = like(&g, x, HIPDNN_DATA_FLOAT, -1, 1, true);
    ir_op bn = {.kind = IR_OP_BN_INFER, .n_in = 6, .n_out = 1, .in = {x, st[0], st[1], st[2], st[3], -1}, .out = {y}};
    ir_add_op(&g, &bn);
    quantize(&g, y, like(&g, y, HIPDNN_DATA_FP8_E4M3, -1, 1, false), like(&g, y, HIPDNN_DATA_FP8_E8M0, 1, 32, false),
             32, 1);
    cr_expect_eq(emit_and_compile(&g, "bn_quantize", "blockquant.hip"), expected(1));
}

/* FP4 x (nibble loads) * E4M3 scales in 16 x 16 blocks -> + bias -> relu, in one region. */
Test(codegen_quant, dequantize_in_pointwise_region)
{
    ir_graph g;
    ir_graph_init(&g);
    int64_t d[2] = {37, 45}, bd[2] = {1, 45};
    int x = tensor(&g, HIPDNN_DATA_FP4_E2M1, 2, d, false);
    int s = like(&g, x, HIPDNN_DATA_FP8_E4M3, 0, 16, false);
    g.t[s].dims[1] = 3;
    g.t[s].strides[0] = 3;
    int v = like(&g, x, HIPDNN_DATA_FLOAT, -1, 1, true), bias = tensor(&g, HIPDNN_DATA_FLOAT, 2, bd, false);
    int w = like(&g, x, HIPDNN_DATA_FLOAT, -1, 1, true), y = like(&g, x, HIPDNN_DATA_BFLOAT16, -1, 1, false);
    dequantize(&g, x, s, v, 16, 16);
    pointwise(&g, HIPDNN_POINTWISE_ADD, v, bias, w);
    pointwise(&g, HIPDNN_POINTWISE_RELU_FWD, w, -1, y);
    cr_expect_eq(emit_and_compile(&g, "dequantize_region", "pointwise.hip"), expected(1));
}

/* container [nblk, H, page, D] -> y [B, H, S, D] (16-byte copies) or Kᵀ [B, H, D, S] with an
 * odd D (one element at a time, bf16 -> float). */
Test(codegen_quant, paged_cache_load)
{
    for (int i = 0; i < 2; i++) {
        ir_graph g;
        ir_graph_init(&g);
        int64_t D = i ? 13 : 64, cd[4] = {11, 2, 4, D}, sd[4] = {3, 1, 1, 1}, td[4] = {3, 1, 5, 1};
        int64_t yd[4] = {3, 2, i ? D : 19, i ? 19 : D};
        int c = tensor(&g, HIPDNN_DATA_BFLOAT16, 4, cd, false), s = tensor(&g, HIPDNN_DATA_INT32, 4, sd, false);
        int t = tensor(&g, i ? HIPDNN_DATA_INT64 : HIPDNN_DATA_INT32, 4, td, false);
        int y = tensor(&g, i ? HIPDNN_DATA_FLOAT : HIPDNN_DATA_BFLOAT16, 4, yd, false);
        if (i) /* Kᵀ: [B, H, D, S] over [B, H, S, D] memory */
            g.t[y].strides[2] = 1, g.t[y].strides[3] = D;
        ir_op op = {.kind = IR_OP_PAGED_CACHE_LOAD, .n_in = 3, .n_out = 1, .in = {c, s, t}, .out = {y}};
        ir_add_op(&g, &op);
        char what[32];
        snprintf(what, sizeof what, "paged_load_%d", i);
        cr_expect_eq(emit_and_compile(&g, what, "paged_load.hip"), expected(1));
    }
}

/* Each template on its own: the NVIDIA prelude, hd_common.h, then the template's defaults. */
Test(codegen_quant, templates_compile_on_their_own)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    const char *tpls[] = {"pointwise.hip", "rownorm.hip", "matmul.hip", "matmul_sm90.hip", "channorm.hip",
                          "conv.hip", "conv_igemm.hip", "blockquant.hip", "paged_load.hip", "sdpa_fwd.hip",
                          "sdpa_bwd.hip", "sdpa_fwd_fp8.hip"};
    for (int i = 0; i < 12; i++) {
        const bool wgmma = strcmp(tpls[i], "matmul_sm90.hip") == 0 || strcmp(tpls[i], "sdpa_fwd_fp8.hip") == 0;
        const char *arch = wgmma ? "sm_90a" : "sm_90";
        cg_target t = {.platform = "nvidia", .sm_count = 132};
        snprintf(t.arch, sizeof t.arch, "%s", arch);
        t = cg_target_with_caps(&t); /* cg_assemble reads the caps cg_emit fills */
        base_sb defs = {0}, hooks = {0};
        cg_kernel k = {0};
        cr_assert_eq(cg_assemble(&t, tpls[i], &defs, &hooks, &k), HIPDNN_STATUS_SUCCESS);
        /* cg_assemble defines HD_GENERATED; without it the template's own defaults apply */
        char *src = k.source, *gen = strstr(src, "#define HD_GENERATED 1\n");
        cr_assert_not_null(gen);
        memcpy(gen, "//efine", 7);
        void *code = NULL;
        size_t len = 0;
        char *log = NULL;
        hipdnnStatus_t st = rt_compile(src, tpls[i], arch, NULL, 0, &code, &len, &log);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s:\n%s", tpls[i], log ? log : "");
        free(code), free(log);
        cg_kernel_free(&k);
    }
}

/* ---- what answers NOT_SUPPORTED, and why ------------------------------------------------------------ */

Test(codegen_quant, refusals_name_the_reason)
{
    ir_graph g;
    int64_t d[2] = {8, 96};

    /* a norm's quantize tail with a block that is not a power of two */
    ir_graph_init(&g);
    int x = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, d, false), y = rmsnorm(&g, x, HIPDNN_DATA_FLOAT, true);
    quantize(&g, y, like(&g, y, HIPDNN_DATA_FP8_E4M3, -1, 1, false), like(&g, y, HIPDNN_DATA_FP8_E8M0, 1, 48, false),
             48, 1);
    expect_refused(&g, 0, "power-of-two block");

    /* a norm's quantize tail whose block needs more than 32 lanes of unaligned (2-wide) rows */
    ir_graph_init(&g);
    int64_t wd[2] = {8, 384};
    x = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, wd, false);
    g.t[x].strides[0] = 387;
    y = rmsnorm(&g, x, HIPDNN_DATA_FLOAT, true);
    quantize(&g, y, like(&g, y, HIPDNN_DATA_FP8_E4M3, -1, 1, false), like(&g, y, HIPDNN_DATA_FP8_E8M0, 1, 128, false),
             128, 1);
    expect_refused(&g, 0, "spans more than a warp");

    /* a norm's quantize tail across rows (axis 0) */
    ir_graph_init(&g);
    x = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, d, false), y = rmsnorm(&g, x, HIPDNN_DATA_FLOAT, true);
    quantize(&g, y, like(&g, y, HIPDNN_DATA_FP8_E4M3, -1, 1, false), like(&g, y, HIPDNN_DATA_FP8_E8M0, 0, 8, false),
             8, 0);
    expect_refused(&g, 0, "along the last dim");

    /* FP4 with an odd block: two elements of a byte would belong to two threads */
    ir_graph_init(&g);
    x = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, d, false);
    quantize(&g, x, like(&g, x, HIPDNN_DATA_FP4_E2M1, -1, 1, false), like(&g, x, HIPDNN_DATA_FP8_E8M0, 1, 3, false),
             3, 1);
    expect_refused(&g, 0, "even block");

    /* an element type the kernels do not quantize to */
    ir_graph_init(&g);
    x = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, d, false);
    quantize(&g, x, like(&g, x, HIPDNN_DATA_FP8_E4M3_FNUZ, -1, 1, false), like(&g, x, HIPDNN_DATA_FP8_E8M0, 1, 32, false),
             32, 1);
    expect_refused(&g, 0, "has no kernel");

    /* a short last block (the frontend refuses it; the reference defines it) */
    ir_graph_init(&g);
    int64_t od[2] = {4, 40};
    x = tensor(&g, HIPDNN_DATA_BFLOAT16, 2, od, false);
    quantize(&g, x, like(&g, x, HIPDNN_DATA_FP8_E4M3, -1, 1, false), like(&g, x, HIPDNN_DATA_FP8_E8M0, 1, 32, false),
             32, 1);
    expect_refused(&g, 0, "short last block");

    /* dequantize feeding a matmul joins its prologue, which the matmul template lacks */
    ir_graph_init(&g);
    int64_t ad[3] = {1, 32, 64}, bd[3] = {1, 64, 16}, cd[3] = {1, 32, 16};
    int a = tensor(&g, HIPDNN_DATA_FP8_E4M3, 3, ad, false);
    int sa = like(&g, a, HIPDNN_DATA_FP8_E8M0, 2, 32, false), av = like(&g, a, HIPDNN_DATA_BFLOAT16, -1, 1, true);
    int b = tensor(&g, HIPDNN_DATA_BFLOAT16, 3, bd, false), c = tensor(&g, HIPDNN_DATA_FLOAT, 3, cd, false);
    dequantize(&g, a, sa, av, 1, 32);
    ir_op mm = {.kind = IR_OP_MATMUL, .n_in = 2, .n_out = 1, .in = {av, b}, .out = {c}};
    ir_add_op(&g, &mm);
    expect_refused(&g, 0, "matmul prologue");

    /* a matmul whose epilogue ends in a quantize */
    ir_graph_init(&g);
    a = tensor(&g, HIPDNN_DATA_BFLOAT16, 3, ad, false), b = tensor(&g, HIPDNN_DATA_BFLOAT16, 3, bd, false);
    c = tensor(&g, HIPDNN_DATA_FLOAT, 3, cd, true);
    ir_op mm2 = {.kind = IR_OP_MATMUL, .n_in = 2, .n_out = 1, .in = {a, b}, .out = {c}};
    ir_add_op(&g, &mm2);
    quantize(&g, c, like(&g, c, HIPDNN_DATA_FP8_E4M3, -1, 1, false), like(&g, c, HIPDNN_DATA_FP8_E8M0, 2, 16, false),
             16, 2);
    expect_refused(&g, 0, "block_scale_quantize in a matmul epilogue");

    /* dequantize writing FP4 (a region stores one element per thread) */
    ir_graph_init(&g);
    x = tensor(&g, HIPDNN_DATA_FP8_E4M3, 2, d, false);
    int s = like(&g, x, HIPDNN_DATA_FP8_E8M0, 1, 32, false);
    dequantize(&g, x, s, like(&g, x, HIPDNN_DATA_FP4_E2M1, -1, 1, false), 1, 32);
    expect_refused(&g, 0, "as an output");
}
