/* sdpa_bwd_kv.h — part of sdpa_bwd.hip (inlined where sdpa_bwd.hip includes it; not a header of
 * its own: it reads sdpa_bwd.hip's defines and hooks): launch 2, the dK / dV pass over one block of
 * keys (with dQ by atomics or by bulk reduce-adds where the graph allows), on mma.sync or on wgmma
 * (sm_90a: the warpgroups' products, the overlapped order, the loading warpgroup HD_LOADER). */

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
            hd_dbias_put(c, i, j, p == 0.0f && hd_masked(c, i, j, HD_ARGS) ? HD_NEG_INF : 0.0f, ds, hd_ws, HD_ARGS);
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

/* Tile it of a kv block's walk (the group's query heads, each over n_mt query tiles from mt0: the
 * tiles the band lets see the block's keys; with a mask modifier positions mt0 .. of the block's
 * list kvl, the tiles the mask leaves): its query head, first row, and whether the mask cuts it
 * in part. */
HD_DEVICE void hd_kv_walk(int it, int hk, int mt0, int n_mt, const int *kvl, int &h, int &m0, bool &part)
{
    h = hk * (HD_HQ / HD_HK) + it / n_mt;
#if HD_MASK_MOD
    const int e = kvl[mt0 + it % n_mt];
    m0 = (e & ~HD_TILE_PART_BIT) * HD_BM, part = e < 0;
#else
    (void)kvl;
    m0 = (mt0 + it % n_mt) * HD_BM, part = false;
#endif
}

/* Tile it of the walk, in stage st (its lse2 and Dn at sl), against the warp's 16 keys from n0 +
 * 16·warp: dV and dK accumulate (and dQ with HD_ATOMIC). */
HD_DEVICE void hd_kv_step(float (*dk)[4], float (*dv)[4], const hd_bwd_ctx &c, int h, int m0, bool part, hd_u32 sk,
                          hd_u32 sv, hd_u32 st, const float *sl, hd_u32 sds, hd_u32 sdq, int it, int n0, int warp,
                          int lane, void *hd_ws, HD_PARAMS)
{
    hd_bwd_ctx ch = c; /* this query head's slope and dropout numbering, the mask's cut */
    ch.h = h, ch.part = part;
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
HD_DEVICE void hd_kv_load_role(hd_u32 s0, hd_u32 full, hd_u32 empty, int b, int hk, int mt0, int n_mt,
                               const int *kvl, int n_it, int sq, int ltid, void *hd_ws, HD_PARAMS)
{
    for (int it = 0; it < n_it; it++) {
        const int st = it % HD_STAGES;
        int h, m0;
        bool part;
        hd_kv_walk(it, hk, mt0, n_mt, kvl, h, m0, part);
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
    int mt0 = lo / HD_BM, n_mt = hi > lo ? (hi + HD_BM - 1) / HD_BM - mt0 : 0;
    const int *kvl = 0;
#if HD_MASK_MOD /* the positions of the block's list whose query tiles lie in [mt0, mt0 + n_mt) */
    kvl = hd_mask_list(hd_ws, b, hk * group, (int)blockIdx.x);
    const int n_e = kvl[0];
    kvl += 1;
    const int p_lo = hd_mask_lower(kvl, n_e, mt0), p_hi = hd_mask_lower(kvl, n_e, mt0 + n_mt);
    mt0 = p_lo, n_mt = max(p_hi - p_lo, 0);
#endif
    const int n_it = group * n_mt;
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
        hd_kv_load_role(s0, full, empty, b, hk, mt0, n_mt, kvl, n_it, c.sq, (int)threadIdx.x, hd_ws, HD_ARGS);
        return;
    }
    hd_setmaxnreg_inc<232>();
    hd_zero<HD_ND>(dk);
    hd_zero<HD_NDV>(dv);
    for (int it = 0; it < n_it; it++) {
        const int stage = it % HD_STAGES;
        int h, m0;
        bool part;
        hd_kv_walk(it, hk, mt0, n_mt, kvl, h, m0, part);
        hd_mbar_wait(full + stage * 8, (it / HD_STAGES) & 1);
        const hd_u32 st = s0 + stage * HD_STAGE_BYTES;
        const float *sl = (const float *)(gbase + (st - base) + HD_QT_BYTES + HD_OT_BYTES);
        hd_kv_step(dk, dv, c, h, m0, part, sk, sv, st, sl, sds, sdq, it, n0, warp, lane, hd_ws, HD_ARGS);
        __syncwarp();
        if (lane == 0)
            hd_mbar_arrive(empty + stage * 8); /* the warp has read the stage */
    }
#else
    hd_zero<HD_ND>(dk);
    hd_zero<HD_NDV>(dv);
    if (HD_STAGES > 1 && n_it > 0) {
        int h0, m00;
        bool part0;
        hd_kv_walk(0, hk, mt0, n_mt, kvl, h0, m00, part0);
        hd_kv_load_stage(s0, b, h0, m00, c.sq, tid, HD_THREADS, hd_ws, HD_ARGS);
    }
    hd_cp_commit(); /* K, V (and the first tile) */
    for (int it = 0; it < n_it; it++) {
        const int stage = it % HD_STAGES;
        int h, m0;
        bool part;
        hd_kv_walk(it, hk, mt0, n_mt, kvl, h, m0, part);
        if (HD_STAGES == 1) {
            hd_kv_load_stage(s0, b, h, m0, c.sq, tid, HD_THREADS, hd_ws, HD_ARGS);
            hd_cp_commit();
        }
        hd_cp_wait<0>();
        hd_landed();
        __syncthreads(); /* tile it is in shared memory; the stage of tile it - 1 is free */
        if (HD_STAGES > 1 && it + 1 < n_it) {
            int h1, m1;
            bool part1;
            hd_kv_walk(it + 1, hk, mt0, n_mt, kvl, h1, m1, part1);
            hd_kv_load_stage(s0 + ((it + 1) % HD_STAGES) * HD_STAGE_BYTES, b, h1, m1, c.sq, tid, HD_THREADS, hd_ws,
                             HD_ARGS);
            hd_cp_commit();
        }
        const hd_u32 st = s0 + stage * HD_STAGE_BYTES;
        const float *sl = (const float *)(gbase + (st - base) + HD_QT_BYTES + HD_OT_BYTES);
        hd_kv_step(dk, dv, c, h, m0, part, sk, sv, st, sl, sds, sdq, it, n0, warp, lane, hd_ws, HD_ARGS);
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
