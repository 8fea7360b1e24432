/* ir_ref_sdpa.c — reference kernels of scaled dot-product attention (SDPA_FWD, SDPA_BWD).
 *
 * Owns ir_ref_sdpa_fwd and ir_ref_sdpa_bwd (contract: ir_int.h, slots: ir.h): the definition of
 * what every GPU attention kernel computes. Host memory, strided views, math in double, one
 * rounding per stored element. Does not own dtype conversion (ir_dtype.c), the dropout decision
 * (ir_dropout_keep, ir_philox.c) or slot dispatch (ir_ref.c). Semantics: op-semantics.md §4.
 *
 * Shapes: Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hv,Skv,Dv], O and dO [B,Hq,Sq,Dv], Stats, Max,
 * Sum_exp [B,Hq,Sq,1], Bias and dropout mask [1|B,1|Hq,1|Sq,1|Skv], RNG_DUMP [B,Hq,Sq,Skv],
 * SEQ_Q/SEQ_KV [B,1,1,1], sink [1,Hq,1,1], scale/seed/offset one element, BLOCK_MASK (forward)
 * [1|B,1|Hq,⌈Sq/128⌉,⌈⌈Skv/128⌉/8⌉] UINT8 or INT8. Query head h reads
 * K head h/(Hq/Hk) and V head h/(Hq/Hv). Paged (PAGE_K/PAGE_V [B,1,P,1]): K is a container
 * [nblk,Hk,bs,D] and K[b,h,t,d] = container[page_k[b,0,t/bs,0], h, t%bs, d]; likewise V. Then
 * Skv = RNG_DUMP's, else the bias', else the dropout mask's last dim (when not 1), else the
 * smaller table coverage P·bs. SEQ_Q and SEQ_KV mask whenever present (padding_mask only
 * demands them); either may come alone.
 *
 * Forward, per (b, h, query row i), in this order (sq, skv: SEQ_Q[b], SEQ_KV[b], else Sq, Skv):
 *  1. S_ij = (Σ_d Q_id·K_jd)·scale          scale = the SCALE tensor, else attn_scale
 *  1b. S_ij = mod(S_ij)                      the score modifier, when the op has one: the chain
 *                                             at (b, h, i, j) (ir_ref_sdpa_fwd_mod;
 *                                             ir_score_mod_eval, double)
 *  2. S_ij += Bias[b,h,i,j]                   size-1 bias dims broadcast
 *  3. S_ij += slope_h·(j − i)                 ALiBi: n = 2^floor(log2 Hq); slope_h = 2^(−8(h+1)/n)
 *                                             for h < n, else 2^(−4(2(h−n)+1)/n)
 *  4. S_ij = −inf where masked:               padding  i ≥ sq or j ≥ skv
 *                                             right r  j > i + shift + r
 *                                             left l   j ≤ i + shift − l
 *                                             mask modifier  its chain at (b, h, i, j) is 0
 *                                             (forward and backward alike)
 *                                             block mask  bit (j/128) % 8 of BLOCK_MASK byte
 *                                             [b, h, i/128, j/1024] is 0 (forward; size-1
 *                                             batch or head dims broadcast; §4.4)
 *     shift = 0 (TOP_LEFT) or skv − sq (BOTTOM_RIGHT). A masked score reads nothing: Q rows ≥ sq
 *     and K/V rows ≥ skv (and their pages) are never read.
 *  5. m = max(max_j S_ij, sink_h); l = Σ_j exp(S_ij − m) + exp(sink_h − m); P_ij = exp(S_ij − m)/l.
 *     A row whose every S_ij is −inf: P = 0, O = 0, Stats = Max = −inf, Sum_exp = 0 (sink or not).
 *  6. Dropout: P_ij ·= s·M_ij with M_ij = ir_dropout_keep(seed, offset, ((b·Hq + h)·Sq + i)·Skv
 *     + j, p), s = 1/(1−p); or custom: M = DROPOUT_MASK (else 1), s = DROPOUT_SCALE (else 1).
 *     RNG_DUMP_ij = M_ij (1 without dropout), for every (i, j), masked or not.
 *  7. O_i = Σ_j P_ij·V_j over j with S_ij > −inf; Stats_i = m + ln l; Max_i = m; Sum_exp_i = l.
 * FP8 attention (the six DESCALE_* / SCALE_* operands, all present — cuDNN's composite,
 * op-semantics.md §4.9): step 1 also multiplies by descale_q·descale_k; AMAX_S = max P_ij (step 5,
 * before dropout); P_ij (after dropout) ·scale_s is rounded to Q's type before step 7, whose O_i
 * is multiplied by descale_s·descale_v; AMAX_O = max |O_i| over the whole op (before scale_o); O
 * is stored as O_i·scale_o. cuDNN's composite has no dropout, bias, sink or modifier with FP8;
 * here they compose as the steps above order them.
 *
 * Backward (Q, K, V, O, dO, Stats → dQ, dK, dV, dBias), per row, S and M as above, s' = 1−p
 * (Philox), else DROPOUT_SCALE_INV, else 1/s (0 when s = 0) — the FE factorization:
 *    P_ij = exp(S_ij − Stats_i) (0 where S_ij = −inf); D_i = Σ_d dO_id·O_id; dP_ij = Σ_d dO_id·V_jd
 *    dS_ij = P_ij·s·(dP_ij·M_ij − s'·D_i)
 *    dV_j += P_ij·M_ij·s·dO_i;  dQ_i = scale·Σ_j dS_ij·K_j;  dK_j += scale·dS_ij·Q_i
 *    dBias[b,h,i,j, broadcast dims at 0] += dS_ij
 * dK, dV (over the q-heads of a group) and dBias (over broadcast dims) sum in double; each output
 * element is rounded once. Rows and columns cut by the masks get 0 in every gradient.
 */
#include <math.h>
#include <string.h>

#include "ir/ir_int.h"

#define OK HIPDNN_STATUS_SUCCESS

typedef struct head_src {        /* Q, K or V [B,H,S,Dh], or a paged container [nblk,H,bs,Dh] */
    const ir_buf *buf, *table;   /* table: page table [B,1,P,1], NULL when dense */
    int64_t heads, dim, bs, len; /* len: S when dense, P·bs when paged */
} head_src;

typedef struct sdpa_ops {        /* operands by meaning, whichever op's slots they came from */
    const ir_buf *q, *k, *v, *bias, *scale, *seq_q, *seq_kv, *seed, *offset;
    const ir_buf *dmask, *dscale, *dscale_inv, *page_k, *page_v, *sink, *block_mask, *mod_result;
    const ir_buf *mask_result;   /* the mask modifier's result operand (never read) */
    const ir_buf *fp8[6];        /* FP8: descale q, k, v, s, scale s, o (IR_SDPA_DESCALE_Q order) */
    const ir_score_mod *mod;     /* the score modifier's chain (forward), NULL without one */
    const ir_score_mod *mask;    /* the mask modifier's chain, NULL without one */
} sdpa_ops;

typedef struct sdpa {
    const ir_sdpa *p;
    sdpa_ops in;
    head_src q, k, v;
    int64_t B, Hq, Sq, Skv, D, Dv;
    double scale;                /* attention scale */
    bool philox;                 /* dropout decided by ir_dropout_keep */
    uint64_t seed, offset;
    double drop_s, drop_sinv;    /* dropout scale s and s' */
    bool fp8;                    /* FP8 attention: the factors below apply */
    double qk_descale, s_scale, sv_descale, o_scale; /* 1 without FP8 */
    double amax_s, amax_o;       /* FP8: running max P and max |O| */
    /* the current (b, h) */
    int64_t b, h, hk, hv, sq, skv, shift;
    double slope;
    double *qh, *kh, *vh;        /* Q [Sq,D], K [Skv,D], V [Skv,Dv] of (b, h), padding rows 0 */
    double *srow, *mrow;         /* S_i and M_i [Skv] */
    double *orow;                /* forward: O_i [Dv]; backward: dO_i [Dv] */
    double *dqrow;               /* backward: Σ_j dS_ij·K_j [D] */
    double *dk, *dv, *dbias;     /* backward accumulators, row-major over dK, dV, dBias dims */
} sdpa;

static hipdnnStatus_t bad(const char *what)
{
    return base_fail(HIPDNN_STATUS_BAD_PARAM, "sdpa reference: %s", what);
}

/* ---- shapes ---------------------------------------------------------------------------------- */

static bool rank4(const ir_buf *t)
{
    if (t == NULL || t->rank != 4)
        return false;
    for (int d = 0; d < 4; d++)
        if (t->dims[d] < 0)
            return false;
    return true;
}

static bool dims_are(const ir_buf *t, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    return rank4(t) && t->dims[0] == d0 && t->dims[1] == d1 && t->dims[2] == d2 &&
           t->dims[3] == d3;
}

/* Each dim equal to [B,Hq,Sq,Skv]'s or 1. */
static bool dims_bcast(const sdpa *s, const ir_buf *t)
{
    const int64_t full[4] = {s->B, s->Hq, s->Sq, s->Skv};
    if (!rank4(t))
        return false;
    for (int d = 0; d < 4; d++)
        if (t->dims[d] != 1 && t->dims[d] != full[d])
            return false;
    return true;
}

/* The index of score (b, h, i, j) in a broadcast [1|B,1|Hq,1|Sq,1|Skv] tensor. */
static void bcast_idx(const ir_buf *t, int64_t b, int64_t h, int64_t i, int64_t j, int64_t idx[4])
{
    const int64_t full[4] = {b, h, i, j};
    for (int d = 0; d < 4; d++)
        idx[d] = t->dims[d] == 1 ? 0 : full[d];
}

static int64_t flat4(const ir_buf *t, const int64_t idx[4])
{
    return ((idx[0] * t->dims[1] + idx[1]) * t->dims[2] + idx[2]) * t->dims[3] + idx[3];
}

static double scalar(const ir_buf *t)
{
    int64_t idx[IR_MAX_RANK] = {0};
    return ir_load(t, idx);
}

static int64_t seq_len(const ir_buf *t, int64_t b)
{
    int64_t idx[IR_MAX_RANK] = {b};
    return (int64_t)ir_load(t, idx);
}

/* A [B,1,1,1] length tensor whose every value lies in [0, max]. */
static bool seq_ok(const ir_buf *t, int64_t B, int64_t max)
{
    int64_t idx[IR_MAX_RANK] = {0};
    if (t->rank < 1 || t->dims[0] != B || ir_buf_numel(t) != B)
        return false;
    for (idx[0] = 0; idx[0] < B; idx[0]++) {
        double v = ir_load(t, idx);
        if (!(v >= 0 && v <= (double)max) || v != floor(v))
            return false;
    }
    return true;
}

/* Seed and offset: INT64, or INT32 sign-extended; the element at index 0. */
static hipdnnStatus_t read_u64(const ir_buf *t, uint64_t *v)
{
    int64_t i64;
    int32_t i32;
    if (ir_buf_numel(t) != 1)
        return bad("seed and offset must hold one element");
    if (t->dtype == HIPDNN_DATA_INT64) {
        memcpy(&i64, t->data, sizeof i64);
        *v = (uint64_t)i64;
    } else if (t->dtype == HIPDNN_DATA_INT32) {
        memcpy(&i32, t->data, sizeof i32);
        *v = (uint64_t)(int64_t)i32;
    } else {
        return bad("seed and offset must be INT32 or INT64");
    }
    return OK;
}

static hipdnnStatus_t src_init(head_src *s, const ir_buf *buf, const ir_buf *table, int64_t B)
{
    if (!rank4(buf))
        return bad("Q, K and V must be rank-4 tensors");
    *s = (head_src){buf, table, buf->dims[1], buf->dims[3], buf->dims[2], buf->dims[2]};
    if (table == NULL)
        return buf->dims[0] == B ? OK : bad("K and V must have Q's batch size");
    if (!rank4(table) || table->dims[0] != B || table->dims[1] != 1 || table->dims[3] != 1)
        return bad("a page table must be [B,1,P,1]");
    if (s->bs == 0 || table->dims[2] > INT64_MAX / s->bs)
        return bad("paged K/V: empty blocks or too long a page table");
    s->len = table->dims[2] * s->bs;
    return OK;
}

/* Skv: the dense K or V length; with both paged, an Skv-shaped operand's or the coverage. */
static int64_t infer_skv(const sdpa *s, const ir_buf *dump)
{
    const ir_buf *hint[2] = {s->in.bias, s->in.dmask};
    if (s->k.table == NULL || s->v.table == NULL)
        return s->k.table == NULL ? s->k.len : s->v.len;
    if (rank4(dump))
        return dump->dims[3];
    for (int n = 0; n < 2; n++)
        if (rank4(hint[n]) && hint[n]->dims[3] != 1)
            return hint[n]->dims[3];
    return s->k.len < s->v.len ? s->k.len : s->v.len;
}

static bool src_len_ok(const head_src *s, int64_t Skv)
{
    return s->table != NULL ? s->len >= Skv : s->len == Skv;
}

static hipdnnStatus_t check_qkv(sdpa *s, const ir_buf *dump)
{
    hipdnnStatus_t st = src_init(&s->q, s->in.q, NULL, rank4(s->in.q) ? s->in.q->dims[0] : 0);
    if (st == OK)
        st = src_init(&s->k, s->in.k, s->in.page_k, s->in.q->dims[0]);
    if (st == OK)
        st = src_init(&s->v, s->in.v, s->in.page_v, s->in.q->dims[0]);
    if (st != OK)
        return st;
    s->B = s->q.buf->dims[0], s->Hq = s->q.heads, s->Sq = s->q.len, s->D = s->q.dim;
    s->Dv = s->v.dim;
    s->Skv = infer_skv(s, dump);
    if (s->k.dim != s->D)
        return bad("K's head dim differs from Q's");
    if (s->k.heads < 1 || s->v.heads < 1 || s->Hq % s->k.heads != 0 || s->Hq % s->v.heads != 0)
        return bad("Q's head count must be a multiple of K's and V's");
    if (!src_len_ok(&s->k, s->Skv) || !src_len_ok(&s->v, s->Skv))
        return bad("K and V sequence lengths differ (or a page table is too short)");
    return OK;
}

static hipdnnStatus_t check_dropout(sdpa *s)
{
    double p = s->p->dropout_p;
    hipdnnStatus_t st = OK;
    s->drop_s = s->drop_sinv = 1.0;
    if (!(p >= 0 && p < 1))
        return bad("dropout probability must lie in [0, 1)");
    if (p > 0) {
        if (s->in.dmask != NULL || s->in.dscale != NULL)
            return bad("Philox dropout and custom dropout are exclusive");
        if (s->in.seed == NULL || s->in.offset == NULL)
            return bad("dropout needs the seed and offset tensors");
        st = read_u64(s->in.seed, &s->seed);
        if (st == OK)
            st = read_u64(s->in.offset, &s->offset);
        s->philox = true, s->drop_s = 1.0 / (1.0 - p), s->drop_sinv = 1.0 - p;
        return st;
    }
    if (s->in.dmask != NULL && !dims_bcast(s, s->in.dmask))
        return bad("the dropout mask must be [1|B,1|Hq,1|Sq,1|Skv]");
    if (s->in.dscale != NULL)
        s->drop_s = scalar(s->in.dscale);
    s->drop_sinv = s->drop_s != 0 ? 1.0 / s->drop_s : 0.0;
    if (s->in.dscale_inv != NULL)
        s->drop_sinv = scalar(s->in.dscale_inv);
    return OK;
}

static hipdnnStatus_t check_scalars(const sdpa *s)
{
    const ir_buf *one[] = {s->in.scale, s->in.dscale, s->in.dscale_inv};
    for (size_t n = 0; n < sizeof one / sizeof one[0]; n++)
        if (one[n] != NULL && ir_buf_numel(one[n]) != 1)
            return bad("the attention and dropout scales must hold one element");
    return OK;
}

/* The FP8 factors: all six operands one element each, or none (factors 1). */
static hipdnnStatus_t check_fp8(sdpa *s)
{
    int n = 0;
    double f[6] = {1, 1, 1, 1, 1, 1};
    for (int i = 0; i < 6; i++)
        if (s->in.fp8[i] != NULL) {
            if (ir_buf_numel(s->in.fp8[i]) != 1)
                return bad("the FP8 descale and scale operands must hold one element");
            f[i] = scalar(s->in.fp8[i]), n++;
        }
    if (n != 0 && n != 6)
        return bad("FP8 attention needs all six DESCALE_Q/K/V/S, SCALE_S, SCALE_O operands");
    s->fp8 = n == 6;
    s->qk_descale = f[0] * f[1], s->sv_descale = f[2] * f[3], s->s_scale = f[4], s->o_scale = f[5];
    s->amax_s = s->amax_o = 0.0;
    return OK;
}

/* BLOCK_MASK: bytes [1|B,1|Hq,ceil(Sq/128),ceil(ceil(Skv/128)/8)]. */
static bool block_mask_ok(const sdpa *s)
{
    const ir_buf *m = s->in.block_mask;
    int64_t kt = (s->Skv + 127) / 128;
    return rank4(m) && (m->dtype == HIPDNN_DATA_UINT8 || m->dtype == HIPDNN_DATA_INT8) &&
           (m->dims[0] == 1 || m->dims[0] == s->B) && (m->dims[1] == 1 || m->dims[1] == s->Hq) &&
           m->dims[2] == (s->Sq + 127) / 128 && m->dims[3] == (kt + 7) / 8;
}

/* Whether BLOCK_MASK keeps score (i, j) of the current (b, h): bit t (LSB first) of byte k of the
 * query tile's row keeps key tile 8k + t (128 x 128 tiles). */
static bool block_kept(const sdpa *s, int64_t i, int64_t j)
{
    const ir_buf *m = s->in.block_mask;
    int64_t kt = j / 128, idx[4] = {m->dims[0] == 1 ? 0 : s->b, m->dims[1] == 1 ? 0 : s->h, i / 128, kt / 8};
    unsigned byte = (unsigned)(uint8_t)(int)ir_load(m, idx);
    return (byte >> (kt % 8)) & 1u;
}

/* A modifier chain (or none) over the scores [B,Hq,Sq,Skv]. */
static bool mod_fits(const sdpa *s, const ir_score_mod *m)
{
    const int64_t full[4] = {s->B, s->Hq, s->Sq, s->Skv};
    for (int d = 0; m != NULL && d < 4; d++)
        if (m->dims[d] != full[d])
            return false;
    return true;
}

static hipdnnStatus_t check_options(sdpa *s)
{
    const ir_sdpa *p = s->p;
    hipdnnStatus_t st;
    if (s->in.block_mask != NULL && !block_mask_ok(s))
        return bad("the block mask must be UINT8 or INT8 [1|B,1|Hq,ceil(Sq/128),ceil(ceil(Skv/128)/8)]");
    if ((s->in.mod_result != NULL && s->in.mod == NULL) || (s->in.mask_result != NULL && s->in.mask == NULL))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "sdpa reference: a score or mask modifier operand "
                         "without its chain (ir_ref_run_mod)");
    if (!mod_fits(s, s->in.mod) || !mod_fits(s, s->in.mask))
        return bad("a score or mask modifier's result must be [B,Hq,Sq,Skv]");
    if (s->in.bias != NULL && !dims_bcast(s, s->in.bias))
        return bad("the bias must be [1|B,1|Hq,1|Sq,1|Skv]");
    if (p->padding_mask && (s->in.seq_q == NULL || s->in.seq_kv == NULL))
        return bad("the padding mask needs SEQ_Q and SEQ_KV");
    if (s->in.seq_q != NULL && !seq_ok(s->in.seq_q, s->B, s->Sq))
        return bad("SEQ_Q must be [B,1,1,1] with whole values in [0, Sq]");
    if (s->in.seq_kv != NULL && !seq_ok(s->in.seq_kv, s->B, s->Skv))
        return bad("SEQ_KV must be [B,1,1,1] with whole values in [0, Skv]");
    if (s->in.sink != NULL && !dims_are(s->in.sink, 1, s->Hq, 1, 1))
        return bad("the sink must be [1,Hq,1,1]");
    st = check_scalars(s);
    if (st != OK)
        return st;
    s->scale = s->in.scale != NULL ? scalar(s->in.scale) : p->attn_scale;
    st = check_dropout(s);
    return st == OK ? check_fp8(s) : st;
}

static hipdnnStatus_t sdpa_init(sdpa *s, const ir_sdpa *p, const sdpa_ops *in,
                                const ir_buf *dump)
{
    hipdnnStatus_t st;
    s->p = p, s->in = *in;
    if (in->q == NULL || in->k == NULL || in->v == NULL)
        return bad("Q, K and V are required");
    st = check_qkv(s, dump);
    return st == OK ? check_options(s) : st;
}

/* ---- scratch --------------------------------------------------------------------------------- */

/* A zeroed array of dims[0]·…·dims[n−1] doubles; *ok turns false on failure. */
static double *dbl_calloc(int n, const int64_t *dims, bool *ok)
{
    size_t count = 1;
    double *a = NULL;
    for (int d = 0; d < n; d++)
        if (!base_mul_size(count, (size_t)dims[d], &count))
            *ok = false;
    if (*ok)
        a = base_calloc(count, sizeof(double));
    if (a == NULL)
        *ok = false;
    return a;
}

static hipdnnStatus_t sdpa_alloc(sdpa *s, bool bwd, bool dbias)
{
    bool ok = true;
    s->qh = dbl_calloc(2, (int64_t[]){s->Sq, s->D}, &ok);
    s->kh = dbl_calloc(2, (int64_t[]){s->Skv, s->D}, &ok);
    s->vh = dbl_calloc(2, (int64_t[]){s->Skv, s->Dv}, &ok);
    s->srow = dbl_calloc(1, &s->Skv, &ok);
    s->mrow = dbl_calloc(1, &s->Skv, &ok);
    s->orow = dbl_calloc(1, &s->Dv, &ok);
    if (bwd) {
        s->dqrow = dbl_calloc(1, &s->D, &ok);
        s->dk = dbl_calloc(4, (int64_t[]){s->B, s->k.heads, s->Skv, s->D}, &ok);
        s->dv = dbl_calloc(4, (int64_t[]){s->B, s->v.heads, s->Skv, s->Dv}, &ok);
    }
    if (dbias)
        s->dbias = dbl_calloc(4, s->in.bias->dims, &ok);
    return ok ? OK : base_fail(HIPDNN_STATUS_ALLOC_FAILED, "sdpa reference: out of host memory");
}

static void sdpa_free(sdpa *s)
{
    double *a[] = {s->dbias, s->dv, s->dk, s->dqrow, s->orow, s->mrow, s->srow, s->vh, s->kh,
                   s->qh};
    for (size_t n = 0; n < sizeof a / sizeof a[0]; n++)
        base_free(a[n]);
}

/* ---- one (b, h) ------------------------------------------------------------------------------ */

static double alibi_slope(int64_t h, int64_t H)
{
    int64_t n = 1;
    while (n <= H / 2)
        n *= 2;
    if (h < n)
        return exp2(-8.0 * (double)(h + 1) / (double)n);
    return exp2(-4.0 * (double)(2 * (h - n) + 1) / (double)n);
}

/* Points idx at token t's page; false when the table names no block of the container. */
static bool src_page(const head_src *s, int64_t b, int64_t t, int64_t idx[4])
{
    int64_t ti[4] = {b, 0, t / s->bs, 0};
    double blk = ir_load(s->table, ti);
    if (!(blk >= 0 && blk < (double)s->buf->dims[0]))
        return false;
    idx[0] = (int64_t)blk, idx[2] = t % s->bs;
    return true;
}

/* Rows [0, rows) of head h, batch b into dst [len, dim]; rows ≥ `rows` stay 0 (never read). */
static hipdnnStatus_t src_gather(const head_src *s, int64_t b, int64_t h, int64_t rows, double *dst)
{
    for (int64_t t = 0; t < rows; t++) {
        int64_t idx[4] = {b, h, t, 0};
        if (s->table != NULL && !src_page(s, b, t, idx))
            return base_fail(HIPDNN_STATUS_BAD_PARAM,
                             "sdpa reference: the page table entry of batch %lld, token %lld "
                             "names no block of the container", (long long)b, (long long)t);
        for (idx[3] = 0; idx[3] < s->dim; idx[3]++)
            dst[t * s->dim + idx[3]] = ir_load(s->buf, idx);
    }
    return OK;
}

static hipdnnStatus_t sdpa_head(sdpa *s, int64_t b, int64_t h)
{
    hipdnnStatus_t st;
    s->b = b, s->h = h;
    s->hk = h / (s->Hq / s->k.heads), s->hv = h / (s->Hq / s->v.heads);
    s->sq = s->in.seq_q != NULL ? seq_len(s->in.seq_q, b) : s->Sq;
    s->skv = s->in.seq_kv != NULL ? seq_len(s->in.seq_kv, b) : s->Skv;
    s->shift = s->p->bottom_right ? s->skv - s->sq : 0;
    s->slope = s->p->alibi ? alibi_slope(h, s->Hq) : 0.0;
    memset(s->qh, 0, (size_t)(s->Sq * s->D) * sizeof(double));
    memset(s->kh, 0, (size_t)(s->Skv * s->D) * sizeof(double));
    memset(s->vh, 0, (size_t)(s->Skv * s->Dv) * sizeof(double));
    st = src_gather(&s->q, b, h, s->sq, s->qh);
    if (st == OK)
        st = src_gather(&s->k, b, s->hk, s->skv, s->kh);
    return st == OK ? src_gather(&s->v, b, s->hv, s->skv, s->vh) : st;
}

static bool sdpa_masked(const sdpa *s, int64_t i, int64_t j)
{
    const ir_sdpa *p = s->p;
    if (i >= s->sq || j >= s->skv)
        return true;
    if (p->has_right && j > i + s->shift + p->right_bound)
        return true;
    if (p->has_left && j <= i + s->shift - p->left_bound)
        return true;
    if (s->in.block_mask != NULL && !block_kept(s, i, j))
        return true;
    return s->in.mask != NULL && ir_score_mod_eval(s->in.mask, NAN, (const int64_t[4]){s->b, s->h, i, j}) == 0;
}

static double sdpa_score(const sdpa *s, int64_t i, int64_t j)
{
    const double *q = s->qh + i * s->D, *k = s->kh + j * s->D;
    double acc = 0.0;
    int64_t idx[4];
    for (int64_t d = 0; d < s->D; d++)
        acc += q[d] * k[d];
    acc *= s->scale * s->qk_descale;
    if (s->in.mod != NULL)
        acc = ir_score_mod_eval(s->in.mod, acc, (const int64_t[4]){s->b, s->h, i, j});
    if (s->in.bias != NULL) {
        bcast_idx(s->in.bias, s->b, s->h, i, j, idx);
        acc += ir_load(s->in.bias, idx);
    }
    if (s->p->alibi)
        acc += s->slope * (double)(j - i);
    return acc;
}

/* srow = S_i with −inf where masked; mrow = M_i. */
static void sdpa_row(sdpa *s, int64_t i)
{
    int64_t idx[4], lin = ((s->b * s->Hq + s->h) * s->Sq + i) * s->Skv;
    for (int64_t j = 0; j < s->Skv; j++) {
        s->srow[j] = sdpa_masked(s, i, j) ? -INFINITY : sdpa_score(s, i, j);
        s->mrow[j] = 1.0;
        if (s->philox)
            s->mrow[j] = ir_dropout_keep(s->seed, s->offset, lin + j, s->p->dropout_p);
        else if (s->in.dmask != NULL) {
            bcast_idx(s->in.dmask, s->b, s->h, i, j, idx);
            s->mrow[j] = ir_load(s->in.dmask, idx);
        }
    }
}

/* Whether some score of row srow is not −inf. */
static bool row_live(const sdpa *s)
{
    for (int64_t j = 0; j < s->Skv; j++)
        if (s->srow[j] != -INFINITY)
            return true;
    return false;
}

/* m and l of row srow (sink included); false when every score is −inf. NaN propagates. */
static bool sdpa_softmax(const sdpa *s, double *m, double *l)
{
    double mx = -INFINITY, sum = 0.0, sink = -INFINITY;
    for (int64_t j = 0; j < s->Skv; j++)
        if (s->srow[j] > mx || isnan(s->srow[j]))
            mx = s->srow[j];
    if (mx == -INFINITY)
        return false;
    if (s->in.sink != NULL) {
        int64_t idx[4] = {0, s->h, 0, 0};
        sink = ir_load(s->in.sink, idx);
        mx = sink > mx || isnan(sink) ? sink : mx;
        sum = exp(sink - mx);
    }
    for (int64_t j = 0; j < s->Skv; j++)
        if (s->srow[j] != -INFINITY)
            sum += exp(s->srow[j] - mx);
    *m = mx, *l = sum;
    return true;
}

/* ---- forward --------------------------------------------------------------------------------- */

static void fwd_store(const sdpa *s, const ir_ref_ctx *c, int64_t i, double m, double l)
{
    ir_buf *o = IR_OUT(c, IR_SDPA_O), *dump = IR_OUT(c, IR_SDPA_RNG_DUMP);
    ir_buf *stats = IR_OUT(c, IR_SDPA_STATS), *max = IR_OUT(c, IR_SDPA_MAX);
    ir_buf *sum = IR_OUT(c, IR_SDPA_SUM_EXP);
    int64_t idx[4] = {s->b, s->h, i, 0};
    for (idx[3] = 0; o != NULL && idx[3] < s->Dv; idx[3]++)
        ir_store(o, idx, s->orow[idx[3]]);
    for (idx[3] = 0; dump != NULL && idx[3] < s->Skv; idx[3]++)
        ir_store(dump, idx, s->mrow[idx[3]]);
    idx[3] = 0;
    if (stats != NULL)
        ir_store(stats, idx, m + log(l)); /* −inf + ln 0 = −inf for a masked row */
    if (max != NULL)
        ir_store(max, idx, m);
    if (sum != NULL)
        ir_store(sum, idx, l);
}

static void fwd_row(sdpa *s, const ir_ref_ctx *c, int64_t i)
{
    double m = -INFINITY, l = 0.0;
    sdpa_row(s, i);
    memset(s->orow, 0, (size_t)s->Dv * sizeof(double));
    if (!sdpa_softmax(s, &m, &l))
        m = -INFINITY, l = 0.0;
    for (int64_t j = 0; j < s->Skv && l != 0.0; j++) {
        const double *v = s->vh + j * s->Dv;
        double pj;
        if (s->srow[j] == -INFINITY)
            continue;
        pj = exp(s->srow[j] - m) / l;
        s->amax_s = pj > s->amax_s || isnan(pj) ? pj : s->amax_s; /* FP8's AMAX_S: before dropout */
        pj *= s->drop_s * s->mrow[j];
        if (s->fp8) /* P·scale_s in Q's type */
            pj = ir_dtype_round(s->q.buf->dtype, pj * s->s_scale);
        for (int64_t d = 0; d < s->Dv; d++)
            s->orow[d] += pj * v[d];
    }
    for (int64_t d = 0; s->fp8 && d < s->Dv; d++) {
        s->orow[d] *= s->sv_descale;
        s->amax_o = fabs(s->orow[d]) > s->amax_o || isnan(s->orow[d]) ? fabs(s->orow[d]) : s->amax_o;
        s->orow[d] *= s->o_scale;
    }
    fwd_store(s, c, i, m, l);
}

/* AMAX_S and AMAX_O of FP8 attention (fwd_check_outputs checked them). */
static void fwd_store_amax(const sdpa *s, const ir_ref_ctx *c)
{
    ir_buf *amax[2] = {IR_OUT(c, IR_SDPA_AMAX_S), IR_OUT(c, IR_SDPA_AMAX_O)};
    const double v[2] = {s->amax_s, s->amax_o};
    int64_t idx[IR_MAX_RANK] = {0};
    for (int n = 0; n < 2; n++)
        if (amax[n] != NULL)
            ir_store(amax[n], idx, v[n]);
}

static hipdnnStatus_t fwd_check_outputs(const sdpa *s, const ir_ref_ctx *c)
{
    const ir_buf *o = IR_OUT(c, IR_SDPA_O), *dump = IR_OUT(c, IR_SDPA_RNG_DUMP);
    const ir_buf *rows[3] = {IR_OUT(c, IR_SDPA_STATS), IR_OUT(c, IR_SDPA_MAX),
                             IR_OUT(c, IR_SDPA_SUM_EXP)};
    if (o != NULL && !dims_are(o, s->B, s->Hq, s->Sq, s->Dv))
        return bad("O must be [B,Hq,Sq,Dv]");
    for (int n = 0; n < 3; n++)
        if (rows[n] != NULL && !dims_are(rows[n], s->B, s->Hq, s->Sq, 1))
            return bad("Stats, Max and Sum_exp must be [B,Hq,Sq,1]");
    if (dump != NULL && !dims_are(dump, s->B, s->Hq, s->Sq, s->Skv))
        return bad("RNG_DUMP must be [B,Hq,Sq,Skv]");
    for (int n = IR_SDPA_AMAX_S; n <= IR_SDPA_AMAX_O; n++)
        if (IR_OUT(c, n) != NULL && (!s->fp8 || ir_buf_numel(IR_OUT(c, n)) != 1))
            return bad("AMAX_S and AMAX_O are one-element outputs of FP8 attention");
    return OK;
}

static void fwd_ops(const ir_ref_ctx *c, sdpa_ops *o)
{
    *o = (sdpa_ops){
        .q = IR_IN(c, IR_SDPA_Q), .k = IR_IN(c, IR_SDPA_K), .v = IR_IN(c, IR_SDPA_V),
        .bias = IR_IN(c, IR_SDPA_BIAS), .scale = IR_IN(c, IR_SDPA_SCALE),
        .seq_q = IR_IN(c, IR_SDPA_SEQ_Q), .seq_kv = IR_IN(c, IR_SDPA_SEQ_KV),
        .seed = IR_IN(c, IR_SDPA_SEED), .offset = IR_IN(c, IR_SDPA_OFFSET),
        .dmask = IR_IN(c, IR_SDPA_DROPOUT_MASK), .dscale = IR_IN(c, IR_SDPA_DROPOUT_SCALE),
        .page_k = IR_IN(c, IR_SDPA_PAGE_K), .page_v = IR_IN(c, IR_SDPA_PAGE_V),
        .sink = IR_IN(c, IR_SDPA_SINK), .block_mask = IR_IN(c, IR_SDPA_BLOCK_MASK),
        .mod_result = IR_IN(c, IR_SDPA_SCORE_MOD), .mask_result = IR_IN(c, IR_SDPA_MASK_MOD)};
    for (int i = 0; i < 6; i++)
        o->fp8[i] = IR_IN(c, IR_SDPA_DESCALE_Q + i);
}

hipdnnStatus_t ir_ref_sdpa_fwd(const ir_sdpa *p, const ir_ref_ctx *c)
{
    return ir_ref_sdpa_fwd_mod(p, NULL, c);
}

hipdnnStatus_t ir_ref_sdpa_fwd_mod(const ir_sdpa *p, const ir_ref_mods *mods, const ir_ref_ctx *c)
{
    sdpa s = {0};
    sdpa_ops ops;
    hipdnnStatus_t st;
    fwd_ops(c, &ops);
    ops.mod = mods != NULL ? mods->score : NULL;
    ops.mask = mods != NULL ? mods->mask : NULL;
    st = sdpa_init(&s, p, &ops, IR_OUT(c, IR_SDPA_RNG_DUMP));
    if (st == OK)
        st = fwd_check_outputs(&s, c);
    if (st == OK)
        st = sdpa_alloc(&s, false, false);
    for (int64_t b = 0; b < s.B && st == OK; b++)
        for (int64_t h = 0; h < s.Hq && st == OK; h++) {
            st = sdpa_head(&s, b, h);
            for (int64_t i = 0; i < s.Sq && st == OK; i++)
                fwd_row(&s, c, i);
        }
    if (st == OK)
        fwd_store_amax(&s, c);
    sdpa_free(&s);
    return st;
}

/* ---- backward -------------------------------------------------------------------------------- */

/* dO_i into orow; returns D_i = Σ_d dO_id·O_id. */
static double bwd_load_do(sdpa *s, const ir_ref_ctx *c, int64_t i)
{
    const ir_buf *o = IR_IN(c, IR_SDPAB_O), *dout = IR_IN(c, IR_SDPAB_DO);
    int64_t idx[4] = {s->b, s->h, i, 0};
    double di = 0.0;
    for (idx[3] = 0; idx[3] < s->Dv; idx[3]++) {
        s->orow[idx[3]] = ir_load(dout, idx);
        di += s->orow[idx[3]] * ir_load(o, idx);
    }
    return di;
}

/* The contributions of score (i, j), whose probability is pij, to every gradient. */
static void bwd_entry(sdpa *s, int64_t i, int64_t j, double pij, double di)
{
    const double *q = s->qh + i * s->D, *k = s->kh + j * s->D, *v = s->vh + j * s->Dv;
    double *dk = s->dk + ((s->b * s->k.heads + s->hk) * s->Skv + j) * s->D;
    double *dv = s->dv + ((s->b * s->v.heads + s->hv) * s->Skv + j) * s->Dv;
    double dp = 0.0, ds, pm = pij * s->mrow[j] * s->drop_s;
    int64_t idx[4];
    for (int64_t d = 0; d < s->Dv; d++)
        dp += s->orow[d] * v[d];
    ds = pij * s->drop_s * (dp * s->mrow[j] - s->drop_sinv * di);
    for (int64_t d = 0; d < s->Dv; d++)
        dv[d] += pm * s->orow[d];
    for (int64_t d = 0; d < s->D; d++) {
        s->dqrow[d] += ds * k[d];
        dk[d] += s->scale * ds * q[d];
    }
    if (s->dbias != NULL) {
        bcast_idx(s->in.bias, s->b, s->h, i, j, idx);
        s->dbias[flat4(s->in.bias, idx)] += ds;
    }
}

static void bwd_row(sdpa *s, const ir_ref_ctx *c, int64_t i)
{
    ir_buf *dq = IR_OUT(c, IR_SDPAB_DQ);
    int64_t idx[4] = {s->b, s->h, i, 0};
    sdpa_row(s, i);
    memset(s->dqrow, 0, (size_t)s->D * sizeof(double));
    if (row_live(s)) {
        double lse = ir_load(IR_IN(c, IR_SDPAB_STATS), idx), di = bwd_load_do(s, c, i);
        for (int64_t j = 0; j < s->Skv; j++)
            if (s->srow[j] != -INFINITY)
                bwd_entry(s, i, j, exp(s->srow[j] - lse), di);
    }
    for (idx[3] = 0; dq != NULL && idx[3] < s->D; idx[3]++)
        ir_store(dq, idx, s->scale * s->dqrow[idx[3]]);
}

/* Stores acc, row-major over t's dims, into t. */
static void store_acc(ir_buf *t, const double *acc)
{
    int64_t idx[IR_MAX_RANK] = {0}, n = 0;
    if (t == NULL || ir_buf_numel(t) == 0)
        return;
    do {
        ir_store(t, idx, acc[n++]);
    } while (ir_next_index(t, idx));
}

static hipdnnStatus_t bwd_check(const sdpa *s, const ir_ref_ctx *c)
{
    const ir_buf *dq = IR_OUT(c, IR_SDPAB_DQ), *dk = IR_OUT(c, IR_SDPAB_DK);
    const ir_buf *dv = IR_OUT(c, IR_SDPAB_DV), *db = IR_OUT(c, IR_SDPAB_DBIAS);
    const ir_buf *o = IR_IN(c, IR_SDPAB_O), *dout = IR_IN(c, IR_SDPAB_DO);
    if (!dims_are(o, s->B, s->Hq, s->Sq, s->Dv) || !dims_are(dout, s->B, s->Hq, s->Sq, s->Dv))
        return bad("O and dO must be [B,Hq,Sq,Dv]");
    if (!dims_are(IR_IN(c, IR_SDPAB_STATS), s->B, s->Hq, s->Sq, 1))
        return bad("Stats must be [B,Hq,Sq,1]");
    if (dq != NULL && !dims_are(dq, s->B, s->Hq, s->Sq, s->D))
        return bad("dQ must have Q's dims");
    if (dk != NULL && !dims_are(dk, s->B, s->k.heads, s->Skv, s->D))
        return bad("dK must have K's dims");
    if (dv != NULL && !dims_are(dv, s->B, s->v.heads, s->Skv, s->Dv))
        return bad("dV must have V's dims");
    if (db != NULL && (s->in.bias == NULL ||
                       !dims_are(db, s->in.bias->dims[0], s->in.bias->dims[1],
                                 s->in.bias->dims[2], s->in.bias->dims[3])))
        return bad("dBias needs a bias and must have its dims");
    return OK;
}

static void bwd_ops(const ir_ref_ctx *c, sdpa_ops *o)
{
    *o = (sdpa_ops){
        .q = IR_IN(c, IR_SDPAB_Q), .k = IR_IN(c, IR_SDPAB_K), .v = IR_IN(c, IR_SDPAB_V),
        .bias = IR_IN(c, IR_SDPAB_BIAS), .scale = IR_IN(c, IR_SDPAB_SCALE),
        .seq_q = IR_IN(c, IR_SDPAB_SEQ_Q), .seq_kv = IR_IN(c, IR_SDPAB_SEQ_KV),
        .seed = IR_IN(c, IR_SDPAB_SEED), .offset = IR_IN(c, IR_SDPAB_OFFSET),
        .dmask = IR_IN(c, IR_SDPAB_DROPOUT_MASK), .dscale = IR_IN(c, IR_SDPAB_DROPOUT_SCALE),
        .dscale_inv = IR_IN(c, IR_SDPAB_DROPOUT_SCALE_INV), .mask_result = IR_IN(c, IR_SDPAB_MASK_MOD)};
}

hipdnnStatus_t ir_ref_sdpa_bwd(const ir_sdpa *p, const ir_ref_ctx *c)
{
    return ir_ref_sdpa_bwd_mod(p, NULL, c);
}

hipdnnStatus_t ir_ref_sdpa_bwd_mod(const ir_sdpa *p, const ir_ref_mods *mods, const ir_ref_ctx *c)
{
    sdpa s = {0};
    sdpa_ops ops;
    hipdnnStatus_t st;
    bwd_ops(c, &ops);
    ops.mask = mods != NULL ? mods->mask : NULL;
    st = sdpa_init(&s, p, &ops, NULL);
    if (st == OK)
        st = bwd_check(&s, c);
    if (st == OK)
        st = sdpa_alloc(&s, true, IR_OUT(c, IR_SDPAB_DBIAS) != NULL);
    for (int64_t b = 0; b < s.B && st == OK; b++)
        for (int64_t h = 0; h < s.Hq && st == OK; h++) {
            st = sdpa_head(&s, b, h);
            for (int64_t i = 0; i < s.Sq && st == OK; i++)
                bwd_row(&s, c, i);
        }
    if (st == OK) {
        store_acc(IR_OUT(c, IR_SDPAB_DK), s.dk);
        store_acc(IR_OUT(c, IR_SDPAB_DV), s.dv);
        store_acc(IR_OUT(c, IR_SDPAB_DBIAS), s.dbias);
    }
    sdpa_free(&s);
    return st;
}
