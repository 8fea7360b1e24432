/* sdpa_mask.h — part of the attention templates sdpa_fwd.hip and sdpa_bwd.hip (inlined where they
 * include it, with HD_MASK_MOD 1; reads their defines and the generated hooks): a mask modifier's
 * block classification on the GPU and the lists of tiles the attention kernels walk
 * (FlexAttention's BlockMask, built each execution from the tensors the mask reads).
 *
 * Generated hooks it reads:
 *   hd_mask_class(b, h, i0, i1, j0, j1, ..)  the modifier's chain evaluated once over the index
 *       box [b] x [h] x [i0, i1] x [j0, j1] in interval arithmetic (sdpa_mask_iv.h):
 *       HD_TILE_EMPTY (every score masked), HD_TILE_FULL (none) or HD_TILE_PARTIAL (unknown)
 *   hd_mask_mod(b, h, i, j, ..)              the chain at one score: false masks it
 * and the defines of the lists' geometry:
 *   HD_MASK_BY_KEY   0: a row per query tile listing key tiles (the forward); 1: a row per key
 *                    block listing query tiles (the backward's dK / dV pass)
 *   HD_MASK_ROWS, HD_MASK_RSIZE   rows per (batch, head) and the indices a row spans
 *   HD_MASK_COLS, HD_MASK_CSIZE   tiles a row may list and the indices each spans
 *   HD_MASK_NB, HD_MASK_NH        1 where the mask does not depend on the batch / head (the lists
 *                                 are shared), else B / Hq
 *   HD_MASK_OFF                   the lists' byte offset in the workspace
 *   HD_MASK_KPARAMS               the parameters of the template's kernels (the same arguments)
 *
 * The interval steps are the library sdpa_mask_iv.h's (ir/ir_block_mask.c's rules): EMPTY and FULL
 * are never wrong; a tile the rules cannot decide is PARTIAL, its scores go through hd_mask_mod.
 *
 * Lists: one row per (batch, head, row) of HD_MASK_COLS + 1 ints — [count, entry 0, .., entry
 * count − 1, unused] — whose entries are the tiles that are not EMPTY in ascending order, PARTIAL
 * ones with the sign bit set (HD_TILE_PART_BIT).
 */

/* ---- the lists -------------------------------------------------------------------------------- */

/* Row r (a query tile, or HD_MASK_BY_KEY a key block) of batch b, query head h of the lists (shared
 * where the mask does not depend on them). */
HD_DEVICE const int *hd_mask_list(const void *ws, int b, int h, int r)
{
    const int nb = HD_MASK_NB > 1 ? b : 0, nh = HD_MASK_NH > 1 ? h : 0;
    return (const int *)((const char *)ws + HD_MASK_OFF) + ((hd_i64)(nb * HD_MASK_NH + nh) * HD_MASK_ROWS + r) *
                                                               (HD_MASK_COLS + 1);
}

/* The position of the first entry whose key tile is >= t in a list of n ascending entries. */
HD_DEVICE int hd_mask_lower(const int *e, int n, int t)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if ((e[mid] & ~HD_TILE_PART_BIT) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Grid (HD_MASK_ROWS, HD_MASK_NH, HD_MASK_NB), 128 threads: block (r, h, b) classifies the tiles
 * of its row, 128 at a time (one a thread), and appends the ones not EMPTY in order (a ballot per
 * warp, the warps' counts in shared memory). The template's kernels' parameters. */
HD_GLOBAL __launch_bounds__(128) void hd_sdpa_mask_kernel(HD_MASK_KPARAMS)
{
    __shared__ int warp_n[4];
    const int r = (int)blockIdx.x, h = (int)blockIdx.y, b = (int)blockIdx.z, tid = (int)threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31;
    int *row = (int *)hd_mask_list(hd_ws, b, h, r);
    const int r0 = r * HD_MASK_RSIZE, r1 = min(r0 + HD_MASK_RSIZE, HD_MASK_BY_KEY ? HD_SKV : HD_SQ) - 1;
    int base = 0;
    for (int c0 = 0; c0 < HD_MASK_COLS; c0 += 128) {
        const int c = c0 + tid, x0 = c * HD_MASK_CSIZE;
        const int x1 = min(x0 + HD_MASK_CSIZE, HD_MASK_BY_KEY ? HD_SQ : HD_SKV) - 1;
        int k = HD_TILE_EMPTY;
        if (c < HD_MASK_COLS)
            k = HD_MASK_BY_KEY ? hd_mask_class(b, h, x0, x1, r0, r1, HD_ARGS) : hd_mask_class(b, h, r0, r1, x0, x1, HD_ARGS);
        const unsigned keep = __ballot_sync(0xffffffffu, k != HD_TILE_EMPTY);
        if (lane == 0)
            warp_n[warp] = __popc(keep);
        __syncthreads();
        int at = base + __popc(keep & ((1u << lane) - 1u));
        for (int w = 0; w < warp; w++)
            at += warp_n[w];
        if (k != HD_TILE_EMPTY)
            row[1 + at] = c | (k == HD_TILE_PARTIAL ? HD_TILE_PART_BIT : 0);
        base += warp_n[0] + warp_n[1] + warp_n[2] + warp_n[3];
        __syncthreads(); /* warp_n is rewritten by the next round */
    }
    if (tid == 0)
        row[0] = base;
}
