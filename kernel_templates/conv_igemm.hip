/* conv_igemm.hip — forward convolution as an implicit GEMM on the tensor cores (mma.sync
 * m16n8k16, bf16 or fp16 operands, fp32 accumulate), channels-last, fused with a pointwise
 * epilogue applied to each accumulator before the one store.
 *
 * Letters (op-semantics.md §1): x [N, C, D, H, W], w [K, C/G, T, R, S], y [N, K, O, P, Q]; a 2-D
 * convolution is a 3-D one of depth 1. Per group g (grid z) the convolution is the GEMM
 *   Y_g [M, KG] = A [M, KCH * 8] · B [KCH * 8, KG],   M = N * O * P * Q (output pixels),
 * where the reduction runs over filter taps (t, r, s) and, within a tap, over the group's CG
 * input channels in chunks of 8 (KCH = taps * ceil(CG / 8) chunks; the last chunk of a tap is
 * partial when CG is not a multiple of 8). A's row m, chunk q is the 16 bytes of x at pixel
 * (n, o*stride - pre + f*dil) and channels g*CG + 8*(q % CCH) ... (im2col, never materialised:
 * the loader gathers it); B's column k, chunk q is the same channels of w[g*KG + k] at tap f
 * (flipped in convolution mode). Channels are contiguous in x and w, so every chunk is one
 * 16-byte cp.async; taps in the padding and partial chunks are zero-filled (src-size 0 .. 16),
 * in A and B alike, so they add nothing.
 *
 * The tile machinery is matmul.hip's (column-major B path): a block of 8 warps (2 x 4) computes
 * a 128 x 128 tile, K advances 32 (4 chunks) per step through HD_STAGES cp.async stages of
 * XOR-swizzled shared memory, fragments via ldmatrix; blocks visit tiles in groups of
 * HD_GROUP_M tile rows.
 *
 * Contract
 *   holes   HD_N, HD_CG, HD_KG, HD_G     batch, channels per group of x and y, groups
 *           HD_ID/IH/IW, HD_OD/OH/OW, HD_FD/FH/FW   input, output and filter spatial sizes
 *           HD_PD/PH/PW, HD_SD/SH/SW, HD_DD/DH/DW   pre-padding, stride, dilation
 *           HD_FLIP                      1: convolution mode (filter flipped)
 *           HD_XS_N, _D, _H, _W; HD_WS_K, _D, _H, _W   element strides (channel strides are 1)
 *           HD_AB_DT                     HD_DT_BFLOAT16 or HD_DT_HALF (x and w alike)
 *           HD_X_PTR, HD_W_PTR, HD_PARAMS, HD_ARGS     operands and kernel parameters
 *           hd_epilogue(n, k, o0, o1, o2, acc, HD_PARAMS)   rounds, runs the fused pointwise
 *                                        ops on one element and stores every result written
 *   layout  x, w: unit channel stride; every other stride of x and w a multiple of 8 elements
 *           (0 for size-1 dims); HD_G == 1 or HD_CG a multiple of 8; base pointers 16-byte
 *           aligned (cp.async 16 B)
 *   target  sm_80 or newer (cp.async, ldmatrix, mma.sync.m16n8k16)
 *   grid    (ceil(KG / 128), ceil(M / 128), G), HD_MM_THREADS (256) threads, 48 KB static
 *           shared memory
 *   reference  ir_ref_conv (ir/ir_ref_conv.c), ir_ref_pointwise for the epilogue
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_N 4
#define HD_CG 64
#define HD_KG 128
#define HD_G 1
#define HD_ID 1
#define HD_IH 28
#define HD_IW 28
#define HD_OD 1
#define HD_OH 28
#define HD_OW 28
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
#define HD_XS_N (28LL * 28 * 64)
#define HD_XS_D 0LL
#define HD_XS_H (28LL * 64)
#define HD_XS_W 64LL
#define HD_WS_K (9LL * 64)
#define HD_WS_D 0LL
#define HD_WS_H (3LL * 64)
#define HD_WS_W 64LL
#define HD_AB_DT HD_DT_BFLOAT16
#define HD_PARAMS void *px, void *pw, void *py
#define HD_ARGS px, pw, py
#define HD_X_PTR px
#define HD_W_PTR pw
HD_DEVICE void hd_epilogue(hd_i64 n, hd_i64 k, int o0, int o1, int o2, float acc, HD_PARAMS)
{
    hd_st<HD_DT_BFLOAT16>(py, ((n * HD_OH + o1) * HD_OW + o2) * (HD_KG * HD_G) + k, acc);
}
#endif

#ifndef HD_STAGES
#define HD_STAGES 3 /* 3 x 16 KB: the 48 KB of static shared memory every device allows */
#endif
#define HD_WARPS_M 2
#define HD_WARPS_N 4
#define HD_BM 128
#define HD_BN 128
#define HD_BK 32
#define HD_MM_THREADS (HD_WARPS_M * HD_WARPS_N * 32)
#define HD_WM (HD_BM / HD_WARPS_M)
#define HD_WN (HD_BN / HD_WARPS_N)
#define HD_MI (HD_WM / 16) /* m16 tiles per warp */
#define HD_NI (HD_WN / 8)  /* n8 tiles per warp */
#define HD_CHUNKS (HD_BM * HD_BK / 8 / HD_MM_THREADS) /* 16-byte copies per thread per operand */
#define HD_GROUP_M 8
#define HD_A_TILE (HD_BM * HD_BK) /* elements per stage */
#define HD_B_TILE (HD_BK * HD_BN)

#define HD_M (HD_N * HD_OD * HD_OH * HD_OW)
#define HD_CCH ((HD_CG + 7) / 8)                 /* 8-channel chunks per filter tap */
#define HD_KCH (HD_FD * HD_FH * HD_FW * HD_CCH)  /* chunks along the reduction */
#define HD_TAP(f, F) (HD_FLIP ? (F) - 1 - (f) : (f))

/* d += a · b for one m16n8k16 tile (hd_tensor_nv.h's, for HD_AB_DT). */
HD_DEVICE void hd_mma(float *d, const hd_u32 *a, const hd_u32 *b) { hd_mma16<HD_AB_DT>(d, a, b[0], b[1]); }

/* Byte offset of 16-byte chunk c of row r in a tile with 4 chunks per row (A [m][k], B^T
 * [n][k]): the chunk index is XORed with bits 1..2 of the row. */
HD_DEVICE int hd_swz4(int r, int c) { return (r * 4 + (c ^ ((r >> 1) & 3))) * 16; }

/* What one thread gathers, fixed for the whole reduction: its HD_CHUNKS rows of A (output
 * pixels: x's batch offset and the input position of filter offset 0, or n_off -1 past M)
 * and of B^T (w's row offset, or -1 past KG). */
struct hd_rows {
    hd_i64 n_off[HD_CHUNKS], w_off[HD_CHUNKS];
    int d0[HD_CHUNKS], h0[HD_CHUNKS], w0[HD_CHUNKS];
};

HD_DEVICE void hd_init_rows(hd_rows &rw, int m0, int n0, int tid)
{
#pragma unroll
    for (int i = 0; i < HD_CHUNKS; i++) {
        int r = (tid >> 2) + i * (HD_MM_THREADS / 4);
        int m = m0 + r, kn = n0 + r;
        int ow = m % HD_OW, t = m / HD_OW;
        int oh = t % HD_OH, od = (t / HD_OH) % HD_OD, n = t / (HD_OH * HD_OD);
        rw.n_off[i] = m < HD_M ? n * HD_XS_N : -1;
        rw.d0[i] = od * HD_SD - HD_PD, rw.h0[i] = oh * HD_SH - HD_PH, rw.w0[i] = ow * HD_SW - HD_PW;
        rw.w_off[i] = kn < HD_KG ? kn * HD_WS_K : -1;
    }
}

/* Issues the copies of k-tile kt into one stage: chunk q = 4 kt + (tid % 4) of each row. */
HD_DEVICE void hd_load_tile(hd_u32 sa, hd_u32 sb, const hd_u16 *x, const hd_u16 *w, const hd_rows &rw,
                            int kt, int tid)
{
    const int c = tid & 3, q = kt * 4 + c;
    const int cc = q % HD_CCH, tap = q / HD_CCH;
    const int fw = tap % HD_FW, fh = (tap / HD_FW) % HD_FH, fd = tap / (HD_FW * HD_FH);
    const int ch0 = cc * 8, left = HD_CG - ch0;
    const int bytes = q < HD_KCH ? (left >= 8 ? 16 : left * 2) : 0;
    const hd_i64 w_tap = HD_TAP(fd, HD_FD) * HD_WS_D + HD_TAP(fh, HD_FH) * HD_WS_H +
                         HD_TAP(fw, HD_FW) * HD_WS_W + ch0;
#pragma unroll
    for (int i = 0; i < HD_CHUNKS; i++) {
        int r = (tid >> 2) + i * (HD_MM_THREADS / 4);
        int id = rw.d0[i] + fd * HD_DD, ih = rw.h0[i] + fh * HD_DH, iw = rw.w0[i] + fw * HD_DW;
        bool in = rw.n_off[i] >= 0 && id >= 0 && id < HD_ID && ih >= 0 && ih < HD_IH && iw >= 0 && iw < HD_IW;
        int a_bytes = in ? bytes : 0;
        const hd_u16 *a_src = a_bytes ? x + rw.n_off[i] + id * HD_XS_D + ih * HD_XS_H + iw * HD_XS_W + ch0 : x;
        hd_cp_async16(sa + hd_swz4(r, c), a_src, a_bytes);
        int b_bytes = rw.w_off[i] >= 0 ? bytes : 0;
        const hd_u16 *b_src = b_bytes ? w + rw.w_off[i] + w_tap : w;
        hd_cp_async16(sb + hd_swz4(r, c), b_src, b_bytes);
    }
}

/* The warp's A and B fragments of k-step kk (16 wide) of the stage at sa / sb. */
HD_DEVICE void hd_load_frags(hd_u32 (*af)[4], hd_u32 (*bf)[2], hd_u32 sa, hd_u32 sb, int kk, int wm,
                             int wn, int lane)
{
#pragma unroll
    for (int mi = 0; mi < HD_MI; mi++) {
        int r = wm * HD_WM + mi * 16 + (lane & 15), c = kk * 2 + (lane >> 4);
        hd_ldsm_x4(af[mi], sa + hd_swz4(r, c));
    }
#pragma unroll
    for (int nj = 0; nj < HD_NI / 2; nj++) {
        hd_u32 t[4];
        int r = wn * HD_WN + nj * 16 + (lane & 7) + ((lane >> 4) << 3), c = kk * 2 + ((lane >> 3) & 1);
        hd_ldsm_x4(t, sb + hd_swz4(r, c));
        bf[nj * 2][0] = t[0], bf[nj * 2][1] = t[1];
        bf[nj * 2 + 1][0] = t[2], bf[nj * 2 + 1][1] = t[3];
    }
}

HD_GLOBAL __launch_bounds__(HD_MM_THREADS, 2) /* 2 blocks per SM */ void hd_conv_igemm_kernel(HD_PARAMS)
{
    __shared__ __align__(128) hd_u16 smem[HD_STAGES * (HD_A_TILE + HD_B_TILE)];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp / HD_WARPS_N, wn = warp % HD_WARPS_N; /* warp tile rows wm*WM, cols wn*WN */

    /* Grouped block order: HD_GROUP_M tile rows share the same filter columns while they run. */
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    int pid = blockIdx.y * tiles_n + blockIdx.x;
    int group = pid / (HD_GROUP_M * tiles_n), first_m = group * HD_GROUP_M;
    int rows_in_group = tiles_m - first_m < HD_GROUP_M ? tiles_m - first_m : HD_GROUP_M;
    int tile_m = first_m + (pid % (HD_GROUP_M * tiles_n)) % rows_in_group;
    int tile_n = (pid % (HD_GROUP_M * tiles_n)) / rows_in_group;
    const int m0 = tile_m * HD_BM, n0 = tile_n * HD_BN;
    const int g = blockIdx.z; /* the convolution group */
    const hd_u16 *x = (const hd_u16 *)HD_X_PTR + (hd_i64)g * HD_CG;
    const hd_u16 *w = (const hd_u16 *)HD_W_PTR + (hd_i64)g * HD_KG * HD_WS_K;

    hd_rows rw;
    hd_init_rows(rw, m0, n0, tid);
    const hd_u32 s_base = hd_smem_addr(smem);
    const hd_u32 a_bytes = HD_A_TILE * 2, stage_bytes = (HD_A_TILE + HD_B_TILE) * 2;

    float acc[HD_MI][HD_NI][4];
#pragma unroll
    for (int i = 0; i < HD_MI; i++)
#pragma unroll
        for (int j = 0; j < HD_NI; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    const int k_tiles = (HD_KCH + 3) / 4;
#pragma unroll
    for (int s = 0; s < HD_STAGES - 1; s++) {
        if (s < k_tiles)
            hd_load_tile(s_base + s * stage_bytes, s_base + s * stage_bytes + a_bytes, x, w, rw, s, tid);
        hd_cp_commit();
    }

    for (int kt = 0; kt < k_tiles; kt++) {
        hd_cp_wait<HD_STAGES - 2>();
        __syncthreads(); /* tile kt is in shared memory; stage (kt - 1) is free for refill */
        int next = kt + HD_STAGES - 1;
        if (next < k_tiles) {
            hd_u32 st = s_base + (next % HD_STAGES) * stage_bytes;
            hd_load_tile(st, st + a_bytes, x, w, rw, next, tid);
        }
        hd_cp_commit();

        const hd_u32 sa = s_base + (kt % HD_STAGES) * stage_bytes, sb = sa + a_bytes;
        hd_u32 af[2][HD_MI][4], bf[2][HD_NI][2];
        hd_load_frags(af[0], bf[0], sa, sb, 0, wm, wn, lane);
#pragma unroll
        for (int kk = 0; kk < HD_BK / 16; kk++) {
            if (kk + 1 < HD_BK / 16)
                hd_load_frags(af[(kk + 1) & 1], bf[(kk + 1) & 1], sa, sb, kk + 1, wm, wn, lane);
#pragma unroll
            for (int mi = 0; mi < HD_MI; mi++)
#pragma unroll
                for (int ni = 0; ni < HD_NI; ni++)
                    hd_mma(acc[mi][ni], af[kk & 1][mi], bf[kk & 1][ni]);
        }
    }
    hd_cp_wait<0>();

    /* Accumulator (mi, ni): rows +lane/4 and +8, columns +2*(lane%4) and +1. */
#pragma unroll
    for (int mi = 0; mi < HD_MI; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int row = m0 + wm * HD_WM + mi * 16 + (lane >> 2) + h * 8;
            if (row >= HD_M)
                continue;
            int ow = row % HD_OW, t = row / HD_OW;
            int oh = t % HD_OH, od = (t / HD_OH) % HD_OD, n = t / (HD_OH * HD_OD);
#pragma unroll
            for (int ni = 0; ni < HD_NI; ni++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    int col = n0 + wn * HD_WN + ni * 8 + (lane & 3) * 2 + e;
                    if (col < HD_KG)
                        hd_epilogue(n, (hd_i64)g * HD_KG + col, od, oh, ow, acc[mi][ni][h * 2 + e], HD_ARGS);
                }
        }
}
