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
 *                                       first row's offset from it once, row r HD_K_PAGE_ROW ·
 *                                       r (V: HD_V_PAGE_ROW) past it (the paged hooks' page key stride)
 *           HD_PT_TILES                 0, or the most tiles a block walks (HD_TILE_PAGE on the sequential
 *                                       loop): the block's page-table entries copied to shared memory
 *                                       (after the K/V stages, 4 bytes a tile and operand) at its start
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
#ifndef HD_MASK_MOD
#define HD_MASK_MOD 0
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
#ifndef HD_PT_TILES
#define HD_PT_TILES 0
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
                       (HD_WS ? (HD_KSTAGES + HD_VSTAGES) * 16 + HD_QBUF * 16 : 0) + (HD_DYN ? HD_QBUF * 16 : 0) + \
                       HD_PT_TILES * 8)
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

/* The kernels' parameters: the graph's, the TMA producer's tensor maps, the workspace (the split's
 * scratch, the mask's lists), the dynamic scheduler's counter. */
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
#if HD_SPLIT > 1 || HD_MASK_MOD /* the workspace: the split's scratch, the mask's lists */
#define HD_WS_PARAM , void *hd_ws
#else
#define HD_WS_PARAM
#endif
#if HD_DYN
#define HD_KPARAMS HD_PARAMS HD_MAPS HD_WS_PARAM, unsigned *hd_tiles
#else
#define HD_KPARAMS HD_PARAMS HD_MAPS HD_WS_PARAM
#endif
#include "sdpa_band.h"

#if HD_MASK_MOD
#define HD_MASK_KPARAMS HD_KPARAMS
#include "sdpa_mask.h"
#endif

#include "sdpa_fwd_block.h"

#include "sdpa_fwd_tile.h"

#include "sdpa_fwd_store.h"

#include "sdpa_fwd_ws.h"

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
#if HD_TILE_PAGE && !(defined(HD_K_PAGE_ROW) && defined(HD_V_PAGE_ROW))
#error "one page entry a tile (HD_TILE_PAGE) takes the paged hooks' key strides HD_K_PAGE_ROW and HD_V_PAGE_ROW"
#endif
#if HD_PT_TILES && (!HD_TILE_PAGE || HD_WS || HD_OVERLAP)
#error "page-table entries in shared memory (HD_PT_TILES) are the sequential loop's, one entry a tile (HD_TILE_PAGE)"
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
#if HD_MASK_MOD
    k.mws = hd_ws; /* the lists hd_sdpa_mask_kernel wrote */
#else
    k.mws = 0;
#endif
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
#if HD_PT_TILES
    k.pt = base + HD_Q_BYTES + HD_STAGES * (HD_K_BYTES + HD_V_BYTES);
#endif
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
