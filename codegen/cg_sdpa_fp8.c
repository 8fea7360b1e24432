/* cg_sdpa_fp8.c — emits FP8 attention forward (SDPA_FWD with the six DESCALE_* / SCALE_* operands)
 * with kernel_templates/sdpa_fwd_fp8.hip: wgmma .e4m3 / .e5m2 on Hopper (compiled for sm_90a).
 *
 * What the template addresses (ir_ref_sdpa_fwd defines the math; op-semantics.md §4.9):
 *   Q [B,Hq,Sq,D], K [B,Hk,Skv,D], V [B,Hv,Skv,Dv]: FP8 E4M3 or E5M2 alike, any stride order with
 *       a unit last stride and the other strides multiples of 16 elements (16-byte rows); D = Dv
 *       in {64, 128, 256}; Hq a multiple of Hk and Hv (GQA / MQA)
 *   O [B,Hq,Sq,Dv]: any type hd_st stores (FP8, bf16, fp16, float), a unit last stride
 *   the attention scale (attribute or one-element tensor) and the six factors: one element each,
 *       by value, run-time scalars or in memory
 *   SEQ_Q / SEQ_KV [B,1,1,1] integers (padding), the band (causal top-left or bottom-right, sliding
 *       window), Stats / Max / Sum_exp [B,Hq,Sq,1], AMAX_S / AMAX_O (one element each; then the
 *       kernel takes the plan's counter, CG_ARG_COUNTER, as the amax values' accumulator)
 * Refused with a reason (the engine falls back to the reference engine): targets without wgmma,
 * 16-bit operands with the FP8 factors, other head dims, paged K/V, dropout, bias, ALiBi, the
 * sink, score modifiers, RNG_DUMP, the block mask.
 * Tiles: 128 query rows (two warpgroups), 128 keys up to head dim 128 and 64 at 256 (registers:
 * O takes 128 a thread there), two K/V stages, one block an SM.
 */
#include <stdio.h>

#include "codegen/cg_sdpa.h"

typedef struct f8 {
    const ir_graph *g;
    const ir_sdpa *p;
    int in[IR_SDPA_N_IN], out[IR_SDPA_N_OUT]; /* tensor indices, -1 absent */
    int64_t B, Hq, Hk, Hv, Sq, Skv, D;
    int bn;
    bool amax;
} f8;

static const ir_tensor *T(const f8 *s, int ti) { return &s->g->t[ti]; }

bool cg_sdpa_is_fp8(const ir_graph *g, const ir_kernel *k)
{
    const ir_op *op = &g->ops[k->anchor];
    for (int i = IR_SDPA_DESCALE_Q; i <= IR_SDPA_SCALE_O; i++)
        if (i < op->n_in && op->in[i] >= 0)
            return true;
    return false;
}

static bool is_fp8(hipdnnDataType_t t) { return t == HIPDNN_DATA_FP8_E4M3 || t == HIPDNN_DATA_FP8_E5M2; }

/* A one-element float operand the kernel can read: by value, a run-time scalar, or in memory. */
static bool scalar_ok(const ir_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->rank; d++)
        n *= t->dims[d];
    return n == 1 && (t->by_value || t->runtime_scalar || cg_dtype(t->dtype) != NULL);
}

static bool check_qkv(f8 *s, char *why, size_t len)
{
    const ir_tensor *q = T(s, s->in[IR_SDPA_Q]), *k = T(s, s->in[IR_SDPA_K]), *v = T(s, s->in[IR_SDPA_V]);
    const ir_tensor *o = T(s, s->out[IR_SDPA_O]);
    if (cg_sdpa_is16(q->dtype) && k->dtype == q->dtype && v->dtype == q->dtype)
        return cg_sdpa_fail(why, len, "FP8 attention's factors (DESCALE_* / SCALE_*) on bf16/fp16 operands have no "
                            "kernel template: the reference engine runs it");
    if (!is_fp8(q->dtype) || k->dtype != q->dtype || v->dtype != q->dtype)
        return cg_sdpa_fail(why, len, "FP8 attention needs Q, K and V all FP8 E4M3 or all FP8 E5M2");
    if (s->in[IR_SDPA_PAGE_K] >= 0 || s->in[IR_SDPA_PAGE_V] >= 0)
        return cg_sdpa_fail(why, len, "FP8 attention with paged K/V has no kernel template yet");
    if (!cg_sdpa_rows_of(q, 16) || !cg_sdpa_rows_of(k, 16) || !cg_sdpa_rows_of(v, 16))
        return cg_sdpa_fail(why, len, "FP8 attention needs Q, K and V of rank 4 with a unit last stride and the other "
                            "strides multiples of 16 elements (16-byte rows)");
    if (o->rank != 4 || o->strides[3] != 1 || cg_dtype(o->dtype) == NULL)
        return cg_sdpa_fail(why, len, "O must have a type the template stores and a unit last stride");
    s->B = q->dims[0], s->Hq = q->dims[1], s->Sq = q->dims[2], s->D = q->dims[3];
    s->Hk = k->dims[1], s->Hv = v->dims[1], s->Skv = k->dims[2];
    if (k->dims[3] != s->D || v->dims[3] != s->D || (s->D != 64 && s->D != 128 && s->D != 256))
        return cg_sdpa_fail(why, len, "FP8 attention's kernel takes head dims 64, 128 or 256, the same for Q, K and V");
    if (v->dims[2] != s->Skv || k->dims[0] != s->B || v->dims[0] != s->B)
        return cg_sdpa_fail(why, len, "K and V must have Q's batch size and one sequence length");
    if (s->Hk < 1 || s->Hv < 1 || s->Hq % s->Hk != 0 || s->Hq % s->Hv != 0)
        return cg_sdpa_fail(why, len, "Q's head count must be a multiple of K's and V's");
    if (o->dims[0] != s->B || o->dims[1] != s->Hq || o->dims[2] != s->Sq || o->dims[3] != s->D)
        return cg_sdpa_fail(why, len, "O must be [B,Hq,Sq,Dv]");
    if (s->B > 65535 || s->Hq > 65535 || s->Sq > (1 << 28) || s->Skv > (1 << 28) || s->Sq < 1)
        return cg_sdpa_fail(why, len, "attention sizes outside the template's grid range");
    return true;
}

static bool check_options(f8 *s, char *why, size_t len)
{
    const int *in = s->in, *out = s->out;
    if (s->p->dropout_p > 0 || in[IR_SDPA_DROPOUT_MASK] >= 0 || in[IR_SDPA_DROPOUT_SCALE] >= 0)
        return cg_sdpa_fail(why, len, "FP8 attention with dropout has no kernel template yet");
    if (in[IR_SDPA_BIAS] >= 0 || s->p->alibi)
        return cg_sdpa_fail(why, len, "FP8 attention with a bias or ALiBi has no kernel template yet");
    if (in[IR_SDPA_SINK] >= 0)
        return cg_sdpa_fail(why, len, "FP8 attention with an attention sink has no kernel template yet");
    if (in[IR_SDPA_BLOCK_MASK] >= 0 || out[IR_SDPA_RNG_DUMP] >= 0)
        return cg_sdpa_fail(why, len, "FP8 attention with the block mask or RNG_DUMP has no kernel template yet");
    if ((in[IR_SDPA_SEQ_Q] >= 0 && !cg_sdpa_seq_ok(T(s, in[IR_SDPA_SEQ_Q]), s->B)) ||
        (in[IR_SDPA_SEQ_KV] >= 0 && !cg_sdpa_seq_ok(T(s, in[IR_SDPA_SEQ_KV]), s->B)))
        return cg_sdpa_fail(why, len, "SEQ_LEN_Q / SEQ_LEN_KV must be [B,1,1,1] integer tensors");
    if (in[IR_SDPA_SCALE] >= 0 && !scalar_ok(T(s, in[IR_SDPA_SCALE])))
        return cg_sdpa_fail(why, len, "an attention scale the template cannot load");
    for (int i = IR_SDPA_DESCALE_Q; i <= IR_SDPA_SCALE_O; i++)
        if (in[i] < 0 || !scalar_ok(T(s, in[i])))
            return cg_sdpa_fail(why, len, "FP8 attention needs all six DESCALE_* / SCALE_* operands, one element each "
                                "of a type the template loads");
    int64_t row[4] = {s->B, s->Hq, s->Sq, 1}, one[4] = {1, 1, 1, 1};
    for (int n = IR_SDPA_STATS; n <= IR_SDPA_SUM_EXP; n++)
        if (out[n] >= 0 && !cg_sdpa_shaped(T(s, out[n]), row, false))
            return cg_sdpa_fail(why, len, "Stats, Max and Sum_exp must be [B,Hq,Sq,1]");
    for (int n = IR_SDPA_AMAX_S; n <= IR_SDPA_AMAX_O; n++)
        if (out[n] >= 0 && (T(s, out[n])->rank != 4 || !cg_sdpa_shaped(T(s, out[n]), one, false)))
            return cg_sdpa_fail(why, len, "AMAX_S and AMAX_O must be one-element tensors of a type templates store");
    s->amax = out[IR_SDPA_AMAX_S] >= 0 || out[IR_SDPA_AMAX_O] >= 0;
    return true;
}

static bool plan(f8 *s, const ir_graph *g, const ir_kernel *k, const cg_target *t, char *why, size_t len)
{
    const ir_op *op = &g->ops[k->anchor];
    *s = (f8){.g = g, .p = &op->a.sdpa};
    for (int i = 0; i < IR_SDPA_N_IN; i++)
        s->in[i] = i < op->n_in ? op->in[i] : -1;
    for (int i = 0; i < IR_SDPA_N_OUT; i++)
        s->out[i] = i < op->n_out ? op->out[i] : -1;
    if (k->n_ops != 1 || s->in[IR_SDPA_SCORE_MOD] >= 0 || s->in[IR_SDPA_MASK_MOD] >= 0)
        return cg_sdpa_fail(why, len, "FP8 attention with a score modifier, a mask modifier or fused ops has no "
                            "kernel template yet");
    if (s->out[IR_SDPA_O] < 0 || !check_qkv(s, why, len) || !check_options(s, why, len))
        return false;
    if (!t->caps.wgmma) /* after the operand checks: their reasons hold on every target */
        return cg_sdpa_fail(why, len, "FP8 attention's kernel needs Hopper's wgmma (sm_90): the reference engine "
                            "runs it elsewhere");
    s->bn = s->D <= 128 ? 128 : 64; /* head dim 256: O takes 128 registers a thread */
    return true;
}

/* As the template's HD_SMEM_BYTES: 1 KB alignment, Q, two stages of K (swizzled 128-byte rows) and V
 * (rows as copied), Vᵀ. */
static unsigned smem_bytes(const f8 *s)
{
    int64_t dp = s->D <= 128 ? 128 : 256;
    return (unsigned)(1024 + 128 * dp + 2 * (s->bn * dp + s->bn * s->D) + s->D * 128);
}

/* hd_fp8_scales: descale_q·descale_k, scale_s, descale_s·descale_v, scale_o. */
static void scales_hook(const f8 *s, base_sb *sb)
{
    static const char *const lhs[4] = {"qk", "s", "sv", "o"};
    const int pairs[4][2] = {{IR_SDPA_DESCALE_Q, IR_SDPA_DESCALE_K}, {IR_SDPA_SCALE_S, -1},
                             {IR_SDPA_DESCALE_S, IR_SDPA_DESCALE_V}, {IR_SDPA_SCALE_O, -1}};
    base_sb_puts(sb, "HD_DEVICE void hd_fp8_scales(float &qk, float &s, float &sv, float &o, HD_PARAMS)\n{\n");
    for (int n = 0; n < 4; n++) {
        base_sb_printf(sb, "    %s = ", lhs[n]);
        cg_sdpa_scalar_value(s->g, s->in[pairs[n][0]], sb);
        if (pairs[n][1] >= 0) {
            base_sb_puts(sb, " * ");
            cg_sdpa_scalar_value(s->g, s->in[pairs[n][1]], sb);
        }
        base_sb_puts(sb, ";\n");
    }
    base_sb_puts(sb, "}\n");
}

static void amax_hook(const f8 *s, base_sb *defs, base_sb *sb)
{
    static const char *const value[2] = {"s", "o"};
    base_sb_printf(defs, "#define HD_AMAX %d\n", s->amax);
    if (!s->amax)
        return;
    base_sb_puts(sb, "HD_DEVICE void hd_amax_store(float s, float o, HD_PARAMS)\n{\n");
    for (int n = 0; n < 2; n++) {
        int ti = s->out[IR_SDPA_AMAX_S + n];
        if (ti >= 0)
            base_sb_printf(sb, "    hd_st<%s>(p%d, 0, %s);\n", cg_dtype(T(s, ti)->dtype), ti, value[n]);
    }
    base_sb_puts(sb, "    (void)s, (void)o;\n}\n");
}

static void emit_hooks(const f8 *s, base_sb *defs, base_sb *hooks)
{
    base_sb_printf(defs, "#define HD_DT %s\n#define HD_O_DT %s\n#define HD_B %lld\n#define HD_HQ %lld\n"
                   "#define HD_SQ %lld\n#define HD_SKV %lld\n#define HD_D %lld\n#define HD_DV %lld\n#define HD_BN %d\n",
                   cg_dtype(T(s, s->in[IR_SDPA_Q])->dtype), cg_dtype(T(s, s->out[IR_SDPA_O])->dtype), (long long)s->B,
                   (long long)s->Hq, (long long)s->Sq, (long long)s->Skv, (long long)s->D, (long long)s->D, s->bn);
    cg_sdpa_band_defs(s->p, s->Sq, s->Skv, defs);
    base_sb_printf(defs, "#define HD_Q_PTR p%d\n#define HD_K_PTR p%d\n#define HD_V_PTR p%d\n#define HD_O_PTR p%d\n",
                   s->in[IR_SDPA_Q], s->in[IR_SDPA_K], s->in[IR_SDPA_V], s->out[IR_SDPA_O]);
    cg_sdpa_row_hook(s->g, "hd_q_off", s->in[IR_SDPA_Q], 1, hooks);
    cg_sdpa_row_hook(s->g, "hd_o_off", s->out[IR_SDPA_O], 1, hooks);
    cg_sdpa_row_hook(s->g, "hd_k_off", s->in[IR_SDPA_K], s->Hq / s->Hk, hooks);
    cg_sdpa_row_hook(s->g, "hd_v_off", s->in[IR_SDPA_V], s->Hq / s->Hv, hooks);
    cg_sdpa_scale_hook(s->g, s->in[IR_SDPA_SCALE], s->p->attn_scale, hooks);
    cg_sdpa_seq_hook(s->g, "hd_seq_q", s->in[IR_SDPA_SEQ_Q], s->Sq, hooks);
    cg_sdpa_seq_hook(s->g, "hd_seq_kv", s->in[IR_SDPA_SEQ_KV], s->Skv, hooks);
    scales_hook(s, hooks);
    cg_sdpa_stats_hook(s->g, &s->out[IR_SDPA_STATS], hooks);
    amax_hook(s, defs, hooks);
}

hipdnnStatus_t cg_emit_sdpa_fp8(const ir_graph *g, const ir_kernel *k, const cg_target *t, cg_kernel *out,
                                char *why, size_t why_len)
{
    f8 s;
    if (!plan(&s, g, k, t, why, why_len))
        return HIPDNN_STATUS_NOT_SUPPORTED;
    base_sb defs = {0}, hooks = {0};
    hipdnnStatus_t st = cg_collect_params(g, k, out, &defs);
    if (st == HIPDNN_STATUS_SUCCESS && out->n_args + s.amax > CG_MAX_ARGS)
        st = base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "codegen: a kernel with more than %d parameters", CG_MAX_ARGS);
    if (st == HIPDNN_STATUS_SUCCESS) {
        if (s.amax) /* the amax values' accumulator and the blocks' count (hd_ctr) */
            out->args[out->n_args++] = (cg_arg){.kind = CG_ARG_COUNTER, .tensor = -1};
        emit_hooks(&s, &defs, &hooks);
        out->entry = "hd_sdpa_fp8_kernel";
        out->grid[0] = (unsigned)((s.Sq + 127) / 128), out->grid[1] = (unsigned)s.Hq, out->grid[2] = (unsigned)s.B;
        out->block[0] = 256, out->block[1] = out->block[2] = 1;
        out->smem = smem_bytes(&s);
        out->align = 16;
        snprintf(out->arch, sizeof out->arch, "%s", t->caps.wgmma_arch);
        st = cg_assemble(t, "sdpa_fwd_fp8.hip", &defs, &hooks, out);
    }
    base_sb_free(&defs);
    base_sb_free(&hooks);
    return st;
}
