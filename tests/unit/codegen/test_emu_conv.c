/* test_emu_conv.c — the emitted direct convolutions (kernel_templates/conv.hip, codegen/cg_conv.c:
 * one fp32 sum per output element, split over a warp when the sums are long and few) run on the
 * host emulator (emu_run.h, the warp's combining shuffles included) against the reference
 * interpreter (ir_ref_conv), element by element, on fresh random data:
 *   kinds      forward, data gradient and filter gradient, 2-D and 3-D
 *   geometry   padding (asymmetric), stride, dilation, groups (depthwise too), both modes
 *              (cross-correlation and the flipped filter), input sizes drawn so that outputs
 *              end in tails
 *   layouts    NCHW / NCDHW and NHWC / NDHWC, rows or pixels padded (bytes between elements)
 *   types      fp32, fp16, bf16 (fp32 sums)
 *   epilogue   none, or + bias (per output channel; per K of dw) and ReLU
 *   paths      a warp per element (HD_LANES 32, reductions with tails) and a thread per element
 *              (short sums, or more than 65536 outputs), grids capped below the element count
 *              (the grid-stride loop), the vector-width knob at 1 keeping a forward NHWC bf16
 *              conv off the tensor cores
 * Every case asserts that the source is conv.hip's (entry hd_conv_kernel) and its HD_LANES.
 * A self-check alters the emitted source (an input row off by one, the last term skipped, the
 * last shuffle round skipped, the filter not flipped, the grid stride off by one, a data
 * gradient's output position and a filter gradient's batch wrong) and expects the comparison to
 * fail. The GPU runs the same kernels in tests/gpu/test_gpu_conv.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../common/tu.h"
#include "conv_tu.h"
#include "emu_run.h"

TestSuite(emu_conv);

#define FWD IR_OP_CONV_FWD
#define DGRAD IR_OP_CONV_DGRAD
#define WGRAD IR_OP_CONV_WGRAD
#define F32 HIPDNN_DATA_FLOAT
#define F16 HIPDNN_DATA_HALF
#define BF16 HIPDNN_DATA_BFLOAT16

/* A convolution (conv_tu.h), the knob and multiprocessors to emit it for, and what the emitter
 * must choose. */
typedef struct conv_spec {
    conv_case conv;
    int max_vec, sm;         /* knob (0: default); multiprocessors (0: 1 or 132 at random) */
    int lanes;               /* HD_LANES */
} conv_spec;

static const char *kind_name(ir_op_kind k) { return k == FWD ? "fwd" : k == DGRAD ? "dgrad" : "wgrad"; }

/* "fwd NCHW dtype 0 N 2 G 1 CG 5 KG 7 in 9x7 f 3/p1,1/s1/d1 ...": per spatial dim the filter size,
 * padding before and after, stride and dilation. */
static void describe(emu_case *c, const conv_case *s)
{
    int at = snprintf(c->what, sizeof c->what, "%s %s%s dtype %d N %lld G %lld CG %lld KG %lld in",
                      kind_name(s->kind), s->sp == 2 ? (s->nhwc ? "NHWC" : "NCHW") : s->nhwc ? "NDHWC" : "NCDHW",
                      s->flip ? " conv" : "", (int)s->io, (long long)s->n, (long long)s->groups, (long long)s->cg,
                      (long long)s->kg);
    for (int d = 0; d < s->sp; d++)
        at += snprintf(c->what + at, sizeof c->what - (size_t)at, "%s%lld", d ? "x" : " ", (long long)s->in[d]);
    at += snprintf(c->what + at, sizeof c->what - (size_t)at, " f");
    for (int d = 0; d < s->sp; d++)
        at += snprintf(c->what + at, sizeof c->what - (size_t)at, " %lld/p%lld,%lld/s%lld/d%lld", (long long)s->f[d],
                       (long long)s->pre[d], (long long)s->post[d], (long long)s->str[d], (long long)s->dil[d]);
    snprintf(c->what + at, sizeof c->what - (size_t)at, " pad %lld%s vec<=%d sm %d", (long long)s->pad,
             s->epilogue ? " + bias, relu" : "", c->target.max_vec, c->target.sm_count);
}

/* A case of spec s on the target it names, its input sizes grown by `grow` (0..2 at random). */
static void conv_emu_case(emu_case *c, const conv_spec *s, bool grow)
{
    *c = (emu_case){.target = emu_target(s->sm != 0 ? s->sm : tu_range(0, 1) ? 1 : 132)};
    c->target.max_vec = s->max_vec;
    conv_case v = s->conv;
    for (int d = 0; grow && d < v.sp; d++)
        v.in[d] += tu_range(0, 2);
    conv_tu_build(&c->g, &v);
    describe(c, &v);
}

/* Checks spec s (inputs grown), and that the direct template took it with the expected lanes. */
static void check_spec(const conv_spec *s)
{
    emu_case c;
    conv_emu_case(&c, s, true);
    char what[sizeof c.what];
    memcpy(what, c.what, sizeof what);
    cg_kernel kn;
    emu_check(&c, &kn);
    cr_expect_str_eq(kn.entry, "hd_conv_kernel", "%s: the direct template", what);
    cr_expect_not_null(strstr(kn.source, "#line 1 \"conv.hip\""), "%s: the source is conv.hip's", what);
    cr_expect_eq(emu_define(kn.source, "HD_LANES", -1), s->lanes, "%s: HD_LANES", what);
    cg_kernel_free(&kn);
}

/*  kind  sp nhwc  flip   io  n  G  CG  KG  in      f       pre     post    str     dil     epi   pad8  pad  vec sm lanes */
static const conv_spec fwd_specs[] = {
    {{FWD, 2, false, false, F32, 2, 1, 5, 7, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false, 0}, 0, 1, 32},
    /* NHWC bf16, 8 channels per group: the tensor cores' case unless the knob says vector width 1 */
    {{FWD, 2, true, false, BF16, 2, 2, 8, 8, {11, 9}, {3, 3}, {2, 1}, {0, 1}, {2, 2}, {2, 1}, false, false, 0}, 1, 0, 32},
    {{FWD, 2, false, true, F16, 1, 3, 2, 3, {10, 8}, {3, 2}, {2, 0}, {1, 1}, {2, 1}, {2, 2}, true, false, 2}, 0, 0, 1},
    {{FWD, 3, false, false, F32, 2, 1, 3, 4, {5, 6, 7}, {2, 3, 2}, {0, 1, 1}, {1, 0, 1}, {1, 2, 2}, {2, 1, 1}, true, false, 0}, 0, 0, 32},
    /* pixels of 8 + 3 channels: not 16-byte aligned, the direct template whatever the knob */
    {{FWD, 3, true, true, BF16, 1, 2, 4, 3, {4, 5, 6}, {3, 2, 2}, {1, 0, 1}, {1, 1, 0}, {2, 1, 1}, {1, 2, 1}, false, false, 3}, 0, 0, 32},
    {{FWD, 2, true, false, F16, 2, 6, 1, 2, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false, 0}, 0, 1, 1}, /* depthwise */
    {{FWD, 2, false, false, BF16, 2, 1, 4, 6, {20, 20}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, {1, 1}, false, false, 0}, 0, 1, 1},
    /* more than 65536 outputs: a thread per element even for 36 terms */
    {{FWD, 2, false, false, F32, 1, 1, 4, 16, {66, 64}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false, 0}, 0, 1, 1},
};

static const conv_spec grad_specs[] = {
    {{DGRAD, 2, true, false, BF16, 2, 1, 6, 8, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {2, 2}, {1, 1}, true, false, 0}, 0, 0, 32},
    {{DGRAD, 3, false, true, F16, 1, 2, 3, 2, {5, 4, 6}, {2, 3, 1}, {1, 0, 0}, {0, 2, 1}, {1, 2, 3}, {2, 1, 1}, false, false, 0}, 0, 1, 1},
    {{DGRAD, 2, false, false, F32, 2, 3, 2, 4, {8, 9}, {3, 3}, {2, 1}, {2, 0}, {1, 2}, {2, 2}, true, false, 1}, 0, 0, 32},
    {{WGRAD, 2, true, false, BF16, 3, 1, 8, 16, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false, 0}, 0, 0, 32},
    {{WGRAD, 3, false, true, F32, 2, 3, 1, 2, {4, 5, 6}, {2, 2, 3}, {1, 1, 0}, {0, 1, 2}, {2, 1, 1}, {1, 2, 1}, true, false, 0}, 0, 1, 32},
    {{WGRAD, 2, false, false, F16, 2, 2, 3, 2, {10, 9}, {3, 2}, {2, 1}, {1, 1}, {2, 2}, {2, 1}, false, false, 2}, 0, 0, 32},
    /* at most 2 x 3 x 2 terms per dw element: a thread per element */
    {{WGRAD, 2, true, false, F32, 2, 2, 3, 4, {3, 4}, {2, 2}, {0, 0}, {0, 0}, {2, 2}, {1, 1}, true, false, 1}, 0, 0, 1},
};

Test(emu_conv, forward)
{
    emu_seed("emu_conv forward");
    for (int i = 0; i < (int)(sizeof fwd_specs / sizeof fwd_specs[0]); i++)
        check_spec(&fwd_specs[i]);
}

Test(emu_conv, data_and_filter_gradients)
{
    emu_seed("emu_conv data_and_filter_gradients");
    for (int i = 0; i < (int)(sizeof grad_specs / sizeof grad_specs[0]); i++)
        check_spec(&grad_specs[i]);
}

/* Wrong sources are caught: forward (a warp per element, flipped filter, grid-stride loop),
 * a strided data gradient, a filter gradient over three batches. */
Test(emu_conv, wrong_sources_are_caught)
{
    emu_seed("emu_conv wrong_sources_are_caught");
    static const conv_spec fwd = {{FWD, 2, false, true, F32, 2, 1, 5, 7, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1},
                                   {1, 1}, true, false, 0}, 0, 1, 32};
    const char *const fwd_wrong[][2] = {
        {"ih = o[1] * HD_SH - HD_PH", "ih = o[1] * HD_SH - HD_PH + 1"},  /* an input row off by one */
        {"j < HD_RED; j += HD_LANES", "j + 1 < HD_RED; j += HD_LANES"},  /* the last term skipped */
        {"m > 0; m /= 2", "m > 1; m /= 2"},                              /* the last shuffle round skipped */
        {"HD_TAP(fw, HD_FW)", "(fw)"},                                   /* the filter's width not flipped */
        {"e += step", "e += step + 1"},                                  /* grid stride off by one */
    };
    const char *const dgrad_wrong[][2] = {
        {"int t = h + pre - f * dil;", "int t = h + pre - f * dil + 1;"}, /* an output position off by one */
    };
    const char *const wgrad_wrong[][2] = {
        {"hd_i64 n = j / (HD_OW * HD_OH * HD_OD);", "hd_i64 n = 0;"},     /* every term from batch 0 */
    };
    const struct { const conv_spec *s; const char *const (*wrong)[2]; int n; } checks[] = {
        {&fwd, fwd_wrong, 5}, {&grad_specs[0], dgrad_wrong, 1}, {&grad_specs[3], wgrad_wrong, 1},
    };
    for (int i = 0; i < 3; i++) {
        emu_case c;
        conv_emu_case(&c, checks[i].s, false);
        emu_expect_caught(&c, checks[i].wrong, checks[i].n);
    }
}
