/* test_cg_amd.c — codegen for AMD: every kernel that codegen can emit for AMD is emitted with the
 * AMD prelude, under several engine knobs, and compiles with hipRTC for gfx942 and gfx90a
 * (compile only: no GPU needed). Kernels: every example graph (the .json files of
 * examples/graphs), and graphs built here for what has no example graph: the channel reductions
 * (batchnorm training and backward, genstats), the convolution's data and filter gradients, block
 * quantization (standalone, and as rmsnorm's tail) and the paged cache load.
 * And every template on its own (its default holes) after the AMD prelude, except the ones
 * written for NVIDIA only (listed with the reason: inline PTX for tensor cores).
 *
 * Skipped when hipRTC is absent. A target the installed hipRTC does not know (gfx942 before
 * ROCm 5.7; Debian 12 has HIP 5.2) is left out and named; at least one target must compile.
 * Kernels codegen refuses for AMD (the matmul template is NVIDIA's mma.sync) or has no template
 * for at all are listed in the log, not failed: the test fails when a kernel that codegen emits
 * for AMD does not compile, with hipRTC's log and the source.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "codegen/cg_int.h"
#include "engines/fe_engines.h"
#include "runtime/rt.h"
#include "../../common/tu.h"

static hipdnnHandle_t handle;

static void setup(void) { cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS); }
static void teardown(void) { hipdnnDestroy(handle); }
TestSuite(codegen_amd, .init = setup, .fini = teardown);

static const char *last_error(void)
{
    static char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    base_last_error(msg, sizeof msg, false);
    return msg;
}

static hipdnnBackendDescriptor_t load_graph(const char *file) { return tu_example_graph(handle, file); }

/* The example graphs, sorted (so the log reads the same every run). */
static int graph_files(char names[][64], int max)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/examples/graphs", HIPDNN_SOURCE_DIR);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < max;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len < 64 && strcmp(e->d_name + len - 5, ".json") == 0)
            memcpy(names[n++], e->d_name, len + 1);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    return n;
}

/* Whether the installed hipRTC compiles for arch: NOT_SUPPORTED names a target it does not know;
 * any other failure fails the test. */
static bool target_known(const char *arch)
{
    static const char src[] = "extern \"C\" __global__ void k(float *y) { y[threadIdx.x] = 1.0f; }\n";
    void *code = NULL;
    size_t len = 0;
    hipdnnStatus_t st = rt_compile(src, "probe.hip", arch, NULL, 0, &code, &len, NULL);
    free(code);
    if (st == HIPDNN_STATUS_NOT_SUPPORTED) {
        cr_log_info("hipRTC does not compile for %s: %s", arch, last_error());
        return false;
    }
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "probe for %s: %s", arch, last_error());
    return true;
}

/* An ELF code object for AMD GPUs: magic, 64-bit class, e_machine EM_AMDGPU (224). */
static bool is_hsaco(const void *code, size_t len)
{
    const unsigned char *b = code;
    return len > 64 && memcmp(b, "\x7f" "ELF", 4) == 0 && b[4] == 2 && (b[18] | b[19] << 8) == 224;
}

typedef struct tally {
    int compiled, failed, refused;
} tally;

/* Knob variants that change the emitted code: widest vectors and 4 loads per thread (the
 * defaults), 1-wide accesses, 8 loads per thread (fewer threads, down to a 32-thread block,
 * half of a 64-lane wavefront) with the pivot-shifted statistics, 1 load per thread (the most
 * threads), the row-prefetching kernel. */
static const struct {
    int max_vec, loads, prefetch, shifted;
} variants[] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 8, 0, 1}, {0, 1, 0, 0}, {0, 4, 1, 0}};
enum { N_VARIANTS = sizeof variants / sizeof variants[0] };

static void compile_kernel(const ir_graph *ir, const ir_kernel *k, const char *what,
                           const char *const *archs, int n_archs, tally *t)
{
    for (int v = 0; v < N_VARIANTS; v++) {
        cg_target tg = {.platform = "amd", .sm_count = 304, .max_vec = variants[v].max_vec,
                        .loads_per_thread = variants[v].loads, .row_prefetch = variants[v].prefetch,
                        .shifted_stats = variants[v].shifted};
        snprintf(tg.arch, sizeof tg.arch, "%s", archs[0]);
        cg_kernel out;
        hipdnnStatus_t st = cg_emit(ir, k, &tg, &out);
        if (st == HIPDNN_STATUS_NOT_SUPPORTED) {
            if (v == 0)
                cr_log_info("%s: no AMD kernel: %s", what, last_error());
            t->refused += v == 0;
            continue;
        }
        cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "%s: %s", what, last_error());
        cr_expect_not_null(strstr(out.source, "#line 1 \"prelude_amd.h\""), "%s: AMD prelude", what);
        for (int a = 0; a < n_archs; a++) {
            void *code = NULL;
            size_t len = 0;
            char *log = NULL;
            st = rt_compile(out.source, what, archs[a], NULL, 0, &code, &len, &log);
            cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s (knob variant %d) for %s:\n%s\n---- source ----\n%s",
                         what, v, archs[a], log ? log : last_error(), out.source);
            cr_expect(st != HIPDNN_STATUS_SUCCESS || is_hsaco(code, len), "%s: an AMD code object", what);
            t->compiled += st == HIPDNN_STATUS_SUCCESS;
            t->failed += st != HIPDNN_STATUS_SUCCESS;
            free(code), free(log);
        }
        cg_kernel_free(&out);
    }
}

/* The targets the installed hipRTC compiles for (at least one), else the test is skipped. */
static int amd_targets(const char **archs, rt_compiler_info *ci)
{
    if (rt_compiler_for("gfx90a", ci) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no hipRTC on this machine: %s", last_error());
    const char *candidates[] = {"gfx942", "gfx90a"};
    int n = 0;
    for (int i = 0; i < 2; i++)
        if (target_known(candidates[i]))
            archs[n++] = candidates[i];
    if (n == 0)
        cr_skip_test("hipRTC %d.%d compiles for neither gfx942 nor gfx90a", ci->major, ci->minor);
    return n;
}

static void compile_graph(const ir_graph *ir, const char *name, const char *const *archs,
                          int n_archs, tally *t)
{
    ir_partition p;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS, "%s: %s", name, last_error());
    for (int k = 0; k < p.n; k++) {
        char what[96];
        snprintf(what, sizeof what, "%s kernel %d", name, k);
        compile_kernel(ir, &p.k[k], what, archs, n_archs, t);
    }
    ir_partition_free(&p);
}

static void report(const rt_compiler_info *ci, const char *const *archs, int n_archs,
                   const tally *t)
{
    cr_log_info("hipRTC (HIP %d.%d) for %s%s%s: %d compiled, %d failed; %d kernels without an AMD "
                "template", ci->major, ci->minor, archs[0], n_archs > 1 ? " and " : "",
                n_archs > 1 ? archs[1] : "", t->compiled, t->failed, t->refused);
    cr_expect_eq(t->failed, 0);
}

Test(codegen_amd, example_graphs_compile_for_amd, .timeout = 600)
{
    rt_compiler_info ci;
    const char *archs[2];
    int n_archs = amd_targets(archs, &ci);
    char files[32][64];
    int n_files = graph_files(files, 32);
    cr_assert_gt(n_files, 0);
    tally t = {0};
    for (int f = 0; f < n_files; f++) {
        hipdnnBackendDescriptor_t g = load_graph(files[f]);
        compile_graph(fe_graph_of(g->obj)->ir, files[f], archs, n_archs, &t);
        hipdnnBackendDestroyDescriptor(g);
    }
    report(&ci, archs, n_archs, &t);
    /* pointwise (bn_inference_relu) and the row kernels (layernorm, rmsnorm_residual) at least */
    cr_expect_geq(t.compiled, 3 * N_VARIANTS * n_archs, "%d compiled", t.compiled);
}

/* ---- graphs built here: channel reductions (channorm.hip), conv gradients (conv.hip) --------- */

/* x-shaped [2, 5, 7, 3] tensor: NCHW packed, or NHWC (channel innermost). */
static int add_x(ir_graph *g, int64_t uid, hipdnnDataType_t dt, bool nhwc, bool is_virtual)
{
    ir_tensor t = {.uid = uid, .dtype = dt, .rank = 4, .dims = {2, 5, 7, 3}, .is_virtual = is_virtual};
    const int64_t nchw[4] = {105, 21, 3, 1}, nhwc_s[4] = {105, 1, 15, 5};
    for (int d = 0; d < 4; d++)
        t.strides[d] = nhwc ? nhwc_s[d] : nchw[d];
    return ir_add_tensor(g, &t);
}

static int add_chan(ir_graph *g, int64_t uid)
{
    ir_tensor t = {.uid = uid, .dtype = HIPDNN_DATA_FLOAT, .rank = 4, .dims = {1, 5, 1, 1},
                   .strides = {5, 1, 1, 1}};
    return ir_add_tensor(g, &t);
}

static int add_const(ir_graph *g, int64_t uid, float v)
{
    ir_tensor t = {.uid = uid, .dtype = HIPDNN_DATA_FLOAT, .rank = 4, .dims = {1, 1, 1, 1},
                   .strides = {1, 1, 1, 1}, .by_value = true};
    memcpy(t.value, &v, sizeof v);
    return ir_add_tensor(g, &t);
}

/* bf16 NCHW x -> batchnorm training (running statistics) -> ReLU -> y. */
static void bn_training(ir_graph *g)
{
    int x = add_x(g, 1, HIPDNN_DATA_BFLOAT16, false, false), scale = add_chan(g, 2), bias = add_chan(g, 3);
    int eps = add_const(g, 4, 1e-3f), pm = add_chan(g, 5), pv = add_chan(g, 6), mom = add_const(g, 7, 0.1f);
    int nm = add_chan(g, 8), nv = add_chan(g, 9), mean = add_chan(g, 11), inv = add_chan(g, 12);
    int v = add_x(g, 10, HIPDNN_DATA_FLOAT, false, true), y = add_x(g, 13, HIPDNN_DATA_BFLOAT16, false, false);
    ir_op bn = {.kind = IR_OP_BN_TRAIN, .n_in = 7, .n_out = 5, .in = {x, scale, bias, eps, pm, pv, mom},
                .out = {v, mean, inv, nm, nv}};
    ir_op relu = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {v, -1, -1}, .out = {y}};
    relu.a.pw.mode = HIPDNN_POINTWISE_RELU_FWD, relu.a.pw.relu_upper = 1e30;
    cr_assert_geq(ir_add_op(g, &bn), 0);
    cr_assert_geq(ir_add_op(g, &relu), 0);
}

/* fp16 NHWC batchnorm backward. */
static void bn_backward(ir_graph *g)
{
    int dy = add_x(g, 1, HIPDNN_DATA_HALF, true, false), x = add_x(g, 2, HIPDNN_DATA_HALF, true, false);
    int scale = add_chan(g, 3), mean = add_chan(g, 4), inv = add_chan(g, 5);
    int dx = add_x(g, 6, HIPDNN_DATA_HALF, true, false), ds = add_chan(g, 7), db = add_chan(g, 8);
    ir_op bn = {.kind = IR_OP_BN_BWD, .n_in = 5, .n_out = 3, .in = {dy, x, scale, mean, inv},
                .out = {dx, ds, db}};
    cr_assert_geq(ir_add_op(g, &bn), 0);
}

/* fp32 NCHW genstats. */
static void genstats(ir_graph *g)
{
    int x = add_x(g, 1, HIPDNN_DATA_FLOAT, false, false), sum = add_chan(g, 2), sq = add_chan(g, 3);
    ir_op gs = {.kind = IR_OP_GENSTATS, .n_in = 1, .n_out = 2, .in = {x}, .out = {sum, sq}};
    cr_assert_geq(ir_add_op(g, &gs), 0);
}

/* fp16 NCHW 2-D convolution gradient, 3x3 filter, padding 1, stride 2: dx from dy and w
 * (dgrad), or dw from x and dy (wgrad); fp32 accumulation. */
static void conv_grad(ir_graph *g, ir_op_kind kind)
{
    const int64_t xd[4] = {2, 6, 9, 9}, wd[4] = {4, 6, 3, 3}, yd[4] = {2, 4, 5, 5};
    int t[3];
    const int64_t *dims[3] = {xd, wd, yd};
    for (int i = 0; i < 3; i++) {
        ir_tensor v = {.uid = i + 1, .dtype = HIPDNN_DATA_HALF, .rank = 4, .producer = -1};
        memcpy(v.dims, dims[i], sizeof xd);
        v.strides[3] = 1, v.strides[2] = v.dims[3], v.strides[1] = v.dims[2] * v.dims[3];
        v.strides[0] = v.dims[1] * v.strides[1];
        t[i] = ir_add_tensor(g, &v);
    }
    ir_op op = {.kind = kind, .compute = HIPDNN_DATA_FLOAT, .n_in = 2, .n_out = 1};
    op.a.conv.spatial = 2;
    for (int d = 0; d < 2; d++)
        op.a.conv.pre[d] = op.a.conv.post[d] = 1, op.a.conv.stride[d] = 2, op.a.conv.dilation[d] = 1;
    if (kind == IR_OP_CONV_DGRAD)
        op.in[0] = t[2], op.in[1] = t[1], op.out[0] = t[0];
    else
        op.in[0] = t[0], op.in[1] = t[2], op.out[0] = t[1];
    cr_assert_geq(ir_add_op(g, &op), 0);
}

static void conv_dgrad(ir_graph *g) { conv_grad(g, IR_OP_CONV_DGRAD); }
static void conv_wgrad(ir_graph *g) { conv_grad(g, IR_OP_CONV_WGRAD); }

/* A packed tensor. */
static int packed(ir_graph *g, hipdnnDataType_t dt, int rank, const int64_t *dims, bool is_virtual)
{
    ir_tensor t = {.uid = 100 + g->n_t, .dtype = dt, .rank = rank, .is_virtual = is_virtual};
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; d--)
        t.dims[d] = dims[d], t.strides[d] = stride, stride *= dims[d];
    return ir_add_tensor(g, &t);
}

/* x [3, 5, 96] -> block-scaled y along the last dim: block 32 FP8 E4M3 with E8M0 scales, or
 * block 16 FP4 E2M1 with E4M3 scales. */
static void quantize(ir_graph *g, int x, bool fp4)
{
    const int64_t *xd = g->t[x].dims;
    int64_t block = fp4 ? 16 : 32, sd[IR_MAX_RANK];
    memcpy(sd, xd, sizeof sd);
    sd[g->t[x].rank - 1] /= block;
    int y = packed(g, fp4 ? HIPDNN_DATA_FP4_E2M1 : HIPDNN_DATA_FP8_E4M3, g->t[x].rank, xd, false);
    int sc = packed(g, fp4 ? HIPDNN_DATA_FP8_E4M3 : HIPDNN_DATA_FP8_E8M0, g->t[x].rank, sd, false);
    ir_op op = {.kind = IR_OP_BS_QUANTIZE, .n_in = 1, .n_out = 2, .in = {x}, .out = {y, sc}};
    op.a.quant.block[0] = block, op.a.quant.n_block = 1, op.a.quant.axis = g->t[x].rank - 1;
    cr_assert_geq(ir_add_op(g, &op), 0);
}

static void quantize_fp8(ir_graph *g)
{
    const int64_t xd[3] = {3, 5, 96};
    quantize(g, packed(g, HIPDNN_DATA_BFLOAT16, 3, xd, false), false);
}

static void quantize_fp4(ir_graph *g)
{
    const int64_t xd[3] = {3, 5, 96};
    quantize(g, packed(g, HIPDNN_DATA_HALF, 3, xd, false), true);
}

/* bf16 x [8, 256] -> rmsnorm -> virtual fp32 -> FP8 block quantization (the row kernel's tail). */
static void rmsnorm_quantize(ir_graph *g)
{
    const int64_t xd[2] = {8, 256}, wd[2] = {1, 256};
    int x = packed(g, HIPDNN_DATA_BFLOAT16, 2, xd, false), w = packed(g, HIPDNN_DATA_FLOAT, 2, wd, false);
    ir_tensor e = {.uid = 99, .dtype = HIPDNN_DATA_FLOAT, .rank = 2, .dims = {1, 1}, .strides = {1, 1},
                   .by_value = true};
    float eps = 1e-5f;
    memcpy(e.value, &eps, sizeof eps);
    int y = packed(g, HIPDNN_DATA_FLOAT, 2, xd, true);
    ir_op op = {.kind = IR_OP_RMSNORM, .n_in = 4, .n_out = 2, .in = {x, w, ir_add_tensor(g, &e), -1},
                .out = {y, -1}};
    op.a.norm.normalized_dims = 1;
    cr_assert_geq(ir_add_op(g, &op), 0);
    quantize(g, y, false);
}

/* bf16 cache [11 blocks, 2 heads, 4 per page, 64] -> y [3, 2, 19, 64] through the block table. */
static void paged_load(ir_graph *g)
{
    const int64_t cd[4] = {11, 2, 4, 64}, sd[4] = {3, 1, 1, 1}, td[4] = {3, 1, 5, 1}, yd[4] = {3, 2, 19, 64};
    int c = packed(g, HIPDNN_DATA_BFLOAT16, 4, cd, false), s = packed(g, HIPDNN_DATA_INT32, 4, sd, false);
    int t = packed(g, HIPDNN_DATA_INT32, 4, td, false), y = packed(g, HIPDNN_DATA_BFLOAT16, 4, yd, false);
    ir_op op = {.kind = IR_OP_PAGED_CACHE_LOAD, .n_in = 3, .n_out = 1, .in = {c, s, t}, .out = {y}};
    cr_assert_geq(ir_add_op(g, &op), 0);
}

Test(codegen_amd, graphs_built_here_compile_for_amd, .timeout = 600)
{
    rt_compiler_info ci;
    const char *archs[2];
    int n_archs = amd_targets(archs, &ci);
    static const struct {
        const char *name;
        void (*build)(ir_graph *g);
    } graphs[] = {{"bn_training+relu", bn_training}, {"bn_backward", bn_backward},
                  {"genstats", genstats}, {"conv_dgrad", conv_dgrad}, {"conv_wgrad", conv_wgrad},
                  {"quantize_fp8", quantize_fp8}, {"quantize_fp4", quantize_fp4},
                  {"rmsnorm+quantize", rmsnorm_quantize}, {"paged_load", paged_load}};
    enum { N_GRAPHS = sizeof graphs / sizeof graphs[0] };
    tally t = {0};
    for (int i = 0; i < N_GRAPHS; i++) {
        ir_graph g;
        ir_graph_init(&g);
        graphs[i].build(&g);
        cr_assert_eq(ir_graph_seal(&g), HIPDNN_STATUS_SUCCESS, "%s: %s", graphs[i].name, last_error());
        compile_graph(&g, graphs[i].name, archs, n_archs, &t);
        ir_graph_free(&g);
    }
    report(&ci, archs, n_archs, &t);
    cr_expect_eq(t.refused, 0, "every graph here has an AMD template");
    cr_expect_geq(t.compiled, N_GRAPHS * n_archs, "%d compiled", t.compiled);
}

/* ---- every template on its own ---------------------------------------------------------------- */

/* The embedded files (cmake/embed.cmake), NULL-terminated. */
struct cg_template_file {
    const char *name;
    const char *text;
};
extern const struct cg_template_file cg_template_files[];

/* Templates with NVIDIA inline PTX (mma.sync / wgmma / cp.async / ldmatrix): no AMD version. */
static const char *const nvidia_only[] = {"matmul.hip", "matmul_sm90.hip", "conv_igemm.hip", "sdpa_fwd.hip",
                                          "sdpa_fwd_fp8.hip", "sdpa_bwd.hip"};

static bool is_nvidia_only(const char *name)
{
    for (size_t i = 0; i < sizeof nvidia_only / sizeof nvidia_only[0]; i++)
        if (strcmp(name, nvidia_only[i]) == 0)
            return true;
    return false;
}

Test(codegen_amd, every_template_compiles_on_its_own_for_amd, .timeout = 600)
{
    rt_compiler_info ci;
    const char *archs[2];
    int n_archs = amd_targets(archs, &ci);
    int compiled = 0, templates = 0;
    for (int i = 0; cg_template_files[i].name != NULL; i++) {
        const char *name = cg_template_files[i].name;
        size_t len = strlen(name);
        if (len < 4 || strcmp(name + len - 4, ".hip") != 0 || is_nvidia_only(name))
            continue;
        templates++;
        cg_target t = {.platform = "amd", .sm_count = 304};
        snprintf(t.arch, sizeof t.arch, "%s", archs[0]);
        t = cg_target_with_caps(&t); /* cg_assemble reads the caps cg_emit fills: the AMD prelude */
        base_sb defs = {0}, hooks = {0};
        cg_kernel k = {0};
        cr_assert_eq(cg_assemble(&t, name, &defs, &hooks, &k), HIPDNN_STATUS_SUCCESS, "%s", name);
        char *gen = strstr(k.source, "#define HD_GENERATED 1\n"); /* off: the defaults apply */
        cr_assert_not_null(gen);
        memcpy(gen, "//efine", 7);
        for (int a = 0; a < n_archs; a++) {
            void *code = NULL;
            size_t n = 0;
            char *log = NULL;
            hipdnnStatus_t st = rt_compile(k.source, name, archs[a], NULL, 0, &code, &n, &log);
            cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s for %s (NVIDIA only? list it):\n%s", name,
                         archs[a], log ? log : last_error());
            compiled += st == HIPDNN_STATUS_SUCCESS;
            free(code), free(log);
        }
        cg_kernel_free(&k);
    }
    cr_log_info("%d templates on their own, %d compiles for AMD", templates, compiled);
    cr_expect_geq(templates, 3, "pointwise, rownorm, channorm at least");
    cr_expect_eq(compiled, templates * n_archs);
}
