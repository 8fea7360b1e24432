/* fe_check_quant.c — the finalize rules of block-scale quantize and dequantize (§5).
 *
 * One function per operation, named in the `check` column of graph/fe_ops.def and called
 * by fe_check_op (fe_check.c) after the generic and shared rules; the helpers and the
 * conventions (tensor letters, messages) are fe_check.h's.
 */
#include <stdio.h>
#include <string.h>

#include "graph/fe_check.h"

/* ---- block-scale quantize / dequantize (§5) -------------------------------------------------------- */

static bool bsq_y_type(hipdnnDataType_t t)
{
    return t == HIPDNN_DATA_FP8_E4M3 || t == HIPDNN_DATA_FP8_E5M2 || t == HIPDNN_DATA_FP4_E2M1 ||
           t == HIPDNN_DATA_INT8;
}

static hipdnnStatus_t bsq_types(fe_obj *op, const fe_port *y, const fe_port *scale)
{
    if (!bsq_y_type(y->t.dtype))
        return fe_op_bad(op, "Y has data type %s; must be FP8_E4M3, FP8_E5M2, FP4_E2M1 or INT8",
                   fe_dtype_name(y->t.dtype));
    if (scale->t.dtype != HIPDNN_DATA_FP8_E8M0 && scale->t.dtype != HIPDNN_DATA_FP8_E4M3)
        return fe_op_bad(op, "SCALE has data type %s; must be FP8_E8M0 or FP8_E4M3",
                   fe_dtype_name(scale->t.dtype));
    return OK;
}

/* TRANSPOSE changes only the layout (strides) of Y and SCALE, so no dims rule depends on it. */
hipdnnStatus_t fe_check_bs_quantize(fe_obj *op)
{
    fe_port x = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC, "X");
    fe_port y = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC, "Y");
    fe_port scale = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC, "SCALE");
    int r = x.t.rank;
    int32_t block = fe_get(op, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE)->one.i32;
    int64_t axis = fe_op_has(op, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT)
                       ? fe_get(op, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT)->one.i64
                       : r - 1;
    if (block <= 0)
        return fe_op_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE %d must be > 0", block);
    if (axis < 0 || axis >= r)
        return fe_op_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT %lld is outside [0, %d) "
                   "for X %s", (long long)axis, r, DIMS(&x));
    if (x.t.dims[axis] % block != 0)
        return fe_op_bad(op, "X %s: dim %lld (%lld) is not a multiple of BLOCK_SIZE %d", DIMS(&x),
                   (long long)axis, (long long)x.t.dims[axis], block);
    TRY(fe_need_same(op, &y, &x));
    int64_t want[FE_MAX_RANK];
    for (int i = 0; i < r; i++)
        want[i] = i == axis ? x.t.dims[i] / block : x.t.dims[i];
    TRY(fe_need_shape(op, &scale, r, want, "X's dims with the blocked axis divided by BLOCK_SIZE"));
    return bsq_types(op, &y, &scale);
}

/* BLOCK_SIZE[j] applies to dim rank - n + j. SCALE has X's rank; a blocked dim holds at least
 * ceil(X dim / block) scales (larger: padded layouts such as F8_128x4, §5.4); a leading dim
 * without a block entry equals X's or is 1 (one scale shared along it). */
static hipdnnStatus_t bsd_scale_dim(fe_obj *op, const fe_port *x, const fe_port *s, int i, int64_t blk)
{
    int64_t xd = x->t.dims[i], sd = s->t.dims[i];
    if (blk == 0 && (sd == xd || sd == 1))
        return OK;
    if (blk == 0)
        return fe_op_bad(op, "SCALE %s: dim %d is %lld, must be X's (%lld) or 1 (X %s)", DIMS(s), i,
                   (long long)sd, (long long)xd, DIMS(x));
    int64_t need = (xd - 1) / blk + 1; /* ceil(xd / blk), xd >= 1 */
    if (sd >= need)
        return OK;
    return fe_op_bad(op, "SCALE %s: dim %d is %lld, needs at least ceil(%lld / %lld) = %lld (X %s)",
               DIMS(s), i, (long long)sd, (long long)xd, (long long)blk, (long long)need, DIMS(x));
}

hipdnnStatus_t fe_check_bs_dequantize(fe_obj *op)
{
    fe_port x = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC, "X");
    fe_port s = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC, "SCALE");
    fe_port y = PORT(HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC, "Y");
    fe_val *bv = fe_get(op, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE);
    const int32_t *blk = bv->arr;
    int r = x.t.rank, n = (int)bv->n;
    if (n > r)
        return fe_op_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE has %d entries, "
                   "more than X %s has dims", n, DIMS(&x));
    for (int j = 0; j < n; j++)
        if (blk[j] <= 0)
            return fe_op_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE entry %d is "
                       "%d, must be > 0", j, blk[j]);
    TRY(fe_need_same(op, &y, &x));
    TRY(fe_need_rank(op, &s, r, r));
    for (int i = 0; i < r; i++)
        TRY(bsd_scale_dim(op, &x, &s, i, i >= r - n ? blk[i - (r - n)] : 0));
    return OK;
}
