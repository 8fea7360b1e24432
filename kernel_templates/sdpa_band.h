/* sdpa_band.h — part of the attention templates (sdpa_fwd.hip, sdpa_bwd.hip, sdpa_fwd_fp8.hip;
 * inlined where each includes it, after the generated band defines HD_HAS_RIGHT, HD_RIGHT,
 * HD_HAS_LEFT, HD_LEFT): which (query row, key) pairs the padding and the diagonal band cut
 * (op-semantics §4.4), one pair or a block of them. sq, skv: the batch's valid rows and keys;
 * shift: the band's diagonal shift (skv − sq bottom-right, else 0). */

/* Whether key j is cut from query row i. */
HD_DEVICE bool hd_band_cut(int i, int j, int sq, int skv, int shift)
{
    bool cut = i >= sq || j >= skv;
#if HD_HAS_RIGHT
    cut = cut || j > i + shift + HD_RIGHT;
#endif
#if HD_HAS_LEFT
    cut = cut || j <= i + shift - HD_LEFT;
#endif
    (void)shift;
    return cut;
}

/* Whether rows [i_lo, i_hi] x keys [j0, j0 + nj) may hold a cut pair: then the mask is checked per
 * element. */
HD_DEVICE bool hd_band_block_cut(int i_lo, int i_hi, int j0, int nj, int sq, int skv, int shift)
{
    bool cut = j0 + nj > skv || i_hi >= sq;
#if HD_HAS_RIGHT
    cut = cut || j0 + nj - 1 > i_lo + shift + HD_RIGHT;
#endif
#if HD_HAS_LEFT
    cut = cut || j0 <= i_hi + shift - HD_LEFT;
#endif
    (void)i_lo, (void)shift;
    return cut;
}
