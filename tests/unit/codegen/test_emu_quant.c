/* test_emu_quant.c — the emitted block-scale quantize kernels (kernel_templates/blockquant.hip,
 * codegen/cg_quant.c: one thread per block, its amax reduced in registers) run on the host
 * emulator (emu_run.h) against the reference interpreter: MXFP8 (E4M3, E5M2), NVFP4, MXFP4 and
 * MXINT8 along the last dim or another one, padded rows, blocks of odd sizes and blocks too long
 * to hold in registers, an add prologue whose sum is stored, and every path the emitter picks
 * (8-wide accesses, held blocks, blocks read twice; FP4 pairs and FP4 words). The codes and
 * scales of values read from memory are exact (tu_close at the types' tolerances), so a wrong
 * block, element or nibble shows. The GPU runs the same kernels in tests/gpu/test_gpu_quant.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../common/tu.h"
#include "emu_run.h"

TestSuite(emu_quant);

typedef struct qfmt {
    const char *name;
    hipdnnDataType_t y, scale;
} qfmt;

static const qfmt MXFP8 = {"MXFP8", HIPDNN_DATA_FP8_E4M3, HIPDNN_DATA_FP8_E8M0},
                  MXFP8_E5M2 = {"MXFP8 E5M2", HIPDNN_DATA_FP8_E5M2, HIPDNN_DATA_FP8_E8M0},
                  NVFP4 = {"NVFP4", HIPDNN_DATA_FP4_E2M1, HIPDNN_DATA_FP8_E4M3},
                  MXFP4 = {"MXFP4", HIPDNN_DATA_FP4_E2M1, HIPDNN_DATA_FP8_E8M0},
                  MXINT8 = {"MXINT8", HIPDNN_DATA_INT8, HIPDNN_DATA_FP8_E8M0};

/* x [rows, cols] (or [2, rows, cols]; rows padded by pad) -> [x = a + r, stored] -> quantize
 * blocks of `block` along `axis`. */
static void quant_case(emu_case *c, qfmt f, int rank, int axis, int64_t block, int64_t pad, bool prologue)
{
    int64_t d[3] = {tu_range(1, 3), tu_range(1, 40), tu_range(2, 70)}, xs[3], sd[3]; /* inner 1 would be a vector */
    if (rank == 2) /* up to thousands of blocks: several thread blocks */
        d[0] = tu_range(2, 300), d[1] = d[2];
    d[axis] = block * tu_range(1, axis == rank - 1 ? 6 : 3);
    emu_strides(rank, d, NULL, pad, xs);
    hipdnnDataType_t xt = tu_range(0, 1) ? HIPDNN_DATA_BFLOAT16 : HIPDNN_DATA_FLOAT;
    int x = emu_tensor(c, xt, rank, d, xs, false);
    if (prologue) {
        int r = emu_tensor(c, xt, rank, d, xs, false), sum = emu_tensor(c, xt, rank, d, xs, false);
        emu_pw(c, HIPDNN_POINTWISE_ADD, x, r, -1, sum);
        x = sum;
    }
    memcpy(sd, d, sizeof sd);
    sd[axis] /= block;
    int q = emu_tensor(c, f.y, rank, d, NULL, false), s = emu_tensor(c, f.scale, rank, sd, NULL, false);
    ir_op op = {.kind = IR_OP_BS_QUANTIZE, .n_in = 1, .n_out = 2, .in = {x}, .out = {q, s}};
    op.a.quant = (ir_quant){.block = {(int32_t)block}, .n_block = 1, .axis = axis};
    cr_assert_geq(ir_add_op(&c->g, &op), 0);
    int at = snprintf(c->what, sizeof c->what, "%squantize dtype %d [", prologue ? "a + r -> " : "", (int)xt);
    for (int i = 0; i < rank; i++)
        at += snprintf(c->what + at, sizeof c->what - (size_t)at, "%s%lld", i ? "," : "", (long long)d[i]);
    snprintf(c->what + at, sizeof c->what - (size_t)at, "] pad %lld -> %s, blocks of %lld along %d",
             (long long)pad, f.name, (long long)block, axis);
    emu_seal(c);
}

Test(emu_quant, formats_layouts_and_paths)
{
    emu_seed("emu_quant formats_layouts_and_paths");
    const struct { qfmt f; int rank, axis; int64_t block, pad; bool prologue; int qvec, hold; } cases[] = {
        {MXFP8, 2, 1, 32, 0, false, 8, 1},      /* 8-wide accesses */
        {NVFP4, 2, 1, 16, 8, true, 8, 1},       /* FP4 words, padded rows, add prologue */
        {MXFP4, 3, 2, 32, 0, false, 8, 1},
        {MXINT8, 2, 0, 32, 0, false, 1, 1},     /* along the outer dim: one element at a time */
        {MXFP8_E5M2, 3, 1, 7, 0, true, 1, 1},   /* an odd block */
        {NVFP4, 2, 1, 16, 3, false, 1, 1},      /* odd row pitch: FP4 pairs, not words */
        {MXFP8, 2, 1, 128, 0, false, 1, 0},     /* too long to hold: the input is read twice */
    };
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        emu_case c = {.target = emu_target(tu_range(0, 1) ? 1 : 132)};
        ir_graph_init(&c.g);
        quant_case(&c, cases[i].f, cases[i].rank, cases[i].axis, cases[i].block, cases[i].pad, cases[i].prologue);
        cg_kernel kn;
        emu_check(&c, &kn);
        cr_expect_eq(emu_define(kn.source, "HD_QVEC", -1), cases[i].qvec, "%s: HD_QVEC", c.what);
        cr_expect_eq(emu_define(kn.source, "HD_HOLD", -1), cases[i].hold, "%s: HD_HOLD", c.what);
        cg_kernel_free(&kn);
    }
}

/* A wrong block index and a wrong nibble are caught. */
Test(emu_quant, wrong_sources_are_caught)
{
    emu_seed("emu_quant wrong_sources_are_caught");
    emu_case c = {.target = emu_target(132)};
    ir_graph_init(&c.g);
    quant_case(&c, NVFP4, 2, 1, 16, 3, false);
    const char *const wrong[][2] = {
        {"blk < HD_BLOCKS; blk += stride", "blk + 1 < HD_BLOCKS; blk += stride"},
        {"hd_bs_fp4<HD_SCALE_DT>(HD_V(j + 1), scale, inv) << 4", "hd_bs_fp4<HD_SCALE_DT>(HD_V(j), scale, inv) << 4"},
    };
    emu_expect_caught(&c, wrong, 2);
}
