/* test_cg_channorm.c — codegen of the channel reductions (kernel_templates/channorm.hip):
 * batchnorm training (+ epilogue, running statistics), batchnorm backward and genstats
 * (+ prologue) on random shapes and layouts (NCHW, NHWC, CNHW, padded NHWC; rank 3 to 5).
 *
 * Each case is one fused kernel of several launches with a scratch workspace. It is emitted
 * (deterministically, with cg_scratch_bytes equal to the kernel's scratch), compiled with NVRTC
 * for sm_90 and sm_80 (skipped without NVRTC), and run on the host emulator (emu_run.h: the
 * emitted source after emu_prelude.h, built by the C++ compiler, blocks run as coroutines);
 * every output is compared element by element with the reference interpreter (tu_close_ir.h),
 * and nothing outside the outputs' elements may change. The GPU tests (tests/gpu/test_gpu_bn.c)
 * check the same kernels on the device.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/tu.h"
#include "codegen/cg.h"
#include "emu_run.h"
#include "runtime/rt.h"

TestSuite(channorm);

/* ---- graph building ------------------------------------------------------------------------------ */

enum layout { NCHW, NHWC, CNHW, NHWC_PADDED, N_LAYOUTS };
static const char *layout_name[] = {"NCHW", "NHWC", "CNHW", "NHWC+pad"};

typedef struct gcase {
    emu_case e; /* the graph, positive inputs (variances), the description */
    int rank;
    int64_t dims[IR_MAX_RANK];
    enum layout layout;
} gcase;

/* Strides of dims in `layout` (dim 1 is the channel). */
static void strides_of(int rank, const int64_t *dims, enum layout l, int64_t *s)
{
    int order[IR_MAX_RANK], n = 0; /* outermost first */
    if (l == CNHW)
        order[n++] = 1;
    order[n++] = 0;
    if (l == NCHW)
        order[n++] = 1;
    for (int d = 2; d < rank; d++)
        order[n++] = d;
    if (l == NHWC || l == NHWC_PADDED)
        order[n++] = 1;
    int64_t step = 1;
    for (int i = rank - 1; i >= 0; i--) {
        s[order[i]] = step;
        step *= dims[order[i]] + (i == rank - 1 && l == NHWC_PADDED ? 3 : 0);
    }
}

static int add_x(gcase *c, int64_t uid, hipdnnDataType_t dt, bool is_virtual)
{
    ir_tensor t = {.uid = uid, .dtype = dt, .rank = c->rank, .is_virtual = is_virtual};
    memcpy(t.dims, c->dims, sizeof t.dims);
    strides_of(c->rank, c->dims, c->layout, t.strides);
    return ir_add_tensor(&c->e.g, &t);
}

static int add_chan(gcase *c, int64_t uid, hipdnnDataType_t dt)
{
    ir_tensor t = {.uid = uid, .dtype = dt, .rank = c->rank};
    for (int d = 0; d < c->rank; d++)
        t.dims[d] = d == 1 ? c->dims[1] : 1, t.strides[d] = d == 0 ? c->dims[1] : 1;
    return ir_add_tensor(&c->e.g, &t);
}

/* A float scalar of the given rank: a by-value constant, or a run-time scalar bound at execute. */
static int add_scalar(gcase *c, int64_t uid, float v, int rank, bool runtime)
{
    ir_tensor t = {.uid = uid, .dtype = HIPDNN_DATA_FLOAT, .rank = rank, .by_value = !runtime,
                   .runtime_scalar = runtime};
    for (int d = 0; d < c->rank; d++)
        t.dims[d] = t.strides[d] = 1;
    memcpy(t.value, &v, sizeof v);
    return ir_add_tensor(&c->e.g, &t);
}

static void add_pw(gcase *c, int mode, int a, int b, int out)
{
    ir_op op = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {a, b, -1}, .out = {out}};
    op.a.pw = (ir_pointwise){.mode = mode, .relu_upper = INFINITY, .swish_beta = 1, .elu_alpha = 1,
                             .softplus_beta = 1};
    cr_assert_geq(ir_add_op(&c->e.g, &op), 0);
}

static void random_shape(gcase *c, int64_t max_m)
{
    c->rank = (int)tu_range(3, 5);
    do {
        c->dims[0] = tu_range(1, 4), c->dims[1] = tu_range(1, 40);
        for (int d = 2; d < c->rank; d++)
            c->dims[d] = tu_range(1, c->rank == 3 ? 300 : c->rank == 4 ? 23 : 9);
    } while (c->dims[0] * c->dims[2] * (c->rank > 3 ? c->dims[3] : 1) * (c->rank > 4 ? c->dims[4] : 1) < 2 ||
             c->dims[0] * c->dims[2] * (c->rank > 3 ? c->dims[3] : 1) * (c->rank > 4 ? c->dims[4] : 1) > max_m);
    c->layout = (enum layout)tu_range(0, N_LAYOUTS - 1);
}

static void describe(gcase *c, const char *op, hipdnnDataType_t dt)
{
    char dims[80] = "";
    for (int d = 0; d < c->rank; d++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%lld", d ? "," : "", (long long)c->dims[d]);
    snprintf(c->e.what, sizeof c->e.what, "%s dtype %d [%s] %s", op, (int)dt, dims, layout_name[c->layout]);
}

/* x -> batchnorm training -> y (virtual, fp32) -> epilogue: 0 none (y written), 1 ReLU,
 * 2 + residual (x-shaped, NCHW) then ReLU, 3 GEN_INDEX (refused), with running statistics
 * when `running`. */
static void bn_train_graph(gcase *c, hipdnnDataType_t dt, int epi, bool running, bool runtime_scalars)
{
    ir_graph_init(&c->e.g);
    int x = add_x(c, 1, dt, false), scale = add_chan(c, 2, HIPDNN_DATA_FLOAT), bias = add_chan(c, 3, HIPDNN_DATA_FLOAT);
    int eps = add_scalar(c, 4, 1e-3f, c->rank, runtime_scalars);
    int pm = -1, pv = -1, mom = -1, nm = -1, nv = -1;
    if (running) {
        pm = add_chan(c, 5, HIPDNN_DATA_FLOAT), pv = add_chan(c, 6, HIPDNN_DATA_FLOAT);
        mom = add_scalar(c, 7, 0.125f, 2, runtime_scalars);
        nm = add_chan(c, 8, HIPDNN_DATA_FLOAT), nv = add_chan(c, 9, HIPDNN_DATA_FLOAT);
    }
    int y = add_x(c, 10, epi ? HIPDNN_DATA_FLOAT : dt, epi != 0);
    int mean = add_chan(c, 11, HIPDNN_DATA_FLOAT), inv = add_chan(c, 12, HIPDNN_DATA_FLOAT);
    ir_op bn = {.kind = IR_OP_BN_TRAIN, .n_in = 7, .n_out = 5, .in = {x, scale, bias, eps, pm, pv, mom},
                .out = {y, mean, inv, nm, nv}};
    cr_assert_geq(ir_add_op(&c->e.g, &bn), 0);
    int v = y;
    if (epi == 2) {
        enum layout keep = c->layout;
        c->layout = NCHW;
        int res = add_x(c, 20, HIPDNN_DATA_HALF, false);
        c->layout = keep;
        int sum = add_x(c, 21, HIPDNN_DATA_FLOAT, true);
        add_pw(c, HIPDNN_POINTWISE_ADD, y, res, sum);
        v = sum;
    }
    if (epi == 3) {
        int idx = add_x(c, 21, HIPDNN_DATA_FLOAT, true);
        add_pw(c, HIPDNN_POINTWISE_GEN_INDEX, y, -1, idx);
        v = idx;
    }
    if (epi)
        add_pw(c, HIPDNN_POINTWISE_RELU_FWD, v, -1, add_x(c, 22, dt, false));
    c->e.positive[0] = running ? 6 : 0, c->e.positive[1] = 0;
    cr_assert_eq(ir_graph_seal(&c->e.g), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    char op[64];
    snprintf(op, sizeof op, "bn_training%s%s%s", epi == 1 ? "+relu" : epi == 2 ? "+residual+relu" : "",
             running ? " running" : "", runtime_scalars ? " runtime-scalars" : "");
    describe(c, op, dt);
}

static void bn_bwd_graph(gcase *c, hipdnnDataType_t dt)
{
    ir_graph_init(&c->e.g);
    int dy = add_x(c, 1, dt, false), x = add_x(c, 2, dt, false);
    int scale = add_chan(c, 3, HIPDNN_DATA_FLOAT), mean = add_chan(c, 4, HIPDNN_DATA_FLOAT);
    int inv = add_chan(c, 5, HIPDNN_DATA_FLOAT), dx = add_x(c, 6, dt, false);
    int ds = add_chan(c, 7, HIPDNN_DATA_FLOAT), db = add_chan(c, 8, HIPDNN_DATA_FLOAT);
    ir_op bn = {.kind = IR_OP_BN_BWD, .n_in = 5, .n_out = 3, .in = {dy, x, scale, mean, inv}, .out = {dx, ds, db}};
    cr_assert_geq(ir_add_op(&c->e.g, &bn), 0);
    cr_assert_eq(ir_graph_seal(&c->e.g), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    c->e.positive[0] = 5, c->e.positive[1] = 0;
    describe(c, "bn_backward", dt);
}

/* genstats of x, or of relu(x * scale + bias) (per-channel scale and bias, the ReLU result
 * also written as a graph tensor) when `prologue`. */
static void genstats_graph(gcase *c, hipdnnDataType_t dt, bool prologue)
{
    ir_graph_init(&c->e.g);
    int x = add_x(c, 1, dt, false), in = x;
    if (prologue) {
        int scale = add_chan(c, 2, HIPDNN_DATA_FLOAT), bias = add_chan(c, 3, HIPDNN_DATA_FLOAT);
        int t1 = add_x(c, 4, HIPDNN_DATA_FLOAT, true), t2 = add_x(c, 5, HIPDNN_DATA_FLOAT, true);
        in = add_x(c, 6, dt, false);
        add_pw(c, HIPDNN_POINTWISE_MUL, x, scale, t1);
        add_pw(c, HIPDNN_POINTWISE_ADD, t1, bias, t2);
        add_pw(c, HIPDNN_POINTWISE_RELU_FWD, t2, -1, in);
    }
    int sum = add_chan(c, 7, HIPDNN_DATA_FLOAT), sq = add_chan(c, 8, HIPDNN_DATA_FLOAT);
    ir_op gs = {.kind = IR_OP_GENSTATS, .n_in = 1, .n_out = 2, .in = {in}, .out = {sum, sq}};
    cr_assert_geq(ir_add_op(&c->e.g, &gs), 0);
    cr_assert_eq(ir_graph_seal(&c->e.g), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    c->e.positive[0] = c->e.positive[1] = 0;
    describe(c, prologue ? "scale+bias+relu -> genstats" : "genstats", dt);
}

/* ---- emitting, compiling, emulating ---------------------------------------------------------------- */

static bool have_nvrtc(void)
{
    rt_compiler_info info;
    return rt_compiler_for("sm_90", &info) == HIPDNN_STATUS_SUCCESS; /* NVRTC */
}

/* The one kernel of c's partition, emitted for sm_90 (deterministically); checks the launches
 * and the workspace. */
static void emit_one(gcase *c, ir_partition *p, cg_kernel *out)
{
    c->e.target = emu_target(132);
    emu_emit(&c->e, p, out);
    cr_expect_eq(out->scratch, cg_scratch_bytes(&c->e.g, &p->k[0]), "%s: workspace query agrees", c->e.what);
    cr_expect_gt(out->scratch, 0);
    cr_expect_eq(out->args[out->n_args - 1].kind, CG_ARG_WORKSPACE);
    bool genstats = c->e.g.ops[p->k[0].anchor].kind == IR_OP_GENSTATS;
    cr_expect_eq(out->n_then, genstats ? 1 : 2, "%s: reduce, finalize%s", c->e.what, genstats ? "" : ", apply");
}

static void nvrtc_compile(const gcase *c, const ir_kernel *k)
{
    const char *archs[] = {"sm_90", "sm_80"};
    for (int a = 0; a < 2; a++) {
        cg_target t = {.platform = "nvidia", .sm_count = 132};
        snprintf(t.arch, sizeof t.arch, "%s", archs[a]);
        cg_kernel kn;
        cr_assert_eq(cg_emit(&c->e.g, k, &t, &kn), HIPDNN_STATUS_SUCCESS);
        void *code = NULL;
        size_t len = 0;
        char *log = NULL;
        hipdnnStatus_t st = rt_compile(kn.source, "channorm", t.arch, NULL, 0, &code, &len, &log);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s for %s:\n%s\n---- source ----\n%s", c->e.what, t.arch,
                     log ? log : "", kn.source);
        free(code), free(log);
        cg_kernel_free(&kn);
    }
}

/* Emits c's kernel, compiles it with NVRTC, runs it on the host and compares with the reference. */
static void check_case(gcase *c)
{
    ir_partition p;
    cg_kernel kn;
    emit_one(c, &p, &kn);
    if (have_nvrtc())
        nvrtc_compile(c, &p.k[0]);
    cg_kernel_free(&kn);
    ir_partition_free(&p);
    emu_check(&c->e, NULL); /* emits again, builds, runs, compares; frees the graph */
}

static const hipdnnDataType_t dtypes[] = {HIPDNN_DATA_BFLOAT16, HIPDNN_DATA_HALF, HIPDNN_DATA_FLOAT};

/* ---- cases --------------------------------------------------------------------------------------- */

Test(channorm, bn_training_random_shapes)
{
    emu_seed("channorm bn_training");
    for (int i = 0; i < 6; i++) {
        gcase c = {0};
        random_shape(&c, 3000);
        bn_train_graph(&c, dtypes[i % 3], i % 3, i % 2 == 0, i == 3);
        check_case(&c);
    }
}

Test(channorm, bn_backward_random_shapes)
{
    emu_seed("channorm bn_backward");
    for (int i = 0; i < 4; i++) {
        gcase c = {0};
        random_shape(&c, 3000);
        bn_bwd_graph(&c, dtypes[i % 3]);
        check_case(&c);
    }
}

Test(channorm, genstats_random_shapes)
{
    emu_seed("channorm genstats");
    for (int i = 0; i < 4; i++) {
        gcase c = {0};
        random_shape(&c, 3000);
        genstats_graph(&c, dtypes[i % 3], i % 2 == 1);
        check_case(&c);
    }
}

/* Many positions per channel: several splits per channel (more than the 32 finalize lanes for
 * NHWC with few channels), both block shapes. */
Test(channorm, many_splits)
{
    emu_seed("channorm many_splits");
    int64_t shapes[3][4] = {{2, 3, 150, 141}, {3, 5, 61, 67}, {2, 2, 129, 131}};
    enum layout layouts[3] = {NHWC, NCHW, NHWC_PADDED};
    for (int i = 0; i < 3; i++) {
        gcase c = {.rank = 4, .layout = layouts[i]};
        memcpy(c.dims, shapes[i], sizeof shapes[i]);
        if (i == 0)
            bn_train_graph(&c, HIPDNN_DATA_BFLOAT16, 1, true, false);
        else if (i == 1)
            bn_bwd_graph(&c, HIPDNN_DATA_HALF);
        else
            genstats_graph(&c, HIPDNN_DATA_FLOAT, true);
        check_case(&c);
    }
}

/* Kernels the template refuses say why. */
Test(channorm, unsupported_kernels_say_why)
{
    gcase c = {.rank = 4, .dims = {2, 3, 4, 5}, .layout = NCHW};
    ir_graph_init(&c.e.g);
    int x = add_x(&c, 1, HIPDNN_DATA_FLOAT, false), s = add_chan(&c, 2, HIPDNN_DATA_DOUBLE);
    int sq = add_chan(&c, 3, HIPDNN_DATA_FLOAT);
    ir_op gs = {.kind = IR_OP_GENSTATS, .n_in = 1, .n_out = 2, .in = {x}, .out = {s, sq}};
    cr_assert_geq(ir_add_op(&c.e.g, &gs), 0);
    cr_assert_eq(ir_graph_seal(&c.e.g), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    ir_partition p;
    cr_assert_eq(ir_fuse(&c.e.g, &p), HIPDNN_STATUS_SUCCESS);
    char why[256] = "";
    cr_expect(!cg_supports(&c.e.g, &p.k[0], why, sizeof why));
    cr_expect_not_null(strstr(why, "data type"), "%s", why);
    cr_expect_eq(cg_scratch_bytes(&c.e.g, &p.k[0]), 0);
    ir_partition_free(&p);
    ir_graph_free(&c.e.g);

    /* an epilogue that generates indices */
    bn_train_graph(&c, HIPDNN_DATA_FLOAT, 3, false, false);
    cr_assert_eq(ir_fuse(&c.e.g, &p), HIPDNN_STATUS_SUCCESS);
    for (int k = 0; k < p.n; k++)
        if (p.k[k].anchor >= 0 && c.e.g.ops[p.k[k].anchor].kind == IR_OP_BN_TRAIN) {
            cr_expect(!cg_supports(&c.e.g, &p.k[k], why, sizeof why));
            cr_expect_not_null(strstr(why, "GEN_INDEX"), "%s", why);
        }
    ir_partition_free(&p);
    ir_graph_free(&c.e.g);
}
