/* sdpa_fwd_ws.h — part of sdpa_fwd.hip (inlined where sdpa_fwd.hip includes it; reads its
 * defines and hooks): the warp-specialized Hopper loops (HD_WS) — the K/V pipeline's rings and
 * mbarriers, the cp.async loading warpgroup (HD_WS 1), the TMA producer (HD_WS 2: boxes of dense
 * rows or pages, the L2 prefetch ahead), and the computing warpgroups' consume loops (ping-pong,
 * FlashAttention-3's order). */

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
HD_DEVICE void hd_prefetch_ahead(const hd_attn_blk &k, const hd_tmap *mk, const hd_tmap *mv, const hd_tmap *mq,
                                  HD_PARAMS)
{
    const unsigned gx = gridDim.x, gy = gridDim.y;
    const unsigned l = blockIdx.x + gx * (blockIdx.y + gy * blockIdx.z) + HD_L2_AHEAD;
    if (l >= gx * gy * gridDim.z)
        return;
    hd_attn_blk n = k; /* the lists' workspace (HD_MASK_MOD) */
    hd_attn_setup_at(n, (int)(l / gx / gy), (int)(l / gx % gy), (int)(l % gx), 0, HD_ARGS);
#pragma unroll
    for (int cb = 0; cb < HD_D / 64; cb++)
        hd_tma_prefetch4(mq, cb * 64, n.h, n.m0, n.b);
    if (n.t_lo < n.t_hi) {
        const int j0 = hd_kv_tile(n, n.t_lo) * HD_BN, boxes = hd_tile_boxes(n, j0);
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
        const int n = k.n0 + i, j0 = hd_kv_tile(k, k.t_lo + i) * HD_BN, boxes = hd_tile_boxes(k, j0);
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
            hd_prefetch_ahead(k, mk, mv, mq, HD_ARGS);
#endif
    }
}

/* V's rows of tile t past the batch's keys to zero (they may hold another batch's values, a stale
 * tile, or nothing written at all: P is 0 there, but 0 x NaN is not 0), then fenced for the
 * tensor cores and synchronized among the computing threads. */
HD_DEVICE void hd_zero_v_tail(hd_u32 sv, const hd_attn_blk &k, int t, int ctid)
{
    const int r0 = max(k.skv - hd_kv_tile(k, t) * HD_BN, 0);
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
    if ((hd_kv_tile(k, t) + 1) * HD_BN > k.skv)
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
