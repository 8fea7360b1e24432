/* test_gpu_quant.c — block-scale quantize (standalone, after an elementwise prologue, and as the
 * tail of a layernorm / rmsnorm kernel), block-scale dequantize (standalone and inside pointwise
 * regions) and the paged KV-cache load on the GPU, against the reference engine.
 *
 * Random shapes each run (odd numbers of blocks, any quantized axis, padded and transposed
 * layouts, page sizes that do not divide the sequence), fresh random data: quantizer inputs get
 * a random magnitude per block (2^-24 .. 2^24, some all-zero blocks) so the scales cover a
 * wide range; page tables are random valid block ids.
 *
 * Comparison (qcheck), per output element, of the stored bits:
 *   EXACT  every element's bits equal the reference's. This holds where the kernel sees the
 *          same input values as the reference: a quantize reading its input from memory or
 *          after exact prologue ops (add, multiply of narrow types, dequantize), dequantize
 *          (an FP8/FP4/INT8 value times an E8M0/E4M3 scale is exact in float: one rounding on
 *          both sides), and the paged load (a copy). Quantized values and scales then agree bit
 *          for bit: same amax, the scale's ratio taken in double, one round-to-nearest-even.
 *   NEAR   the quantizer's input is computed in float on the GPU and in double in the
 *          reference (a norm, batchnorm): a value or block maximum within a float rounding of
 *          a rounding boundary may land one code (or a block scale one power of two) apart.
 *          At most 1% of codes may differ, and the relative L2 error of every output stays
 *          within the type's tolerance (gpu_util.c).
 * Outputs are poisoned (0xFF bytes) before the launch; an unwritten code differs.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"

TestSuite(gpu_quant, .init = gpu_setup, .fini = gpu_teardown);

typedef enum match { EXACT, NEAR } match;

/* ---- inputs: what a case wants in its tensors ------------------------------------------------------ */

typedef struct wants {
    int x_uid;              /* quantizer input: a random magnitude per block */
    int axis;
    int64_t block;
    unsigned salt;
    int scale_uid;          /* dequantize scales: E8M0 powers of two, positive E4M3 values */
    int table_uid, seq_uid; /* paged: page table and sequence lengths */
    int64_t nblk, seq_max;
} wants;

static wants want;

static unsigned mix(uint64_t v)
{
    v ^= v >> 33, v *= 0xff51afd7ed558ccdULL, v ^= v >> 33, v *= 0xc4ceb9fe1a85ec53ULL, v ^= v >> 33;
    return (unsigned)v;
}

static double uniform(double lo, double hi) { return lo + (hi - lo) * rand() / (double)RAND_MAX; }

/* x: each block (block of `want.block` along `want.axis`) gets a magnitude 2^e, e random, or
 * zeros; a quarter of the values have 5 significant bits, so quotients land on rounding ties. */
static void fill_blocks(const ir_tensor *t, ir_buf *b)
{
    int64_t idx[IR_MAX_RANK] = {0};
    int emax = t->dtype == HIPDNN_DATA_HALF ? 12 : 24, emin = t->dtype == HIPDNN_DATA_HALF ? -14 : -24;
    do {
        uint64_t lin = 0;
        for (int d = 0; d < t->rank; d++) {
            int64_t n = d == want.axis ? (t->dims[d] + want.block - 1) / want.block : t->dims[d];
            lin = lin * (uint64_t)n + (uint64_t)(d == want.axis ? idx[d] / want.block : idx[d]);
        }
        unsigned h = mix(lin * 0x9e3779b97f4a7c15ULL + want.salt);
        double mag = h % 17 == 0 ? 0.0 : ldexp(1.0, emin + (int)(h >> 8) % (emax - emin + 1));
        double u = rand() % 4 ? uniform(-2, 2) : rnd(-16, 16) / 8.0; /* short values: exact ties */
        ir_store(b, idx, u * mag);
    } while (ir_next_index(b, idx));
}

/* What a case wants in its inputs (qcheck); false: uniform in [-2, 2]. */
static bool fill(const ir_tensor *t, ir_buf *b)
{
    int64_t idx[IR_MAX_RANK] = {0};
    if (t->uid == want.x_uid) {
        fill_blocks(t, b);
        return true;
    }
    bool table = t->uid == want.table_uid, seq = t->uid == want.seq_uid, sc = t->uid == want.scale_uid;
    if (!table && !seq && !sc && t->dtype != HIPDNN_DATA_INT8)
        return false;
    do {
        double v;
        if (table)
            v = rand() % want.nblk;                      /* any valid block, reused or not */
        else if (seq)
            v = idx[0] == 0 ? want.seq_max : rand() % (want.seq_max + 1);
        else if (sc && t->dtype == HIPDNN_DATA_FP8_E8M0)
            v = ldexp(1.0, rnd(-20, 20));
        else if (sc)
            v = ldexp(uniform(1, 2), rnd(-8, 8));
        else
            v = rnd(-127, 127);                          /* INT8 data */
        ir_store(b, idx, v);
    } while (ir_next_index(b, idx));
    return true;
}

/* ---- comparison --------------------------------------------------------------------------------------- */

/* The stored bits of element idx (a nibble for FP4). */
static uint32_t bits_at(const ir_tensor *t, const void *p, const int64_t *idx)
{
    int64_t off = 0;
    for (int d = 0; d < t->rank; d++)
        if (t->dims[d] != 1)
            off += idx[d] * t->strides[d];
    const uint8_t *u8 = p;
    if (t->dtype == HIPDNN_DATA_FP4_E2M1)
        return (off & 1) ? u8[off >> 1] >> 4 : u8[off >> 1] & 0xf;
    size_t es = fe_dtype_size(t->dtype);
    uint32_t v = 0;
    memcpy(&v, u8 + off * (int64_t)es, es);
    return v;
}

static bool is_code_type(hipdnnDataType_t t)
{
    return t == HIPDNN_DATA_FP8_E4M3 || t == HIPDNN_DATA_FP8_E5M2 || t == HIPDNN_DATA_FP8_E8M0 ||
           t == HIPDNN_DATA_FP4_E2M1 || t == HIPDNN_DATA_INT8;
}

static void compare(const ir_tensor *t, void *got_p, void *want_p, match m, const char *what)
{
    ir_buf got = view(t, got_p), ref = view(t, want_p);
    int64_t idx[IR_MAX_RANK] = {0}, first[IR_MAX_RANK] = {0}, n = 0, diff = 0;
    double num = 0, den = 0;
    bool nan = false;
    do {
        double a = ir_load(&got, idx), b = ir_load(&ref, idx);
        if (bits_at(t, got_p, idx) != bits_at(t, want_p, idx) && diff++ == 0)
            memcpy(first, idx, sizeof first);
        nan |= isnan(a) && !isnan(b);
        if (!isnan(a) && !isnan(b))
            num += (a - b) * (a - b), den += b * b;
        n++;
    } while (ir_next_index(&got, idx));
    double rel = sqrt(num / (den > 0 ? den : 1));
    if (diff > 0) {
        char at[128] = "";
        for (int d = 0, k = 0; d < t->rank; d++)
            k += snprintf(at + k, sizeof at - (size_t)k, d ? ",%lld" : "%lld", (long long)first[d]);
        cr_log_info("%s: uid %lld: %lld of %lld elements differ, first at [%s]: %g (bits %#x), reference "
                    "%g (bits %#x)", what, (long long)t->uid, (long long)diff, (long long)n, at,
                    ir_load(&got, first), bits_at(t, got_p, first), ir_load(&ref, first),
                    bits_at(t, want_p, first));
    }
    if (m == EXACT) {
        cr_expect_eq(diff, 0, "%s: uid %lld: %lld of %lld elements not bit-exact", what,
                     (long long)t->uid, (long long)diff, (long long)n);
        return;
    }
    cr_expect(!nan, "%s: output uid %lld has unwritten (NaN) elements", what, (long long)t->uid);
    if (is_code_type(t->dtype))
        cr_expect_leq(diff, n / 100, "%s: uid %lld: %lld of %lld codes differ (more than 1%%)", what,
                      (long long)t->uid, (long long)diff, (long long)n);
    cr_expect_leq(rel, tolerance(t->dtype), "%s: uid %lld rel err %.3g > %.3g", what, (long long)t->uid,
                  rel, tolerance(t->dtype));
    cr_log_info("%s: uid %lld: %lld/%lld differ, rel err %.3g", what, (long long)t->uid, (long long)diff,
                (long long)n, rel);
}

/* Runs g on the fused JIT engine (device memory, outputs poisoned) and on the reference engine
 * with the same inputs (`fill`, else uniform in [-2, 2]) and compares every output. */
static void qcheck(hipdnnBackendDescriptor_t g, const char *what, match m)
{
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    int n = 0;
    int64_t uids[64];
    void *host[64], *dev[64], *ref[64];
    const ir_tensor *ts[64];
    for (int i = 0; i < ir->n_t && n < 64; i++) {
        const ir_tensor *t = &ir->t[i];
        if (t->is_virtual || t->by_value)
            continue;
        size_t bytes = extent_bytes(t);
        ts[n] = t, uids[n] = t->uid;
        host[n] = malloc(bytes), ref[n] = malloc(bytes);
        TU_OK(rt_malloc(&dev[n], bytes));
        memset(host[n], 0xff, bytes);
        ir_buf b = view(t, host[n]);
        if (t->producer < 0 && !fill(t, &b)) {
            int64_t idx[IR_MAX_RANK] = {0};
            do
                ir_store(&b, idx, uniform(-2, 2));
            while (ir_next_index(&b, idx));
        }
        memcpy(ref[n], host[n], bytes);
        TU_OK(rt_memcpy_h2d(dev[n], host[n], bytes));
        n++;
    }
    hipdnnBackendDescriptor_t gpu_plan = plan_with(g, "jit_fused"), ref_plan = plan_with(g, "reference");
    int64_t ws = workspace_of(gpu_plan);
    void *dws = NULL, *hws = malloc((size_t)workspace_of(ref_plan) + 1);
    if (ws > 0) {
        TU_OK(rt_malloc(&dws, (size_t)ws));
        TU_OK(rt_memset(dws, 0xff, (size_t)ws));
    }
    execute(gpu_plan, n, uids, dev, dws);
    TU_OK(rt_stream_sync(NULL));
    execute(ref_plan, n, uids, ref, hws);
    for (int i = 0; i < n; i++) {
        if (ts[i]->producer < 0)
            continue;
        TU_OK(rt_memcpy_d2h(host[i], dev[i], extent_bytes(ts[i])));
        compare(ts[i], host[i], ref[i], m, what);
    }
    for (int i = 0; i < n; i++)
        free(host[i]), free(ref[i]), rt_free(dev[i]);
    free(hws);
    rt_free(dws);
    hipdnnBackendDestroyDescriptor(gpu_plan), hipdnnBackendDestroyDescriptor(ref_plan);
}

/* ---- graph pieces ------------------------------------------------------------------------------------ */

/* Strides that make `axis` the fastest dim, the others row-major around it (transpose). */
static void axis_fastest(int rank, const int64_t *dims, int axis, int64_t *strides)
{
    int64_t s = dims[axis];
    strides[axis] = 1;
    for (int d = rank - 1; d >= 0; d--)
        if (d != axis)
            strides[d] = s, s *= dims[d];
}

static json_t *quant_node(int x, int y, int s, int block, int axis, bool transpose)
{
    return node("BlockScaleQuantizeAttributes", json_pack("{s:i, s:i, s:i, s:i, s:i, s:b}", "x_tensor_uid", x,
        "y_tensor_uid", y, "scale_tensor_uid", s, "block_size", block, "axis", axis, "transpose", transpose));
}

static json_t *pw_node(const char *mode, int a, int b, int y)
{
    if (b < 0)
        return node("PointwiseAttributes", json_pack("{s:s, s:i, s:i}", "operation", mode, "in_0_tensor_uid",
                                                     a, "out_0_tensor_uid", y));
    return node("PointwiseAttributes", json_pack("{s:s, s:i, s:i, s:i}", "operation", mode, "in_0_tensor_uid",
                                                 a, "in_1_tensor_uid", b, "out_0_tensor_uid", y));
}

/* Appends quantize outputs y (uid 21) and scale (uid 22) for input dims xd; transposed layouts
 * put the axis fastest in both. */
static void quant_outputs(json_t *tensors, int rank, const int64_t *xd, int axis, int block,
                          const char *yt, const char *st, bool transpose)
{
    int64_t ys[IR_MAX_RANK], sd[IR_MAX_RANK], ss[IR_MAX_RANK];
    memcpy(sd, xd, sizeof sd[0] * (size_t)rank);
    sd[axis] /= block;
    if (transpose)
        axis_fastest(rank, xd, axis, ys), axis_fastest(rank, sd, axis, ss);
    else
        packed(rank, xd, ys, 0), packed(rank, sd, ss, 0);
    json_array_append_new(tensors, tensor(21, yt, rank, xd, ys, false));
    json_array_append_new(tensors, tensor(22, st, rank, sd, ss, false));
}

typedef struct fmt {
    const char *y, *scale;
    int block;
} fmt;

static const fmt MXFP8 = {"FP8_E4M3", "FP8_E8M0", 32}, MXFP8_E5M2 = {"FP8_E5M2", "FP8_E8M0", 32},
                 NVFP4 = {"FP4_E2M1", "FP8_E4M3", 16}, MXFP4 = {"FP4_E2M1", "FP8_E8M0", 32},
                 MXINT8 = {"INT8", "FP8_E8M0", 32};

/* ---- quantize ---------------------------------------------------------------------------------------- */

/* x [rank dims] (row stride padded by pad) -> [prologue] -> quantize along axis. Prologue 0:
 * none; 1: x = a + r (bf16, the sum written as a bf16 graph tensor); 2: x = dequantize(fp8
 * E4M3 data, E8M0 scales per 32 along the axis) into float (a requantization). */
static void quant_case(const char *xt, fmt f, int rank, int axis, int64_t pad, bool transpose, int prologue)
{
    int64_t xd[IR_MAX_RANK], xs[IR_MAX_RANK];
    for (int d = 0; d < rank; d++)
        xd[d] = rnd(1, rank > 2 ? 5 : 40);
    int per = prologue == 2 ? 32 : f.block; /* the axis holds an odd number of these */
    xd[axis] = per * (2 * rnd(0, 4) + 1);
    packed(rank, xd, xs, pad);
    json_t *tensors = json_array(), *nodes = json_array();
    int x = 1;
    want = (wants){.x_uid = 1, .axis = axis, .block = f.block, .salt = (unsigned)rand()};
    if (prologue == 0) {
        json_array_append_new(tensors, tensor(1, xt, rank, xd, xs, false));
    } else if (prologue == 1) {
        json_array_append_new(tensors, tensor(1, "BFLOAT16", rank, xd, xs, false));
        json_array_append_new(tensors, tensor(2, "BFLOAT16", rank, xd, xs, false));
        json_array_append_new(tensors, tensor(3, "BFLOAT16", rank, xd, xs, false));
        json_array_append_new(nodes, pw_node("ADD", 1, 2, 3));
        x = 3;
    } else {
        int64_t sd[IR_MAX_RANK], ss[IR_MAX_RANK];
        memcpy(sd, xd, sizeof sd);
        sd[axis] /= 32;
        packed(rank, sd, ss, 0);
        json_t *blocks = json_array();
        for (int d = axis; d < rank; d++)
            json_array_append_new(blocks, json_integer(d == axis ? 32 : 1));
        json_array_append_new(tensors, tensor(1, "FP8_E4M3", rank, xd, xs, false));
        json_array_append_new(tensors, tensor(2, "FP8_E8M0", rank, sd, ss, false));
        json_array_append_new(tensors, tensor(3, "FLOAT", rank, xd, xs, true));
        json_array_append_new(nodes, node("BlockScaleDequantizeAttributes", json_pack("{s:i, s:i, s:i, s:o}",
            "x_tensor_uid", 1, "scale_tensor_uid", 2, "y_tensor_uid", 3, "block_size", blocks)));
        want.x_uid = -1, want.scale_uid = 2; /* fp8 data: the uniform default */
        x = 3;
    }
    quant_outputs(tensors, rank, xd, axis, f.block, f.y, f.scale, transpose);
    json_array_append_new(nodes, quant_node(x, 21, 22, f.block, axis, transpose));
    char what[200], dims[80] = "";
    for (int d = 0, k = 0; d < rank; d++)
        k += snprintf(dims + k, sizeof dims - (size_t)k, d ? "x%lld" : "%lld", (long long)xd[d]);
    snprintf(what, sizeof what, "quantize %s [%s] axis %d pad %lld -> %s/%s block %d%s%s", xt, dims, axis,
             (long long)pad, f.y, f.scale, f.block, transpose ? " transposed" : "",
             prologue == 1 ? " (add prologue)" : prologue == 2 ? " (dequantize prologue)" : "");
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    qcheck(g, what, EXACT);
    hipdnnBackendDestroyDescriptor(g);
}

Test(gpu_quant, quantize_formats_random_shapes)
{
    const fmt fmts[] = {MXFP8, MXFP8_E5M2, NVFP4, MXFP4, MXINT8};
    const char *xt[] = {"BFLOAT16", "FLOAT", "HALF"};
    for (int i = 0; i < 10; i++) {
        int rank = rnd(1, 4), axis = i % 3 == 0 ? rnd(0, rank - 1) : rank - 1;
        quant_case(xt[i % 3], fmts[i % 5], rank, axis, rank > 1 && i % 4 == 1 ? rnd(1, 9) : 0, i % 4 == 3, 0);
    }
}

/* Block sizes other than 16 / 32: odd ones (not for FP4), tiny ones, ones beyond the register-
 * held path (> 64: the prologue runs twice). */
Test(gpu_quant, quantize_unusual_blocks)
{
    const int blocks[] = {1, 3, 7, 2, 48, 96, 128, 200};
    for (int i = 0; i < 8; i++) {
        fmt f = i % 2 ? (fmt){"FP8_E4M3", "FP8_E4M3", blocks[i]} : (fmt){"INT8", "FP8_E8M0", blocks[i]};
        if (blocks[i] % 2 == 0 && i % 3 == 0)
            f.y = "FP4_E2M1";
        quant_case("BFLOAT16", f, 2, i % 4 == 0 ? 0 : 1, i % 3 ? 0 : 5, i == 5, 0);
    }
}

Test(gpu_quant, quantize_with_prologue)
{
    quant_case("BFLOAT16", MXFP8, 2, 1, 0, false, 1);
    quant_case("BFLOAT16", NVFP4, 3, 2, 3, false, 1);
    quant_case("FLOAT", NVFP4, 2, 1, 0, false, 2);   /* MXFP8 -> NVFP4 requantization */
    quant_case("FLOAT", MXFP8_E5M2, 3, 1, 0, true, 2);
}

/* x [N, C, H, W] (NHWC) -> batchnorm inference -> quantize along C: an elementwise anchor whose
 * epilogue ends in the quantize (blockquant.hip). The normalization runs in float (NEAR). */
Test(gpu_quant, bn_inference_then_quantize)
{
    int64_t d[4] = {rnd(1, 3), 32 * rnd(1, 3), rnd(1, 7), rnd(1, 9)};
    int64_t nhwc[4] = {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]}, cd[4] = {1, d[1], 1, 1}, cs[4];
    packed(4, cd, cs, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, "BFLOAT16", 4, d, nhwc, false));
    for (int u = 2; u <= 5; u++)
        json_array_append_new(tensors, tensor(u, "FLOAT", 4, cd, cs, false));
    json_array_append_new(tensors, tensor(6, "FLOAT", 4, d, nhwc, true));
    quant_outputs(tensors, 4, d, 1, 32, "FP8_E4M3", "FP8_E8M0", true);
    json_array_append_new(nodes, node("BatchnormInferenceAttributes", json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}",
        "x_tensor_uid", 1, "mean_tensor_uid", 2, "inv_variance_tensor_uid", 3, "scale_tensor_uid", 4,
        "bias_tensor_uid", 5, "y_tensor_uid", 6)));
    json_array_append_new(nodes, quant_node(6, 21, 22, 32, 1, true));
    want = (wants){.x_uid = -1};
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    qcheck(g, "bn_inference -> MXFP8 along C", NEAR);
    hipdnnBackendDestroyDescriptor(g);
}

/* ---- norm -> quantize in one row kernel ------------------------------------------------------------- */

/* x [R, C] (row stride padded by pad) -> rmsnorm / layernorm -> [times 0.5] -> quantize along C.
 * The norm's y is a graph tensor when y_out, else a virtual float; the scale is column-major
 * when scale_t. With A > 0: x [A, R, C], a layernorm over the last two dims (row = R x C). */
static void norm_quant_case(bool rms, const char *io, int64_t A, int64_t R, int64_t C, int64_t pad, fmt f,
                            bool scale_epi, bool y_out, bool scale_t)
{
    int rank = A > 0 ? 3 : 2;
    int64_t xd[3] = {R, C}, xs[3], wd[3] = {1, C}, ws[3];
    if (A > 0)
        xd[0] = A, xd[1] = R, xd[2] = C, wd[0] = 1, wd[1] = R, wd[2] = C;
    packed(rank, xd, xs, pad), packed(rank, wd, ws, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, io, rank, xd, xs, false));
    json_array_append_new(tensors, tensor(2, "FLOAT", rank, wd, ws, false));
    json_array_append_new(tensors, tensor(3, "FLOAT", rank, wd, ws, false));
    json_array_append_new(tensors, scalar(4, 1e-5f));
    json_array_append_new(tensors, tensor(5, y_out ? io : "FLOAT", rank, xd, xs, !y_out));
    int q = 5;
    if (scale_epi) {
        json_t *half = scalar(7, 0.5f);
        if (rank == 3) { /* the pointwise ranks must agree */
            json_object_set_new(half, "dims", json_pack("[i,i,i]", 1, 1, 1));
            json_object_set_new(half, "strides", json_pack("[i,i,i]", 1, 1, 1));
        }
        json_array_append_new(tensors, half);
        json_array_append_new(tensors, tensor(8, "FLOAT", rank, xd, xs, true));
        json_array_append_new(nodes, pw_node("MUL", 5, 7, 8));
        q = 8;
    }
    quant_outputs(tensors, rank, xd, rank - 1, f.block, f.y, f.scale, false);
    if (scale_t) { /* the scale with its first dim fastest */
        json_t *s = json_array_get(tensors, json_array_size(tensors) - 1);
        int64_t sd[3] = {xd[0], xd[1], xd[2]}, ss[3];
        sd[rank - 1] /= f.block;
        axis_fastest(rank, sd, 0, ss);
        json_t *st = json_array();
        for (int d = 0; d < rank; d++)
            json_array_append_new(st, json_integer(ss[d]));
        json_object_set_new(s, "strides", st);
    }
    json_t *attrs = json_pack("{s:i, s:i, s:i, s:i, s:i, s:s}", "x_tensor_uid", 1, "scale_tensor_uid", 2,
                              "bias_tensor_uid", 3, "epsilon_tensor_uid", 4, "y_tensor_uid", 5,
                              "forward_phase", "INFERENCE");
    if (!rms)
        json_object_set_new(attrs, "normalized_dim_count", json_integer(rank - 1));
    json_array_append_new(nodes, node(rms ? "RMSNormAttributes" : "LayernormAttributes", attrs));
    json_array_append_new(nodes, quant_node(q, 21, 22, f.block, rank - 1, false));
    want = (wants){.x_uid = -1};
    char what[200];
    snprintf(what, sizeof what, "%s %s [%lld x %lld x %lld] pad %lld%s -> %s/%s block %d%s%s",
             rms ? "rmsnorm" : "layernorm", io, (long long)A, (long long)R, (long long)C, (long long)pad,
             scale_epi ? " x0.5" : "", f.y, f.scale, f.block, y_out ? " (y written too)" : "",
             scale_t ? " (scale transposed)" : "");
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    qcheck(g, what, NEAR);
    hipdnnBackendDestroyDescriptor(g);
}

Test(gpu_quant, norm_quantize_tail)
{
    const fmt fmts[] = {MXFP8, NVFP4, MXFP4, MXFP8_E5M2, MXINT8};
    for (int i = 0; i < 10; i++) {
        fmt f = fmts[i % 5];
        int64_t C = f.block * (2 * rnd(0, 40) + 1);
        /* pad 3: rows not 16-byte aligned, so 1-wide accesses (2-wide for FP4 pairs) */
        norm_quant_case(i % 2 == 0, i % 3 ? "BFLOAT16" : "HALF", 0, rnd(1, 200), C, i % 4 == 1 ? 3 : 0, f,
                        i % 3 == 2, i % 4 == 3, i % 5 == 4);
    }
    /* rows of two dims (R x C, the quantized blocks along C), a transposed scale */
    norm_quant_case(false, "BFLOAT16", rnd(1, 9), rnd(1, 6), 32 * rnd(1, 5), 0, MXFP8, false, false, true);
    norm_quant_case(false, "HALF", rnd(1, 9), rnd(1, 6), 16 * (2 * rnd(0, 5) + 1), 0, NVFP4, true, true, false);
}

/* Blocks smaller than a vector (several per thread), and blocks spread over up to 32 lanes. */
Test(gpu_quant, norm_quantize_block_sizes)
{
    const int blocks[] = {2, 4, 8, 64, 128, 256};
    for (int i = 0; i < 6; i++) {
        fmt f = {i % 2 ? "FP8_E4M3" : "FP4_E2M1", i % 3 ? "FP8_E8M0" : "FP8_E4M3", blocks[i]};
        int64_t C = blocks[i] * (2 * rnd(0, 8) + 1);
        if (C % 8 != 0)
            C *= 8 / blocks[i]; /* keep the 8-wide path for the tiny blocks */
        norm_quant_case(i % 2 == 0, "BFLOAT16", 0, rnd(1, 64), C, 0, f, false, false, false);
    }
    /* rows not 16-byte aligned: 2-wide accesses, a block of 64 over 32 lanes */
    norm_quant_case(true, "HALF", 0, rnd(1, 64), 64 * (2 * rnd(0, 8) + 1), 3, MXFP8, false, false, false);
    norm_quant_case(false, "BFLOAT16", 0, rnd(1, 64), 64 * (2 * rnd(0, 8) + 1), 1,
                    (fmt){"FP4_E2M1", "FP8_E4M3", 64}, false, false, false);
}

/* ---- dequantize ------------------------------------------------------------------------------------- */

/* x [.., M, K] (FP8 / FP4 / INT8) * scale (E8M0 / E4M3; blocks of bk along K and bm along M, the
 * scale padded by spad, column-major when scale_t) -> y. chain: y is a virtual float, then + bias
 * [.., 1, K] and RELU into the output (a pointwise region around the dequantize). K and M need not
 * be multiples of the blocks. */
static void dequant_case(const char *xt, const char *st, const char *yt, int rank, int64_t bm, int64_t bk,
                         int64_t spad, bool scale_t, bool chain)
{
    int64_t xd[4], xs[4], sd[4], ss[4], bd[4], bs[4];
    for (int d = 0; d < rank; d++)
        xd[d] = rnd(1, 3);
    xd[rank - 1] = rnd(1, 300), xd[rank - 2] = rnd(1, 60);
    packed(rank, xd, xs, 0);
    memcpy(sd, xd, sizeof sd);
    sd[rank - 1] = (xd[rank - 1] + bk - 1) / bk + spad;
    sd[rank - 2] = (xd[rank - 2] + bm - 1) / bm;
    if (scale_t)
        axis_fastest(rank, sd, rank - 2, ss);
    else
        packed(rank, sd, ss, 0);
    memcpy(bd, xd, sizeof bd);
    bd[rank - 2] = 1;
    packed(rank, bd, bs, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, xt, rank, xd, xs, false));
    json_array_append_new(tensors, tensor(100, st, rank, sd, ss, false));
    json_array_append_new(tensors, tensor(3, chain ? "FLOAT" : yt, rank, xd, xs, chain));
    json_array_append_new(nodes, node("BlockScaleDequantizeAttributes", json_pack("{s:i, s:i, s:i, s:[i,i]}",
        "x_tensor_uid", 1, "scale_tensor_uid", 100, "y_tensor_uid", 3, "block_size", (int)bm, (int)bk)));
    if (chain) {
        json_array_append_new(tensors, tensor(4, "FLOAT", rank, bd, bs, false));
        json_array_append_new(tensors, tensor(5, "FLOAT", rank, xd, xs, true));
        json_array_append_new(tensors, tensor(6, yt, rank, xd, xs, false));
        json_array_append_new(nodes, pw_node("ADD", 3, 4, 5));
        json_array_append_new(nodes, pw_node("RELU_FWD", 5, -1, 6));
    }
    want = (wants){.x_uid = -1, .scale_uid = 100};
    char what[200];
    snprintf(what, sizeof what, "dequantize %s [..%lld x %lld] * %s blocks %lldx%lld pad %lld%s -> %s%s", xt,
             (long long)xd[rank - 2], (long long)xd[rank - 1], st, (long long)bm, (long long)bk, (long long)spad,
             scale_t ? " (scale column-major)" : "", yt, chain ? " (+ bias, relu)" : "");
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    qcheck(g, what, EXACT);
    hipdnnBackendDestroyDescriptor(g);
}

Test(gpu_quant, dequantize_standalone_and_in_regions)
{
    dequant_case("FP8_E4M3", "FP8_E8M0", "BFLOAT16", 2, 1, 32, 0, false, false);
    dequant_case("FP8_E5M2", "FP8_E8M0", "FLOAT", 3, 1, 32, 3, true, false);
    dequant_case("FP4_E2M1", "FP8_E4M3", "HALF", 3, 1, 16, 0, false, false);
    dequant_case("FP4_E2M1", "FP8_E8M0", "FLOAT", 2, 32, 32, 1, true, false);
    dequant_case("INT8", "FP8_E8M0", "FLOAT", 2, 1, rnd(1, 40), 0, false, false);
    dequant_case("FP8_E4M3", "FP8_E8M0", "BFLOAT16", 3, 1, 32, 0, false, true);
    dequant_case("FP4_E2M1", "FP8_E4M3", "FLOAT", 2, 16, 16, 2, true, true);
    dequant_case("FP8_E4M3", "FP8_E4M3", "HALF", 4, 1, 7, 0, false, true);
}

/* ---- paged cache load -------------------------------------------------------------------------------- */

/* container [nblk, H, page, D] -> y [B,H,S,D] or Kᵀ [B,H,D,S] (strides [H·S·D, S·D, 1, D]);
 * page tables [B,1,P,1] of random valid block ids, sequence lengths in [0, S]. */
static void paged_case(const char *dt, int64_t B, int64_t H, int64_t D, int64_t page, int64_t S, bool kt)
{
    int64_t P = (S + page - 1) / page + rnd(0, 2), nblk = B * P + rnd(0, 3);
    int64_t cd[4] = {nblk, H, page, D}, cs[4], td[4] = {B, 1, P, 1}, ts[4], sd[4] = {B, 1, 1, 1}, ss[4];
    int64_t yd[4] = {B, H, kt ? D : S, kt ? S : D}, ys[4];
    packed(4, cd, cs, 0), packed(4, td, ts, 0), packed(4, sd, ss, 0);
    if (kt)
        ys[0] = H * S * D, ys[1] = S * D, ys[2] = 1, ys[3] = D;
    else
        packed(4, yd, ys, 0);
    json_t *tensors = json_array(), *nodes = json_array();
    json_array_append_new(tensors, tensor(1, dt, 4, cd, cs, false));
    json_array_append_new(tensors, tensor(2, "INT32", 4, sd, ss, false));
    json_array_append_new(tensors, tensor(3, "INT32", 4, td, ts, false));
    json_array_append_new(tensors, tensor(4, dt, 4, yd, ys, false));
    json_array_append_new(nodes, node("PagedCacheLoadAttributesExt", json_pack("{s:i, s:i, s:i, s:i}",
        "container_tensor_uid", 1, "seq_len_tensor_uid", 2, "page_table_tensor_uid", 3, "y_tensor_uid", 4)));
    want = (wants){.x_uid = -1, .table_uid = 3, .seq_uid = 2, .nblk = nblk, .seq_max = S};
    char what[200];
    snprintf(what, sizeof what, "paged load %s container [%lld,%lld,%lld,%lld] -> %s B %lld S %lld", dt,
             (long long)nblk, (long long)H, (long long)page, (long long)D, kt ? "K^T [B,H,D,S]" : "[B,H,S,D]",
             (long long)B, (long long)S);
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    qcheck(g, what, EXACT);
    hipdnnBackendDestroyDescriptor(g);
}

Test(gpu_quant, paged_cache_load)
{
    const char *types[] = {"BFLOAT16", "HALF", "FLOAT", "FP8_E4M3"};
    for (int i = 0; i < 8; i++) {
        int64_t D = i % 2 ? 8 * rnd(1, 16) : rnd(1, 80); /* 16-byte copies, or one element at a time */
        paged_case(types[i % 4], rnd(1, 4), rnd(1, 4), D, (int64_t)1 << rnd(0, 4), rnd(1, 150), i % 3 == 1);
    }
}
