/* test_ir_sdpa.c — unit tests of ir/ir_ref_sdpa.c (SDPA forward and backward reference).
 *
 * Owns: the forward checked against a naive formulation written here (S materialized as a
 * [Sq,Skv] matrix per (b, h), masks as direct triu/tril conditions, ALiBi slopes built the way
 * the ALiBi paper does, softmax, P·V), paged K/V against the dense result, the block mask
 * against the −inf bias it stands for, the ALiBi slope
 * values against literals, the backward against central finite differences of the forward,
 * operand errors and allocation-fault injection.
 * This file: the forward (FP8 too) and paged K/V; the backward and the errors are in
 * test_ir_sdpa_bwd.c, the shared helpers and the naive forward in irs_util.c.
 * Randomness is seeded freshly each run and the seed printed; HIPDNN_TEST_SEED replays one.
 * Every output is poisoned with NaN before each call, and its stride gaps must still hold the
 * poison afterwards; padded Q/K/V rows (beyond SEQ_Q/SEQ_KV) and unused paged blocks hold NaN,
 * so reading them shows up in the results.
 *
 * Tolerances: |got − want| ≤ rel·|want| + abs, rel = 1e-12 (DOUBLE out), 2.5e-7 (FLOAT),
 * 2e-3 (HALF, abs 1e-7), 1.6e-2 (BFLOAT16); −inf must match exactly. Finite differences
 * (double, step 1e-5): |fd − analytic| ≤ 1e-6·max(1, max|analytic|) per gradient tensor.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ir/ir_int.h"
#include "../../common/tu_close.h"

#include "irs_util.h"

/* ---- FP8 attention ---------------------------------------------------------------------------- */

/* FP8 attention as cuDNN's composite writes it (op-semantics.md §4.9), written out here: S·scale·
 * descale_q·descale_k, causal cut, softmax, AMAX_S = max P, P·scale_s rounded to E4M3, O =
 * Σ P8·V·descale_v·descale_s, AMAX_O = max |O|, O·scale_o stored (E4M3 or FLOAT). */
static void naive_fp8(const tcase *t, const double f[6], double *o, double *stats, double amax[2])
{
    const cfg *c = &t->c;
    double *srow = malloc((size_t)c->Skv * sizeof *srow);
    amax[0] = amax[1] = 0.0;
    for (int64_t b = 0, n = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->Hq; h++)
            for (int64_t i = 0; i < c->Sq; i++, n++) {
                int64_t hk = h / (c->Hq / c->Hk), hv = h / (c->Hq / c->Hv);
                double m = -INFINITY, l = 0.0;
                for (int64_t j = 0; j < c->Skv; j++) {
                    double acc = 0.0;
                    for (int64_t d = 0; d < c->D; d++)
                        acc += irs_get4(&t->q, b, h, i, d) * irs_get4(&t->k, b, hk, j, d);
                    srow[j] = c->p.has_right && j > i ? -INFINITY : acc * (c->scale_value * (f[0] * f[1]));
                    m = srow[j] > m ? srow[j] : m;
                }
                for (int64_t j = 0; j < c->Skv && m != -INFINITY; j++)
                    l += srow[j] == -INFINITY ? 0.0 : exp(srow[j] - m);
                stats[n] = m == -INFINITY ? -INFINITY : m + log(l);
                for (int64_t d = 0; d < c->Dv; d++) {
                    double acc = 0.0;
                    for (int64_t j = 0; j < c->Skv && m != -INFINITY; j++) {
                        if (srow[j] == -INFINITY)
                            continue;
                        double pj = exp(srow[j] - m) / l;
                        amax[0] = pj > amax[0] ? pj : amax[0];
                        acc += ir_dtype_round(HIPDNN_DATA_FP8_E4M3, pj * f[4]) * irs_get4(&t->v, b, hv, j, d);
                    }
                    acc *= f[2] * f[3];
                    amax[1] = fabs(acc) > amax[1] ? fabs(acc) : amax[1];
                    o[n * c->Dv + d] = acc * f[5];
                }
            }
    free(srow);
}

/* Q, K, V in E4M3 with the six factors (scale_s a power of two, descale_s its inverse, as
 * recipes choose them), plain and causal, GQA, O in E4M3 or FLOAT, Stats, AMAX_S and AMAX_O. */
Test(sdpa_fwd, fp8_attention)
{
    irs_seed_fresh("sdpa_fwd::fp8_attention");
    for (int it = 0; it < 8; it++) {
        tcase t = {0};
        cfg *c = &t.c;
        irs_cfg_base(c, 12, 16);
        c->in_t = HIPDNN_DATA_FP8_E4M3, c->out_t = it % 2 ? HIPDNN_DATA_FP8_E4M3 : HIPDNN_DATA_FLOAT;
        c->stats = true, c->layout = (int)irs_irand(0, 2);
        if (it >= 4)
            c->Hk = c->Hv = 1; /* MQA */
        c->p.has_right = it % 3 == 1, c->p.right_bound = 0;
        irs_case_build(&t);
        const double s_scale = ldexp(1.0, (int)irs_irand(6, 8));
        const double f[6] = {irs_uniform(0.5, 2), irs_uniform(0.5, 2), irs_uniform(0.5, 2), 1.0 / s_scale, s_scale,
                             irs_uniform(1, 8)};
        tt fp8[6], amax[2];
        for (int n = 0; n < 6; n++) {
            irs_scalar_tensor(&fp8[n], HIPDNN_DATA_FLOAT, f[n]);
            t.in[IR_SDPA_DESCALE_Q + n] = &fp8[n].b;
        }
        for (int n = 0; n < 2; n++) {
            irs_tt_init(&amax[n], HIPDNN_DATA_FLOAT, (const int64_t[]){1, 1, 1, 1}, irs_layout[0], false);
            t.out[IR_SDPA_AMAX_S + n] = &amax[n].b;
        }
        double fv[6];
        for (int n = 0; n < 6; n++)
            fv[n] = irs_get4(&fp8[n], 0, 0, 0, 0); /* the values as stored */
        cr_assert_eq(irs_run_fwd(&t), HIPDNN_STATUS_SUCCESS, "seed %llu", (unsigned long long)irs_seed_used);
        int64_t rows = c->B * c->Hq * c->Sq;
        double *o = malloc((size_t)(rows * c->Dv) * sizeof *o), *stats = malloc((size_t)rows * sizeof *stats);
        double want_amax[2], got_amax[2] = {irs_get4(&amax[0], 0, 0, 0, 0), irs_get4(&amax[1], 0, 0, 0, 0)};
        naive_fp8(&t, fv, o, stats, want_amax);
        for (int64_t n = 0; n < rows * c->Dv; n++)
            o[n] = ir_dtype_round(c->out_t, o[n]);
        double *got = malloc((size_t)(rows * c->Dv) * sizeof *got);
        for (int64_t b = 0, n = 0; b < c->B; b++)
            for (int64_t h = 0; h < c->Hq; h++)
                for (int64_t i = 0; i < c->Sq; i++)
                    for (int64_t d = 0; d < c->Dv; d++, n++)
                        got[n] = irs_get4(&t.o, b, h, i, d);
        irs_expect_close("FP8 O", got, o, rows * c->Dv, c->out_t);
        irs_check_rows(&t.stats, stats, "FP8 Stats");
        irs_expect_close("AMAX_S, AMAX_O", got_amax, want_amax, 2, HIPDNN_DATA_FLOAT);
        free(o), free(stats), free(got);
        for (int n = 0; n < 6; n++)
            irs_tt_free(&fp8[n]);
        irs_tt_free(&amax[0]), irs_tt_free(&amax[1]);
        irs_case_free(&t);
    }
}

/* FP8 attention needs all six factors of one element each; AMAX_S is FP8 attention's output. */
Test(sdpa_fwd, fp8_operand_errors)
{
    irs_seed_fresh("sdpa_fwd::fp8_operand_errors");
    for (int it = 0; it < 3; it++) {
        tcase t = {0};
        irs_cfg_base(&t.c, 6, 6);
        t.c.in_t = HIPDNN_DATA_FP8_E4M3;
        irs_case_build(&t);
        tt fp8[6];
        for (int n = 0; n < 6; n++) {
            irs_scalar_tensor(&fp8[n], HIPDNN_DATA_FLOAT, 1.0);
            t.in[IR_SDPA_DESCALE_Q + n] = (it == 0 && n == 4) || it == 2 ? NULL : &fp8[n].b;
        }
        if (it == 2) /* AMAX_S without the FP8 inputs */
            t.out[IR_SDPA_AMAX_S] = &fp8[0].b;
        if (it == 1) { /* SCALE_O of two elements */
            irs_tt_free(&fp8[5]);
            irs_tt_init(&fp8[5], HIPDNN_DATA_FLOAT, (const int64_t[]){1, 1, 1, 2}, irs_layout[0], false);
            t.in[IR_SDPA_SCALE_O] = &fp8[5].b;
        }
        cr_expect_eq(irs_run_fwd(&t), HIPDNN_STATUS_BAD_PARAM, "case %d", it);
        char msg[256];
        base_last_error(msg, sizeof msg, true);
        static const char *const want[3] = {"all six", "one element", "outputs of FP8 attention"};
        cr_expect(strstr(msg, want[it]) != NULL, "case %d: message '%s'", it, msg);
        for (int n = 0; n < 6; n++)
            irs_tt_free(&fp8[n]);
        irs_case_free(&t);
    }
}

/* ---- forward tests --------------------------------------------------------------------------- */

Test(sdpa_fwd, plain)
{
    irs_seed_fresh("sdpa_fwd::plain");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 12, 8);
        c.stats = irs_irand(0, 1);
        c.out_t = irs_irand(0, 1) ? HIPDNN_DATA_DOUBLE : HIPDNN_DATA_FLOAT;
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, gqa_and_mqa)
{
    irs_seed_fresh("sdpa_fwd::gqa_and_mqa");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 10, 6);
        c.Hq = irs_irand(2, 8);
        c.Hk = it % 3 == 0 ? 1 : irs_pick_divisor(c.Hq);
        c.Hv = it % 3 == 0 ? 1 : irs_pick_divisor(c.Hq);
        c.stats = true;
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, causal_top_left_and_bottom_right)
{
    irs_seed_fresh("sdpa_fwd::causal");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 12, 6);
        while (c.Sq == c.Skv)
            c.Skv = irs_irand(1, 12);
        c.p.has_right = true, c.p.right_bound = it % 4 == 0 ? irs_irand(1, 4) : 0;
        c.p.bottom_right = it % 2;
        c.stats = c.maxsum = true; /* bottom-right with Sq > Skv masks whole rows */
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, sliding_window)
{
    irs_seed_fresh("sdpa_fwd::sliding_window");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 14, 5);
        c.p.has_left = true, c.p.left_bound = irs_irand(1, 5);
        c.p.has_right = it % 3 != 0, c.p.right_bound = it % 5 == 0 ? 2 : 0;
        c.p.bottom_right = irs_irand(0, 1);
        c.stats = true;
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, padding)
{
    irs_seed_fresh("sdpa_fwd::padding");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 12, 6);
        irs_cfg_seq(&c);
        if (it % 2)
            irs_cfg_band(&c);
        c.stats = c.maxsum = true;
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, bias_broadcast)
{
    irs_seed_fresh("sdpa_fwd::bias_broadcast");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 10, 6);
        irs_cfg_bias(&c);
        if (it % 3 == 0)
            c.p.has_right = true;
        c.in_t = it % 2 ? HIPDNN_DATA_FLOAT : HIPDNN_DATA_DOUBLE;
        c.out_t = HIPDNN_DATA_DOUBLE;
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, alibi)
{
    irs_seed_fresh("sdpa_fwd::alibi");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 10, 6);
        c.Hq = c.Hk = c.Hv = irs_irand(1, 13);
        c.p.alibi = true, c.p.has_right = true;
        c.out_t = HIPDNN_DATA_DOUBLE;
        irs_fwd_case(&c);
    }
}

/* Slopes against literals: Sq = 1, Skv = 2, Q = 0, V = (0, 1) makes O = sigmoid(slope). */
Test(sdpa_fwd, alibi_slope_values)
{
    static const double want12[12] = {0x1p-1, 0x1p-2, 0x1p-3, 0x1p-4, 0x1p-5, 0x1p-6, 0x1p-7,
                                      0x1p-8, 0.70710678118654752, 0.35355339059327376,
                                      0.17677669529663688, 0.088388347648318440};
    irs_seed_fresh("sdpa_fwd::alibi_slope_values");
    cfg c;
    irs_cfg_base(&c, 1, 1);
    c.B = 1, c.Hq = c.Hk = c.Hv = 12, c.Sq = 1, c.Skv = 2, c.D = c.Dv = 1;
    c.p.alibi = true, c.out_t = HIPDNN_DATA_DOUBLE;
    tcase t = {.c = c};
    irs_case_build(&t);
    for (int64_t h = 0; h < 12; h++)
        irs_set4(&t.q, 0, h, 0, 0, 0.0), irs_set4(&t.v, 0, h, 0, 0, 0.0), irs_set4(&t.v, 0, h, 1, 0, 1.0);
    cr_assert_eq(irs_run_fwd(&t), HIPDNN_STATUS_SUCCESS);
    for (int64_t h = 0; h < 12; h++) {
        double o = irs_get4(&t.o, 0, h, 0, 0);
        cr_expect_float_eq(log(o / (1 - o)), want12[h], 1e-12, "head %lld", (long long)h);
    }
    irs_case_free(&t);
}

Test(sdpa_fwd, stats_max_sum_exp_and_sink)
{
    irs_seed_fresh("sdpa_fwd::stats_max_sum_exp_and_sink");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 10, 6);
        c.stats = c.maxsum = true;
        c.sink = it % 2;
        if (it % 3 == 0)
            irs_cfg_seq(&c);
        if (it % 4 == 0)
            irs_cfg_band(&c);
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, scale_tensor_overrides_attribute)
{
    irs_seed_fresh("sdpa_fwd::scale_tensor");
    for (int it = 0; it < 8; it++) {
        cfg c;
        irs_cfg_base(&c, 8, 6);
        c.scale_tensor = true;
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, dropout_philox)
{
    static const double ps[3] = {0.1, 0.25, 0.5};
    irs_seed_fresh("sdpa_fwd::dropout_philox");
    for (int it = 0; it < 12; it++) {
        cfg c;
        irs_cfg_base(&c, 40, 4);
        c.Sq = irs_irand(20, 40), c.Skv = irs_irand(20, 40);
        c.p.dropout_p = ps[it % 3];
        c.int32_seed = it % 4 == 3;
        c.dump = true, c.stats = true;
        if (it % 5 == 4)
            irs_cfg_seq(&c), c.p.has_right = true;
        tcase t = {.c = c};
        expect e;
        irs_case_build(&t);
        cr_assert_eq(irs_run_fwd(&t), HIPDNN_STATUS_SUCCESS);
        irs_naive_fwd(&t, &e);
        irs_check_fwd(&t, &e); /* the dump is the keep mask of (seed, offset, linear index) */
        double kept = 0, n = (double)(c.B * c.Hq * c.Sq * c.Skv), p = c.p.dropout_p;
        for (int64_t k = 0; k < (int64_t)n; k++)
            kept += e.keep[k];
        double sigma = sqrt(p * (1 - p) / n);
        cr_expect(fabs(kept / n - (1 - p)) < 6 * sigma + 1e-3, "keep rate %g for p = %g",
                  kept / n, p);
        irs_expect_free(&e);
        irs_case_free(&t);
    }
}

/* Dropout must scale kept entries by 1/(1−p): with V = 1, O_i = Σ_j P_ij·keep_ij/(1−p). */
Test(sdpa_fwd, dropout_scaling)
{
    irs_seed_fresh("sdpa_fwd::dropout_scaling");
    cfg c;
    irs_cfg_base(&c, 16, 4);
    c.Dv = 1, c.p.dropout_p = 0.3, c.dump = true, c.out_t = HIPDNN_DATA_DOUBLE;
    tcase t = {.c = c};
    irs_case_build(&t);
    for (int64_t n = 0; n < c.B * c.Hv * c.Skv; n++)
        irs_set4(&t.v, n / (c.Hv * c.Skv), n / c.Skv % c.Hv, n % c.Skv, 0, 1.0);
    cr_assert_eq(irs_run_fwd(&t), HIPDNN_STATUS_SUCCESS);
    double got[1], want[1];
    for (int64_t b = 0; b < c.B; b++)
        for (int64_t h = 0; h < c.Hq; h++)
            for (int64_t i = 0; i < c.Sq; i++) {
                double m = -INFINITY, l = 0, acc = 0, s[64];
                for (int64_t j = 0; j < c.Skv; j++)
                    s[j] = irs_naive_score(&t, b, h, i, j), m = fmax(m, s[j]);
                for (int64_t j = 0; j < c.Skv; j++)
                    l += exp(s[j] - m);
                for (int64_t j = 0; j < c.Skv; j++)
                    acc += exp(s[j] - m) / l * irs_get4(&t.dump, b, h, i, j) / 0.7;
                got[0] = irs_get4(&t.o, b, h, i, 0), want[0] = acc;
                irs_expect_close("O", got, want, 1, HIPDNN_DATA_DOUBLE);
            }
    irs_case_free(&t);
}

Test(sdpa_fwd, dropout_custom_mask)
{
    irs_seed_fresh("sdpa_fwd::dropout_custom_mask");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 10, 5);
        const int64_t full[4] = {c.B, c.Hq, c.Sq, c.Skv};
        for (int d = 0; d < 4; d++)
            c.dmask[d] = d < 2 && irs_irand(0, 1) ? 1 : full[d];
        c.dscale = it % 4 != 0;
        c.dump = true;
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, strided_layouts)
{
    irs_seed_fresh("sdpa_fwd::strided_layouts");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 10, 8);
        c.layout = 1 + it % 2; /* BSHD or SBHD, with gaps */
        c.Hq = irs_irand(1, 6), c.Hk = c.Hv = irs_pick_divisor(c.Hq);
        c.stats = true;
        if (it % 3 == 0)
            irs_cfg_seq(&c), irs_cfg_bias(&c);
        irs_fwd_case(&c);
    }
}

Test(sdpa_fwd, half_and_bfloat16)
{
    static const hipdnnDataType_t ts[3][2] = {{HIPDNN_DATA_HALF, HIPDNN_DATA_HALF},
                                              {HIPDNN_DATA_BFLOAT16, HIPDNN_DATA_BFLOAT16},
                                              {HIPDNN_DATA_HALF, HIPDNN_DATA_FLOAT}};
    irs_seed_fresh("sdpa_fwd::half_and_bfloat16");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 10, 8);
        c.in_t = ts[it % 3][0], c.out_t = ts[it % 3][1];
        c.stats = true;
        if (it % 2)
            irs_cfg_bias(&c), irs_cfg_band(&c);
        irs_fwd_case(&c);
    }
}

/* ---- paged K/V ------------------------------------------------------------------------------- */

/* Chops dense K (or V) into blocks of bs tokens at random places of a container with spare
 * NaN blocks; pages past a batch's length get table entries naming no block. */
void page_one(const tcase *t, const tt *dense, int64_t bs, tt *cont, tt *table)
{
    const cfg *c = &t->c;
    int64_t P = (c->Skv + bs - 1) / bs, nblk = c->B * P + 2;
    int64_t *perm = malloc(sizeof(int64_t) * (size_t)nblk);
    const int64_t *d = dense->b.dims;
    cr_assert(perm != NULL);
    for (int64_t n = 0; n < nblk; n++)
        perm[n] = n;
    for (int64_t n = nblk - 1; n > 0; n--) {
        int64_t m = irs_irand(0, n), x = perm[n];
        perm[n] = perm[m], perm[m] = x;
    }
    irs_tt_init(cont, dense->b.dtype, (const int64_t[]){nblk, d[1], bs, d[3]}, irs_layout[irs_irand(0, 2)],
            true);
    irs_tt_init(table, HIPDNN_DATA_INT32, (const int64_t[]){c->B, 1, P, 1}, irs_layout[0], true);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t p = 0; p < P; p++) {
            bool used = p * bs < irs_len_kv(c, b);
            irs_set4(table, b, 0, p, 0, used ? (double)perm[b * P + p] : (p % 2 ? -3.0 : 1e6));
            for (int64_t s = p * bs; used && s < (p + 1) * bs && s < c->Skv; s++)
                for (int64_t h = 0; h < d[1]; h++)
                    for (int64_t e = 0; e < d[3]; e++)
                        irs_set4(cont, perm[b * P + p], h, s % bs, e, irs_get4(dense, b, h, s, e));
        }
    free(perm);
}

/* Skv inference: RNG_DUMP present, or the lengths mask the tail, or Skv fills every block. */
Test(sdpa_fwd, paged_kv_equals_dense)
{
    irs_seed_fresh("sdpa_fwd::paged_kv_equals_dense");
    for (int it = 0; it < N_ITER; it++) {
        cfg c;
        irs_cfg_base(&c, 16, 6);
        int64_t bs = (int64_t)1 << irs_irand(0, 3);
        c.Hq = irs_irand(1, 6), c.Hk = irs_pick_divisor(c.Hq), c.Hv = irs_pick_divisor(c.Hq);
        c.stats = true;
        if (it % 3 == 0)
            c.dump = true, c.p.dropout_p = it % 2 ? 0.2 : 0;
        else if (it % 3 == 1)
            irs_cfg_seq(&c), c.p.has_right = irs_irand(0, 1), c.p.bottom_right = irs_irand(0, 1);
        else
            c.Skv = bs * irs_irand(1, 4);
        tcase t = {.c = c};
        expect e;
        irs_case_build(&t);
        cr_assert_eq(irs_run_fwd(&t), HIPDNN_STATUS_SUCCESS);
        irs_naive_fwd(&t, &e);
        irs_check_fwd(&t, &e);
        page_one(&t, &t.k, bs, &t.kc, &t.pk);
        page_one(&t, &t.v, bs, &t.vc, &t.pv);
        double *dense_o = malloc(sizeof(double) * (size_t)(c.B * c.Hq * c.Sq * c.Dv + 1));
        cr_assert(dense_o != NULL);
        for (int64_t n = 0; n < c.B * c.Hq * c.Sq * c.Dv; n++)
            dense_o[n] = irs_get4(&t.o, n / (c.Hq * c.Sq * c.Dv), n / (c.Sq * c.Dv) % c.Hq,
                              n / c.Dv % c.Sq, n % c.Dv);
        t.in[IR_SDPA_K] = &t.kc.b, t.in[IR_SDPA_V] = &t.vc.b;
        t.in[IR_SDPA_PAGE_K] = &t.pk.b, t.in[IR_SDPA_PAGE_V] = &t.pv.b;
        cr_assert_eq(irs_run_fwd(&t), HIPDNN_STATUS_SUCCESS, "paged, bs %lld", (long long)bs);
        for (int64_t n = 0; n < c.B * c.Hq * c.Sq * c.Dv; n++)
            CHECK(dense_o[n] == irs_get4(&t.o, n / (c.Hq * c.Sq * c.Dv), n / (c.Sq * c.Dv) % c.Hq,
                                     n / c.Dv % c.Sq, n % c.Dv),
                  "paged O[%lld] differs from dense", (long long)n);
        irs_check_fwd(&t, &e);
        free(dense_o);
        irs_expect_free(&e);
        irs_case_free(&t);
    }
}


/* ---- the block mask (op-semantics.md §4.4) ------------------------------------------------------- */

/* BLOCK_MASK bytes (bit t of byte k keeps key tile 8k + t of 128 x 128 tiles; size-1 batch and head
 * dims broadcast) give exactly what an additive bias of −inf over the dropped tiles gives, rows
 * the mask empties included (O = 0, Stats = −inf); sizes span several tiles and bytes, odd. */
Test(sdpa_fwd, block_mask_equals_an_infinite_bias)
{
    irs_seed_fresh("sdpa_fwd::block_mask_equals_an_infinite_bias");
    for (int iter = 0; iter < 3; iter++) {
        cfg c;
        irs_cfg_base(&c, 8, 8);
        c.B = irs_irand(1, 2), c.Hq = c.Hk = c.Hv = irs_irand(1, 2);
        c.Sq = irs_irand(1, 300), c.Skv = irs_irand(1, 1300), c.stats = true;
        c.bias[0] = c.B, c.bias[1] = c.Hq, c.bias[2] = c.Sq, c.bias[3] = c.Skv;
        tcase t = {.c = c};
        irs_case_build(&t);
        int64_t kt = (c.Skv + 127) / 128, md[4] = {irs_irand(0, 1) ? 1 : c.B, irs_irand(0, 1) ? 1 : c.Hq,
                                                   (c.Sq + 127) / 128, (kt + 7) / 8};
        tt bm;
        irs_tt_init(&bm, HIPDNN_DATA_UINT8, md, irs_layout[0], false);
        for (int64_t b = 0; b < md[0]; b++)
            for (int64_t h = 0; h < md[1]; h++)
                for (int64_t q = 0; q < md[2]; q++)
                    for (int64_t k = 0; k < md[3]; k++) /* all kept, all dropped, or random bits */
                        irs_set4(&bm, b, h, q, k, irs_irand(0, 3) == 0 ? 255 : irs_irand(0, 3) == 0 ? 0 : irs_irand(0, 255));
        /* the bias: 0, or −inf where the block mask drops the tile */
        int64_t dropped = 0;
        for (int64_t b = 0; b < c.B; b++)
            for (int64_t h = 0; h < c.Hq; h++)
                for (int64_t i = 0; i < c.Sq; i++)
                    for (int64_t j = 0; j < c.Skv; j++) {
                        double byte = irs_get4(&bm, md[0] == 1 ? 0 : b, md[1] == 1 ? 0 : h, i / 128, j / 1024);
                        bool keep = ((unsigned)byte >> ((j / 128) % 8)) & 1u;
                        irs_set4(&t.bias, b, h, i, j, keep ? 0.0 : -INFINITY);
                        dropped += !keep;
                    }
        size_t no = (size_t)(c.B * c.Hq * c.Sq * c.Dv), ns = (size_t)(c.B * c.Hq * c.Sq);
        double *o = malloc(no * sizeof *o), *st = malloc(ns * sizeof *st), *o2 = malloc(no * sizeof *o2),
               *st2 = malloc(ns * sizeof *st2);
        cr_assert_eq(irs_run_fwd(&t), HIPDNN_STATUS_SUCCESS, "with the bias");
        for (size_t n = 0, r = 0; r < ns; r++) {
            int64_t b = (int64_t)r / (c.Hq * c.Sq), h = (int64_t)r / c.Sq % c.Hq, i = (int64_t)r % c.Sq;
            st[r] = irs_get4(&t.stats, b, h, i, 0);
            for (int64_t d = 0; d < c.Dv; d++)
                o[n++] = irs_get4(&t.o, b, h, i, d);
        }
        irs_tt_fill(&t.bias, 0, 0);
        t.in[IR_SDPA_BLOCK_MASK] = &bm.b;
        cr_assert_eq(irs_run_fwd(&t), HIPDNN_STATUS_SUCCESS, "with the block mask");
        for (size_t n = 0, r = 0; r < ns; r++) {
            int64_t b = (int64_t)r / (c.Hq * c.Sq), h = (int64_t)r / c.Sq % c.Hq, i = (int64_t)r % c.Sq;
            st2[r] = irs_get4(&t.stats, b, h, i, 0);
            for (int64_t d = 0; d < c.Dv; d++)
                o2[n++] = irs_get4(&t.o, b, h, i, d);
        }
        char what[128];
        snprintf(what, sizeof what, "block mask [%lld,%lld,%lld,%lld], %lld scores dropped: O (seed %llu)",
                 (long long)md[0], (long long)md[1], (long long)md[2], (long long)md[3], (long long)dropped,
                 (unsigned long long)irs_seed_used);
        tu_expect_close(what, o2, o, no, (tu_tol){0, 0});
        tu_expect_close("... and Stats", st2, st, ns, (tu_tol){0, 0});
        /* a block mask of other dims is refused */
        bm.b.dims[3] += 1;
        cr_expect_eq(irs_run_fwd(&t), HIPDNN_STATUS_BAD_PARAM);
        free(o), free(st), free(o2), free(st2);
        irs_tt_free(&bm);
        irs_case_free(&t);
    }
}
