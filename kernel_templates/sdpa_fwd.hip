/* sdpa_fwd.hip — scaled dot-product attention forward, FlashAttention-2 style, on the tensor
 * cores (mma.sync m16n8k16, bf16 or fp16 operands, fp32 accumulate):
 *     O[b,h,i,:] = softmax_j(S_ij) · V[b,hv,j,:],  S_ij = scale · Q[b,h,i,:]·K[b,hk,j,:]
 *                  (+ bias, + ALiBi, −inf where masked), optional dropout on P,
 * with the per-row logsumexp (Stats), max and sum of exponentials when the graph asks for them.
 * No S x S matrix touches memory.
 *
 * One block owns HD_BM query rows of one (batch, head) (grid x: query tiles, y: Hq, z: B); its
 * HD_WARPS warps own HD_MW m16 row tiles each. The Q tile is copied to shared memory once; K and
 * V tiles of HD_BN keys stream through HD_STAGES shared-memory stages (cp.async, zero fill past
 * the valid rows and head dims) while the tensor cores work on the oldest one. Per K/V tile:
 *   S = Q·Kᵀ        ldmatrix Q (A, row) and K (B, "col": K rows are [key][d], d contiguous)
 *   online softmax  in the log2 domain: x = S·scale·log2(e) (+ bias·log2 e, + ALiBi), running
 *                   row max m and sum l; exp2 through ex2.approx; O rescaled by exp2(m_old − m)
 *   O += P·V        P converted in registers (the m16n8 C fragments of two key octets are the
 *                   m16k16 A fragment), V through ldmatrix.trans ([key][dv], dv contiguous)
 * Only tiles that a mask cuts evaluate the mask per element; the band and the padding bound
 * the range of K/V tiles a block visits. A row that no key survives keeps m = −inf, l = 0 and
 * gets O = 0, Stats = Max = −inf, Sum_exp = 0 (never NaN). Query tiles are issued last-first
 * so that the longest (causal) blocks start first.
 * Shared memory rows are HD_DP (HD_DVP) elements, multiples of 64, 16-byte chunk c of row r
 * stored at chunk c ^ (r % 8): ldmatrix and cp.async are free of bank conflicts.
 * The kernel is three parts: the block's setup (coordinates, lengths, key range), the main loop
 * (loads + the two products + softmax) and the epilogue (hd_attn_finish: O, statistics,
 * RNG_DUMP). Every main loop leaves the same per-row state (hd_attn_acc: m, l in the log2
 * domain, unnormalised O in the m16n8 C-fragment layout) and shares the loads, the masks and the
 * softmax (hd_softmax). The main loops:
 *   mma.sync (HD_SM90 0; sm_80+, any head dim): as above, sequential per tile.
 *   wgmma (HD_SM90 1; sm_90a, head dims 64 / 128 / 192 / 256): one warpgroup per 64 query rows; Q·Kᵀ reads
 *       Q and K from shared memory, P·V takes P from registers (the mma.sync A fragment is the
 *       layout wgmma takes for A) and V N-major; tiles in the 128-byte-swizzle layout of the
 *       wgmma descriptors ([rows][64] column blocks), written by cp.async and fenced for the
 *       async proxy. Two stages: sequential per tile; three or more: tile t's softmax overlaps
 *       tile t+1's Q·Kᵀ.
 *   warp-specialized wgmma (HD_WS 1): warpgroup 0 only loads (mbarriers full / empty per stage,
 *       setmaxnreg), the others compute with no block-wide barrier per tile.
 *   TMA producer (HD_WS 2): one thread of the last warp copies whole K/V tiles with the
 *       tensor-copy engine (hd_tma_produce: boxes of 64 columns, dense rows or pages, `full`
 *       completes on their bytes); the computing warpgroups as with HD_WS 1, optionally taking
 *       turns issuing their products (HD_PINGPONG) and in FlashAttention-3's order (HD_INTRA:
 *       Q·Kᵀ of tile t issued with P·V of tile t - 1, tile t's softmax under P·V, O rescaled
 *       once P·V landed). With HD_TMA_WG the producer is a whole warpgroup (warpgroup 0) that
 *       gives its registers away (setmaxnreg 40 / 232): nine warps cap every thread at 168
 *       registers (three warps share a scheduler's quarter of the register file), twelve with
 *       setmaxnreg do not. HD_PERSIST: a persistent grid; each block walks work tiles in static
 *       rounds (hd_work_at: one work item a block a round, an item the longest and the shortest
 *       row tile of one head, so causal items cost alike; heads in groups of HD_L2_HEADS), its K/V
 *       pipeline carried across them, and the producer copies each work tile's Q (tensor map
 *       hd_map_q) into one of HD_QBUF buffers once the computing warps released it (each buffer's
 *       own full / empty mbarriers): with two, the next tile's Q lands under this one's loop and
 *       epilogue, which stages O in this one's buffer; with one (HD_Q_EARLY) Q goes back after
 *       the last Q·Kᵀ and O is staged in the last tile's K slot; HD_DYN takes the work tiles from
 *       a counter. The computing warps' walk exits on hd_warp_uniform values, so the compiler keeps
 *       the carried stage and buffer indices (and so the wgmma descriptors) uniform.
 * bench/NOTES.md says which is fastest where (the default on sm_90: the TMA producer, three
 * stages, for two computing warpgroups as a warpgroup with HD_PINGPONG and HD_INTRA and O stored
 * through shared memory by TMA (HD_O_TMA), on the persistent grid at head dim 128 and under a
 * causal mask; the computing warps' own copies for dense K/V on the decode path). The softmax is compiled twice, with and without the per-element masks
 * (hd_softmax_p_<CUT>): only the tiles a mask cuts pay for them.
 * Decode (short queries, long keys): HD_PACK query heads that share a K/V head fill one
 * block's rows (packed row p is query row p / HD_PACK of head h0 + p % HD_PACK: GQA 32:8 at
 * Sq = 16 is one 64-row tile that reads its K/V once), and HD_SPLIT blocks share each row's keys
 * (flash-decoding): each writes its unnormalised O and (m, l) to the scratch, and a second
 * launch, hd_sdpa_combine_kernel, merges them into O and the statistics (launched dependent:
 * it starts as the splits reach their epilogues and waits in hd_grid_wait for their writes).
 * With HD_KSPLIT (decode blocks of at most 16 packed rows, mma.sync) the block's warps share its
 * one m16 row tile and split each K/V tile's keys; hd_ksplit_merge merges their states at the end.
 *
 * Contract
 *   holes   HD_DT                       HD_DT_BFLOAT16 or HD_DT_HALF (Q, K, V alike)
 *           HD_O_DT                     O's type (any type hd_st stores)
 *           HD_B, HD_HQ, HD_SQ, HD_SKV  sizes (Skv: the dense or paged key count)
 *           HD_D, HD_DV                 head dims of Q/K and of V/O: multiples of 8, <= 256
 *           HD_BM, HD_BN, HD_WARPS, HD_STAGES   tile rows (HD_CWARPS·16·HD_MW), tile keys (16..128,
 *                                       multiple of 16; wgmma 64 or 128), warps (4, 8; + 4 with
 *                                       HD_WS 1, + 1 with HD_WS 2), K/V stages (2 .. 4)
 *           HD_SM90, HD_WS, HD_OVERLAP  the main loop (above; HD_OVERLAP: the overlapped wgmma loop)
 *           HD_PINGPONG                 with HD_WS and two computing warpgroups: they take turns
 *                                       issuing Q·Kᵀ (named barriers 2 and 3)
 *           HD_INTRA                    with HD_WS: Q·Kᵀ of tile t issued with P·V of tile t - 1, tile t's
 *                                       softmax under P·V (FlashAttention-3's order; with HD_PINGPONG
 *                                       the warpgroups take turns issuing the pair)
 *           HD_O_PAIR                   1 when every hd_o_off is even and O is 16-bit: two columns
 *                                       stored as one 32-bit word (tensors are 16-byte aligned)
 *           HD_SW_EXP                   1: half the softmax's exponentials by hd_exp2_poly (FMA pipes), the
 *                                       others on the special-function unit, which a tanh per score
 *                                       (softcap) already keeps busy
 *           HD_O_TMA                    O through shared memory and TMA stores (HD_WS 2, HD_SM90, HD_PACK 1,
 *                                       HD_SPLIT 1, O of Q's 16-bit type, HD_DVP <= HD_DP): each computing
 *                                       warpgroup writes its rows of O over its own rows of Q's buffer;
 *                                       kernel parameter hd_map_o after the others: O's tensor map, dims
 *                                       (DV, H, S, B), boxes of 64 columns x 64 rows
 *           HD_L2_AHEAD                 > 0 (one block a work tile, HD_WS 2, HD_PACK 1, HD_SPLIT 1): the producer
 *                                       prefetches into L2 the Q tile and first K/V tile of the block
 *                                       HD_L2_AHEAD blocks on (about the one that takes this multiprocessor
 *                                       next); kernel parameter hd_map_q as with HD_PERSIST
 *           HD_PERSIST, HD_L2_HEADS     the persistent grid (HD_WS 2, HD_PACK 1, HD_SPLIT 1, no RNG_DUMP;
 *                                       kernel parameter hd_map_q after hd_map_v: Q's tensor map, dims
 *                                       (D, H, S, B), boxes of 64 columns x HD_BM rows) and its head groups
 *           HD_QBUF                     Q's buffers (1; 2 with HD_PERSIST)
 *           HD_DYN                      1 (HD_PERSIST, HD_SPLIT 1): work tiles from a counter (hd_tile_take);
 *                                       kernel parameter `unsigned *hd_tiles` last (CG_ARG_COUNTER)
 *           HD_TRACE                    1 (HD_WS 2; a developer's aid, jit.sdpa_trace): the phase trace,
 *                                       printed by the blocks on multiprocessors 0 and 1 (hd_tr_print)
 *           HD_KSPLIT                   1, or HD_WARPS (4; mma.sync, no loaders, HD_BM 16): the warps share the
 *                                       rows and split each tile's keys, HD_BN / HD_KSPLIT (16 or more) each
 *           HD_KV_AHEAD                 0, or 1 .. 4 (the sequential cp.async loop only; for paged K/V;
 *                                       more than 1 with HD_TILE_PAGE): a tile's page-table entries
 *                                       loaded that many tiles before its copies
 *           HD_TILE_PAGE                0, or 1 (paged K/V copied by threads, pages a multiple of HD_BN
 *                                       rows): one page-table entry a tile and operand, the tile's
 *                                       first row's, for every row it copies
 *           HD_PACK, HD_SPLIT           query heads packed per block (1, or Hq / Hk with K and V
 *                                       grouped alike; not with ALiBi or RNG_DUMP) and key splits
 *                                       (1, or more: the kernels take the scratch `hd_ws` last;
 *                                       not with RNG_DUMP)
 *           HD_BOX_ROWS + hd_k_at / hd_v_at(b,h,j, c1,c2,c3, ..)   HD_WS 2: rows of one TMA box and the
 *                                       coordinates of key j's row in the K / V tensor maps
 *                                       (kernel parameters hd_map_k, hd_map_v: dims (D, H, S, B))
 *           HD_TMA_WG                   HD_WS 2: the producer is warpgroup 0 (setmaxnreg), not the last warp
 *           HD_MIN_BLOCKS               blocks a multiprocessor must hold (launch bounds; 1 with HD_WS 1)
 *           hd_q_off(b,h,i,..), hd_k_off(b,h,j,..), hd_v_off(b,h,j,..), hd_o_off(b,h,i,..): offset of
 *                                       row i / j (h: the query head; the hook maps it to the K/V
 *                                       head, and a paged hook reads the page table); multiples
 *                                       of 8 elements
 *           HD_PAGED, hd_k_page(b,j,..), hd_k_row(pg,b,h,j,..) (and V's): paged K/V (1) splits
 *                                       hd_k_off into the page-table load and the offset from
 *                                       its entry pg (dense: the template's, no load)
 *           HD_Q_PTR, HD_K_PTR, HD_V_PTR, HD_O_PTR   parameter names
 *           hd_scale(HD_PARAMS)          the attention scale
 *           hd_seq_q(b, ..), hd_seq_kv(b, ..)  valid query / key rows of batch b (HD_SQ / HD_SKV
 *                                       without length tensors)
 *           HD_HAS_RIGHT, HD_RIGHT, HD_HAS_LEFT, HD_LEFT, HD_BOTTOM_RIGHT   the diagonal band
 *                                       (op-semantics §4.4; bounds clamped to Sq + Skv + 1)
 *           HD_BIAS + hd_bias(b,h,i,j, ..)   additive bias (0: none)
 *           HD_ALIBI + hd_alibi_slope(h)     ALiBi (0: none)
 *           HD_DROPOUT + hd_drop_p, hd_drop_seed(..), hd_drop_offset(..)   Philox dropout
 *                                       (ir/ir_philox.c's rule, bit for bit; 0: none)
 *           HD_DMASK + hd_dmask(b,h,i,j, ..)  custom dropout mask (0: none)
 *           hd_drop_scale(..)            P's dropout scale: 1/(1-p), DROPOUT_SCALE, or 1
 *           HD_RNG_DUMP + hd_rng_dump(b,h,i,j,m, ..)  stores the mask used (0: no RNG_DUMP)
 *           HD_SINK + hd_sink(h, ..)     attention sink (0: none)
 *           hd_row_stats(b,h,i,m,l, ..)  stores Stats / Max / Sum_exp of a row (m natural log)
 *           HD_SCORE_MOD + hd_score_mod(s,b,h,i,j, ..)  score modifier applied to the natural-domain
 *                                       S·scale before bias, ALiBi and the masks (undefined: none);
 *                                       with HD_MOD_RAW 1 it takes the raw S and applies the scale
 *                                       itself (folded into its first constant factor), and its
 *                                       result is to be multiplied by HD_MOD_POST (a positive
 *                                       constant, 1.0f unless the chain ends in one)
 *           HD_FOLD                     1 when nothing is added to the scores and the factor after
 *                                       them is a positive constant (the scale, or with a modifier
 *                                       HD_MOD_POST): the max runs on the unscaled scores and the
 *                                       factor folds into the exponent's FMA
 *   target  sm_80 or newer (cp.async, ldmatrix, mma.sync bf16); sm_90a with HD_SM90
 *   grid    (ceil(Sq·HD_PACK / HD_BM)·HD_SPLIT, Hq / HD_PACK, B) (HD_PERSIST: (blocks, 1, 1), any
 *           number of blocks up to HD_NITEM), HD_WARPS·32 threads, HD_SMEM_BYTES
 *           dynamic shared memory; with HD_SPLIT > 1 then hd_sdpa_combine_kernel on
 *           B·Hq·Sq blocks of 128 threads, scratch B·Hq·Sq·HD_SPLIT·(HD_DV + 2) floats
 *   reference  ir_ref_sdpa_fwd (ir/ir_ref_sdpa.c)
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_DT HD_DT_BFLOAT16
#define HD_O_DT HD_DT_BFLOAT16
#define HD_B 1
#define HD_HQ 1
#define HD_SQ 1024
#define HD_SKV 1024
#define HD_D 128
#define HD_DV 128
#define HD_BM 128
#define HD_BN 64
#define HD_WARPS 4
#define HD_STAGES 2
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
#define HD_BIAS 0
#define HD_ALIBI 0
#define HD_DROPOUT 0
#define HD_DMASK 0
#define HD_RNG_DUMP 0
#define HD_SINK 0
#define HD_FOLD 1
#define HD_SM90 0
#define HD_WS 0
#define HD_OVERLAP 0
#define HD_PACK 1
#define HD_SPLIT 1
#define HD_PINGPONG 0
#define HD_INTRA 0
#define HD_O_PAIR 0
#define HD_PERSIST 0
#define HD_L2_HEADS 1
#define HD_QBUF 1
#define HD_SW_EXP 0
#define HD_O_TMA 0
#define HD_L2_AHEAD 0
HD_DEVICE hd_i64 hd_q_off(int b, int h, int i, HD_PARAMS) { return ((hd_i64)(b * HD_HQ + h) * HD_SQ + i) * HD_D; }
HD_DEVICE hd_i64 hd_k_off(int b, int h, int j, HD_PARAMS) { return ((hd_i64)(b * HD_HQ + h) * HD_SKV + j) * HD_D; }
HD_DEVICE hd_i64 hd_v_off(int b, int h, int j, HD_PARAMS) { return ((hd_i64)(b * HD_HQ + h) * HD_SKV + j) * HD_DV; }
HD_DEVICE hd_i64 hd_o_off(int b, int h, int i, HD_PARAMS) { return ((hd_i64)(b * HD_HQ + h) * HD_SQ + i) * HD_DV; }
HD_DEVICE float hd_scale(HD_PARAMS) { return 0.08838834764831845f; }
HD_DEVICE int hd_seq_q(int b, HD_PARAMS) { return HD_SQ; }
HD_DEVICE int hd_seq_kv(int b, HD_PARAMS) { return HD_SKV; }
HD_DEVICE void hd_row_stats(int b, int h, int i, float m, float l, HD_PARAMS) {}
HD_DEVICE float hd_drop_scale(HD_PARAMS) { return 1.0f; }
#endif
#ifndef HD_PAGED
#define HD_PAGED 0
#endif
#if !HD_PAGED /* dense K/V: a row's offset needs nothing from memory */
HD_DEVICE hd_i64 hd_k_page(int b, int j, HD_PARAMS) { return 0; }
HD_DEVICE hd_i64 hd_v_page(int b, int j, HD_PARAMS) { return 0; }
HD_DEVICE hd_i64 hd_k_row(hd_i64 pg, int b, int h, int j, HD_PARAMS) { return hd_k_off(b, h, j, HD_ARGS); }
HD_DEVICE hd_i64 hd_v_row(hd_i64 pg, int b, int h, int j, HD_PARAMS) { return hd_v_off(b, h, j, HD_ARGS); }
#endif
#ifndef HD_SCORE_MOD
#define HD_SCORE_MOD 0
#endif
#ifndef HD_MOD_RAW
#define HD_MOD_RAW 0
#endif
#ifndef HD_MOD_POST
#define HD_MOD_POST 1.0f
#endif

#define HD_THREADS (HD_WARPS * 32)
#ifndef HD_MIN_BLOCKS
#define HD_MIN_BLOCKS 1
#endif
/* warps that compute (HD_WS 1: the first warpgroup loads; HD_WS 2: the last warp copies by TMA) */
#ifndef HD_TMA_WG
#define HD_TMA_WG 0
#endif
/* (HD_WS 2 with HD_TMA_WG: the producer is warpgroup 0, whose one thread copies) */
#define HD_CWARPS (HD_WS == 1 || HD_TMA_WG ? HD_WARPS - 4 : HD_WS == 2 ? HD_WARPS - 1 : HD_WARPS)
#define HD_CTHREADS (HD_CWARPS * 32)
#ifndef HD_KSPLIT
#define HD_KSPLIT 1
#endif
#ifndef HD_KV_AHEAD
#define HD_KV_AHEAD 0
#endif
#ifndef HD_TILE_PAGE
#define HD_TILE_PAGE 0
#endif
#define HD_PG(g) (HD_TILE_PAGE ? 0 : (g)) /* the page entry a thread's chunk g takes */
/* m16 row tiles per computing warp: with HD_KSPLIT every warp holds all the block's rows */
#define HD_MW (HD_KSPLIT > 1 ? HD_BM / 16 : HD_BM / (16 * HD_CWARPS))
#define HD_BNW (HD_BN / HD_KSPLIT)         /* keys of a K/V tile per warp */
#define HD_D16 ((HD_D + 15) / 16 * 16)    /* head dims padded to the mma's k / n steps */
#define HD_DV16 ((HD_DV + 15) / 16 * 16)
#define HD_DP ((HD_D + 63) / 64 * 64)     /* shared-memory row lengths (8-chunk swizzle) */
#define HD_DVP ((HD_DV + 63) / 64 * 64)
#define HD_NS (HD_BNW / 8)                /* n8 tiles of S per row tile (a warp's keys) */
#define HD_MT ((HD_SQ * HD_PACK + HD_BM - 1) / HD_BM) /* row tiles of a head (group) */
#define HD_NPAIR ((HD_MT + 1) / 2)        /* HD_PERSIST: a head's row tiles in pairs */
#define HD_NITEM (HD_NPAIR * HD_B * HD_HQ) /* HD_PERSIST: work items (pairs of row tiles) */
#define HD_NO (HD_DV16 / 8)               /* n8 tiles of O per row tile */
#define HD_KS (HD_D16 / 16)               /* k16 steps of Q·Kᵀ */
#define HD_Q_REGS (HD_MW == 1 && HD_D16 <= 128) /* mma.sync: Q fragments stay in registers */
#define HD_Q_BYTES (HD_BM * HD_DP * 2)
#define HD_K_BYTES (HD_BN * HD_DP * 2)
#define HD_V_BYTES (HD_BN * HD_DVP * 2)
#ifndef HD_KSTAGES /* the warp-specialized loops' K and V rings (HD_KV_APART: their own sizes) */
#define HD_KSTAGES HD_STAGES
#define HD_VSTAGES HD_STAGES
#endif
#ifndef HD_KV_APART
#define HD_KV_APART 0
#endif
#ifndef HD_DYN
#define HD_DYN 0
#endif
#define HD_SMEM_BYTES (1024 + HD_QBUF * HD_Q_BYTES + HD_KSTAGES * HD_K_BYTES + HD_VSTAGES * HD_V_BYTES + \
                       (HD_WS ? (HD_KSTAGES + HD_VSTAGES) * 16 + HD_QBUF * 16 : 0) + (HD_DYN ? HD_QBUF * 16 : 0))
/* The persistent grid with Q in one buffer and FA3's order: each computing warp gives Q's buffer
 * back once its last Q·Kᵀ has landed, so the next work tile's Q loads under this one's last P·V
 * and epilogue; O is then staged in the last tile's K slot (once every warp's last Q·Kᵀ has read
 * it: Q's empty barrier), which goes back to the producer after the O copy has read it. Where O
 * through TMA does not fit that slot (head dim 192: 64-key tiles) Q stays until O has left through
 * its buffer, as with two buffers. */
#define HD_O_FITS_K_SLOT (!HD_KV_APART && HD_BM * HD_DVP * 2 <= HD_K_BYTES)
#define HD_Q_EARLY (HD_PERSIST && HD_QBUF == 1 && HD_INTRA && (!HD_O_TMA || HD_O_FITS_K_SLOT))
#define HD_O_IN_STAGE (HD_Q_EARLY && HD_O_TMA)
#define HD_LOG2E 1.4426950408889634f
#define HD_LN2 0.6931471805599453f
#define HD_NEG_INF (-__int_as_float(0x7f800000))

/* ---- device primitives for HD_DT: hd_tensor_nv.h (mma.sync), sdpa_common.h (operand packing) ---- */

HD_DEVICE void hd_mma(float *d, const hd_u32 *a, hd_u32 b0, hd_u32 b1) { hd_mma16<HD_DT>(d, a, b0, b1); }
HD_DEVICE hd_u32 hd_pack2(float lo, float hi) { return hd_pack2_as<HD_DT>(lo, hi); }

#if HD_SM90 /* wgmma (sm_90a): hd_tensor_nv.h's products for HD_DT */
template <int N> HD_DEVICE void hd_wgmma_ss(float *d, hd_u64 da, hd_u64 db, int acc) { hd_wgmma_ss_as<HD_DT, N>(d, da, db, acc); }
template <int N> HD_DEVICE void hd_wgmma_rs(float *d, const hd_u32 *a, hd_u64 db) { hd_wgmma_rs_as<HD_DT, N>(d, a, db); }
#endif

/* Where a load puts chunk c of row r of a tile of `rows` rows and `ch` chunks a row. mma.sync:
 * whole rows, swizzled (hd_swz). wgmma: the 128-byte-swizzle layout its descriptors read, the
 * tile cut into 64-element column blocks of [rows][64] (128-byte rows, chunk c at c ^ (r % 8)). */
HD_DEVICE hd_u32 hd_tile_off(int r, int c, int rows, int ch)
{
#if HD_SM90
    (void)ch;
    return hd_wg_off(r, c, rows);
#else
    (void)rows;
    return hd_swz(r, c, ch);
#endif
}

/* The dropout mask M of score (b, h, i, j) (i < Sq, j < Skv): Philox's keep decision, the
 * DROPOUT_MASK tensor, or 1. */
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

/* ---- the block's problem ------------------------------------------------------------------------ */

typedef struct hd_attn_blk {
    int b, h, m0;        /* batch, first query head, first (packed) row: hd_row_i / hd_row_h */
    int split;           /* the block's part of the keys (HD_SPLIT > 1) */
    void *ws;            /* HD_SPLIT > 1: the scratch of the partial results (hd_part_o) */
    int sq, skv, shift;  /* valid rows and keys of this batch; the band's diagonal shift */
    int t_lo, t_hi;      /* K/V tiles [t_lo, t_hi) hold every key a row of the block may see */
    int n0;              /* HD_WS: K/V tiles the block's pipeline passed before this work tile */
    int item;            /* HD_PERSIST: the block's work tiles before this one (Q's buffer, parity) */
    hd_u32 qbar;         /* HD_PERSIST: the `full` mbarrier of Q's buffer (its `empty` one follows) */
    float scale2;        /* scale · log2(e); with a modifier HD_MOD_POST · log2(e) */
    float slope2;        /* ALiBi slope · log2(e) */
} hd_attn_blk;

/* Per-thread state of its rows (row tile mi, half r of the m16 tile: rows +lane/4 and +8). */
typedef struct hd_attn_acc {
    float m[HD_MW][2];          /* running max of x (log2 domain), −inf until a key survives */
    float l[HD_MW][2];          /* this thread's part of Σ exp2(x − m) */
    float o[HD_MW][HD_NO][4];   /* unnormalised O, C fragments */
} hd_attn_acc;

/* Row r of the block (0 .. HD_BM - 1) is packed row p = m0 + r: query row p / HD_PACK of query
 * head h + p % HD_PACK (HD_PACK 1: row m0 + r of head h). */
HD_DEVICE int hd_row_i(const hd_attn_blk &k, int r) { return (k.m0 + r) / HD_PACK; }
HD_DEVICE int hd_row_h(const hd_attn_blk &k, int r) { return k.h + (k.m0 + r) % HD_PACK; }

/* The warp's first row tile and its first key within a K/V tile: the warps split the rows, or
 * with HD_KSPLIT share them and split each tile's keys. */
HD_DEVICE int hd_wrow(int warp) { return HD_KSPLIT > 1 ? 0 : warp * HD_MW; }
HD_DEVICE int hd_wkey(int warp) { return HD_KSPLIT > 1 ? warp * HD_BNW : 0; }

/* Whether key j is cut from query row i (padding or band). */
HD_DEVICE bool hd_masked(const hd_attn_blk &k, int i, int j)
{
    bool cut = i >= k.sq || j >= k.skv;
#if HD_HAS_RIGHT
    cut = cut || j > i + k.shift + HD_RIGHT;
#endif
#if HD_HAS_LEFT
    cut = cut || j <= i + k.shift - HD_LEFT;
#endif
    return cut;
}

/* Whether tile t may hold a masked (row, key) pair of the block: then it checks each element. */
HD_DEVICE bool hd_tile_cut(const hd_attn_blk &k, int t)
{
    /* rows past HD_SQ are never stored: they need no mask */
    int n0 = t * HD_BN, i_lo = hd_row_i(k, 0), i_hi = min(hd_row_i(k, HD_BM - 1), HD_SQ - 1);
    bool cut = n0 + HD_BN > k.skv || i_hi >= k.sq;
#if HD_HAS_RIGHT
    cut = cut || n0 + HD_BN - 1 > i_lo + k.shift + HD_RIGHT;
#endif
#if HD_HAS_LEFT
    cut = cut || n0 <= i_hi + k.shift - HD_LEFT;
#endif
    return cut;
}

/* The work tile of batch b, (first) query head h, row tile x counted from the last (the rows
 * that see the most keys under a causal mask come first) and key split `split`. */
HD_DEVICE void hd_attn_setup_at(hd_attn_blk &k, int b, int h, int x, int split, HD_PARAMS)
{
    k.b = b, k.h = h, k.split = split, k.n0 = 0, k.item = 0, k.qbar = 0;
    k.m0 = (HD_MT - 1 - x) * HD_BM;
    k.sq = hd_seq_q(k.b, HD_ARGS), k.skv = hd_seq_kv(k.b, HD_ARGS);
    k.shift = HD_BOTTOM_RIGHT ? k.skv - k.sq : 0;
    /* the factor between the scores (or the modifier's results) and the log2 domain */
    k.scale2 = HD_SCORE_MOD ? HD_MOD_POST * HD_LOG2E : hd_scale(HD_ARGS) * HD_LOG2E;
#if HD_ALIBI
    k.slope2 = hd_alibi_slope(k.h) * HD_LOG2E;
#else
    k.slope2 = 0.0f;
#endif
    int i_lo = hd_row_i(k, 0), i_hi = min(hd_row_i(k, HD_BM - 1), k.sq - 1);
    int j_lo = 0, j_hi = k.skv; /* keys [j_lo, j_hi) */
#if HD_HAS_RIGHT
    j_hi = min(j_hi, i_hi + k.shift + HD_RIGHT + 1);
#endif
#if HD_HAS_LEFT
    j_lo = max(j_lo, i_lo + k.shift - HD_LEFT + 1);
#endif
    k.t_lo = j_lo / HD_BN;
    k.t_hi = i_hi < i_lo || j_hi <= j_lo ? k.t_lo : (j_hi + HD_BN - 1) / HD_BN;
#if HD_SPLIT > 1 /* split `split` of HD_SPLIT takes an equal share of the tiles (maybe none) */
    int per = (k.t_hi - k.t_lo + HD_SPLIT - 1) / HD_SPLIT;
    k.t_lo = min(k.t_lo + k.split * per, k.t_hi);
    k.t_hi = min(k.t_lo + per, k.t_hi);
#endif
}

/* The block's work tile from its coordinates: grid (HD_MT · HD_SPLIT, Hq / HD_PACK, B). */
HD_DEVICE void hd_attn_setup(hd_attn_blk &k, HD_PARAMS)
{
    hd_attn_setup_at(k, blockIdx.z, blockIdx.y * HD_PACK, (int)blockIdx.x / HD_SPLIT, (int)blockIdx.x % HD_SPLIT,
                     HD_ARGS);
}

#if HD_PERSIST
enum { HD_WORK_OK, HD_WORK_SKIP, HD_WORK_END };
#define HD_NTILE (HD_B * HD_HQ * HD_MT)

/* Work tile `tile` of the heads' row tiles (head hb = b·HQ + h, row tile x counted from the
 * last): without a causal band in launch order, as the grid of one block a tile runs them (a
 * round's tiles share few heads' K/V in L2); under one (the dynamic scheduler's order) the
 * longest first within groups of HD_L2_HEADS heads, whose K/V stay in L2 together. */
HD_DEVICE void hd_tile_at(int tile, int &hb, int &x)
{
#if !HD_HAS_RIGHT
    hb = tile / HD_MT, x = HD_MT - 1 - tile % HD_MT;
#else
    const int per_group = HD_L2_HEADS * HD_MT, g = tile / per_group, r = tile - g * per_group;
    const int size = min(HD_L2_HEADS, HD_B * HD_HQ - g * HD_L2_HEADS);
    hb = g * HD_L2_HEADS + r % size, x = r / size;
#endif
}

/* The static walk's it-th work tile of the block (hb, x as hd_tile_at). Without a causal band,
 * tile `it · gridDim.x + blockIdx.x`. Under one, in static rounds of one work item a block, item
 * `round · gridDim.x + blockIdx.x`, whose two tiles are the it-th even and odd: row tiles p and
 * MT - 1 - p of one head (the longest and the shortest: every item costs about MT + 1 tiles, the
 * blocks' shares stay even; an odd MT's middle tile is an item alone, its second tile
 * HD_WORK_SKIP). Items go head by head within groups of HD_L2_HEADS heads. */
HD_DEVICE int hd_work_at(int it, int &hb, int &x)
{
#if !HD_HAS_RIGHT
    const int tile = it * (int)gridDim.x + (int)blockIdx.x;
    if (tile >= HD_NTILE)
        return HD_WORK_END;
    hd_tile_at(tile, hb, x);
    return HD_WORK_OK;
#else
    const int item = (it >> 1) * (int)gridDim.x + (int)blockIdx.x;
    if (item >= HD_NITEM)
        return HD_WORK_END;
    const int per_group = HD_L2_HEADS * HD_NPAIR, g = item / per_group, r = item - g * per_group;
    const int size = min(HD_L2_HEADS, HD_B * HD_HQ - g * HD_L2_HEADS), p = r / size;
    hb = g * HD_L2_HEADS + r % size;
    x = it & 1 ? HD_MT - 1 - p : p;
    return it & 1 && x == p ? HD_WORK_SKIP : HD_WORK_OK;
#endif
}

/* The `full` mbarrier of the block's q-th work tile's Q buffer (its `empty` one follows; qbar:
 * the first buffer's). */
HD_DEVICE hd_u32 hd_q_bar(hd_u32 qbar, int q) { return qbar + (q % HD_QBUF) * 16; }

/* k for the block's q-th work tile, head hb, row tile x (n: K/V tiles of the pipeline before it;
 * qbar: the first Q buffer's mbarriers); counts it into q and n. */
HD_DEVICE void hd_work_begin(hd_attn_blk &k, int hb, int x, int &q, int &n, hd_u32 qbar, HD_PARAMS)
{
    hd_attn_setup_at(k, hb / HD_HQ, hb % HD_HQ, x, 0, HD_ARGS);
    k.n0 = n, k.item = q, k.qbar = hd_q_bar(qbar, q), k.ws = 0;
    n += k.t_hi - k.t_lo, q++;
}

/* The static walk's next position from `it` with a work tile to do (hd_work_at), or -1 when
 * none is left; `it` moves past it. */
HD_DEVICE int hd_walk_next(int &it)
{
    for (int hb, x, st; (st = hd_work_at(it, hb, x)) != HD_WORK_END; it++)
        if (st == HD_WORK_OK)
            return it++;
    return -1;
}

/* k for the static walk's position w (hd_walk_next), the block's q-th work tile (q, n as
 * hd_work_begin). */
HD_DEVICE void hd_walk_begin(hd_attn_blk &k, int w, int &q, int &n, hd_u32 qbar, HD_PARAMS)
{
    int hb, x;
    hd_work_at(w, hb, x);
    hd_work_begin(k, hb, x, q, n, qbar, HD_ARGS);
}

/* The block's next work tile of the static walk into k (it: the walk's position; q, n as
 * hd_work_begin); false when none is left. Both roles walk the same tiles in the same order. */
HD_DEVICE bool hd_work_next(hd_attn_blk &k, int &it, int &q, int &n, hd_u32 qbar, HD_PARAMS)
{
    const int w = hd_walk_next(it);
    if (w >= 0)
        hd_walk_begin(k, w, q, n, qbar, HD_ARGS);
    return w >= 0;
}

/* The work tile's Q buffer (sq_: the first one). */
HD_DEVICE hd_u32 hd_q_buffer(const hd_attn_blk &k, hd_u32 sq_) { return sq_ + (k.item % HD_QBUF) * HD_Q_BYTES; }

#if HD_DYN
/* The dynamic scheduler (HD_DYN): the producer takes each work tile from a counter in global
 * memory (the kernel parameter hd_tiles: the next tile, then the blocks done; the engine keeps one
 * per stream, zero before the first launch) and hands it to the computing warps in a word beside
 * Q's buffer (hd_tile_slot), published by Q's `full` barrier (-1: none left). The block that
 * takes the last "none left" sets the counter back to zero for the next launch. */

/* The producer's next work tile, or -1 when none is left. */
HD_DEVICE int hd_tile_take(unsigned *ctr)
{
    const int tile = (int)atomicAdd(&ctr[0], 1u);
    if (tile < HD_NTILE)
        return tile;
    __threadfence();
    if (atomicAdd(&ctr[1], 1u) == gridDim.x - 1) /* every block has taken its last */
        atomicExch(&ctr[0], 0u), atomicExch(&ctr[1], 0u);
    return -1;
}

/* The word that hands work tile q of the block (its Q buffer's) to the computing warps. */
HD_DEVICE hd_u32 hd_tile_slot(hd_u32 qbar, int q) { return hd_q_bar(qbar, q) + HD_QBUF * 16; }

/* The computing warps' q-th work tile as the producer published it, once its Q has landed (-1:
 * none left), alike in every lane as the compiler sees it. */
HD_DEVICE int hd_tile_published(int q, hd_u32 qbar)
{
    hd_mbar_wait(hd_q_bar(qbar, q), (q / HD_QBUF) & 1); /* the tile's word, then its Q */
    int tile;
    asm volatile("ld.shared.s32 %0, [%1];" : "=r"(tile) : "r"(hd_tile_slot(qbar, q)) : "memory");
    return hd_warp_uniform(tile);
}

/* k for work tile `tile` (hd_tile_at), the block's q-th. */
HD_DEVICE void hd_work_setup(hd_attn_blk &k, int tile, int &q, int &n, hd_u32 qbar, HD_PARAMS)
{
    int hb, x;
    hd_tile_at(tile, hb, x);
    hd_work_begin(k, hb, x, q, n, qbar, HD_ARGS);
}
#endif
#endif

#ifndef HD_TRACE
#define HD_TRACE 0
#endif
#if HD_TRACE && HD_WS != 2
#error "the phase trace (HD_TRACE) follows the TMA producer's roles (HD_WS 2)"
#endif
#if HD_TRACE
/* The phase trace (jit.sdpa_trace, HD_WS 2): thread 0 of each computing warpgroup keeps the
 * multiprocessor's clock at a work tile's phases (0 start, 1 its first Q·Kᵀ landed, 2 its last
 * P·V landed, 3 O stored) and prints them with the block's start, on multiprocessors 0 and 1
 * only (device printf; bench/attn_trace.py reads the lines). */
__shared__ long long hd_tr[3][4]; /* [warpgroup][phase]; [2][0]: the block's start */
HD_DEVICE void hd_tr_start(int tid)
{
    if (tid == 0)
        hd_tr[2][0] = clock64();
}
HD_DEVICE void hd_tr_mark(int ctid, int phase)
{
    if ((ctid & 127) == 0)
        hd_tr[ctid >> 7][phase] = clock64();
}
HD_DEVICE void hd_tr_print(const hd_attn_blk &k, int ctid)
{
    const hd_u32 sm = hd_sm_id();
    if ((ctid & 127) == 0 && sm < 2) {
        const long long *t = hd_tr[ctid >> 7];
        const hd_u32 blk = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        printf("HDT %u %u %d %d %d %lld %lld %lld %lld %lld\n", sm, blk, ctid >> 7, k.item, k.t_hi - k.t_lo,
               hd_tr[2][0], t[0], t[1], t[2], t[3]);
    }
}
#else
HD_DEVICE void hd_tr_start(int) {}
HD_DEVICE void hd_tr_mark(int, int) {}
HD_DEVICE void hd_tr_print(const hd_attn_blk &, int) {}
#endif

/* ---- loads ---------------------------------------------------------------------------------- */

/* Rows [0, HD_BM) of the block's Q into shared memory (rows past sq and dims past D zero). */
template <int NT> HD_DEVICE void hd_load_q(hd_u32 sq_, const hd_attn_blk &k, int tid, HD_PARAMS)
{
    const hd_u16 *q = (const hd_u16 *)HD_Q_PTR;
    constexpr int DC = HD_D16 / 8, CH = HD_DP / 8;
#pragma unroll
    for (int n = 0; n < (HD_BM * DC + NT - 1) / NT; n++) {
        int id = tid + n * NT, r = id / DC, c = id % DC, i = hd_row_i(k, r);
        if (HD_BM * DC % NT != 0 && id >= HD_BM * DC)
            break;
        bool ok = i < k.sq && c * 8 < HD_D;
        const hd_u16 *src = ok ? q + hd_q_off(k.b, hd_row_h(k, r), i, HD_ARGS) + c * 8 : q;
        hd_cp_async16(sq_ + hd_tile_off(r, c, HD_BM, CH), src, ok ? 16 : 0);
    }
}

/* Chunks of 16 bytes of one operand's K/V tile (DIM its head dim) that each of NT threads copies. */
#define HD_ROW_CHUNKS(NT, DIM) ((HD_BN * ((DIM + 15) / 16 * 2) + NT - 1) / NT)

/* What the row offsets of chunks [n0, n0 + G) of keys [t·BN, t·BN + BN) that thread tid copies
 * need from memory (hd_k_page / hd_v_page: a paged row's page-table entry; dense rows nothing).
 * HD_TILE_PAGE: the tile lies in one page, whose entry is pg[0]. */
template <int NT, int G, bool V, int DIM> HD_DEVICE void hd_row_pages(hd_i64 *pg, int n0, const hd_attn_blk &k, int t, int tid, HD_PARAMS)
{
#if HD_TILE_PAGE
    (void)n0, (void)tid;
    const int j0 = t * HD_BN;
    pg[0] = j0 < k.skv ? (V ? hd_v_page(k.b, j0, HD_ARGS) : hd_k_page(k.b, j0, HD_ARGS)) : 0;
#else
    constexpr int DC = (DIM + 15) / 16 * 2, N = HD_ROW_CHUNKS(NT, DIM);
#pragma unroll
    for (int g = 0; g < G; g++) {
        int id = tid + (n0 + g) * NT, j = t * HD_BN + id / DC;
        bool ok = n0 + g < N && (HD_BN * DC % NT == 0 || id < HD_BN * DC) && j < k.skv;
        pg[g] = ok ? (V ? hd_v_page(k.b, j, HD_ARGS) : hd_k_page(k.b, j, HD_ARGS)) : 0;
    }
#endif
}

/* The copies of those chunks into a stage, their offsets from pg (rows past skv and dims past DIM
 * zero). */
template <int NT, int G, bool V, int DIM, int PADDED> HD_DEVICE void hd_row_copies(hd_u32 dst, const hd_i64 *pg, int n0, const hd_attn_blk &k, int t, int tid, HD_PARAMS)
{
    const hd_u16 *base = (const hd_u16 *)(V ? HD_V_PTR : HD_K_PTR);
    constexpr int DC = (DIM + 15) / 16 * 2, CH = PADDED / 8, N = HD_ROW_CHUNKS(NT, DIM);
#pragma unroll
    for (int g = 0; g < G; g++) {
        int id = tid + (n0 + g) * NT, r = id / DC, c = id % DC, j = t * HD_BN + r;
        if (n0 + g >= N || (HD_BN * DC % NT != 0 && id >= HD_BN * DC))
            break;
        bool ok = j < k.skv && c * 8 < DIM;
        hd_i64 off = V ? hd_v_row(pg[HD_PG(g)], k.b, k.h, j, HD_ARGS) : hd_k_row(pg[HD_PG(g)], k.b, k.h, j, HD_ARGS);
        hd_cp_async16(dst + hd_tile_off(r, c, HD_BN, CH), ok ? base + off + c * 8 : base, ok ? 16 : 0);
    }
}

/* Keys [t·BN, t·BN + BN) of one operand (V: V, else K; DIM its head dim) into a stage, rows past
 * skv and dims past DIM zero. Per group of UNROLL chunks a thread first loads every row's page
 * entry, then issues the copies: a paged hook's page-table loads are all in flight together
 * (a copy is an asm statement the compiler does not move loads across). */
template <int NT, int UNROLL, bool V, int DIM, int PADDED> HD_DEVICE void hd_load_rows(hd_u32 dst, const hd_attn_blk &k, int t, int tid, HD_PARAMS)
{
    constexpr int N = HD_ROW_CHUNKS(NT, DIM), G = UNROLL < N ? UNROLL : N;
#pragma unroll 1
    for (int n0 = 0; n0 < N; n0 += G) {
        hd_i64 pg[G];
        hd_row_pages<NT, G, V, DIM>(pg, n0, k, t, tid, HD_ARGS);
        hd_row_copies<NT, G, V, DIM, PADDED>(dst, pg, n0, k, t, tid, HD_ARGS);
    }
}

/* Keys [t·BN, t·BN + BN) of K and V into one stage. */
template <int NT, int UNROLL = 64> HD_DEVICE void hd_load_kv(hd_u32 sk, hd_u32 sv, const hd_attn_blk &k, int t, int tid, HD_PARAMS)
{
    hd_load_rows<NT, UNROLL, false, HD_D, HD_DP>(sk, k, t, tid, HD_ARGS);
    hd_load_rows<NT, UNROLL, true, HD_DV, HD_DVP>(sv, k, t, tid, HD_ARGS);
}

/* HD_KV_AHEAD (paged K/V on the sequential loop): a tile's page-table entries loaded HD_KV_AHEAD
 * tiles before its copies, which compute the offsets from them: the table loads are in flight under
 * the tiles' products instead of holding up the copies (bench/NOTES.md decode #10, #14). */
#define HD_NK_CHUNKS HD_ROW_CHUNKS(HD_THREADS, HD_D)
#define HD_NV_CHUNKS HD_ROW_CHUNKS(HD_THREADS, HD_DV)
typedef struct hd_kv_pages {
    hd_i64 k[HD_TILE_PAGE ? 1 : HD_NK_CHUNKS], v[HD_TILE_PAGE ? 1 : HD_NV_CHUNKS];
} hd_kv_pages;
HD_DEVICE void hd_kv_pages_of(hd_kv_pages &p, const hd_attn_blk &k, int t, int tid, HD_PARAMS)
{
    hd_row_pages<HD_THREADS, HD_NK_CHUNKS, false, HD_D>(p.k, 0, k, t, tid, HD_ARGS);
    hd_row_pages<HD_THREADS, HD_NV_CHUNKS, true, HD_DV>(p.v, 0, k, t, tid, HD_ARGS);
}
HD_DEVICE void hd_kv_copies(hd_u32 sk, hd_u32 sv, const hd_kv_pages &p, const hd_attn_blk &k, int t, int tid, HD_PARAMS)
{
    hd_row_copies<HD_THREADS, HD_NK_CHUNKS, false, HD_D, HD_DP>(sk, p.k, 0, k, t, tid, HD_ARGS);
    hd_row_copies<HD_THREADS, HD_NV_CHUNKS, true, HD_DV, HD_DVP>(sv, p.v, 0, k, t, tid, HD_ARGS);
}

/* ---- one K/V tile ---------------------------------------------------------------------------- */

/* The warp's Q fragments of k step kk (A operand, one per m16 row tile). */
HD_DEVICE void hd_load_qfrag(hd_u32 (*qa)[4], hd_u32 sq_, int kk, int warp, int lane)
{
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
        hd_ldsm_x4(qa[mi], sq_ + hd_swz((hd_wrow(warp) + mi) * 16 + (lane & 15), kk * 2 + (lane >> 4), HD_DP / 8));
}

/* s = Q·Kᵀ for the warp's rows and the tile's BN keys (Q fragments from qf with HD_Q_REGS,
 * else from shared memory). */
HD_DEVICE void hd_qk(float (*s)[HD_NS][4], hd_u32 (*qf)[4], hd_u32 sq_, hd_u32 sk, int warp, int lane)
{
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int ni = 0; ni < HD_NS; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                s[mi][ni][e] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < HD_KS; kk++) {
#if HD_Q_REGS
        hd_u32 (*qa)[4] = &qf[kk];
#else
        hd_u32 qa[HD_MW][4];
        hd_load_qfrag(qa, sq_, kk, warp, lane);
#endif
#pragma unroll
        for (int nj = 0; nj < HD_NS / 2; nj++) {
            hd_u32 t[4];
            int r = hd_wkey(warp) + nj * 16 + (lane & 7) + ((lane >> 4) << 3), c = kk * 2 + ((lane >> 3) & 1);
            hd_ldsm_x4(t, sk + hd_swz(r, c, HD_DP / 8));
#pragma unroll
            for (int mi = 0; mi < HD_MW; mi++) {
                hd_mma(s[mi][2 * nj], qa[mi], t[0], t[1]);
                hd_mma(s[mi][2 * nj + 1], qa[mi], t[2], t[3]);
            }
        }
    }
}

/* Scores to the log2 domain with bias, ALiBi and (CUT: a tile the masks cut) the masks; then the
 * online softmax: s becomes P (unnormalised, dropout applied), acc's m and l move on, and alpha
 * gets the factor each row's O must be scaled by (hd_rescale_o: O may still be a product in
 * flight). CUT is a template argument so that the tiles no mask cuts run without a per-score
 * test (a run-time flag became a predicated select per score: bench/NOTES.md #17). */
template <bool CUT>
HD_DEVICE void hd_softmax_p_(float (*s)[HD_NS][4], hd_attn_acc &a, float (*alpha)[2], const hd_attn_blk &k, int t,
                             int warp, int lane, HD_PARAMS)
{
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int ni = 0; ni < HD_NS; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int r = (hd_wrow(warp) + mi) * 16 + (lane >> 2) + (e >> 1) * 8, i = hd_row_i(k, r), h = hd_row_h(k, r);
                int j = t * HD_BN + hd_wkey(warp) + ni * 8 + (lane & 3) * 2 + (e & 1);
#if HD_SCORE_MOD /* the modifier sees S·scale (not the log2 domain); HD_MOD_RAW: it scales S itself */
                float x = hd_score_mod(HD_MOD_RAW ? s[mi][ni][e] : s[mi][ni][e] * hd_scale(HD_ARGS), k.b, h, i, j,
                                       HD_ARGS);
                if (!HD_FOLD)
                    x *= k.scale2; /* HD_MOD_POST · log2 e in one multiply */
#elif HD_FOLD
                float x = s[mi][ni][e]; /* scaled inside the exponent below */
#else
                float x = s[mi][ni][e] * k.scale2;
#endif
#if HD_BIAS
                if (i < k.sq && j < k.skv)
                    x += hd_bias(k.b, h, i, j, HD_ARGS) * HD_LOG2E;
#endif
#if HD_ALIBI
                x += k.slope2 * (float)(j - i);
#endif
                (void)i, (void)j, (void)h;
                if (CUT && hd_masked(k, i, j))
                    x = HD_NEG_INF;
                s[mi][ni][e] = x;
            }
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            float mx = HD_FOLD ? HD_NEG_INF : a.m[mi][r];
#pragma unroll
            for (int ni = 0; ni < HD_NS; ni++)
                mx = fmaxf(mx, fmaxf(s[mi][ni][2 * r], s[mi][ni][2 * r + 1]));
            mx = fmaxf(mx, hd_shfl_xor(mx, 1));
            mx = fmaxf(mx, hd_shfl_xor(mx, 2));
#if HD_FOLD
            mx = fmaxf(a.m[mi][r], mx * k.scale2); /* a positive scale keeps the order */
#endif
            float use = mx == HD_NEG_INF ? 0.0f : mx; /* a row with no key yet: every p is 0 */
            alpha[mi][r] = hd_exp2(a.m[mi][r] - use);
            a.m[mi][r] = mx;
            float sum = 0.0f;
#pragma unroll
            for (int ni = 0; ni < HD_NS; ni++)
#pragma unroll
                for (int e = 2 * r; e < 2 * r + 2; e++) {
#if HD_FOLD
                    const float x = fmaf(s[mi][ni][e], k.scale2, -use);
#else
                    const float x = s[mi][ni][e] - use;
#endif
                    /* HD_SW_EXP: every other n8 tile's exponentials off the special-function unit */
                    float p = HD_SW_EXP && (ni & 1) ? hd_exp2_poly(x) : hd_exp2(x);
                    sum += p;
#if HD_DROPOUT || HD_DMASK
                    int row = (hd_wrow(warp) + mi) * 16 + (lane >> 2) + r * 8, i = hd_row_i(k, row);
                    int j = t * HD_BN + hd_wkey(warp) + ni * 8 + (lane & 3) * 2 + (e & 1);
                    p = i < HD_SQ && j < HD_SKV ? p * hd_mask_at(k.b, hd_row_h(k, row), i, j, HD_ARGS) : 0.0f;
#endif
                    s[mi][ni][e] = p;
                }
            a.l[mi][r] = a.l[mi][r] * alpha[mi][r] + sum;
        }
}

/* hd_softmax_p_ for tile t, with the masks where `cut` (hd_tile_cut). */
HD_DEVICE void hd_softmax_p(float (*s)[HD_NS][4], hd_attn_acc &a, float (*alpha)[2], const hd_attn_blk &k, int t,
                            bool cut, int warp, int lane, HD_PARAMS)
{
    if (cut)
        hd_softmax_p_<true>(s, a, alpha, k, t, warp, lane, HD_ARGS);
    else
        hd_softmax_p_<false>(s, a, alpha, k, t, warp, lane, HD_ARGS);
}

/* O's rows scaled by the softmax's factors. */
HD_DEVICE void hd_rescale_o(hd_attn_acc &a, const float (*alpha)[2])
{
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int r = 0; r < 2; r++)
#pragma unroll
            for (int no = 0; no < HD_NO; no++)
                a.o[mi][no][2 * r] *= alpha[mi][r], a.o[mi][no][2 * r + 1] *= alpha[mi][r];
}

/* hd_softmax_p, then O rescaled at once. */
HD_DEVICE void hd_softmax(float (*s)[HD_NS][4], hd_attn_acc &a, const hd_attn_blk &k, int t, bool cut, int warp,
                          int lane, HD_PARAMS)
{
    float alpha[HD_MW][2];
    hd_softmax_p(s, a, alpha, k, t, cut, warp, lane, HD_ARGS);
    hd_rescale_o(a, alpha);
}

/* O += P·V for the warp's keys of the tile. */
HD_DEVICE void hd_pv(hd_attn_acc &a, float (*s)[HD_NS][4], hd_u32 sv, int warp, int lane)
{
#pragma unroll
    for (int kk = 0; kk < HD_BNW / 16; kk++) {
        hd_u32 pa[HD_MW][4];
#pragma unroll
        for (int mi = 0; mi < HD_MW; mi++) {
            pa[mi][0] = hd_pack2(s[mi][2 * kk][0], s[mi][2 * kk][1]);
            pa[mi][1] = hd_pack2(s[mi][2 * kk][2], s[mi][2 * kk][3]);
            pa[mi][2] = hd_pack2(s[mi][2 * kk + 1][0], s[mi][2 * kk + 1][1]);
            pa[mi][3] = hd_pack2(s[mi][2 * kk + 1][2], s[mi][2 * kk + 1][3]);
        }
#pragma unroll
        for (int nj = 0; nj < HD_NO / 2; nj++) {
            hd_u32 t[4];
            int r = hd_wkey(warp) + kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), c = nj * 2 + (lane >> 4);
            hd_ldsm_x4_trans(t, sv + hd_swz(r, c, HD_DVP / 8));
#pragma unroll
            for (int mi = 0; mi < HD_MW; mi++) {
                hd_mma(a.o[mi][2 * nj], pa[mi], t[0], t[1]);
                hd_mma(a.o[mi][2 * nj + 1], pa[mi], t[2], t[3]);
            }
        }
    }
}

#if HD_SM90
/* Issues s = Q·Kᵀ on wgmma (one commit group): the warpgroup's 64 rows of Q times the BN keys
 * of the tile at sk, both from shared memory. Complete it with hd_wgmma_wait0 + hd_acc_fence. */
HD_DEVICE void hd_qk_issue(float (*s)[HD_NS][4], hd_u32 sq_, hd_u32 sk, int warp)
{
    const hd_u32 q0 = sq_ + (warp >> 2) * 64 * 128;
    float *d = &s[0][0][0];
    hd_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < HD_D / 16; kk++) {
        hd_u32 blk = (hd_u32)(kk >> 2), in = (hd_u32)(kk & 3) * 32;
        hd_wgmma_ss<HD_BN>(d, hd_desc(q0 + blk * HD_BM * 128 + in, 16, 1024),
                           hd_desc(sk + blk * HD_BN * 128 + in, 16, 1024), kk > 0);
    }
    hd_wgmma_commit();
}

/* P (s) packed as mma.sync A fragments: the layout wgmma takes for A from registers. */
HD_DEVICE void hd_pack_p(hd_u32 (*pa)[4], float (*s)[HD_NS][4])
{
#pragma unroll
    for (int kk = 0; kk < HD_BN / 16; kk++) {
        pa[kk][0] = hd_pack2(s[0][2 * kk][0], s[0][2 * kk][1]);
        pa[kk][1] = hd_pack2(s[0][2 * kk][2], s[0][2 * kk][3]);
        pa[kk][2] = hd_pack2(s[0][2 * kk + 1][0], s[0][2 * kk + 1][1]);
        pa[kk][3] = hd_pack2(s[0][2 * kk + 1][2], s[0][2 * kk + 1][3]);
    }
}

/* Issues O += P·V on wgmma (one commit group): P packed (hd_pack_p; its registers stay untouched
 * until the group completes), V (shared, N-major), in column chunks of 128 (and one of 64 at
 * head dims 64 and 192): chunk c0's accumulators start at O's element c0 / 2 of each thread. */
HD_DEVICE void hd_pv_issue_p(hd_attn_acc &a, hd_u32 (*pa)[4], hd_u32 sv)
{
    float *d = &a.o[0][0][0];
    hd_wgmma_fence();
#pragma unroll
    for (int c0 = 0; c0 < HD_DV; c0 += 128)
#pragma unroll
        for (int kk = 0; kk < HD_BN / 16; kk++) { /* 16 keys = 16 rows of 128 bytes */
            const hd_u64 db = hd_desc(sv + (c0 / 64) * HD_BN * 128 + kk * 2048, HD_BN * 128, 1024);
            if (HD_DV - c0 >= 128)
                hd_wgmma_rs<128>(d + c0 / 2, pa[kk], db);
            else
                hd_wgmma_rs<64>(d + c0 / 2, pa[kk], db);
        }
    hd_wgmma_commit();
}

/* Issues O += P·V with P from the scores s. */
HD_DEVICE void hd_pv_issue(hd_attn_acc &a, float (*s)[HD_NS][4], hd_u32 sv)
{
    hd_u32 pa[HD_BN / 16][4];
    hd_pack_p(pa, s);
    hd_pv_issue_p(a, pa, sv);
}

#if HD_OVERLAP
/* The overlapped Hopper main loop (three stages or more). Tile t's softmax runs while the tensor cores compute tile t + 1's
 * Q·Kᵀ (FlashAttention-3's intra-warpgroup overlap), then P·V of tile t; three stages: tile
 * t + 1 is in shared memory when iteration t starts, tile t + 2 loads during it (into the stage
 * of tile t - 1, which every warpgroup finished before the barrier). */
HD_DEVICE void hd_attn_mainloop(hd_attn_acc &a, const hd_attn_blk &k, hd_u32 s_base, int tid, HD_PARAMS)
{
    const int warp = tid >> 5, lane = tid & 31;
    const hd_u32 sq_ = s_base, s_kv = s_base + HD_Q_BYTES, stage_bytes = HD_K_BYTES + HD_V_BYTES;
    hd_load_q<HD_THREADS>(sq_, k, tid, HD_ARGS);
#pragma unroll
    for (int st = 0; st < 2; st++) {
        if (k.t_lo + st < k.t_hi)
            hd_load_kv<HD_THREADS>(s_kv + st * stage_bytes, s_kv + st * stage_bytes + HD_K_BYTES, k, k.t_lo + st, tid, HD_ARGS);
        hd_cp_commit(); /* Q travels in the first group */
    }
    if (k.t_lo >= k.t_hi) {
        hd_cp_wait<0>();
        return;
    }
    hd_cp_wait<1>(); /* Q and the first tile */
    hd_async_fence(); /* cp.async wrote, wgmma reads */
    __syncthreads();
    float sc[1][HD_NS][4], sn[1][HD_NS][4]; /* scores of tile t and of tile t + 1 */
    hd_qk_issue(sc, sq_, s_kv, warp);
    hd_wgmma_wait0();
    hd_acc_fence<HD_BN / 2>(&sc[0][0][0]);
    for (int t = k.t_lo; t < k.t_hi; t++) {
        hd_cp_wait<0>(); /* tile t + 1 */
        hd_async_fence();
        __syncthreads(); /* ... visible to every warp; tile t - 1's stage is free */
        if (t + 2 < k.t_hi) {
            hd_u32 st = s_kv + ((t + 2 - k.t_lo) % HD_STAGES) * stage_bytes;
            hd_load_kv<HD_THREADS>(st, st + HD_K_BYTES, k, t + 2, tid, HD_ARGS);
        }
        hd_cp_commit();
        const bool more = t + 1 < k.t_hi;
        if (more)
            hd_qk_issue(sn, sq_, s_kv + ((t + 1 - k.t_lo) % HD_STAGES) * stage_bytes, warp);
        hd_acc_fence<HD_BN / 2>(&sc[0][0][0]); /* the softmax stays below the issue: they overlap */
        hd_softmax(sc, a, k, t, hd_tile_cut(k, t), warp, lane, HD_ARGS);
        hd_pv_issue(a, sc, s_kv + ((t - k.t_lo) % HD_STAGES) * stage_bytes + HD_K_BYTES);
        hd_wgmma_wait0();
        hd_acc_fence<HD_DV / 2>(&a.o[0][0][0]);
        hd_acc_fence<HD_BN / 2>(&sn[0][0][0]);
#pragma unroll
        for (int ni = 0; ni < HD_NS; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                sc[0][ni][e] = sn[0][ni][e];
    }
    hd_cp_wait<0>();
}
#define HD_OVERLAPPED 1
#endif
#endif

#ifndef HD_OVERLAPPED

/* The sequential main loop (mma.sync, or wgmma with two stages): every K/V tile of
 * [t_lo, t_hi) through HD_STAGES shared-memory stages; tile t + HD_STAGES - 1 loads while tile
 * t is computed: Q·Kᵀ, softmax, P·V one after the other. */
HD_DEVICE void hd_attn_mainloop(hd_attn_acc &a, const hd_attn_blk &k, hd_u32 s_base, int tid, HD_PARAMS)
{
    const int warp = tid >> 5, lane = tid & 31;
    const hd_u32 sq_ = s_base, s_kv = s_base + HD_Q_BYTES;
    const hd_u32 stage_bytes = HD_K_BYTES + HD_V_BYTES;
    hd_load_q<HD_THREADS>(sq_, k, tid, HD_ARGS);
#pragma unroll
    for (int st = 0; st < HD_STAGES - 1; st++) {
        if (k.t_lo + st < k.t_hi)
            hd_load_kv<HD_THREADS>(s_kv + st * stage_bytes, s_kv + st * stage_bytes + HD_K_BYTES, k, k.t_lo + st, tid, HD_ARGS);
        hd_cp_commit(); /* Q travels in the first group */
    }
    hd_u32 qf[HD_Q_REGS ? HD_KS : 1][4]; /* HD_Q_REGS: the warp's Q fragments, from the first tile on */
#if HD_KV_AHEAD
    hd_kv_pages ahead[HD_KV_AHEAD]; /* the page entries of the next tiles to copy, nearest first */
#pragma unroll
    for (int a = 0; a < HD_KV_AHEAD; a++)
        if (k.t_lo + HD_STAGES - 1 + a < k.t_hi)
            hd_kv_pages_of(ahead[a], k, k.t_lo + HD_STAGES - 1 + a, tid, HD_ARGS);
#endif
    for (int t = k.t_lo; t < k.t_hi; t++) {
        hd_cp_wait<HD_STAGES - 2>();
#if HD_SM90 /* the tensor cores read through the async proxy what cp.async wrote */
        hd_async_fence();
#endif
        __syncthreads(); /* tile t is in shared memory; the stage of tile t - 1 is free */
#if HD_Q_REGS
        if (t == k.t_lo)
#pragma unroll
            for (int kk = 0; kk < HD_KS; kk++)
                hd_load_qfrag(&qf[kk], sq_, kk, warp, lane);
#endif
        int next = t + HD_STAGES - 1;
        if (next < k.t_hi) {
            hd_u32 st = s_kv + ((next - k.t_lo) % HD_STAGES) * stage_bytes;
#if HD_KV_AHEAD
            hd_kv_copies(st, st + HD_K_BYTES, ahead[0], k, next, tid, HD_ARGS);
#pragma unroll
            for (int a = 0; a + 1 < HD_KV_AHEAD; a++) /* constant indices: the ring stays in registers */
                ahead[a] = ahead[a + 1];
            if (next + HD_KV_AHEAD < k.t_hi)
                hd_kv_pages_of(ahead[HD_KV_AHEAD - 1], k, next + HD_KV_AHEAD, tid, HD_ARGS);
#else
            hd_load_kv<HD_THREADS>(st, st + HD_K_BYTES, k, next, tid, HD_ARGS);
#endif
        }
        hd_cp_commit();
        const hd_u32 sk = s_kv + ((t - k.t_lo) % HD_STAGES) * stage_bytes, sv = sk + HD_K_BYTES;
        float s[HD_MW][HD_NS][4];
#if HD_SM90
        (void)qf;
        hd_qk_issue(s, sq_, sk, warp);
        hd_wgmma_wait0();
        hd_acc_fence<HD_BN / 2>(&s[0][0][0]);
        hd_softmax(s, a, k, t, hd_tile_cut(k, t), warp, lane, HD_ARGS);
        hd_pv_issue(a, s, sv);
        hd_wgmma_wait0();
        hd_acc_fence<HD_DV / 2>(&a.o[0][0][0]);
#else
        hd_qk(s, qf, sq_, sk, warp, lane);
        hd_softmax(s, a, k, t, hd_tile_cut(k, t), warp, lane, HD_ARGS);
        hd_pv(a, s, sv, warp, lane);
#endif
    }
    hd_cp_wait<0>();
}
#endif

/* ---- epilogue ----------------------------------------------------------------------------------- */

/* acc + w·v for a part of a row's result that weighs w (2^(m_part − M)); a weightless part (no
 * key reached it) may hold anything, NaN or unwritten memory, so its value is selected away, never
 * multiplied. Merges the warps' parts (HD_KSPLIT) and the splits' (the combine). */
HD_DEVICE float hd_add_weighted(float acc, float w, float v) { return fmaf(w, w == 0.0f ? 0.0f : v, acc); }

/* The row's final values from its max m and sum l (log2 domain; m = −inf: no key survived):
 * the attention sink joins a live row's denominator; returns the factor O is scaled by (0 for a
 * dead row) and leaves the row's statistics in m (natural log, −inf when dead) and l. */
HD_DEVICE float hd_row_final(int h, float &m, float &l, HD_PARAMS)
{
    float keep = 1.0f;
#if HD_SINK
    if (m != HD_NEG_INF) { /* the sink joins the denominator of a live row only */
        float sk = hd_sink(h, HD_ARGS) * HD_LOG2E, mn = fmaxf(m, sk);
        keep = hd_exp2(m - mn);
        l = l * keep + hd_exp2(sk - mn);
        m = mn;
    }
#else
    (void)h;
#endif
    bool live = m != HD_NEG_INF && l > 0.0f;
    m = live ? m * HD_LN2 : HD_NEG_INF;
    l = live ? l : 0.0f;
    return live ? keep * hd_drop_scale(HD_ARGS) / l : 0.0f;
}

/* O's columns c and c + 1 of the row at `off`: one 32-bit store where they share a word. */
HD_DEVICE void hd_st_o2(hd_i64 off, float v0, float v1, HD_PARAMS)
{
#if HD_O_PAIR /* the launch requires 16-byte aligned tensors (cg_kernel.align): the word is aligned */
    hd_u32 w;
    hd_st<HD_O_DT>(&w, 0, v0);
    hd_st<HD_O_DT>(&w, 1, v1);
    *(hd_u32 *)((hd_u16 *)HD_O_PTR + off) = w;
#else
    hd_st<HD_O_DT>(HD_O_PTR, off, v0);
    hd_st<HD_O_DT>(HD_O_PTR, off + 1, v1);
#endif
}

#if HD_SPLIT > 1
/* The scratch of a split run: per (row, split) the unnormalised O (fp32, HD_DV) and (m, l) of
 * the split's keys; rows (b, h, i) in order. hd_sdpa_combine_kernel merges the splits. */
HD_DEVICE hd_i64 hd_part_row(int b, int h, int i) { return ((hd_i64)b * HD_HQ + h) * HD_SQ + i; }
HD_DEVICE float *hd_part_o(void *ws) { return (float *)ws; }
HD_DEVICE float *hd_part_ml(void *ws) { return (float *)ws + (hd_i64)HD_B * HD_HQ * HD_SQ * HD_SPLIT * HD_DV; }
#endif

/* O = acc.o / l (0 for rows no key reached), and the row statistics; with HD_SPLIT > 1 the
 * split's partial O, m and l instead. */
HD_DEVICE void hd_attn_store(hd_attn_acc &a, const hd_attn_blk &k, int tid, HD_PARAMS)
{
    const int warp = tid >> 5, lane = tid & 31;
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            int row = (hd_wrow(warp) + mi) * 16 + (lane >> 2) + r * 8, i = hd_row_i(k, row), h = hd_row_h(k, row);
            float l = a.l[mi][r], m = a.m[mi][r];
            l += hd_shfl_xor(l, 1);
            l += hd_shfl_xor(l, 2);
            if (i >= HD_SQ)
                continue;
#if HD_SPLIT > 1
            hd_i64 pr = hd_part_row(k.b, h, i) * HD_SPLIT + k.split;
            float *po = hd_part_o(k.ws) + pr * HD_DV;
#pragma unroll
            for (int no = 0; no < HD_NO; no++) {
                int c = no * 8 + (lane & 3) * 2;
                if (c < HD_DV)
                    *(float2 *)(po + c) = make_float2(a.o[mi][no][2 * r], a.o[mi][no][2 * r + 1]);
            }
            if ((lane & 3) == 0)
                *(float2 *)(hd_part_ml(k.ws) + pr * 2) = make_float2(m, l);
#else
            float inv = hd_row_final(h, m, l, HD_ARGS);
            hd_i64 off = hd_o_off(k.b, h, i, HD_ARGS);
#pragma unroll
            for (int no = 0; no < HD_NO; no++) {
                int c = no * 8 + (lane & 3) * 2;
                if (c < HD_DV)
                    hd_st_o2(off + c, a.o[mi][no][2 * r] * inv, a.o[mi][no][2 * r + 1] * inv, HD_ARGS);
            }
            if ((lane & 3) == 0)
                hd_row_stats(k.b, h, i, m, l, HD_ARGS);
#endif
        }
}

#if HD_O_TMA
/* O through shared memory (HD_O_TMA): each computing warpgroup's 64 rows normalised, rounded to
 * 16 bits and written over its own rows of Q's buffer (its last Q·Kᵀ has completed; no other
 * warpgroup reads them) in the 128-byte-swizzle layout of O's tensor map, then one thread copies
 * them out (boxes of 64 columns x 64 rows; the copy clips rows past Sq) and waits until the copy
 * has read them. The row statistics as hd_attn_store. */
HD_DEVICE void hd_attn_store_tma(hd_attn_acc &a, const hd_attn_blk &k, hd_u32 sq_, const hd_tmap *mo, int ctid,
                                 HD_PARAMS)
{
    const int warp = ctid >> 5, lane = ctid & 31, wg = warp >> 2;
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const int row = warp * 16 + (lane >> 2) + r * 8, i = hd_row_i(k, row);
        float l = a.l[0][r], m = a.m[0][r];
        l += hd_shfl_xor(l, 1);
        l += hd_shfl_xor(l, 2);
        const float inv = hd_row_final(k.h, m, l, HD_ARGS);
#pragma unroll
        for (int no = 0; no < HD_NO; no++) {
            hd_u32 w;
            hd_st<HD_O_DT>(&w, 0, a.o[0][no][2 * r] * inv);
            hd_st<HD_O_DT>(&w, 1, a.o[0][no][2 * r + 1] * inv);
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(sq_ + hd_wg_off(row, no, HD_BM) + (lane & 3) * 4), "r"(w)
                         : "memory");
        }
        if ((lane & 3) == 0 && i < HD_SQ)
            hd_row_stats(k.b, k.h, i, m, l, HD_ARGS);
    }
    hd_async_fence(); /* written by the threads, read by the tensor-copy engine */
    hd_bar_sync<128>(4 + wg);
    if ((ctid & 127) == 0) {
#pragma unroll
        for (int cb = 0; cb < HD_DV / 64; cb++)
            hd_tma_store4(mo, sq_ + (cb * HD_BM + wg * 64) * 128, cb * 64, k.h, k.m0 + wg * 64, k.b);
        hd_bulk_commit();
        hd_bulk_wait_read<0>();
    }
}
#endif

#if HD_KSPLIT > 1
#define HD_KS_FLOATS (HD_MW * (4 + HD_NO * 4)) /* a thread's m, l and O fragments */

/* Float f of the thread at `lane` of warp w in the merge's buffer (warp-major, lane fastest:
 * a warp's accesses are 32 consecutive words). */
HD_DEVICE hd_u32 hd_ks_at(hd_u32 buf, int w, int f, int lane) { return buf + ((w * HD_KS_FLOATS + f) * 32 + lane) * 4; }
HD_DEVICE void hd_ks_st(hd_u32 at, float v) { asm volatile("st.shared.f32 [%0], %1;" ::"r"(at), "f"(v) : "memory"); }
HD_DEVICE float hd_ks_ld(hd_u32 at)
{
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(at) : "memory");
    return v;
}

/* HD_KSPLIT: the warps hold the same rows over different keys; warp 0 takes the merge. Every
 * thread's m, l and O fragments go to shared memory over the K/V stages (the main loop has
 * waited for its last copies; the barrier makes every warp done reading them), then warp 0's
 * thread merges the same fragment of every warp: M = max m_w, l = Σ l_w·2^(m_w − M), O = Σ
 * O_w·2^(m_w − M) (a warp that no key of the row reached has m_w = −inf: weight 0, its O selected
 * away). m and l stay in the log2 domain, l each thread's part of the row sum (hd_attn_store adds
 * the quad's). */
HD_DEVICE void hd_ksplit_merge(hd_attn_acc &a, hd_u32 buf, int tid)
{
    const int warp = tid >> 5, lane = tid & 31;
    __syncthreads();
    int f = 0;
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            hd_ks_st(hd_ks_at(buf, warp, f++, lane), a.m[mi][r]);
            hd_ks_st(hd_ks_at(buf, warp, f++, lane), a.l[mi][r]);
        }
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int no = 0; no < HD_NO; no++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                hd_ks_st(hd_ks_at(buf, warp, f++, lane), a.o[mi][no][e]);
    __syncthreads();
    if (warp != 0)
        return;
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const int fm = (mi * 2 + r) * 2;
            float mw[HD_KSPLIT], mx = HD_NEG_INF;
#pragma unroll
            for (int w = 0; w < HD_KSPLIT; w++)
                mw[w] = hd_ks_ld(hd_ks_at(buf, w, fm, lane)), mx = fmaxf(mx, mw[w]);
            const float use = mx == HD_NEG_INF ? 0.0f : mx;
            float l = 0.0f, wt[HD_KSPLIT];
#pragma unroll
            for (int w = 0; w < HD_KSPLIT; w++) {
                wt[w] = hd_exp2(mw[w] - use);
                l += wt[w] * hd_ks_ld(hd_ks_at(buf, w, fm + 1, lane));
            }
            a.m[mi][r] = mx, a.l[mi][r] = l;
#pragma unroll
            for (int no = 0; no < HD_NO; no++)
#pragma unroll
                for (int e = 2 * r; e < 2 * r + 2; e++) {
                    const int fo = HD_MW * 4 + (mi * HD_NO + no) * 4 + e;
                    float o = 0.0f;
#pragma unroll
                    for (int w = 0; w < HD_KSPLIT; w++)
                        o = hd_add_weighted(o, wt[w], hd_ks_ld(hd_ks_at(buf, w, fo, lane)));
                    a.o[mi][no][e] = o;
                }
        }
}
#endif

/* The epilogue of the computing thread ctid: O and the row statistics, then RNG_DUMP (sq_: Q's
 * buffer, mo: O's tensor map; both used with HD_O_TMA only; with HD_KSPLIT the merge's buffer
 * follows Q's). */
HD_DEVICE void hd_attn_finish(hd_attn_acc &a, const hd_attn_blk &k, hd_u32 sq_, const hd_tmap *mo, int ctid,
                              HD_PARAMS)
{
#if HD_SPLIT > 1 /* the combine (launched dependent) may start; it waits for this grid's writes */
    hd_grid_launch_dependents();
#endif
#if HD_KSPLIT > 1
    hd_ksplit_merge(a, sq_ + HD_Q_BYTES, ctid);
    if ((ctid >> 5) == 0) /* warp 0 holds the merged rows */
#endif
#if HD_O_TMA
    hd_attn_store_tma(a, k, sq_, mo, ctid, HD_ARGS);
#else
    (void)sq_, (void)mo, hd_attn_store(a, k, ctid, HD_ARGS);
#endif
#if HD_RNG_DUMP /* the mask used, for every score of the block's rows (masked or not) */
    for (hd_i64 n = ctid; n < (hd_i64)HD_BM * HD_SKV; n += HD_CTHREADS) {
        int i = k.m0 + (int)(n / HD_SKV), j = (int)(n % HD_SKV);
        if (i < HD_SQ)
            hd_rng_dump(k.b, k.h, i, j, hd_mask_at(k.b, k.h, i, j, HD_ARGS), HD_ARGS);
    }
#endif
}

#if HD_WS
/* ---- warp-specialized Hopper loops (HD_WS 1: warpgroup 0 loads with cp.async; HD_WS 2: one
 * thread of the last warp copies whole tiles with TMA), the others compute ------------------- */

/* The warp-specialized loops' K/V pipeline in shared memory: K tiles through a ring of HD_KSTAGES
 * stages, V tiles through one of HD_VSTAGES, tile n of the block's pipeline (k.n0 + t - k.t_lo)
 * in stage n % stages of each, each stage with a `full` mbarrier (the producer's: its bytes have
 * landed) and an `empty` one (one arrival per computing warp: released). HD_KV_APART (HD_WS 2):
 * the rings apart, K released once Q·Kᵀ has read it, V once P·V has; otherwise one stage index
 * for both (HD_KSTAGES = HD_VSTAGES), the K ring's barriers covering the pair, released with V
 * (the rings apart measured 4-8% slower on one block a work tile, bench/NOTES.md #24). */
typedef struct hd_pipe {
    hd_u32 sk, sv;        /* the rings' first stages */
    hd_u32 kfull, kempty; /* HD_KSTAGES mbarriers each */
    hd_u32 vfull, vempty; /* HD_VSTAGES each (HD_WS 2) */
} hd_pipe;

/* Tile t's position in the block's pipeline. */
HD_DEVICE int hd_pipe_n(const hd_attn_blk &k, int t) { return k.n0 + t - k.t_lo; }

/* The loading warpgroup: tile n of the block into stage n % HD_STAGES once the computing warps
 * released it (`kempty`, one arrival per computing warp); `kfull` completes when all 128 threads'
 * copies of a tile have landed and been fenced for the tensor cores. Tile n - 1 is announced
 * after tile n is issued, so one tile is always in flight. */
HD_DEVICE void hd_ws_produce(const hd_attn_blk &k, const hd_pipe &p, int ptid, HD_PARAMS)
{
    const int n_tiles = k.t_hi - k.t_lo;
    for (int n = 0; n < n_tiles; n++) {
        const int st = n % HD_STAGES;
        hd_mbar_wait(p.kempty + st * 8, ((n / HD_STAGES) & 1) ^ 1); /* a fresh barrier passes parity 1 */
        hd_load_kv<128, 2>(p.sk + st * HD_K_BYTES, p.sv + st * HD_V_BYTES, k, k.t_lo + n, ptid, HD_ARGS);
        hd_cp_commit();
        if (n > 0) {
            hd_cp_wait<1>();
            hd_async_fence();
            hd_mbar_arrive(p.kfull + ((n - 1) % HD_STAGES) * 8);
        }
    }
    if (n_tiles > 0) {
        hd_cp_wait<0>();
        hd_async_fence();
        hd_mbar_arrive(p.kfull + ((n_tiles - 1) % HD_STAGES) * 8);
    }
}

#if HD_WS == 2
/* The boxes (HD_BOX_ROWS rows x 64 columns) of K/V tile j0 / HD_BN that hold keys of the batch:
 * boxes wholly past them are not copied (a paged table may end there). */
HD_DEVICE int hd_tile_boxes(const hd_attn_blk &k, int j0)
{
    return min(HD_BN / HD_BOX_ROWS, (k.skv - j0 + HD_BOX_ROWS - 1) / HD_BOX_ROWS);
}

/* The first `boxes` boxes of K (V: of V) from key j0 on, at the coordinates the hooks give (hd_k_at
 * / hd_v_at: dense rows, or a page of a paged cache): into the stage at dst completing on bar, or
 * with PREFETCH into L2 only. */
template <bool PREFETCH, bool V>
HD_DEVICE void hd_boxes(const hd_attn_blk &k, int j0, int boxes, hd_u32 dst, hd_u32 bar, const hd_tmap *map, HD_PARAMS)
{
    for (int x = 0; x < boxes; x++) {
        const int r = x * HD_BOX_ROWS;
        int c1, c2, c3;
        if (V)
            hd_v_at(k.b, k.h, j0 + r, c1, c2, c3, HD_ARGS);
        else
            hd_k_at(k.b, k.h, j0 + r, c1, c2, c3, HD_ARGS);
#pragma unroll
        for (int cb = 0; cb < (V ? HD_DV : HD_D) / 64; cb++)
            if (PREFETCH)
                hd_tma_prefetch4(map, cb * 64, c1, c2, c3);
            else
                hd_tma_load4(dst + (cb * HD_BN + r) * 128, map, bar, cb * 64, c1, c2, c3);
    }
}

#if HD_L2_AHEAD
/* Into L2, HD_L2_AHEAD blocks ahead in launch order (about the block that takes this
 * multiprocessor's turn next): that block's Q tile and first K/V tile, so that its start waits on
 * L2, not on memory. */
HD_DEVICE void hd_prefetch_ahead(const hd_tmap *mk, const hd_tmap *mv, const hd_tmap *mq, HD_PARAMS)
{
    const unsigned gx = gridDim.x, gy = gridDim.y;
    const unsigned l = blockIdx.x + gx * (blockIdx.y + gy * blockIdx.z) + HD_L2_AHEAD;
    if (l >= gx * gy * gridDim.z)
        return;
    hd_attn_blk n;
    hd_attn_setup_at(n, (int)(l / gx / gy), (int)(l / gx % gy), (int)(l % gx), 0, HD_ARGS);
#pragma unroll
    for (int cb = 0; cb < HD_D / 64; cb++)
        hd_tma_prefetch4(mq, cb * 64, n.h, n.m0, n.b);
    const int j0 = n.t_lo * HD_BN, boxes = hd_tile_boxes(n, j0);
    if (n.t_lo < n.t_hi) {
        hd_boxes<true, false>(n, j0, boxes, 0, 0, mk, HD_ARGS);
        hd_boxes<true, true>(n, j0, boxes, 0, 0, mv, HD_ARGS);
    }
}
#endif

/* The TMA producer (one thread): the work tile's K/V tiles [first, last) of its range, each
 * operand into its ring once the computing warps released that stage, as boxes of HD_BOX_ROWS rows
 * x 64 columns at the coordinates the hooks give (hd_k_at / hd_v_at: dense rows, or a page of a
 * paged cache); `full` completes with the bytes of the boxes issued. Boxes wholly past the batch's
 * keys are not copied (a paged table may end there): the consumers zero V's rows past skv
 * (hd_zero_v_tail). */
HD_DEVICE void hd_tma_produce(const hd_attn_blk &k, int first, int last, const hd_pipe &p, const hd_tmap *mk,
                              const hd_tmap *mv, const hd_tmap *mq, HD_PARAMS)
{
    (void)mq;
    for (int i = first; i < min(last, k.t_hi - k.t_lo); i++) {
        const int n = k.n0 + i, j0 = (k.t_lo + i) * HD_BN, boxes = hd_tile_boxes(k, j0);
        const int ks = n % HD_KSTAGES, vs = n % HD_VSTAGES, k_bytes = boxes * HD_BOX_ROWS * HD_D * 2;
        const int v_bytes = boxes * HD_BOX_ROWS * HD_DV * 2;
        hd_mbar_wait(p.kempty + ks * 8, ((n / HD_KSTAGES) & 1) ^ 1); /* a fresh barrier passes parity 1 */
        hd_mbar_arrive_tx(p.kfull + ks * 8, (hd_u32)(HD_KV_APART ? k_bytes : k_bytes + v_bytes));
        hd_boxes<false, false>(k, j0, boxes, p.sk + ks * HD_K_BYTES, p.kfull + ks * 8, mk, HD_ARGS);
#if HD_KV_APART
        hd_mbar_wait(p.vempty + vs * 8, ((n / HD_VSTAGES) & 1) ^ 1);
        hd_mbar_arrive_tx(p.vfull + vs * 8, (hd_u32)v_bytes);
        hd_boxes<false, true>(k, j0, boxes, p.sv + vs * HD_V_BYTES, p.vfull + vs * 8, mv, HD_ARGS);
#else
        hd_boxes<false, true>(k, j0, boxes, p.sv + vs * HD_V_BYTES, p.kfull + ks * 8, mv, HD_ARGS);
#endif
#if HD_L2_AHEAD
        if (i == 0) /* once the block's own first tile is on its way */
            hd_prefetch_ahead(mk, mv, mq, HD_ARGS);
#endif
    }
}

/* V's rows of tile t past the batch's keys to zero (they may hold another batch's values, a stale
 * tile, or nothing written at all: P is 0 there, but 0 x NaN is not 0), then fenced for the
 * tensor cores and synchronized among the computing threads. */
HD_DEVICE void hd_zero_v_tail(hd_u32 sv, const hd_attn_blk &k, int t, int ctid)
{
    const int r0 = max(k.skv - t * HD_BN, 0);
    for (int id = ctid; id < (HD_BN - r0) * (HD_DV / 8); id += HD_CTHREADS) {
        const int r = r0 + id / (HD_DV / 8), c = id % (HD_DV / 8);
        asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(sv + hd_wg_off(r, c, HD_BN)), "r"(0) : "memory");
    }
    hd_async_fence();
    hd_bar_sync_at<1, HD_CTHREADS>();
}
#endif

/* The computing warpgroups (ctid 0 .. HD_CTHREADS - 1): Q once, then per tile Q·Kᵀ, softmax,
 * P·V, and the stages back to the loader. No block-wide barrier: the two warpgroups drift apart,
 * so one's softmax can run under the other's products. */
/* K of tile t once the loader filled its stage: the stage's address. */
HD_DEVICE hd_u32 hd_k_acquire(const hd_pipe &p, const hd_attn_blk &k, int t)
{
    const int n = hd_pipe_n(k, t);
    hd_mbar_wait(p.kfull + (n % HD_KSTAGES) * 8, (n / HD_KSTAGES) & 1);
    return p.sk + (n % HD_KSTAGES) * HD_K_BYTES;
}

/* V of tile t (HD_KV_APART: once the loader filled its stage; otherwise it came with K; HD_WS 2:
 * rows past the batch's keys zeroed): the stage's address. */
HD_DEVICE hd_u32 hd_v_acquire(const hd_pipe &p, const hd_attn_blk &k, int t, int ctid)
{
    const int n = hd_pipe_n(k, t);
    const hd_u32 sv = p.sv + (n % HD_VSTAGES) * HD_V_BYTES;
#if HD_KV_APART
    hd_mbar_wait(p.vfull + (n % HD_VSTAGES) * 8, (n / HD_VSTAGES) & 1);
#endif
#if HD_WS == 2
    if ((t + 1) * HD_BN > k.skv)
        hd_zero_v_tail(sv, k, t, ctid);
#else
    (void)ctid;
#endif
    return sv;
}

/* Tile t's K stage back to the loader once Q·Kᵀ has read it (HD_KV_APART; one arrival per
 * computing warp). */
HD_DEVICE void hd_k_release(const hd_pipe &p, const hd_attn_blk &k, int t, int lane)
{
#if HD_KV_APART
    __syncwarp();
    if (lane == 0)
        hd_mbar_arrive(p.kempty + (hd_pipe_n(k, t) % HD_KSTAGES) * 8);
#else
    (void)p, (void)k, (void)t, (void)lane;
#endif
}

/* Tile t's V stage back once P·V has read it (without HD_KV_APART: the pair's stage). */
HD_DEVICE void hd_v_release(const hd_pipe &p, const hd_attn_blk &k, int t, int lane)
{
    __syncwarp();
    if (lane == 0)
        hd_mbar_arrive(HD_KV_APART ? p.vempty + (hd_pipe_n(k, t) % HD_VSTAGES) * 8
                                   : p.kempty + (hd_pipe_n(k, t) % HD_KSTAGES) * 8);
}

/* The work tile's Q buffer back to the producer (one arrival per computing warp). */
HD_DEVICE void hd_q_release(const hd_attn_blk &k, int ctid)
{
    __syncwarp();
    if ((ctid & 31) == 0)
        hd_mbar_arrive(k.qbar + 8);
}

/* The block's Q rows, loaded by the computing warps among themselves; with HD_PERSIST the
 * producer copies them (hd_tma_role) and this waits for them. */
HD_DEVICE void hd_ws_load_q(const hd_attn_blk &k, hd_u32 sq_, int ctid, HD_PARAMS)
{
#if HD_PERSIST
    (void)sq_, (void)ctid;
    if (!HD_DYN) /* HD_DYN: hd_compute_role waited for it before reading the tile's word */
        hd_mbar_wait(k.qbar, (k.item / HD_QBUF) & 1);
#else
    hd_load_q<HD_CTHREADS>(sq_, k, ctid, HD_ARGS);
    hd_cp_commit();
    hd_cp_wait<0>();
    hd_async_fence();
    hd_bar_sync_at<1, HD_CTHREADS>(); /* Q, among the computing warps */
#endif
}

#if HD_INTRA
/* The computing warpgroups in FlashAttention-3's order (intra-warpgroup overlap): each iteration
 * issues Q·Kᵀ of tile t and P·V of tile t - 1 together, then runs tile t's softmax while P·V is
 * in flight; O is rescaled once P·V has landed. In registers: one score tile, P of the previous
 * tile packed to 16 bits, O. With HD_PINGPONG the two warpgroups take turns issuing their pair of
 * products (named barriers 2 and 3), so one's softmax runs under the other's products. */
HD_DEVICE void hd_ws_consume(hd_attn_acc &a, const hd_attn_blk &k, hd_u32 sq_, const hd_pipe &pp, int ctid,
                             HD_PARAMS)
{
    const int warp = ctid >> 5, lane = ctid & 31;
    hd_ws_load_q(k, sq_, ctid, HD_ARGS);
#if HD_PINGPONG
    const int wg = warp >> 2;
    if (wg == 1 && k.item == 0) /* the first turn is warpgroup 0's; each work tile hands it back */
        hd_bar_arrive_at<2, 256>();
#endif
    if (k.t_lo >= k.t_hi)
        return;
    float s[1][HD_NS][4], alpha[1][2];
    hd_u32 p[HD_BN / 16][4];
    const hd_u32 sk0 = hd_k_acquire(pp, k, k.t_lo);
#if HD_PINGPONG
    hd_bar_sync<256>(2 + wg);
#endif
    hd_qk_issue(s, sq_, sk0, warp);
#if HD_PINGPONG
    hd_bar_arrive<256>(3 - wg);
#endif
    hd_wgmma_wait0();
    hd_acc_fence<HD_BN / 2>(&s[0][0][0]);
    hd_tr_mark(ctid, 1);
    hd_k_release(pp, k, k.t_lo, lane);
    if (HD_Q_EARLY && k.t_lo + 1 == k.t_hi)
        hd_q_release(k, ctid);
    hd_softmax(s, a, k, k.t_lo, hd_tile_cut(k, k.t_lo), warp, lane, HD_ARGS);
    hd_pack_p(p, s);
    for (int t = k.t_lo + 1; t < k.t_hi; t++) {
        const hd_u32 sk = hd_k_acquire(pp, k, t), sv_prev = hd_v_acquire(pp, k, t - 1, ctid);
#if HD_PINGPONG
        hd_bar_sync<256>(2 + wg); /* my turn */
#endif
        hd_qk_issue(s, sq_, sk, warp);
        hd_pv_issue_p(a, p, sv_prev);
#if HD_PINGPONG
        hd_bar_arrive<256>(3 - wg); /* the other's turn */
#endif
        hd_wgmma_wait_<1>(); /* Q·Kᵀ(t); P·V(t - 1) still runs */
        hd_acc_fence<HD_BN / 2>(&s[0][0][0]);
        hd_k_release(pp, k, t, lane);
        if (HD_Q_EARLY && t + 1 == k.t_hi)
            hd_q_release(k, ctid);
        hd_softmax_p(s, a, alpha, k, t, hd_tile_cut(k, t), warp, lane, HD_ARGS);
        hd_wgmma_wait0();
        hd_acc_fence<HD_DV / 2>(&a.o[0][0][0]);
        hd_v_release(pp, k, t - 1, lane);
        hd_rescale_o(a, alpha);
        hd_pack_p(p, s);
    }
    const hd_u32 sv_last = hd_v_acquire(pp, k, k.t_hi - 1, ctid);
#if HD_PINGPONG
    hd_bar_sync<256>(2 + wg);
#endif
    hd_pv_issue_p(a, p, sv_last);
#if HD_PINGPONG
    hd_bar_arrive<256>(3 - wg);
#endif
    hd_wgmma_wait0();
    hd_acc_fence<HD_DV / 2>(&a.o[0][0][0]);
    if (!HD_O_IN_STAGE) /* otherwise O is staged there first (hd_compute_role) */
        hd_v_release(pp, k, k.t_hi - 1, lane);
    hd_tr_mark(ctid, 2);
}
#else
HD_DEVICE void hd_ws_consume(hd_attn_acc &a, const hd_attn_blk &k, hd_u32 sq_, const hd_pipe &pp, int ctid,
                             HD_PARAMS)
{
    const int warp = ctid >> 5, lane = ctid & 31;
    hd_ws_load_q(k, sq_, ctid, HD_ARGS);
#if HD_PINGPONG /* the two warpgroups take turns issuing Q·Kᵀ (named barriers 2 and 3): out of phase,
                 * one's softmax runs under the other's products; warpgroup 0 goes first */
    const int wg = warp >> 2;
    if (wg == 1 && k.item == 0) /* the first turn is warpgroup 0's; each work tile hands it back */
        hd_bar_arrive_at<2, 256>();
#endif
    for (int t = k.t_lo; t < k.t_hi; t++) {
        const hd_u32 sk = hd_k_acquire(pp, k, t), sv = hd_v_acquire(pp, k, t, ctid);
        float s[1][HD_NS][4];
#if HD_PINGPONG
        hd_bar_sync<256>(2 + wg); /* my turn */
#endif
        hd_qk_issue(s, sq_, sk, warp);
#if HD_PINGPONG
        hd_bar_arrive<256>(3 - wg); /* the other's turn */
#endif
        hd_wgmma_wait0();
        hd_acc_fence<HD_BN / 2>(&s[0][0][0]);
        hd_k_release(pp, k, t, lane);
        hd_softmax(s, a, k, t, hd_tile_cut(k, t), warp, lane, HD_ARGS);
        hd_pv_issue(a, s, sv);
        hd_wgmma_wait0();
        hd_acc_fence<HD_DV / 2>(&a.o[0][0][0]);
        hd_v_release(pp, k, t, lane);
    }
}
#endif
#endif

/* The kernels' parameters: the graph's, the TMA producer's tensor maps, the split's scratch. */
#if HD_WS == 2
#define HD_MAPS_KV , const __grid_constant__ hd_tmap hd_map_k, const __grid_constant__ hd_tmap hd_map_v
#else
#define HD_MAPS_KV
#endif
#if HD_PERSIST || HD_L2_AHEAD
#define HD_MAPS_Q , const __grid_constant__ hd_tmap hd_map_q
#define HD_MAP_Q (&hd_map_q)
#else
#define HD_MAPS_Q
#define HD_MAP_Q ((const hd_tmap *)0)
#endif
#if HD_O_TMA
#define HD_MAPS_O , const __grid_constant__ hd_tmap hd_map_o
#define HD_MAP_O (&hd_map_o)
#else
#define HD_MAPS_O
#define HD_MAP_O ((const hd_tmap *)0)
#endif
#define HD_MAPS HD_MAPS_KV HD_MAPS_Q HD_MAPS_O
#if HD_DYN
#define HD_TILES hd_tiles
#else
#define HD_TILES ((unsigned *)0)
#endif
#if HD_SPLIT > 1
#define HD_KPARAMS HD_PARAMS HD_MAPS, void *hd_ws
#elif HD_DYN
#define HD_KPARAMS HD_PARAMS HD_MAPS, unsigned *hd_tiles
#else
#define HD_KPARAMS HD_PARAMS HD_MAPS
#endif
#if (HD_WS == 1 || HD_TMA_WG) && HD_MIN_BLOCKS > 1
#error "setmaxnreg moves registers within one block a multiprocessor: HD_WS 1 and HD_TMA_WG need HD_MIN_BLOCKS 1"
#endif
#if HD_RNG_DUMP && (HD_PACK > 1 || HD_SPLIT > 1)
#error "RNG_DUMP walks whole rows of one head: no packed heads, no split keys"
#endif
#if HD_KSPLIT > 1 && (HD_SM90 || HD_WS || HD_BNW % 16 != 0 || HD_THREADS != HD_KSPLIT * 32 || \
                      HD_KS_FLOATS * HD_KSPLIT * 128 > HD_STAGES * (HD_K_BYTES + HD_V_BYTES))
#error "the warps split a tile's keys (HD_KSPLIT) on the mma.sync loop: one warp each, 16 keys or more, the merge within the K/V stages"
#endif
#if HD_KV_AHEAD && (HD_WS || HD_OVERLAP)
#error "page-table entries a tile ahead (HD_KV_AHEAD) are the sequential cp.async loop's"
#endif
#if HD_KV_AHEAD > 4 || (HD_KV_AHEAD > 1 && !HD_TILE_PAGE)
#error "page-table entries more than a tile ahead take one entry a tile (HD_TILE_PAGE), at most 4 tiles"
#endif
#if HD_DYN && (!HD_PERSIST || HD_SPLIT > 1)
#error "the dynamic scheduler (HD_DYN) is the persistent grid's, without split keys"
#endif
#if HD_PERSIST && (HD_WS != 2 || HD_PACK > 1 || HD_SPLIT > 1 || HD_RNG_DUMP)
#error "the persistent grid is the TMA producer's, one query head a row tile, no split keys, no RNG_DUMP"
#endif
#if HD_QBUF != 1 && (!HD_PERSIST || HD_QBUF != 2)
#error "Q has one buffer, or two on the persistent grid"
#endif
#if (HD_KV_APART && HD_WS != 2) || (!HD_KV_APART && HD_KSTAGES != HD_VSTAGES)
#error "the K and V rings apart are the TMA producer's; together they have the same stages"
#endif
#if HD_L2_AHEAD && (HD_WS != 2 || HD_PERSIST || HD_PACK > 1 || HD_SPLIT > 1)
#error "the L2 prefetch ahead is the TMA producer's on one block a work tile, one query head a row tile, no split keys"
#endif
#if HD_O_TMA && (HD_WS != 2 || !HD_SM90 || HD_PACK > 1 || HD_SPLIT > 1 || HD_O_DT != HD_DT || HD_DVP > HD_DP || HD_DV % 64)
#error "O through TMA: the TMA producer's wgmma loop, one query head a row tile, no split keys, O of Q's type over Q's rows"
#endif

/* O, m and l of a work tile's rows before its first key. */
HD_DEVICE void hd_acc_init(hd_attn_acc &a)
{
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            a.m[mi][r] = HD_NEG_INF, a.l[mi][r] = 0.0f;
#pragma unroll
            for (int no = 0; no < HD_NO; no++)
                a.o[mi][no][2 * r] = a.o[mi][no][2 * r + 1] = 0.0f;
        }
}

#if HD_WS == 2
/* The producer thread's part of the block: the K/V tiles of its work tile; with HD_PERSIST those
 * of every work tile the block takes (hd_work_next), each with the work tile's Q (one box per 64
 * columns) into its buffer once the computing warps released it: with two buffers first, with
 * one after the tile's first K/V tile (that buffer comes free only once the last tile's Q·Kᵀ has
 * read it, HD_Q_EARLY, or after its epilogue); with HD_DYN the tiles come from hd_tile_take. */
HD_DEVICE void hd_tma_role(hd_attn_blk &k, hd_u32 sq_, const hd_pipe &p, hd_u32 qbar, const hd_tmap *mk,
                           const hd_tmap *mv, const hd_tmap *mq, unsigned *tiles, HD_PARAMS)
{
#if HD_PERSIST
    const int early = HD_QBUF == 1; /* K/V tiles issued before Q */
#if HD_DYN
    for (int q = 0, n = 0;;) {
        const int tile = hd_tile_take(tiles);
        const hd_u32 slot = hd_tile_slot(qbar, q);
        if (tile < 0) { /* the computing warps' last Q barrier carries -1 and no bytes */
            hd_mbar_wait(hd_q_bar(qbar, q) + 8, ((q / HD_QBUF) & 1) ^ 1);
            asm volatile("st.shared.s32 [%0], %1;" ::"r"(slot), "r"(-1) : "memory");
            hd_mbar_arrive(hd_q_bar(qbar, q));
            break;
        }
        hd_work_setup(k, tile, q, n, qbar, HD_ARGS);
        hd_tma_produce(k, 0, early, p, mk, mv, mq, HD_ARGS);
        hd_mbar_wait(k.qbar + 8, ((k.item / HD_QBUF) & 1) ^ 1);
        asm volatile("st.shared.s32 [%0], %1;" ::"r"(slot), "r"(tile) : "memory");
#else
    (void)tiles;
    for (int it = 0, q = 0, n = 0; hd_work_next(k, it, q, n, qbar, HD_ARGS);) {
        hd_tma_produce(k, 0, early, p, mk, mv, mq, HD_ARGS);
        hd_mbar_wait(k.qbar + 8, ((k.item / HD_QBUF) & 1) ^ 1); /* a fresh barrier passes parity 1 */
#endif
        hd_mbar_arrive_tx(k.qbar, (hd_u32)HD_Q_BYTES);
        const hd_u32 sq = hd_q_buffer(k, sq_);
#pragma unroll
        for (int cb = 0; cb < HD_D / 64; cb++)
            hd_tma_load4(sq + cb * HD_BM * 128, mq, k.qbar, cb * 64, k.h, k.m0, k.b);
        hd_tma_produce(k, early, k.t_hi - k.t_lo, p, mk, mv, mq, HD_ARGS);
    }
#else
    (void)sq_, (void)qbar, (void)tiles;
    hd_tma_produce(k, 0, k.t_hi - k.t_lo, p, mk, mv, mq, HD_ARGS);
#endif
}

/* The computing warps' part (ctid 0 .. HD_CTHREADS - 1): each work tile's products, softmax and
 * O (mo: O's tensor map with HD_O_TMA); with HD_PERSIST the work tile's Q buffer goes back to the
 * producer once its last Q·Kᵀ has landed (HD_Q_EARLY; O then staged in the last tile's K slot,
 * HD_O_IN_STAGE), else once its products are done (with HD_O_TMA once O, staged in that buffer,
 * has been copied out). */
HD_DEVICE void hd_compute_role(hd_attn_acc &a, hd_attn_blk &k, hd_u32 sq_, const hd_pipe &p, hd_u32 qbar,
                               const hd_tmap *mo, int ctid, HD_PARAMS)
{
#if HD_PERSIST
    /* The loop runs while a work tile is left, a value every lane sees alike through
     * hd_warp_uniform: with an exit the compiler cannot prove uniform, it keeps the loop's
     * counters (the K/V stage, Q's buffer) out of the uniform registers and moves every wgmma
     * descriptor there before its use, 8% of the time at 8k keys (bench/NOTES.md #29). */
    int q = 0, n = 0;
#if HD_DYN
    for (int tile = hd_tile_published(q, qbar); tile >= 0; tile = hd_tile_published(q, qbar)) {
        hd_work_setup(k, tile, q, n, qbar, HD_ARGS);
#else
    int it = 0;
    for (int w = hd_warp_uniform(hd_walk_next(it)); w >= 0; w = hd_warp_uniform(hd_walk_next(it))) {
        hd_walk_begin(k, w, q, n, qbar, HD_ARGS);
#endif
        const hd_u32 sq = hd_q_buffer(k, sq_);
        const bool keys = k.t_lo < k.t_hi, early = HD_Q_EARLY && keys, staged = HD_O_IN_STAGE && keys;
        hd_tr_mark(ctid, 0);
        hd_acc_init(a);
        hd_ws_consume(a, k, sq, p, ctid, HD_ARGS);
        if (!HD_O_TMA && !early)
            hd_q_release(k, ctid);
        if (staged) /* every warp's last Q·Kᵀ has read the K slot that O goes to */
            hd_mbar_wait(k.qbar + 8, k.item & 1);
        const hd_u32 so = staged ? p.sk + (hd_pipe_n(k, k.t_hi - 1) % HD_KSTAGES) * HD_K_BYTES : sq;
        hd_attn_finish(a, k, so, mo, ctid, HD_ARGS);
        if (HD_O_TMA && !early)
            hd_q_release(k, ctid);
        if (staged) { /* the copy has read O (its thread waited): the last tile's stage goes back */
            hd_bar_sync<128>(4 + (ctid >> 7));
            hd_v_release(p, k, k.t_hi - 1, ctid & 31);
        }
        hd_tr_mark(ctid, 3);
        hd_tr_print(k, ctid);
    }
#else
    (void)qbar;
    hd_tr_mark(ctid, 0);
    hd_ws_consume(a, k, sq_, p, ctid, HD_ARGS);
    hd_attn_finish(a, k, sq_, mo, ctid, HD_ARGS);
    hd_tr_mark(ctid, 3);
    hd_tr_print(k, ctid);
#endif
}
#endif

HD_GLOBAL __launch_bounds__(HD_THREADS, HD_MIN_BLOCKS) void hd_sdpa_fwd_kernel(HD_KPARAMS)
{
    extern __shared__ __align__(1024) unsigned char hd_smem[];
    const int tid = threadIdx.x;
    hd_attn_blk k; /* HD_PERSIST: each role sets it per work tile (hd_attn_setup_work) */
#if !HD_PERSIST
    hd_attn_setup(k, HD_ARGS);
#endif
#if HD_SPLIT > 1
    k.ws = hd_ws;
#else
    k.ws = 0;
#endif
    hd_attn_acc a;
    hd_acc_init(a);
    /* the 128-byte swizzle repeats every 1024 bytes: wgmma tiles start on that boundary */
    const hd_u32 base = (hd_smem_addr(hd_smem) + 1023) & ~1023u;
    hd_tr_start(tid);
#if HD_WS
    hd_pipe p; /* the K ring, the V ring, their mbarriers, then Q's (HD_PERSIST: full and empty per buffer) */
    p.sk = base + HD_QBUF * HD_Q_BYTES, p.sv = p.sk + HD_KSTAGES * HD_K_BYTES;
    p.kfull = p.sv + HD_VSTAGES * HD_V_BYTES, p.kempty = p.kfull + HD_KSTAGES * 8;
    p.vfull = p.kempty + HD_KSTAGES * 8, p.vempty = p.vfull + HD_VSTAGES * 8;
    const hd_u32 qbar = p.vempty + HD_VSTAGES * 8;
    if (tid == 0) {
        for (int st = 0; st < HD_KSTAGES; st++) {
            hd_mbar_init(p.kfull + st * 8, HD_WS == 2 ? 1 : 128);
            hd_mbar_init(p.kempty + st * 8, HD_CWARPS);
        }
        for (int st = 0; st < HD_VSTAGES; st++) {
            hd_mbar_init(p.vfull + st * 8, 1);
            hd_mbar_init(p.vempty + st * 8, HD_CWARPS);
        }
        for (int b = 0; HD_PERSIST && b < HD_QBUF; b++) {
            hd_mbar_init(qbar + b * 16, 1);
            hd_mbar_init(qbar + b * 16 + 8, HD_CWARPS);
        }
        hd_mbar_init_fence();
    }
    __syncthreads();
#if HD_WS == 2 && HD_TMA_WG
    if (tid < 128) { /* the producer warpgroup gives its registers to the computing ones; one thread copies */
        hd_setmaxnreg_dec<40>();
        if (tid == 0)
            hd_tma_role(k, base, p, qbar, &hd_map_k, &hd_map_v, HD_MAP_Q, HD_TILES, HD_ARGS);
    } else {
        hd_setmaxnreg_inc<232>();
        hd_compute_role(a, k, base, p, qbar, HD_MAP_O, tid - 128, HD_ARGS);
    }
#elif HD_WS == 2
    if (tid >= HD_CTHREADS) { /* the producer warp: one thread issues every copy */
        if (tid == HD_CTHREADS)
            hd_tma_role(k, base, p, qbar, &hd_map_k, &hd_map_v, HD_MAP_Q, HD_TILES, HD_ARGS);
    } else {
        hd_compute_role(a, k, base, p, qbar, HD_MAP_O, tid, HD_ARGS);
    }
#else
    if (tid < 128) { /* one branch per role: setmaxnreg moves registers to the computing warps */
        hd_setmaxnreg_dec<56>();
        hd_ws_produce(k, p, tid, HD_ARGS);
    } else {
        hd_setmaxnreg_inc<224>();
        hd_ws_consume(a, k, base, p, tid - 128, HD_ARGS);
        hd_attn_finish(a, k, base, (const hd_tmap *)0, tid - 128, HD_ARGS);
    }
#endif
#else
    hd_attn_mainloop(a, k, base, tid, HD_ARGS);
    hd_attn_finish(a, k, base, (const hd_tmap *)0, tid, HD_ARGS);
#endif
}

#if HD_SPLIT > 1
/* ---- the split combine (flash-decoding's second step) ----------------------------------------- */

/* One block per row (b, h, i): the splits' (m, l) merged to the row's max M and sum
 * L = Σ l_s·2^(m_s − M), O = Σ O_s·2^(m_s − M) / L (the sink and dropout scale as hd_attn_store
 * applies them), and the row statistics. A split that saw no key has m = −inf and weighs 0.
 * The partial results come from L2 and the work is their latency: warp g of HD_COMB_WARPS takes
 * splits g, g + HD_COMB_WARPS, .., four columns a lane, with no branch on a split's weight (a
 * weightless split's O is selected away, never multiplied: it may be unwritten), so a warp's
 * loads of several splits are in flight together; the warps' sums meet in shared memory.
 * grid (B·Hq·Sq), HD_COMB_WARPS·32 threads. */
#define HD_COMB_WARPS 4
HD_GLOBAL __launch_bounds__(HD_COMB_WARPS * 32) void hd_sdpa_combine_kernel(HD_KPARAMS)
{
    __shared__ float4 hd_part_sum[HD_COMB_WARPS - 1][32];
    hd_grid_wait(); /* launched dependent: the splits' partial results first */
    const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
    const hd_i64 row = blockIdx.x;
    const int i = (int)(row % HD_SQ), h = (int)(row / HD_SQ % HD_HQ), b = (int)(row / ((hd_i64)HD_SQ * HD_HQ));
    const float2 *ml = (const float2 *)hd_part_ml(hd_ws) + row * HD_SPLIT;
    float m = HD_NEG_INF, l = 0.0f; /* every warp merges (m, l) itself: no barrier before the sums */
    for (int s = lane; s < HD_SPLIT; s += 32)
        m = fmaxf(m, ml[s].x);
#pragma unroll
    for (int x = 16; x > 0; x >>= 1)
        m = fmaxf(m, hd_shfl_xor(m, x));
    const float use = m == HD_NEG_INF ? 0.0f : m;
    for (int s = lane; s < HD_SPLIT; s += 32)
        l += ml[s].y * hd_exp2(ml[s].x - use);
#pragma unroll
    for (int x = 16; x > 0; x >>= 1)
        l += hd_shfl_xor(l, x);
    float ms = m, ls = l;
    const float inv = hd_row_final(h, ms, ls, HD_ARGS);
    const float *po = hd_part_o(hd_ws) + row * HD_SPLIT * HD_DV;
    const hd_i64 off = hd_o_off(b, h, i, HD_ARGS);
#pragma unroll
    for (int c0 = 0; c0 < HD_DV; c0 += 128) { /* four columns a lane */
        const int c = c0 + lane * 4;
        float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (c < HD_DV) {
#pragma unroll 4
            for (int s = g; s < HD_SPLIT; s += HD_COMB_WARPS) {
                const float w = hd_exp2(ml[s].x - use);
                const float4 o = *(const float4 *)(po + (hd_i64)s * HD_DV + c);
                acc.x = hd_add_weighted(acc.x, w, o.x), acc.y = hd_add_weighted(acc.y, w, o.y);
                acc.z = hd_add_weighted(acc.z, w, o.z), acc.w = hd_add_weighted(acc.w, w, o.w);
            }
        }
        if (g > 0)
            hd_part_sum[g - 1][lane] = acc;
        __syncthreads();
        if (g == 0 && c < HD_DV) {
#pragma unroll
            for (int w = 0; w < HD_COMB_WARPS - 1; w++) {
                const float4 p = hd_part_sum[w][lane];
                acc.x += p.x, acc.y += p.y, acc.z += p.z, acc.w += p.w;
            }
            hd_st_o2(off + c, acc.x * inv, acc.y * inv, HD_ARGS);
            hd_st_o2(off + c + 2, acc.z * inv, acc.w * inv, HD_ARGS);
        }
        __syncthreads(); /* the sums are read before the next columns' are written */
    }
    if (threadIdx.x == 0)
        hd_row_stats(b, h, i, ms, ls, HD_ARGS);
}
#endif
