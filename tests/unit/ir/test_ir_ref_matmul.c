/* test_ir_ref_matmul.c — the MATMUL reference (ir/ir_ref_matmul.c).
 *
 * Owns: a hand-computed product; random shapes (rank 2..5) with batch broadcasting (dims equal,
 * 1, or a divisor: the grouped GQA broadcast), lower-rank operands and random layouts (row-,
 * column-major, gaps), checked against a triple loop written here. Tolerances: DOUBLE output
 * 1e-12 relative to sum |a*b| (summation order differs); FLOAT within 2 float ulps; BFLOAT16
 * correctly rounded. Shape errors.
 */
#include <math.h>
#include <stdlib.h>

#include "ir_test_util.h"

static ir_attrs no_attrs(void)
{
    ir_attrs a = {.pw = {0}};
    return a;
}

Test(ir_ref_matmul, hand_computed)
{
    tt *a = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(2, 3), TT_DENSE);
    tt *b = tt_new_strided(HIPDNN_DATA_FLOAT, 2, DIMS(3, 2), DIMS(1, 3)); /* column-major */
    tt *c = tt_new(HIPDNN_DATA_FLOAT, 2, DIMS(2, 2), TT_DENSE);
    static const double av[6] = {1, 2, 3, 4, 5, 6}, bv[6] = {7, 8, 9, 10, 11, 12};
    static const double want[4] = {58, 64, 139, 154};
    int64_t idx[2];
    for (int i = 0; i < 6; i++) {
        tt_unlin(a->b.dims, 2, i, idx);
        tt_set(a, idx, av[i]);
        tt_unlin(b->b.dims, 2, i, idx);
        tt_set(b, idx, bv[i]);
    }
    tt *in[2] = {a, b};
    ir_attrs at = no_attrs();
    cr_assert(tt_run(IR_OP_MATMUL, &at, in, 2, &c, 1) == HIPDNN_STATUS_SUCCESS);
    tt_check(c, want, 0, 0, "2x3 * 3x2");
    tt_free(a), tt_free(b), tt_free(c);
}

/* A batch dim of an operand for a C batch dim cd: equal, 1, or a divisor (grouped). */
static int64_t operand_dim(int64_t cd)
{
    int64_t r = tt_randint(0, 3), d = cd;
    if (r == 0)
        return 1;
    if (r == 1)
        for (d = tt_randint(1, cd); cd % d != 0; d--)
            ;
    return d;
}

typedef struct mm_case {
    int rank, ra, rb;
    int64_t cd[IR_MAX_RANK], ad[IR_MAX_RANK], bd[IR_MAX_RANK];
} mm_case;

static mm_case random_case(void)
{
    mm_case s;
    int64_t m = tt_randint(1, 7), n = tt_randint(1, 7), k = tt_randint(1, 9);
    s.rank = (int)tt_randint(2, 5);
    s.ra = s.rank - (int)tt_randint(0, s.rank - 2);
    s.rb = s.rank - (int)tt_randint(0, s.rank - 2);
    for (int i = 0; i < s.rank - 2; i++)
        s.cd[i] = tt_randint(1, 6);
    s.cd[s.rank - 2] = m, s.cd[s.rank - 1] = n;
    for (int i = 0; i < s.ra - 2; i++)
        s.ad[i] = operand_dim(s.cd[i + s.rank - s.ra]);
    for (int i = 0; i < s.rb - 2; i++)
        s.bd[i] = operand_dim(s.cd[i + s.rank - s.rb]);
    s.ad[s.ra - 2] = m, s.ad[s.ra - 1] = k, s.bd[s.rb - 2] = k, s.bd[s.rb - 1] = n;
    return s;
}

/* C[idx] by a triple loop with explicit broadcasting; *mag = sum |a*b|. */
static double naive(const tt *a, const tt *b, const mm_case *s, const int64_t *cidx, double *mag)
{
    int64_t ai[IR_MAX_RANK], bi[IR_MAX_RANK], k = a->b.dims[s->ra - 1];
    for (int i = 0; i < s->ra - 2; i++) {
        int c = i + s->rank - s->ra;
        ai[i] = cidx[c] * s->ad[i] / s->cd[c]; /* = cidx / (cd / ad): repeat-interleave */
    }
    for (int i = 0; i < s->rb - 2; i++) {
        int c = i + s->rank - s->rb;
        bi[i] = cidx[c] * s->bd[i] / s->cd[c];
    }
    ai[s->ra - 2] = cidx[s->rank - 2];
    bi[s->rb - 1] = cidx[s->rank - 1];
    double sum = 0;
    *mag = 0;
    for (int64_t t = 0; t < k; t++) {
        ai[s->ra - 1] = t, bi[s->rb - 2] = t;
        double p = tt_at(a, ai) * tt_at(b, bi);
        sum += p, *mag += fabs(p);
    }
    return sum;
}

static void one_case(hipdnnDataType_t out_type)
{
    mm_case s = random_case();
    tt *a = tt_new(HIPDNN_DATA_FLOAT, s.ra, s.ad, TT_RANDOM);
    tt *b = tt_new(HIPDNN_DATA_BFLOAT16, s.rb, s.bd, TT_RANDOM);
    tt *c = tt_new(out_type, s.rank, s.cd, TT_RANDOM), *in[2] = {a, b};
    tt_fill(a, -2, 2), tt_fill(b, -2, 2);
    ir_attrs at = no_attrs();
    cr_assert(tt_run(IR_OP_MATMUL, &at, in, 2, &c, 1) == HIPDNN_STATUS_SUCCESS);
    int64_t idx[IR_MAX_RANK] = {0};
    do {
        double mag, want = naive(a, b, &s, idx, &mag), got = tt_at(c, idx);
        if (out_type == HIPDNN_DATA_DOUBLE)
            tt_check_value(got, want, 1e-12 * mag, 0, "matmul double");
        else if (out_type == HIPDNN_DATA_FLOAT)
            tt_check_value(got, (float)want, 1e-12 * mag, 2.4e-7, "matmul float (2 ulp)");
        else
            cr_assert(tt_rounded_ok(out_type, got, want), "matmul bf16: %.17g vs %.17g", got, want);
    } while (ir_next_index(&c->b, idx));
    tt_free(a), tt_free(b), tt_free(c);
}

Test(ir_ref_matmul, random_broadcast_layouts)
{
    tt_seed("ir_ref_matmul.random_broadcast_layouts");
    static const hipdnnDataType_t types[] = {HIPDNN_DATA_DOUBLE, HIPDNN_DATA_FLOAT,
                                             HIPDNN_DATA_BFLOAT16};
    for (int i = 0; i < 600; i++)
        one_case(types[i % 3]);
}

Test(ir_ref_matmul, grouped_heads)
{
    /* Q [1,4,2,3] x K^T [1,2,3,2] -> S [1,4,2,2]: q-heads 0,1 use k-head 0; 2,3 use k-head 1 */
    tt *q = tt_new(HIPDNN_DATA_DOUBLE, 4, DIMS(1, 4, 2, 3), TT_DENSE);
    tt *k = tt_new(HIPDNN_DATA_DOUBLE, 4, DIMS(1, 2, 3, 2), TT_DENSE);
    tt *s = tt_new(HIPDNN_DATA_DOUBLE, 4, DIMS(1, 4, 2, 2), TT_DENSE), *in[2] = {q, k};
    int64_t idx[4] = {0};
    do
        tt_set(q, idx, 1.0);
    while (ir_next_index(&q->b, idx));
    do
        tt_set(k, idx, (double)idx[1] + 1); /* k-head h holds h + 1 */
    while (ir_next_index(&k->b, idx));
    ir_attrs at = no_attrs();
    cr_assert(tt_run(IR_OP_MATMUL, &at, in, 2, &s, 1) == HIPDNN_STATUS_SUCCESS);
    do
        CHECK(tt_at(s, idx) == 3.0 * (double)(idx[1] / 2 + 1));
    while (ir_next_index(&s->b, idx));
    tt_free(q), tt_free(k), tt_free(s);
}

Test(ir_ref_matmul, errors)
{
    tt *a = tt_new(HIPDNN_DATA_FLOAT, 3, DIMS(3, 2, 4), TT_DENSE);
    tt *b = tt_new(HIPDNN_DATA_FLOAT, 3, DIMS(2, 4, 5), TT_DENSE); /* batch 2 does not divide 3 */
    tt *bk = tt_new(HIPDNN_DATA_FLOAT, 3, DIMS(3, 3, 5), TT_DENSE); /* K mismatch */
    tt *c = tt_new(HIPDNN_DATA_FLOAT, 3, DIMS(3, 2, 5), TT_DENSE);
    tt *v = tt_new(HIPDNN_DATA_FLOAT, 1, DIMS(4), TT_DENSE);
    tt *in1[2] = {a, b}, *in2[2] = {a, bk}, *in3[2] = {a, NULL}, *in4[2] = {v, b};
    ir_attrs at = no_attrs();
    CHECK(tt_run(IR_OP_MATMUL, &at, in1, 2, &c, 1) == HIPDNN_STATUS_BAD_PARAM);
    CHECK(tt_run(IR_OP_MATMUL, &at, in2, 2, &c, 1) == HIPDNN_STATUS_BAD_PARAM);
    CHECK(tt_run(IR_OP_MATMUL, &at, in3, 2, &c, 1) == HIPDNN_STATUS_BAD_PARAM);
    CHECK(tt_run(IR_OP_MATMUL, &at, in4, 2, &c, 1) == HIPDNN_STATUS_BAD_PARAM);
    tt_free(a), tt_free(b), tt_free(bk), tt_free(c), tt_free(v);
}
