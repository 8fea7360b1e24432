/* sdpa_fwd_fp8.hip — FP8 scaled dot-product attention forward on Hopper (wgmma .e4m3 / .e5m2,
 * fp32 accumulate), cuDNN's FP8 composite as ir_ref_sdpa_fwd defines it:
 *     S_ij  = scale · descale_q · descale_k · Q[b,h,i,:]·K[b,hk,j,:]   (−inf where masked)
 *     P_ij  = softmax_j(S_ij);  P8_ij = P_ij · scale_s rounded to Q's FP8 type
 *     O_i   = (Σ_j P8_ij · V[b,hv,j,:]) · descale_s · descale_v;  stored as O_i · scale_o
 *     AMAX_S = max P_ij, AMAX_O = max |O_i| over the whole op (before scale_o)
 * with the per-row logsumexp (Stats), max and sum of exponentials when the graph asks.
 *
 * One block owns 128 query rows of one (batch, query head): grid (ceil(Sq / 128), Hq, B), 256
 * threads, two warpgroups of 64 rows; row tiles are issued last-first (causal rows that see the
 * most keys start first). Every thread copies (cp.async, zero fill past the valid rows): Q once,
 * then K/V tiles of HD_BN keys through two stages, tile t + 1 landing under tile t. Per tile:
 *   S = Q·Kᵀ      wgmma m64nBNk32 from shared memory, Q and K K-major in the 128-byte-swizzle
 *                 layout (hd_wg_off: an FP8 row of 128 elements is one swizzle row; head dim 256
 *                 is two column blocks; head dim 64 uses half of each row)
 *   Vᵀ            8-bit wgmma takes B K-major only: while Q·Kᵀ runs, the threads transpose the
 *                 tile's V ([key][dv] rows as copied) into Vᵀ [dv][128-byte rows of keys]
 *                 (hd_f8_vt: four-byte words of 16 keys, byte-permuted, 16-byte stores), with the
 *                 keys of each 32-key chunk permuted as P's registers hold them (below)
 *   softmax       online, log2 domain: x = S·scale·descale_q·descale_k·log2 e, running max m and
 *                 sum l (of the unrounded exponentials); p = exp2(x − m)·scale_s rounded to FP8
 *   O += P·V      wgmma m64nDVk32, P from registers, Vᵀ from shared memory
 * P's registers: the f32 accumulator of Q·Kᵀ gives a thread keys 8n + 2(lane % 4) + {0, 1}; the
 * m64nNk32 A fragment wants 4(lane % 4) + {0..3} and + 16 of each 32-key chunk. Since P·V sums
 * over keys, the keys are renamed rather than moved between lanes: A's column 16h + 4q + j of
 * chunk c is key 32c + 16h + 2q + (j & 1) + 8(j >> 1) (hd_f8_key), and Vᵀ's key columns take the
 * same order. So the packing is local: (S[n][0], S[n][1], S[n+1][0], S[n+1][1]) per register.
 * The rounding of P differs from the reference's (p·scale_s before the division by l instead of
 * after it): within FP8's step, as the GPU tests state. AMAX_S is max over rows of 1/l (a live
 * row's largest P is exp2(0)/l); both amax values are reduced in the block (shared atomics on
 * the float bits: non-negative floats order as unsigned integers, a NaN above every number) and
 * then on the counter's words (CG_ARG_COUNTER), where the last block to finish stores them and
 * leaves the counter zero. A row no key reaches gets O = 0, Stats = Max = −inf, Sum_exp = 0.
 *
 * Contract
 *   holes   HD_DT                       HD_DT_FP8_E4M3 or HD_DT_FP8_E5M2 (Q, K, V alike)
 *           HD_O_DT                     O's type (any type hd_st stores)
 *           HD_B, HD_HQ, HD_SQ, HD_SKV  sizes
 *           HD_D, HD_DV                 head dims: HD_D = HD_DV, 64, 128 or 256
 *           HD_BN                       keys a K/V tile: 128 (HD_D <= 128) or 64 (HD_D 256)
 *           hd_q_off(b,h,i,..), hd_k_off(b,h,j,..), hd_v_off(b,h,j,..), hd_o_off(b,h,i,..): element
 *                                       offsets of row i / j for query head h (the hook maps h to
 *                                       the K/V head); Q/K/V offsets multiples of 16 (16-byte rows)
 *           HD_Q_PTR, HD_K_PTR, HD_V_PTR, HD_O_PTR   parameter names
 *           hd_scale(..)                 the attention scale
 *           hd_fp8_scales(qk, s, sv, o, ..)  descale_q·descale_k, scale_s, descale_s·descale_v,
 *                                       scale_o
 *           hd_seq_q(b, ..), hd_seq_kv(b, ..)  valid query / key rows of batch b
 *           HD_HAS_RIGHT, HD_RIGHT, HD_HAS_LEFT, HD_LEFT, HD_BOTTOM_RIGHT   the diagonal band
 *           hd_row_stats(b,h,i,m,l, ..)  stores Stats / Max / Sum_exp of a row (m natural log)
 *           HD_AMAX + hd_amax_store(s, o, ..)  1: AMAX_S / AMAX_O wanted; the kernel takes
 *                                       `unsigned *hd_ctr` last (a counter: 16 zero bytes)
 *   target  sm_90a (wgmma)
 *   grid    (ceil(HD_SQ / 128), HD_HQ, HD_B), 256 threads, HD_SMEM_BYTES dynamic shared memory
 *   reference  ir_ref_sdpa_fwd (ir/ir_ref_sdpa.c), FP8 steps of its header
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_DT HD_DT_FP8_E4M3
#define HD_O_DT HD_DT_FP8_E4M3
#define HD_B 1
#define HD_HQ 1
#define HD_SQ 1024
#define HD_SKV 1024
#define HD_D 128
#define HD_DV 128
#define HD_BN 128
#define HD_PARAMS void *pq, void *pk, void *pv, void *po
#define HD_ARGS pq, pk, pv, po
#define HD_Q_PTR pq
#define HD_K_PTR pk
#define HD_V_PTR pv
#define HD_O_PTR po
#define HD_HAS_RIGHT 0
#define HD_RIGHT 0
#define HD_HAS_LEFT 0
#define HD_LEFT 0
#define HD_BOTTOM_RIGHT 0
#define HD_AMAX 0
HD_DEVICE hd_i64 hd_q_off(int b, int h, int i, HD_PARAMS) { return ((hd_i64)(b * HD_HQ + h) * HD_SQ + i) * HD_D; }
HD_DEVICE hd_i64 hd_k_off(int b, int h, int j, HD_PARAMS) { return ((hd_i64)(b * HD_HQ + h) * HD_SKV + j) * HD_D; }
HD_DEVICE hd_i64 hd_v_off(int b, int h, int j, HD_PARAMS) { return ((hd_i64)(b * HD_HQ + h) * HD_SKV + j) * HD_DV; }
HD_DEVICE hd_i64 hd_o_off(int b, int h, int i, HD_PARAMS) { return ((hd_i64)(b * HD_HQ + h) * HD_SQ + i) * HD_DV; }
HD_DEVICE float hd_scale(HD_PARAMS) { return 0.08838834764831845f; }
HD_DEVICE void hd_fp8_scales(float &qk, float &s, float &sv, float &o, HD_PARAMS) { qk = s = sv = o = 1.0f; }
HD_DEVICE int hd_seq_q(int b, HD_PARAMS) { return HD_SQ; }
HD_DEVICE int hd_seq_kv(int b, HD_PARAMS) { return HD_SKV; }
HD_DEVICE void hd_row_stats(int b, int h, int i, float m, float l, HD_PARAMS) {}
#endif

#define HD_BM 128                        /* query rows a block: two warpgroups of 64 */
#define HD_THREADS 256
#define HD_DP (HD_D <= 128 ? 128 : 256)  /* bytes of a Q / K row in shared memory (whole swizzle rows) */
#define HD_NS (HD_BN / 8)                /* n8 blocks of S a thread's rows hold */
#define HD_Q_BYTES (HD_BM * HD_DP)
#define HD_K_BYTES (HD_BN * HD_DP)
#define HD_V_BYTES (HD_BN * HD_DV)       /* V as copied: [key][dv], rows of HD_DV bytes */
#define HD_STAGE_BYTES (HD_K_BYTES + HD_V_BYTES)
#define HD_VT_BYTES (HD_DV * 128)        /* Vᵀ: [dv][128-byte rows of keys] (64-key tiles use half) */
#define HD_SMEM_BYTES (1024 + HD_Q_BYTES + 2 * HD_STAGE_BYTES + HD_VT_BYTES)
#define HD_MT ((HD_SQ + HD_BM - 1) / HD_BM)
#define HD_VXN (HD_BN / 16)              /* 16-key groups of a K/V tile (hd_f8_vt's chunks of Vᵀ rows) */
#define HD_VCH (HD_DV / 16)              /* 16-byte chunks of a V row */
#define HD_LOG2E 1.4426950408889634f
#define HD_LN2 0.6931471805599453f
#define HD_NEG_INF (-__int_as_float(0x7f800000))
#if HD_AMAX
#define HD_KPARAMS HD_PARAMS, unsigned *hd_ctr
#else
#define HD_KPARAMS HD_PARAMS
#endif

#include "sdpa_band.h"

/* ---- the block's problem ------------------------------------------------------------------------ */

typedef struct hd_f8_blk {
    int b, h, m0;       /* batch, query head, first query row */
    int sq, skv, shift; /* valid rows and keys of this batch; the band's diagonal shift */
    int t_lo, t_hi;     /* K/V tiles [t_lo, t_hi) hold every key a row of the block may see */
    float scale2;       /* scale · descale_q · descale_k · log2 e */
    float s_scale;      /* scale_s */
    float sv_descale;   /* descale_s · descale_v */
    float o_scale;      /* scale_o */
} hd_f8_blk;

/* Per-thread state of its two rows (lane / 4 and + 8 of its warp's 16). */
typedef struct hd_f8_acc {
    float m[2], l[2];   /* running max (log2 domain, −inf until a key survives), this thread's part of l */
    float o[HD_DV / 2]; /* unnormalised O, the wgmma accumulator of m64nDV */
} hd_f8_acc;

/* Whether key j is cut from query row i (padding or band). */
HD_DEVICE bool hd_f8_masked(const hd_f8_blk &k, int i, int j) { return hd_band_cut(i, j, k.sq, k.skv, k.shift); }

/* Whether tile t may hold a masked (row, key) pair of the block: then it checks each element. */
HD_DEVICE bool hd_f8_tile_cut(const hd_f8_blk &k, int t)
{
    return hd_band_block_cut(k.m0, min(k.m0 + HD_BM - 1, HD_SQ - 1), t * HD_BN, HD_BN, k.sq, k.skv, k.shift);
}

/* The block's rows, lengths, key-tile range and factors. */
HD_DEVICE void hd_f8_setup(hd_f8_blk &k, HD_PARAMS)
{
    k.b = blockIdx.z, k.h = blockIdx.y, k.m0 = (HD_MT - 1 - (int)blockIdx.x) * HD_BM;
    k.sq = hd_seq_q(k.b, HD_ARGS), k.skv = hd_seq_kv(k.b, HD_ARGS);
    k.shift = HD_BOTTOM_RIGHT ? k.skv - k.sq : 0;
    float qk;
    hd_fp8_scales(qk, k.s_scale, k.sv_descale, k.o_scale, HD_ARGS);
    k.scale2 = hd_scale(HD_ARGS) * qk * HD_LOG2E;
    int i_lo = k.m0, i_hi = min(k.m0 + HD_BM - 1, k.sq - 1), j_lo = 0, j_hi = k.skv; /* keys [j_lo, j_hi) */
#if HD_HAS_RIGHT
    j_hi = min(j_hi, i_hi + k.shift + HD_RIGHT + 1);
#endif
#if HD_HAS_LEFT
    j_lo = max(j_lo, i_lo + k.shift - HD_LEFT + 1);
#endif
    k.t_lo = j_lo / HD_BN;
    k.t_hi = i_hi < i_lo || j_hi <= j_lo ? k.t_lo : (j_hi + HD_BN - 1) / HD_BN;
}

/* ---- loads (every thread; 16-byte cp.async, zero fill) ------------------------------------------ */

/* The block's Q rows into the swizzled tile at sq_ (rows past sq zero). */
HD_DEVICE void hd_f8_load_q(hd_u32 sq_, const hd_f8_blk &k, int tid, HD_PARAMS)
{
    const hd_u8 *q = (const hd_u8 *)HD_Q_PTR;
    constexpr int DC = HD_D / 16;
#pragma unroll
    for (int n = 0; n < HD_BM * DC / HD_THREADS; n++) {
        int id = tid + n * HD_THREADS, r = id / DC, c = id % DC, i = k.m0 + r;
        bool ok = i < k.sq;
        hd_cp_async16(sq_ + hd_wg_off(r, c, HD_BM), ok ? q + hd_q_off(k.b, k.h, i, HD_ARGS) + c * 16 : q, ok ? 16 : 0);
    }
}

/* V's staging rows: chunk c of key row r lies at chunk c ^ hd_f8_vswz(r), so that the threads of a
 * warp in hd_f8_vt, which read the same word of different 16-key groups, meet distinct banks. */
HD_DEVICE int hd_f8_vswz(int r) { return ((r >> 4) * (8 / HD_VXN)) & (HD_VCH < 8 ? HD_VCH - 1 : 7); }

/* Keys [t·BN, t·BN + BN) of K (swizzled, at sk) and V (rows of HD_DV bytes, chunks swizzled by
 * hd_f8_vswz, at sv) into a stage. */
HD_DEVICE void hd_f8_load_kv(hd_u32 sk, hd_u32 sv, const hd_f8_blk &k, int t, int tid, HD_PARAMS)
{
    const hd_u8 *kp = (const hd_u8 *)HD_K_PTR, *vp = (const hd_u8 *)HD_V_PTR;
    constexpr int DC = HD_D / 16, VC = HD_DV / 16;
#pragma unroll
    for (int n = 0; n < HD_BN * DC / HD_THREADS; n++) {
        int id = tid + n * HD_THREADS, r = id / DC, c = id % DC, j = t * HD_BN + r;
        bool ok = j < k.skv;
        hd_cp_async16(sk + hd_wg_off(r, c, HD_BN), ok ? kp + hd_k_off(k.b, k.h, j, HD_ARGS) + c * 16 : kp, ok ? 16 : 0);
    }
#pragma unroll
    for (int n = 0; n < HD_BN * VC / HD_THREADS; n++) {
        int id = tid + n * HD_THREADS, r = id / VC, c = id % VC, j = t * HD_BN + r;
        bool ok = j < k.skv;
        hd_cp_async16(sv + r * HD_DV + (c ^ hd_f8_vswz(r)) * 16, ok ? vp + hd_v_off(k.b, k.h, j, HD_ARGS) + c * 16 : vp,
                      ok ? 16 : 0);
    }
}

/* ---- Vᵀ with P's key order ---------------------------------------------------------------------- */

/* The key of column L (0 .. 31) of a 32-key chunk of P's A fragment (and of Vᵀ's rows): the
 * accumulator's keys 2q, 2q + 1, 2q + 8, 2q + 9 (+ 16) where A wants 4q .. 4q + 3 (+ 16). */
HD_DEVICE int hd_f8_key(int L) { return (L & 16) + 2 * ((L >> 2) & 3) + (L & 1) + 8 * ((L >> 1) & 1); }

/* Four words a, b, c, d (4 bytes each: byte e of key row) as four words of byte e: out[e] =
 * (a_e, b_e, c_e, d_e), low byte first. */
HD_DEVICE void hd_f8_t4(hd_u32 a, hd_u32 b, hd_u32 c, hd_u32 d, hd_u32 *out)
{
    const hd_u32 ab0 = __byte_perm(a, b, 0x5140), ab1 = __byte_perm(a, b, 0x7362); /* a0 b0 a1 b1 / a2 b2 a3 b3 */
    const hd_u32 cd0 = __byte_perm(c, d, 0x5140), cd1 = __byte_perm(c, d, 0x7362);
    out[0] = __byte_perm(ab0, cd0, 0x5410), out[1] = __byte_perm(ab0, cd0, 0x7632);
    out[2] = __byte_perm(ab1, cd1, 0x5410), out[3] = __byte_perm(ab1, cd1, 0x7632);
}

/* The tile's V (at sv: [key][dv], chunks swizzled by hd_f8_vswz) into Vᵀ (at vt: dv rows of 128
 * bytes, 128-byte swizzle): each unit is 16 keys (one 16-byte chunk x of Vᵀ's rows) by 4 dv columns
 * (word g of the V rows); its thread reads that word of each of the 16 key rows and writes the
 * chunk of each of the 4 Vᵀ rows with the keys in hd_f8_key's order (chunk x holds keys 16x ..
 * 16x + 15: word q of it keys 16x + 2q, + 1, + 8, + 9). A warp's units take consecutive x first:
 * its loads meet distinct banks through the staging swizzle, and its 16-byte stores fill whole
 * 128-byte Vᵀ rows. */
HD_DEVICE void hd_f8_vt(hd_u32 vt, hd_u32 sv, int tid)
{
    constexpr int G = HD_DV / 4, UNITS = G * HD_VXN;
#pragma unroll
    for (int n = 0; n < (UNITS + HD_THREADS - 1) / HD_THREADS; n++) {
        const int u = tid + n * HD_THREADS, x = u % HD_VXN, g = u / HD_VXN;
        if (UNITS % HD_THREADS != 0 && u >= UNITS)
            break;
        hd_u32 w[16], o[4][4];
#pragma unroll
        for (int r = 0; r < 16; r++) {
            const int row = x * 16 + r;
            w[r] = hd_lds32(sv + row * HD_DV + (((g >> 2) ^ hd_f8_vswz(row)) << 4) + (g & 3) * 4);
        }
#pragma unroll
        for (int q = 0; q < 4; q++) {
            hd_u32 t[4];
            hd_f8_t4(w[2 * q], w[2 * q + 1], w[2 * q + 8], w[2 * q + 9], t);
#pragma unroll
            for (int e = 0; e < 4; e++)
                o[e][q] = t[e];
        }
#pragma unroll
        for (int e = 0; e < 4; e++)
            hd_sts128(vt + hd_wg_off(g * 4 + e, x, HD_DV), o[e][0], o[e][1], o[e][2], o[e][3]);
    }
}

/* ---- the products ------------------------------------------------------------------------------- */

/* Issues s = Q·Kᵀ (one commit group) for warpgroup wg's 64 rows and the tile's keys at sk. */
HD_DEVICE void hd_f8_qk(float *s, hd_u32 sq_, hd_u32 sk, int wg)
{
    const hd_u32 q0 = sq_ + wg * 64 * 128;
    hd_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < HD_D / 32; kk++) { /* 32 elements = 32 bytes of a 128-byte row */
        const hd_u32 blk = (hd_u32)(kk >> 2), in = (hd_u32)(kk & 3) * 32;
        hd_wgmma_ss8_as<HD_DT, HD_BN>(s, hd_desc(q0 + blk * HD_BM * 128 + in, 16, 1024),
                                      hd_desc(sk + blk * HD_BN * 128 + in, 16, 1024), kk > 0);
    }
    hd_wgmma_commit();
}

/* P (s, already p·scale_s) as the A fragments of the tile's 32-key chunks, in hd_f8_key's order. */
HD_DEVICE void hd_f8_pack_p(hd_u32 (*pa)[4], const float *s)
{
#pragma unroll
    for (int c = 0; c < HD_BN / 32; c++) {
        const float *b = s + 16 * c; /* n8 blocks 4c .. 4c + 3, four accumulators each */
        pa[c][0] = hd_pack4_f8_as<HD_DT>(b[0], b[1], b[4], b[5]);
        pa[c][1] = hd_pack4_f8_as<HD_DT>(b[2], b[3], b[6], b[7]);
        pa[c][2] = hd_pack4_f8_as<HD_DT>(b[8], b[9], b[12], b[13]);
        pa[c][3] = hd_pack4_f8_as<HD_DT>(b[10], b[11], b[14], b[15]);
    }
}

/* Issues O += P·V (one commit group): P from registers, Vᵀ (at vt) K-major. */
HD_DEVICE void hd_f8_pv(float *o, const hd_u32 (*pa)[4], hd_u32 vt)
{
    hd_wgmma_fence();
#pragma unroll
    for (int c = 0; c < HD_BN / 32; c++)
        hd_wgmma_rs8_as<HD_DT, HD_DV>(o, pa[c], hd_desc(vt + c * 32, 16, 1024));
    hd_wgmma_commit();
}

/* ---- softmax ------------------------------------------------------------------------------------ */

/* The scores of tile t to the log2 domain (CUT: with the masks), the online softmax: s becomes
 * p·scale_s, m and l move on, O's rows are rescaled. row0: the thread's first row in the block. */
template <bool CUT> HD_DEVICE void hd_f8_softmax_(float *s, hd_f8_acc &a, const hd_f8_blk &k, int t, int row0, int lane)
{
#pragma unroll
    for (int n = 0; n < HD_NS; n++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int i = k.m0 + row0 + (e >> 1) * 8, j = t * HD_BN + n * 8 + (lane & 3) * 2 + (e & 1);
            const float x = s[4 * n + e] * k.scale2;
            s[4 * n + e] = CUT && hd_f8_masked(k, i, j) ? HD_NEG_INF : x;
        }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float mx = a.m[r];
#pragma unroll
        for (int n = 0; n < HD_NS; n++)
            mx = fmaxf(mx, fmaxf(s[4 * n + 2 * r], s[4 * n + 2 * r + 1]));
        mx = fmaxf(mx, hd_shfl_xor(mx, 1));
        mx = fmaxf(mx, hd_shfl_xor(mx, 2));
        const float use = mx == HD_NEG_INF ? 0.0f : mx; /* a row with no key yet: every p is 0 */
        const float alpha = hd_exp2(a.m[r] - use);
        a.m[r] = mx;
        float sum = 0.0f;
#pragma unroll
        for (int n = 0; n < HD_NS; n++)
#pragma unroll
            for (int e = 2 * r; e < 2 * r + 2; e++) {
                const float p = hd_exp2(s[4 * n + e] - use);
                sum += p;
                s[4 * n + e] = p * k.s_scale;
            }
        a.l[r] = a.l[r] * alpha + sum;
#pragma unroll
        for (int n = 0; n < HD_DV / 8; n++)
            a.o[4 * n + 2 * r] *= alpha, a.o[4 * n + 2 * r + 1] *= alpha;
    }
}

HD_DEVICE void hd_f8_softmax(float *s, hd_f8_acc &a, const hd_f8_blk &k, int t, int row0, int lane)
{
    if (hd_f8_tile_cut(k, t))
        hd_f8_softmax_<true>(s, a, k, t, row0, lane);
    else
        hd_f8_softmax_<false>(s, a, k, t, row0, lane);
}

/* ---- the main loop ------------------------------------------------------------------------------ */

/* Q, then every K/V tile of the block: two stages, tile t + 1 copied under tile t. Two barriers a
 * tile: the first (tile t landed; every warp finished P·V of t − 1, so Vᵀ and t − 1's stage are
 * free), the second (Vᵀ of t written) before P·V. */
HD_DEVICE void hd_f8_mainloop(hd_f8_acc &a, const hd_f8_blk &k, hd_u32 base, int tid, HD_PARAMS)
{
    const int warp = tid >> 5, lane = tid & 31, wg = warp >> 2, row0 = warp * 16 + (lane >> 2);
    const hd_u32 sq_ = base, s_kv = base + HD_Q_BYTES, vt = s_kv + 2 * HD_STAGE_BYTES;
    hd_f8_load_q(sq_, k, tid, HD_ARGS);
    if (k.t_lo < k.t_hi)
        hd_f8_load_kv(s_kv, s_kv + HD_K_BYTES, k, k.t_lo, tid, HD_ARGS);
    hd_cp_commit();
    for (int t = k.t_lo; t < k.t_hi; t++) {
        const hd_u32 st = s_kv + ((t - k.t_lo) & 1) * HD_STAGE_BYTES;
        hd_cp_wait<0>();
        hd_async_fence(); /* cp.async wrote, wgmma reads */
        __syncthreads();
        if (t + 1 < k.t_hi) {
            const hd_u32 nx = s_kv + ((t + 1 - k.t_lo) & 1) * HD_STAGE_BYTES;
            hd_f8_load_kv(nx, nx + HD_K_BYTES, k, t + 1, tid, HD_ARGS);
        }
        hd_cp_commit();
        float s[HD_BN / 2];
        hd_f8_qk(s, sq_, st, wg);
        hd_f8_vt(vt, st + HD_K_BYTES, tid); /* under Q·Kᵀ */
        hd_async_fence();                                     /* the threads wrote Vᵀ, wgmma reads it */
        hd_wgmma_wait0();
        hd_acc_fence<HD_BN / 2>(s);
        hd_f8_softmax(s, a, k, t, row0, lane);
        hd_u32 pa[HD_BN / 32][4];
        hd_f8_pack_p(pa, s);
        __syncthreads(); /* Vᵀ complete */
        hd_f8_pv(a.o, pa, vt);
        hd_wgmma_wait0();
        hd_acc_fence<HD_DV / 2>(a.o);
    }
    hd_cp_wait<0>();
}

/* ---- epilogue ----------------------------------------------------------------------------------- */

/* The larger of two non-negative floats' bits (a NaN's, |NaN|, above every number). */
HD_DEVICE hd_u32 hd_f8_umax(hd_u32 a, hd_u32 b) { return a > b ? a : b; }

/* O = acc.o · descale_s · descale_v / l (0 for rows no key reached) times scale_o, the row
 * statistics; the thread's max P (1/l of a live row) and max |O| as float bits in amax[0], [1]. */
HD_DEVICE void hd_f8_store(const hd_f8_acc &a, const hd_f8_blk &k, int tid, hd_u32 *amax, HD_PARAMS)
{
    const int warp = tid >> 5, lane = tid & 31;
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const int i = k.m0 + warp * 16 + (lane >> 2) + r * 8;
        float l = a.l[r], m = a.m[r];
        l += hd_shfl_xor(l, 1);
        l += hd_shfl_xor(l, 2);
        const bool live = m != HD_NEG_INF && l > 0.0f;
        if (i >= HD_SQ)
            continue;
        const float inv = live ? k.sv_descale / l : 0.0f;
        if (live)
            amax[0] = hd_f8_umax(amax[0], hd_f32_bits(1.0f / l));
        const hd_i64 off = hd_o_off(k.b, k.h, i, HD_ARGS);
#pragma unroll
        for (int n = 0; n < HD_DV / 8; n++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const float v = a.o[4 * n + 2 * r + e] * inv;
                amax[1] = hd_f8_umax(amax[1], hd_f32_bits(fabsf(v)));
                hd_st<HD_O_DT>(HD_O_PTR, off + n * 8 + (lane & 3) * 2 + e, v * k.o_scale);
            }
        if ((lane & 3) == 0)
            hd_row_stats(k.b, k.h, i, live ? m * HD_LN2 : HD_NEG_INF, live ? l : 0.0f, HD_ARGS);
    }
}

#if HD_AMAX
/* The block's amax values (blk: two shared words, every warp's max merged by shared atomics) onto
 * the counter's words 0 and 1; the last block to arrive (word 2 counts the blocks) stores them
 * and leaves the counter zero for the next launch. After a barrier that follows every warp's
 * shared atomic. */
HD_DEVICE void hd_f8_amax_block(unsigned *blk, unsigned *ctr, HD_PARAMS)
{
    atomicMax(&ctr[0], blk[0]);
    atomicMax(&ctr[1], blk[1]);
    __threadfence();
    const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
    if (atomicAdd(&ctr[2], 1u) != blocks - 1)
        return;
    __threadfence();
    const hd_u32 s = atomicExch(&ctr[0], 0u), o = atomicExch(&ctr[1], 0u);
    atomicExch(&ctr[2], 0u);
    hd_amax_store(hd_bits_f32(s), hd_bits_f32(o), HD_ARGS);
}
#endif

HD_GLOBAL __launch_bounds__(HD_THREADS, 1) void hd_sdpa_fp8_kernel(HD_KPARAMS)
{
    extern __shared__ __align__(1024) unsigned char hd_smem[];
    const int tid = threadIdx.x;
#if HD_AMAX
    __shared__ unsigned hd_blk_amax[2];
    if (tid < 2)
        hd_blk_amax[tid] = 0u;
#endif
    hd_f8_blk k;
    hd_f8_setup(k, HD_ARGS);
    hd_f8_acc a;
    a.m[0] = a.m[1] = HD_NEG_INF, a.l[0] = a.l[1] = 0.0f;
#pragma unroll
    for (int n = 0; n < HD_DV / 2; n++)
        a.o[n] = 0.0f;
    /* the 128-byte swizzle repeats every 1024 bytes: wgmma tiles start on that boundary */
    const hd_u32 base = (hd_smem_addr(hd_smem) + 1023) & ~1023u;
    hd_f8_mainloop(a, k, base, tid, HD_ARGS); /* its first barrier follows the words' zeroing */
    hd_u32 amax[2] = {0u, 0u};
    hd_f8_store(a, k, tid, amax, HD_ARGS);
#if HD_AMAX
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) /* shuffles, not __reduce_max_sync: that one makes NVRTC load its
                                      * builtins library (prelude_nvidia.h's hd_warp_uniform says why not) */
        amax[0] = hd_f8_umax(amax[0], __shfl_xor_sync(0xffffffffu, amax[0], m)),
        amax[1] = hd_f8_umax(amax[1], __shfl_xor_sync(0xffffffffu, amax[1], m));
    __syncthreads(); /* the words' zeroing, when the block had no tile (no barrier in the loop) */
    if ((tid & 31) == 0)
        atomicMax(&hd_blk_amax[0], amax[0]), atomicMax(&hd_blk_amax[1], amax[1]);
    __syncthreads();
    if (tid == 0)
        hd_f8_amax_block(hd_blk_amax, hd_ctr, HD_ARGS);
#else
    (void)amax;
#endif
}
