/* test_gpu_matmul.c — matmul + fused epilogue on the GPU, aimed at the sm_90 wgmma + TMA template
 * (kernel_templates/matmul_sm90.hip; on other GPUs the same cases run the mma.sync template).
 *
 * Shapes are drawn each run at and around the wgmma template's tile edges (128 rows, 128 / 256
 * columns, K steps of 64), with odd sizes, padded rows, batches (broadcast, grouped, rank 4, and
 * batch strides the tensor maps cannot flatten, which take the mma.sync template), both B
 * layouts and every epilogue shape: none (fp32 / bf16 / fp16 out), bias + GELU, residual + RELU
 * times a constant, per-row scale then FP8 E4M3. The knob suite runs the other tile width and
 * pipeline depths, and the mma.sync template on the same device. Each case is compared with the
 * reference engine (gpu_util.h: fresh random inputs, poisoned outputs, every element within
 * tu_close's bound for its type and the matmul's K, no unwritten element). Seed: HIPDNN_TEST_SEED replays a run.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>

#include "gpu_util.h"

static void reset_knobs(void)
{
    gpu_set_knobs(0, NULL, NULL);
    gpu_teardown();
}

TestSuite(gpu_matmul, .init = gpu_setup, .fini = reset_knobs);

enum { EPI_NONE, EPI_BIAS_GELU, EPI_RESIDUAL_RELU_HALF, EPI_ROWSCALE_FP8 };

typedef struct mm_case {
    const char *io, *out;   /* A and B type; the output's (EPI_NONE, EPI_BIAS_GELU) */
    int rank;               /* 3 or 4 */
    int64_t batch[2];       /* C's batch dims (rank 3: batch[0] only) */
    int64_t a_batch[2], b_batch[2]; /* A's / B's: C's, 1 (broadcast) or a divisor (grouped) */
    int64_t M, N, K;
    bool b_kmajor;
    int64_t pad;            /* extra elements at the end of each A / B row (keeps 16-byte rows) */
    int64_t gap;            /* extra elements between A's outer batch groups (rank 4) */
    int epi;
} mm_case;

static int64_t round8(int64_t v) { return (v + 7) / 8 * 8; }

/* Strides of an operand [batch..., rows, cols] with the contiguous dim `inner_last` (cols) or
 * rows, its rows padded to 16 bytes plus pad, and `gap` elements between outer batch groups. */
static void operand_strides(int rank, const int64_t *d, bool inner_last, int64_t pad, int64_t gap,
                            int64_t *s)
{
    int64_t rows = d[rank - 2], cols = d[rank - 1];
    if (inner_last)
        s[rank - 1] = 1, s[rank - 2] = round8(cols) + pad;
    else
        s[rank - 2] = 1, s[rank - 1] = round8(rows) + pad;
    int64_t matrix = inner_last ? rows * s[rank - 2] : cols * s[rank - 1];
    if (rank == 3)
        s[0] = matrix;
    else
        s[1] = matrix, s[0] = d[1] * matrix + gap;
}

static void append_dims(int rank, const int64_t *bd, int64_t r, int64_t col, int64_t *d)
{
    for (int i = 0; i < rank - 2; i++)
        d[i] = bd[i];
    d[rank - 2] = r, d[rank - 1] = col;
}

static json_t *ones(int rank)
{
    json_t *a = json_array();
    for (int i = 0; i < rank; i++)
        json_array_append_new(a, json_integer(1));
    return a;
}

static void run_case(const mm_case *c)
{
    int r = c->rank;
    int64_t ad[4], as[4], bd[4], bs[4], cd[4], cs[4], vd[4], vs[4], rd[4], rs[4];
    append_dims(r, c->a_batch, c->M, c->K, ad);
    append_dims(r, c->b_batch, c->K, c->N, bd);
    append_dims(r, c->batch, c->M, c->N, cd);
    operand_strides(r, ad, true, c->pad, c->gap, as);
    operand_strides(r, bd, !c->b_kmajor, c->pad, 0, bs);
    packed(r, cd, cs, 0);
    for (int i = 0; i < r; i++)
        vd[i] = i == r - 1 ? c->N : 1, rd[i] = i == r - 1 ? 1 : cd[i];
    packed(r, vd, vs, 0), packed(r, rd, rs, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, c->io, r, ad, as, false));
    json_array_append_new(tensors, tensor(2, c->io, r, bd, bs, false));
    bool none = c->epi == EPI_NONE;
    json_array_append_new(tensors, tensor(3, none ? c->out : "FLOAT", r, cd, cs, !none));
    json_array_append_new(nodes, node("MatmulAttributes", json_pack("{s:i, s:i, s:i}", "a_tensor_uid", 1,
                                                                    "b_tensor_uid", 2, "c_tensor_uid", 3)));
    if (c->epi == EPI_BIAS_GELU || c->epi == EPI_RESIDUAL_RELU_HALF) {
        bool gelu = c->epi == EPI_BIAS_GELU;
        json_array_append_new(tensors, gelu ? tensor(4, c->io, r, vd, vs, false) : tensor(4, "FLOAT", r, cd, cs, false));
        json_array_append_new(tensors, tensor(5, "FLOAT", r, cd, cs, true));
        json_array_append_new(tensors, tensor(6, gelu ? c->out : "FLOAT", r, cd, cs, !gelu));
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
            "operation", "ADD", "in_0_tensor_uid", 3, "in_1_tensor_uid", 4, "out_0_tensor_uid", 5)));
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}",
            "operation", gelu ? "GELU_FWD" : "RELU_FWD", "in_0_tensor_uid", 5, "out_0_tensor_uid", 6)));
    }
    if (c->epi == EPI_RESIDUAL_RELU_HALF) {
        json_t *half = scalar(7, 0.5f); /* C's rank, as the pointwise ranks must agree */
        json_object_set_new(half, "dims", ones(r));
        json_object_set_new(half, "strides", ones(r));
        json_array_append_new(tensors, half);
        json_array_append_new(tensors, tensor(8, c->out, r, cd, cs, false));
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
            "operation", "MUL", "in_0_tensor_uid", 6, "in_1_tensor_uid", 7, "out_0_tensor_uid", 8)));
    }
    if (c->epi == EPI_ROWSCALE_FP8) {
        json_array_append_new(tensors, tensor(4, "FLOAT", r, rd, rs, false));
        json_array_append_new(tensors, tensor(5, "FP8_E4M3", r, cd, cs, false));
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
            "operation", "MUL", "in_0_tensor_uid", 3, "in_1_tensor_uid", 4, "out_0_tensor_uid", 5)));
    }
    char what[256];
    snprintf(what, sizeof what, "matmul %s->%s batch [%lld %lld] A [%lld %lld] B [%lld %lld] M %lld N %lld "
             "K %lld%s pad %lld gap %lld epi %d", c->io, c->out, (long long)c->batch[0],
             (long long)(r == 4 ? c->batch[1] : 0), (long long)c->a_batch[0],
             (long long)(r == 4 ? c->a_batch[1] : 0), (long long)c->b_batch[0],
             (long long)(r == 4 ? c->b_batch[1] : 0), (long long)c->M, (long long)c->N, (long long)c->K,
             c->b_kmajor ? " B col-major" : "", (long long)c->pad, (long long)c->gap, c->epi);
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    check_graph(g, what);
    hipdnnBackendDestroyDescriptor(g);
}

/* A size at a tile edge: edge - 1, edge or edge + 1, or a random one below 3 edges. */
static int64_t near(int64_t edge)
{
    switch (rnd(0, 3)) {
    case 0: return edge - 1;
    case 1: return edge;
    case 2: return edge + 1;
    default: return rnd(1, (int)(3 * edge));
    }
}

static mm_case base_case(const char *io, const char *out, int64_t bt, int epi)
{
    mm_case c = {.io = io, .out = out, .rank = 3, .batch = {bt, 1}, .a_batch = {bt, 1}, .b_batch = {bt, 1},
                 .epi = epi};
    c.M = near(128);
    c.N = near(rnd(0, 1) ? 128 : 256);
    c.K = near(64);
    c.b_kmajor = rnd(0, 1);
    return c;
}

Test(gpu_matmul, tile_edges_both_layouts)
{
    const char *io[] = {"BFLOAT16", "HALF"};
    for (int i = 0; i < 12; i++) {
        mm_case c = base_case(io[i % 2], io[i % 2], rnd(1, 3), EPI_BIAS_GELU);
        c.b_kmajor = i % 4 >= 2;
        c.pad = 8 * rnd(0, 2);
        run_case(&c);
    }
}

Test(gpu_matmul, every_epilogue)
{
    const char *outs[] = {"FLOAT", "BFLOAT16", "HALF"};
    for (int i = 0; i < 3; i++) { /* no epilogue: C stored in three types */
        mm_case c = base_case(i == 2 ? "HALF" : "BFLOAT16", outs[i], rnd(1, 2), EPI_NONE);
        run_case(&c);
    }
    for (int i = 0; i < 4; i++) {
        mm_case c = base_case(i % 2 ? "HALF" : "BFLOAT16", "BFLOAT16", rnd(1, 3),
                              i < 2 ? EPI_RESIDUAL_RELU_HALF : EPI_ROWSCALE_FP8);
        c.b_kmajor = i % 2;
        run_case(&c);
    }
}

Test(gpu_matmul, odd_and_tiny_sizes)
{
    const int64_t tiny[][3] = {{1, 1, 1}, {1, 300, 7}, {300, 1, 9}, {3, 5, 200}, {129, 257, 1}};
    for (int i = 0; i < 5; i++) {
        mm_case c = base_case("BFLOAT16", "BFLOAT16", 1, EPI_BIAS_GELU);
        c.M = tiny[i][0], c.N = tiny[i][1], c.K = tiny[i][2], c.b_kmajor = i % 2;
        run_case(&c);
    }
    for (int i = 0; i < 4; i++) { /* odd M, N, K anywhere up to 3 tiles */
        mm_case c = base_case("HALF", "HALF", rnd(1, 2), EPI_BIAS_GELU);
        c.M = 2 * rnd(0, 190) + 1, c.N = 2 * rnd(0, 380) + 1, c.K = 2 * rnd(0, 100) + 1;
        run_case(&c);
    }
}

Test(gpu_matmul, batches_broadcast_grouped_rank4)
{
    for (int i = 0; i < 4; i++) { /* A or B broadcast over the batch */
        mm_case c = base_case("BFLOAT16", "BFLOAT16", 3, EPI_BIAS_GELU);
        c.a_batch[0] = i % 2 ? 1 : 3, c.b_batch[0] = i % 2 ? 3 : 1, c.b_kmajor = i >= 2;
        run_case(&c);
    }
    mm_case grouped = base_case("HALF", "HALF", 4, EPI_BIAS_GELU); /* A's 2 matrices serve 2 each */
    grouped.a_batch[0] = 2;
    run_case(&grouped);
    for (int i = 0; i < 2; i++) { /* rank 4: C [2, 3], A [2, 3], B [1, 3] */
        mm_case c = base_case("BFLOAT16", "BFLOAT16", 2, i ? EPI_RESIDUAL_RELU_HALF : EPI_BIAS_GELU);
        c.rank = 4, c.batch[1] = c.a_batch[1] = c.b_batch[1] = 3, c.b_batch[0] = 1, c.b_kmajor = i;
        run_case(&c);
    }
    /* A's outer batch groups 64 elements apart beyond packing: one stride cannot address them, so
     * this one runs the mma.sync template */
    mm_case gap = base_case("BFLOAT16", "BFLOAT16", 2, EPI_BIAS_GELU);
    gap.rank = 4, gap.batch[1] = gap.a_batch[1] = gap.b_batch[1] = 2, gap.gap = 64;
    run_case(&gap);
}

/* More tiles than multiprocessors (3 x 9 x 5 = 135 tiles of 128 x 256): each persistent block
 * runs several tiles, and the stage ring wraps across tile boundaries. */
Test(gpu_matmul, more_tiles_than_multiprocessors)
{
    mm_case c = base_case("BFLOAT16", "BFLOAT16", 3, EPI_BIAS_GELU);
    c.M = 1025 + rnd(0, 100), c.N = 1025 + rnd(0, 200), c.K = 64 + rnd(0, 64);
    run_case(&c);
    c.b_kmajor = !c.b_kmajor, c.K = 150 + rnd(0, 100), c.epi = EPI_RESIDUAL_RELU_HALF;
    run_case(&c);
}

/* Tile width, pipeline depth and the mma.sync template (jit.matmul_wgmma 0) on this device. */
static void knob_variant(int64_t tile_n, int64_t stages, int64_t wgmma)
{
    static const char *ids[] = {"jit.matmul_tile_n", "jit.matmul_stages", "jit.matmul_wgmma"};
    const int64_t values[] = {tile_n, stages, wgmma};
    gpu_set_knobs(3, ids, values);
    for (int i = 0; i < 3; i++) {
        mm_case c = base_case(i == 1 ? "HALF" : "BFLOAT16", i == 1 ? "HALF" : "BFLOAT16", rnd(1, 2),
                              i == 2 ? EPI_ROWSCALE_FP8 : EPI_BIAS_GELU);
        c.b_kmajor = i == 1;
        if (i == 0)
            c.M = 300 + rnd(0, 20), c.N = 600 + rnd(0, 20), c.K = 500 + rnd(0, 100); /* 8+ K steps */
        run_case(&c);
    }
    gpu_set_knobs(0, NULL, NULL);
}

Test(gpu_matmul, knobs_tile_128_stages_2) { knob_variant(128, 2, 1); }
Test(gpu_matmul, knobs_tile_128_stages_6) { knob_variant(128, 6, 1); }
Test(gpu_matmul, knobs_tile_256_stages_2) { knob_variant(256, 2, 1); }
Test(gpu_matmul, knobs_tile_256_stages_3) { knob_variant(256, 3, 1); }
Test(gpu_matmul, knobs_mma_sync) { knob_variant(128, 4, 0); }
