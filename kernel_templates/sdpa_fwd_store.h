/* sdpa_fwd_store.h — part of sdpa_fwd.hip (inlined where sdpa_fwd.hip includes it; reads its
 * defines and hooks): the epilogue — each row's final factor (sink, dead rows), O stored (per
 * thread, or through shared memory and TMA), the split's partial results, the key-split warps'
 * merge (HD_KSPLIT), the row statistics and RNG_DUMP (hd_attn_finish). */

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
