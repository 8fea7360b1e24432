/* sdpa_fwd_block.h — part of sdpa_fwd.hip (inlined where sdpa_fwd.hip includes it; not a header
 * of its own: it reads sdpa_fwd.hip's defines and hooks): a block's problem (hd_attn_blk, the rows,
 * masks and key range it owns, hd_attn_setup), the persistent grid's walk over work tiles, the
 * phase trace, and the loads of Q and of K/V tiles (dense rows or pages) into shared memory. */

/* ---- the block's problem ------------------------------------------------------------------------ */

typedef struct hd_attn_blk {
    int b, h, m0;        /* batch, first query head, first (packed) row: hd_row_i / hd_row_h */
    int split;           /* the block's part of the keys (HD_SPLIT > 1) */
    void *ws;            /* HD_SPLIT > 1: the scratch of the partial results (hd_part_o) */
    int sq, skv, shift;  /* valid rows and keys of this batch; the band's diagonal shift */
    int t_lo, t_hi;      /* K/V tiles [t_lo, t_hi) hold every key a row of the block may see; with a
                          * mask modifier positions [t_lo, t_hi) of the row's list (hd_kv_tile) */
    const void *mws;     /* HD_MASK_MOD: the workspace holding the lists (sdpa_mask.h) */
    const int *kv;       /* HD_MASK_MOD: the block's row of the lists, from its first entry */
    int n0;              /* HD_WS: K/V tiles the block's pipeline passed before this work tile */
    int item;            /* HD_PERSIST: the block's work tiles before this one (Q's buffer, parity) */
    hd_u32 qbar;         /* HD_PERSIST: the `full` mbarrier of Q's buffer (its `empty` one follows) */
    hd_u32 pt;           /* HD_PT_TILES: the shared address of the block's page entries, K's then V's */
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

/* Whether key j is cut from query row i of head h (padding, band, the mask modifier). */
HD_DEVICE bool hd_masked(const hd_attn_blk &k, int h, int i, int j, HD_PARAMS)
{
#if HD_MASK_MOD /* past the padding the modifier's tensors may not be read */
    return hd_band_cut(i, j, k.sq, k.skv, k.shift) || !hd_mask_mod(k.b, h, i, j, HD_ARGS);
#else
    (void)h;
    return hd_band_cut(i, j, k.sq, k.skv, k.shift);
#endif
}

/* The K/V tile at position t of the block's walk: t, or with a mask modifier the t-th tile of the
 * block's list (the tiles the mask does not empty, ascending). */
HD_DEVICE int hd_kv_tile(const hd_attn_blk &k, int t)
{
#if HD_MASK_MOD
    return k.kv[t] & ~HD_TILE_PART_BIT;
#else
    (void)k;
    return t;
#endif
}

/* Whether the tile at position t may hold a masked (row, key) pair of the block: then it checks
 * each element (a mask modifier's PARTIAL tiles, or the band and padding may cut it). */
HD_DEVICE bool hd_tile_cut(const hd_attn_blk &k, int t)
{
    /* rows past HD_SQ are never stored: they need no mask */
    bool cut = hd_band_block_cut(hd_row_i(k, 0), min(hd_row_i(k, HD_BM - 1), HD_SQ - 1), hd_kv_tile(k, t) * HD_BN,
                                 HD_BN, k.sq, k.skv, k.shift);
#if HD_MASK_MOD
    cut = cut || k.kv[t] < 0;
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
#if HD_MASK_MOD /* the positions of the list's tiles within [t_lo, t_hi) */
    k.kv = hd_mask_list(k.mws, b, h, k.m0 / HD_BM);
    const int n = k.kv[0];
    k.kv += 1;
    const int p_lo = hd_mask_lower(k.kv, n, k.t_lo), p_hi = hd_mask_lower(k.kv, n, k.t_hi);
    k.t_lo = p_lo, k.t_hi = max(p_lo, p_hi);
#endif
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
#if HD_PT_TILES
    pg[0] = (int)hd_lds32(k.pt + ((V ? HD_PT_TILES : 0) + t - k.t_lo) * 4);
    (void)j0;
#else
    pg[0] = j0 < k.skv ? (V ? hd_v_page(k.b, j0, HD_ARGS) : hd_k_page(k.b, j0, HD_ARGS)) : 0;
#endif
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
#if HD_TILE_PAGE /* the tile's first row once; row r of the tile is HD_<K|V>_PAGE_ROW · r past it */
    const int j0 = t * HD_BN, left = k.skv - j0;
    const hd_u16 *tile = base;
    if (left > 0)
        tile += V ? hd_v_row(pg[0], k.b, k.h, j0, HD_ARGS) : hd_k_row(pg[0], k.b, k.h, j0, HD_ARGS);
    const hd_i64 row = V ? HD_V_PAGE_ROW : HD_K_PAGE_ROW;
#endif
#pragma unroll
    for (int g = 0; g < G; g++) {
        int id = tid + (n0 + g) * NT, r = id / DC, c = id % DC;
        if (n0 + g >= N || (HD_BN * DC % NT != 0 && id >= HD_BN * DC))
            break;
#if HD_TILE_PAGE /* rows past skv stay inside the tile's page: the address is valid, nothing is read */
        bool ok = r < left && c * 8 < DIM;
        const hd_u16 *src = tile + row * r + c * 8;
        hd_cp_async16(dst + hd_tile_off(r, c, HD_BN, CH), DIM % 16 == 0 || ok ? src : base, ok ? 16 : 0);
#else
        int j = t * HD_BN + r;
        bool ok = j < k.skv && c * 8 < DIM;
        hd_i64 off = V ? hd_v_row(pg[HD_PG(g)], k.b, k.h, j, HD_ARGS) : hd_k_row(pg[HD_PG(g)], k.b, k.h, j, HD_ARGS);
        hd_cp_async16(dst + hd_tile_off(r, c, HD_BN, CH), ok ? base + off + c * 8 : base, ok ? 16 : 0);
#endif
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

/* The K/V tile at position t of the walk (hd_kv_tile: keys [tile·BN, tile·BN + BN)) into one stage. */
template <int NT, int UNROLL = 64> HD_DEVICE void hd_load_kv(hd_u32 sk, hd_u32 sv, const hd_attn_blk &k, int t, int tid, HD_PARAMS)
{
    const int tile = hd_kv_tile(k, t);
    hd_load_rows<NT, UNROLL, false, HD_D, HD_DP>(sk, k, tile, tid, HD_ARGS);
    hd_load_rows<NT, UNROLL, true, HD_DV, HD_DVP>(sv, k, tile, tid, HD_ARGS);
}

/* HD_PT_TILES: the block's page-table entries of K and V, a tile each, into shared memory (an entry
 * past the int range as -1, which the row hooks read as block 0, as they do the entry itself). */
HD_DEVICE void hd_page_entries(const hd_attn_blk &k, int tid, HD_PARAMS)
{
#if HD_PT_TILES
    for (int i = tid; i < k.t_hi - k.t_lo; i += HD_THREADS) {
        const int j0 = (k.t_lo + i) * HD_BN;
        hd_i64 ke = j0 < k.skv ? hd_k_page(k.b, j0, HD_ARGS) : 0, ve = j0 < k.skv ? hd_v_page(k.b, j0, HD_ARGS) : 0;
        hd_sts32(k.pt + i * 4, (hd_u32)(ke < 0 || ke > 0x7fffffff ? -1 : ke));
        hd_sts32(k.pt + (HD_PT_TILES + i) * 4, (hd_u32)(ve < 0 || ve > 0x7fffffff ? -1 : ve));
    }
    __syncthreads();
#else
    (void)k, (void)tid;
#endif
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
