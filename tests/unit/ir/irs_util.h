/* irs_util.h — helpers shared by the files of test_ir_sdpa (tests/unit/ir): seeded randomness,
 * test tensors (an ir_buf over its own NaN-poisoned storage, any stride order), one SDPA case
 * (its configuration, operands, options and slots), the naive forward written in the test, and
 * the comparisons against it (tolerances per data type, stride gaps still poisoned).
 */
#ifndef IRS_UTIL_H
#define IRS_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ir/ir_int.h"
#include "../../common/tu_close.h"

/* A check that does not report passes (Criterion reports every cr_assert). */
#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond))                                                                        \
            cr_assert_fail(__VA_ARGS__);                                                    \
    } while (0)

#define MAXB 4

#define N_ITER 25

typedef struct tt {
    ir_buf b;
    unsigned char *mem; /* NULL: absent operand */
    int64_t span;       /* storage slots */
} tt;

typedef struct cfg {
    int64_t B, Hq, Hk, Hv, Sq, Skv, D, Dv;
    hipdnnDataType_t in_t, out_t;
    int layout;                  /* LAYOUT index of Q, K, V, O */
    ir_sdpa p;
    double scale_value;          /* the attention scale in effect */
    int64_t bias[4], dmask[4];   /* dims; [0] == 0: absent */
    bool scale_tensor, seq, sink, stats, maxsum, dump, dscale, dscale_inv, int32_seed;
    int64_t seq_q[MAXB], seq_kv[MAXB];
    uint64_t seed, offset;
    double dscale_value;
} cfg;

typedef struct tcase {
    cfg c;
    tt q, k, v, o, bias, scale, seqq, seqkv, seed, offset, dmask, dscale, sink;
    tt stats, max, sum, dump;
    tt pk, pv, kc, vc;                  /* paged: tables and containers */
    tt dout, dq, dk, dv, dbias, dsinv;  /* backward */
    const ir_buf *in[IR_SDPA_N_IN];
    ir_buf *out[IR_SDPA_N_OUT];
} tcase;

typedef struct expect {
    double *o;                /* [B,Hq,Sq,Dv] */
    double *stats, *max, *sum; /* [B,Hq,Sq] */
    double *keep;             /* [B,Hq,Sq,Skv]: the dropout factor's mask */
} expect;

double irs_uniform(double lo, double hi);
int64_t irs_irand(int64_t lo, int64_t hi) /* in [lo, hi] */;
extern uint64_t irs_seed_used;
void irs_seed_fresh(const char *test);
extern const int irs_layout[3][4];
void irs_tt_init(tt *t, hipdnnDataType_t dt, const int64_t dims[4], const int perm[4],
                    bool gaps);
void irs_tt_free(tt *t);
const ir_buf *irs_opt(const tt *t);
ir_buf *irs_opt_out(tt *t);
double irs_get4(const tt *t, int64_t a, int64_t b, int64_t c, int64_t d);
void irs_set4(tt *t, int64_t a, int64_t b, int64_t c, int64_t d, double v);
void irs_tt_fill(tt *t, double lo, double hi);
void irs_tt_check_gaps(const tt *t, const char *what);
void irs_cfg_base(cfg *c, int64_t max_s, int64_t max_d);
int64_t irs_pick_divisor(int64_t n);
void irs_cfg_seq(cfg *c);
void irs_cfg_bias(cfg *c);
void irs_cfg_band(cfg *c);
void irs_scalar_tensor(tt *t, hipdnnDataType_t dt, double v);
void irs_poison_rows(tt *t, const int64_t *len);
void irs_case_build(tcase *t);
void irs_case_free(tcase *t);
hipdnnStatus_t irs_run_fwd(tcase *t);
int64_t irs_len_q(const cfg *c, int64_t b);
int64_t irs_len_kv(const cfg *c, int64_t b);
double irs_naive_score(const tcase *t, int64_t b, int64_t h, int64_t i, int64_t j);
void irs_naive_fwd(const tcase *t, expect *e);
void irs_expect_free(expect *e);
void irs_expect_close(const char *what, const double *got, const double *want, int64_t n, hipdnnDataType_t t);
void irs_check_rows(const tt *t, const double *want, const char *what);
void irs_check_fwd(const tcase *t, const expect *e);
void irs_fwd_case(cfg *c);

void page_one(const tcase *t, const tt *dense, int64_t bs, tt *cont, tt *table);

#endif
