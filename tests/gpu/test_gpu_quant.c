/* test_gpu_quant.c — block-scale quantize (standalone, after an elementwise prologue, and as the
 * tail of a layernorm / rmsnorm kernel), block-scale dequantize (standalone and inside pointwise
 * regions) and the paged KV-cache load on the GPU, against the reference engine.
 *
 * Random shapes each run (odd numbers of blocks, any quantized axis, padded and transposed
 * layouts, page sizes that do not divide the sequence), fresh random data: quantizer inputs get
 * a random magnitude per block (2^-24 .. 2^24, some all-zero blocks) so the scales cover a
 * wide range; page tables are random valid block ids.
 *
 * Comparison (qcheck), per output element:
 *   EXACT  every element's stored bits equal the reference's. This holds where the kernel sees the
 *          same input values as the reference: a quantize reading its input from memory or
 *          after exact prologue ops (add, multiply of narrow types, dequantize), dequantize
 *          (an FP8/FP4/INT8 value times an E8M0/E4M3 scale is exact in float: one rounding on
 *          both sides), and the paged load (a copy). Quantized values and scales then agree bit
 *          for bit: same amax, the scale's ratio taken in double, one round-to-nearest-even.
 *   NEAR   the quantizer's input x is computed in float on the GPU and in double in the
 *          reference (a norm, batchnorm). The reference's x comes from the same graph cut
 *          before the quantize (x made an output). Where x is within the float error e(x)
 *          (2^-16 |x| + 2^-20 max|x|, plus one unit in the last place when x is stored as a
 *          16-bit graph tensor) of a rounding boundary, the kernel may land on either side;
 *          elsewhere it must not:
 *            scale: between the reference's scales for amax - e and amax + e (the reference's
 *                   own, unless the block's amax is that close to a scale boundary);
 *            code:  between the roundings of (x - e) / s and (x + e) / s, s the kernel's scale:
 *                   at most one code from the reference's, and equal to it where x / s is not
 *                   within e of a rounding boundary.
 *          Other outputs (a norm's y written too) are compared within tu_close's bound.
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

/* NEAR's description of the quantize (qcheck): the reference's x from `prefix`, the graph cut
 * before the quantize; NULL for EXACT. */
typedef struct near {
    hipdnnBackendDescriptor_t prefix;
    int x_uid, y_uid, scale_uid, axis;
    int64_t block;
} near;

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

/* "i,j,k": a multi-index of t, for messages. */
static void index_text(const ir_tensor *t, const int64_t *idx, char *out, size_t size)
{
    out[0] = '\0';
    for (int d = 0, k = 0; d < t->rank && (size_t)k < size; d++)
        k += snprintf(out + k, size - (size_t)k, d ? ",%lld" : "%lld", (long long)idx[d]);
}

static void exact_compare(const ir_tensor *t, void *got_p, void *want_p, const char *what)
{
    ir_buf got = view(t, got_p), ref = view(t, want_p);
    int64_t idx[IR_MAX_RANK] = {0}, first[IR_MAX_RANK] = {0}, n = 0, diff = 0;
    do {
        if (bits_at(t, got_p, idx) != bits_at(t, want_p, idx) && diff++ == 0)
            memcpy(first, idx, sizeof first);
        n++;
    } while (ir_next_index(&got, idx));
    if (diff == 0)
        return;
    char at[128];
    index_text(t, first, at, sizeof at);
    cr_expect_eq(diff, 0, "%s: uid %lld: %lld of %lld elements not bit-exact (seed %u), first at [%s]: %g "
                 "(bits %#x), reference %g (bits %#x)", what, (long long)t->uid, (long long)diff,
                 (long long)n, seed, at, ir_load(&got, first), bits_at(t, got_p, first), ir_load(&ref, first),
                 bits_at(t, want_p, first));
}

/* The error NEAR allows the kernel's x: the float arithmetic's, 2^-16 relative and 2^-20 of the
 * largest |x|; for x stored as a graph tensor of a 16-bit type, one unit in its last place too
 * (the kernel's and the reference's values may round to neighbouring 16-bit values). */
static double x_error(double v, double xmax, hipdnnDataType_t t)
{
    double e = ldexp(fabs(v), -16) + ldexp(xmax, -20);
    if (t == HIPDNN_DATA_HALF)
        e += ldexp(fabs(v), -10) + 0x1p-24;
    if (t == HIPDNN_DATA_BFLOAT16)
        e += ldexp(fabs(v), -7);
    return e;
}

typedef struct near_counts {
    int64_t blocks, scale_moved, codes, boundary, code_moved, bad;
} near_counts;

/* One NEAR failure: counted, and the first of each kind reported. */
static void near_bad(near_counts *c, const char *what, const char *kind, const ir_tensor *t, const int64_t *idx,
                     double got, double lo, double hi, double ref)
{
    if (c->bad++ > 0)
        return;
    char at[128];
    index_text(t, idx, at, sizeof at);
    cr_expect_fail("%s: %s at [%s] (seed %u): %.9g outside [%.9g, %.9g] (reference %.9g)", what, kind, at, seed, got,
                   lo, hi, ref);
}

/* NEAR (see the header) for quantize outputs y and scale against the reference's x. */
static void near_compare(const near *q, const ir_tensor *yt, const ir_tensor *st, void *y_got, void *y_ref,
                         void *s_got, void *s_ref, const ir_tensor *xt, void *x_p, const char *what)
{
    ir_buf y = view(yt, y_got), yr = view(yt, y_ref), s = view(st, s_got), sr = view(st, s_ref);
    ir_buf x = view(xt, x_p);
    double xmax = 0;
    int64_t idx[IR_MAX_RANK] = {0}, sidx[IR_MAX_RANK] = {0};
    do
        xmax = fmax(xmax, fabs(ir_load(&x, idx)));
    while (ir_next_index(&x, idx));
    near_counts c = {0};
    do {
        int64_t lo = sidx[q->axis] * q->block, hi = lo + q->block;
        hi = hi < xt->dims[q->axis] ? hi : xt->dims[q->axis];
        memcpy(idx, sidx, sizeof idx);
        double amax = 0;
        for (idx[q->axis] = lo; idx[q->axis] < hi; idx[q->axis]++)
            amax = fmax(amax, fabs(ir_load(&x, idx)));
        double e = x_error(amax, xmax, xt->dtype), sg = ir_load(&s, sidx), sref = ir_load(&sr, sidx);
        double smin = ir_quant_block_scale(st->dtype, yt->dtype, fmax(amax - e, 0));
        double smax = ir_quant_block_scale(st->dtype, yt->dtype, amax + e);
        c.blocks++;
        c.scale_moved += sg != sref;
        if (!(sg >= smin && sg <= smax)) {
            near_bad(&c, what, "block scale", st, sidx, sg, smin, smax, sref);
            continue;
        }
        for (idx[q->axis] = lo; idx[q->axis] < hi; idx[q->axis]++) {
            double v = ir_load(&x, idx), ev = x_error(v, xmax, xt->dtype);
            double qlo = ir_dtype_round(yt->dtype, (v - ev) / sg), qhi = ir_dtype_round(yt->dtype, (v + ev) / sg);
            double got = ir_load(&y, idx), ref = ir_load(&yr, idx);
            c.codes++;
            c.boundary += qlo != qhi;
            c.code_moved += bits_at(yt, y_got, idx) != bits_at(yt, y_ref, idx);
            if (!(got >= qlo && got <= qhi))
                near_bad(&c, what, "quantized value", yt, idx, got, qlo, qhi, ref);
        }
    } while (ir_next_index(&s, sidx));
    cr_expect_eq(c.bad, 0, "%s: %lld quantized elements or scales outside what the float error of x allows",
                 what, (long long)c.bad);
    cr_log_info("%s: %lld blocks, %lld scales differ (near a boundary); %lld codes, %lld near a rounding "
                "boundary, %lld differ", what, (long long)c.blocks, (long long)c.scale_moved, (long long)c.codes,
                (long long)c.boundary, (long long)c.code_moved);
}

/* The reference's x for NEAR: q->prefix run on the reference engine with the inputs in
 * (uids, bufs); a malloc'd buffer in x's layout. */
static void *reference_x(const near *q, int n, const int64_t *uids, void **bufs, const ir_tensor **xt)
{
    const ir_graph *ir = fe_graph_of(q->prefix->obj)->ir;
    int64_t pu[64];
    void *pp[64], *x = NULL;
    int m = 0;
    for (int i = 0; i < ir->n_t && m < 64; i++) {
        const ir_tensor *t = &ir->t[i];
        if (t->is_virtual || t->by_value)
            continue;
        pu[m] = t->uid, pp[m] = NULL;
        if (t->uid == q->x_uid)
            *xt = t, pp[m] = x = malloc(extent_bytes(t));
        for (int j = 0; j < n; j++)
            if (uids[j] == t->uid && t->uid != q->x_uid)
                pp[m] = bufs[j];
        cr_assert_not_null(pp[m], "prefix graph tensor uid %lld has no buffer", (long long)t->uid);
        m++;
    }
    cr_assert_not_null(x, "the prefix graph has no output uid %d", q->x_uid);
    hipdnnBackendDescriptor_t plan = plan_with(q->prefix, "reference");
    void *ws = malloc((size_t)workspace_of(plan) + 1);
    execute(plan, m, pu, pp, ws);
    free(ws);
    hipdnnBackendDestroyDescriptor(plan);
    return x;
}

/* Runs g on the fused JIT engine (device memory, outputs poisoned) and on the reference engine
 * with the same inputs (`fill`, else uniform in [-2, 2]) and compares every output: bit for bit
 * (q NULL) or NEAR as q describes. */
static void qcheck(hipdnnBackendDescriptor_t g, const char *what, const near *q)
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
    for (int i = 0; i < n; i++)
        if (ts[i]->producer >= 0)
            TU_OK(rt_memcpy_d2h(host[i], dev[i], extent_bytes(ts[i])));
    if (q == NULL) {
        for (int i = 0; i < n; i++)
            if (ts[i]->producer >= 0)
                exact_compare(ts[i], host[i], ref[i], what);
    } else {
        int yi = -1, si = -1;
        for (int i = 0; i < n; i++) {
            yi = uids[i] == q->y_uid ? i : yi, si = uids[i] == q->scale_uid ? i : si;
            if (ts[i]->producer >= 0 && uids[i] != q->y_uid && uids[i] != q->scale_uid) {
                ir_buf got = view(ts[i], host[i]), want = view(ts[i], ref[i]);
                gpu_compare_output(ir, (int)(ts[i] - ir->t), &got, &want, what);
            }
        }
        cr_assert(yi >= 0 && si >= 0, "%s: no quantize outputs", what);
        const ir_tensor *xt = NULL;
        void *x = reference_x(q, n, uids, ref, &xt);
        near_compare(q, ts[yi], ts[si], host[yi], ref[yi], host[si], ref[si], xt, x, what);
        free(x);
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

/* NEAR's description of the quantize that ends the graph (tensors, nodes): its outputs y (uid 21)
 * and scale (uid 22), and the prefix graph: the same without the quantize and its outputs, with x
 * a graph output. Works on copies; destroy .prefix after use. */
static near near_of(const json_t *tensors, const json_t *nodes, int x_uid, int axis, int64_t block)
{
    json_t *pt = json_array(), *pn = json_deep_copy(nodes), *t;
    size_t i;
    json_array_foreach(tensors, i, t) {
        json_int_t uid = json_integer_value(json_object_get(t, "uid"));
        if (uid == 21 || uid == 22)
            continue;
        json_t *c = json_deep_copy(t);
        if (uid == x_uid)
            json_object_set_new(c, "virtual", json_false());
        json_array_append_new(pt, c);
    }
    json_array_remove(pn, json_array_size(pn) - 1);
    return (near){finalize_graph(pt, pn), x_uid, 21, 22, axis, block};
}

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
    qcheck(g, what, NULL);
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
    near q = near_of(tensors, nodes, 6, 1, 32);
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    qcheck(g, "bn_inference -> MXFP8 along C", &q);
    hipdnnBackendDestroyDescriptor(g), hipdnnBackendDestroyDescriptor(q.prefix);
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
    near nq = near_of(tensors, nodes, q, rank - 1, f.block);
    hipdnnBackendDescriptor_t g = finalize_graph(tensors, nodes);
    qcheck(g, what, &nq);
    hipdnnBackendDestroyDescriptor(g), hipdnnBackendDestroyDescriptor(nq.prefix);
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
    qcheck(g, what, NULL);
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
    qcheck(g, what, NULL);
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
