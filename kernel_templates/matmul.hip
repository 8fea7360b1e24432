/* matmul.hip — C[b, M, N] = A[b, M, K] · B[b, K, N] on the tensor cores (mma.sync m16n8k16,
 * bf16 or fp16 operands, fp32 accumulate), fused with a pointwise epilogue (bias, activation,
 * scale, cast) applied to each accumulator before the one store.
 *
 * One block of 8 warps computes a 128 x 128 tile of C (warps 2 x 4, each 64 x 32; on an H200
 * this ran faster than 4 warps of 64 x 64: 267 vs 226 TFLOP/s at 4096^3). K advances
 * in steps of 32: cp.async copies A and B tiles global -> shared, HD_STAGES deep, while the
 * tensor cores consume the oldest stage through ldmatrix. Shared rows are XOR-swizzled by
 * 16-byte chunk, so ldmatrix and cp.async are free of bank conflicts. Edge tiles: a chunk past
 * M, N or K is zero-filled by cp.async (src-size 0 .. 16 bytes), so partial chunks at the end of
 * K or N read only valid bytes; stores are predicated per element. Blocks are visited in
 * groups of HD_GROUP_M tile rows so that concurrently running blocks share A and B in L2.
 *
 * Contract
 *   holes   HD_M, HD_N, HD_K          matrix sizes (any values >= 1); HD_M and HD_BATCH may be
 *                                     expressions of the kernel's parameters (dynamic shapes)
 *           HD_BATCH                  product of C's batch dims (grid z)
 *           HD_AB_DT                  HD_DT_BFLOAT16 or HD_DT_HALF (A and B alike)
 *           HD_B_KMAJOR               0: B row-major [K, N] (N contiguous, row stride HD_LDB)
 *                                     1: B column-major (K contiguous, column stride HD_LDB)
 *           HD_LDA                    A's row stride in elements (K contiguous)
 *           hd_a_off(b), hd_b_off(b)  element offset of batch b's matrix in A / B (broadcast
 *                                     batch dims of size 1 contribute nothing; functions, or
 *                                     macros over the kernel's parameters)
 *           HD_WARPS_M, HD_WARPS_N    warps along M and N (codegen: 2 x 4)
 *           HD_PARAMS, HD_ARGS        kernel parameters; HD_A_PTR, HD_B_PTR name A and B
 *           hd_epilogue(b, row, col, acc, HD_PARAMS)   runs the fused epilogue on one element
 *                                     and stores every result the kernel writes
 *   layout  A, B: unit stride along their contiguous dim; HD_LDA, HD_LDB and the batch
 *           offsets multiples of 8 elements; base pointers 16-byte aligned (cp.async 16 B)
 *   target  sm_80 or newer (cp.async, ldmatrix, mma.sync.m16n8k16)
 *   grid    (ceil(N / 128), ceil(M / 128), HD_BATCH), HD_MM_THREADS (256) threads; static
 *           shared memory (48 KB: the runtime does not opt kernels in to more yet, which caps
 *           the tile at 128 x 128 x 32 with 3 stages)
 *   reference  ir_ref_matmul (ir/ir_ref_matmul.c) and ir_ref_pointwise for the epilogue
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_M 1024
#define HD_N 1024
#define HD_K 1024
#define HD_BATCH 1
#define HD_AB_DT HD_DT_BFLOAT16
#define HD_B_KMAJOR 0
#define HD_LDA 1024LL
#define HD_LDB 1024LL
#define HD_PARAMS void *pa, void *pb, void *pc
#define HD_ARGS pa, pb, pc
#define HD_A_PTR pa
#define HD_B_PTR pb
HD_DEVICE hd_i64 hd_a_off(hd_i64 b) { return b * HD_M * HD_LDA; }
HD_DEVICE hd_i64 hd_b_off(hd_i64 b) { return b * HD_K * HD_LDB; }
HD_DEVICE void hd_epilogue(hd_i64 b, int r, int c, float acc, HD_PARAMS)
{
    hd_st<HD_DT_BFLOAT16>(pc, (b * HD_M + r) * (hd_i64)HD_N + c, acc);
}
#endif

#ifndef HD_STAGES
#define HD_STAGES 3 /* 3 x 16 KB: the 48 KB of static shared memory every device allows */
#endif
#ifndef HD_WARPS_M /* warps along M and N; each warp computes a (BM / WARPS_M) x (BN / WARPS_N) tile */
#define HD_WARPS_M 2
#define HD_WARPS_N 4
#endif
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

/* d += a · b for one m16n8k16 tile (hd_tensor_nv.h's, for HD_AB_DT). */
HD_DEVICE void hd_mma(float *d, const hd_u32 *a, const hd_u32 *b) { hd_mma16<HD_AB_DT>(d, a, b[0], b[1]); }

/* Byte offset of 16-byte chunk c of row r in a tile with 4 chunks per row (A [m][k], or B
 * [n][k]): the chunk index is XORed with bits 1..2 of the row. */
HD_DEVICE int hd_swz4(int r, int c) { return (r * 4 + (c ^ ((r >> 1) & 3))) * 16; }
/* The same for B [k][n] with 16 chunks per row: XOR with the row's low 3 bits. */
HD_DEVICE int hd_swz16(int r, int c) { return (r * 16 + (c ^ (r & 7))) * 16; }

/* Issues the copies of k-tile kt into one stage (HD_CHUNKS A and B chunks per thread); A has
 * m rows. */
HD_DEVICE void hd_load_tile(hd_u32 sa, hd_u32 sb, const hd_u16 *a, const hd_u16 *b, int m0, int n0,
                            int kt, int tid, int m)
{
    int k0 = kt * HD_BK;
#pragma unroll
    for (int i = 0; i < HD_CHUNKS; i++) {
        int id = tid + i * HD_MM_THREADS;     /* 0 .. 511 */
        int r = id >> 2, c = id & 3;          /* A: 128 rows x 4 chunks */
        int gm = m0 + r, gk = k0 + c * 8;
        int left = HD_K - gk;
        int bytes = gm < m && left > 0 ? (left >= 8 ? 16 : left * 2) : 0;
        const hd_u16 *src = bytes ? a + (hd_i64)gm * HD_LDA + gk : a;
        hd_cp_async16(sa + hd_swz4(r, c), src, bytes);
    }
#pragma unroll
    for (int i = 0; i < HD_CHUNKS; i++) {
        int id = tid + i * HD_MM_THREADS;
#if HD_B_KMAJOR
        int r = id >> 2, c = id & 3;          /* B^T: 128 n-rows x 4 chunks along k */
        int gn = n0 + r, gk = k0 + c * 8;
        int left = HD_K - gk;
        int bytes = gn < HD_N && left > 0 ? (left >= 8 ? 16 : left * 2) : 0;
        const hd_u16 *src = bytes ? b + (hd_i64)gn * HD_LDB + gk : b;
        hd_cp_async16(sb + hd_swz4(r, c), src, bytes);
#else
        int r = id >> 4, c = id & 15;         /* B: 32 k-rows x 16 chunks along n */
        int gk = k0 + r, gn = n0 + c * 8;
        int left = HD_N - gn;
        int bytes = gk < HD_K && left > 0 ? (left >= 8 ? 16 : left * 2) : 0;
        const hd_u16 *src = bytes ? b + (hd_i64)gk * HD_LDB + gn : b;
        hd_cp_async16(sb + hd_swz16(r, c), src, bytes);
#endif
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
#if HD_B_KMAJOR
        int r = wn * HD_WN + nj * 16 + (lane & 7) + ((lane >> 4) << 3), c = kk * 2 + ((lane >> 3) & 1);
        hd_ldsm_x4(t, sb + hd_swz4(r, c));
#else
        int r = kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), c = (wn * HD_WN + nj * 16) / 8 + (lane >> 4);
        hd_ldsm_x4_trans(t, sb + hd_swz16(r, c));
#endif
        bf[nj * 2][0] = t[0], bf[nj * 2][1] = t[1];
        bf[nj * 2 + 1][0] = t[2], bf[nj * 2 + 1][1] = t[3];
    }
}

HD_GLOBAL __launch_bounds__(HD_MM_THREADS, 2) /* 2 blocks per SM */ void hd_matmul_kernel(HD_PARAMS)
{
    __shared__ __align__(128) hd_u16 smem[HD_STAGES * (HD_A_TILE + HD_B_TILE)];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp / HD_WARPS_N, wn = warp % HD_WARPS_N; /* warp tile rows wm*WM, cols wn*WN */

    /* Grouped block order: HD_GROUP_M tile rows share the same B columns while they run. */
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    int pid = blockIdx.y * tiles_n + blockIdx.x;
    int group = pid / (HD_GROUP_M * tiles_n), first_m = group * HD_GROUP_M;
    int rows_in_group = tiles_m - first_m < HD_GROUP_M ? tiles_m - first_m : HD_GROUP_M;
    int tile_m = first_m + (pid % (HD_GROUP_M * tiles_n)) % rows_in_group;
    int tile_n = (pid % (HD_GROUP_M * tiles_n)) / rows_in_group;
    const int m0 = tile_m * HD_BM, n0 = tile_n * HD_BN;
    const hd_i64 batch = blockIdx.z;
    const hd_u16 *a = (const hd_u16 *)HD_A_PTR + hd_a_off(batch);
    const hd_u16 *b = (const hd_u16 *)HD_B_PTR + hd_b_off(batch);

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

    const int k_tiles = (HD_K + HD_BK - 1) / HD_BK;
#pragma unroll
    for (int s = 0; s < HD_STAGES - 1; s++) {
        if (s < k_tiles)
            hd_load_tile(s_base + s * stage_bytes, s_base + s * stage_bytes + a_bytes, a, b, m0, n0, s, tid, HD_M);
        hd_cp_commit();
    }

    for (int kt = 0; kt < k_tiles; kt++) {
        hd_cp_wait<HD_STAGES - 2>();
        __syncthreads(); /* tile kt is in shared memory; stage (kt - 1) is free for refill */
        int next = kt + HD_STAGES - 1;
        if (next < k_tiles) {
            hd_u32 st = s_base + (next % HD_STAGES) * stage_bytes;
            hd_load_tile(st, st + a_bytes, a, b, m0, n0, next, tid, HD_M);
        }
        hd_cp_commit();

        const hd_u32 sa = s_base + (kt % HD_STAGES) * stage_bytes, sb = sa + a_bytes;
        /* Fragments double-buffered: step kk + 1's ldmatrix is in flight during step kk's mma. */
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
        for (int ni = 0; ni < HD_NI; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int row = m0 + wm * HD_WM + mi * 16 + (lane >> 2) + (e >> 1) * 8;
                int col = n0 + wn * HD_WN + ni * 8 + (lane & 3) * 2 + (e & 1);
                if (row < HD_M && col < HD_N)
                    hd_epilogue(batch, row, col, acc[mi][ni][e], HD_ARGS);
            }
}
