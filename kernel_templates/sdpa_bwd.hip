/* sdpa_bwd.hip — scaled dot-product attention backward, FlashAttention-2 style, on the tensor
 * cores (bf16 or fp16 operands, fp32 accumulate): mma.sync m16n8k16, or with HD_SM90 Hopper's
 * warpgroup MMA (wgmma m64nNk16, sm_90a) for the same products, the elementwise code unchanged
 * (wgmma's accumulators are mma.sync's C fragments per warp). With S, P recomputed from
 * Q, K and the forward's Stats (logsumexp), M the dropout mask, s / s' the dropout scales:
 *     P_ij = exp(S_ij − Stats_i),  D_i = Σ_d dO_id·O_id,  dP_ij = dO_i·V_j
 *     dS_ij = P_ij·(s·M_ij·dP_ij − s·s'·D_i)
 *     dV_j = Σ_i s·M_ij·P_ij·dO_i,  dK_j = scale·Σ_i dS_ij·Q_i,  dQ_i = scale·Σ_j dS_ij·K_j
 *     dBias_ij = dS_ij (summed over the bias' broadcast dims)
 * summed over the query heads of a group for dK and dV (GQA / MQA). No S x S matrix touches memory.
 *
 * Three launches of one source (cg_kernel.then; four with a broadcast dBias), sharing fp32
 * scratch (hd_ws):
 *   hd_sdpa_bwd_pre   one warp per query row: lse2_i = Stats_i·log2(e) (+inf where Stats is −inf
 *                     or the row is padding: every P of the row is then 0), Dn_i = s·s'·D_i;
 *                     zeroes the fp32 dQ accumulator (HD_ATOMIC) and dBias (HD_DBIAS 1) or its fp32
 *                     accumulator (HD_DBIAS 2).
 *   hd_sdpa_bwd_kv    one block per HD_BN keys of one K/V head (grid: key tiles, Hk, B); each of its
 *                     HD_WARPS warps owns 16 keys. K and V go to shared memory once; for every query head
 *                     of the group and every query tile of HD_BM rows the band lets see the keys
 *                     (Q, dO, lse2, Dn through HD_STAGES shared-memory stages, cp.async; with
 *                     HD_LOADER a warpgroup of the block only loads them, full / empty mbarriers
 *                     per stage, and the computing warps meet at no block-wide barrier a tile):
 *                       Sᵀ = K·Qᵀ, dPᵀ = V·dOᵀ   (A: the warp's K / V rows, B: Q / dO rows)
 *                       Pᵀ, dSᵀ in registers;   dV += (s·M∘P)ᵀ·dO,  dK += dSᵀ·Q   (B: .trans)
 *                     dK, dV stay in registers (fp32) until the block stores them, scaled.
 *                     HD_ATOMIC: dSᵀ also goes to shared memory, each warp multiplies 16 of its
 *                     query rows by K and adds them to the accumulator with fp32 atomics; with
 *                     HD_SM90 (HD_DQ_BULK) each warpgroup multiplies a 64 x 64 piece of the tile's
 *                     dQ by wgmma and the copy engine adds it (cp.reduce.async.bulk, hd_dq_bulk).
 *   hd_sdpa_bwd_dq    (HD_ATOMIC 0, deterministic) one block per HD_QBM query rows of one head: loops
 *                     over the K/V tiles the band allows, recomputes S, dP, dS (as the forward's
 *                     loop does) and accumulates dQ = dS·K in registers; stores it scaled.
 *   hd_sdpa_bwd_dq_convert (HD_ATOMIC 1) dQ = scale · accumulator, rounded to dQ's type (with
 *                     HD_DQ_BULK from the pieces' fragment order).
 *   hd_sdpa_bwd_dbias_convert (HD_DBIAS 2) dBias = its accumulator, rounded to dBias' type.
 * Every output element is written by exactly one thread of one launch (no atomics without
 * HD_ATOMIC or a broadcast dBias): the results are bitwise reproducible. Rows and keys cut by
 * padding get 0. Without dropout the wgmma loops (HD_OVERLAP) compute P while dPᵀ (dP) is still on
 * the tensor cores and dS while dV is.
 * Shared-memory tiles: rows of HD_DP (HD_DVP) elements, 16-byte chunk c of row r at c ^ (r % 8)
 * (hd_swz), or hd_wg_off's layout with HD_SM90 (hd_at); rows past the valid lengths and dims past D are zero-filled by the loads, so padded
 * data never reaches a product.
 *
 * Contract
 *   holes   HD_DT                       HD_DT_BFLOAT16 or HD_DT_HALF (Q, K, V, O, dO alike)
 *           HD_DQ_DT, HD_DK_DT, HD_DV_DT, HD_DBIAS_DT   output types (any type hd_st stores)
 *           HD_B, HD_HQ, HD_HK, HD_SQ, HD_SQP, HD_SKV   sizes (HD_HK: K's and V's heads; HD_SQP: Sq
 *                                       rounded up to 4, the scratch row length)
 *           HD_D, HD_DV                 head dims of Q/K and of V/O: multiples of 8, <= 256
 *           HD_WARPS                    warps a kv / dq block, 16 keys / query rows each (4; 4 or 8
 *                                       with HD_SM90: whole warpgroups)
 *           HD_BN, HD_BM, HD_STAGES     keys per block (16·HD_WARPS), query rows per tile (64; 128
 *                                       with HD_SM90), stages (1, 2)
 *           HD_QBN, HD_QSTAGES          dQ kernel: keys per tile (as HD_BM), K/V stages (1, 2)
 *           HD_ATOMIC                   1: dQ accumulated in the kv pass (the knob jit.sdpa_bwd_atomic)
 *           HD_LOADER                   1: the kv block's first warpgroup loads its tiles (HD_SM90,
 *                                       HD_WARPS 8, two or more stages; setmaxnreg 40 / 232)
 *           HD_DQ_OWN                   1 (with HD_DQ_BULK): each warpgroup adds its own keys' share
 *                                       of the whole dQ tile (no dSᵀ exchange between them)
 *           HD_SM90                     1: wgmma products (head dims 64 / 128; with HD_ATOMIC two
 *                                       warpgroups and HD_BM·HD_D = 8192); tiles in the
 *                                       128-byte-swizzle layout, 1 KB aligned
 *           hd_q_off, hd_o_off, hd_do_off, hd_dq_off (b,h,i,..)   row i of query head h
 *           hd_k_off, hd_v_off (b,h,j,..)     row j of the K/V head of query head h
 *           hd_dk_off, hd_dv_off (b,hk,j,..)  row j of K/V head hk
 *           hd_stats(b,h,i,..)          Stats_i (natural log)
 *           HD_*_PTR                    parameter names of Q K V O DO DQ DK DV
 *           hd_scale(..), hd_seq_q(b,..), hd_seq_kv(b,..), the band (HD_HAS_RIGHT, HD_RIGHT,
 *           HD_HAS_LEFT, HD_LEFT, HD_BOTTOM_RIGHT), HD_BIAS + hd_bias(b,h,i,j,..), HD_ALIBI +
 *           hd_alibi_slope(h), HD_DROPOUT + hd_drop_p / hd_drop_seed / hd_drop_offset, HD_DMASK +
 *           hd_dmask(b,h,i,j,..): as sdpa_fwd.hip
 *           hd_drop_scale(..), hd_drop_sinv(..)   s and s' (1/(1−p) and 1−p with Philox)
 *           HD_DBIAS + hd_dbias_st(b,h,i,j,v,..)  dBias (0: none). 1: the full [B,Hq,Sq,Skv], each
 *                                       element stored once; 2: broadcast [HD_DBB,HD_DBH,HD_DBI,HD_DBJ]
 *                                       (each 1 or the full size), summed with fp32 atomics into
 *                                       scratch (not bitwise reproducible), then converted
 *   target  sm_80 or newer (cp.async, ldmatrix, mma.sync bf16); sm_90a with HD_SM90
 *   grid    pre: (ceil(max(HD_SQP, HD_DQ_ROWS) / 8), Hq, B) x 256;  kv: (ceil(Skv / HD_BN), Hk, B)
 *           x HD_LTHREADS + HD_THREADS, HD_KV_SMEM bytes;  dq: (ceil(Sq / HD_QBM), Hq, B) x HD_THREADS, HD_DQ_SMEM
 *           bytes;  dq convert: (ceil(Sq / 8), Hq, B) x 256, with HD_DQ_BULK
 *           (ceil(HD_DQ_ROWS·D / 1024), Hq, B) x 256;  dbias convert: (ceil(DBB·DBH·DBI·DBJ / 256)) x 256
 *   scratch lse2 [B·Hq·HD_SQP], Dn [B·Hq·HD_SQP], the dQ accumulator [B·Hq·HD_DQ_ROWS·D] (used with
 *           HD_ATOMIC; HD_DQ_ROWS is Sq, with HD_DQ_BULK Sq rounded up to whole query tiles), then
 *           (HD_DBIAS 2) the dBias accumulator [DBB·DBH·DBI·DBJ], fp32
 *   reference  ir_ref_sdpa_bwd (ir/ir_ref_sdpa.c)
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_DT HD_DT_BFLOAT16
#define HD_DQ_DT HD_DT_BFLOAT16
#define HD_DK_DT HD_DT_BFLOAT16
#define HD_DV_DT HD_DT_BFLOAT16
#define HD_B 1
#define HD_HQ 1
#define HD_HK 1
#define HD_SQ 1024
#define HD_SQP 1024
#define HD_SKV 1024
#define HD_D 128
#define HD_DV 128
#define HD_BN 64
#define HD_BM 64
#define HD_STAGES 2
#define HD_QBN 64
#define HD_QSTAGES 2
#define HD_ATOMIC 0
#define HD_WARPS 4
#define HD_SM90 0
#define HD_LOADER 0
#define HD_DQ_OWN 0
#define HD_PARAMS void *pq, void *pk, void *pv, void *po, void *pdo, void *pst, void *pdq, void *pdk, void *pdv
#define HD_ARGS pq, pk, pv, po, pdo, pst, pdq, pdk, pdv
#define HD_Q_PTR pq
#define HD_K_PTR pk
#define HD_V_PTR pv
#define HD_O_PTR po
#define HD_DO_PTR pdo
#define HD_DQ_PTR pdq
#define HD_DK_PTR pdk
#define HD_DV_PTR pdv
#define HD_HAS_RIGHT 0
#define HD_RIGHT 0
#define HD_HAS_LEFT 0
#define HD_LEFT 0
#define HD_BOTTOM_RIGHT 0
#define HD_BIAS 0
#define HD_ALIBI 0
#define HD_DROPOUT 0
#define HD_DMASK 0
#define HD_DBIAS 0
#define HD_DBB 1
#define HD_DBH 1
#define HD_DBI 1
#define HD_DBJ 1
HD_DEVICE hd_i64 hd_row_(int b, int h, int i, int heads, int s, int d) { return ((hd_i64)(b * heads + h) * s + i) * d; }
HD_DEVICE hd_i64 hd_q_off(int b, int h, int i, HD_PARAMS) { return hd_row_(b, h, i, HD_HQ, HD_SQ, HD_D); }
HD_DEVICE hd_i64 hd_o_off(int b, int h, int i, HD_PARAMS) { return hd_row_(b, h, i, HD_HQ, HD_SQ, HD_DV); }
HD_DEVICE hd_i64 hd_do_off(int b, int h, int i, HD_PARAMS) { return hd_row_(b, h, i, HD_HQ, HD_SQ, HD_DV); }
HD_DEVICE hd_i64 hd_dq_off(int b, int h, int i, HD_PARAMS) { return hd_row_(b, h, i, HD_HQ, HD_SQ, HD_D); }
HD_DEVICE hd_i64 hd_k_off(int b, int h, int j, HD_PARAMS) { return hd_row_(b, h, j, HD_HK, HD_SKV, HD_D); }
HD_DEVICE hd_i64 hd_v_off(int b, int h, int j, HD_PARAMS) { return hd_row_(b, h, j, HD_HK, HD_SKV, HD_DV); }
HD_DEVICE hd_i64 hd_dk_off(int b, int h, int j, HD_PARAMS) { return hd_row_(b, h, j, HD_HK, HD_SKV, HD_D); }
HD_DEVICE hd_i64 hd_dv_off(int b, int h, int j, HD_PARAMS) { return hd_row_(b, h, j, HD_HK, HD_SKV, HD_DV); }
HD_DEVICE float hd_stats(int b, int h, int i, HD_PARAMS) { return hd_ld<HD_DT_FLOAT>(pst, ((hd_i64)b * HD_HQ + h) * HD_SQ + i); }
HD_DEVICE float hd_scale(HD_PARAMS) { return 0.08838834764831845f; }
HD_DEVICE int hd_seq_q(int b, HD_PARAMS) { return HD_SQ; }
HD_DEVICE int hd_seq_kv(int b, HD_PARAMS) { return HD_SKV; }
HD_DEVICE float hd_drop_scale(HD_PARAMS) { return 1.0f; }
HD_DEVICE float hd_drop_sinv(HD_PARAMS) { return 1.0f; }
#endif

#define HD_THREADS (HD_WARPS * 32)        /* kv and dq kernels: warps of 16 rows (keys / queries) */
#define HD_LTHREADS (HD_LOADER ? 128 : 0)  /* the kv kernel's loading warpgroup, before its computing warps */
static_assert(!HD_LOADER || (HD_SM90 && HD_WARPS == 8 && HD_STAGES >= 2),
              "the loading warpgroup feeds two computing warpgroups of wgmma through two or more stages");
#define HD_QBM (16 * HD_WARPS)            /* dQ kernel: query rows per block */
#define HD_ALIGN (HD_SM90 ? 1024 : 128)   /* tile alignment: wgmma's swizzle period, else 128 */
#define HD_ROUND(x) (((x) + HD_ALIGN - 1) / HD_ALIGN * HD_ALIGN)
/* wgmma passes with their elementwise work beside the products (hd_kv_tile_overlap, the dq loop):
 * without dropout, and at 64-row inner tiles (128 would not leave the registers for it) */
#define HD_OVERLAP (HD_SM90 && !HD_DROPOUT && !HD_DMASK && HD_BM == 64)
static_assert(HD_BN == 16 * HD_WARPS, "a kv block is one 16-key slice per warp");
static_assert(!HD_SM90 || ((HD_BM == 64 || HD_BM == 128) && (HD_QBN == 64 || HD_QBN == 128) &&
                           (HD_D == 64 || HD_D == 128) && (HD_DV == 64 || HD_DV == 128) && HD_WARPS % 4 == 0),
              "wgmma: whole warpgroups, tiles of 64 or 128 rows, head dims 64 or 128");
/* HD_ATOMIC on wgmma: the kv block's two warpgroups each multiply a 64 x 64 piece of the tile's
 * dQ (HD_BM x HD_D: 64 rows x two column halves, or two row halves x 64) and the copy engine adds
 * it to the fp32 accumulator (hd_dq_bulk) */
#define HD_DQ_BULK (HD_SM90 && HD_ATOMIC)
static_assert(!HD_DQ_BULK || (HD_BM * HD_D == 8192 && HD_WARPS == 8),
              "the wgmma dQ: two warpgroups, a 64 x 128 or 128 x 64 dQ tile");
static_assert(!HD_DQ_OWN || HD_DQ_BULK, "each warpgroup's own dQ share is the wgmma dQ's variant");
/* rows of a head's dQ accumulator: whole query tiles with HD_DQ_BULK (stored in the products'
 * fragment order, hd_dq_piece_add; read back by hd_sdpa_bwd_dq_convert) */
#define HD_DQ_ROWS (HD_DQ_BULK ? (HD_SQ + HD_BM - 1) / HD_BM * HD_BM : HD_SQ)
#define HD_D16 ((HD_D + 15) / 16 * 16)    /* head dims padded to the mma's k / n steps */
#define HD_DV16 ((HD_DV + 15) / 16 * 16)
#define HD_DP ((HD_D + 63) / 64 * 64)     /* shared-memory row lengths (8-chunk swizzle) */
#define HD_DVP ((HD_DV + 63) / 64 * 64)
#define HD_ND (HD_D16 / 8)                /* n8 tiles of dK / dQ rows */
#define HD_NDV (HD_DV16 / 8)              /* n8 tiles of dV rows */
#define HD_K_BYTES (HD_BN * HD_DP * 2)
#define HD_V_BYTES (HD_BN * HD_DVP * 2)
#define HD_QT_BYTES (HD_BM * HD_DP * 2)   /* one stage of the kv kernel: Q, dO, lse2, Dn */
#define HD_OT_BYTES (HD_BM * HD_DVP * 2)
#define HD_STAGE_BYTES HD_ROUND(HD_QT_BYTES + HD_OT_BYTES + HD_BM * 8)
#define HD_DS_BYTES (HD_ATOMIC ? HD_BN * HD_BM * 2 : 0)
#define HD_DQS_BYTES (HD_DQ_BULK ? 2 * HD_BM * HD_D * 4 : 0) /* two stagings of the dQ tile, fp32 */
#define HD_KV_SMEM (HD_ALIGN + HD_K_BYTES + HD_V_BYTES + HD_STAGES * HD_STAGE_BYTES + HD_DS_BYTES + HD_DQS_BYTES + \
                    (HD_LOADER ? HD_STAGES * 16 : 0)) /* then the loader's mbarriers, full and empty per stage */
#define HD_QK_BYTES (HD_QBN * HD_DP * 2)  /* one stage of the dq kernel: K, V */
#define HD_QV_BYTES (HD_QBN * HD_DVP * 2)
#define HD_DQ_SMEM (HD_ALIGN + HD_QBM * (HD_DP + HD_DVP) * 2 + HD_QSTAGES * (HD_QK_BYTES + HD_QV_BYTES))
#define HD_LOG2E 1.4426950408889634f
#define HD_NEG_INF (-__int_as_float(0x7f800000))
#define HD_POS_INF (__int_as_float(0x7f800000))

HD_DEVICE void hd_mma(float *d, const hd_u32 *a, hd_u32 b0, hd_u32 b1) { hd_mma16<HD_DT>(d, a, b0, b1); }
HD_DEVICE hd_u32 hd_pack2(float lo, float hi) { return hd_pack2_as<HD_DT>(lo, hi); }
#if HD_SM90 /* wgmma (sm_90a): hd_tensor_nv.h's products for HD_DT */
template <int N> HD_DEVICE void hd_wgmma_ss(float *d, hd_u64 da, hd_u64 db, int acc) { hd_wgmma_ss_as<HD_DT, N>(d, da, db, acc); }
template <int N> HD_DEVICE void hd_wgmma_rs(float *d, const hd_u32 *a, hd_u64 db) { hd_wgmma_rs_as<HD_DT, N>(d, a, db); }
template <int N> HD_DEVICE void hd_wgmma_ss_t(float *d, hd_u64 da, hd_u64 db, int acc) { hd_wgmma_ss_as<HD_DT, N, 1>(d, da, db, acc); }
#endif

/* Where chunk c of row r of a tile of ROWS rows and ch chunks a row lives: hd_swz for ldmatrix
 * (mma.sync), the 128-byte-swizzle layout of the wgmma descriptors with HD_SM90. */
template <int ROWS> HD_DEVICE hd_u32 hd_at(int r, int c, int ch)
{
#if HD_SM90
    (void)ch;
    return hd_wg_off(r, c, ROWS);
#else
    return hd_swz(r, c, ch);
#endif
}

/* Shared memory written by cp.async is complete for this thread (hd_cp_wait) and, with HD_SM90,
 * visible to the tensor cores' async proxy; a barrier follows. */
HD_DEVICE void hd_landed()
{
#if HD_SM90
    hd_async_fence();
#endif
}

/* The dropout mask M of score (b, h, i, j) (i < Sq, j < Skv): Philox's decision (the forward's
 * element numbering), the DROPOUT_MASK tensor, or 1. */
HD_DEVICE float hd_mask_at(int b, int h, int i, int j, HD_PARAMS)
{
#if HD_DROPOUT
    hd_i64 lin = (((hd_i64)b * HD_HQ + h) * HD_SQ + i) * HD_SKV + j;
    return hd_philox_keep(hd_drop_seed(HD_ARGS), hd_drop_offset(HD_ARGS), lin, hd_drop_p) ? 1.0f : 0.0f;
#elif HD_DMASK
    return hd_dmask(b, h, i, j, HD_ARGS);
#else
    (void)b, (void)h, (void)i, (void)j;
    return 1.0f;
#endif
}

#if HD_DBIAS == 2
/* The broadcast dBias' fp32 accumulator (HD_DBIAS 2): after lse2, Dn and the dQ accumulator. */
HD_DEVICE float *hd_dbacc(void *hd_ws)
{
    return (float *)hd_ws + 2 * (hd_i64)HD_B * HD_HQ * HD_SQP + (hd_i64)HD_B * HD_HQ * HD_DQ_ROWS * HD_D;
}
/* Where score (b, h, i, j) adds in the accumulator: broadcast dims read index 0. */
HD_DEVICE hd_i64 hd_dbacc_idx(int b, int h, int i, int j)
{
    return (((hd_i64)(HD_DBB == 1 ? 0 : b) * HD_DBH + (HD_DBH == 1 ? 0 : h)) * HD_DBI + (HD_DBI == 1 ? 0 : i)) * HD_DBJ +
           (HD_DBJ == 1 ? 0 : j);
}
#endif

/* ---- the problem of one (batch, head) ------------------------------------------------------------ */

typedef struct hd_bwd_ctx {
    int b, h;            /* batch, query head */
    int sq, skv, shift;  /* valid rows and keys of this batch; the band's diagonal shift */
    float scale2;        /* scale · log2(e) */
    float slope2;        /* ALiBi slope · log2(e) */
    float ms;            /* s: the dropout scale of P */
} hd_bwd_ctx;

HD_DEVICE void hd_ctx_init(hd_bwd_ctx &c, int b, int h, HD_PARAMS)
{
    c.b = b, c.h = h;
    c.sq = hd_seq_q(b, HD_ARGS), c.skv = hd_seq_kv(b, HD_ARGS);
    c.shift = HD_BOTTOM_RIGHT ? c.skv - c.sq : 0;
    c.scale2 = hd_scale(HD_ARGS) * HD_LOG2E;
#if HD_ALIBI
    c.slope2 = hd_alibi_slope(h) * HD_LOG2E;
#else
    c.slope2 = 0.0f;
#endif
    c.ms = hd_drop_scale(HD_ARGS);
}

/* Whether key j is cut from query row i (padding or band). */
HD_DEVICE bool hd_masked(const hd_bwd_ctx &c, int i, int j)
{
    bool cut = i >= c.sq || j >= c.skv;
#if HD_HAS_RIGHT
    cut = cut || j > i + c.shift + HD_RIGHT;
#endif
#if HD_HAS_LEFT
    cut = cut || j <= i + c.shift - HD_LEFT;
#endif
    return cut;
}

/* Whether the rows [i0, i0 + ni) x keys [j0, j0 + nj) hold a cut pair: then the mask is checked
 * per element. */
HD_DEVICE bool hd_block_cut(const hd_bwd_ctx &c, int i0, int ni, int j0, int nj)
{
    bool cut = j0 + nj > c.skv || i0 + ni > c.sq;
#if HD_HAS_RIGHT
    cut = cut || j0 + nj - 1 > i0 + c.shift + HD_RIGHT;
#endif
#if HD_HAS_LEFT
    cut = cut || j0 <= i0 + ni - 1 + c.shift - HD_LEFT;
#endif
    return cut;
}

/* The score of (i, j) in the log2 domain: x = S·scale·log2(e) (+ bias, + ALiBi), −inf where cut. */
HD_DEVICE float hd_score2(const hd_bwd_ctx &c, float s, int i, int j, bool cut, HD_PARAMS)
{
    float x = s * c.scale2;
#if HD_BIAS
    if (i < c.sq && j < c.skv)
        x += hd_bias(c.b, c.h, i, j, HD_ARGS) * HD_LOG2E;
#endif
#if HD_ALIBI
    x += c.slope2 * (float)(j - i);
#endif
    return cut && hd_masked(c, i, j) ? HD_NEG_INF : x;
}

/* P, s·M·P and dS of one score: p = exp2(x − lse2) (0 when x is −inf: lse2 is never −inf). */
HD_DEVICE void hd_grad(const hd_bwd_ctx &c, float x, float dp, float lse2, float dn, int i, int j,
                       float &pm, float &ds, HD_PARAMS)
{
    float p = hd_exp2(x - lse2);
#if HD_DROPOUT || HD_DMASK
    float m = i < HD_SQ && j < HD_SKV && p != 0.0f ? hd_mask_at(c.b, c.h, i, j, HD_ARGS) * c.ms : 0.0f;
#else
    float m = c.ms;
    (void)i, (void)j;
#endif
    pm = p * m;
    ds = p * (dp * m - dn);
}

/* ---- loads ----------------------------------------------------------------------------------------- */

/* Rows [r0, r0 + ROWS) of an operand (ROWS x DIM, row offsets from OFF) into a swizzled tile of CH
 * chunks a row; rows at or past `valid` and dims past DIM are zero-filled. */
template <int ROWS, int DIM, int CH, typename OFF>
HD_DEVICE void hd_load_rows(hd_u32 dst, const void *base, int r0, int valid, OFF off, int tid, int nt = HD_THREADS)
{
    const hd_u16 *p = (const hd_u16 *)base;
    constexpr int DC = (DIM + 15) / 16 * 2; /* 16-byte chunks the products read */
#pragma unroll 4
    for (int id = tid; id < ROWS * DC; id += nt) {
        int r = id / DC, c = id % DC, i = r0 + r;
        bool ok = i < valid && c * 8 < DIM;
        const hd_u16 *src = ok ? p + off(i) + c * 8 : p;
        hd_cp_async16(dst + hd_at<ROWS>(r, c, CH), src, ok ? 16 : 0);
    }
}

/* HD_BM floats of a scratch row (lse2 or Dn of one head) from row m0 on; past HD_SQP zero. */
HD_DEVICE void hd_load_floats(hd_u32 dst, const float *row, int m0, int tid, int nt)
{
    for (int id = tid; id < HD_BM / 4; id += nt) {
        bool ok = m0 + id * 4 < HD_SQP;
        hd_cp_async16(dst + id * 16, ok ? row + m0 + id * 4 : row, ok ? 16 : 0);
    }
}

/* ---- fragments ----------------------------------------------------------------------------------- */

/* The A fragment (16 rows from row r0, k step kk) of a swizzled tile of CH chunks a row. */
HD_DEVICE void hd_frag_a(hd_u32 *a, hd_u32 tile, int r0, int kk, int ch, int lane)
{
    hd_ldsm_x4(a, tile + hd_swz(r0 + (lane & 15), kk * 2 + (lane >> 4), ch));
}

/* acc[16 x 8·NT] += A (16 rows of tile `ta` from row ra, KS k16 steps) · Bᵀ where B's rows are
 * the NT·8 rows of tile `tb` (both [row][k] in memory: the "col" B operand). */
template <int NT, int KS>
HD_DEVICE void hd_mm_nt(float (*acc)[4], hd_u32 ta, int ra, int cha, hd_u32 tb, int chb, int lane)
{
#pragma unroll
    for (int kk = 0; kk < KS; kk++) {
        hd_u32 a[4];
        hd_frag_a(a, ta, ra, kk, cha, lane);
#pragma unroll
        for (int nj = 0; nj < NT / 2; nj++) {
            hd_u32 t[4];
            int r = nj * 16 + (lane & 7) + ((lane >> 4) << 3), c = kk * 2 + ((lane >> 3) & 1);
            hd_ldsm_x4(t, tb + hd_swz(r, c, chb));
            hd_mma(acc[2 * nj], a, t[0], t[1]);
            hd_mma(acc[2 * nj + 1], a, t[2], t[3]);
        }
    }
}

/* acc[16 x 8·NT] += A · B for A given as C fragments x[KN][4] (16 rows x 8·KN, packed to the
 * operand type) and B the rows [0, 8·KN) of tile `tb` ([k][n] in memory, n contiguous: .trans). */
template <int NT, int KN>
HD_DEVICE void hd_mm_cb(float (*acc)[4], const float (*x)[4], hd_u32 tb, int chb, int lane)
{
#pragma unroll
    for (int kk = 0; kk < KN / 2; kk++) {
        hd_u32 a[4] = {hd_pack2(x[2 * kk][0], x[2 * kk][1]), hd_pack2(x[2 * kk][2], x[2 * kk][3]),
                       hd_pack2(x[2 * kk + 1][0], x[2 * kk + 1][1]), hd_pack2(x[2 * kk + 1][2], x[2 * kk + 1][3])};
#pragma unroll
        for (int nj = 0; nj < NT / 2; nj++) {
            hd_u32 t[4];
            int r = kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), c = nj * 2 + (lane >> 4);
            hd_ldsm_x4_trans(t, tb + hd_swz(r, c, chb));
            hd_mma(acc[2 * nj], a, t[0], t[1]);
            hd_mma(acc[2 * nj + 1], a, t[2], t[3]);
        }
    }
}

template <int N> HD_DEVICE void hd_zero(float (*acc)[4])
{
#pragma unroll
    for (int n = 0; n < N; n++)
        acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
}

/* Stores a warp's 16 x (8·NT) C fragments `acc` · f at rows r0 + … (< rows) of type DT through
 * the row offsets `off`, columns < dim. */
template <int DT, int NT, typename OFF>
HD_DEVICE void hd_store_rows(void *dst, const float (*acc)[4], float f, int r0, int rows, int dim, OFF off, int lane)
{
#pragma unroll
    for (int r = 0; r < 2; r++) {
        int i = r0 + (lane >> 2) + r * 8;
        if (i >= rows)
            continue;
        hd_i64 o = off(i);
#pragma unroll
        for (int n = 0; n < NT; n++) {
            int c = n * 8 + (lane & 3) * 2;
            if (c < dim) {
                hd_st<DT>(dst, o + c, acc[n][2 * r] * f);
                hd_st<DT>(dst, o + c + 1, acc[n][2 * r + 1] * f);
            }
        }
    }
}

/* ---- launch 1: lse2, Dn, zeroed accumulators -------------------------------------------------------- */

HD_GLOBAL __launch_bounds__(256) void hd_sdpa_bwd_pre(HD_PARAMS, void *hd_ws)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int b = blockIdx.z, h = blockIdx.y, i = blockIdx.x * 8 + warp;
    float *lse2 = (float *)hd_ws, *dn = lse2 + (hd_i64)HD_B * HD_HQ * HD_SQP;
#if HD_ATOMIC
    if (i < HD_DQ_ROWS) {
        float *acc = dn + (hd_i64)HD_B * HD_HQ * HD_SQP + (((hd_i64)b * HD_HQ + h) * HD_DQ_ROWS + i) * HD_D;
        for (int c = lane; c < HD_D; c += 32)
            acc[c] = 0.0f;
    }
#endif
    if (i >= HD_SQP)
        return;
    const hd_i64 row = ((hd_i64)b * HD_HQ + h) * HD_SQP + i;
    const int sq = hd_seq_q(b, HD_ARGS);
    float d = 0.0f;
    if (i < sq) { /* padding rows of O and dO are never read */
        hd_i64 oo = hd_o_off(b, h, i, HD_ARGS), od = hd_do_off(b, h, i, HD_ARGS);
        for (int c = lane; c < HD_DV; c += 32)
            d += hd_ld<HD_DT>(HD_O_PTR, oo + c) * hd_ld<HD_DT>(HD_DO_PTR, od + c);
    }
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1)
        d += hd_shfl_xor(d, m);
    if (lane == 0) {
        float st = i < sq ? hd_stats(b, h, i, HD_ARGS) : HD_NEG_INF;
        lse2[row] = st == HD_NEG_INF ? HD_POS_INF : st * HD_LOG2E;
        dn[row] = d * hd_drop_scale(HD_ARGS) * hd_drop_sinv(HD_ARGS);
    }
    if (i >= HD_SQ)
        return;
#if HD_DBIAS == 1
    for (int j = lane; j < HD_SKV; j += 32)
        hd_dbias_st(b, h, i, j, 0.0f, HD_ARGS);
#elif HD_DBIAS == 2
    if (b < HD_DBB && h < HD_DBH && i < HD_DBI)
        for (int j = lane; j < HD_DBJ; j += 32)
            hd_dbacc(hd_ws)[hd_dbacc_idx(b, h, i, j)] = 0.0f;
#endif
}

/* ---- launch 2: dK, dV (and atomic dQ) -------------------------------------------------------------- */

/* The query rows [lo, hi) whose band reaches keys [n0, n1) of the block (n1 <= skv). */
HD_DEVICE void hd_rows_of_keys(const hd_bwd_ctx &c, int n0, int n1, int &lo, int &hi)
{
    lo = 0, hi = c.sq;
#if HD_HAS_RIGHT
    lo = max(lo, n0 - c.shift - HD_RIGHT); /* j <= i + shift + right */
#endif
#if HD_HAS_LEFT
    hi = min(hi, n1 - 1 - c.shift + HD_LEFT); /* j > i + shift - left */
#endif
    if (n1 <= n0)
        hi = lo;
}

/* Q, dO, lse2, Dn of query tile m0 of head h into stage `st`, by nt threads. */
HD_DEVICE void hd_kv_load_stage(hd_u32 st, int b, int h, int m0, int sq, int tid, int nt, void *hd_ws, HD_PARAMS)
{
    auto qo = [&](int i) { return hd_q_off(b, h, i, HD_ARGS); };
    auto doo = [&](int i) { return hd_do_off(b, h, i, HD_ARGS); };
    hd_load_rows<HD_BM, HD_D, HD_DP / 8>(st, HD_Q_PTR, m0, sq, qo, tid, nt);
    hd_load_rows<HD_BM, HD_DV, HD_DVP / 8>(st + HD_QT_BYTES, HD_DO_PTR, m0, sq, doo, tid, nt);
    const float *lse2 = (const float *)hd_ws, *dn = lse2 + (hd_i64)HD_B * HD_HQ * HD_SQP;
    const hd_i64 row = ((hd_i64)b * HD_HQ + h) * HD_SQP;
    hd_load_floats(st + HD_QT_BYTES + HD_OT_BYTES, lse2 + row, m0, tid, nt);
    hd_load_floats(st + HD_QT_BYTES + HD_OT_BYTES + HD_BM * 4, dn + row, m0, tid, nt);
}

/* dQ rows [m0 + 16·warp, +16) += dS·K from the block's dSᵀ tile, with fp32 atomics. */
HD_DEVICE void hd_dq_atomic(hd_u32 sds, hd_u32 sk, int b, int h, int m0, int warp, int lane, void *hd_ws)
{
    float acc[HD_ND][4];
    hd_zero<HD_ND>(acc);
#pragma unroll
    for (int kk = 0; kk < HD_BN / 16; kk++) {
        hd_u32 a[4]; /* A = dS [query][key] from dSᵀ [key][query]: .trans */
        hd_ldsm_x4_trans(a, sds + hd_swz(kk * 16 + (lane & 7) + ((lane >> 4) << 3), warp * 2 + ((lane >> 3) & 1), HD_BM / 8));
#pragma unroll
        for (int nj = 0; nj < HD_ND / 2; nj++) {
            hd_u32 t[4];
            int r = kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), c = nj * 2 + (lane >> 4);
            hd_ldsm_x4_trans(t, sk + hd_swz(r, c, HD_DP / 8));
            hd_mma(acc[2 * nj], a, t[0], t[1]);
            hd_mma(acc[2 * nj + 1], a, t[2], t[3]);
        }
    }
    float *dq = (float *)hd_ws + 2 * (hd_i64)HD_B * HD_HQ * HD_SQP;
#pragma unroll
    for (int r = 0; r < 2; r++) {
        int i = m0 + warp * 16 + (lane >> 2) + r * 8;
        if (i >= HD_SQ)
            continue;
        float *row = dq + (((hd_i64)b * HD_HQ + h) * HD_DQ_ROWS + i) * HD_D;
#pragma unroll
        for (int n = 0; n < HD_ND; n++) {
            int c = n * 8 + (lane & 3) * 2;
            if (c < HD_D) {
                atomicAdd(row + c, acc[n][2 * r]);
                atomicAdd(row + c + 1, acc[n][2 * r + 1]);
            }
        }
    }
}

#if HD_SM90
/* ---- wgmma products (sm_90a): warpgroup g (warps 4g .. 4g + 3) owns rows [64g, 64g + 64) of its
 * block's A operand; the fp32 results land in the mma.sync fragment layout (hd_tensor_nv.h). */

/* Packs C fragments x[KN][4] (16 rows x 8·KN of each warp) into the A operands of KN / 2 k16
 * steps, rounded to the operand type. */
template <int KN> HD_DEVICE void hd_pack_a(hd_u32 (*a)[4], const float (*x)[4])
{
#pragma unroll
    for (int kk = 0; kk < KN / 2; kk++) {
        a[kk][0] = hd_pack2(x[2 * kk][0], x[2 * kk][1]);
        a[kk][1] = hd_pack2(x[2 * kk][2], x[2 * kk][3]);
        a[kk][2] = hd_pack2(x[2 * kk + 1][0], x[2 * kk + 1][1]);
        a[kk][3] = hd_pack2(x[2 * kk + 1][2], x[2 * kk + 1][3]);
    }
}

/* Issues acc[64 x N] = A·Bᵀ over a head dim of DIM: A the 64 rows from row `ra` of tile ta (RA
 * rows), B the N rows of tile tb (both [row][dim], K-major). */
template <int N, int DIM, int RA> HD_DEVICE void hd_wg_nt(float *acc, hd_u32 ta, int ra, hd_u32 tb)
{
#pragma unroll
    for (int kk = 0; kk < DIM / 16; kk++) {
        hd_u32 blk = (hd_u32)(kk >> 2), in = (hd_u32)(kk & 3) * 32; /* 64-element column block, k16 in it */
        hd_wgmma_ss<N>(acc, hd_desc(ta + blk * RA * 128 + (hd_u32)ra * 128 + in, 16, 1024),
                       hd_desc(tb + blk * N * 128 + in, 16, 1024), kk > 0);
    }
}

/* Issues acc[64 x N] += A·B: A the packed fragments a[KR / 16] (64 x KR), B the KR rows of tile tb
 * ([k][n], N-major, N = the tile's row length). */
template <int N, int KR> HD_DEVICE void hd_wg_ab(float *acc, const hd_u32 (*a)[4], hd_u32 tb)
{
#pragma unroll
    for (int kk = 0; kk < KR / 16; kk++) /* 16 rows of 128 bytes a k16 step */
        hd_wgmma_rs<N>(acc, a[kk], hd_desc(tb + kk * 2048, KR * 128, 1024));
}

/* Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ for the warpgroup's 64 keys and the tile's HD_BM queries. */
HD_DEVICE void hd_kv_scores_wg(float (*s)[4], float (*dp)[4], hd_u32 sk, hd_u32 sv, hd_u32 sq_, hd_u32 sdo, int warp)
{
    const int rk = (warp >> 2) * 64;
    hd_wgmma_fence();
    hd_wg_nt<HD_BM, HD_D, HD_BN>(&s[0][0], sk, rk, sq_);
    hd_wg_nt<HD_BM, HD_DV, HD_BN>(&dp[0][0], sv, rk, sdo);
    hd_wgmma_commit();
    hd_wgmma_wait0();
    hd_acc_fence<HD_BM / 2>(&s[0][0]);
    hd_acc_fence<HD_BM / 2>(&dp[0][0]);
}

/* dV += (s·M∘P)ᵀ·dO and dK += dSᵀ·Q from the fragments pm and ds of the warpgroup's keys. */
HD_DEVICE void hd_kv_grads_wg(float (*dk)[4], float (*dv)[4], const float (*pm)[4], const float (*ds)[4],
                              hd_u32 sq_, hd_u32 sdo)
{
    hd_u32 pa[HD_BM / 16][4], da[HD_BM / 16][4];
    hd_pack_a<HD_BM / 8>(pa, pm);
    hd_pack_a<HD_BM / 8>(da, ds);
    hd_wgmma_fence();
    hd_wg_ab<HD_DV, HD_BM>(&dv[0][0], pa, sdo);
    hd_wg_ab<HD_D, HD_BM>(&dk[0][0], da, sq_);
    hd_wgmma_commit();
    hd_wgmma_wait0();
    hd_acc_fence<HD_DV / 2>(&dv[0][0]);
    hd_acc_fence<HD_D / 2>(&dk[0][0]);
}

/* Issues S = Q·Kᵀ and dP = dO·Vᵀ (two commit groups, in that order) for the warpgroup's 64 query
 * rows and the HD_QBN keys of the tile; hd_dq_scores_wg waits for both. */
HD_DEVICE void hd_dq_scores_issue(float (*s)[4], float (*dp)[4], hd_u32 sq_, hd_u32 sdo, hd_u32 sk, hd_u32 sv, int warp)
{
    const int rq = (warp >> 2) * 64;
    hd_wgmma_fence();
    hd_wg_nt<HD_QBN, HD_D, HD_QBM>(&s[0][0], sq_, rq, sk);
    hd_wgmma_commit();
    hd_wg_nt<HD_QBN, HD_DV, HD_QBM>(&dp[0][0], sdo, rq, sv);
    hd_wgmma_commit();
}

HD_DEVICE void hd_dq_scores_wg(float (*s)[4], float (*dp)[4], hd_u32 sq_, hd_u32 sdo, hd_u32 sk, hd_u32 sv, int warp)
{
    hd_dq_scores_issue(s, dp, sq_, sdo, sk, sv, warp);
    hd_wgmma_wait0();
    hd_acc_fence<HD_QBN / 2>(&s[0][0]);
    hd_acc_fence<HD_QBN / 2>(&dp[0][0]);
}

#if HD_DQ_BULK
/* The dQ accumulator's tile of query rows from m0 of head h of batch b. */
HD_DEVICE float *hd_dq_tile(int b, int h, int m0, void *hd_ws)
{
    return (float *)hd_ws + 2 * (hd_i64)HD_B * HD_HQ * HD_SQP + (((hd_i64)b * HD_HQ + h) * HD_DQ_ROWS + m0) * HD_D;
}

/* A warpgroup's 64 x 64 dQ piece: dq = A·B over KS k16 steps, A a tile's rows of dSᵀ read M-major
 * from ta, B K's rows read N-major from tb (both [key][128 bytes] blocks of HD_BN rows). */
template <int KS> HD_DEVICE void hd_dq_piece(float (*dq)[4], hd_u32 ta, hd_u32 tb)
{
    hd_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < KS; kk++) /* 16 keys: 16 rows of 128 bytes of both tiles */
        hd_wgmma_ss_t<64>(&dq[0][0], hd_desc(ta + kk * 2048, HD_BN * 128, 1024),
                          hd_desc(tb + kk * 2048, HD_BN * 128, 1024), kk > 0);
    hd_wgmma_commit();
    hd_wgmma_wait0();
    hd_acc_fence<32>(&dq[0][0]);
}

/* Warpgroup g stages its piece at `piece` in fragment order (float4 n of thread t at n·128 + t: a
 * warp's stores are 512 contiguous bytes) and its thread 0 has the copy engine add the 16 KB to
 * piece p of the tile's accumulator, in a bulk group of its own. */
HD_DEVICE void hd_dq_piece_add(const float (*dq)[4], hd_u32 piece, float *tile_acc, int p, int g, int t)
{
#pragma unroll
    for (int n = 0; n < 8; n++)
        asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(piece + (n * 128 + t) * 16), "f"(dq[n][0]),
                     "f"(dq[n][1]), "f"(dq[n][2]), "f"(dq[n][3]) : "memory");
    hd_async_fence();
    hd_bar_sync<128>(2 + g); /* the warpgroup's piece is staged */
    if (t == 0) {
        hd_bulk_add_f32(tile_acc + 4096 * p, piece, 16384);
        hd_bulk_commit();
    }
}

/* The tile's dQ += dS·K for the block's keys, added to the fp32 accumulator (tile_acc: the tile's
 * HD_BM x HD_D floats, two 64 x 64 pieces: column halves of 64 rows, or row halves of 128) by the
 * copy engine. da: the warp's dSᵀ fragments packed as A operands (keys of the warp x the tile's
 * HD_BM queries), stored to sds ([key][query], read M-major). Warpgroup g multiplies piece g over
 * all the block's keys, staged in buffer `it` % 2: the staging of tile it − 2 is free once its
 * thread's bulk groups but the last have read their sources (hd_bulk_wait_read<1>, before the
 * block-wide barrier). HD_DQ_OWN: each warpgroup multiplies both pieces over its own 64 keys (no
 * exchange, twice the adds), piece n staged in buffer 2g + n, free once the thread's groups but
 * the last have read (the same piece of the previous tile). */
HD_DEVICE void hd_dq_bulk(const hd_u32 (*da)[4], hd_u32 sds, hd_u32 sk, hd_u32 sdq, float *tile_acc, int it,
                          int warp, int lane)
{
    const int g = warp >> 2, t = (warp & 3) * 32 + lane;
#pragma unroll
    for (int kk = 0; kk < HD_BM / 16; kk++)
#pragma unroll
        for (int q = 0; q < 4; q++) { /* key row lane/4 (+8), queries 16kk + 2(lane%4) (+8) */
            int row = warp * 16 + (lane >> 2) + (q & 1) * 8, chunk = 2 * kk + (q >> 1);
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(sds + hd_wg_off(row, chunk, HD_BN) + (lane & 3) * 4),
                         "r"(da[kk][q]) : "memory");
        }
    hd_async_fence();
    float dq[8][4];
#if HD_DQ_OWN
    (void)it;
    hd_bar_sync<128>(2 + g); /* the warpgroup's dSᵀ */
#pragma unroll
    for (int n = 0; n < 2; n++) {
        hd_dq_piece<4>(dq, sds + g * 8192 + (HD_BM == 128 ? n : 0) * HD_BN * 128,
                       sk + g * 8192 + (HD_BM == 64 ? n : 0) * HD_BN * 128);
        if (t == 0)
            hd_bulk_wait_read<1>();
        hd_bar_sync<128>(2 + g); /* the buffer is free */
        hd_dq_piece_add(dq, sdq + (hd_u32)(2 * g + n) * 16384, tile_acc, n, g, t);
    }
#else
    if (t == 0)
        hd_bulk_wait_read<1>();
    hd_bar_sync_at<1, HD_THREADS>(); /* the block's dSᵀ; staging free */
    hd_dq_piece<HD_BN / 16>(dq, sds + (HD_BM == 128 ? g : 0) * HD_BN * 128, sk + (HD_BM == 64 ? g : 0) * HD_BN * 128);
    hd_dq_piece_add(dq, sdq + (hd_u32)(it & 1) * (HD_BM * HD_D * 4) + g * 16384, tile_acc, g, g, t);
#endif
}
#endif

/* dQ += dS·K from the fragments ds of the warpgroup's rows. */
HD_DEVICE void hd_dq_grad_wg(float (*dq)[4], const float (*ds)[4], hd_u32 sk)
{
    hd_u32 da[HD_QBN / 16][4];
    hd_pack_a<HD_QBN / 8>(da, ds);
    hd_wgmma_fence();
    hd_wg_ab<HD_D, HD_QBN>(&dq[0][0], da, sk);
    hd_wgmma_commit();
    hd_wgmma_wait0();
    hd_acc_fence<HD_D / 2>(&dq[0][0]);
}
#endif

/* dBias of score (i, j) (its log2-domain score x; masked scores have none): stored (HD_DBIAS 1) or
 * added to the broadcast accumulator (HD_DBIAS 2). */
HD_DEVICE void hd_dbias_put(const hd_bwd_ctx &c, int i, int j, float x, float ds, void *hd_ws, HD_PARAMS)
{
#if HD_DBIAS == 1
    if (i < HD_SQ && j < HD_SKV && x != HD_NEG_INF)
        hd_dbias_st(c.b, c.h, i, j, ds, HD_ARGS);
#elif HD_DBIAS == 2
    if (i < HD_SQ && j < HD_SKV && x != HD_NEG_INF)
        atomicAdd(hd_dbacc(hd_ws) + hd_dbacc_idx(c.b, c.h, i, j), ds);
#else
    (void)c, (void)i, (void)j, (void)x, (void)ds, (void)hd_ws;
#endif
}

#if HD_OVERLAP
/* hd_kv_tile on wgmma with the elementwise work beside the tensor cores (no dropout: M·s is the
 * constant s): P = exp2(x − lse2) while dPᵀ = V·dOᵀ runs, then dV += (s·P)ᵀ·dO is issued and
 * dS = P·(s·dP − Dn) computed while it runs, then dK += dSᵀ·Q. */
HD_DEVICE void hd_kv_tile_overlap(float (*dk)[4], float (*dv)[4], const hd_bwd_ctx &c, hd_u32 sk, hd_u32 sv,
                                  hd_u32 st, const float *sl, hd_u32 sds, hd_u32 sdq, int it, int j0, int m0,
                                  int warp, int lane, void *hd_ws, HD_PARAMS)
{
    const hd_u32 sq_ = st, sdo = st + HD_QT_BYTES;
    const float *sd = sl + HD_BM;
    const int rk = (warp >> 2) * 64;
    float s[HD_BM / 8][4], dp[HD_BM / 8][4];
    hd_wgmma_fence();
    hd_wg_nt<HD_BM, HD_D, HD_BN>(&s[0][0], sk, rk, sq_); /* Sᵀ = K·Qᵀ */
    hd_wgmma_commit();
    hd_wg_nt<HD_BM, HD_DV, HD_BN>(&dp[0][0], sv, rk, sdo); /* dPᵀ = V·dOᵀ */
    hd_wgmma_commit();
    hd_wgmma_wait_<1>();
    hd_acc_fence<HD_BM / 2>(&s[0][0]);
    const bool cut = hd_block_cut(c, m0, HD_BM, j0, 16);
#pragma unroll
    for (int ni = 0; ni < HD_BM / 8; ni++)
#pragma unroll
        for (int e = 0; e < 4; e++) { /* as hd_kv_tile: key row lane/4 (+8), query column 2(lane%4) (+1) */
            int il = ni * 8 + (lane & 3) * 2 + (e & 1), i = m0 + il, j = j0 + (lane >> 2) + (e >> 1) * 8;
            s[ni][e] = hd_exp2(hd_score2(c, s[ni][e], i, j, cut, HD_ARGS) - sl[il]); /* 0 where masked */
        }
    hd_u32 pa[HD_BM / 16][4], da[HD_BM / 16][4];
    float pm[HD_BM / 8][4];
#pragma unroll
    for (int ni = 0; ni < HD_BM / 8; ni++)
#pragma unroll
        for (int e = 0; e < 4; e++)
            pm[ni][e] = s[ni][e] * c.ms;
    hd_pack_a<HD_BM / 8>(pa, pm);
    hd_wgmma_fence();
    hd_wg_ab<HD_DV, HD_BM>(&dv[0][0], pa, sdo); /* dV += (s·P)ᵀ·dO */
    hd_wgmma_commit();
    hd_wgmma_wait_<1>(); /* dPᵀ (dV may still run) */
    hd_acc_fence<HD_BM / 2>(&dp[0][0]);
#pragma unroll
    for (int ni = 0; ni < HD_BM / 8; ni++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            int il = ni * 8 + (lane & 3) * 2 + (e & 1), i = m0 + il, j = j0 + (lane >> 2) + (e >> 1) * 8;
            float p = s[ni][e], ds = p * (dp[ni][e] * c.ms - sd[il]);
            hd_dbias_put(c, i, j, p == 0.0f && hd_masked(c, i, j) ? HD_NEG_INF : 0.0f, ds, hd_ws, HD_ARGS);
            dp[ni][e] = ds;
        }
    hd_pack_a<HD_BM / 8>(da, dp);
    hd_wgmma_fence();
    hd_wg_ab<HD_D, HD_BM>(&dk[0][0], da, sq_); /* dK += dSᵀ·Q */
    hd_wgmma_commit();
#if HD_DQ_BULK /* while dK runs */
    hd_dq_bulk(da, sds, sk, sdq, hd_dq_tile(c.b, c.h, m0, hd_ws), it, warp, lane);
#else
    (void)sds, (void)sdq, (void)it;
#endif
    hd_wgmma_wait0();
    hd_acc_fence<HD_DV / 2>(&dv[0][0]);
    hd_acc_fence<HD_D / 2>(&dk[0][0]);
}
#endif

/* One query tile (rows from m0 of the head of c, in stage st; its lse2 and Dn at sl) against the
 * warp's 16 keys from j0: dV and dK accumulate (and dQ with HD_ATOMIC). */
HD_DEVICE void hd_kv_tile(float (*dk)[4], float (*dv)[4], const hd_bwd_ctx &c, hd_u32 sk, hd_u32 sv,
                          hd_u32 st, const float *sl, hd_u32 sds, hd_u32 sdq, int it, int j0, int m0, int warp,
                          int lane, void *hd_ws, HD_PARAMS)
{
    const hd_u32 sq_ = st, sdo = st + HD_QT_BYTES;
    const float *sd = sl + HD_BM;
    float s[HD_BM / 8][4], dp[HD_BM / 8][4];
#if HD_SM90
    hd_kv_scores_wg(s, dp, sk, sv, sq_, sdo, warp);
#else
    hd_zero<HD_BM / 8>(s);
    hd_zero<HD_BM / 8>(dp);
    hd_mm_nt<HD_BM / 8, HD_D16 / 16>(s, sk, warp * 16, HD_DP / 8, sq_, HD_DP / 8, lane);    /* Sᵀ = K·Qᵀ */
    hd_mm_nt<HD_BM / 8, HD_DV16 / 16>(dp, sv, warp * 16, HD_DVP / 8, sdo, HD_DVP / 8, lane); /* dPᵀ = V·dOᵀ */
#endif
    const bool cut = hd_block_cut(c, m0, HD_BM, j0, 16);
#pragma unroll
    for (int ni = 0; ni < HD_BM / 8; ni++)
#pragma unroll
        for (int e = 0; e < 4; e++) { /* Sᵀ element: key row lane/4 (+8), query column 2(lane%4) (+1) */
            int il = ni * 8 + (lane & 3) * 2 + (e & 1), i = m0 + il;
            int j = j0 + (lane >> 2) + (e >> 1) * 8;
            float x = hd_score2(c, s[ni][e], i, j, cut, HD_ARGS), pm, ds;
            hd_grad(c, x, dp[ni][e], sl[il], sd[il], i, j, pm, ds, HD_ARGS);
            hd_dbias_put(c, i, j, x, ds, hd_ws, HD_ARGS);
            s[ni][e] = pm, dp[ni][e] = ds;
        }
#if HD_SM90
    hd_kv_grads_wg(dk, dv, s, dp, sq_, sdo);
#else
    hd_mm_cb<HD_NDV, HD_BM / 8>(dv, s, sdo, HD_DVP / 8, lane); /* dV += (s·M∘P)ᵀ·dO */
    hd_mm_cb<HD_ND, HD_BM / 8>(dk, dp, sq_, HD_DP / 8, lane);  /* dK += dSᵀ·Q */
#endif
#if HD_DQ_BULK
    hd_u32 da[HD_BM / 16][4];
    hd_pack_a<HD_BM / 8>(da, dp);
    hd_dq_bulk(da, sds, sk, sdq, hd_dq_tile(c.b, c.h, m0, hd_ws), it, warp, lane);
#elif HD_ATOMIC
    (void)sdq, (void)it;
#pragma unroll
    for (int ni = 0; ni < HD_BM / 8; ni++)
#pragma unroll
        for (int r = 0; r < 2; r++) { /* dSᵀ [key][query]: key 16·warp + lane/4 + 8r, queries 8·ni + 2(lane%4) */
            int row = warp * 16 + (lane >> 2) + r * 8;
            hd_u32 v = hd_pack2(dp[ni][2 * r], dp[ni][2 * r + 1]);
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(sds + hd_swz(row, ni, HD_BM / 8) + (lane & 3) * 4), "r"(v) : "memory");
        }
    __syncthreads(); /* every warp's keys of dSᵀ */
    hd_dq_atomic(sds, sk, c.b, c.h, m0, warp, lane, hd_ws);
#else
    (void)sds, (void)sdq, (void)it, (void)hd_ws;
#endif
}

/* Tile it of a kv block's walk (the group's query heads, each over the query tiles from mt0 the
 * band lets see the block's keys): its query head and first row. */
HD_DEVICE void hd_kv_walk(int it, int hk, int mt0, int n_mt, int &h, int &m0)
{
    h = hk * (HD_HQ / HD_HK) + it / n_mt, m0 = (mt0 + it % n_mt) * HD_BM;
}

/* Tile it of the walk, in stage st (its lse2 and Dn at sl), against the warp's 16 keys from n0 +
 * 16·warp: dV and dK accumulate (and dQ with HD_ATOMIC). */
HD_DEVICE void hd_kv_step(float (*dk)[4], float (*dv)[4], const hd_bwd_ctx &c, int h, int m0, hd_u32 sk, hd_u32 sv,
                          hd_u32 st, const float *sl, hd_u32 sds, hd_u32 sdq, int it, int n0, int warp, int lane,
                          void *hd_ws, HD_PARAMS)
{
    hd_bwd_ctx ch = c; /* this query head's slope and dropout numbering */
    ch.h = h;
#if HD_ALIBI
    ch.slope2 = hd_alibi_slope(h) * HD_LOG2E;
#endif
#if HD_OVERLAP
    hd_kv_tile_overlap(dk, dv, ch, sk, sv, st, sl, sds, sdq, it, n0 + warp * 16, m0, warp, lane, hd_ws, HD_ARGS);
#else
    hd_kv_tile(dk, dv, ch, sk, sv, st, sl, sds, sdq, it, n0 + warp * 16, m0, warp, lane, hd_ws, HD_ARGS);
#endif
}

#if HD_LOADER
/* The loading warpgroup: tile it of the walk into stage it % HD_STAGES once the computing warps
 * released it (`empty`: one arrival a computing warp); `full` completes when all 128 threads'
 * copies of the tile have landed and been fenced for the tensor cores. A tile is announced once
 * the next one is issued, so one tile is always in flight. */
HD_DEVICE void hd_kv_load_role(hd_u32 s0, hd_u32 full, hd_u32 empty, int b, int hk, int mt0, int n_mt, int n_it,
                               int sq, int ltid, void *hd_ws, HD_PARAMS)
{
    for (int it = 0; it < n_it; it++) {
        const int st = it % HD_STAGES;
        int h, m0;
        hd_kv_walk(it, hk, mt0, n_mt, h, m0);
        hd_mbar_wait(empty + st * 8, ((it / HD_STAGES) & 1) ^ 1); /* a fresh barrier passes parity 1 */
        hd_kv_load_stage(s0 + st * HD_STAGE_BYTES, b, h, m0, sq, ltid, 128, hd_ws, HD_ARGS);
        hd_cp_commit();
        if (it > 0) {
            hd_cp_wait<1>();
            hd_async_fence();
            hd_mbar_arrive(full + ((it - 1) % HD_STAGES) * 8);
        }
    }
    if (n_it > 0) {
        hd_cp_wait<0>();
        hd_async_fence();
        hd_mbar_arrive(full + ((n_it - 1) % HD_STAGES) * 8);
    }
}
#endif

HD_GLOBAL __launch_bounds__(HD_LTHREADS + HD_THREADS, 1) void hd_sdpa_bwd_kv(HD_PARAMS, void *hd_ws)
{
    extern __shared__ __align__(128) unsigned char hd_smem[];
    /* computing threads 0 .. HD_THREADS - 1 (after the loading warpgroup with HD_LOADER) */
    const int tid = (int)threadIdx.x - HD_LTHREADS, warp = tid >> 5, lane = threadIdx.x & 31;
    const int b = blockIdx.z, hk = blockIdx.y, n0 = blockIdx.x * HD_BN, group = HD_HQ / HD_HK;
    const hd_u32 raw = hd_smem_addr(hd_smem), base = (raw + HD_ALIGN - 1) & ~(hd_u32)(HD_ALIGN - 1);
    unsigned char *gbase = hd_smem + (base - raw);
    const hd_u32 sk = base, sv = sk + HD_K_BYTES, s0 = sv + HD_V_BYTES;
    const hd_u32 sds = s0 + HD_STAGES * HD_STAGE_BYTES, sdq = sds + HD_DS_BYTES;
    hd_bwd_ctx c;
    hd_ctx_init(c, b, hk * group, HD_ARGS);
    int lo, hi;
    hd_rows_of_keys(c, n0, min(n0 + HD_BN, c.skv), lo, hi);
    const int mt0 = lo / HD_BM, n_mt = hi > lo ? (hi + HD_BM - 1) / HD_BM - mt0 : 0, n_it = group * n_mt;
    if (tid >= 0) { /* K and V rows of the block (query head hk·group maps to K/V head hk) */
        auto ko = [&](int j) { return hd_k_off(b, hk * group, j, HD_ARGS); };
        auto vo = [&](int j) { return hd_v_off(b, hk * group, j, HD_ARGS); };
        hd_load_rows<HD_BN, HD_D, HD_DP / 8>(sk, HD_K_PTR, n0, c.skv, ko, tid);
        hd_load_rows<HD_BN, HD_DV, HD_DVP / 8>(sv, HD_V_PTR, n0, c.skv, vo, tid);
    }
    float dk[HD_ND][4], dv[HD_NDV][4];
#if HD_LOADER
    const hd_u32 full = sdq + HD_DQS_BYTES, empty = full + HD_STAGES * 8;
    if (threadIdx.x == 0) {
        for (int st = 0; st < HD_STAGES; st++) {
            hd_mbar_init(full + st * 8, 128);
            hd_mbar_init(empty + st * 8, HD_WARPS);
        }
        hd_mbar_init_fence();
    }
    hd_cp_commit();
    hd_cp_wait<0>();
    hd_landed();
    __syncthreads(); /* K, V in shared memory; the barriers set up */
    if (tid < 0) { /* one branch per role: setmaxnreg moves registers to the computing warps */
        hd_setmaxnreg_dec<40>();
        hd_kv_load_role(s0, full, empty, b, hk, mt0, n_mt, n_it, c.sq, (int)threadIdx.x, hd_ws, HD_ARGS);
        return;
    }
    hd_setmaxnreg_inc<232>();
    hd_zero<HD_ND>(dk);
    hd_zero<HD_NDV>(dv);
    for (int it = 0; it < n_it; it++) {
        const int stage = it % HD_STAGES;
        int h, m0;
        hd_kv_walk(it, hk, mt0, n_mt, h, m0);
        hd_mbar_wait(full + stage * 8, (it / HD_STAGES) & 1);
        const hd_u32 st = s0 + stage * HD_STAGE_BYTES;
        const float *sl = (const float *)(gbase + (st - base) + HD_QT_BYTES + HD_OT_BYTES);
        hd_kv_step(dk, dv, c, h, m0, sk, sv, st, sl, sds, sdq, it, n0, warp, lane, hd_ws, HD_ARGS);
        __syncwarp();
        if (lane == 0)
            hd_mbar_arrive(empty + stage * 8); /* the warp has read the stage */
    }
#else
    hd_zero<HD_ND>(dk);
    hd_zero<HD_NDV>(dv);
    if (HD_STAGES > 1 && n_it > 0)
        hd_kv_load_stage(s0, b, hk * group, mt0 * HD_BM, c.sq, tid, HD_THREADS, hd_ws, HD_ARGS);
    hd_cp_commit(); /* K, V (and the first tile) */
    for (int it = 0; it < n_it; it++) {
        const int stage = it % HD_STAGES;
        int h, m0;
        hd_kv_walk(it, hk, mt0, n_mt, h, m0);
        if (HD_STAGES == 1) {
            hd_kv_load_stage(s0, b, h, m0, c.sq, tid, HD_THREADS, hd_ws, HD_ARGS);
            hd_cp_commit();
        }
        hd_cp_wait<0>();
        hd_landed();
        __syncthreads(); /* tile it is in shared memory; the stage of tile it - 1 is free */
        if (HD_STAGES > 1 && it + 1 < n_it) {
            int h1, m1;
            hd_kv_walk(it + 1, hk, mt0, n_mt, h1, m1);
            hd_kv_load_stage(s0 + ((it + 1) % HD_STAGES) * HD_STAGE_BYTES, b, h1, m1, c.sq, tid, HD_THREADS, hd_ws,
                             HD_ARGS);
            hd_cp_commit();
        }
        const hd_u32 st = s0 + stage * HD_STAGE_BYTES;
        const float *sl = (const float *)(gbase + (st - base) + HD_QT_BYTES + HD_OT_BYTES);
        hd_kv_step(dk, dv, c, h, m0, sk, sv, st, sl, sds, sdq, it, n0, warp, lane, hd_ws, HD_ARGS);
        if (HD_STAGES == 1)
            __syncthreads(); /* before the next tile overwrites the stage */
    }
    hd_cp_wait<0>();
#endif
#if HD_DQ_BULK
    if ((tid & 127) == 0)
        hd_bulk_wait<0>(); /* the last adds, before the block's shared memory goes */
#endif
    const int j0 = n0 + warp * 16;
    auto dko = [&](int j) { return hd_dk_off(b, hk, j, HD_ARGS); };
    auto dvo = [&](int j) { return hd_dv_off(b, hk, j, HD_ARGS); };
    hd_store_rows<HD_DK_DT, HD_ND>(HD_DK_PTR, dk, hd_scale(HD_ARGS), j0, HD_SKV, HD_D, dko, lane);
    hd_store_rows<HD_DV_DT, HD_NDV>(HD_DV_PTR, dv, 1.0f, j0, HD_SKV, HD_DV, dvo, lane);
}

/* ---- launch 3: dQ ----------------------------------------------------------------------------------- */

#if HD_DQ_BULK
/* One thread a float4 of a head's accumulator (hd_dq_bulk's fragment order): dQ rows i, i + 8,
 * columns c, c + 1 of one thread's fragment n, scaled and rounded to dQ's type. */
HD_GLOBAL __launch_bounds__(256) void hd_sdpa_bwd_dq_convert(HD_PARAMS, void *hd_ws)
{
    const int b = blockIdx.z, h = blockIdx.y, q = blockIdx.x * 256 + threadIdx.x;
    if (q >= HD_DQ_ROWS * HD_D / 4)
        return;
    const float4 v = ((const float4 *)hd_dq_tile(b, h, 0, hd_ws))[q];
    const int tile = q / (HD_BM * HD_D / 4), g = q / 1024 % 2, n = q / 128 % 8, t = q % 128;
    const int row = tile * HD_BM + (HD_BM == 128 ? 64 * g : 0) + (t >> 5) * 16 + (t & 31) / 4;
    const int col = (HD_BM == 64 ? 64 * g : 0) + n * 8 + (t & 3) * 2;
    const float scale = hd_scale(HD_ARGS), x[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int r = 0; r < 2; r++)
        if (row + 8 * r < HD_SQ) {
            const hd_i64 o = hd_dq_off(b, h, row + 8 * r, HD_ARGS) + col;
            hd_st<HD_DQ_DT>(HD_DQ_PTR, o, x[2 * r] * scale);
            hd_st<HD_DQ_DT>(HD_DQ_PTR, o + 1, x[2 * r + 1] * scale);
        }
}
#elif HD_ATOMIC
HD_GLOBAL __launch_bounds__(256) void hd_sdpa_bwd_dq_convert(HD_PARAMS, void *hd_ws)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int b = blockIdx.z, h = blockIdx.y, i = blockIdx.x * 8 + warp;
    if (i >= HD_SQ)
        return;
    const float *acc = (const float *)hd_ws + 2 * (hd_i64)HD_B * HD_HQ * HD_SQP + (((hd_i64)b * HD_HQ + h) * HD_DQ_ROWS + i) * HD_D;
    const hd_i64 o = hd_dq_off(b, h, i, HD_ARGS);
    const float scale = hd_scale(HD_ARGS);
    for (int c = lane; c < HD_D; c += 32)
        hd_st<HD_DQ_DT>(HD_DQ_PTR, o + c, acc[c] * scale);
}
#else
/* Keys [t·QBN, +QBN) of K and V into one stage. */
HD_DEVICE void hd_dq_load_kv(hd_u32 st, int b, int h, int t, int skv, int tid, HD_PARAMS)
{
    auto ko = [&](int j) { return hd_k_off(b, h, j, HD_ARGS); };
    auto vo = [&](int j) { return hd_v_off(b, h, j, HD_ARGS); };
    hd_load_rows<HD_QBN, HD_D, HD_DP / 8>(st, HD_K_PTR, t * HD_QBN, skv, ko, tid);
    hd_load_rows<HD_QBN, HD_DV, HD_DVP / 8>(st + HD_QK_BYTES, HD_V_PTR, t * HD_QBN, skv, vo, tid);
}

HD_GLOBAL __launch_bounds__(HD_THREADS, 1) void hd_sdpa_bwd_dq(HD_PARAMS, void *hd_ws)
{
    extern __shared__ __align__(128) unsigned char hd_smem[];
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    /* the last query tiles first: under a causal band they see the most keys (the longest blocks
     * start early, the short ones fill the tail) */
    const int b = blockIdx.z, h = blockIdx.y, m0 = ((int)gridDim.x - 1 - (int)blockIdx.x) * HD_QBM;
    const hd_u32 base = (hd_smem_addr(hd_smem) + HD_ALIGN - 1) & ~(hd_u32)(HD_ALIGN - 1);
    const hd_u32 sq_ = base, sdo = sq_ + HD_QBM * HD_DP * 2, s0 = sdo + HD_QBM * HD_DVP * 2;
    const hd_u32 stage_bytes = HD_QK_BYTES + HD_QV_BYTES;
    hd_bwd_ctx c;
    hd_ctx_init(c, b, h, HD_ARGS);
    /* keys [j_lo, j_hi) some row of the block may see */
    int i_lo = m0, i_hi = min(m0 + HD_QBM, c.sq) - 1, j_lo = 0, j_hi = c.skv;
#if HD_HAS_RIGHT
    j_hi = min(j_hi, i_hi + c.shift + HD_RIGHT + 1);
#endif
#if HD_HAS_LEFT
    j_lo = max(j_lo, i_lo + c.shift - HD_LEFT + 1);
#endif
    const int t_lo = j_lo / HD_QBN, t_hi = i_hi < i_lo || j_hi <= j_lo ? t_lo : (j_hi + HD_QBN - 1) / HD_QBN;
    auto qo = [&](int i) { return hd_q_off(b, h, i, HD_ARGS); };
    auto doo = [&](int i) { return hd_do_off(b, h, i, HD_ARGS); };
    hd_load_rows<HD_QBM, HD_D, HD_DP / 8>(sq_, HD_Q_PTR, m0, c.sq, qo, tid);
    hd_load_rows<HD_QBM, HD_DV, HD_DVP / 8>(sdo, HD_DO_PTR, m0, c.sq, doo, tid);
    if (HD_QSTAGES > 1 && t_lo < t_hi)
        hd_dq_load_kv(s0, b, h, t_lo, c.skv, tid, HD_ARGS);
    hd_cp_commit(); /* Q, dO (and the first tile) */
    float lse2[2], dn[2]; /* the thread's two rows */
    {
        const float *l = (const float *)hd_ws, *d = l + (hd_i64)HD_B * HD_HQ * HD_SQP;
        const hd_i64 row = ((hd_i64)b * HD_HQ + h) * HD_SQP;
#pragma unroll
        for (int r = 0; r < 2; r++) {
            int i = m0 + warp * 16 + (lane >> 2) + r * 8;
            lse2[r] = i < HD_SQP ? l[row + i] : HD_POS_INF;
            dn[r] = i < HD_SQP ? d[row + i] : 0.0f;
        }
    }
    float dq[HD_ND][4];
    hd_zero<HD_ND>(dq);
    for (int t = t_lo; t < t_hi; t++) {
        const hd_u32 st = s0 + ((t - t_lo) % HD_QSTAGES) * stage_bytes;
        if (HD_QSTAGES == 1) {
            hd_dq_load_kv(st, b, h, t, c.skv, tid, HD_ARGS);
            hd_cp_commit();
        }
        hd_cp_wait<0>();
        hd_landed();
        __syncthreads(); /* tile t is in shared memory; the stage of tile t - 1 is free */
        if (HD_QSTAGES > 1 && t + 1 < t_hi) {
            hd_dq_load_kv(s0 + ((t + 1 - t_lo) % HD_QSTAGES) * stage_bytes, b, h, t + 1, c.skv, tid, HD_ARGS);
            hd_cp_commit();
        }
        const hd_u32 sk = st, sv = st + HD_QK_BYTES;
        float s[HD_QBN / 8][4], dp[HD_QBN / 8][4];
        const bool cut = hd_block_cut(c, m0 + warp * 16, 16, t * HD_QBN, HD_QBN);
#if HD_OVERLAP /* P = exp2(x − lse2) while dP = dO·Vᵀ runs; no dropout: M·s is the constant s */
        hd_dq_scores_issue(s, dp, sq_, sdo, sk, sv, warp);
        hd_wgmma_wait_<1>();
        hd_acc_fence<HD_QBN / 2>(&s[0][0]);
#pragma unroll
        for (int ni = 0; ni < HD_QBN / 8; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) { /* as below */
                int i = m0 + warp * 16 + (lane >> 2) + (e >> 1) * 8, j = t * HD_QBN + ni * 8 + (lane & 3) * 2 + (e & 1);
                s[ni][e] = hd_exp2(hd_score2(c, s[ni][e], i, j, cut, HD_ARGS) - lse2[e >> 1]);
            }
        hd_wgmma_wait0();
        hd_acc_fence<HD_QBN / 2>(&dp[0][0]);
#pragma unroll
        for (int ni = 0; ni < HD_QBN / 8; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                dp[ni][e] = s[ni][e] * (dp[ni][e] * c.ms - dn[e >> 1]);
#else
#if HD_SM90
        hd_dq_scores_wg(s, dp, sq_, sdo, sk, sv, warp);
#else
        hd_zero<HD_QBN / 8>(s);
        hd_zero<HD_QBN / 8>(dp);
        hd_mm_nt<HD_QBN / 8, HD_D16 / 16>(s, sq_, warp * 16, HD_DP / 8, sk, HD_DP / 8, lane);     /* S = Q·Kᵀ */
        hd_mm_nt<HD_QBN / 8, HD_DV16 / 16>(dp, sdo, warp * 16, HD_DVP / 8, sv, HD_DVP / 8, lane); /* dP = dO·Vᵀ */
#endif
#pragma unroll
        for (int ni = 0; ni < HD_QBN / 8; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) { /* S element: row lane/4 (+8), key 2(lane%4) (+1) */
                int i = m0 + warp * 16 + (lane >> 2) + (e >> 1) * 8;
                int j = t * HD_QBN + ni * 8 + (lane & 3) * 2 + (e & 1);
                float x = hd_score2(c, s[ni][e], i, j, cut, HD_ARGS), pm, ds;
                hd_grad(c, x, dp[ni][e], lse2[e >> 1], dn[e >> 1], i, j, pm, ds, HD_ARGS);
                dp[ni][e] = ds;
            }
#endif
#if HD_SM90
        hd_dq_grad_wg(dq, dp, sk);
#else
        hd_mm_cb<HD_ND, HD_QBN / 8>(dq, dp, sk, HD_DP / 8, lane); /* dQ += dS·K */
#endif
        if (HD_QSTAGES == 1)
            __syncthreads(); /* before the next tile overwrites the stage */
    }
    hd_cp_wait<0>();
    auto dqo = [&](int i) { return hd_dq_off(b, h, i, HD_ARGS); };
    hd_store_rows<HD_DQ_DT, HD_ND>(HD_DQ_PTR, dq, hd_scale(HD_ARGS), m0 + warp * 16, HD_SQ, HD_D, dqo, lane);
}
#endif

/* ---- launch 4 (HD_DBIAS 2): the broadcast dBias ------------------------------------------------------ */

#if HD_DBIAS == 2
HD_GLOBAL __launch_bounds__(256) void hd_sdpa_bwd_dbias_convert(HD_PARAMS, void *hd_ws)
{
    const hd_i64 n = (hd_i64)blockIdx.x * 256 + threadIdx.x;
    if (n >= (hd_i64)HD_DBB * HD_DBH * HD_DBI * HD_DBJ)
        return;
    const int j = (int)(n % HD_DBJ), i = (int)(n / HD_DBJ % HD_DBI);
    const int h = (int)(n / ((hd_i64)HD_DBJ * HD_DBI) % HD_DBH), b = (int)(n / ((hd_i64)HD_DBJ * HD_DBI * HD_DBH));
    hd_dbias_st(b, h, i, j, hd_dbacc(hd_ws)[n], HD_ARGS);
}
#endif
