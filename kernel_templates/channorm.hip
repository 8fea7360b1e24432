/* channorm.hip — per-channel reductions of x [N, C, spatial...] (the channel is dim 1; the
 * statistics run over every other dim, M elements per channel): genstats (HD_OP 0), batchnorm
 * training forward (HD_OP 1) and batchnorm backward (HD_OP 2). x is seen as a grid of (channel
 * c, position m); codegen decomposes m over x's other dims, outermost stride first, so
 * consecutive positions are as close in memory as the layout allows.
 *
 * Three entries, launched in order on the same arguments; every result is deterministic (fixed
 * reduction orders, no atomics):
 *   hd_chan_reduce    grid (HD_CTILES, HD_SPLITS), HD_THREADS = HD_TC x HD_TM threads. Block
 *                     (t, s) covers channels [t*TC, t*TC + TC) and positions [s*CHUNK,
 *                     (s+1)*CHUNK); thread (tc, tm) visits m = lo + tm, lo + tm + TM, ... in
 *                     batches of HD_UNROLL loads (lanes run along channels when TC > 1, i.e.
 *                     when the channel is the innermost dim, NHWC). One partial per (split,
 *                     channel) goes to the scratch workspace:
 *                       BN training  (count, mean, M2): each batch's exact mean and M2, merged
 *                                    with Chan et al.'s formula (no E[x^2] - mean^2
 *                                    cancellation when |mean| >> deviation)
 *                       genstats     (-, sum x, sum x^2)
 *                       BN backward  (-, sum dy, sum dy * xhat), xhat = (x - mean) * inv
 *   hd_chan_finalize  grid ceil(C / 8), 256 threads: 32 lanes per channel merge its SPLITS
 *                     partials (lane l takes splits l, l + 32, ... in order, then a fixed tree
 *                     over the lanes),
 *                     write the per-channel outputs (sums; saved mean / inv variance and the
 *                     running statistics; dscale / dbias) and the coefficients of the apply pass.
 *   hd_chan_apply     grid and blocks as reduce: y = (x - mean) * inv * scale + bias, rounded
 *                     to y's type, then the epilogue (BN training); dx = scale * inv * (dy -
 *                     dbias / M - xhat * dscale / M) (BN backward). Genstats has no apply pass.
 * Math in float.
 *
 * Contract
 *   holes   HD_OP                      0 genstats, 1 batchnorm training, 2 batchnorm backward
 *           HD_C, HD_M                 channels, elements per channel (both >= 1)
 *           HD_TC, HD_TM, HD_THREADS   block shape: powers of two, TC * TM = THREADS, TM >= 2
 *           HD_CTILES, HD_SPLITS       reduce/apply grid: ceil(C / TC), ceil(M / CHUNK)
 *           HD_CHUNK                   positions per split
 *           HD_UNROLL                  loads in flight per thread (a power of two)
 *           HD_EPS                     BN training epsilon (an expression)
 *           HD_RUNNING                 1: BN training updates the running statistics
 *           HD_PARAMS, HD_ARGS         tensor and scalar parameters; each entry takes them and
 *                                      then `void *hd_ws`, the scratch workspace:
 *                                      float [HD_SPLITS][3][HD_C] partials, [5][HD_C] coefficients
 *           hd_load_x(c, m, HD_PARAMS)            x[c, m] as float (genstats: runs the prologue
 *                                                 and stores its results that are graph tensors)
 *           hd_load_dy(c, m, HD_PARAMS)           dy[c, m] (BN backward)
 *           hd_load_chan(c, float k[3], HD_PARAMS)   per-channel inputs: BN training scale, bias
 *                                                 (1 and 0 when absent); BN backward scale, mean,
 *                                                 inv variance
 *           hd_load_running(c, float r[3], HD_PARAMS)   prev running mean, variance, momentum
 *           hd_store_running(c, float mean, float var, HD_PARAMS)   next running mean, variance
 *           hd_store_chan(c, float a, float b, HD_PARAMS)   genstats sum, sq_sum; BN training
 *                                                 saved mean, inv variance; BN backward dscale,
 *                                                 dbias (each only where the graph writes it)
 *           hd_store_y(c, m, float v, HD_PARAMS)  y and the epilogue (BN training)
 *           hd_store_dx(c, m, float v, HD_PARAMS) dx (BN backward)
 *   layout  any strides (scalar accesses, no alignment)
 *   reference  ir_ref_genstats, ir_ref_bn_train, ir_ref_bn_bwd (ir/ir_ref_norm.c)
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_OP 1
#define HD_C 64
#define HD_M 4096
#define HD_TC 1
#define HD_TM 256
#define HD_THREADS 256
#define HD_CTILES 64
#define HD_SPLITS 4
#define HD_CHUNK 1024LL
#define HD_UNROLL 8
#define HD_EPS 1e-5f
#define HD_RUNNING 0
#define HD_PARAMS void *x, void *y
#define HD_ARGS x, y
HD_DEVICE float hd_load_x(int c, hd_i64 m, HD_PARAMS) { return hd_ld<HD_DT_BFLOAT16>(x, c * (hd_i64)HD_M + m); }
HD_DEVICE float hd_load_dy(int c, hd_i64 m, HD_PARAMS) { return 0.0f; }
HD_DEVICE void hd_load_chan(int c, float *k, HD_PARAMS) { k[0] = 1.0f, k[1] = 0.0f, k[2] = 0.0f; }
HD_DEVICE void hd_load_running(int c, float *r, HD_PARAMS) { r[0] = r[1] = r[2] = 0.0f; }
HD_DEVICE void hd_store_running(int c, float mean, float var, HD_PARAMS) {}
HD_DEVICE void hd_store_chan(int c, float a, float b, HD_PARAMS) {}
HD_DEVICE void hd_store_y(int c, hd_i64 m, float v, HD_PARAMS) { hd_st<HD_DT_BFLOAT16>(y, c * (hd_i64)HD_M + m, v); }
HD_DEVICE void hd_store_dx(int c, hd_i64 m, float v, HD_PARAMS) {}
#endif

#define HD_FIN_THREADS 256
#define HD_FIN_LANES 32 /* lanes per channel in hd_chan_finalize */
#define HD_FIN_CHANNELS (HD_FIN_THREADS / HD_FIN_LANES)
#define HD_SH_WIDTH (HD_THREADS > HD_FIN_THREADS ? HD_THREADS : HD_FIN_THREADS)

/* A partial reduction: BN training (count, mean, M2); otherwise (unused, sum a, sum b). */
struct hd_acc {
    float n, a, b;
};

HD_DEVICE hd_acc hd_merge(hd_acc x, hd_acc y)
{
#if HD_OP == 1
    float total = x.n + y.n;
    float d = y.a - x.a, w = total > 0.0f ? hd_div(y.n, total) : 0.0f;
    return hd_acc{total, x.a + d * w, x.b + y.b + d * d * x.n * w};
#else
    return hd_acc{x.n + y.n, x.a + y.a, x.b + y.b};
#endif
}

/* Merges sh[*][i + stride * step] into sh[*][i] for steps count/2, count/4, ..., 1: a fixed
 * tree over `count` (a power of two) partials `stride` apart; `idx` is this thread's slot and
 * `pos` its position among the count. Every thread of the block calls it. */
HD_DEVICE hd_acc hd_tree(hd_acc acc, float (*sh)[HD_SH_WIDTH], int idx, int pos, int count, int stride)
{
    sh[0][idx] = acc.n, sh[1][idx] = acc.a, sh[2][idx] = acc.b;
    for (int s = count / 2; s > 0; s /= 2) {
        __syncthreads();
        if (pos < s) {
            int o = idx + s * stride;
            acc = hd_merge(acc, hd_acc{sh[0][o], sh[1][o], sh[2][o]});
            sh[0][idx] = acc.n, sh[1][idx] = acc.a, sh[2][idx] = acc.b;
        }
    }
    return acc;
}

/* Batch statistics of v[0 .. cnt) (BN training) or the sums of this batch (the others). */
HD_DEVICE hd_acc hd_batch(const float *v, const float *w, int cnt, float k1, float k2)
{
    hd_acc b = {0.0f, 0.0f, 0.0f};
#if HD_OP == 1
    float sum = 0.0f;
#pragma unroll
    for (int u = 0; u < HD_UNROLL; u++)
        sum += v[u]; /* unused slots hold 0 */
    float mean = cnt == HD_UNROLL ? sum * (1.0f / HD_UNROLL) : hd_div(sum, (float)cnt);
#pragma unroll
    for (int u = 0; u < HD_UNROLL; u++)
        if (u < cnt)
            b.b += (v[u] - mean) * (v[u] - mean);
    b.n = (float)cnt, b.a = mean;
#elif HD_OP == 0
#pragma unroll
    for (int u = 0; u < HD_UNROLL; u++)
        b.a += v[u], b.b += v[u] * v[u];
#else
#pragma unroll
    for (int u = 0; u < HD_UNROLL; u++)
        b.a += w[u], b.b += w[u] * ((v[u] - k1) * k2); /* w: dy (0 in unused slots), v: x */
#endif
    return b;
}

/* This block's channels and positions. */
#define HD_TILE                                                                            \
    const int tc = (int)threadIdx.x % HD_TC, tm = (int)threadIdx.x / HD_TC;                \
    const int c = (int)blockIdx.x * HD_TC + tc;                                            \
    const hd_i64 lo = (hd_i64)blockIdx.y * HD_CHUNK;                                       \
    const hd_i64 hi = lo + HD_CHUNK < (hd_i64)HD_M ? lo + HD_CHUNK : (hd_i64)HD_M;

HD_GLOBAL HD_LAUNCH_BOUNDS(HD_THREADS) void hd_chan_reduce(HD_PARAMS, void *hd_ws)
{
    __shared__ float sh[3][HD_SH_WIDTH];
    HD_TILE
    hd_acc acc = {0.0f, 0.0f, 0.0f};
    if (c < HD_C) {
        float k[3] = {0.0f, 0.0f, 0.0f};
#if HD_OP == 2
        hd_load_chan(c, k, HD_ARGS); /* scale, mean, inv */
#endif
        for (hd_i64 m0 = lo + tm; m0 < hi; m0 += (hd_i64)HD_TM * HD_UNROLL) {
            float v[HD_UNROLL], w[HD_UNROLL];
#pragma unroll
            for (int u = 0; u < HD_UNROLL; u++) {
                hd_i64 m = m0 + (hd_i64)u * HD_TM;
                v[u] = m < hi ? hd_load_x(c, m, HD_ARGS) : 0.0f;
                w[u] = HD_OP == 2 && m < hi ? hd_load_dy(c, m, HD_ARGS) : 0.0f;
            }
            hd_i64 left = (hi - m0 + HD_TM - 1) / HD_TM;
            acc = hd_merge(acc, hd_batch(v, w, left < HD_UNROLL ? (int)left : HD_UNROLL, k[1], k[2]));
        }
    }
    acc = hd_tree(acc, sh, (int)threadIdx.x, tm, HD_TM, HD_TC);
    if (tm == 0 && c < HD_C) {
        float *part = (float *)hd_ws + (hd_i64)blockIdx.y * 3 * HD_C;
        part[c] = acc.n, part[HD_C + c] = acc.a, part[2 * HD_C + c] = acc.b;
    }
}

/* The per-channel outputs of channel c from its merged statistics; the apply coefficients. */
HD_DEVICE void hd_finish(int c, hd_acc s, float *coef, HD_PARAMS)
{
#if HD_OP == 0
    hd_store_chan(c, s.a, s.b, HD_ARGS);
#elif HD_OP == 1
    float var = s.b / (float)HD_M, inv = hd_rsqrt(var + (HD_EPS)), k[3];
    hd_store_chan(c, s.a, inv, HD_ARGS);
#if HD_RUNNING
    float r[3];
    hd_load_running(c, r, HD_ARGS); /* read before the store: the buffers may alias */
    float unbiased = HD_M > 1 ? var * ((float)HD_M / (float)(HD_M - 1)) : hd_bits_f32(0x7fc00000u);
    hd_store_running(c, (1.0f - r[2]) * r[0] + r[2] * s.a, (1.0f - r[2]) * r[1] + r[2] * unbiased,
                     HD_ARGS);
#endif
    hd_load_chan(c, k, HD_ARGS); /* scale, bias */
    coef[c] = s.a, coef[HD_C + c] = inv * k[0], coef[2 * HD_C + c] = k[1];
#else
    float k[3];
    hd_load_chan(c, k, HD_ARGS); /* scale, mean, inv */
    hd_store_chan(c, s.b, s.a, HD_ARGS); /* dscale, dbias */
    coef[c] = k[1], coef[HD_C + c] = k[2], coef[2 * HD_C + c] = k[0] * k[2];
    coef[3 * HD_C + c] = s.a / (float)HD_M, coef[4 * HD_C + c] = s.b / (float)HD_M;
#endif
}

HD_GLOBAL HD_LAUNCH_BOUNDS(HD_FIN_THREADS) void hd_chan_finalize(HD_PARAMS, void *hd_ws)
{
    __shared__ float sh[3][HD_SH_WIDTH];
    const int lane = (int)threadIdx.x % HD_FIN_LANES, cl = (int)threadIdx.x / HD_FIN_LANES;
    const int c = (int)blockIdx.x * HD_FIN_CHANNELS + cl;
    const float *part = (const float *)hd_ws;
    hd_acc acc = {0.0f, 0.0f, 0.0f};
    /* HD_UNROLL partials loaded at once (latency), merged in split order; absent ones are
     * empty partials (n = 0), which leave a merge exactly unchanged */
    for (int s0 = lane; c < HD_C && s0 < HD_SPLITS; s0 += HD_FIN_LANES * HD_UNROLL) {
        hd_acc p[HD_UNROLL];
#pragma unroll
        for (int u = 0; u < HD_UNROLL; u++) {
            int s = s0 + u * HD_FIN_LANES;
            const float *q = part + (hd_i64)s * 3 * HD_C;
            p[u] = s < HD_SPLITS ? hd_acc{q[c], q[HD_C + c], q[2 * HD_C + c]} : hd_acc{0.0f, 0.0f, 0.0f};
        }
#pragma unroll
        for (int u = 0; u < HD_UNROLL; u++)
            acc = hd_merge(acc, p[u]);
    }
    /* lanes of one channel are consecutive threads: slot = threadIdx.x, partner lane + s */
    acc = hd_tree(acc, sh, (int)threadIdx.x, lane, HD_FIN_LANES, 1);
    if (lane == 0 && c < HD_C)
        hd_finish(c, acc, (float *)hd_ws + (hd_i64)HD_SPLITS * 3 * HD_C, HD_ARGS);
}

#if HD_OP != 0
HD_GLOBAL HD_LAUNCH_BOUNDS(HD_THREADS) void hd_chan_apply(HD_PARAMS, void *hd_ws)
{
    HD_TILE
    if (c >= HD_C)
        return; /* no barrier below */
    const float *coef = (const float *)hd_ws + (hd_i64)HD_SPLITS * 3 * HD_C;
    const float k0 = coef[c], k1 = coef[HD_C + c], k2 = coef[2 * HD_C + c];
    const float k3 = HD_OP == 2 ? coef[3 * HD_C + c] : 0.0f, k4 = HD_OP == 2 ? coef[4 * HD_C + c] : 0.0f;
    for (hd_i64 m0 = lo + tm; m0 < hi; m0 += (hd_i64)HD_TM * HD_UNROLL) {
        float v[HD_UNROLL], w[HD_UNROLL];
#pragma unroll
        for (int u = 0; u < HD_UNROLL; u++) {
            hd_i64 m = m0 + (hd_i64)u * HD_TM;
            v[u] = m < hi ? hd_load_x(c, m, HD_ARGS) : 0.0f;
            w[u] = HD_OP == 2 && m < hi ? hd_load_dy(c, m, HD_ARGS) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < HD_UNROLL; u++) {
            hd_i64 m = m0 + (hd_i64)u * HD_TM;
            if (m >= hi)
                break;
#if HD_OP == 1
            hd_store_y(c, m, (v[u] - k0) * k1 + k2, HD_ARGS); /* k: mean, inv * scale, bias */
#elif HD_OP == 2
            /* k: mean, inv, scale * inv, dbias / M, dscale / M */
            hd_store_dx(c, m, k2 * (w[u] - k3 - (v[u] - k0) * k1 * k4), HD_ARGS);
#endif
        }
    }
}
#endif
