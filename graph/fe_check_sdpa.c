/* fe_check_sdpa.c — the finalize rules of attention: SDPA forward and backward (§4.1, §4.2,
 * §4.4, §4.8, §4.10) and the paged cache load (§4.8).
 *
 * One function per operation, named in the `check` column of graph/fe_ops.def and called
 * by fe_check_op (fe_check.c) after the generic and shared rules; the helpers and the
 * conventions (tensor letters, messages) are fe_check.h's.
 */
#include <stdio.h>
#include <string.h>

#include "graph/fe_check.h"

/* ---- SDPA forward and backward (§4.1, §4.2, §4.4, §4.8, §4.10) ----------------------------------- */

/* The attributes both SDPA descriptors share, by id. */
typedef struct sdpa_ids {
    hipdnnBackendAttributeName_t q, k, v, o, mask, scale, seq_q, seq_kv, seed, offset, drop_mask,
        drop_scale, alibi, padding, causal, causal_br, prob, scale_value, left, right;
} sdpa_ids;

static const sdpa_ids sdpa_fwd_ids = {
    HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_ATTN_MASK_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_SEED_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_OFFSET_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_MASK_EXT, HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_SCALE_EXT,
    HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT, HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT,
    HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT,
    HIPDNN_ATTR_SDPA_FWD_DROPOUT_PROBABILITY_EXT, HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT,
    HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT, HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT,
};
static const sdpa_ids sdpa_bwd_ids = {
    HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_ATTN_MASK_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_SEED_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_OFFSET_EXT,
    HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_MASK_EXT, HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_EXT,
    HIPDNN_ATTR_SDPA_BWD_ALIBI_MASK_EXT, HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT,
    HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT, HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT,
    HIPDNN_ATTR_SDPA_BWD_DROPOUT_PROBABILITY_EXT, HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT,
    HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT, HIPDNN_ATTR_SDPA_BWD_RIGHT_BOUND_EXT,
};

typedef struct sdpa {
    const sdpa_ids *id;
    fe_port q, k, v, o, mask, seq_q, seq_kv;
    bool paged;          /* K and V are paged containers [nblk, H, bs, D] */
    int64_t b, hq, sq, skv, dv; /* skv < 0: unknown (paged without MAX_SEQ_LEN_KV) */
} sdpa;

static sdpa sdpa_load(fe_obj *op, const sdpa_ids *id)
{
    return (sdpa){.id = id, .q = PORT(id->q, "Q"), .k = PORT(id->k, "K"), .v = PORT(id->v, "V"),
                  .o = PORT(id->o, "O"), .mask = PORT(id->mask, "ATTN_MASK"),
                  .seq_q = PORT(id->seq_q, "SEQ_LEN_Q"), .seq_kv = PORT(id->seq_kv, "SEQ_LEN_KV")};
}

/* Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hv,Skv,Dv], O [B,Hq,Sq,Dv]; paged K/V: batch and
 * sequence dims are the container's block count and block size, not checked here. */
static hipdnnStatus_t sdpa_qkvo(fe_obj *op, sdpa *s)
{
    const fe_port *ps[4] = {&s->q, &s->k, &s->v, &s->o};
    for (int i = 0; i < 4; i++)
        TRY(fe_need_rank(op, ps[i], 4, 4));
    const int64_t *q = s->q.t.dims, *k = s->k.t.dims, *v = s->v.t.dims;
    s->b = q[0], s->hq = q[1], s->sq = q[2], s->dv = v[3];
    if (k[3] != q[3])
        return fe_op_bad(op, "Q %s and K %s disagree on the head dim D (%lld vs %lld)", DIMS(&s->q),
                   DIMS(&s->k), (long long)q[3], (long long)k[3]);
    if (s->hq % k[1] != 0 || s->hq % v[1] != 0)
        return fe_op_bad(op, "Q's heads (%lld) must be a multiple of K's (%lld) and V's (%lld) "
                   "(Q %s, K %s, V %s)", (long long)s->hq, (long long)k[1], (long long)v[1],
                   DIMS(&s->q), DIMS(&s->k), DIMS(&s->v));
    if (!s->paged) {
        int64_t want_k[4] = {s->b, -1, -1, -1}, want_v[4] = {s->b, -1, k[2], -1};
        TRY(fe_need_shape(op, &s->k, 4, want_k, "K [B,Hk,Skv,D] with Q's B"));
        TRY(fe_need_shape(op, &s->v, 4, want_v, "V [B,Hv,Skv,Dv] with Q's B and K's Skv"));
        s->skv = k[2];
    }
    int64_t want_o[4] = {s->b, s->hq, s->sq, s->dv};
    return fe_need_shape(op, &s->o, 4, want_o, "O [B,Hq,Sq,Dv]");
}

static hipdnnStatus_t sdpa_seq_lens(fe_obj *op, const sdpa *s)
{
    if (fe_op_flag(op, s->id->padding) && (!s->seq_q.set || !s->seq_kv.set))
        return fe_op_bad(op, "%s needs both SEQ_LEN_Q and SEQ_LEN_KV", fe_op_attr_name(op, s->id->padding));
    int64_t want[4] = {s->b, 1, 1, 1};
    const fe_port *ps[2] = {&s->seq_q, &s->seq_kv};
    for (int i = 0; i < 2; i++) {
        TRY(fe_need_shape(op, ps[i], 4, want, "[B,1,1,1]"));
        TRY(fe_need_int(op, ps[i]));
    }
    return OK;
}

/* Dropout p in [0,1); p > 0 needs SEED and OFFSET (Philox) or a DROPOUT_MASK. */
static hipdnnStatus_t sdpa_dropout(fe_obj *op, const sdpa *s)
{
    fe_port seed = PORT(s->id->seed, "SEED"), offset = PORT(s->id->offset, "OFFSET");
    fe_port mask = PORT(s->id->drop_mask, "DROPOUT_MASK"), scale = PORT(s->id->drop_scale, "DROPOUT_SCALE");
    const fe_port *scalars[3] = {&seed, &offset, &scale};
    for (int i = 0; i < 3; i++)
        TRY(fe_need_scalar(op, scalars[i]));
    TRY(fe_need_int(op, &seed));
    TRY(fe_need_int(op, &offset));
    int64_t full[4] = {s->b, s->hq, s->sq, s->skv};
    TRY(fe_need_broadcast(op, &mask, 4, full, "scores [B,Hq,Sq,Skv]"));
    if (!fe_op_has(op, s->id->prob))
        return OK;
    float p = fe_get(op, s->id->prob)->one.f32;
    if (!(p >= 0.0f && p < 1.0f))
        return fe_op_bad(op, "%s %g is outside [0, 1)", fe_op_attr_name(op, s->id->prob), (double)p);
    if (p > 0.0f && !mask.set && (!seed.set || !offset.set))
        return fe_op_bad(op, "%s %g needs SEED and OFFSET (or a DROPOUT_MASK)",
                   fe_op_attr_name(op, s->id->prob), (double)p);
    return OK;
}

static hipdnnStatus_t sdpa_masks(fe_obj *op, const sdpa *s)
{
    const sdpa_ids *id = s->id;
    int64_t full[4] = {s->b, s->hq, s->sq, s->skv};
    TRY(fe_need_broadcast(op, &s->mask, 4, full, "scores [B,Hq,Sq,Skv]"));
    bool has_left = fe_op_has(op, id->left), has_right = fe_op_has(op, id->right);
    int64_t left = has_left ? fe_get(op, id->left)->one.i64 : 0;
    int64_t right = has_right ? fe_get(op, id->right)->one.i64 : 0;
    if (has_left && left < 1)
        return fe_op_bad(op, "%s %lld must be >= 1", fe_op_attr_name(op, id->left), (long long)left);
    if (has_right && right < 0)
        return fe_op_bad(op, "%s %lld must be >= 0", fe_op_attr_name(op, id->right), (long long)right);
    bool causal = fe_op_flag(op, id->causal) || fe_op_flag(op, id->causal_br) || (has_right && right == 0);
    if (fe_op_flag(op, id->alibi) && !causal)
        return fe_op_bad(op, "%s needs a causal mask (%s, %s or %s 0)", fe_op_attr_name(op, id->alibi),
                   fe_op_attr_name(op, id->causal), fe_op_attr_name(op, id->causal_br), fe_op_attr_name(op, id->right));
    fe_port scale = PORT(id->scale, "SCALE");
    if (scale.set && fe_op_has(op, id->scale_value))
        return fe_op_bad(op, "%s and the scale tensor %s are both set; give one",
                   fe_op_attr_name(op, id->scale_value), fe_op_attr_name(op, id->scale));
    return fe_need_scalar(op, &scale);
}

/* What both directions check once Q/K/V/O are known (and Skv, when it can be). */
static hipdnnStatus_t sdpa_common(fe_obj *op, const sdpa *s)
{
    TRY(sdpa_seq_lens(op, s));
    TRY(sdpa_masks(op, s));
    return sdpa_dropout(op, s);
}

/* Paged K/V: PAGE_TABLE_K and PAGE_TABLE_V both set or neither. */
static hipdnnStatus_t sdpa_paged_pair(fe_obj *op, sdpa *s, fe_port pt[2])
{
    pt[0] = PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC, "PAGE_TABLE_K");
    pt[1] = PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC, "PAGE_TABLE_V");
    s->paged = pt[0].set;
    return fe_need_together(op, pt, 2);
}

/* Paged K/V need SEQ_LEN_Q/KV and page tables [B,1,P,1] of integers; Skv is MAX_SEQ_LEN_KV
 * when set (it must fit in P pages of the container's block size), otherwise unknown. */
static hipdnnStatus_t sdpa_paged(fe_obj *op, sdpa *s, const fe_port pt[2])
{
    if (!s->seq_q.set || !s->seq_kv.set)
        return fe_op_bad(op, "paged K/V (PAGE_TABLE_K, PAGE_TABLE_V) need SEQ_LEN_Q and SEQ_LEN_KV");
    const fe_port *cache[2] = {&s->k, &s->v};
    int64_t want[4] = {s->b, 1, -1, 1};
    for (int i = 0; i < 2; i++) {
        TRY(fe_need_shape(op, &pt[i], 4, want, "[B,1,P,1]"));
        TRY(fe_need_int(op, &pt[i]));
    }
    s->skv = -1;
    if (!fe_op_has(op, HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT))
        return OK;
    s->skv = fe_get(op, HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT)->one.i32;
    for (int i = 0; i < 2; i++) {
        int64_t cap = fe_mul_sat(pt[i].t.dims[2], cache[i]->t.dims[2]);
        if (s->skv < 1 || s->skv > cap)
            return fe_op_bad(op, "HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT %lld is outside [1, %lld] "
                       "(%s %s pages of %s %s)", (long long)s->skv, (long long)cap, pt[i].name,
                       DIMS(&pt[i]), cache[i]->name, DIMS(cache[i]));
    }
    return OK;
}

/* Per-row statistics [B,Hq,Sq,1]. */
static hipdnnStatus_t sdpa_row_stats(fe_obj *op, const sdpa *s, const fe_port *p)
{
    int64_t want[4] = {s->b, s->hq, s->sq, 1};
    return fe_need_shape(op, p, 4, want, "[B,Hq,Sq,1]");
}

static hipdnnStatus_t sdpa_fwd_outputs(fe_obj *op, const sdpa *s)
{
    fe_port stats[3] = {PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, "STATS"),
                     PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_MAX_EXT, "MAX"),
                     PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SUM_EXP_EXT, "SUM_EXP")};
    if (fe_op_flag(op, HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT) && !stats[0].set)
        return fe_op_bad(op, "HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT is true but STATS is not set");
    for (int i = 0; i < 3; i++)
        TRY(sdpa_row_stats(op, s, &stats[i]));
    fe_port rng = PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_RNG_DUMP_EXT, "RNG_DUMP");
    int64_t full[4] = {s->b, s->hq, s->sq, s->skv};
    TRY(fe_need_shape(op, &rng, 4, full, "[B,Hq,Sq,Skv]"));
    fe_port sink = PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SINK_TOKEN_EXT, "SINK_TOKEN");
    int64_t per_head[4] = {1, s->hq, 1, 1};
    return fe_need_shape(op, &sink, 4, per_head, "[1,Hq,1,1]");
}

/* FP8 descale/scale inputs and amax outputs are per-tensor scalars (§4.9). The six inputs come
 * together (they make the op FP8 attention, cuDNN's composite) and the amax outputs only with
 * them. */
static hipdnnStatus_t sdpa_fwd_fp8(fe_obj *op)
{
    fe_port fp8[] = {PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_Q_EXT, "DESCALE_Q"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_K_EXT, "DESCALE_K"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_V_EXT, "DESCALE_V"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_S_EXT, "DESCALE_S"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_S_EXT, "SCALE_S"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_O_EXT, "SCALE_O"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_S_EXT, "AMAX_S"),
                  PORT(HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_O_EXT, "AMAX_O")};
    int n_in = 0;
    for (size_t i = 0; i < sizeof fp8 / sizeof fp8[0]; i++) {
        TRY(fe_need_scalar(op, &fp8[i]));
        n_in += i < 6 && fp8[i].set;
    }
    for (int i = 0; n_in > 0 && n_in < 6 && i < 6; i++)
        if (!fp8[i].set)
            return fe_op_bad(op, "FP8 attention needs all of DESCALE_Q, DESCALE_K, DESCALE_V, DESCALE_S, SCALE_S and "
                       "SCALE_O: %s is not set", fp8[i].name);
    if (n_in == 0 && (fp8[6].set || fp8[7].set))
        return fe_op_bad(op, "%s is an output of FP8 attention: it needs the DESCALE_* and SCALE_* inputs",
                   fp8[fp8[6].set ? 6 : 7].name);
    return OK;
}

hipdnnStatus_t fe_check_sdpa_fwd(fe_obj *op)
{
    sdpa s = sdpa_load(op, &sdpa_fwd_ids);
    fe_port pt[2];
    TRY(sdpa_paged_pair(op, &s, pt));
    TRY(sdpa_qkvo(op, &s));
    if (s.paged)
        TRY(sdpa_paged(op, &s, pt));
    TRY(sdpa_common(op, &s));
    TRY(sdpa_fwd_outputs(op, &s));
    TRY(fe_check_sdpa_mods(op, s.b, s.hq, s.sq, s.skv));
    return sdpa_fwd_fp8(op);
}

/* Gradients have their tensor's dims; DBIAS is the gradient of ATTN_MASK. */
hipdnnStatus_t fe_check_sdpa_bwd(fe_obj *op)
{
    sdpa s = sdpa_load(op, &sdpa_bwd_ids);
    TRY(sdpa_qkvo(op, &s));
    TRY(sdpa_common(op, &s));
    fe_port grads[4][2] = {
        {PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT, "DO"), s.o},
        {PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT, "DQ"), s.q},
        {PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT, "DK"), s.k},
        {PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT, "DV"), s.v},
    };
    for (int i = 0; i < 4; i++)
        TRY(fe_need_same(op, &grads[i][0], &grads[i][1]));
    fe_port stats = PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT, "STATS");
    TRY(sdpa_row_stats(op, &s, &stats));
    fe_port dbias = PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DBIAS_EXT, "DBIAS");
    if (dbias.set && !s.mask.set)
        return fe_op_bad(op, "DBIAS %s is set but ATTN_MASK (the bias it is the gradient of) is not",
                   DIMS(&dbias));
    TRY(fe_need_same(op, &dbias, &s.mask));
    fe_port inv = PORT(HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_INV_EXT, "DROPOUT_SCALE_INV");
    TRY(fe_need_scalar(op, &inv));
    return fe_check_sdpa_mods(op, s.b, s.hq, s.sq, s.skv); /* the mask modifier */
}

/* ---- paged cache load (§4.8) --------------------------------------------------------------------- */

/* Y is K as [B,H,S,D] or Kᵀ [B,H,D,S] (§4.8): whichever of Y's last two dims is D, the other is
 * the sequence, which must fit in the P pages of bs tokens a batch's page table addresses. */
static hipdnnStatus_t pcl_output(fe_obj *op, const fe_port *y, const fe_port *c, const fe_port *pt)
{
    const int64_t *yd = y->t.dims;
    int64_t d = c->t.dims[3], cap = fe_mul_sat(pt->t.dims[2], c->t.dims[2]);
    if (yd[0] != pt->t.dims[0] || yd[1] != c->t.dims[1])
        return fe_op_bad(op, "Y %s must be [B,H,..] with B from PAGE_TABLE %s and H from CONTAINER %s",
                   DIMS(y), DIMS(pt), DIMS(c));
    if (yd[3] != d && yd[2] != d)
        return fe_op_bad(op, "Y %s must be [B,H,S,D] or [B,H,D,S] with D = %lld from CONTAINER %s",
                   DIMS(y), (long long)d, DIMS(c));
    if ((yd[3] == d && yd[2] <= cap) || (yd[2] == d && yd[3] <= cap))
        return OK;
    return fe_op_bad(op, "Y %s: the sequence dim exceeds the %lld tokens a page table row addresses "
               "(PAGE_TABLE %s pages of CONTAINER %s blocks)", DIMS(y), (long long)cap, DIMS(pt),
               DIMS(c));
}

hipdnnStatus_t fe_check_paged_cache_load(fe_obj *op)
{
    fe_port c = PORT(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC_EXT, "CONTAINER");
    fe_port y = PORT(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC_EXT, "Y");
    fe_port seq = PORT(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC_EXT, "SEQUENCE");
    fe_port pt = PORT(HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC_EXT, "PAGE_TABLE");
    const fe_port *ps[4] = {&c, &y, &seq, &pt};
    for (int i = 0; i < 4; i++)
        TRY(fe_need_rank(op, ps[i], 4, 4));
    int64_t want_pt[4] = {-1, 1, -1, 1}, want_seq[4] = {pt.t.dims[0], 1, 1, 1};
    TRY(fe_need_shape(op, &pt, 4, want_pt, "[B,1,P,1]"));
    TRY(fe_need_int(op, &pt));
    TRY(fe_need_shape(op, &seq, 4, want_seq, "[B,1,1,1] with PAGE_TABLE's B"));
    TRY(fe_need_int(op, &seq));
    return pcl_output(op, &y, &c, &pt);
}
