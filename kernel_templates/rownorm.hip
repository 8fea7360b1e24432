/* rownorm.hip — layernorm / rmsnorm over rows, fused with a pointwise prologue (the ops that
 * produce x, e.g. a residual add) and epilogue (the ops applied to y, e.g. a cast or scale).
 *
 * One block per row (grid-stride over rows; with HD_PREFETCH the next row's loads overlap this
 * row's reductions). Each thread loads its VEC-wide slices of the row
 * into registers once (HD_PER_THREAD slices), so x is read from memory exactly once. Layernorm
 * statistics take one block reduction: each thread's exact (count, mean, M2) over its own
 * registers, merged pairwise (Chan et al.), so the variance has no E[x^2] - mean^2
 * cancellation; rmsnorm reduces the sum of squares. Then y is computed and stored. Math in
 * float.
 *
 * Block-scale quantize tail (HD_QUANT 1): the epilogue ends in a quantize along the last dim
 * (op-semantics §5.2; the reference is ir_ref_bs_quantize). A block of HD_QBLOCK columns is
 * held by HD_QBLOCK / HD_VEC neighbouring lanes of one warp (their amax meets through
 * shuffles within the group) or, when HD_QBLOCK < HD_VEC, lies inside one thread's vector;
 * the scale and the quantized values are then computed as blockquant.hip does.
 *
 * Contract
 *   holes   HD_ROWS, HD_COLS        rows and normalized elements per row (COLS % HD_VEC == 0)
 *           HD_THREADS, HD_VEC      threads per block, elements per vector access (1, 2, 4, 8)
 *           HD_RMS                  1: rmsnorm (no mean), 0: layernorm
 *           HD_EPS                  epsilon (an expression: a literal or a kernel parameter)
 *           HD_SHIFTED_STATS        layernorm: 1 = sums around a per-warp pivot within warps
 *                                   (Chan merge across warps only), 0 = Chan merge throughout
 *           HD_PREFETCH             1: each block loads its next row before reducing this one
 *                                   (a grid smaller than HD_ROWS; twice the registers for x)
 *           HD_PARAMS, HD_ARGS      kernel parameters and the same names as arguments
 *           hd_load_x(row, col, float v[HD_VEC], HD_PARAMS)   x[row, col .. col+VEC) (runs the
 *                                   prologue; stores prologue outputs that are graph tensors)
 *           hd_load_w(col, float s[HD_VEC], float b[HD_VEC], HD_PARAMS)   scale and bias (0s)
 *           hd_store_y(row, col, const float v[HD_VEC], HD_PARAMS)        y and the epilogue
 *           hd_store_stats(row, float mean, float inv, HD_PARAMS)        saved statistics
 *           HD_QUANT                1: the quantize tail below; hd_store_y then has a float
 *                                   qx[HD_VEC] parameter before HD_PARAMS and hands back the
 *                                   quantizer's input (the epilogue's last value)
 *           HD_QBLOCK               block size, a power of two; HD_QBLOCK / HD_VEC <= 32 when
 *                                   HD_QBLOCK >= HD_VEC, else HD_VEC % HD_QBLOCK == 0;
 *                                   COLS % HD_QBLOCK == 0
 *           HD_QSCALE_DT, HD_QMAX   scale type (E8M0 or E4M3) and the elements' largest value
 *           HD_QY_DT                the elements' type (FP8, INT8, FP4_E2M1)
 *           hd_store_scale(row, col, hd_u8 code, HD_PARAMS)   the scale of the block at col
 *           hd_store_q(row, col, const float q[HD_VEC], HD_PARAMS)  quantized values (scaled,
 *                                   not yet rounded: the hook stores them in the element type)
 *           hd_store_fp4(row, col, const hd_u8 b[HD_VEC / 2], HD_PARAMS)   FP4 instead: the
 *                                   packed codes (HD_VEC even)
 *   layout  the normalized dims packed (unit stride); 16-byte aligned rows when VEC is 8
 *   reference  ir_ref_layernorm / ir_ref_rmsnorm (ir/ir_ref_norm.c)
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_ROWS 64
#define HD_COLS 1024
#define HD_THREADS 128
#define HD_VEC 8
#define HD_RMS 0
#define HD_EPS 1e-5f
#define HD_PREFETCH 0
#define HD_SHIFTED_STATS 0
#define HD_PARAMS void *px, void *py
#define HD_ARGS px, py
HD_DEVICE void hd_load_x(hd_i64 r, int c, float *v, HD_PARAMS) { hd_ldv<HD_DT_BFLOAT16, HD_VEC>(px, r * HD_COLS + c, v); }
HD_DEVICE void hd_load_w(int c, float *s, float *b, HD_PARAMS) { for (int j = 0; j < HD_VEC; j++) s[j] = 1.f, b[j] = 0.f; }
HD_DEVICE void hd_store_y(hd_i64 r, int c, const float *v, HD_PARAMS) { hd_stv<HD_DT_BFLOAT16, HD_VEC>(py, r * HD_COLS + c, v); }
HD_DEVICE void hd_store_stats(hd_i64 r, float mean, float inv, HD_PARAMS) {}
#define HD_QUANT 0
#endif

#define HD_PER_THREAD ((HD_COLS + HD_THREADS * HD_VEC - 1) / (HD_THREADS * HD_VEC))
/* A block smaller than a warp (32 threads in a 64-lane AMD wavefront) is one warp whose
 * shuffles stay within its HD_LANES threads. */
#define HD_LANES (HD_THREADS < HD_WARP ? HD_THREADS : HD_WARP)
#define HD_WARPS ((HD_THREADS + HD_WARP - 1) / HD_WARP)

/* Sum of v over the block; every thread gets the result. `red` holds HD_WARPS floats. */
HD_DEVICE float hd_block_sum(float v, float *red)
{
#pragma unroll
    for (int m = HD_LANES / 2; m > 0; m /= 2)
        v += hd_shfl_xor(v, m);
    if (HD_WARPS == 1)
        return v;
    int warp = threadIdx.x / HD_WARP, lane = threadIdx.x % HD_WARP;
    __syncthreads(); /* red may still be read from the previous sum */
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    v = lane < HD_WARPS ? red[lane] : 0.0f;
#pragma unroll
    for (int m = HD_LANES / 2; m > 0; m /= 2)
        v += hd_shfl_xor(v, m);
    return v;
}

/* Partial statistics of a set of values: count, mean, sum of squared deviations. */
struct hd_stats {
    float n, mean, m2;
};

/* The statistics of the union of two disjoint sets (Chan et al.). */
HD_DEVICE hd_stats hd_merge(hd_stats a, hd_stats b)
{
    float total = a.n + b.n;
    float d = b.mean - a.mean, wb = total > 0.0f ? hd_div(b.n, total) : 0.0f; /* branch free */
    return hd_stats{total, a.mean + d * wb, a.m2 + b.m2 + d * d * a.n * wb};
}

HD_DEVICE hd_stats hd_warp_merge(hd_stats s)
{
#pragma unroll
    for (int m = HD_LANES / 2; m > 0; m /= 2)
        s = hd_merge(s, hd_stats{hd_shfl_xor(s.n, m), hd_shfl_xor(s.mean, m), hd_shfl_xor(s.m2, m)});
    return s;
}

/* The row's statistics from every warp's (each lane holds its warp's); every thread gets them. */
HD_DEVICE hd_stats hd_block_stats_of_warps(hd_stats s, float *red)
{
    if (HD_WARPS == 1)
        return s;
    int warp = threadIdx.x / HD_WARP, lane = threadIdx.x % HD_WARP;
    __syncthreads(); /* red may still be read from the previous row */
    if (lane == 0)
        red[warp] = s.n, red[HD_WARPS + warp] = s.mean, red[2 * HD_WARPS + warp] = s.m2;
    __syncthreads();
    bool mine = lane < HD_WARPS;
    s = hd_stats{mine ? red[lane] : 0.0f, mine ? red[HD_WARPS + lane] : 0.0f,
                 mine ? red[2 * HD_WARPS + lane] : 0.0f};
    return hd_warp_merge(s);
}

#if HD_QUANT
/* Quantizes this thread's HD_VEC values x (columns col .. col + HD_VEC of the row). The lanes
 * of one block are all active or all idle (COLS % HD_QBLOCK == 0), so the group shuffles are
 * safe inside the caller's `col < HD_COLS` branch. */
HD_DEVICE void hd_row_quant(hd_i64 row, int col, const float *x, HD_PARAMS)
{
#if HD_QY_DT == HD_DT_FP4_E2M1
    hd_u8 b[HD_VEC / 2] = {};
#define HD_Q(j, scale, inv) b[(j) / 2] |= hd_bs_fp4<HD_QSCALE_DT>(x[j], scale, inv) << ((j) % 2 * 4)
#else
    float q[HD_VEC];
#define HD_Q(j, scale, inv) q[j] = hd_bs_quant<HD_QSCALE_DT>(x[j], scale, inv)
#endif
#if HD_QBLOCK >= HD_VEC
    const int group = HD_QBLOCK / HD_VEC; /* lanes sharing a block */
    float amax = 0.0f;
#pragma unroll
    for (int j = 0; j < HD_VEC; j++)
        amax = hd_amax(amax, x[j]);
#pragma unroll
    for (int m = group / 2; m > 0; m /= 2)
        amax = hd_amax(amax, hd_shfl_xor_group(amax, m, group));
    hd_u8 code;
    float scale = hd_block_scale<HD_QSCALE_DT>(amax, HD_QMAX, &code), inv = 1.0f / scale;
    if (col % HD_QBLOCK == 0)
        hd_store_scale(row, col, code, HD_ARGS);
#pragma unroll
    for (int j = 0; j < HD_VEC; j++)
        HD_Q(j, scale, inv);
#else
#pragma unroll
    for (int k = 0; k < HD_VEC; k += HD_QBLOCK) {
        float amax = 0.0f;
#pragma unroll
        for (int j = k; j < k + HD_QBLOCK; j++)
            amax = hd_amax(amax, x[j]);
        hd_u8 code;
        float scale = hd_block_scale<HD_QSCALE_DT>(amax, HD_QMAX, &code), inv = 1.0f / scale;
        hd_store_scale(row, col + k, code, HD_ARGS);
#pragma unroll
        for (int j = k; j < k + HD_QBLOCK; j++)
            HD_Q(j, scale, inv);
    }
#endif
#undef HD_Q
#if HD_QY_DT == HD_DT_FP4_E2M1
    hd_store_fp4(row, col, b, HD_ARGS);
#else
    hd_store_q(row, col, q, HD_ARGS);
#endif
}
#endif

/* The row's statistics from every thread's partial ones; every thread gets them. */
HD_DEVICE hd_stats hd_block_stats(hd_stats s, float *red)
{
    return hd_block_stats_of_warps(hd_warp_merge(s), red);
}

/* Loads this thread's slices of row `row` into x (running the prologue). */
HD_DEVICE void hd_load_row(hd_i64 row, float (&x)[HD_PER_THREAD][HD_VEC], HD_PARAMS)
{
#pragma unroll
    for (int p = 0; p < HD_PER_THREAD; p++) {
        int col = (p * HD_THREADS + threadIdx.x) * HD_VEC;
        if (col < HD_COLS)
            hd_load_x(row, col, x[p], HD_ARGS);
    }
}

/* Normalizes row `row`, held in x across the block: statistics, y, the epilogue. */
HD_DEVICE void hd_norm_row(hd_i64 row, const float (&x)[HD_PER_THREAD][HD_VEC], float *red, HD_PARAMS)
{
    float sum = 0.0f;
#pragma unroll
    for (int p = 0; p < HD_PER_THREAD; p++)
        if ((p * HD_THREADS + threadIdx.x) * HD_VEC < HD_COLS)
#pragma unroll
            for (int j = 0; j < HD_VEC; j++)
                sum += x[p][j];
    float mean = 0.0f, var, cnt = 0.0f, sq = 0.0f;
    if (!HD_RMS && HD_SHIFTED_STATS) {
        /* Sums around the warp's pivot (lane 0's first element, a sample of the row, so the
         * sums do not cancel), plain-added across the warp; Chan merges only across warps. */
        float pivot = hd_shfl(x[0][0], 0), s1 = 0.0f;
#pragma unroll
        for (int p = 0; p < HD_PER_THREAD; p++)
            if ((p * HD_THREADS + threadIdx.x) * HD_VEC < HD_COLS) {
                cnt += HD_VEC;
#pragma unroll
                for (int j = 0; j < HD_VEC; j++)
                    s1 += x[p][j] - pivot, sq += (x[p][j] - pivot) * (x[p][j] - pivot);
            }
#pragma unroll
        for (int m = HD_LANES / 2; m > 0; m /= 2)
            cnt += hd_shfl_xor(cnt, m), s1 += hd_shfl_xor(s1, m), sq += hd_shfl_xor(sq, m);
        float d = cnt > 0.0f ? hd_div(s1, cnt) : 0.0f; /* a warp past the row's end: n = 0 */
        hd_stats st = hd_block_stats_of_warps(
            hd_stats{cnt, cnt > 0.0f ? pivot + d : 0.0f, cnt > 0.0f ? sq - s1 * d : 0.0f}, red);
        mean = st.mean;
        var = hd_div(st.m2, st.n);
    } else if (!HD_RMS) { /* this thread's exact mean and M2, then one merged reduction */
        float local_mean = 0.0f;
#pragma unroll
        for (int p = 0; p < HD_PER_THREAD; p++)
            if ((p * HD_THREADS + threadIdx.x) * HD_VEC < HD_COLS)
                cnt += HD_VEC;
        local_mean = cnt > 0.0f ? hd_div(sum, cnt) : 0.0f;
#pragma unroll
        for (int p = 0; p < HD_PER_THREAD; p++)
            if ((p * HD_THREADS + threadIdx.x) * HD_VEC < HD_COLS)
#pragma unroll
                for (int j = 0; j < HD_VEC; j++)
                    sq += (x[p][j] - local_mean) * (x[p][j] - local_mean);
        hd_stats st = hd_block_stats(hd_stats{cnt, local_mean, sq}, red);
        mean = st.mean;
        var = hd_div(st.m2, st.n);
    } else {
#pragma unroll
        for (int p = 0; p < HD_PER_THREAD; p++)
            if ((p * HD_THREADS + threadIdx.x) * HD_VEC < HD_COLS)
#pragma unroll
                for (int j = 0; j < HD_VEC; j++)
                    sq += x[p][j] * x[p][j];
        var = hd_block_sum(sq, red) * (1.0f / HD_COLS);
    }
    float inv = hd_rsqrt(var + (HD_EPS));
    if (threadIdx.x == 0)
        hd_store_stats(row, mean, inv, HD_ARGS);
#pragma unroll
    for (int p = 0; p < HD_PER_THREAD; p++) {
        int col = (p * HD_THREADS + threadIdx.x) * HD_VEC;
        if (col < HD_COLS) {
            float s[HD_VEC], b[HD_VEC], y[HD_VEC];
            hd_load_w(col, s, b, HD_ARGS);
#pragma unroll
            for (int j = 0; j < HD_VEC; j++)
                y[j] = (x[p][j] - mean) * inv * s[j] + b[j];
#if HD_QUANT
            float qx[HD_VEC];
            hd_store_y(row, col, y, qx, HD_ARGS);
            hd_row_quant(row, col, qx, HD_ARGS);
#else
            hd_store_y(row, col, y, HD_ARGS);
#endif
        }
    }
}

HD_GLOBAL HD_LAUNCH_BOUNDS(HD_THREADS) void hd_rownorm_kernel(HD_PARAMS)
{
    __shared__ float red[3 * (HD_WARPS > 0 ? HD_WARPS : 1)];
    float x[HD_PER_THREAD][HD_VEC];
#if HD_PREFETCH
    /* Software-pipelined: the next row's loads are issued before this row's reductions, so
     * the block keeps memory busy while it waits on its barriers. */
    float next_x[HD_PER_THREAD][HD_VEC];
    if (blockIdx.x < HD_ROWS)
        hd_load_row(blockIdx.x, x, HD_ARGS);
    for (hd_i64 row = blockIdx.x; row < HD_ROWS; row += gridDim.x) {
        if (row + gridDim.x < HD_ROWS)
            hd_load_row(row + gridDim.x, next_x, HD_ARGS);
        hd_norm_row(row, x, red, HD_ARGS);
#pragma unroll
        for (int p = 0; p < HD_PER_THREAD; p++)
#pragma unroll
            for (int j = 0; j < HD_VEC; j++)
                x[p][j] = next_x[p][j];
    }
#else
    for (hd_i64 row = blockIdx.x; row < HD_ROWS; row += gridDim.x) {
        hd_load_row(row, x, HD_ARGS);
        hd_norm_row(row, x, red, HD_ARGS);
    }
#endif
}
