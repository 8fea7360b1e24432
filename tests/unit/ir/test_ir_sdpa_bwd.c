/* test_ir_sdpa_bwd.c — ir_ref_sdpa_bwd (ir/ir_ref_sdpa.c) against central finite differences
 * of the forward (double, step 1e-5: |fd - analytic| <= 1e-6 * max(1, max|analytic|) per
 * gradient tensor), and both directions' operand errors and allocation faults. Part of
 * test_ir_sdpa (helpers in irs_util.c).
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

/* ---- backward: central finite differences of the forward ------------------------------------ */

static void bwd_slots(tcase *t, const ir_buf **in, ir_buf **out)
{
    for (int s = 0; s < IR_SDPAB_N_IN; s++) /* every slot: those named below, the rest absent */
        in[s] = NULL;
    in[IR_SDPAB_Q] = &t->q.b, in[IR_SDPAB_K] = &t->k.b, in[IR_SDPAB_V] = &t->v.b;
    in[IR_SDPAB_O] = &t->o.b, in[IR_SDPAB_DO] = &t->dout.b, in[IR_SDPAB_STATS] = &t->stats.b;
    in[IR_SDPAB_BIAS] = irs_opt(&t->bias), in[IR_SDPAB_SCALE] = irs_opt(&t->scale);
    in[IR_SDPAB_SEQ_Q] = irs_opt(&t->seqq), in[IR_SDPAB_SEQ_KV] = irs_opt(&t->seqkv);
    in[IR_SDPAB_SEED] = irs_opt(&t->seed), in[IR_SDPAB_OFFSET] = irs_opt(&t->offset);
    in[IR_SDPAB_DROPOUT_MASK] = irs_opt(&t->dmask), in[IR_SDPAB_DROPOUT_SCALE] = irs_opt(&t->dscale);
    in[IR_SDPAB_DROPOUT_SCALE_INV] = irs_opt(&t->dsinv);
    out[IR_SDPAB_DQ] = &t->dq.b, out[IR_SDPAB_DK] = &t->dk.b, out[IR_SDPAB_DV] = &t->dv.b;
    out[IR_SDPAB_DBIAS] = irs_opt_out(&t->dbias);
}

/* L = Σ O·dO over the rows that exist (dO rows past SEQ_Q hold NaN). */
static double fd_loss(tcase *t)
{
    const cfg *c = &t->c;
    double l = 0;
    cr_assert_eq(irs_run_fwd(t), HIPDNN_STATUS_SUCCESS);
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t h = 0; h < c->Hq; h++)
            for (int64_t i = 0; i < irs_len_q(c, b); i++)
                for (int64_t d = 0; d < c->Dv; d++)
                    l += irs_get4(&t->o, b, h, i, d) * irs_get4(&t->dout, b, h, i, d);
    return l;
}

static double max_abs(const tt *g)
{
    double m = 0;
    int64_t idx[4] = {0};
    if (ir_buf_numel(&g->b) > 0)
        do {
            m = fmax(m, fabs(ir_load(&g->b, idx)));
        } while (ir_next_index(&g->b, idx));
    return m;
}

/* Compares gradient g of input x with central differences; NaN (padded) inputs must get 0. */
static void fd_check(tcase *t, tt *x, const tt *g, const char *what)
{
    const double step = 1e-5, tol = 1e-6 * fmax(1.0, max_abs(g));
    int64_t idx[4] = {0}, n = 0, m = 0, total = 1;
    for (int d = 0; d < x->b.rank; d++)
        total *= x->b.dims[d];
    double *analytic = malloc((size_t)total * sizeof *analytic), *fds = malloc((size_t)total * sizeof *fds);
    irs_tt_check_gaps(g, what);
    do {
        double x0 = ir_load(&x->b, idx), an = ir_load(&g->b, idx), fd;
        if (isnan(x0)) {
            CHECK(an == 0, "%s[%lld] of a padded element: %g", what, (long long)n, an);
            continue;
        }
        ir_store(&x->b, idx, x0 + step);
        fd = fd_loss(t);
        ir_store(&x->b, idx, x0 - step);
        fd = (fd - fd_loss(t)) / (2 * step);
        ir_store(&x->b, idx, x0);
        analytic[m] = an, fds[m++] = fd;
    } while (n++, ir_next_index(&x->b, idx));
    char ctx[128];
    snprintf(ctx, sizeof ctx, "%s: analytic against central finite differences (seed %llu)", what,
             (unsigned long long)irs_seed_used);
    bool ok = tu_expect_close(ctx, analytic, fds, (size_t)m, (tu_tol){tol, 0});
    free(analytic), free(fds);
    cr_assert(ok, "%s: see above", ctx);
}

static void bwd_case(cfg *c)
{
    tcase t = {.c = *c};
    const ir_buf *in[IR_SDPAB_N_IN];
    ir_buf *out[IR_SDPAB_N_OUT];
    t.c.in_t = t.c.out_t = HIPDNN_DATA_DOUBLE, t.c.stats = true;
    irs_case_build(&t);
    cr_assert_eq(irs_run_fwd(&t), HIPDNN_STATUS_SUCCESS);
    irs_tt_init(&t.dout, HIPDNN_DATA_DOUBLE, t.o.b.dims, irs_layout[t.c.layout], t.c.layout != 0);
    irs_tt_fill(&t.dout, -1, 1);
    if (t.c.seq)
        irs_poison_rows(&t.dout, t.c.seq_q), irs_poison_rows(&t.o, t.c.seq_q);
    irs_tt_init(&t.dq, HIPDNN_DATA_DOUBLE, t.q.b.dims, irs_layout[t.c.layout], true);
    irs_tt_init(&t.dk, HIPDNN_DATA_DOUBLE, t.k.b.dims, irs_layout[0], true);
    irs_tt_init(&t.dv, HIPDNN_DATA_DOUBLE, t.v.b.dims, irs_layout[2], true);
    if (t.bias.mem != NULL)
        irs_tt_init(&t.dbias, HIPDNN_DATA_DOUBLE, t.bias.b.dims, irs_layout[1], true);
    if (t.c.dscale_inv)
        irs_scalar_tensor(&t.dsinv, HIPDNN_DATA_DOUBLE, 1.0 / t.c.dscale_value);
    bwd_slots(&t, in, out);
    ir_ref_ctx ctx = {in, out, IR_SDPAB_N_IN, IR_SDPAB_N_OUT};
    cr_assert_eq(ir_ref_sdpa_bwd(&t.c.p, &ctx), HIPDNN_STATUS_SUCCESS);
    t.out[IR_SDPA_STATS] = NULL; /* finite differences need only O */
    fd_check(&t, &t.q, &t.dq, "dQ");
    fd_check(&t, &t.k, &t.dk, "dK");
    fd_check(&t, &t.v, &t.dv, "dV");
    if (t.bias.mem != NULL)
        fd_check(&t, &t.bias, &t.dbias, "dBias");
    irs_case_free(&t);
}

Test(sdpa_bwd, plain_scale_tensor_and_sink)
{
    irs_seed_fresh("sdpa_bwd::plain_scale_tensor_and_sink");
    for (int it = 0; it < 8; it++) {
        cfg c;
        irs_cfg_base(&c, 6, 4);
        c.scale_tensor = it % 2;
        c.layout = it % 3;
        c.sink = it % 4 >= 2; /* the forward's Stats carry the sink; the backward has no slot */
        bwd_case(&c);
    }
}

Test(sdpa_bwd, gqa_and_mqa)
{
    irs_seed_fresh("sdpa_bwd::gqa_and_mqa");
    for (int it = 0; it < 8; it++) {
        cfg c;
        irs_cfg_base(&c, 5, 3);
        c.Hq = irs_irand(2, 6);
        c.Hk = it % 2 ? 1 : irs_pick_divisor(c.Hq), c.Hv = irs_pick_divisor(c.Hq);
        c.p.has_right = it % 3 == 0;
        bwd_case(&c);
    }
}

Test(sdpa_bwd, causal_and_band)
{
    irs_seed_fresh("sdpa_bwd::causal_and_band");
    for (int it = 0; it < 10; it++) {
        cfg c;
        irs_cfg_base(&c, 7, 3);
        while (c.Sq == c.Skv)
            c.Skv = irs_irand(1, 7);
        if (it < 4)
            c.p.has_right = true, c.p.bottom_right = it % 2;
        else
            irs_cfg_band(&c);
        bwd_case(&c);
    }
}

Test(sdpa_bwd, padding)
{
    irs_seed_fresh("sdpa_bwd::padding");
    for (int it = 0; it < 8; it++) {
        cfg c;
        irs_cfg_base(&c, 6, 3);
        c.B = 3;
        irs_cfg_seq(&c);
        c.seq_q[0] = 0; /* an empty batch */
        c.p.has_right = it % 2, c.p.bottom_right = it % 4 == 1;
        bwd_case(&c);
    }
}

Test(sdpa_bwd, bias_broadcast_and_alibi)
{
    irs_seed_fresh("sdpa_bwd::bias_broadcast_and_alibi");
    for (int it = 0; it < 10; it++) {
        cfg c;
        irs_cfg_base(&c, 5, 3);
        irs_cfg_bias(&c);
        c.p.alibi = it % 2, c.p.has_right = c.p.alibi;
        bwd_case(&c);
    }
}

Test(sdpa_bwd, dropout_philox_and_custom)
{
    irs_seed_fresh("sdpa_bwd::dropout_philox_and_custom");
    for (int it = 0; it < 10; it++) {
        cfg c;
        irs_cfg_base(&c, 6, 3);
        if (it % 2) {
            c.p.dropout_p = 0.25;
        } else {
            const int64_t full[4] = {c.B, c.Hq, c.Sq, c.Skv};
            memcpy(c.dmask, full, sizeof full);
            c.dmask[0] = irs_irand(0, 1) ? 1 : c.B;
            c.dscale = true, c.dscale_inv = it % 4 == 0;
        }
        if (it % 3 == 0)
            irs_cfg_seq(&c), c.p.has_right = true;
        bwd_case(&c);
    }
}

/* ---- errors and allocation faults ------------------------------------------------------------ */

static hipdnnStatus_t fwd_status(cfg *c, void (*spoil)(tcase *))
{
    tcase t = {.c = *c};
    irs_case_build(&t);
    spoil(&t);
    hipdnnStatus_t st = irs_run_fwd(&t);
    irs_case_free(&t);
    return st;
}

static cfg err_cfg(void)
{
    cfg c;
    irs_cfg_base(&c, 6, 4);
    c.Hq = 4, c.Hk = c.Hv = 2;
    return c;
}

static void spoil_block_mask(tcase *t) { t->in[IR_SDPA_BLOCK_MASK] = t->in[IR_SDPA_Q]; }
static void spoil_k_dim(tcase *t) { t->k.b.dims[3] += 1; }
static void spoil_heads(tcase *t) { t->k.b.dims[1] = 3; }
static void spoil_o(tcase *t) { t->o.b.dims[2] += 1; }
static void spoil_no_q(tcase *t) { t->in[IR_SDPA_Q] = NULL; }
static void spoil_p1(tcase *t) { t->c.p.dropout_p = 1.0; }
static void spoil_rank(tcase *t) { t->v.b.rank = 3; }
static void spoil_seq(tcase *t) { irs_set4(&t->seqkv, 0, 0, 0, 0, (double)t->c.Skv + 1); }
static void spoil_no_seed(tcase *t) { t->in[IR_SDPA_SEED] = NULL; }
static void spoil_bias(tcase *t) { t->bias.b.dims[2] = 2 * t->c.Sq + 1; }

Test(sdpa_err, statuses_and_messages)
{
    irs_seed_fresh("sdpa_err::statuses_and_messages");
    struct { void (*spoil)(tcase *); hipdnnStatus_t want; int irs_opt; } cases[] = {
        {spoil_block_mask, HIPDNN_STATUS_BAD_PARAM, 0},
        {spoil_k_dim, HIPDNN_STATUS_BAD_PARAM, 0},  {spoil_heads, HIPDNN_STATUS_BAD_PARAM, 0},
        {spoil_o, HIPDNN_STATUS_BAD_PARAM, 0},      {spoil_no_q, HIPDNN_STATUS_BAD_PARAM, 0},
        {spoil_p1, HIPDNN_STATUS_BAD_PARAM, 0},     {spoil_rank, HIPDNN_STATUS_BAD_PARAM, 0},
        {spoil_seq, HIPDNN_STATUS_BAD_PARAM, 1},    {spoil_no_seed, HIPDNN_STATUS_BAD_PARAM, 2},
        {spoil_bias, HIPDNN_STATUS_BAD_PARAM, 3}};
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        cfg c = err_cfg();
        char msg[256];
        if (cases[n].irs_opt == 1)
            irs_cfg_seq(&c);
        if (cases[n].irs_opt == 2)
            c.p.dropout_p = 0.5;
        if (cases[n].irs_opt == 3)
            irs_cfg_bias(&c);
        cr_expect_eq(fwd_status(&c, cases[n].spoil), cases[n].want, "case %zu", n);
        base_last_error(msg, sizeof msg, true);
        cr_expect(strstr(msg, "sdpa reference") != NULL, "case %zu: message '%s'", n, msg);
        if (cases[n].spoil == spoil_block_mask) /* Q's dims are no block mask's */
            cr_expect(strstr(msg, "block mask") != NULL, "message '%s'", msg);
    }
}

Test(sdpa_err, bad_page_table_entry)
{
    irs_seed_fresh("sdpa_err::bad_page_table_entry");
    cfg c = err_cfg();
    c.Skv = 4, c.dump = true;
    tcase t = {.c = c};
    irs_case_build(&t);
    page_one(&t, &t.k, 2, &t.kc, &t.pk);
    page_one(&t, &t.v, 2, &t.vc, &t.pv);
    irs_set4(&t.pk, c.B - 1, 0, 1, 0, (double)t.kc.b.dims[0]);
    t.in[IR_SDPA_K] = &t.kc.b, t.in[IR_SDPA_V] = &t.vc.b;
    t.in[IR_SDPA_PAGE_K] = &t.pk.b, t.in[IR_SDPA_PAGE_V] = &t.pv.b;
    cr_expect_eq(irs_run_fwd(&t), HIPDNN_STATUS_BAD_PARAM);
    irs_case_free(&t);
}

Test(sdpa_err, bwd_dbias_without_bias)
{
    irs_seed_fresh("sdpa_err::bwd_dbias_without_bias");
    cfg c = err_cfg();
    tcase t = {.c = c};
    const ir_buf *in[IR_SDPAB_N_IN];
    ir_buf *out[IR_SDPAB_N_OUT];
    t.c.stats = true;
    irs_case_build(&t);
    irs_tt_init(&t.dout, c.in_t, t.o.b.dims, irs_layout[0], false);
    irs_tt_init(&t.dq, c.out_t, t.q.b.dims, irs_layout[0], false);
    irs_tt_init(&t.dk, c.out_t, t.k.b.dims, irs_layout[0], false);
    irs_tt_init(&t.dv, c.out_t, t.v.b.dims, irs_layout[0], false);
    irs_tt_init(&t.dbias, c.out_t, (const int64_t[]){1, 1, c.Sq, c.Skv}, irs_layout[0], false);
    bwd_slots(&t, in, out);
    ir_ref_ctx ctx = {in, out, IR_SDPAB_N_IN, IR_SDPAB_N_OUT};
    cr_expect_eq(ir_ref_sdpa_bwd(&t.c.p, &ctx), HIPDNN_STATUS_BAD_PARAM);
    irs_case_free(&t);
}

/* Failing each allocation in turn gives ALLOC_FAILED and leaks nothing (ASan build). */
Test(sdpa_err, allocation_faults)
{
    irs_seed_fresh("sdpa_err::allocation_faults");
    cfg c = err_cfg();
    tcase t = {.c = c};
    const ir_buf *in[IR_SDPAB_N_IN];
    ir_buf *out[IR_SDPAB_N_OUT];
    t.c.stats = true;
    irs_cfg_bias(&t.c);
    irs_case_build(&t);
    irs_tt_init(&t.dout, c.in_t, t.o.b.dims, irs_layout[0], false);
    irs_tt_fill(&t.dout, -1, 1);
    irs_tt_init(&t.dq, c.out_t, t.q.b.dims, irs_layout[0], false);
    irs_tt_init(&t.dk, c.out_t, t.k.b.dims, irs_layout[0], false);
    irs_tt_init(&t.dv, c.out_t, t.v.b.dims, irs_layout[0], false);
    irs_tt_init(&t.dbias, c.out_t, t.bias.b.dims, irs_layout[0], false);
    bwd_slots(&t, in, out);
    ir_ref_ctx ctx = {in, out, IR_SDPAB_N_IN, IR_SDPAB_N_OUT};
    int fails = 0;
    for (long nth = 1;; nth++) {
        base_alloc_fail_at(nth, false);
        hipdnnStatus_t f = irs_run_fwd(&t), b = ir_ref_sdpa_bwd(&t.c.p, &ctx);
        base_alloc_fail_at(0, false);
        if (f == HIPDNN_STATUS_SUCCESS && b == HIPDNN_STATUS_SUCCESS)
            break;
        cr_assert(f == HIPDNN_STATUS_ALLOC_FAILED || b == HIPDNN_STATUS_ALLOC_FAILED);
        cr_assert(f != HIPDNN_STATUS_SUCCESS || b != HIPDNN_STATUS_SUCCESS);
        fails++;
    }
    cr_expect(fails >= 9, "only %d allocations failed", fails);
    irs_case_free(&t);
}
