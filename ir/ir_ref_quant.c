/* ir_ref_quant.c — reference semantics of block-scale quantize / dequantize (MXFP8, MXFP4,
 * NVFP4, MXINT8; op-semantics.md §5) and of the paged KV-cache load (§4.8).
 *
 * Owns: ir_ref_bs_quantize, ir_quant_block_scale, ir_ref_bs_dequantize, ir_ref_paged_cache_load.
 *
 * Quantize x -> (y, scale). Blocks are block[0] consecutive elements along `axis` (negative
 * counts from the end: -1 = last); the last block of a dim that block[0] does not divide is
 * shorter. y has x's dims; scale has x's dims with dims[axis] = ceil(dims[axis] / block).
 * `transpose` only changes strides, which the views carry, so the math ignores it.
 *   ratio = amax(|x| over the block) / max_finite(y type)
 *   scale = the smallest value of the scale type >= ratio ("round up"):
 *           FP8_E8M0: the next power of two (2^-127 .. 2^127);
 *           FP8_E4M3: the next E4M3 value (saturating at 448);
 *           an all-zero block gets the smallest positive scale: E8M0 0x00 = 2^-127,
 *           E4M3 0x01 = 2^-9 (its smallest subnormal); its y is 0.
 *   y     = x / scale (in double), stored with round-to-nearest-even, saturating.
 *   max_finite: E4M3 448, E5M2 57344, E4M3_FNUZ 240, E5M2_FNUZ 57344, FP4_E2M1 6, INT8 127.
 *   A NaN in a block makes amax NaN: the scale stores NaN (E8M0 0xff, E4M3 0x7f) and every y of
 *   the block is x/NaN = NaN as y's type stores it (FP4: +6, INT8: 0). Other y / scale types are
 *   NOT_SUPPORTED.
 * Dequantize (x, scale) -> y:  y[i] = x[i] * scale[block(i)] in double, one rounding on store.
 *   block[j] (j < n_block) is the block size of dim rank - n_block + j; leading dims use 1. For
 *   each dim the scale's size must be ceil(x_dim / block) or larger (padded scale layouts), or 1
 *   (broadcast). negative_scale has no documented meaning: a set flag is NOT_SUPPORTED rather
 *   than guessed. (A scale type with a sign, e.g. E4M3, is used with its sign either way.)
 * Paged cache load (container [nblk, H, bs, D], seq_len [B,1,1,1] optional, page_table
 *   [B, 1, P, 1]) -> y [B, H, S, D], or the transposed K form [B, H, D, S]:
 *   y[b,h,s,d] = container[page_table[b,0,s/bs,0], h, s % bs, d]   for s < seq_len[b],
 *   y[b,h,s,d] = 0                                                   for s >= seq_len[b]
 *   (seq_len clamped to [0, S]; all of S when seq_len is absent). The form is recognised by
 *   dims (y.dims[3] == D: [B,H,S,D]; else y.dims[2] == D: [B,H,D,S]); when S == D the strides
 *   decide: transposed iff stride[2] == 1 and stride[3] != 1. A page id outside [0, nblk) or a
 *   page index outside [0, P) for a position that is read is BAD_PARAM (nothing written).
 */
#include <math.h>

#include "ir/ir_int.h"

/* ---- quantize --------------------------------------------------------------------------------- */

static double max_finite(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FP8_E4M3: return 448.0;
    case HIPDNN_DATA_FP8_E5M2: return 57344.0;
    case HIPDNN_DATA_FP8_E4M3_FNUZ: return 240.0;
    case HIPDNN_DATA_FP8_E5M2_FNUZ: return 57344.0;
    case HIPDNN_DATA_FP4_E2M1: return 6.0;
    case HIPDNN_DATA_INT8: return 127.0;
    case HIPDNN_DATA_FLOAT: case HIPDNN_DATA_DOUBLE: case HIPDNN_DATA_HALF: case HIPDNN_DATA_INT32:
    case HIPDNN_DATA_UINT8: case HIPDNN_DATA_BFLOAT16: case HIPDNN_DATA_FP8_E8M0:
    case HIPDNN_DATA_INT4: case HIPDNN_DATA_FP6_E2M3_EXT: case HIPDNN_DATA_FP6_E3M2_EXT:
    case HIPDNN_DATA_INT64: case HIPDNN_DATA_BOOLEAN: return 0.0;
    }
    return 0.0; /* a value outside the enum */
}

/* The smallest value of scale type t that is >= ratio (see the header). */
static double round_up_scale(hipdnnDataType_t t, double ratio)
{
    if (t == HIPDNN_DATA_FP8_E8M0)
        return ir_from_e8m0(ir_to_e8m0(ratio));
    if (isnan(ratio))
        return NAN;
    uint8_t code = ir_to_fp8_e4m3(ratio);
    if (ratio <= 0)
        return ir_from_fp8_e4m3(0x01);
    if (ir_from_fp8_e4m3(code) < ratio && code < 0x7e)
        code++;
    return ir_from_fp8_e4m3(code);
}

double ir_quant_block_scale(hipdnnDataType_t scale_t, hipdnnDataType_t y_t, double amax)
{
    return round_up_scale(scale_t, amax / max_finite(y_t));
}

typedef struct qgeom {
    int axis;
    int64_t block;
} qgeom;

static hipdnnStatus_t quant_check(const ir_quant *p, const ir_buf *x, const ir_buf *y,
                                  const ir_buf *s, qgeom *g)
{
    if (x == NULL || y == NULL || s == NULL || x->rank < 1)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "block_scale_quantize: x, y, scale required");
    if (max_finite(y->dtype) == 0.0 ||
        (s->dtype != HIPDNN_DATA_FP8_E8M0 && s->dtype != HIPDNN_DATA_FP8_E4M3))
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "block_scale_quantize: y type %d / scale type %d not supported",
                         (int)y->dtype, (int)s->dtype);
    g->axis = (int)(p->axis < 0 ? p->axis + x->rank : p->axis);
    g->block = p->n_block > 0 ? p->block[0] : 0;
    if (g->axis < 0 || g->axis >= x->rank || g->block < 1)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "block_scale_quantize: bad axis or block size");
    bool ok = y->rank == x->rank && s->rank == x->rank;
    for (int i = 0; ok && i < x->rank; i++) {
        int64_t want = i == g->axis ? (x->dims[i] + g->block - 1) / g->block : x->dims[i];
        ok = y->dims[i] == x->dims[i] && s->dims[i] == want;
    }
    if (!ok)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "block_scale_quantize: y or scale dims");
    return HIPDNN_STATUS_SUCCESS;
}

/* Quantizes the block whose scale index is sidx. */
static void quant_block(const qgeom *g, const ir_buf *x, ir_buf *y, ir_buf *s,
                        const int64_t *sidx)
{
    int64_t idx[IR_MAX_RANK], lo = sidx[g->axis] * g->block;
    int64_t hi = lo + g->block < x->dims[g->axis] ? lo + g->block : x->dims[g->axis];
    double amax = 0.0;
    for (int i = 0; i < x->rank; i++)
        idx[i] = sidx[i];
    for (idx[g->axis] = lo; idx[g->axis] < hi; idx[g->axis]++) {
        double a = fabs(ir_load(x, idx));
        amax = isnan(a) || a > amax ? a : amax;
        if (isnan(amax))
            break;
    }
    double scale = ir_quant_block_scale(s->dtype, y->dtype, amax);
    ir_store(s, sidx, scale);
    for (idx[g->axis] = lo; idx[g->axis] < hi; idx[g->axis]++)
        ir_store(y, idx, ir_load(x, idx) / scale);
}

hipdnnStatus_t ir_ref_bs_quantize(const ir_quant *p, const ir_ref_ctx *c)
{
    const ir_buf *x = IR_IN(c, 0);
    ir_buf *y = IR_OUT(c, 0), *s = IR_OUT(c, 1);
    qgeom g = {0, 0};
    hipdnnStatus_t st = quant_check(p, x, y, s, &g);
    if (st != HIPDNN_STATUS_SUCCESS || ir_buf_numel(s) == 0)
        return st;
    int64_t sidx[IR_MAX_RANK] = {0};
    do
        quant_block(&g, x, y, s, sidx);
    while (ir_next_index(s, sidx));
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- dequantize ------------------------------------------------------------------------------- */

static int64_t block_of(const ir_quant *p, int rank, int dim)
{
    int j = dim - (rank - p->n_block);
    return j >= 0 ? p->block[j] : 1;
}

static hipdnnStatus_t dequant_check(const ir_quant *p, const ir_buf *x, const ir_buf *s,
                                    const ir_buf *y)
{
    if (x == NULL || s == NULL || y == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "block_scale_dequantize: x, scale, y required");
    if (p->negative_scale)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED,
                         "block_scale_dequantize: negative_scale has no defined meaning yet");
    if (p->n_block < 0 || p->n_block > x->rank || s->rank != x->rank || y->rank != x->rank)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "block_scale_dequantize: ranks disagree");
    for (int i = 0; i < x->rank; i++) {
        int64_t bs = block_of(p, x->rank, i);
        if (bs < 1 || y->dims[i] != x->dims[i] ||
            (s->dims[i] != 1 && s->dims[i] < (x->dims[i] + bs - 1) / bs))
            return base_fail(HIPDNN_STATUS_BAD_PARAM,
                             "block_scale_dequantize: block size or scale dim %d", i);
    }
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t ir_ref_bs_dequantize(const ir_quant *p, const ir_ref_ctx *c)
{
    const ir_buf *x = IR_IN(c, 0), *s = IR_IN(c, 1);
    ir_buf *y = IR_OUT(c, 0);
    hipdnnStatus_t st = dequant_check(p, x, s, y);
    if (st != HIPDNN_STATUS_SUCCESS || ir_buf_numel(x) == 0)
        return st;
    int64_t idx[IR_MAX_RANK] = {0}, sidx[IR_MAX_RANK];
    do {
        for (int i = 0; i < x->rank; i++)
            sidx[i] = s->dims[i] == 1 ? 0 : idx[i] / block_of(p, x->rank, i);
        ir_store(y, idx, ir_load(x, idx) * ir_load(s, sidx));
    } while (ir_next_index(x, idx));
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- paged cache load ------------------------------------------------------------------------- */

typedef struct paged {
    const ir_buf *cont, *seq, *table;
    int64_t b, h, s, d, bs, nblk, pages;
    bool transposed;
} paged;

static int64_t seq_len_of(const paged *g, int64_t b)
{
    int64_t idx[IR_MAX_RANK] = {0};
    if (g->seq == NULL)
        return g->s;
    idx[0] = b;
    double v = ir_load(g->seq, idx);
    return v < 0 ? 0 : v > (double)g->s ? g->s : (int64_t)v;
}

static int64_t page_id(const paged *g, int64_t b, int64_t page)
{
    int64_t idx[4] = {b, 0, page, 0};
    return (int64_t)ir_load(g->table, idx);
}

static hipdnnStatus_t paged_shape(paged *g, const ir_buf *y)
{
    const ir_buf *ct = g->cont, *t = g->table;
    if (ct == NULL || t == NULL || y == NULL || ct->rank != 4 || t->rank != 4 || y->rank != 4)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "paged_cache_load: operands of rank 4 needed");
    g->nblk = ct->dims[0], g->h = ct->dims[1], g->bs = ct->dims[2], g->d = ct->dims[3];
    g->b = y->dims[0], g->pages = t->dims[2];
    bool sd = y->dims[3] == g->d, ds = y->dims[2] == g->d;
    if (sd && ds)
        sd = !(y->strides[2] == 1 && y->strides[3] != 1);
    if (!sd && !ds)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "paged_cache_load: y is not [B,H,S,D]/[B,H,D,S]");
    g->transposed = !sd;
    g->s = sd ? y->dims[2] : y->dims[3];
    if (y->dims[1] != g->h || t->dims[0] != g->b || t->dims[1] != 1 || t->dims[3] != 1 ||
        g->bs < 1 || (g->seq != NULL && ir_buf_numel(g->seq) != g->b))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "paged_cache_load: operand dims disagree");
    return HIPDNN_STATUS_SUCCESS;
}

/* Every page read for positions below seq_len exists and names a container block. */
static hipdnnStatus_t paged_check_table(const paged *g)
{
    for (int64_t b = 0; b < g->b; b++) {
        int64_t len = seq_len_of(g, b);
        for (int64_t page = 0; page * g->bs < len; page++) {
            int64_t id = page < g->pages ? page_id(g, b, page) : -1;
            if (id < 0 || id >= g->nblk)
                return base_fail(HIPDNN_STATUS_BAD_PARAM,
                                 "paged_cache_load: batch %lld page %lld: no valid block",
                                 (long long)b, (long long)page);
        }
    }
    return HIPDNN_STATUS_SUCCESS;
}

static double paged_value(const paged *g, int64_t b, int64_t h, int64_t s, int64_t d)
{
    if (s >= seq_len_of(g, b))
        return 0.0;
    int64_t cidx[4] = {page_id(g, b, s / g->bs), h, s % g->bs, d};
    return ir_load(g->cont, cidx);
}

hipdnnStatus_t ir_ref_paged_cache_load(const ir_ref_ctx *c)
{
    paged g = {IR_IN(c, 0), IR_IN(c, 1), IR_IN(c, 2), 0, 0, 0, 0, 0, 0, 0, false};
    ir_buf *y = IR_OUT(c, 0);
    hipdnnStatus_t st = paged_shape(&g, y);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = paged_check_table(&g);
    if (st != HIPDNN_STATUS_SUCCESS || ir_buf_numel(y) == 0)
        return st;
    int64_t idx[4] = {0};
    do {
        int64_t s = g.transposed ? idx[3] : idx[2], d = g.transposed ? idx[2] : idx[3];
        ir_store(y, idx, paged_value(&g, idx[0], idx[1], s, d));
    } while (ir_next_index(y, idx));
    return HIPDNN_STATUS_SUCCESS;
}
