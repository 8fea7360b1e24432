/* test_cg_channorm.c — codegen of the channel reductions (kernel_templates/channorm.hip):
 * batchnorm training (+ epilogue, running statistics), batchnorm backward and genstats
 * (+ prologue) on random shapes and layouts (NCHW, NHWC, CNHW, padded NHWC; rank 3 to 5).
 *
 * Each case is one fused kernel of several launches with a scratch workspace. It is emitted
 * (deterministically, with cg_scratch_bytes equal to the kernel's scratch), compiled with NVRTC
 * for sm_90 and sm_80 (skipped without NVRTC), and run on the host: the emitted source, with
 * emu_prelude.h in place of the NVIDIA prelude, is built by the C++ compiler into a shared
 * object whose blocks run as coroutines; every output is compared with the reference
 * interpreter (relative L2 error within the output type's tolerance, no unwritten element).
 * The GPU tests (tests/gpu/test_gpu_bn.c) check the same kernels on the device.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/tu.h"
#include "codegen/cg.h"
#include "runtime/rt.h"

TestSuite(channorm);

/* ---- graph building ------------------------------------------------------------------------------ */

enum layout { NCHW, NHWC, CNHW, NHWC_PADDED, N_LAYOUTS };
static const char *layout_name[] = {"NCHW", "NHWC", "CNHW", "NHWC+pad"};

typedef struct gcase {
    ir_graph g;
    int rank;
    int64_t dims[IR_MAX_RANK];
    enum layout layout;
    int64_t positive[2]; /* uids of inputs that must be positive (variances), 0 = none */
    char what[160];
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
    return ir_add_tensor(&c->g, &t);
}

static int add_chan(gcase *c, int64_t uid, hipdnnDataType_t dt)
{
    ir_tensor t = {.uid = uid, .dtype = dt, .rank = c->rank};
    for (int d = 0; d < c->rank; d++)
        t.dims[d] = d == 1 ? c->dims[1] : 1, t.strides[d] = d == 0 ? c->dims[1] : 1;
    return ir_add_tensor(&c->g, &t);
}

/* A float scalar of the given rank: a by-value constant, or a run-time scalar bound at execute. */
static int add_scalar(gcase *c, int64_t uid, float v, int rank, bool runtime)
{
    ir_tensor t = {.uid = uid, .dtype = HIPDNN_DATA_FLOAT, .rank = rank, .by_value = !runtime,
                   .runtime_scalar = runtime};
    for (int d = 0; d < c->rank; d++)
        t.dims[d] = t.strides[d] = 1;
    memcpy(t.value, &v, sizeof v);
    return ir_add_tensor(&c->g, &t);
}

static void add_pw(gcase *c, int mode, int a, int b, int out)
{
    ir_op op = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {a, b, -1}, .out = {out}};
    op.a.pw = (ir_pointwise){.mode = mode, .relu_upper = INFINITY, .swish_beta = 1, .elu_alpha = 1,
                             .softplus_beta = 1};
    cr_assert_geq(ir_add_op(&c->g, &op), 0);
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
    snprintf(c->what, sizeof c->what, "%s dtype %d [%s] %s", op, (int)dt, dims, layout_name[c->layout]);
}

/* x -> batchnorm training -> y (virtual, fp32) -> epilogue: 0 none (y written), 1 ReLU,
 * 2 + residual (x-shaped, NCHW) then ReLU, 3 GEN_INDEX (refused), with running statistics
 * when `running`. */
static void bn_train_graph(gcase *c, hipdnnDataType_t dt, int epi, bool running, bool runtime_scalars)
{
    ir_graph_init(&c->g);
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
    cr_assert_geq(ir_add_op(&c->g, &bn), 0);
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
    c->positive[0] = running ? 6 : 0, c->positive[1] = 0;
    cr_assert_eq(ir_graph_seal(&c->g), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    char op[64];
    snprintf(op, sizeof op, "bn_training%s%s%s", epi == 1 ? "+relu" : epi == 2 ? "+residual+relu" : "",
             running ? " running" : "", runtime_scalars ? " runtime-scalars" : "");
    describe(c, op, dt);
}

static void bn_bwd_graph(gcase *c, hipdnnDataType_t dt)
{
    ir_graph_init(&c->g);
    int dy = add_x(c, 1, dt, false), x = add_x(c, 2, dt, false);
    int scale = add_chan(c, 3, HIPDNN_DATA_FLOAT), mean = add_chan(c, 4, HIPDNN_DATA_FLOAT);
    int inv = add_chan(c, 5, HIPDNN_DATA_FLOAT), dx = add_x(c, 6, dt, false);
    int ds = add_chan(c, 7, HIPDNN_DATA_FLOAT), db = add_chan(c, 8, HIPDNN_DATA_FLOAT);
    ir_op bn = {.kind = IR_OP_BN_BWD, .n_in = 5, .n_out = 3, .in = {dy, x, scale, mean, inv}, .out = {dx, ds, db}};
    cr_assert_geq(ir_add_op(&c->g, &bn), 0);
    cr_assert_eq(ir_graph_seal(&c->g), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    c->positive[0] = 5, c->positive[1] = 0;
    describe(c, "bn_backward", dt);
}

/* genstats of x, or of relu(x * scale + bias) (per-channel scale and bias, the ReLU result
 * also written as a graph tensor) when `prologue`. */
static void genstats_graph(gcase *c, hipdnnDataType_t dt, bool prologue)
{
    ir_graph_init(&c->g);
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
    cr_assert_geq(ir_add_op(&c->g, &gs), 0);
    cr_assert_eq(ir_graph_seal(&c->g), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    c->positive[0] = c->positive[1] = 0;
    describe(c, prologue ? "scale+bias+relu -> genstats" : "genstats", dt);
}

/* ---- host buffers --------------------------------------------------------------------------------- */

static size_t dtype_bytes(hipdnnDataType_t t)
{
    return t == HIPDNN_DATA_FLOAT ? 4 : t == HIPDNN_DATA_HALF || t == HIPDNN_DATA_BFLOAT16 ? 2 : 1;
}

static size_t extent(const ir_tensor *t)
{
    int64_t last = 0;
    for (int d = 0; d < t->rank; d++)
        last += (t->dims[d] - 1) * t->strides[d];
    return (size_t)(last + 1) * dtype_bytes(t->dtype);
}

static ir_buf view_of(const ir_tensor *t, void *data)
{
    ir_buf b = {.data = data, .dtype = t->dtype, .rank = t->rank};
    memcpy(b.dims, t->dims, sizeof b.dims);
    memcpy(b.strides, t->strides, sizeof b.strides);
    return b;
}

/* Positive where the case says so (inverse / running variances), else uniform in [-2, 2]. */
static void fill(const gcase *c, int ti, void *data)
{
    const ir_tensor *t = &c->g.t[ti];
    ir_buf b = view_of(t, data);
    bool positive = t->uid == c->positive[0] || t->uid == c->positive[1];
    int64_t idx[IR_MAX_RANK] = {0};
    do
        ir_store(&b, idx, positive ? tu_float(0.5f, 2.0f) : tu_float(-2.0f, 2.0f));
    while (ir_next_index(&b, idx));
}

typedef struct bufs {
    void *ref[64], *got[64];
} bufs;

/* Inputs random (the same in both sets), everything else poisoned with 0xFF (NaN). */
static void make_bufs(const gcase *c, bufs *b)
{
    const ir_graph *g = &c->g;
    cr_assert_leq(g->n_t, 64);
    for (int i = 0; i < g->n_t; i++) {
        const ir_tensor *t = &g->t[i];
        size_t n = extent(t);
        b->ref[i] = malloc(n), b->got[i] = malloc(n);
        memset(b->ref[i], 0xff, n);
        if (t->by_value || t->runtime_scalar)
            memcpy(b->ref[i], t->value, 4);
        else if (t->producer < 0)
            fill(c, i, b->ref[i]);
        memcpy(b->got[i], b->ref[i], n);
    }
}

static void free_bufs(const ir_graph *g, bufs *b)
{
    for (int i = 0; i < g->n_t; i++)
        free(b->ref[i]), free(b->got[i]);
}

/* The reference interpreter, op by op, every tensor in its own buffer. */
static void run_reference(const ir_graph *g, bufs *b)
{
    for (int k = 0; k < g->n_ops; k++) {
        const ir_op *op = &g->ops[k];
        ir_buf in[IR_MAX_SLOTS], out[IR_MAX_SLOTS];
        const ir_buf *inp[IR_MAX_SLOTS];
        ir_buf *outp[IR_MAX_SLOTS];
        for (int s = 0; s < op->n_in; s++) {
            if (op->in[s] >= 0)
                in[s] = view_of(&g->t[op->in[s]], b->ref[op->in[s]]);
            inp[s] = op->in[s] >= 0 ? &in[s] : NULL;
        }
        for (int s = 0; s < op->n_out; s++) {
            if (op->out[s] >= 0)
                out[s] = view_of(&g->t[op->out[s]], b->ref[op->out[s]]);
            outp[s] = op->out[s] >= 0 ? &out[s] : NULL;
        }
        ir_ref_ctx ctx = {inp, outp, op->n_in, op->n_out};
        cr_assert_eq(ir_ref_run(op->kind, &op->a, &ctx), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    }
}

static double tolerance(hipdnnDataType_t t)
{
    return t == HIPDNN_DATA_FLOAT ? 2e-5 : t == HIPDNN_DATA_HALF ? 2e-3 : 1.2e-2;
}

/* Every output the kernel writes matches the reference. */
static void compare(const gcase *c, const ir_kernel *k, bufs *b)
{
    for (int w = 0; w < k->n_writes; w++) {
        int ti = k->writes[w];
        const ir_tensor *t = &c->g.t[ti];
        ir_buf got = view_of(t, b->got[ti]), want = view_of(t, b->ref[ti]);
        int64_t idx[IR_MAX_RANK] = {0};
        double num = 0, den = 0;
        bool nan = false;
        do {
            double x = ir_load(&got, idx), y = ir_load(&want, idx);
            nan |= isnan(x) && !isnan(y);
            num += (x - y) * (x - y), den += y * y;
        } while (ir_next_index(&got, idx));
        double rel = sqrt(num / (den > 0 ? den : 1));
        cr_expect(!nan, "%s: output uid %lld has unwritten (NaN) elements", c->what, (long long)t->uid);
        cr_expect_leq(rel, tolerance(t->dtype), "%s: output uid %lld rel err %.3g", c->what,
                      (long long)t->uid, rel);
    }
}

/* ---- emitting, compiling, emulating ---------------------------------------------------------------- */

static bool have_nvrtc(void)
{
    rt_compiler_info info;
    return rt_compiler_for("sm_90", &info) == HIPDNN_STATUS_SUCCESS; /* NVRTC */
}

/* The one kernel of c's partition, emitted for sm_90; checks determinism and the launches. */
static void emit_one(const gcase *c, ir_partition *p, cg_kernel *out)
{
    cr_assert_eq(ir_fuse(&c->g, p), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(p->n, 1, "%s: fused into %d kernels", c->what, p->n);
    char why[256] = "";
    cr_assert(cg_supports(&c->g, &p->k[0], why, sizeof why), "%s: %s", c->what, why);
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
    cg_kernel again;
    cr_assert_eq(cg_emit(&c->g, &p->k[0], &t, out), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    cr_assert_eq(cg_emit(&c->g, &p->k[0], &t, &again), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(out->source, again.source, "%s: emission is deterministic", c->what);
    cg_kernel_free(&again);
    cr_expect_eq(out->scratch, cg_scratch_bytes(&c->g, &p->k[0]), "%s: workspace query agrees", c->what);
    cr_expect_gt(out->scratch, 0);
    cr_expect_eq(out->args[out->n_args - 1].kind, CG_ARG_WORKSPACE);
    bool genstats = c->g.ops[p->k[0].anchor].kind == IR_OP_GENSTATS;
    cr_expect_eq(out->n_then, genstats ? 1 : 2, "%s: reduce, finalize%s", c->what, genstats ? "" : ", apply");
}

static void nvrtc_compile(const gcase *c, const ir_kernel *k)
{
    const char *archs[] = {"sm_90", "sm_80"};
    for (int a = 0; a < 2; a++) {
        cg_target t = {.platform = "nvidia", .sm_count = 132};
        snprintf(t.arch, sizeof t.arch, "%s", archs[a]);
        cg_kernel kn;
        cr_assert_eq(cg_emit(&c->g, k, &t, &kn), HIPDNN_STATUS_SUCCESS);
        void *code = NULL;
        size_t len = 0;
        char *log = NULL;
        hipdnnStatus_t st = rt_compile(kn.source, "channorm", t.arch, NULL, 0, &code, &len, &log);
        cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s for %s:\n%s\n---- source ----\n%s", c->what, t.arch,
                     log ? log : "", kn.source);
        free(code), free(log);
        cg_kernel_free(&kn);
    }
}

typedef int (*emu_launch_fn)(void (*)(void **), void **, const unsigned *, const unsigned *);

/* Builds the host twin of kernel kn in dir; returns the dlopen handle. */
static void *build_host(const cg_kernel *kn, const char *dir)
{
    const char *body = strstr(kn->source, "#line 1 \"hd_common.h\"");
    cr_assert_not_null(body);
    char src[512], lib[512], cmd[2048];
    snprintf(src, sizeof src, "%s/k.cpp", dir);
    snprintf(lib, sizeof lib, "%s/k.so", dir);
    FILE *f = fopen(src, "w");
    cr_assert_not_null(f);
    fprintf(f, "#include \"emu_prelude.h\"\n%s\n", body);
    for (int l = 0; l <= kn->n_then; l++) {
        const char *entry = l == 0 ? kn->entry : kn->then[l - 1].entry;
        fprintf(f, "extern \"C\" void emu_%s(void **a)\n{\n    %s(", entry, entry);
        for (int i = 0; i < kn->n_args; i++)
            fprintf(f, "%s*(%s *)a[%d]", i ? ", " : "", kn->args[i].kind == CG_ARG_SCALAR ? "float" : "void *", i);
        fprintf(f, ");\n}\n");
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -std=c++17 -O1 -w -shared -fPIC -I%s/tests/unit/codegen -o %s %s", HIPDNN_CXX,
             HIPDNN_SOURCE_DIR, lib, src);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(h, "%s", dlerror());
    return h;
}

/* Runs every launch of kn on the host over the buffers in `got`. */
static void run_host(const gcase *c, const cg_kernel *kn, void *h, bufs *b)
{
    void *ws = malloc((size_t)kn->scratch);
    memset(ws, 0xff, (size_t)kn->scratch);
    void *ptrs[CG_MAX_ARGS], *args[CG_MAX_ARGS];
    float scalars[CG_MAX_ARGS];
    for (int i = 0; i < kn->n_args; i++) {
        int ti = kn->args[i].tensor;
        if (kn->args[i].kind == CG_ARG_SCALAR)
            memcpy(&scalars[i], b->got[ti], 4), args[i] = &scalars[i];
        else
            ptrs[i] = kn->args[i].kind == CG_ARG_WORKSPACE ? ws : b->got[ti], args[i] = &ptrs[i];
    }
    emu_launch_fn launch = (emu_launch_fn)dlsym(h, "emu_launch");
    cr_assert_not_null(launch);
    for (int l = 0; l <= kn->n_then; l++) {
        const char *entry = l == 0 ? kn->entry : kn->then[l - 1].entry;
        const unsigned *grid = l == 0 ? kn->grid : kn->then[l - 1].grid;
        const unsigned *block = l == 0 ? kn->block : kn->then[l - 1].block;
        char name[64];
        snprintf(name, sizeof name, "emu_%s", entry);
        void (*fn)(void **) = (void (*)(void **))dlsym(h, name);
        cr_assert_not_null(fn, "%s", name);
        cr_assert_eq(launch(fn, args, grid, block), 0, "%s: %s: threads disagree on a barrier", c->what, entry);
    }
    free(ws);
}

/* Emits c's kernel, compiles it with NVRTC, runs it on the host and compares with the reference. */
static void check_case(gcase *c)
{
    ir_partition p;
    cg_kernel kn;
    emit_one(c, &p, &kn);
    if (have_nvrtc())
        nvrtc_compile(c, &p.k[0]);
    char dir[] = "/tmp/hipdnn-emu-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    void *h = build_host(&kn, dir);
    bufs b;
    make_bufs(c, &b);
    run_reference(&c->g, &b);
    run_host(c, &kn, h, &b);
    compare(c, &p.k[0], &b);
    cr_log_info("%s: ok (%u x %u blocks, %d launches)", c->what, kn.grid[0], kn.grid[1], kn.n_then + 1);
    free_bufs(&c->g, &b);
    dlclose(h);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_expect_eq(system(cmd), 0);
    cg_kernel_free(&kn);
    ir_partition_free(&p);
    ir_graph_free(&c->g);
}

static const hipdnnDataType_t dtypes[] = {HIPDNN_DATA_BFLOAT16, HIPDNN_DATA_HALF, HIPDNN_DATA_FLOAT};

/* ---- cases --------------------------------------------------------------------------------------- */

Test(channorm, bn_training_random_shapes)
{
    tu_seed("channorm bn_training");
    for (int i = 0; i < 6; i++) {
        gcase c;
        random_shape(&c, 3000);
        bn_train_graph(&c, dtypes[i % 3], i % 3, i % 2 == 0, i == 3);
        check_case(&c);
    }
}

Test(channorm, bn_backward_random_shapes)
{
    tu_seed("channorm bn_backward");
    for (int i = 0; i < 4; i++) {
        gcase c;
        random_shape(&c, 3000);
        bn_bwd_graph(&c, dtypes[i % 3]);
        check_case(&c);
    }
}

Test(channorm, genstats_random_shapes)
{
    tu_seed("channorm genstats");
    for (int i = 0; i < 4; i++) {
        gcase c;
        random_shape(&c, 3000);
        genstats_graph(&c, dtypes[i % 3], i % 2 == 1);
        check_case(&c);
    }
}

/* Many positions per channel: several splits per channel (more than the 32 finalize lanes for
 * NHWC with few channels), both block shapes. */
Test(channorm, many_splits)
{
    tu_seed("channorm many_splits");
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
    ir_graph_init(&c.g);
    int x = add_x(&c, 1, HIPDNN_DATA_FLOAT, false), s = add_chan(&c, 2, HIPDNN_DATA_DOUBLE);
    int sq = add_chan(&c, 3, HIPDNN_DATA_FLOAT);
    ir_op gs = {.kind = IR_OP_GENSTATS, .n_in = 1, .n_out = 2, .in = {x}, .out = {s, sq}};
    cr_assert_geq(ir_add_op(&c.g, &gs), 0);
    cr_assert_eq(ir_graph_seal(&c.g), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    ir_partition p;
    cr_assert_eq(ir_fuse(&c.g, &p), HIPDNN_STATUS_SUCCESS);
    char why[256] = "";
    cr_expect(!cg_supports(&c.g, &p.k[0], why, sizeof why));
    cr_expect_not_null(strstr(why, "data type"), "%s", why);
    cr_expect_eq(cg_scratch_bytes(&c.g, &p.k[0]), 0);
    ir_partition_free(&p);
    ir_graph_free(&c.g);

    /* an epilogue that generates indices */
    bn_train_graph(&c, HIPDNN_DATA_FLOAT, 3, false, false);
    cr_assert_eq(ir_fuse(&c.g, &p), HIPDNN_STATUS_SUCCESS);
    for (int k = 0; k < p.n; k++)
        if (p.k[k].anchor >= 0 && c.g.ops[p.k[k].anchor].kind == IR_OP_BN_TRAIN) {
            cr_expect(!cg_supports(&c.g, &p.k[k], why, sizeof why));
            cr_expect_not_null(strstr(why, "GEN_INDEX"), "%s", why);
        }
    ir_partition_free(&p);
    ir_graph_free(&c.g);
}
