/* test_cg_dyn.c — dynamic shapes in codegen: graphs of one topology that differ only in batch
 * and sequence length emit byte-identical kernel sources (so one cached kernel serves them) when
 * the graph has IS_DYNAMIC_SHAPE_ENABLED, with the sizes passed as int64 parameters and the grid
 * computed per graph; without the flag the sources differ; the flag is part of the graph key;
 * every dynamic variant compiles with NVRTC for sm_90 and sm_80 (compile only; skipped without
 * NVRTC). The GPU side (results, cache hits) is tests/gpu/test_gpu_dyn.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "engines/fe_engines.h"
#include "runtime/rt.h"
#include "../../common/dyn_graphs.h"
#include "../../common/tu.h"

static hipdnnHandle_t handle;

static void setup(void) { cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS); }
static void teardown(void) { hipdnnDestroy(handle); }
TestSuite(codegen_dyn, .init = setup, .fini = teardown);

static bool have_compiler(void)
{
    rt_compiler_info info;
    return rt_compiler_for("sm_90", &info) == HIPDNN_STATUS_SUCCESS;
}

/* Every kernel of one graph for one arch. */
typedef struct emitted {
    hipdnnBackendDescriptor_t g;
    ir_partition p;
    cg_kernel k[8];
    int n;
} emitted;

static void emit_all(emitted *e, dyn_family f, int64_t b, int64_t s, int64_t inner, bool dynamic, const char *arch)
{
    e->g = dyn_graph(handle, f, b, s, inner, dynamic);
    const ir_graph *ir = fe_graph_of(e->g->obj)->ir;
    cr_assert_eq(ir->dynamic_shape, dynamic, "lowering carries the flag");
    cr_assert_eq(ir_fuse(ir, &e->p), HIPDNN_STATUS_SUCCESS);
    cr_assert(e->p.n <= 8);
    cg_target t = {.platform = "nvidia", .sm_count = 132};
    snprintf(t.arch, sizeof t.arch, "%s", arch);
    for (e->n = 0; e->n < e->p.n; e->n++) {
        cr_assert_eq(cg_emit(ir, &e->p.k[e->n], &t, &e->k[e->n]), HIPDNN_STATUS_SUCCESS, "%s: %s",
                     dyn_family_name(f), tu_msg());
        char name[96]; /* with HIPDNN_JIT_DUMP_DIR set */
        snprintf(name, sizeof name, "%s.%d.%s.%s", dyn_family_name(f), e->n, e->k[e->n].arch,
                 dynamic ? "dynamic" : "static");
        cg_dump(name, e->k[e->n].source);
    }
}

static void release(emitted *e)
{
    for (int i = 0; i < e->n; i++)
        cg_kernel_free(&e->k[i]);
    ir_partition_free(&e->p);
    hipdnnBackendDestroyDescriptor(e->g);
}

/* The int64 parameter `name` of kernel k (its HD_PARAMS position), or -1 when absent. */
static int64_t param_value(const cg_kernel *k, const char *name)
{
    const char *def = strstr(k->source, "#define HD_PARAMS ");
    cr_assert_not_null(def);
    const char *end = strchr(def, '\n');
    char want[64];
    snprintf(want, sizeof want, "hd_i64 %s", name);
    int index = 0;
    for (const char *p = def + 18; p < end; index++) {
        const char *comma = strstr(p, ", ");
        size_t len = (size_t)((comma != NULL && comma < end ? comma : end) - p);
        if (len == strlen(want) && strncmp(p, want, len) == 0) {
            cr_assert_eq(k->args[index].kind, CG_ARG_INT64, "%s is an int64 argument", name);
            return k->args[index].value;
        }
        p += len + 2;
    }
    return -1;
}

static bool same_recipe(const cg_kernel *a, const cg_kernel *b)
{
    if (memcmp(a->grid, b->grid, sizeof a->grid) != 0 || a->n_args != b->n_args)
        return false;
    for (int i = 0; i < a->n_args; i++)
        if (a->args[i].kind == CG_ARG_INT64 && a->args[i].value != b->args[i].value)
            return false;
    return true;
}

static void compile(const cg_kernel *k, const char *what)
{
    void *code = NULL;
    size_t len = 0;
    char *log = NULL;
    hipdnnStatus_t st = rt_compile(k->source, what, k->arch, NULL, 0, &code, &len, &log);
    cr_expect_eq(st, HIPDNN_STATUS_SUCCESS, "%s for %s:\n%s\n---- source ----\n%s", what, k->arch,
                 log ? log : "", k->source);
    free(code), free(log);
}

/* Two sizes of family f: with the flag, the same sources and other recipes (compiled once per
 * arch); without it, other sources. */
static void check_family(dyn_family f, int64_t inner)
{
    int64_t b1 = tu_range(2, 5), s1 = tu_range(2, 300), b2 = b1 + tu_range(1, 3), s2 = s1 + tu_range(1, 200);
    const char *archs[] = {"sm_90", "sm_80"};
    for (int a = 0; a < 2; a++) {
        emitted d1, d2, s1e, s2e;
        emit_all(&d1, f, b1, s1, inner, true, archs[a]);
        emit_all(&d2, f, b2, s2, inner, true, archs[a]);
        cr_assert_eq(d1.n, d2.n);
        for (int i = 0; i < d1.n; i++) {
            char what[96];
            snprintf(what, sizeof what, "%s kernel %d %s (%lldx%lld vs %lldx%lld)", dyn_family_name(f), i,
                     archs[a], (long long)b1, (long long)s1, (long long)b2, (long long)s2);
            cr_expect_str_eq(d1.k[i].source, d2.k[i].source, "%s: one source for both sizes", what);
            cr_expect_str_eq(d1.k[i].entry, d2.k[i].entry, "%s", what);
            cr_expect(!same_recipe(&d1.k[i], &d2.k[i]), "%s: the sizes reach the launch recipe", what);
            if (have_compiler())
                compile(&d1.k[i], what);
        }
        emit_all(&s1e, f, b1, s1, inner, false, archs[a]);
        emit_all(&s2e, f, b2, s2, inner, false, archs[a]);
        for (int i = 0; i < s1e.n; i++) {
            cr_expect_str_neq(s1e.k[i].source, s2e.k[i].source, "%s: static kernels differ by size",
                              dyn_family_name(f));
            cr_expect_null(strstr(s1e.k[i].source, "dy_"), "a static kernel has no dynamic parameter");
            cr_expect_str_neq(s1e.k[i].source, d1.k[i].source, "the flag changes the kernel");
        }
        release(&d1), release(&d2), release(&s1e), release(&s2e);
    }
}

Test(codegen_dyn, layernorm_one_source)
{
    tu_seed("layernorm_one_source");
    check_family(DYN_LAYERNORM, 8 * tu_range(8, 256));
}

Test(codegen_dyn, rmsnorm_residual_one_source)
{
    tu_seed("rmsnorm_residual_one_source");
    check_family(DYN_RMSNORM_RESIDUAL, 8 * tu_range(8, 256));
}

Test(codegen_dyn, pointwise_broadcast_one_source)
{
    tu_seed("pointwise_broadcast_one_source");
    check_family(DYN_POINTWISE_BCAST, 8 * tu_range(1, 256));
    check_family(DYN_POINTWISE_BCAST, 8 * tu_range(1, 64) + 3); /* scalar accesses */
    check_family(DYN_POINTWISE_PADDED, 8 * tu_range(1, 256));
}

Test(codegen_dyn, matmul_one_source)
{
    tu_seed("matmul_one_source");
    check_family(DYN_MATMUL_BIAS, 64 * tu_range(1, 16));
    check_family(DYN_MATMUL_BATCHED, 8 * tu_range(2, 64));
}

/* Norms: a batch or sequence of 1 (decode) drops out of the row index and changes nothing. */
Test(codegen_dyn, norms_serve_size_one)
{
    tu_seed("norms_serve_size_one");
    const dyn_family fams[] = {DYN_LAYERNORM, DYN_RMSNORM_RESIDUAL};
    for (int f = 0; f < 2; f++) {
        int64_t h = 8 * tu_range(8, 128);
        emitted big, s1, b1;
        emit_all(&big, fams[f], tu_range(2, 9), tu_range(2, 999), h, true, "sm_90");
        emit_all(&s1, fams[f], tu_range(2, 9), 1, h, true, "sm_90");
        emit_all(&b1, fams[f], 1, tu_range(2, 999), h, true, "sm_90");
        cr_expect_str_eq(big.k[0].source, s1.k[0].source, "%s: S = 1", dyn_family_name(fams[f]));
        cr_expect_str_eq(big.k[0].source, b1.k[0].source, "%s: B = 1", dyn_family_name(fams[f]));
        release(&big), release(&s1), release(&b1);
    }
}

/* The parameters carry the graph's sizes: rows, elements, M and batches. */
Test(codegen_dyn, parameters_hold_the_sizes)
{
    tu_seed("parameters_hold_the_sizes");
    int64_t b = tu_range(2, 9), s = tu_range(2, 999), h = 8 * tu_range(8, 128);
    emitted e;
    emit_all(&e, DYN_LAYERNORM, b, s, h, true, "sm_90");
    cr_expect_eq(param_value(&e.k[0], "dy_rows"), b * s);
    cr_expect_eq(e.k[0].grid[0], (unsigned)(b * s));
    release(&e);
    emit_all(&e, DYN_POINTWISE_BCAST, b, s, h, true, "sm_90");
    int vec = strstr(e.k[0].source, "hd_stv<") != NULL ? 8 : 1; /* 8-wide groups or elements */
    cr_expect_eq(param_value(&e.k[0], "dy_numel"), b * s * h / vec, "vector width %d", vec);
    release(&e);
    emit_all(&e, DYN_MATMUL_BIAS, b, s, h, true, "sm_90");
    cr_expect_eq(param_value(&e.k[0], "dy_m"), s);
    cr_expect_eq(param_value(&e.k[0], "dy_batch"), b);
    cr_expect_eq(e.k[0].args[e.k[0].n_args - 1].kind, CG_ARG_TMAP, "tensor maps stay last");
    release(&e);
    emit_all(&e, DYN_MATMUL_BIAS, b, s, h, true, "sm_80");
    cr_expect_eq(param_value(&e.k[0], "dy_m"), s);
    cr_expect_eq(e.k[0].grid[2], (unsigned)b);
    release(&e);
}

/* The flag is semantic: graph and kernel keys differ with it, and not with the sizes' uids. */
Test(codegen_dyn, flag_changes_the_graph_key)
{
    for (int f = 0; f < DYN_FAMILIES; f++) {
        hipdnnBackendDescriptor_t on = dyn_graph(handle, (dyn_family)f, 3, 40, 64, true);
        hipdnnBackendDescriptor_t off = dyn_graph(handle, (dyn_family)f, 3, 40, 64, false);
        hipdnnBackendDescriptor_t on2 = dyn_graph(handle, (dyn_family)f, 3, 40, 64, true);
        const ir_graph *a = fe_graph_of(on->obj)->ir, *b = fe_graph_of(off->obj)->ir;
        ir_key ka, kb, ka2, kka, kkb;
        cr_assert_eq(ir_graph_key(a, &ka), HIPDNN_STATUS_SUCCESS);
        cr_assert_eq(ir_graph_key(b, &kb), HIPDNN_STATUS_SUCCESS);
        cr_assert_eq(ir_graph_key(fe_graph_of(on2->obj)->ir, &ka2), HIPDNN_STATUS_SUCCESS);
        cr_expect_neq(memcmp(ka.b, kb.b, sizeof ka.b), 0, "%s: the flag changes the graph key",
                      dyn_family_name((dyn_family)f));
        cr_expect_eq(memcmp(ka.b, ka2.b, sizeof ka.b), 0, "the key is deterministic");
        int op = 0;
        cr_assert_eq(ir_kernel_key(a, &op, 1, &kka), HIPDNN_STATUS_SUCCESS);
        cr_assert_eq(ir_kernel_key(b, &op, 1, &kkb), HIPDNN_STATUS_SUCCESS);
        cr_expect_neq(memcmp(kka.b, kkb.b, sizeof kka.b), 0, "the flag changes a kernel's sub-graph key");
        hipdnnBackendDestroyDescriptor(on), hipdnnBackendDestroyDescriptor(off), hipdnnBackendDestroyDescriptor(on2);
    }
}

/* With a compiler: both sizes' sources give the same kernel cache key (fe_kernel_key). */
Test(codegen_dyn, one_kernel_key)
{
    if (!have_compiler())
        cr_skip_test("no run-time compiler (NVRTC) on this machine");
    tu_seed("one_kernel_key");
    for (int f = 0; f < DYN_FAMILIES; f++) {
        emitted e1, e2;
        emit_all(&e1, (dyn_family)f, tu_range(2, 4), tu_range(2, 100), 128, true, "sm_90");
        emit_all(&e2, (dyn_family)f, tu_range(5, 8), tu_range(101, 200), 128, true, "sm_90");
        for (int i = 0; i < e1.n; i++) {
            kc_key k1, k2;
            cr_assert_eq(fe_kernel_key(e1.k[i].source, e1.k[i].entry, e1.k[i].arch, NULL, 0, &k1), HIPDNN_STATUS_SUCCESS);
            cr_assert_eq(fe_kernel_key(e2.k[i].source, e2.k[i].entry, e2.k[i].arch, NULL, 0, &k2), HIPDNN_STATUS_SUCCESS);
            cr_expect_eq(memcmp(k1.b, k2.b, sizeof k1.b), 0, "%s kernel %d: one cache key",
                         dyn_family_name((dyn_family)f), i);
        }
        release(&e1), release(&e2);
    }
}
