/* ir_ref_matmul.c — reference semantics of MATMUL: C[.., M, N] = sum_k A[.., M, k] * B[.., k, N].
 *
 * Owns: ir_ref_matmul. The last two dims are the matrix dims; the leading dims are batch dims,
 * right-aligned (a missing leading dim counts as 1). Batch broadcasting (op-semantics.md §2.1):
 * each batch dim of A (and of B) must divide C's; C batch index i reads A batch index
 * i / (C_dim / A_dim). That covers plain broadcasting (A_dim = 1: always index 0), equal dims,
 * and the grouped ("repeat-interleave") broadcast of GQA: q-head j uses k-head j / (Hq / Hk).
 * Any strides. The sum is accumulated in double in k order and rounded once on store.
 */
#include "ir/ir_int.h"

typedef struct mm_shape {
    int64_t m, n, k;
} mm_shape;

/* Batch dims of x (rank rx, matrix dims excluded) divide those of c (rank rc). */
static bool batch_divides(const ir_buf *x, const ir_buf *c)
{
    int lead = c->rank - x->rank;
    if (lead < 0)
        return false;
    for (int i = 0; i < x->rank - 2; i++) {
        int64_t xd = x->dims[i], cd = c->dims[i + lead];
        if (xd <= 0 || cd % xd != 0)
            return false;
    }
    return true;
}

static hipdnnStatus_t check_shapes(const ir_buf *a, const ir_buf *b, const ir_buf *y,
                                   mm_shape *s)
{
    if (a == NULL || b == NULL || y == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "matmul: A, B and C are required");
    if (a->rank < 2 || b->rank < 2 || y->rank < 2)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "matmul: operands need rank >= 2");
    s->m = a->dims[a->rank - 2];
    s->k = a->dims[a->rank - 1];
    s->n = b->dims[b->rank - 1];
    if (b->dims[b->rank - 2] != s->k || y->dims[y->rank - 2] != s->m ||
        y->dims[y->rank - 1] != s->n)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "matmul: matrix dims do not agree");
    if (ir_buf_numel(y) > 0 && (!batch_divides(a, y) || !batch_divides(b, y)))
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "matmul: a batch dim of A or B does not divide C's");
    return HIPDNN_STATUS_SUCCESS;
}

/* The batch part of x's index for C index cidx (matrix positions are filled by the caller). */
static void batch_index(const ir_buf *x, const ir_buf *c, const int64_t *cidx, int64_t *xidx)
{
    int lead = c->rank - x->rank;
    for (int i = 0; i < x->rank - 2; i++)
        xidx[i] = cidx[i + lead] / (c->dims[i + lead] / x->dims[i]);
}

static double dot(const ir_buf *a, const ir_buf *b, int64_t *aidx, int64_t *bidx, int64_t k)
{
    double acc = 0.0;
    for (int64_t t = 0; t < k; t++) {
        aidx[a->rank - 1] = t;
        bidx[b->rank - 2] = t;
        acc += ir_load(a, aidx) * ir_load(b, bidx);
    }
    return acc;
}

hipdnnStatus_t ir_ref_matmul(const ir_ref_ctx *c)
{
    const ir_buf *a = IR_IN(c, 0), *b = IR_IN(c, 1);
    ir_buf *y = IR_OUT(c, 0);
    mm_shape s = {0, 0, 0};
    hipdnnStatus_t st = check_shapes(a, b, y, &s);
    if (st != HIPDNN_STATUS_SUCCESS || ir_buf_numel(y) == 0)
        return st;
    int64_t idx[IR_MAX_RANK] = {0}, aidx[IR_MAX_RANK], bidx[IR_MAX_RANK];
    do {
        batch_index(a, y, idx, aidx);
        batch_index(b, y, idx, bidx);
        aidx[a->rank - 2] = idx[y->rank - 2];
        bidx[b->rank - 1] = idx[y->rank - 1];
        ir_store(y, idx, dot(a, b, aidx, bidx, s.k));
    } while (ir_next_index(y, idx));
    return HIPDNN_STATUS_SUCCESS;
}
