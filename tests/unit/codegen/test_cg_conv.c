/* test_cg_conv.c — codegen of convolutions (codegen/cg_conv.c with kernel_templates/conv.hip
 * and conv_igemm.hip), and of the unfused partition (ir_split) of every example graph the JIT
 * engines support.
 *
 * Owns: each conv kind (fwd, dgrad, wgrad) in 2-D and 3-D, NCHW and NHWC, groups, stride,
 * dilation, both modes, bf16 / fp16 / fp32, with a bias + ReLU epilogue, emitted twice (same
 * bytes) and compiled with NVRTC for sm_90 and sm_80 (compile only, no GPU; skips without
 * NVRTC); which template each case gets (tensor-core implicit GEMM only for forward
 * channels-last bf16/fp16 with 16-byte aligned pixels, sm_80+, vector width knob not 1); the
 * reasons given for what has no template. Numerical checks are tests/gpu/test_gpu_conv.c's.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "engines/fe_engines.h"
#include "runtime/rt.h"
#include "../../common/tu.h"
#include "conv_tu.h"

static hipdnnHandle_t handle;

static void setup(void) { cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS); }
static void teardown(void) { hipdnnDestroy(handle); }
TestSuite(codegen_conv, .init = setup, .fini = teardown);

static bool have_compiler(void)
{
    rt_compiler_info info;
    return rt_compiler_for("sm_90", &info) == HIPDNN_STATUS_SUCCESS; /* NVRTC */
}

/* Emits kernel k twice (same bytes) for sm_90 and sm_80 and compiles it; returns the sm_90 entry. */
static const char *emit_and_compile(const ir_graph *ir, const ir_kernel *k, const char *what)
{
    const char *archs[] = {"sm_90", "sm_80"}, *entry = NULL;
    char why[256] = "";
    cr_assert(cg_supports(ir, k, why, sizeof why), "%s: %s", what, why);
    for (int a = 0; a < 2; a++) {
        cg_target t = {.platform = "nvidia", .sm_count = 132};
        snprintf(t.arch, sizeof t.arch, "%s", archs[a]);
        cg_kernel k1, k2;
        cr_assert_eq(cg_emit(ir, k, &t, &k1), HIPDNN_STATUS_SUCCESS, "%s", what);
        cr_assert_eq(cg_emit(ir, k, &t, &k2), HIPDNN_STATUS_SUCCESS, "%s", what);
        cr_expect_str_eq(k1.source, k2.source, "%s: emission is deterministic", what);
        if (a == 0)
            entry = k1.entry;
        cg_dump(what, k1.source);
        if (have_compiler()) {
            void *code = NULL;
            size_t len = 0;
            char *log = NULL;
            hipdnnStatus_t st = rt_compile(k1.source, what, k1.arch, NULL, 0, &code, &len, &log);
            cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s for %s:\n%s\n---- source ----\n%s", what,
                         t.arch, log ? log : "", k1.source);
            cr_expect(len > 4 && memcmp(code, "\x7f" "ELF", 4) == 0, "a code object came back");
            free(code), free(log);
        }
        cg_kernel_free(&k1), cg_kernel_free(&k2);
    }
    return entry;
}

/* Fuses case c (one kernel), checks it compiles and which template it gets. */
static void check_case(const conv_case *c, const char *want_entry, const char *what)
{
    ir_graph g;
    conv_tu_build(&g, c);
    ir_partition p;
    cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(p.n, 1, "%s: conv and its epilogue are one kernel", what);
    cr_assert_eq(p.k[0].n_ops, c->epilogue ? 3 : 1);
    const char *entry = emit_and_compile(&g, &p.k[0], what);
    cr_expect_str_eq(entry, want_entry, "%s", what);
    ir_partition_free(&p);
    ir_graph_free(&g);
}

#define FWD IR_OP_CONV_FWD
#define DGRAD IR_OP_CONV_DGRAD
#define WGRAD IR_OP_CONV_WGRAD
#define BF16 HIPDNN_DATA_BFLOAT16
#define F16 HIPDNN_DATA_HALF
#define F32 HIPDNN_DATA_FLOAT
#define IGEMM "hd_conv_igemm_kernel"
#define DIRECT "hd_conv_kernel"

Test(codegen_conv, forward_channels_last_takes_the_tensor_cores)
{
    conv_case c = {FWD, 2, true, false, BF16, 2, 1, 16, 24, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false, 0};
    check_case(&c, IGEMM, "fwd 2-D NHWC bf16 3x3 + bias + relu");
    /* 3-D, fp16, 2 groups of 8 channels, stride, dilation, asymmetric padding, convolution mode */
    conv_case d = {FWD, 3, true, true, F16, 1, 2, 8, 5, {5, 6, 7}, {2, 3, 2}, {0, 1, 2}, {1, 0, 1}, {2, 1, 2}, {1, 2, 1}, true, false, 0};
    check_case(&d, IGEMM, "fwd 3-D NDHWC fp16 groups 2");
    /* 12 channels: packed pixels (stride 12) are not 16-byte aligned -> direct; padded to 16,
     * the tensor cores take it with a partial last chunk */
    conv_case e = {FWD, 2, true, false, BF16, 1, 1, 12, 3, {4, 5}, {1, 2}, {0, 0}, {0, 0}, {1, 1}, {1, 1}, false, false, 0};
    check_case(&e, DIRECT, "fwd NHWC bf16 C 12 (pixels not 16-byte aligned)");
    e.pad8 = true;
    check_case(&e, IGEMM, "fwd NHWC bf16 C 12 in pixels of 16");
    /* 2 groups of 12 channels: a group's first channel is not 16-byte aligned -> direct */
    e.groups = 2;
    check_case(&e, DIRECT, "fwd NHWC bf16 2 groups of 12");
}

Test(codegen_conv, every_other_case_takes_the_direct_template)
{
    conv_case cases[] = {
        {FWD, 2, false, false, BF16, 2, 1, 16, 24, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false, 0},
        {FWD, 2, false, true, F32, 1, 3, 2, 2, {11, 6}, {3, 2}, {2, 0}, {1, 1}, {2, 1}, {2, 2}, true, false, 0},
        {FWD, 2, true, false, F32, 1, 1, 16, 16, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false, 0},
        {FWD, 2, true, false, BF16, 1, 4, 2, 2, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false, 0},
        {FWD, 2, true, false, BF16, 1, 8, 1, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false, 0},
        {DGRAD, 2, true, false, BF16, 2, 1, 16, 8, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {2, 2}, {1, 1}, true, false, 0},
        {DGRAD, 3, false, true, F16, 1, 2, 3, 2, {5, 4, 6}, {2, 3, 1}, {1, 0, 0}, {0, 2, 1}, {1, 2, 3}, {2, 1, 1}, false, false, 0},
        {WGRAD, 2, true, false, BF16, 3, 1, 8, 16, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false, 0},
        {WGRAD, 3, false, true, F32, 2, 3, 1, 2, {4, 5, 6}, {2, 2, 3}, {1, 1, 0}, {0, 1, 2}, {2, 1, 1}, {1, 2, 1}, true, false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "direct case %zu", i);
        check_case(&cases[i], DIRECT, what);
    }
}

/* The vector-width knob at 1 (unaligned pointers allowed) keeps forward convs off the 16-byte
 * tensor-core path; sm_75 has no bf16 mma.sync: direct. */
Test(codegen_conv, knob_and_target_select_the_direct_path)
{
    conv_case c = {FWD, 2, true, false, BF16, 2, 1, 16, 24, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false, 0};
    ir_graph g;
    conv_tu_build(&g, &c);
    ir_partition p;
    cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
    const char *archs[] = {"sm_90", "sm_90", "sm_75"};
    const int vec[] = {8, 1, 8};
    const char *want[] = {IGEMM, DIRECT, DIRECT};
    for (int i = 0; i < 3; i++) {
        cg_target t = {.platform = "nvidia", .sm_count = 132, .max_vec = vec[i]};
        snprintf(t.arch, sizeof t.arch, "%s", archs[i]);
        cg_kernel k;
        cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
        cr_expect_str_eq(k.entry, want[i], "%s, vector width %d", archs[i], vec[i]);
        cr_expect_eq(k.align, strcmp(want[i], IGEMM) == 0 ? 16 : 1);
        cg_kernel_free(&k);
    }
    ir_partition_free(&p);
    ir_graph_free(&g);
}

/* An epilogue whose result is larger than the conv output (conv out [1, K, ..] + t [2, K, ..])
 * has no template: NOT_SUPPORTED with a reason naming the tensor. Split into one kernel per op
 * (the unfused engine), both kernels have one. */
Test(codegen_conv, broadcast_epilogue_needs_the_unfused_partition)
{
    conv_case c = {FWD, 2, true, false, BF16, 1, 1, 16, 8, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false, 0};
    ir_graph g;
    conv_tu_build(&g, &c);
    /* the bias becomes a [2, K, P, Q] residual; the epilogue results grow to batch 2 */
    for (int i = 3; i < 6; i++) {
        if (g.t[i].uid == 4 || g.t[i].uid == 5 || g.t[i].uid == 6) {
            memcpy(g.t[i].dims, g.t[2].dims, sizeof g.t[i].dims);
            g.t[i].dims[0] = 2;
            tu_conv_strides(4, g.t[i].dims, true, false, 0, g.t[i].strides);
        }
    }
    cr_assert_eq(ir_graph_seal(&g), HIPDNN_STATUS_SUCCESS);
    ir_partition p;
    cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(p.n, 1);
    char why[256] = "";
    cr_expect(!cg_supports(&g, &p.k[0], why, sizeof why));
    cr_expect_not_null(strstr(why, "epilogue tensor uid"), "%s", why);
    ir_partition_free(&p);
    cr_assert_eq(ir_split(&g, &p), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(p.n, 3);
    for (int k = 0; k < p.n; k++) {
        char what[32];
        snprintf(what, sizeof what, "split kernel %d", k);
        emit_and_compile(&g, &p.k[k], what);
    }
    ir_partition_free(&p);
    ir_graph_free(&g);
}

/* ---- example graphs --------------------------------------------------------------------------- */

static hipdnnBackendDescriptor_t load_graph(const char *file) { return tu_example_graph(handle, file); }

/* The example conv (bf16 NHWC 3x3, C 64) gets the tensor-core path, fused with bias + ReLU. */
Test(codegen_conv, example_conv_bias_relu)
{
    hipdnnBackendDescriptor_t g = load_graph("conv_bias_relu.json");
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    ir_partition p;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(p.n, 1);
    cr_expect_str_eq(emit_and_compile(ir, &p.k[0], "conv_bias_relu"), IGEMM);
    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
}

/* Every kernel of the unfused partition of every example the JIT engines support compiles:
 * one kernel per op. */
Test(codegen_conv, unfused_partitions_of_the_examples_compile)
{
    const char *files[] = {"layernorm.json", "rmsnorm_residual.json", "bn_inference_relu.json",
                           "matmul_bias_gelu.json", "conv_bias_relu.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        hipdnnBackendDescriptor_t g = load_graph(files[i]);
        const ir_graph *ir = fe_graph_of(g->obj)->ir;
        ir_partition p;
        cr_assert_eq(ir_split(ir, &p), HIPDNN_STATUS_SUCCESS);
        cr_expect_eq(p.n, ir->n_ops, "%s: one kernel per op", files[i]);
        for (int k = 0; k < p.n; k++) {
            char what[96];
            snprintf(what, sizeof what, "%s unfused kernel %d", files[i], k);
            emit_and_compile(ir, &p.k[k], what);
        }
        ir_partition_free(&p);
        hipdnnBackendDestroyDescriptor(g);
    }
}
