/* test_cg.c — codegen: every kernel of the supported example graphs and of generated pointwise
 * regions is emitted deterministically and compiles with the run-time compiler for sm_90 and
 * sm_80 (compile only: no GPU needed; skips when NVRTC is absent). Numerical checks of the
 * kernels are the GPU tests' job (tests/gpu/).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "engines/fe_engines.h"
#include "runtime/rt.h"
#include "../../common/tu.h"

static hipdnnHandle_t handle;

static void setup(void) { cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS); }
static void teardown(void) { hipdnnDestroy(handle); }
TestSuite(codegen, .init = setup, .fini = teardown);

static hipdnnBackendDescriptor_t load_graph(const char *file) { return tu_example_graph(handle, file); }

static bool have_compiler(void)
{
    rt_compiler_info info;
    return rt_compiler_for("sm_90", &info) == HIPDNN_STATUS_SUCCESS; /* NVRTC */
}

/* Compiles source for sm_90 when a compiler is present; false only when compilation failed. */
static bool compiles_for_sm90(const char *source, const char *name)
{
    if (!have_compiler())
        return true;
    void *code = NULL;
    size_t len = 0;
    hipdnnStatus_t st = rt_compile(source, name, "sm_90", NULL, 0, &code, &len, NULL);
    free(code);
    return st == HIPDNN_STATUS_SUCCESS;
}

/* Emits every kernel of the graph's partition twice (same bytes) and compiles it per arch. */
static int emit_and_compile(const ir_graph *ir, const char *what)
{
    ir_partition p;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
    int compiled = 0;
    const char *archs[] = {"sm_90", "sm_80"};
    for (int k = 0; k < p.n; k++) {
        char why[256] = "";
        cr_assert(cg_supports(ir, &p.k[k], why, sizeof why), "%s kernel %d: %s", what, k, why);
        for (int a = 0; a < 2; a++) {
            cg_target t = {.platform = "nvidia", .sm_count = 132};
            snprintf(t.arch, sizeof t.arch, "%s", archs[a]);
            cg_kernel k1, k2;
            cr_assert_eq(cg_emit(ir, &p.k[k], &t, &k1), HIPDNN_STATUS_SUCCESS);
            cr_assert_eq(cg_emit(ir, &p.k[k], &t, &k2), HIPDNN_STATUS_SUCCESS);
            cr_expect_str_eq(k1.source, k2.source, "%s: emission is deterministic", what);
            char name[128];
            snprintf(name, sizeof name, "%s.%s", what, k1.arch);
            cg_dump(name, k1.source); /* with HIPDNN_JIT_DUMP_DIR set */
            void *code = NULL;
            size_t len = 0;
            char *log = NULL;
            hipdnnStatus_t st = rt_compile(k1.source, what, k1.arch, NULL, 0, &code, &len, &log);
            cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s for %s:\n%s\n---- source ----\n%s", what,
                         k1.arch, log ? log : "", k1.source);
            cr_expect(len > 4 && memcmp(code, "\x7f" "ELF", 4) == 0, "a code object came back");
            compiled += st == HIPDNN_STATUS_SUCCESS;
            free(code), free(log);
            cg_kernel_free(&k1), cg_kernel_free(&k2);
        }
    }
    ir_partition_free(&p);
    return compiled;
}

Test(codegen, example_graphs_with_templates_compile)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    const char *files[] = {"layernorm.json", "rmsnorm_residual.json", "bn_inference_relu.json",
                           "matmul_bias_gelu.json", "conv_bias_relu.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        hipdnnBackendDescriptor_t g = load_graph(files[i]);
        cr_expect_eq(emit_and_compile(fe_graph_of(g->obj)->ir, files[i]), 2);
        hipdnnBackendDestroyDescriptor(g);
    }
}

/* A pointwise region with broadcasting, a by-value constant, several dtypes and two outputs. */
Test(codegen, pointwise_region_compiles)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    ir_graph g;
    ir_graph_init(&g);
    ir_tensor a = {.uid = 1, .dtype = HIPDNN_DATA_BFLOAT16, .rank = 3, .dims = {2, 3, 5}, .strides = {15, 5, 1}};
    ir_tensor b = {.uid = 2, .dtype = HIPDNN_DATA_FLOAT, .rank = 3, .dims = {1, 3, 1}, .strides = {3, 1, 1}};
    ir_tensor c = {.uid = 3, .dtype = HIPDNN_DATA_FLOAT, .rank = 3, .dims = {1, 1, 1}, .strides = {1, 1, 1},
                   .by_value = true};
    float half = 0.5f;
    memcpy(c.value, &half, 4);
    ir_tensor v = a, y = a, z = a;
    v.uid = 4, v.dtype = HIPDNN_DATA_FLOAT, v.is_virtual = true;
    y.uid = 5, y.dtype = HIPDNN_DATA_HALF;
    z.uid = 6, z.dtype = HIPDNN_DATA_FP8_E4M3;
    int ta = ir_add_tensor(&g, &a), tb = ir_add_tensor(&g, &b), tc = ir_add_tensor(&g, &c);
    int tv = ir_add_tensor(&g, &v), ty = ir_add_tensor(&g, &y), tz = ir_add_tensor(&g, &z);
    ir_op add = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {ta, tb, -1}, .out = {tv}};
    add.a.pw.mode = HIPDNN_POINTWISE_ADD;
    ir_op mul = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {tv, tc, -1}, .out = {ty}};
    mul.a.pw.mode = HIPDNN_POINTWISE_MUL;
    ir_op gelu = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {tv, -1, -1}, .out = {tz}};
    gelu.a.pw.mode = HIPDNN_POINTWISE_GELU_FWD;
    ir_add_op(&g, &add), ir_add_op(&g, &mul), ir_add_op(&g, &gelu);
    cr_assert_eq(ir_graph_seal(&g), HIPDNN_STATUS_SUCCESS);
    cr_expect_eq(emit_and_compile(&g, "pointwise_region"), 2);
    ir_graph_free(&g);
}

Test(codegen, unsupported_kernels_say_why)
{
    hipdnnBackendDescriptor_t g = load_graph("sdpa_gqa_bwd.json");
    ir_partition p;
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
    char why[256] = "";
    cr_expect(cg_supports(ir, &p.k[0], why, sizeof why), "sdpa_bwd has a template: %s", why);
    cg_target amd = {.platform = "amd", .arch = "gfx942", .sm_count = 304}; /* its template is NVIDIA-only */
    cr_expect(!cg_supports_on(ir, &p.k[0], &amd, why, sizeof why));
    cr_expect_not_null(strstr(why, "sm_80"), "%s", why);
    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
}

/* A batched fp16 matmul with column-major B, a broadcast batch dim of A and a [B, M, 1] per-row
 * scale epilogue, fp32 output; and a column-major A, which the template refuses with a reason. */
Test(codegen, matmul_variants)
{
    ir_graph g;
    ir_graph_init(&g);
    ir_tensor a = {.uid = 1, .dtype = HIPDNN_DATA_HALF, .rank = 3, .dims = {1, 37, 24}, .strides = {888, 24, 1}};
    ir_tensor b = {.uid = 2, .dtype = HIPDNN_DATA_HALF, .rank = 3, .dims = {3, 24, 19}, .strides = {456, 1, 24}};
    ir_tensor c = {.uid = 3, .dtype = HIPDNN_DATA_FLOAT, .rank = 3, .dims = {3, 37, 19},
                   .strides = {703, 19, 1}, .is_virtual = true};
    ir_tensor s = {.uid = 4, .dtype = HIPDNN_DATA_FLOAT, .rank = 3, .dims = {3, 37, 1}, .strides = {37, 1, 1}};
    ir_tensor y = c;
    y.uid = 5, y.is_virtual = false;
    int ta = ir_add_tensor(&g, &a), tb = ir_add_tensor(&g, &b), tc = ir_add_tensor(&g, &c);
    int ts = ir_add_tensor(&g, &s), ty = ir_add_tensor(&g, &y);
    ir_op mm = {.kind = IR_OP_MATMUL, .n_in = 2, .n_out = 1, .in = {ta, tb}, .out = {tc}};
    ir_op mul = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {tc, ts, -1}, .out = {ty}};
    mul.a.pw.mode = HIPDNN_POINTWISE_MUL;
    ir_add_op(&g, &mm), ir_add_op(&g, &mul);
    cr_assert_eq(ir_graph_seal(&g), HIPDNN_STATUS_SUCCESS);
    if (have_compiler())
        cr_expect_eq(emit_and_compile(&g, "matmul_variants"), 2);
    g.t[ta].strides[1] = 1, g.t[ta].strides[2] = 40; /* A column-major */
    ir_partition p;
    cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
    char why[256] = "";
    cr_expect(!cg_supports(&g, &p.k[0], why, sizeof why));
    cr_expect_not_null(strstr(why, "row-major"), "%s", why);
    ir_partition_free(&p);
    ir_graph_free(&g);
}

Test(codegen, templates_hash_is_stable_within_a_build)
{
    cr_expect_eq(cg_templates_hash(), cg_templates_hash());
    cr_expect_neq(cg_templates_hash(), 0u);
}

/* The engine's knobs reach codegen: loads per thread sets the row kernel's block size, the
 * vector-width limit switches the 16-byte accesses off; every variant still compiles. */
Test(codegen, knobs_change_the_row_kernel)
{
    hipdnnBackendDescriptor_t g = load_graph("rmsnorm_residual.json");
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    ir_partition p;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
    const int loads[] = {1, 2, 4, 8}, vecs[] = {8, 1};
    for (int l = 0; l < 4; l++)
        for (int v = 0; v < 2; v++) {
            cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132,
                           .max_vec = vecs[v], .loads_per_thread = loads[l]};
            cg_kernel k;
            cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
            const char *threads = strstr(k.source, "#define HD_THREADS "), *vec = strstr(k.source, "#define HD_VEC ");
            cr_assert(threads != NULL && vec != NULL);
            char sig[64];
            snprintf(sig, sizeof sig, "%d %d", atoi(threads + 19), atoi(vec + 15));
            cr_expect_eq(atoi(vec + 15), vecs[v], "vector width follows the knob");
            /* 4096 columns: threads * vec * loads covers the row */
            cr_expect_eq(atoi(threads + 19) * atoi(vec + 15) * loads[l] >= 4096 ||
                         atoi(threads + 19) == 1024, true, "%s", sig);
            if (vecs[v] == 8) /* 512 vectors per row: threads = 512 / loads, below the 1024 cap */
                cr_expect_eq(atoi(threads + 19), 512 / loads[l], "%d loads per thread: %s", loads[l], sig);
            cr_expect(compiles_for_sm90(k.source, "knobs"), "%s", sig);
            cg_kernel_free(&k);
        }
    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
}

/* Training statistics ([rows, 1], written once per row) do not force 1-wide accesses on the
 * rows: layernorm.json (training, 4096 columns) gets 8-wide vectors. The shifted-statistics
 * variant of the kernel compiles. */
Test(codegen, training_statistics_keep_vector_accesses)
{
    hipdnnBackendDescriptor_t g = load_graph("layernorm.json");
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    ir_partition p;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(p.n, 1);
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
    cg_kernel k;
    cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect(strstr(k.source, "#define HD_VEC 8\n") != NULL, "training layernorm keeps 8-wide accesses");
    cr_expect(strstr(k.source, "hd_store_stats") != NULL);
    cr_expect_eq(k.align, 16);
    cg_kernel_free(&k);
    t.shifted_stats = 1; /* the other layernorm statistics variant compiles too */
    cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect(strstr(k.source, "#define HD_SHIFTED_STATS 1\n") != NULL);
    cr_expect(compiles_for_sm90(k.source, "shifted"));
    cg_kernel_free(&k);
    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
}

/* The row-prefetch knob: the prefetching kernel loops over rows with a grid of about two blocks'
 * worth of threads per multiprocessor, and compiles; without it, one block per row. */
Test(codegen, row_prefetch_knob)
{
    hipdnnBackendDescriptor_t g = load_graph("rmsnorm_residual.json");
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    ir_partition p;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
    for (int pre = 0; pre < 2; pre++) {
        cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .row_prefetch = pre};
        cg_kernel k;
        cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
        const char *d = strstr(k.source, "#define HD_PREFETCH ");
        cr_assert_not_null(d);
        cr_expect_eq(atoi(d + 20), pre);
        const char *rows = strstr(k.source, "#define HD_ROWS ");
        cr_assert_not_null(rows);
        long long n_rows = atoll(rows + 16);
        if (pre)
            cr_expect_leq((long long)k.grid[0], 132LL * (2048 / (long long)k.block[0]), "grid %u", k.grid[0]);
        else
            cr_expect_eq((long long)k.grid[0], n_rows, "one block per row");
        cr_expect(compiles_for_sm90(k.source, "prefetch"));
        cg_kernel_free(&k);
    }
    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
}

/* On sm_90 a matmul takes the wgmma + TMA template (compiled for sm_90a, A and B as tensor
 * maps, a persistent grid, the knobs' tile width and stages); on sm_80, with jit.matmul_wgmma 0,
 * or with batch strides one tensor-map stride cannot address, the mma.sync template. */
Test(codegen, matmul_picks_the_wgmma_template_on_sm_90)
{
    hipdnnBackendDescriptor_t g = load_graph("matmul_bias_gelu.json");
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    ir_partition p;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
    cg_kernel k;
    cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(k.entry, "hd_matmul_sm90_kernel");
    cr_expect_str_eq(k.arch, "sm_90a");
    cr_expect_eq(k.block[0], 384u);
    cr_expect(k.grid[0] >= 1 && k.grid[0] <= 132 && k.grid[1] == 1 && k.grid[2] == 1);
    cr_expect_eq(k.smem, 1024u + 4 * (128 + 256) * 128 + 4 * 16, "default: 128 x 256 tiles, 4 stages");
    int maps = 0;
    for (int i = 0; i < k.n_args; i++)
        if (k.args[i].kind == CG_ARG_TMAP) {
            maps++;
            cr_expect_eq(k.args[i].map.rank, 3);
            cr_expect_eq(k.args[i].map.box[0], 64u);
            cr_expect_eq(k.args[i].map.strides[0] % 16, 0u);
        }
    cr_expect_eq(maps, 2, "A and B as tensor maps");
    cg_kernel_free(&k);

    t.mm_tile_n = 128, t.mm_stages = 6;
    cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_eq(k.smem, 1024u + 6 * (128 + 128) * 128 + 6 * 16);
    cr_expect_not_null(strstr(k.source, "#define HD_BN 128\n#define HD_STAGES 6\n"));
    cg_kernel_free(&k);
    t.mm_tile_n = 256; /* 6 stages of 128 x 256 do not fit: as many as do */
    cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_not_null(strstr(k.source, "#define HD_BN 256\n#define HD_STAGES 4\n"));
    cg_kernel_free(&k);

    t.mm_wgmma = -1;
    cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(k.entry, "hd_matmul_kernel");
    cr_expect_str_eq(k.arch, "sm_90");
    cg_kernel_free(&k);
    cg_target t80 = {.platform = "nvidia", .arch = "sm_80", .sm_count = 108};
    cr_assert_eq(cg_emit(ir, &p.k[0], &t80, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(k.entry, "hd_matmul_kernel");
    cg_kernel_free(&k);

    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
}

/* A's two batch matrices 8 elements apart (overlapping): no tensor map addresses them, so the
 * mma.sync template runs it even on sm_90. */
Test(codegen, matmul_with_overlapping_batches_takes_mma_sync)
{
    ir_graph g;
    ir_graph_init(&g);
    ir_tensor a = {.uid = 1, .dtype = HIPDNN_DATA_BFLOAT16, .rank = 3, .dims = {2, 37, 24}, .strides = {8, 24, 1}};
    ir_tensor b = {.uid = 2, .dtype = HIPDNN_DATA_BFLOAT16, .rank = 3, .dims = {2, 24, 16}, .strides = {384, 16, 1}};
    ir_tensor c = {.uid = 3, .dtype = HIPDNN_DATA_BFLOAT16, .rank = 3, .dims = {2, 37, 16}, .strides = {592, 16, 1}};
    int ta = ir_add_tensor(&g, &a), tb = ir_add_tensor(&g, &b), tc = ir_add_tensor(&g, &c);
    ir_op mm = {.kind = IR_OP_MATMUL, .n_in = 2, .n_out = 1, .in = {ta, tb}, .out = {tc}};
    ir_add_op(&g, &mm);
    cr_assert_eq(ir_graph_seal(&g), HIPDNN_STATUS_SUCCESS);
    ir_partition p;
    cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
    cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
    cg_kernel k;
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(k.entry, "hd_matmul_kernel");
    cg_kernel_free(&k);
    g.t[ta].strides[0] = 37 * 24; /* packed: the wgmma template */
    cr_assert_eq(cg_emit(&g, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(k.entry, "hd_matmul_sm90_kernel");
    cg_kernel_free(&k);
    ir_partition_free(&p);
    ir_graph_free(&g);
}

/* Pointwise regions iterate along the stored result's contiguous dim, 8 wide when all tensors
 * allow: the NHWC batchnorm-inference example (C = 256) decomposes c1 (C) fastest and uses
 * 16-byte accesses; with the vector-width knob at 1 it stays scalar along C. Both compile. */
Test(codegen, pointwise_follows_the_layout)
{
    hipdnnBackendDescriptor_t g = load_graph("bn_inference_relu.json");
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    ir_partition p;
    cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(p.n, 1);
    for (int v = 0; v < 2; v++) {
        cg_target t = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132, .max_vec = v ? 1 : 8};
        cg_kernel k;
        cr_assert_eq(cg_emit(ir, &p.k[0], &t, &k), HIPDNN_STATUS_SUCCESS);
        const char *body = strstr(k.source, "hd_element(hd_i64 i");
        cr_assert_not_null(body);
        cr_expect(strncmp(strstr(body, "hd_i64 c"), v ? "hd_i64 c1 = i % 256LL" : "hd_i64 c1 = i % 32LL", 20) == 0,
                  "C iterates fastest: %.60s", strstr(body, "hd_i64 c"));
        cr_expect_eq(strstr(body, "hd_ldv<") != NULL && strstr(body, ", 8>") != NULL, v == 0);
        cr_expect_eq(k.align, v ? 1 : 16);
        cr_expect(compiles_for_sm90(k.source, "pointwise_layout"));
        cg_kernel_free(&k);
    }
    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
}

/* Support is judged for the device's target: the tensor-core matmul has NVIDIA templates only,
 * so on an AMD target the example matmul is refused with a reason (before plan building), while
 * a pointwise region is supported on both. */
Test(codegen, support_follows_the_target)
{
    const cg_target amd = {.platform = "amd", .arch = "gfx90a", .sm_count = 104};
    const cg_target nv = {.platform = "nvidia", .arch = "sm_90", .sm_count = 132};
    const char *files[] = {"matmul_bias_gelu.json", "bn_inference_relu.json"};
    for (int f = 0; f < 2; f++) {
        hipdnnBackendDescriptor_t g = load_graph(files[f]);
        const ir_graph *ir = fe_graph_of(g->obj)->ir;
        ir_partition p;
        cr_assert_eq(ir_fuse(ir, &p), HIPDNN_STATUS_SUCCESS);
        char why[256] = "";
        cr_expect(cg_supports_on(ir, &p.k[0], &nv, why, sizeof why), "%s on sm_90: %s", files[f], why);
        why[0] = '\0';
        bool on_amd = cg_supports_on(ir, &p.k[0], &amd, why, sizeof why);
        cr_expect_eq(on_amd, f == 1, "%s on gfx90a: %s", files[f], why);
        if (!on_amd)
            cr_expect(why[0] != '\0', "a refusal says why");
        ir_partition_free(&p);
        hipdnnBackendDestroyDescriptor(g);
    }
}
