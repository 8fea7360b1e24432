/* test_gpu_conv.c — convolutions and the unfused JIT engine on the GPU.
 *
 * Owns:
 *   conv fwd / dgrad / wgrad on random shapes each run (2-D and 3-D, odd sizes, padding, stride,
 *   dilation, groups, both modes, NCHW / NHWC / strided with gaps, bf16 / fp16 / fp32), with and
 *   without a bias + ReLU epilogue, through jit_fused and jit_unfused, against the reference
 *   engine (gpu_util.c: fresh random inputs, poisoned outputs, every element within tu_close's
 *   bound for its type and accumulation length);
 *   the tensor-core implicit GEMM (forward, channels-last bf16 / fp16): the cases assert that
 *   the kernel really is that template; with jit.vector_width 1 the same conv runs direct;
 *   the example graphs the JIT engines support, scaled down (same ops, types and layouts; sizes
 *   mapped to small odd ones), through both engines against the reference; at full size, the
 *   two engines against each other element by element (the double reference would take
 *   minutes), the conv example also against a direct double-precision sum at 2000 sampled
 *   outputs, with the time of each engine;
 *   graphs only the unfused engine runs (a cast feeding a matmul, a conv epilogue that
 *   broadcasts to a larger shape): jit_fused says NOT_SUPPORTED, the heuristics rank
 *   jit_unfused first, and it computes the reference's result.
 * Seed: HIPDNN_TEST_SEED replays a run.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg.h"
#include "gpu_util.h"
#include "../common/tu_close.h"

TestSuite(gpu_conv, .init = gpu_setup, .fini = gpu_teardown);

/* ---- conv graphs ------------------------------------------------------------------------------------- */

typedef enum layout { NCHW, NHWC, GAPS } layout; /* GAPS: NHWC pixels padded to 8 channels,
                                                    NCHW rows padded by 3 (alternating) */

typedef struct conv_p {
    int kind;                 /* 0 fwd, 1 dgrad, 2 wgrad */
    int sp;                   /* spatial dims, 2 or 3 */
    layout lay;
    bool gaps_nhwc;           /* with GAPS: which base layout */
    bool flip;
    const char *io;
    int64_t n, g, cg, kg;
    int64_t in[3], f[3], pre[3], post[3], str[3], dil[3];
    bool epi;                 /* result -> virtual fp32 -> + per-channel bias -> ReLU -> io */
} conv_p;

static int64_t out_dim(const conv_p *c, int d)
{
    return 1 + (c->in[d] + c->pre[d] + c->post[d] - c->dil[d] * (c->f[d] - 1) - 1) / c->str[d];
}

/* Strides of dims (rank r) in the case's layout. */
static void strides_of(const conv_p *c, int r, const int64_t *dims, int64_t *s)
{
    bool nhwc = c->lay == NHWC || (c->lay == GAPS && c->gaps_nhwc);
    tu_conv_strides(r, dims, nhwc, c->lay == GAPS, c->lay == GAPS && !nhwc ? 3 : 0, s);
}

static json_t *ints(int n, const int64_t *v)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* x uid 1, w uid 2, y uid 3 (forward naming); epilogue: bias 4, virtual 5, result 6. */
static hipdnnBackendDescriptor_t conv_graph(const conv_p *c)
{
    int r = c->sp + 2;
    int64_t xd[5] = {c->n, c->g * c->cg}, wd[5] = {c->g * c->kg, c->cg}, yd[5] = {c->n, c->g * c->kg};
    for (int d = 0; d < c->sp; d++)
        xd[2 + d] = c->in[d], wd[2 + d] = c->f[d], yd[2 + d] = out_dim(c, d);
    int64_t xs[5], ws[5], ys[5];
    strides_of(c, r, xd, xs), strides_of(c, r, wd, ws), strides_of(c, r, yd, ys);
    const char *res_t = c->epi ? "FLOAT" : c->io;
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, c->kind == 1 ? res_t : c->io, r, xd, xs, c->kind == 1 && c->epi));
    json_array_append_new(tensors, tensor(2, c->kind == 2 ? res_t : c->io, r, wd, ws, c->kind == 2 && c->epi));
    json_array_append_new(tensors, tensor(3, c->kind == 0 ? res_t : c->io, r, yd, ys, c->kind == 0 && c->epi));
    json_t *a = json_pack("{s:o, s:o, s:o, s:o, s:s}", "pre_padding", ints(c->sp, c->pre), "post_padding",
                          ints(c->sp, c->post), "stride", ints(c->sp, c->str), "dilation", ints(c->sp, c->dil),
                          "conv_mode", c->flip ? "CONVOLUTION" : "CROSS_CORRELATION");
    const char *type;
    if (c->kind == 0) {
        type = "ConvolutionFwdAttributes";
        json_object_set_new(a, "x_tensor_uid", json_integer(1));
        json_object_set_new(a, "w_tensor_uid", json_integer(2));
        json_object_set_new(a, "y_tensor_uid", json_integer(3));
    } else if (c->kind == 1) {
        type = "ConvolutionBwdAttributes";
        json_object_set_new(a, "dy_tensor_uid", json_integer(3));
        json_object_set_new(a, "w_tensor_uid", json_integer(2));
        json_object_set_new(a, "dx_tensor_uid", json_integer(1));
    } else {
        type = "ConvolutionWrwAttributes";
        json_object_set_new(a, "x_tensor_uid", json_integer(1));
        json_object_set_new(a, "dy_tensor_uid", json_integer(3));
        json_object_set_new(a, "dw_tensor_uid", json_integer(2));
    }
    json_array_append_new(nodes, node(type, a));
    if (c->epi) {
        const int64_t *od = c->kind == 0 ? yd : c->kind == 1 ? xd : wd;
        int64_t bd[5] = {1, 1, 1, 1, 1}, bs[5], vs[5];
        int ch = c->kind == 2 ? 0 : 1; /* per output channel: dim 1, or K of dw [K, C/G, ..] */
        bd[ch] = od[ch];
        packed(r, bd, bs, 0);
        strides_of(c, r, od, vs);
        json_array_append_new(tensors, tensor(4, "FLOAT", r, bd, bs, false));
        json_array_append_new(tensors, tensor(5, "FLOAT", r, od, vs, true));
        json_array_append_new(tensors, tensor(6, c->io, r, od, vs, false));
        int res = c->kind == 0 ? 3 : c->kind == 1 ? 1 : 2;
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
            "operation", "ADD", "in_0_tensor_uid", res, "in_1_tensor_uid", 4, "out_0_tensor_uid", 5)));
        json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}",
            "operation", "RELU_FWD", "in_0_tensor_uid", 5, "out_0_tensor_uid", 6)));
    }
    return finalize_graph(tensors, nodes);
}

static void describe(const conv_p *c, char *buf, size_t n)
{
    static const char *kinds[] = {"fwd", "dgrad", "wgrad"}, *lays[] = {"NCHW", "NHWC", "gaps"};
    int k = snprintf(buf, n, "conv %s %dD %s%s %s N%lld G%lld C/G %lld K/G %lld in", kinds[c->kind], c->sp,
                     lays[c->lay], c->lay == GAPS ? (c->gaps_nhwc ? "(NHWC)" : "(NCHW)") : "", c->io,
                     (long long)c->n, (long long)c->g, (long long)c->cg, (long long)c->kg);
    for (int d = 0; d < c->sp && k > 0 && (size_t)k < n; d++)
        k += snprintf(buf + k, n - (size_t)k, " %lld(f%lld p%lld+%lld s%lld d%lld)", (long long)c->in[d],
                      (long long)c->f[d], (long long)c->pre[d], (long long)c->post[d], (long long)c->str[d],
                      (long long)c->dil[d]);
    if (k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, "%s%s", c->flip ? " conv-mode" : "", c->epi ? " +bias+relu" : "");
}

static conv_p random_conv(int kind, const char *io)
{
    conv_p c = {.kind = kind, .sp = rnd(0, 3) == 0 ? 3 : 2, .lay = (layout)rnd(0, 2), .gaps_nhwc = rnd(0, 1),
                .flip = rnd(0, 1), .io = io, .n = rnd(1, 3), .g = rnd(0, 3) == 0 ? rnd(2, 3) : 1,
                .cg = rnd(1, 12), .kg = rnd(1, 12), .epi = rnd(0, 1)};
    for (int d = 0; d < c.sp; d++) {
        c.f[d] = rnd(1, 3), c.dil[d] = rnd(1, 2), c.str[d] = rnd(1, 3);
        c.pre[d] = rnd(0, 2), c.post[d] = rnd(0, 2);
        int64_t lo = c.dil[d] * (c.f[d] - 1) + 1 - c.pre[d] - c.post[d];
        lo = lo > 1 ? lo : 1;
        c.in[d] = rnd((int)lo, (int)lo + (c.sp == 3 ? 5 : 11));
    }
    return c;
}

/* The entry of the first kernel jit_fused would build for g on this device. */
static const char *fused_entry(hipdnnBackendDescriptor_t g)
{
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    rt_device_info dev;
    TU_OK(rt_device(&dev));
    cg_target t = {.platform = "nvidia", .sm_count = dev.sm_count, .max_vec = 8, .loads_per_thread = 4};
    snprintf(t.arch, sizeof t.arch, "%s", dev.arch);
    ir_partition p;
    TU_OK(ir_fuse(ir, &p));
    cg_kernel k;
    TU_OK(cg_emit(ir, &p.k[0], &t, &k));
    const char *entry = k.entry; /* a string literal of codegen */
    cg_kernel_free(&k);
    ir_partition_free(&p);
    return entry;
}

/* Runs case c on both JIT engines against the reference; returns the fused kernel's entry. */
static const char *check_conv(const conv_p *c)
{
    char what[320];
    describe(c, what, sizeof what);
    hipdnnBackendDescriptor_t g = conv_graph(c);
    const char *entry = fused_entry(g);
    cr_log_info("%s -> %s", what, entry);
    check_graph_with(g, "jit_fused", NULL, what);
    check_graph_with(g, "jit_unfused", NULL, what);
    hipdnnBackendDestroyDescriptor(g);
    return entry;
}

Test(gpu_conv, fwd_random_shapes)
{
    const char *io[] = {"BFLOAT16", "HALF", "FLOAT"};
    for (int i = 0; i < 9; i++) {
        conv_p c = random_conv(0, io[i % 3]);
        check_conv(&c);
    }
}

Test(gpu_conv, dgrad_random_shapes)
{
    const char *io[] = {"BFLOAT16", "HALF", "FLOAT"};
    for (int i = 0; i < 9; i++) {
        conv_p c = random_conv(1, io[i % 3]);
        check_conv(&c);
    }
}

Test(gpu_conv, wgrad_random_shapes)
{
    const char *io[] = {"BFLOAT16", "HALF", "FLOAT"};
    for (int i = 0; i < 9; i++) {
        conv_p c = random_conv(2, io[i % 3]);
        check_conv(&c);
    }
}

/* More than 65536 outputs with short sums: one thread per output element (the other cases
 * mostly get a warp per element). */
Test(gpu_conv, direct_one_thread_per_element)
{
    conv_p f = {.kind = 0, .sp = 2, .lay = NCHW, .io = "BFLOAT16", .n = 2, .g = 1, .cg = 8, .kg = 24,
                .in = {40, 41}, .f = {3, 3}, .pre = {1, 1}, .post = {1, 1}, .str = {1, 1}, .dil = {1, 1}, .epi = true};
    check_conv(&f);
    conv_p d = f;
    d.kind = 1, d.cg = 24, d.kg = 8, d.lay = NHWC, d.io = "FLOAT";
    check_conv(&d);
}

/* Forward channels-last bf16 / fp16 with 16-byte aligned pixels: the tensor-core implicit
 * GEMM, on shapes that cover partial tiles in M and N, several k-steps, partial 8-channel
 * chunks (pixels padded to 8 channels), groups, 3-D, stride, dilation, padding, both modes. */
Test(gpu_conv, fwd_tensor_cores)
{
    for (int i = 0; i < 8; i++) {
        conv_p c = random_conv(0, i % 2 ? "HALF" : "BFLOAT16");
        c.lay = i % 3 == 2 ? GAPS : NHWC, c.gaps_nhwc = true;
        if (c.g > 1 || c.lay == NHWC)
            c.cg = 8 * rnd(1, 4); /* groups need whole chunks; packed pixels need 8 | C */
        c.kg = i == 3 ? rnd(129, 200) : rnd(1, 70);
        c.epi = i % 2 == 0;
        const char *entry = check_conv(&c);
        cr_expect_str_eq(entry, "hd_conv_igemm_kernel", "case %d takes the tensor cores", i);
    }
    /* more pixels than one 128-row tile, 3x3, C 32, K 40 */
    conv_p big = {.kind = 0, .sp = 2, .lay = NHWC, .io = "BFLOAT16", .n = 2, .g = 1, .cg = 32, .kg = 40,
                  .in = {14, 15}, .f = {3, 3}, .pre = {1, 1}, .post = {1, 1}, .str = {1, 1}, .dil = {1, 1}, .epi = true};
    cr_expect_str_eq(check_conv(&big), "hd_conv_igemm_kernel");
}

/* jit.vector_width 1 (pointers without 16-byte alignment) keeps a tensor-core-eligible forward
 * conv on the direct template; the result is the same. */
Test(gpu_conv, vector_width_1_takes_the_direct_path)
{
    conv_p c = {.kind = 0, .sp = 2, .lay = NHWC, .io = "BFLOAT16", .n = 2, .g = 1, .cg = 16, .kg = 24,
                .in = {9, 10}, .f = {3, 3}, .pre = {1, 1}, .post = {1, 1}, .str = {1, 1}, .dil = {1, 1}, .epi = true};
    hipdnnBackendDescriptor_t g = conv_graph(&c);
    cr_expect_str_eq(fused_entry(g), "hd_conv_igemm_kernel");
    const char *ids[] = {"jit.vector_width"};
    const int64_t one[] = {1};
    gpu_set_knobs(1, ids, one);
    check_graph_with(g, "jit_fused", NULL, "conv fwd NHWC bf16, jit.vector_width 1");
    check_graph_with(g, "jit_unfused", NULL, "conv fwd NHWC bf16, jit.vector_width 1 (unfused)");
    gpu_set_knobs(0, NULL, NULL);
    hipdnnBackendDestroyDescriptor(g);
}

/* ---- example graphs --------------------------------------------------------------------------------- */

static json_t *load_example(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "examples/graphs/%s", name);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    cr_assert_not_null(doc, "%s: %s (run from the repository root)", path, err.text);
    return doc;
}

/* The small size an example's dim maps to (the same dim everywhere, so shapes stay consistent;
 * the conv's 56 -> 9 keeps its 3x3 pad-1 output equal to its input). */
static int64_t small_dim(int64_t d)
{
    static const int64_t map[][2] = {{8192, 37}, {4096, 40}, {11008, 72}, {2048, 24}, {32, 2},
                                     {56, 9}, {64, 16}, {128, 24}, {256, 16}, {4, 3}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i][0] == d)
            return map[i][1];
    return d;
}

/* Scales every tensor of an example down, keeping each tensor's stride order (packed). */
static void shrink(json_t *doc)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(doc, "tensors"), i, t) {
        json_t *dims = json_object_get(t, "dims"), *strides = json_object_get(t, "strides");
        int r = (int)json_array_size(dims);
        int64_t d[IR_MAX_RANK], s[IR_MAX_RANK];
        int order[IR_MAX_RANK];
        for (int k = 0; k < r; k++) {
            d[k] = small_dim(json_integer_value(json_array_get(dims, (size_t)k)));
            s[k] = json_integer_value(json_array_get(strides, (size_t)k));
            order[k] = k;
        }
        for (int a = 1; a < r; a++) /* fastest first; ties: the later dim first */
            for (int b = a; b > 0 && (s[order[b]] < s[order[b - 1]] ||
                                      (s[order[b]] == s[order[b - 1]] && order[b] > order[b - 1])); b--) {
                int o = order[b];
                order[b] = order[b - 1], order[b - 1] = o;
            }
        int64_t acc = 1;
        for (int k = 0; k < r; k++)
            s[order[k]] = acc, acc *= d[order[k]];
        json_object_set_new(t, "dims", ints(r, d));
        json_object_set_new(t, "strides", ints(r, s));
    }
}

static hipdnnBackendDescriptor_t graph_of(json_t *doc)
{
    return finalize_graph(json_incref(json_object_get(doc, "tensors")), json_incref(json_object_get(doc, "nodes")));
}

static const char *supported_examples[] = {"layernorm.json", "rmsnorm_residual.json", "bn_inference_relu.json",
                                           "matmul_bias_gelu.json", "conv_bias_relu.json"};

/* Whether engine `name` supports g (ENGINE finalize); the last error says why when not. */
static bool engine_supports(hipdnnBackendDescriptor_t g, const char *name)
{
    int64_t id;
    TU_OK(hipdnnGetEngineIdByName_ext(handle, name, &id));
    hipdnnBackendDescriptor_t e;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINE_DESCRIPTOR, &e));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    TU_OK(hipdnnBackendSetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &id));
    hipdnnStatus_t st = hipdnnBackendFinalize(e);
    cr_assert(st == HIPDNN_STATUS_SUCCESS || st == HIPDNN_STATUS_NOT_SUPPORTED, "%s: status %d", name, (int)st);
    hipdnnBackendDestroyDescriptor(e);
    return st == HIPDNN_STATUS_SUCCESS;
}

/* The examples scaled down, through both JIT engines against the reference. The attention
 * examples (their scaled-down shapes would break GQA's head ratio, and the reference takes minutes
 * at full size) must be supported by both engines; their numbers are test_gpu_sdpa*.c's, on
 * random shapes with every option. */
Test(gpu_conv, examples_scaled_down_on_both_engines)
{
    for (size_t i = 0; i < sizeof supported_examples / sizeof supported_examples[0]; i++) {
        json_t *doc = load_example(supported_examples[i]);
        shrink(doc);
        hipdnnBackendDescriptor_t g = graph_of(doc);
        char what[96];
        snprintf(what, sizeof what, "%s (scaled down)", supported_examples[i]);
        check_graph_both_jit(g, what);
        hipdnnBackendDestroyDescriptor(g);
        json_decref(doc);
    }
    const char *sdpa[] = {"sdpa_causal.json", "sdpa_gqa_bwd.json", "sdpa_softcap.json"};
    for (int i = 0; i < 3; i++) {
        json_t *doc = load_example(sdpa[i]);
        hipdnnBackendDescriptor_t g = graph_of(doc);
        for (int e = 0; e < 2; e++) {
            const char *engine = e ? "jit_unfused" : "jit_fused";
            char msg[512] = "";
            bool ok = engine_supports(g, engine);
            if (!ok)
                hipdnnGetLastErrorString(msg, sizeof msg);
            cr_expect(ok, "%s on %s: %s", sdpa[i], engine, msg);
        }
        hipdnnBackendDestroyDescriptor(g);
        json_decref(doc);
    }
}

/* ---- full-size examples: jit_fused against jit_unfused ---------------------------------------------- */

typedef struct run_bufs {
    int n;
    const ir_tensor *t[16];
    int64_t uids[16];
    void *host[16], *dev[16], *out[16]; /* out: the unfused run's outputs (inputs shared) */
} run_bufs;

static void fill_inputs(const ir_graph *ir, run_bufs *b)
{
    b->n = 0;
    for (int i = 0; i < ir->n_t; i++) {
        const ir_tensor *t = &ir->t[i];
        if (t->is_virtual || t->by_value)
            continue;
        cr_assert_lt(b->n, 16);
        int k = b->n++;
        size_t bytes = extent_bytes(t);
        b->t[k] = t, b->uids[k] = t->uid, b->host[k] = malloc(bytes), b->out[k] = NULL;
        memset(b->host[k], 0, bytes);
        TU_OK(rt_malloc(&b->dev[k], bytes));
        if (t->producer < 0) {
            ir_buf v = view(t, b->host[k]);
            int64_t idx[IR_MAX_RANK] = {0};
            do
                ir_store(&v, idx, (double)rand() / RAND_MAX * 4 - 2);
            while (ir_next_index(&v, idx));
        } else {
            TU_OK(rt_malloc(&b->out[k], bytes));
            TU_OK(rt_memset(b->out[k], 0xff, bytes));
        }
        TU_OK(rt_memcpy_h2d(b->dev[k], b->host[k], bytes));
        if (t->producer >= 0)
            TU_OK(rt_memset(b->dev[k], 0xff, bytes));
    }
}

/* Milliseconds per run of plan (median of 5 after one warm-up). */
static float time_plan(hipdnnBackendDescriptor_t plan, run_bufs *b, void **ptrs, void *ws)
{
    rt_event e0, e1;
    TU_OK(rt_event_create(&e0));
    TU_OK(rt_event_create(&e1));
    float t[5];
    execute(plan, b->n, b->uids, ptrs, ws);
    for (int i = 0; i < 5; i++) {
        TU_OK(rt_event_record(e0, NULL));
        execute(plan, b->n, b->uids, ptrs, ws);
        TU_OK(rt_event_record(e1, NULL));
        TU_OK(rt_event_elapsed_ms(e0, e1, &t[i]));
    }
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            float x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    rt_event_destroy(e0), rt_event_destroy(e1);
    return t[2];
}

/* conv_bias_relu: y = relu(conv(x, w) + bias) at sampled outputs, summed in double here. */
static void sample_conv_example(const ir_graph *ir, run_bufs *b, int yk)
{
    const ir_tensor *x = NULL, *w = NULL, *bias = NULL;
    int xk = -1, wk = -1, bk = -1;
    for (int k = 0; k < b->n; k++) {
        if (b->uids[k] == 1)
            x = b->t[k], xk = k;
        if (b->uids[k] == 2)
            w = b->t[k], wk = k;
        if (b->uids[k] == 4)
            bias = b->t[k], bk = k;
    }
    cr_assert(x && w && bias);
    (void)ir;
    ir_buf vx = view(x, b->host[xk]), vw = view(w, b->host[wk]), vb = view(bias, b->host[bk]);
    ir_buf vy = view(b->t[yk], b->host[yk]);
    enum { SAMPLES = 2000 };
    double got[SAMPLES], want[SAMPLES];
    for (int s = 0; s < SAMPLES; s++) {
        int64_t n = rand() % 32, k = rand() % 128, p = rand() % 56, q = rand() % 56;
        double acc = 0;
        for (int r = 0; r < 3; r++)
            for (int t = 0; t < 3; t++) {
                int64_t h = p - 1 + r, ww = q - 1 + t;
                if (h < 0 || h >= 56 || ww < 0 || ww >= 56)
                    continue;
                for (int64_t c = 0; c < 64; c++) {
                    int64_t xi[4] = {n, c, h, ww}, wi[4] = {k, c, r, t};
                    acc += ir_load(&vx, xi) * ir_load(&vw, wi);
                }
            }
        int64_t bi[4] = {0, k, 0, 0}, yi[4] = {n, k, p, q};
        want[s] = ir_dtype_round(b->t[yk]->dtype, fmax(0.0, (double)(float)acc + ir_load(&vb, bi)));
        got[s] = ir_load(&vy, yi);
    }
    char what[96];
    snprintf(what, sizeof what, "conv example: sampled outputs against the direct sum (seed %u)", seed);
    tu_expect_close(what, got, want, SAMPLES, tu_tol_for(b->t[yk]->dtype, TU_DOT, 64 * 9));
}

static void compare_full_size(const char *file)
{
    json_t *doc = load_example(file);
    hipdnnBackendDescriptor_t g = graph_of(doc);
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    run_bufs b;
    fill_inputs(ir, &b);
    hipdnnBackendDescriptor_t pf = plan_with(g, "jit_fused"), pu = plan_with(g, "jit_unfused");
    int64_t wsf = workspace_of(pf), wsu = workspace_of(pu);
    void *dwf = NULL, *dwu = NULL, *ptr_u[16];
    if (wsf > 0)
        TU_OK(rt_malloc(&dwf, (size_t)wsf));
    if (wsu > 0) {
        TU_OK(rt_malloc(&dwu, (size_t)wsu));
        TU_OK(rt_memset(dwu, 0xff, (size_t)wsu));
    }
    for (int k = 0; k < b.n; k++)
        ptr_u[k] = b.t[k]->producer >= 0 ? b.out[k] : b.dev[k];
    execute(pf, b.n, b.uids, b.dev, dwf);
    execute(pu, b.n, b.uids, ptr_u, dwu);
    TU_OK(rt_stream_sync(NULL));
    for (int k = 0; k < b.n; k++) {
        if (b.t[k]->producer < 0)
            continue;
        size_t bytes = extent_bytes(b.t[k]);
        void *other = malloc(bytes);
        TU_OK(rt_memcpy_d2h(b.host[k], b.dev[k], bytes));
        TU_OK(rt_memcpy_d2h(other, b.out[k], bytes));
        ir_buf fused = view(b.t[k], b.host[k]), unfused = view(b.t[k], other);
        char what[128];
        snprintf(what, sizeof what, "%s full size, fused against unfused", file);
        gpu_compare_output(ir, (int)(b.t[k] - ir->t), &fused, &unfused, what);
        if (strcmp(file, "conv_bias_relu.json") == 0)
            sample_conv_example(ir, &b, k);
        free(other);
    }
    float tf = time_plan(pf, &b, b.dev, dwf), tu = time_plan(pu, &b, ptr_u, dwu);
    printf("%s full size: jit_fused %.3f ms, jit_unfused %.3f ms (workspace %lld bytes)\n", file, tf, tu,
           (long long)wsu);
    fflush(stdout);
    for (int k = 0; k < b.n; k++)
        free(b.host[k]), rt_free(b.dev[k]), rt_free(b.out[k]);
    rt_free(dwf), rt_free(dwu);
    hipdnnBackendDestroyDescriptor(pf), hipdnnBackendDestroyDescriptor(pu);
    hipdnnBackendDestroyDescriptor(g);
    json_decref(doc);
}

Test(gpu_conv, example_conv_full_size, .timeout = 120)
{
    compare_full_size("conv_bias_relu.json");
}

Test(gpu_conv, example_matmul_full_size, .timeout = 120)
{
    compare_full_size("matmul_bias_gelu.json");
}

Test(gpu_conv, examples_norms_full_size, .timeout = 120)
{
    compare_full_size("bn_inference_relu.json");
    compare_full_size("rmsnorm_residual.json");
}

/* ---- graphs only the unfused engine runs ---------------------------------------------------------- */

/* The engine ids of the configs the heuristics rank for g, best first (at most 64). */
static int heuristics(hipdnnBackendDescriptor_t g, int64_t *ids)
{
    hipdnnBackendDescriptor_t heur, cfgs[64];
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    TU_OK(hipdnnBackendFinalize(heur));
    int64_t n = 0, got = 0;
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, NULL));
    cr_assert_leq(n, 64);
    for (int64_t i = 0; i < n; i++)
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, n, &got, cfgs));
    for (int64_t i = 0; i < n; i++) {
        TU_OK(hipdnnBackendFinalize(cfgs[i]));
        hipdnnBackendDescriptor_t e;
        int64_t one;
        TU_OK(hipdnnBackendGetAttribute(cfgs[i], HIPDNN_ATTR_ENGINECFG_ENGINE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &one, &e));
        TU_OK(hipdnnBackendGetAttribute(e, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, 1, &one, &ids[i]));
        hipdnnBackendDestroyDescriptor(e), hipdnnBackendDestroyDescriptor(cfgs[i]);
    }
    hipdnnBackendDestroyDescriptor(heur);
    return (int)n;
}

static int64_t engine_id(const char *name)
{
    int64_t id;
    TU_OK(hipdnnGetEngineIdByName_ext(handle, name, &id));
    return id;
}

/* The engines of ranked configs ids[0..n), each once, in order (runs of one engine merged). */
static int engines_in_order(const int64_t *ids, int n, int64_t *out)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || out[m - 1] != ids[i])
            out[m++] = ids[i];
    return m;
}

/* jit_fused refuses g with `reason` in its message; the heuristics rank jit_unfused's configs,
 * then the reference; jit_unfused computes the reference's result. */
static void check_unfused_only(hipdnnBackendDescriptor_t g, const char *reason, const char *what)
{
    cr_expect(!engine_supports(g, "jit_fused"), "%s: jit_fused refuses", what);
    char msg[512];
    hipdnnGetLastErrorString(msg, sizeof msg);
    cr_expect_not_null(strstr(msg, reason), "%s: %s", what, msg);
    cr_log_info("%s on jit_fused: %s", what, msg);
    int64_t ids[64], order[64];
    int n = engines_in_order(ids, heuristics(g, ids), order);
    cr_assert_eq(n, 2, "%s: jit_unfused and reference", what);
    cr_expect_eq(order[0], engine_id("jit_unfused"));
    cr_expect_eq(order[1], engine_id("reference"));
    check_graph_with(g, "jit_unfused", NULL, what);
}

/* A [1, M, K] fp32 -> IDENTITY (cast) -> virtual bf16 -> matmul with B bf16 [1, K, N] -> C bf16.
 * The cast is the matmul's prologue, which the matmul template does not take. */
Test(gpu_conv, unfused_only_cast_into_matmul)
{
    int64_t M = rnd(1, 150), K = 8 * rnd(1, 20), N = rnd(1, 150);
    int64_t ad[3] = {1, M, K}, as[3], bd[3] = {1, K, N}, bs[3] = {K * N, 1, K}, cd[3] = {1, M, N}, cs[3];
    packed(3, ad, as, 0), packed(3, cd, cs, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, "FLOAT", 3, ad, as, false));
    json_array_append_new(tensors, tensor(2, "BFLOAT16", 3, ad, as, true));
    json_array_append_new(tensors, tensor(3, "BFLOAT16", 3, bd, bs, false));
    json_array_append_new(tensors, tensor(4, "BFLOAT16", 3, cd, cs, false));
    json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}",
        "operation", "IDENTITY", "in_0_tensor_uid", 1, "out_0_tensor_uid", 2)));
    json_array_append_new(nodes, node("MatmulAttributes", json_pack("{s:i, s:i, s:i}", "a_tensor_uid", 2,
                                                                    "b_tensor_uid", 3, "c_tensor_uid", 4)));
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    char what[96];
    snprintf(what, sizeof what, "fp32 -> bf16 cast -> matmul [%lld x %lld x %lld]", (long long)M,
             (long long)K, (long long)N);
    check_unfused_only(g, "prologue", what);
    hipdnnBackendDestroyDescriptor(g);
}

/* conv y [1, K, P, Q] (virtual fp32) + r [2, K, P, Q] -> relu -> z [2, K, P, Q]: the epilogue's
 * result is larger than the conv's output, which no conv template addresses. */
Test(gpu_conv, unfused_only_broadcast_conv_epilogue)
{
    conv_p c = {.kind = 0, .sp = 2, .lay = NHWC, .io = "BFLOAT16", .n = 1, .g = 1, .cg = 8 * rnd(1, 3),
                .kg = rnd(1, 40), .in = {rnd(3, 12), rnd(3, 12)}, .f = {3, 3}, .pre = {1, 1}, .post = {1, 1},
                .str = {1, 1}, .dil = {1, 1}};
    int64_t xd[4] = {1, c.cg, c.in[0], c.in[1]}, wd[4] = {c.kg, c.cg, 3, 3}, yd[4] = {1, c.kg, c.in[0], c.in[1]};
    int64_t zd[4] = {2, c.kg, c.in[0], c.in[1]}, xs[4], ws[4], ys[4], zs[4];
    strides_of(&c, 4, xd, xs), strides_of(&c, 4, wd, ws), strides_of(&c, 4, yd, ys), strides_of(&c, 4, zd, zs);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, "BFLOAT16", 4, xd, xs, false));
    json_array_append_new(tensors, tensor(2, "BFLOAT16", 4, wd, ws, false));
    json_array_append_new(tensors, tensor(3, "FLOAT", 4, yd, ys, true));
    json_array_append_new(tensors, tensor(4, "BFLOAT16", 4, zd, zs, false));
    json_array_append_new(tensors, tensor(5, "FLOAT", 4, zd, zs, true));
    json_array_append_new(tensors, tensor(6, "BFLOAT16", 4, zd, zs, false));
    int64_t one[2] = {1, 1};
    json_array_append_new(nodes, node("ConvolutionFwdAttributes", json_pack("{s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:s}",
        "x_tensor_uid", 1, "w_tensor_uid", 2, "y_tensor_uid", 3, "pre_padding", ints(2, one), "post_padding",
        ints(2, one), "stride", ints(2, one), "dilation", ints(2, one), "conv_mode", "CROSS_CORRELATION")));
    json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}",
        "operation", "ADD", "in_0_tensor_uid", 3, "in_1_tensor_uid", 4, "out_0_tensor_uid", 5)));
    json_array_append_new(nodes, node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}",
        "operation", "RELU_FWD", "in_0_tensor_uid", 5, "out_0_tensor_uid", 6)));
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    check_unfused_only(g, "epilogue tensor", "conv + broadcast residual + relu");
    hipdnnBackendDestroyDescriptor(g);
}

/* Both JIT engines and the reference, in that order, for a graph both take. */
Test(gpu_conv, heuristics_rank_fused_unfused_reference)
{
    conv_p c = random_conv(0, "BFLOAT16");
    hipdnnBackendDescriptor_t g = conv_graph(&c);
    int64_t ids[64], order[64];
    int n = engines_in_order(ids, heuristics(g, ids), order);
    cr_assert_eq(n, 3);
    cr_expect_eq(order[0], engine_id("jit_fused"));
    cr_expect_eq(order[1], engine_id("jit_unfused"));
    cr_expect_eq(order[2], engine_id("reference"));
    hipdnnBackendDestroyDescriptor(g);
}
