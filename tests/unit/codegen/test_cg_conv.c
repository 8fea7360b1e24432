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
#include "frontend/fe_int.h"
#include "runtime/rt.h"
#include "../../common/tu.h"

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

/* ---- conv graphs built in the IR --------------------------------------------------------------- */

typedef struct conv_case {
    ir_op_kind kind;
    int sp;                  /* 2 or 3 spatial dims */
    bool nhwc, flip;
    hipdnnDataType_t io;     /* x, w, y (and the epilogue's output) */
    int64_t n, groups, cg, kg;
    int64_t in[3], f[3], pre[3], post[3], str[3], dil[3]; /* per spatial dim, sp used */
    bool epilogue;           /* conv -> virtual fp32 -> + bias (per channel) -> ReLU -> io */
    bool pad8;               /* channels-last pixels padded to a multiple of 8 channels */
} conv_case;

/* Packed strides for dims of rank r, channels (dim 1) last when nhwc; with pad8 the channel
 * dim takes a multiple of 8 elements. */
static void strides_of(int r, const int64_t *dims, bool nhwc, bool pad8, int64_t *s)
{
    int order[IR_MAX_RANK], n = 0; /* fastest first */
    if (nhwc)
        order[n++] = 1;
    for (int d = r - 1; d >= 0; d--)
        if (!nhwc || d != 1)
            order[n++] = d;
    int64_t acc = 1;
    for (int i = 0; i < r; i++)
        s[order[i]] = acc, acc *= nhwc && pad8 && i == 0 ? (dims[1] + 7) / 8 * 8 : dims[order[i]];
}

static int add(ir_graph *g, int uid, hipdnnDataType_t dt, int r, const int64_t *dims, bool nhwc,
               bool pad8, bool virt)
{
    ir_tensor t = {.uid = uid, .dtype = dt, .rank = r, .is_virtual = virt, .producer = -1};
    memcpy(t.dims, dims, (size_t)r * sizeof *dims);
    strides_of(r, dims, nhwc, pad8, t.strides);
    return ir_add_tensor(g, &t);
}

/* Builds and seals the graph of case c: tensors x, w, y in forward naming. */
static void build(ir_graph *g, const conv_case *c)
{
    ir_graph_init(g);
    int r = c->sp + 2;
    int64_t xd[5] = {c->n, c->groups * c->cg}, wd[5] = {c->groups * c->kg, c->cg}, yd[5] = {c->n, c->groups * c->kg};
    ir_op op = {.kind = c->kind, .compute = HIPDNN_DATA_FLOAT, .n_in = 2, .n_out = 1};
    op.a.conv.spatial = c->sp, op.a.conv.convolution = c->flip;
    for (int d = 0; d < c->sp; d++) {
        xd[2 + d] = c->in[d], wd[2 + d] = c->f[d];
        yd[2 + d] = 1 + (c->in[d] + c->pre[d] + c->post[d] - c->dil[d] * (c->f[d] - 1) - 1) / c->str[d];
        op.a.conv.pre[d] = c->pre[d], op.a.conv.post[d] = c->post[d];
        op.a.conv.stride[d] = c->str[d], op.a.conv.dilation[d] = c->dil[d];
    }
    bool out_x = c->kind == IR_OP_CONV_DGRAD, out_w = c->kind == IR_OP_CONV_WGRAD, out_y = c->kind == IR_OP_CONV_FWD;
    hipdnnDataType_t acc = c->epilogue ? HIPDNN_DATA_FLOAT : c->io;
    int x = add(g, 1, out_x ? acc : c->io, r, xd, c->nhwc, c->pad8, out_x && c->epilogue);
    int w = add(g, 2, out_w ? acc : c->io, r, wd, c->nhwc, c->pad8, out_w && c->epilogue);
    int y = add(g, 3, out_y ? acc : c->io, r, yd, c->nhwc, c->pad8, out_y && c->epilogue);
    if (c->kind == IR_OP_CONV_FWD)
        op.in[0] = x, op.in[1] = w, op.out[0] = y;
    else if (c->kind == IR_OP_CONV_DGRAD)
        op.in[0] = y, op.in[1] = w, op.out[0] = x;
    else
        op.in[0] = x, op.in[1] = y, op.out[0] = w;
    cr_assert_geq(ir_add_op(g, &op), 0);
    if (c->epilogue) {
        int64_t od[5], bd[5] = {1, 1, 1, 1, 1};
        memcpy(od, g->t[op.out[0]].dims, sizeof od);
        int ch = c->kind == IR_OP_CONV_WGRAD ? 0 : 1; /* per K of dw [K, C/G, ..], else per channel */
        bd[ch] = od[ch];
        int b = add(g, 4, HIPDNN_DATA_FLOAT, r, bd, c->nhwc, false, false);
        int v = add(g, 5, HIPDNN_DATA_FLOAT, r, od, c->nhwc, false, true);
        int z = add(g, 6, c->io, r, od, c->nhwc, false, false);
        ir_op badd = {.kind = IR_OP_POINTWISE, .compute = HIPDNN_DATA_FLOAT, .n_in = 3, .n_out = 1,
                      .in = {op.out[0], b, -1}, .out = {v}};
        badd.a.pw.mode = HIPDNN_POINTWISE_ADD;
        ir_op relu = {.kind = IR_OP_POINTWISE, .compute = HIPDNN_DATA_FLOAT, .n_in = 3, .n_out = 1,
                      .in = {v, -1, -1}, .out = {z}};
        relu.a.pw.mode = HIPDNN_POINTWISE_RELU_FWD, relu.a.pw.relu_upper = 1e300;
        cr_assert_geq(ir_add_op(g, &badd), 0);
        cr_assert_geq(ir_add_op(g, &relu), 0);
    }
    cr_assert_eq(ir_graph_seal(g), HIPDNN_STATUS_SUCCESS);
}

/* Fuses case c (one kernel), checks it compiles and which template it gets. */
static void check_case(const conv_case *c, const char *want_entry, const char *what)
{
    ir_graph g;
    build(&g, c);
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
    conv_case c = {FWD, 2, true, false, BF16, 2, 1, 16, 24, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false};
    check_case(&c, IGEMM, "fwd 2-D NHWC bf16 3x3 + bias + relu");
    /* 3-D, fp16, 2 groups of 8 channels, stride, dilation, asymmetric padding, convolution mode */
    conv_case d = {FWD, 3, true, true, F16, 1, 2, 8, 5, {5, 6, 7}, {2, 3, 2}, {0, 1, 2}, {1, 0, 1}, {2, 1, 2}, {1, 2, 1}, true, false};
    check_case(&d, IGEMM, "fwd 3-D NDHWC fp16 groups 2");
    /* 12 channels: packed pixels (stride 12) are not 16-byte aligned -> direct; padded to 16,
     * the tensor cores take it with a partial last chunk */
    conv_case e = {FWD, 2, true, false, BF16, 1, 1, 12, 3, {4, 5}, {1, 2}, {0, 0}, {0, 0}, {1, 1}, {1, 1}, false, false};
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
        {FWD, 2, false, false, BF16, 2, 1, 16, 24, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false},
        {FWD, 2, false, true, F32, 1, 3, 2, 2, {11, 6}, {3, 2}, {2, 0}, {1, 1}, {2, 1}, {2, 2}, true, false},
        {FWD, 2, true, false, F32, 1, 1, 16, 16, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false},
        {FWD, 2, true, false, BF16, 1, 4, 2, 2, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false},
        {FWD, 2, true, false, BF16, 1, 8, 1, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false},
        {DGRAD, 2, true, false, BF16, 2, 1, 16, 8, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {2, 2}, {1, 1}, true, false},
        {DGRAD, 3, false, true, F16, 1, 2, 3, 2, {5, 4, 6}, {2, 3, 1}, {1, 0, 0}, {0, 2, 1}, {1, 2, 3}, {2, 1, 1}, false, false},
        {WGRAD, 2, true, false, BF16, 3, 1, 8, 16, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, false, false},
        {WGRAD, 3, false, true, F32, 2, 3, 1, 2, {4, 5, 6}, {2, 2, 3}, {1, 1, 0}, {0, 1, 2}, {2, 1, 1}, {1, 2, 1}, true, false},
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
    conv_case c = {FWD, 2, true, false, BF16, 2, 1, 16, 24, {9, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false};
    ir_graph g;
    build(&g, &c);
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
    conv_case c = {FWD, 2, true, false, BF16, 1, 1, 16, 8, {5, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, true, false};
    ir_graph g;
    build(&g, &c);
    /* the bias becomes a [2, K, P, Q] residual; the epilogue results grow to batch 2 */
    for (int i = 3; i < 6; i++) {
        if (g.t[i].uid == 4 || g.t[i].uid == 5 || g.t[i].uid == 6) {
            memcpy(g.t[i].dims, g.t[2].dims, sizeof g.t[i].dims);
            g.t[i].dims[0] = 2;
            strides_of(4, g.t[i].dims, true, false, g.t[i].strides);
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
