/* sdpa_fwd_tile.h — part of sdpa_fwd.hip (inlined where sdpa_fwd.hip includes it; reads its
 * defines and hooks): one K/V tile's work — S = Q·Kᵀ (mma.sync or wgmma), the online softmax with
 * the masks, bias, ALiBi, score modifier and dropout, O += P·V — and the two main loops that run
 * it tile after tile (the sequential one, and with HD_OVERLAP the overlapped wgmma loop). */

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
    const int tile = hd_kv_tile(k, t); /* t: the position in the block's walk */
#pragma unroll
    for (int mi = 0; mi < HD_MW; mi++)
#pragma unroll
        for (int ni = 0; ni < HD_NS; ni++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int r = (hd_wrow(warp) + mi) * 16 + (lane >> 2) + (e >> 1) * 8, i = hd_row_i(k, r), h = hd_row_h(k, r);
                int j = tile * HD_BN + hd_wkey(warp) + ni * 8 + (lane & 3) * 2 + (e & 1);
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
                if (CUT && hd_masked(k, h, i, j, HD_ARGS))
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
                    int j = tile * HD_BN + hd_wkey(warp) + ni * 8 + (lane & 3) * 2 + (e & 1);
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
    hd_page_entries(k, tid, HD_ARGS); /* HD_PT_TILES: Q's copies in flight meanwhile */
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
