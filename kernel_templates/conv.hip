/* conv.hip — convolution forward, data gradient and filter gradient, direct (one sum per output
 * element), any layout, fused with a pointwise epilogue. The generic path: right for every
 * case the reference interpreter accepts; the tensor-core path for forward channels-last
 * bf16 / fp16 is conv_igemm.hip.
 *
 * Letters (op-semantics.md §1): x [N, C, D, H, W], w [K, C/G, T, R, S], y [N, K, O, P, Q]; a 2-D
 * convolution is a 3-D one of depth 1 (size 1, stride 0). Group g = k / KG reads input channels
 * g*CG .. g*CG + CG - 1. Per spatial dim: in = out * stride - pre + f * dil (outside the input:
 * zero), filter tap f (cross-correlation) or F - 1 - f (HD_FLIP, convolution mode).
 *   HD_KIND 0  fwd    y[n, k, o]   = sum_{f, c < CG}  x[n, g*CG + c, in(o, f)] * w[k, c, tap(f)]
 *   HD_KIND 1  dgrad  x[n, ci, h]  = sum_{f, j < KG}  y[n, g*KG + j, o] * w[g*KG + j, ci % CG, tap(f)]
 *                                    over the o with in(o, f) = h (g = ci / CG)
 *   HD_KIND 2  wgrad  w[k, c, t]   = sum_{n, o}       y[n, k, o] * x[n, g*CG + c, in(o, tap(t))]
 * (for dgrad x is the result dx and y the input dy; for wgrad w is the result dw.)
 *
 * Each output element is one flat reduction of HD_RED terms; HD_LANES consecutive threads (1 or
 * a warp) split it and combine their partial sums with shuffles. Sums are fp32.
 *
 * Contract
 *   holes   HD_KIND                      0 fwd, 1 dgrad, 2 wgrad
 *           HD_N, HD_CG, HD_KG           batch, channels per group of x and of y
 *           HD_ID/IH/IW, HD_OD/OH/OW, HD_FD/FH/FW   input, output and filter spatial sizes
 *           HD_PD/PH/PW, HD_SD/SH/SW, HD_DD/DH/DW   pre-padding, stride, dilation
 *           HD_FLIP                      1: convolution mode (filter flipped)
 *           HD_XS_N, _C, _D, _H, _W; HD_WS_K, _C, _D, _H, _W; HD_YS_N, _K, _D, _H, _W
 *                                        element strides (0 for size-1 dims)
 *           HD_X_DT, HD_W_DT, HD_Y_DT    the operands' types; HD_X_PTR, HD_W_PTR, HD_Y_PTR
 *                                        the two inputs' parameters (the result is written by
 *                                        the epilogue)
 *           HD_NUMEL, HD_RED, HD_LANES   output elements, terms per element, threads per element
 *           HD_THREADS                   threads per block (multiple of the warp size)
 *           hd_out_coords(e, &a, &b, s)  output element e -> its coordinates (dims 0, 1 and the
 *                                        3 spatial), in the order of the output's memory
 *           hd_epilogue(a, b, s0, s1, s2, acc, HD_PARAMS)   rounds, runs the fused pointwise
 *                                        ops and stores every result the kernel writes
 *           HD_PARAMS, HD_ARGS           the kernel's parameters
 *   layout  any strides; scalar accesses (no alignment needed)
 *   reference  ir_ref_conv (ir/ir_ref_conv.c), ir_ref_pointwise for the epilogue
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_KIND 0
#define HD_N 2
#define HD_CG 8
#define HD_KG 16
#define HD_ID 1
#define HD_IH 9
#define HD_IW 9
#define HD_OD 1
#define HD_OH 9
#define HD_OW 9
#define HD_FD 1
#define HD_FH 3
#define HD_FW 3
#define HD_PD 0
#define HD_PH 1
#define HD_PW 1
#define HD_SD 1
#define HD_SH 1
#define HD_SW 1
#define HD_DD 1
#define HD_DH 1
#define HD_DW 1
#define HD_FLIP 0
#define HD_XS_N 648LL
#define HD_XS_C 81LL
#define HD_XS_D 0LL
#define HD_XS_H 9LL
#define HD_XS_W 1LL
#define HD_WS_K 72LL
#define HD_WS_C 9LL
#define HD_WS_D 0LL
#define HD_WS_H 3LL
#define HD_WS_W 1LL
#define HD_YS_N 1296LL
#define HD_YS_K 81LL
#define HD_YS_D 0LL
#define HD_YS_H 9LL
#define HD_YS_W 1LL
#define HD_X_DT HD_DT_FLOAT
#define HD_W_DT HD_DT_FLOAT
#define HD_Y_DT HD_DT_FLOAT
#define HD_PARAMS void *px, void *pw, void *py
#define HD_ARGS px, pw, py
#define HD_X_PTR px
#define HD_W_PTR pw
#define HD_Y_PTR py
#define HD_NUMEL (2 * 16 * 81)
#define HD_RED (9 * 8)
#define HD_LANES 1
#define HD_THREADS 256
HD_DEVICE void hd_out_coords(hd_i64 e, hd_i64 *a, hd_i64 *b, int *s)
{
    s[2] = (int)(e % HD_OW), e /= HD_OW;
    s[1] = (int)(e % HD_OH), e /= HD_OH;
    s[0] = 0;
    *b = e % HD_KG, *a = e / HD_KG; /* one group: K = KG */
}
HD_DEVICE void hd_epilogue(hd_i64 a, hd_i64 b, int s0, int s1, int s2, float acc, HD_PARAMS)
{
    hd_st<HD_DT_FLOAT>(py, a * HD_YS_N + b * HD_YS_K + s1 * HD_YS_H + s2 * HD_YS_W, acc);
}
#endif

/* The filter tap used at offset f of a filter of size F. */
#define HD_TAP(f, F) (HD_FLIP ? (F) - 1 - (f) : (f))

/* fwd: term j of y[n, k, o]: j = (filter offset) * CG + c. */
HD_DEVICE float hd_fwd_term(hd_i64 n, hd_i64 k, const int *o, int j, const void *x, const void *w)
{
    int c = j % HD_CG, f = j / HD_CG;
    int fw = f % HD_FW, fh = (f / HD_FW) % HD_FH, fd = f / (HD_FW * HD_FH);
    int id = o[0] * HD_SD - HD_PD + fd * HD_DD, ih = o[1] * HD_SH - HD_PH + fh * HD_DH;
    int iw = o[2] * HD_SW - HD_PW + fw * HD_DW;
    if (id < 0 || id >= HD_ID || ih < 0 || ih >= HD_IH || iw < 0 || iw >= HD_IW)
        return 0.0f;
    hd_i64 ci = k / HD_KG * HD_CG + c;
    hd_i64 xo = n * HD_XS_N + ci * HD_XS_C + id * HD_XS_D + ih * HD_XS_H + iw * HD_XS_W;
    hd_i64 wo = k * HD_WS_K + c * HD_WS_C + HD_TAP(fd, HD_FD) * HD_WS_D + HD_TAP(fh, HD_FH) * HD_WS_H +
                HD_TAP(fw, HD_FW) * HD_WS_W;
    return hd_ld<HD_X_DT>(x, xo) * hd_ld<HD_W_DT>(w, wo);
}

/* One spatial dim of dgrad: the output position that reads input h through filter offset f,
 * or -1 when there is none. */
HD_DEVICE int hd_out_pos(int h, int f, int pre, int stride, int dil, int out)
{
    int t = h + pre - f * dil;
    if (t < 0 || t % stride != 0 || t / stride >= out)
        return -1;
    return t / stride;
}

/* dgrad: term j of dx[n, ci, h]: j = (filter offset) * KG + (k within the group). */
HD_DEVICE float hd_dgrad_term(hd_i64 n, hd_i64 ci, const int *h, int j, const void *dy, const void *w)
{
    int kj = j % HD_KG, f = j / HD_KG;
    int fw = f % HD_FW, fh = (f / HD_FW) % HD_FH, fd = f / (HD_FW * HD_FH);
    int od = hd_out_pos(h[0], fd, HD_PD, HD_SD, HD_DD, HD_OD);
    int oh = hd_out_pos(h[1], fh, HD_PH, HD_SH, HD_DH, HD_OH);
    int ow = hd_out_pos(h[2], fw, HD_PW, HD_SW, HD_DW, HD_OW);
    if (od < 0 || oh < 0 || ow < 0)
        return 0.0f;
    hd_i64 k = ci / HD_CG * HD_KG + kj;
    hd_i64 yo = n * HD_YS_N + k * HD_YS_K + od * HD_YS_D + oh * HD_YS_H + ow * HD_YS_W;
    hd_i64 wo = k * HD_WS_K + (ci % HD_CG) * HD_WS_C + HD_TAP(fd, HD_FD) * HD_WS_D +
                HD_TAP(fh, HD_FH) * HD_WS_H + HD_TAP(fw, HD_FW) * HD_WS_W;
    return hd_ld<HD_Y_DT>(dy, yo) * hd_ld<HD_W_DT>(w, wo);
}

/* wgrad: term j of dw[k, c, t]: j = n * (O*P*Q) + (output position). */
HD_DEVICE float hd_wgrad_term(hd_i64 k, hd_i64 c, const int *t, int j, const void *x, const void *dy)
{
    int ow = j % HD_OW, oh = (j / HD_OW) % HD_OH, od = (j / (HD_OW * HD_OH)) % HD_OD;
    hd_i64 n = j / (HD_OW * HD_OH * HD_OD);
    int id = od * HD_SD - HD_PD + HD_TAP(t[0], HD_FD) * HD_DD;
    int ih = oh * HD_SH - HD_PH + HD_TAP(t[1], HD_FH) * HD_DH;
    int iw = ow * HD_SW - HD_PW + HD_TAP(t[2], HD_FW) * HD_DW;
    if (id < 0 || id >= HD_ID || ih < 0 || ih >= HD_IH || iw < 0 || iw >= HD_IW)
        return 0.0f;
    hd_i64 ci = k / HD_KG * HD_CG + c;
    hd_i64 xo = n * HD_XS_N + ci * HD_XS_C + id * HD_XS_D + ih * HD_XS_H + iw * HD_XS_W;
    hd_i64 yo = n * HD_YS_N + k * HD_YS_K + od * HD_YS_D + oh * HD_YS_H + ow * HD_YS_W;
    return hd_ld<HD_X_DT>(x, xo) * hd_ld<HD_Y_DT>(dy, yo);
}

HD_GLOBAL HD_LAUNCH_BOUNDS(HD_THREADS) void hd_conv_kernel(HD_PARAMS)
{
    const int lane = threadIdx.x % HD_LANES;
    const hd_i64 step = (hd_i64)gridDim.x * (HD_THREADS / HD_LANES);
    /* The HD_LANES threads of one element share e, so with a warp per element every loop
     * condition below is uniform across the warp (the shuffles need all its lanes). */
    for (hd_i64 e = ((hd_i64)blockIdx.x * HD_THREADS + threadIdx.x) / HD_LANES; e < HD_NUMEL; e += step) {
        hd_i64 a, b;
        int s[3];
        hd_out_coords(e, &a, &b, s);
        float acc = 0.0f;
        for (int j = lane; j < HD_RED; j += HD_LANES) {
#if HD_KIND == 0
            acc += hd_fwd_term(a, b, s, j, HD_X_PTR, HD_W_PTR);
#elif HD_KIND == 1
            acc += hd_dgrad_term(a, b, s, j, HD_Y_PTR, HD_W_PTR);
#else
            acc += hd_wgrad_term(a, b, s, j, HD_X_PTR, HD_Y_PTR);
#endif
        }
#pragma unroll
        for (int m = HD_LANES / 2; m > 0; m /= 2)
            acc += hd_shfl_xor(acc, m);
        if (lane == 0)
            hd_epilogue(a, b, s[0], s[1], s[2], acc, HD_ARGS);
    }
}
