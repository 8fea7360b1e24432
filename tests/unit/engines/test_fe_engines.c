/* test_fe_engines.c — the JIT engines' registry and the unfused engine's partition, workspace
 * and knobs, without a GPU (engine slots called directly).
 *
 * Owns: rank order (jit_fused, jit_unfused, reference); jit_unfused's name, type, knobs and
 * notes, and its ranked configs (the defaults, then 1-wide accesses); ir_split on the example graphs (one kernel per op, every virtual tensor between two
 * ops written by one kernel and read by the next); workspace sizes, exactly: jit_fused needs
 * none for a fully fused graph, jit_unfused one 256-byte aligned slot per materialised virtual
 * tensor (computed here from the tensors' sizes); without a GPU both JIT engines refuse with a
 * reason. GPU execution: tests/gpu/test_gpu_conv.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "engines/fe_engines.h"
#include "runtime/rt.h"
#include "../../common/tu.h"

static hipdnnHandle_t handle;

static void setup(void) { cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS); }
static void teardown(void) { hipdnnDestroy(handle); }
TestSuite(fe_engines, .init = setup, .fini = teardown);

static hipdnnBackendDescriptor_t load_graph(const char *file) { return tu_example_graph(handle, file); }

Test(fe_engines, rank_order_and_unfused_engine)
{
    cr_assert_eq(fe_n_engines, 3);
    cr_expect_eq(fe_engines[0], &fe_jit_engine);
    cr_expect_eq(fe_engines[1], &fe_jit_unfused_engine);
    cr_expect_eq(fe_engines[2], &fe_reference_engine);
    const fe_engine *e = fe_engine_by_id(fe_jit_unfused_engine.id);
    cr_assert_eq(e, &fe_jit_unfused_engine);
    cr_expect_str_eq(e->name, "jit_unfused");
    cr_expect_str_eq(e->type, "gpu");
    cr_expect_neq(e->id, fe_jit_engine.id);
    cr_assert_eq(e->n_knobs, fe_jit_engine.n_knobs, "the JIT engines share their knobs");
    for (int k = 0; k < e->n_knobs; k++)
        cr_expect_str_eq(e->knobs[k].id, fe_jit_engine.knobs[k].id);
    cr_expect_str_eq(e->knobs[0].id, "jit.vector_width");
    cr_assert_eq(e->n_notes, 1);
    cr_expect_eq(e->notes[0], HIPDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION);
}

Test(fe_engines, unfused_configs)
{
    hipdnnBackendDescriptor_t g = load_graph("rmsnorm_residual.json");
    int64_t knobs[8][FE_MAX_KNOBS];
    int n = fe_jit_unfused_engine.configs(fe_graph_of(g->obj), knobs, 8);
    cr_assert_eq(n, 2);
    for (int i = 0; i < n; i++)
        for (int k = 1; k < fe_jit_unfused_engine.n_knobs; k++)
            cr_expect_eq(knobs[i][k], fe_jit_unfused_engine.knobs[k].dflt, "config %d knob %d", i, k);
    cr_expect_eq(knobs[0][0], 8, "16-byte accesses first");
    cr_expect_eq(knobs[1][0], 1, "then 1-wide (unaligned pointers)");
    cr_expect_eq(fe_jit_unfused_engine.configs(fe_graph_of(g->obj), knobs, 1), 1, "max respected");
    hipdnnBackendDestroyDescriptor(g);
}

/* ir_split: one kernel per op in graph order; a virtual tensor between two ops is written by
 * its producer's kernel and read by its consumer's. */
Test(fe_engines, split_partitions_one_kernel_per_op)
{
    const char *files[] = {"layernorm.json", "rmsnorm_residual.json", "bn_inference_relu.json",
                           "matmul_bias_gelu.json", "conv_bias_relu.json", "sdpa_causal.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        hipdnnBackendDescriptor_t g = load_graph(files[f]);
        const ir_graph *ir = fe_graph_of(g->obj)->ir;
        ir_partition p;
        cr_assert_eq(ir_split(ir, &p), HIPDNN_STATUS_SUCCESS);
        cr_assert_eq(p.n, ir->n_ops, "%s", files[f]);
        for (int k = 0; k < p.n; k++) {
            const ir_kernel *kn = &p.k[k];
            cr_assert_eq(kn->n_ops, 1, "%s kernel %d", files[f], k);
            const ir_op *op = &ir->ops[kn->ops[0]];
            bool pw = ir_op_info_of(op->kind)->role == IR_ROLE_POINTWISE;
            cr_expect_eq(kn->anchor, pw ? -1 : kn->ops[0]);
            cr_expect_eq(kn->part[0], pw ? IR_PART_REGION : IR_PART_ANCHOR);
            for (int s = 0; s < op->n_out; s++) {
                int ti = op->out[s];
                bool read = ti >= 0 && ir_consumers(ir, ti) > 0, found = false;
                for (int w = 0; w < kn->n_writes; w++)
                    found |= kn->writes[w] == ti;
                if (ti >= 0 && (read || !ir->t[ti].is_virtual))
                    cr_expect(found, "%s kernel %d writes uid %lld", files[f], k, (long long)ir->t[ti].uid);
            }
            for (int r = 0; r < kn->n_reads; r++) { /* what it reads was written by an earlier kernel */
                int ti = kn->reads[r], producer = ir->t[ti].producer;
                cr_expect(producer < 0 || producer < kn->ops[0], "%s: kernels in graph order", files[f]);
            }
        }
        ir_partition_free(&p);
        hipdnnBackendDestroyDescriptor(g);
    }
}

/* Bytes of a tensor's 256-byte aligned workspace slot. */
static int64_t slot(const ir_graph *ir, int64_t uid)
{
    for (int i = 0; i < ir->n_t; i++)
        if (ir->t[i].uid == uid)
            return (fe_ir_tensor_bytes(&ir->t[i]) + 255) / 256 * 256;
    cr_assert_fail("no tensor uid %lld", (long long)uid);
    return 0;
}

Test(fe_engines, workspace_sizes_are_exact)
{
    static const struct {
        const char *file;
        int64_t virtual_uids[3]; /* the virtual tensors jit_unfused materialises (0 ends) */
        int64_t fused;           /* jit_fused's workspace */
    } cases[] = {
        {"conv_bias_relu.json", {3, 5, 0}, 0},
        {"matmul_bias_gelu.json", {3, 5, 0}, 0},
        {"bn_inference_relu.json", {6, 0}, 0},
        {"layernorm.json", {0}, 0},
        {"rmsnorm_residual.json", {0}, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        hipdnnBackendDescriptor_t g = load_graph(cases[c].file);
        const fe_graph_state *gs = fe_graph_of(g->obj);
        int64_t want = 0;
        for (int i = 0; cases[c].virtual_uids[i] != 0; i++)
            want += slot(gs->ir, cases[c].virtual_uids[i]);
        int64_t knobs[FE_MAX_KNOBS] = {8, 4};
        cr_expect_eq(fe_jit_unfused_engine.workspace(gs, knobs), want, "%s: jit_unfused workspace",
                     cases[c].file);
        cr_expect_eq(fe_jit_engine.workspace(gs, knobs), cases[c].fused, "%s: jit_fused workspace",
                     cases[c].file);
        hipdnnBackendDestroyDescriptor(g);
    }
    /* the conv example: 2 fp32 [32, 128, 56, 56] intermediates */
    hipdnnBackendDescriptor_t g = load_graph("conv_bias_relu.json");
    int64_t knobs[FE_MAX_KNOBS] = {8, 4};
    cr_expect_eq(fe_jit_unfused_engine.workspace(fe_graph_of(g->obj), knobs), 2LL * 32 * 128 * 56 * 56 * 4);
    hipdnnBackendDestroyDescriptor(g);
}

Test(fe_engines, without_a_gpu_the_jit_engines_say_why)
{
    if (rt_init() == HIPDNN_STATUS_SUCCESS)
        cr_skip_test("a GPU is present");
    hipdnnBackendDescriptor_t g = load_graph("conv_bias_relu.json");
    char why[256] = "";
    cr_expect(!fe_jit_unfused_engine.supports(fe_graph_of(g->obj), why, sizeof why));
    cr_expect_not_null(strstr(why, "GPU"), "%s", why);
    cr_expect(fe_reference_engine.supports(fe_graph_of(g->obj), why, sizeof why));
    hipdnnBackendDestroyDescriptor(g);
}
