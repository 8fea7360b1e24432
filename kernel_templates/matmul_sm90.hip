/* matmul_sm90.hip — C[b, M, N] = A[b, M, K] · B[b, K, N] on Hopper's warpgroup tensor cores
 * (wgmma m64nNk16, bf16 or fp16 operands from shared memory, fp32 accumulate in registers),
 * fused with a pointwise epilogue (bias, activation, scale, cast) applied to each accumulator
 * straight from registers before the one store.
 *
 * Persistent and warp-specialized: a grid of at most one block per multiprocessor walks the
 * output tiles (HD_BM x HD_BN, batch-major, then groups of HD_GROUP_M tile rows so that blocks
 * running together share A and B in L2). A block is three warpgroups:
 *   warpgroup 0 (producer): one thread issues the TMA copies (cp.async.bulk.tensor) of each
 *       K step's A tile [BM x 64] and B tile [64 x BN] into a ring of HD_STAGES shared-memory
 *       stages; each stage has a `full` mbarrier (the copies' bytes complete it) and an `empty`
 *       one (the consumers' 8 warps arrive when they have read it).
 *   warpgroups 1 and 2 (consumers): rows 0..63 and 64..127 of the tile; per K step, 4 wgmma
 *       m64nBNk16 read the stage through shared-memory descriptors, then the epilogue hook
 *       runs on each accumulator (BN / 2 fp32 registers per thread).
 * The producer runs ahead into the next tile while the consumers do the epilogue.
 * Shared memory: the TMA writes with the 128-byte swizzle (16-byte chunk c of 128-byte row r
 * lands at chunk c ^ (r % 8)), which is the layout wgmma's 128B-swizzle descriptors read:
 *   A (K contiguous, "K-major"): [BM rows][64 k], 128 bytes a row; a descriptor covers 64
 *       rows, 8-row groups 1024 bytes apart (SBO); K step kk starts 32 * kk bytes in.
 *   B K-major (HD_B_KMAJOR 1, B stored [N][K]): [BN rows][64 k], read like A.
 *   B N-major (HD_B_KMAJOR 0, B stored [K][N]): BN / 64 boxes of [64 k rows][64 n], 8 KB
 *       apart (LBO: between 64-wide N chunks), 8-k-row groups 1024 bytes apart (SBO); the
 *       wgmma transposes B (imm-trans-b 1); K step kk starts 16 rows = 2048 bytes in.
 * Edges need no code: the TMA fills rows, columns and K past the tensor's end with zeros (and
 * counts their bytes), so partial tiles and any K are exact; stores are predicated per element.
 *
 * Contract
 *   holes   HD_M, HD_N, HD_K          matrix sizes (any values >= 1); HD_M and HD_BATCH may be
 *                                     expressions of the kernel's parameters (dynamic shapes:
 *                                     every function using them takes HD_PARAMS)
 *           HD_BATCH                  product of C's batch dims
 *           HD_AB_DT                  HD_DT_BFLOAT16 or HD_DT_HALF (A and B alike)
 *           HD_B_KMAJOR               0: B row-major [K, N]; 1: B column-major (K contiguous)
 *           HD_BN                     128 or 256 (tile columns); HD_STAGES 2 .. 6 (shared
 *                                     memory: HD_STAGES * (128 + HD_BN) * 128 bytes + 1 KB)
 *           hd_a_bidx(b), hd_b_bidx(b) index along the third dim of A's / B's tensor map for C's
 *                                     batch b (broadcast dims contribute nothing; functions, or
 *                                     macros over the kernel's parameters)
 *           HD_PARAMS, HD_ARGS        kernel parameters (tensor pointers, scalars)
 *           HD_EPI_IN                 how many operands the epilogue reads from memory
 *           hd_epilogue_in(b, row, col, in, HD_PARAMS)  loads them for one element into
 *                                     in[0 .. HD_EPI_IN - 1]
 *           hd_epilogue_out(b, row, col, acc, in, HD_PARAMS)  runs the fused epilogue on one
 *                                     element and stores every result the kernel writes
 *                                     (the split lets a group of elements' loads all be in
 *                                     flight before the first store, which may alias them)
 *   params  HD_PARAMS, then the tensor maps of A and B (runtime-encoded, passed by value):
 *           A: dims {K, M, batches of A}, box {64, 128, 1}; B K-major: {K, N, nb}, box
 *           {64, HD_BN, 1}; B N-major: {N, K, nb}, box {64, 64, 1}; 16-bit elements, 128-byte
 *           swizzle, zero fill. Row and batch strides: multiples of 16 bytes (TMA).
 *   target  sm_90a (wgmma, setmaxnreg: compile for the arch-specific target)
 *   grid    (min(tiles, multiprocessors), 1, 1), 384 threads, HD_SMEM_BYTES dynamic shared
 *           memory (above 48 KB: the engine raises the function's limit)
 *   reference  ir_ref_matmul (ir/ir_ref_matmul.c) and ir_ref_pointwise for the epilogue
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_M 1024
#define HD_N 1024
#define HD_K 1024
#define HD_BATCH 1
#define HD_AB_DT HD_DT_BFLOAT16
#define HD_B_KMAJOR 0
#define HD_PARAMS void *pa, void *pb, void *pc
#define HD_ARGS pa, pb, pc
HD_DEVICE int hd_a_bidx(int b) { return b; }
HD_DEVICE int hd_b_bidx(int b) { return b; }
#define HD_EPI_IN 0
HD_DEVICE void hd_epilogue_in(hd_i64 b, int r, int c, float *in, HD_PARAMS) {}
HD_DEVICE void hd_epilogue_out(hd_i64 b, int r, int c, float acc, const float *in, HD_PARAMS)
{
    hd_st<HD_DT_BFLOAT16>(pc, (b * HD_M + r) * (hd_i64)HD_N + c, acc);
}
#endif

#ifndef HD_BN
#define HD_BN 256
#endif
#ifndef HD_STAGES
#define HD_STAGES 4
#endif
#define HD_BM 128
#define HD_BK 64 /* 64 16-bit elements: one 128-byte swizzle row */
#define HD_GROUP_M 16
/* Epilogue: n8 column blocks whose operands are all loaded before the first of their stores. */
#define HD_EPI_GROUP (HD_EPI_IN > 2 ? 2 : HD_EPI_IN == 2 ? 4 : 8)
#define HD_MM_THREADS 384
#define HD_CONSUMER_WARPS 8
#define HD_TILES_M ((HD_M + HD_BM - 1) / HD_BM)
#define HD_TILES_N ((HD_N + HD_BN - 1) / HD_BN)
#define HD_TILES (HD_TILES_M * HD_TILES_N * HD_BATCH)
#define HD_K_TILES ((HD_K + HD_BK - 1) / HD_BK)
#define HD_A_BYTES (HD_BM * HD_BK * 2)
#define HD_B_BYTES (HD_BN * HD_BK * 2)
#define HD_STAGE_BYTES (HD_A_BYTES + HD_B_BYTES)
#define HD_SMEM_BYTES (1024 + HD_STAGES * HD_STAGE_BYTES + HD_STAGES * 16)

/* The tensor-core, mbarrier and TMA wrappers are hd_tensor_nv.h's. Its mbarrier waits spin here
 * (hd_mbar_wait_ns<0>, no suspend-time hint): the hint was measured on attention only
 * (bench/NOTES.md #20), not on this kernel. */

/* hd_tensor_nv.h's wgmma product for HD_AB_DT: d[64 x HD_BN] (+)= A[64 x 16] · B[16 x HD_BN], A
 * K-major, B N-major when HD_B_KMAJOR is 0 (imm-trans-b); scale_d 0 overwrites d. */
HD_DEVICE void hd_wgmma(float *d, hd_u64 da, hd_u64 db, int scale_d)
{
    hd_wgmma_ss_as<HD_AB_DT, HD_BN, 0, 1 - HD_B_KMAJOR>(d, da, db, scale_d);
}

/* ---- the kernel ----------------------------------------------------------------------------------- */

/* Batch, first row and first column of tile t (batch-major; groups of HD_GROUP_M tile rows). */
HD_DEVICE void hd_tile(int t, int &b, int &m0, int &n0, HD_PARAMS)
{
    const int per_batch = HD_TILES_M * HD_TILES_N;
    b = t / per_batch;
    int r = t % per_batch, group = r / (HD_GROUP_M * HD_TILES_N), first_m = group * HD_GROUP_M;
    int rows = HD_TILES_M - first_m < HD_GROUP_M ? HD_TILES_M - first_m : HD_GROUP_M;
    int in = r % (HD_GROUP_M * HD_TILES_N);
    m0 = (first_m + in % rows) * HD_BM;
    n0 = in / rows * HD_BN;
}

HD_DEVICE void hd_produce(const hd_tmap *map_a, const hd_tmap *map_b, hd_u32 tiles, hd_u32 full, hd_u32 empty,
                          HD_PARAMS)
{
    int stage = 0;
    hd_u32 phase = 0;
    for (int t = blockIdx.x; t < HD_TILES; t += gridDim.x) {
        int b, m0, n0;
        hd_tile(t, b, m0, n0, HD_ARGS);
        const int ab = hd_a_bidx(b), bb = hd_b_bidx(b);
        for (int kt = 0; kt < HD_K_TILES; kt++) {
            hd_mbar_wait_ns<0>(empty + stage * 8, phase ^ 1); /* a fresh barrier passes parity 1 */
            const hd_u32 bar = full + stage * 8, sa = tiles + stage * HD_STAGE_BYTES, sb = sa + HD_A_BYTES;
            hd_mbar_arrive_tx(bar, HD_STAGE_BYTES);
            hd_tma_load(sa, map_a, bar, kt * HD_BK, m0, ab);
#if HD_B_KMAJOR
            hd_tma_load(sb, map_b, bar, kt * HD_BK, n0, bb);
#else
#pragma unroll
            for (int c = 0; c < HD_BN / 64; c++)
                hd_tma_load(sb + c * 64 * HD_BK * 2, map_b, bar, n0 + c * 64, kt * HD_BK, bb);
#endif
            if (++stage == HD_STAGES)
                stage = 0, phase ^= 1;
        }
    }
}

/* Consumer warpgroup wg (0 or 1): rows wg * 64 .. + 63 of every tile of this block. */
HD_DEVICE void hd_consume(int wg, hd_u32 tiles, hd_u32 full, hd_u32 empty, HD_PARAMS)
{
    const int lane = threadIdx.x & 31, warp = (threadIdx.x >> 5) & 3;
    float acc[HD_BN / 2];
#pragma unroll
    for (int i = 0; i < HD_BN / 2; i++)
        acc[i] = 0.0f;
    int stage = 0;
    hd_u32 phase = 0;
    for (int t = blockIdx.x; t < HD_TILES; t += gridDim.x) {
        int b, m0, n0;
        hd_tile(t, b, m0, n0, HD_ARGS);
        for (int kt = 0; kt < HD_K_TILES; kt++) {
            hd_mbar_wait_ns<0>(full + stage * 8, phase);
            const hd_u32 sa = tiles + stage * HD_STAGE_BYTES + wg * 64 * 128, sb = tiles + stage * HD_STAGE_BYTES + HD_A_BYTES;
            const hd_u64 da = hd_desc(sa, 16, 1024);
#if HD_B_KMAJOR
            const hd_u64 db = hd_desc(sb, 16, 1024);
            const int b_step = 32 >> 4;   /* 16 k = 32 bytes along the row */
#else
            const hd_u64 db = hd_desc(sb, 64 * HD_BK * 2, 1024);
            const int b_step = 2048 >> 4; /* 16 k rows of 128 bytes */
#endif
            hd_wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < HD_BK / 16; kk++)
                hd_wgmma(acc, da + kk * (32 >> 4), db + kk * b_step, kt > 0 || kk > 0);
            hd_wgmma_commit();
            hd_wgmma_wait0();
            hd_acc_fence<HD_BN / 2>(acc);
            if (lane == 0)
                hd_mbar_arrive(empty + stage * 8);
            if (++stage == HD_STAGES)
                stage = 0, phase ^= 1;
        }
        /* Accumulator 4i + e: row + lane / 4 (+ 8 for e >= 2), column 8i + 2 (lane % 4) + e % 2. */
        const int row0 = m0 + wg * 64 + warp * 16 + (lane >> 2), col0 = n0 + (lane & 3) * 2;
#pragma unroll
        for (int i0 = 0; i0 < HD_BN / 8; i0 += HD_EPI_GROUP) {
            float in[HD_EPI_GROUP * 4][HD_EPI_IN + 1];
#pragma unroll
            for (int j = 0; j < HD_EPI_GROUP * 4; j++) {
                int row = row0 + (j >> 1 & 1) * 8, col = col0 + (i0 + j / 4) * 8 + (j & 1);
                if (row < HD_M && col < HD_N)
                    hd_epilogue_in(b, row, col, in[j], HD_ARGS);
            }
#pragma unroll
            for (int j = 0; j < HD_EPI_GROUP * 4; j++) {
                int row = row0 + (j >> 1 & 1) * 8, col = col0 + (i0 + j / 4) * 8 + (j & 1);
                if (row < HD_M && col < HD_N)
                    hd_epilogue_out(b, row, col, acc[i0 * 4 + j], in[j], HD_ARGS);
            }
        }
    }
}

HD_GLOBAL __launch_bounds__(HD_MM_THREADS, 1) void hd_matmul_sm90_kernel(
    HD_PARAMS, const __grid_constant__ hd_tmap hd_map_a, const __grid_constant__ hd_tmap hd_map_b)
{
    extern __shared__ __align__(1024) unsigned char hd_dyn_smem[];
    const hd_u32 base = hd_smem_addr(hd_dyn_smem);
    const hd_u32 tiles = (base + 1023) & ~1023u; /* the 128B swizzle repeats every 1024 bytes */
    const hd_u32 full = tiles + HD_STAGES * HD_STAGE_BYTES, empty = full + HD_STAGES * 8;
    if (threadIdx.x == 0) {
        for (int s = 0; s < HD_STAGES; s++) {
            hd_mbar_init(full + s * 8, 1);
            hd_mbar_init(empty + s * 8, HD_CONSUMER_WARPS);
        }
        hd_mbar_init_fence();
        hd_async_fence();
    }
    __syncthreads();
    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        hd_setmaxnreg_dec<40>();
        if (threadIdx.x == 0)
            hd_produce(&hd_map_a, &hd_map_b, tiles, full, empty, HD_ARGS);
    } else {
        hd_setmaxnreg_inc<232>();
        hd_consume(wg - 1, tiles, full, empty, HD_ARGS);
    }
}
