/* test_fe_op_shapes_sdpa.c — finalize-time rules of the SDPA forward (GQA, masks, dropout,
 * FP8 factors, paged K/V) and backward descriptors (graph/fe_check_sdpa.c); part of
 * test_fe_op_shapes (see test_fe_op_shapes.c for the method).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"

#include "os_util.h"

/* ==== SDPA forward ===================================================================================== */

/* B 2, Hq 4, Sq 8, D 16; Hk = Hv = 2 (GQA), Skv 10, Dv 12 */
desc mk_sdpa_fwd(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT);
    os_set_t(op, SF(QDESC), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 16));
    os_set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 2, 2, 10, 16));
    os_set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 2, 2, 10, 12));
    os_set_t(op, SF(ODESC), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 12));
    os_set_f32(op, SFA(ATTN_SCALE_VALUE), 0.25f);
    return op;
}
/* training with every optional input: stats, bias, padding, dropout, alibi + causal, window */
desc mk_sdpa_fwd_full(void)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(STATSDESC), F32(2, 4, 8, 1));
    os_set_bool(op, SFA(GENERATE_STATS), true);
    os_set_t(op, SFX(MAX), F32(2, 4, 8, 1));
    os_set_t(op, SFX(SUM_EXP), F32(2, 4, 8, 1));
    os_set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 1, 4, 8, 10));
    os_set_t(op, SF(SEQ_LEN_QDESC), I32(2, 1, 1, 1));
    os_set_t(op, SF(SEQ_LEN_KVDESC), TEN(HIPDNN_DATA_INT64, 2, 1, 1, 1));
    os_set_bool(op, SFA(PADDING_MASK), true);
    os_set_f32(op, SFA(DROPOUT_PROBABILITY), 0.1f);
    os_set_t(op, SFX(SEED), os_scalar_i64(1234));
    os_set_t(op, SFX(OFFSET), os_scalar_i64(0));
    os_set_t(op, SFX(RNG_DUMP), F32(2, 4, 8, 10));
    os_set_bool(op, SFA(ALIBI_MASK), true);
    os_set_bool(op, SFA(CAUSAL_MASK), true);
    os_set_i64(op, SFA(LEFT_BOUND), 4);
    os_set_t(op, SFX(SINK_TOKEN), F32(1, 4, 1, 1));
    return op;
}
/* B 1, Hq 2, Hk 1 (MQA), Sq = Skv = 4, D 32 of type dt; a scale tensor instead of the value */
static desc mk_sdpa_fwd_small(hipdnnDataType_t dt)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT);
    os_set_t(op, SF(QDESC), TEN(dt, 1, 2, 4, 32));
    os_set_t(op, SF(KDESC), TEN(dt, 1, 1, 4, 32));
    os_set_t(op, SF(VDESC), TEN(dt, 1, 1, 4, 32));
    os_set_t(op, SF(ODESC), TEN(dt, 1, 2, 4, 32));
    os_set_t(op, SF(SCALEDESC), os_scalar_f32(0.125f));
    return op;
}
/* FP8 attention (all six factors, both maxima), causal + ALiBi */
desc mk_sdpa_fwd_fp8(void)
{
    desc op = mk_sdpa_fwd_small(HIPDNN_DATA_FP8_E4M3);
    static const hipdnnBackendAttributeName_t fp8[] = {SFX(DESCALE_Q), SFX(DESCALE_K), SFX(DESCALE_V),
                                                       SFX(DESCALE_S), SFX(SCALE_S), SFX(SCALE_O),
                                                       SFX(AMAX_S), SFX(AMAX_O)};
    for (int i = 0; i < 8; i++)
        os_set_t(op, fp8[i], F32(1, 1, 1, 1));
    os_set_i64(op, SFA(RIGHT_BOUND), 0);
    os_set_bool(op, SFA(ALIBI_MASK), true);
    return op;
}
/* a custom dropout mask and scale */
desc mk_sdpa_fwd_custom_dropout(void)
{
    desc op = mk_sdpa_fwd_small(HIPDNN_DATA_HALF);
    os_set_f32(op, SFA(DROPOUT_PROBABILITY), 0.2f);
    os_set_t(op, SFX(DROPOUT_MASK), TEN(HIPDNN_DATA_HALF, 1, 1, 4, 4));
    os_set_t(op, SFX(DROPOUT_SCALE), os_scalar_f32(1.25f));
    return op;
}
/* paged K/V: containers [nblk 6, H 2, bs 4, D], page tables [B,1,P 3,1], Skv <= 12 */
desc mk_sdpa_fwd_paged_any_skv(void)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 16));
    os_set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 12));
    os_set_t(op, SF(PAGE_TABLE_KDESC), I32(2, 1, 3, 1));
    os_set_t(op, SF(PAGE_TABLE_VDESC), I32(2, 1, 3, 1));
    os_set_t(op, SF(SEQ_LEN_QDESC), I32(2, 1, 1, 1));
    os_set_t(op, SF(SEQ_LEN_KVDESC), I32(2, 1, 1, 1));
    return op;
}
desc mk_sdpa_fwd_paged(void)
{
    desc op = mk_sdpa_fwd_paged_any_skv();
    os_set_i32(op, SFA(MAX_SEQ_LEN_KV), 10);
    os_set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 10));
    return op;
}

T(sdpa_fwd, valid)
{
    os_expect_ok(mk_sdpa_fwd());
    os_expect_ok(mk_sdpa_fwd_full());
    os_expect_ok(mk_sdpa_fwd_fp8());
    os_expect_ok(mk_sdpa_fwd_custom_dropout());
    os_expect_ok(mk_sdpa_fwd_paged());
}
T(sdpa_fwd, valid_variants)
{
    desc op = mk_sdpa_fwd();
    os_set_bool(op, SFA(ALIBI_MASK), true);
    os_set_bool(op, SFA(CAUSAL_MASK_BOTTOM_RIGHT), true);
    os_expect_ok(op);
    op = mk_sdpa_fwd_paged_any_skv(); /* without MAX_SEQ_LEN_KV Skv is unknown: any mask width */
    os_set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 7));
    os_expect_ok(op);
}
T(sdpa_fwd, rank)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(QDESC), TEN(HIPDNN_DATA_HALF, 4, 8, 16));
    os_expect_bad(op, "Q [4,8,16] has rank 3, must have rank 4");
    op = mk_sdpa_fwd();
    os_set_t(op, SF(ODESC), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 12, 1));
    os_expect_bad(op, "O [2,4,8,12,1] has rank 5");
}
T(sdpa_fwd, head_dim)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 2, 2, 10, 8));
    os_expect_bad(op, "Q [2,4,8,16] and K [2,2,10,8] disagree on the head dim D (16 vs 8)");
}
T(sdpa_fwd, gqa_heads)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 2, 3, 10, 16));
    os_expect_bad(op, "Q's heads (4) must be a multiple of K's (3) and V's (2)");
    op = mk_sdpa_fwd();
    os_set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 2, 8, 10, 12));
    os_expect_bad(op, "Q's heads (4) must be a multiple of K's (2) and V's (8)");
}
T(sdpa_fwd, kv_batch_and_seq)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 3, 2, 10, 16));
    os_expect_bad(op, "K [3,2,10,16] must be [2,*,*,*]");
    op = mk_sdpa_fwd();
    os_set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 2, 2, 9, 12));
    os_expect_bad(op, "V [2,2,9,12] must be [2,*,10,*] (V [B,Hv,Skv,Dv] with Q's B and K's Skv)");
}
T(sdpa_fwd, o_dims)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(ODESC), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 16));
    os_expect_bad(op, "O [2,4,8,16] must be [2,4,8,12] (O [B,Hq,Sq,Dv])");
}
T(sdpa_fwd, stats_shapes)
{
    desc op = mk_sdpa_fwd_full();
    os_set_t(op, SF(STATSDESC), F32(2, 4, 8, 2));
    os_expect_bad(op, "STATS [2,4,8,2] must be [2,4,8,1] ([B,Hq,Sq,1])");
    op = mk_sdpa_fwd_full();
    os_set_t(op, SFX(MAX), F32(2, 2, 8, 1));
    os_expect_bad(op, "MAX [2,2,8,1] must be [2,4,8,1]");
    op = mk_sdpa_fwd_full();
    os_set_t(op, SFX(SUM_EXP), F32(2, 4, 1, 1));
    os_expect_bad(op, "SUM_EXP [2,4,1,1] must be [2,4,8,1]");
}
T(sdpa_fwd, generate_stats_needs_stats)
{
    desc op = mk_sdpa_fwd();
    os_set_bool(op, SFA(GENERATE_STATS), true);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT is true but STATS is not set");
}
T(sdpa_fwd, attn_mask_broadcast)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 9));
    os_expect_bad(op, "ATTN_MASK [2,4,8,9] does not broadcast to scores [B,Hq,Sq,Skv] [2,4,8,10]: dim 3 is 9");
    op = mk_sdpa_fwd();
    os_set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 8, 10));
    os_expect_bad(op, "ATTN_MASK [8,10] has rank 2");
}
T(sdpa_fwd, padding_needs_seq_lens)
{
    desc op = mk_sdpa_fwd();
    os_set_bool(op, SFA(PADDING_MASK), true);
    os_set_t(op, SF(SEQ_LEN_QDESC), I32(2, 1, 1, 1));
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT needs both SEQ_LEN_Q and SEQ_LEN_KV");
}
T(sdpa_fwd, seq_len_shape_and_type)
{
    desc op = mk_sdpa_fwd_full();
    os_set_t(op, SF(SEQ_LEN_QDESC), I32(2, 1, 1, 2));
    os_expect_bad(op, "SEQ_LEN_Q [2,1,1,2] must be [2,1,1,1]");
    op = mk_sdpa_fwd_full();
    os_set_t(op, SF(SEQ_LEN_KVDESC), I32(3, 1, 1, 1));
    os_expect_bad(op, "SEQ_LEN_KV [3,1,1,1] must be [2,1,1,1]");
    op = mk_sdpa_fwd_full();
    os_set_t(op, SF(SEQ_LEN_KVDESC), F32(2, 1, 1, 1));
    os_expect_bad(op, "SEQ_LEN_KV has data type FLOAT, must be INT32 or INT64");
}
T(sdpa_fwd, dropout_probability_range)
{
    desc op = mk_sdpa_fwd_full();
    os_set_f32(op, SFA(DROPOUT_PROBABILITY), 1.0f);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_DROPOUT_PROBABILITY_EXT 1 is outside [0, 1)");
    op = mk_sdpa_fwd_full();
    os_set_f32(op, SFA(DROPOUT_PROBABILITY), -0.5f);
    os_expect_bad(op, "DROPOUT_PROBABILITY_EXT -0.5 is outside [0, 1)");
}
T(sdpa_fwd, dropout_needs_rng)
{
    desc op = mk_sdpa_fwd();
    os_set_f32(op, SFA(DROPOUT_PROBABILITY), 0.1f);
    os_expect_bad(op, "DROPOUT_PROBABILITY_EXT 0.1 needs SEED and OFFSET (or a DROPOUT_MASK)");
    op = mk_sdpa_fwd();
    os_set_f32(op, SFA(DROPOUT_PROBABILITY), 0.1f);
    os_set_t(op, SFX(SEED), os_scalar_i64(7));
    os_expect_bad(op, "needs SEED and OFFSET");
    op = mk_sdpa_fwd(); /* p == 0: no dropout, nothing needed */
    os_set_f32(op, SFA(DROPOUT_PROBABILITY), 0.0f);
    os_expect_ok(op);
}
T(sdpa_fwd, seed_offset_dropout_tensors)
{
    desc op = mk_sdpa_fwd_full();
    os_set_t(op, SFX(SEED), TEN(HIPDNN_DATA_INT64, 2, 1, 1, 1));
    os_expect_bad(op, "SEED [2,1,1,1] must be a scalar");
    op = mk_sdpa_fwd_full();
    os_set_t(op, SFX(OFFSET), os_scalar_f32(0.0f));
    os_expect_bad(op, "OFFSET has data type FLOAT, must be INT32 or INT64");
    op = mk_sdpa_fwd_custom_dropout();
    os_set_t(op, SFX(DROPOUT_MASK), TEN(HIPDNN_DATA_HALF, 1, 1, 4, 5));
    os_expect_bad(op, "DROPOUT_MASK [1,1,4,5] does not broadcast");
    op = mk_sdpa_fwd_custom_dropout();
    os_set_t(op, SFX(DROPOUT_SCALE), F32(1, 1, 1, 2));
    os_expect_bad(op, "DROPOUT_SCALE [1,1,1,2] must be a scalar");
}
T(sdpa_fwd, scale_value_and_tensor)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(SCALEDESC), os_scalar_f32(0.25f));
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT and the scale tensor "
                   "HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC are both set");
    op = mk_sdpa_fwd_fp8();
    os_set_t(op, SF(SCALEDESC), F32(1, 2, 1, 1));
    os_expect_bad(op, "SCALE [1,2,1,1] must be a scalar");
}
T(sdpa_fwd, bounds)
{
    desc op = mk_sdpa_fwd();
    os_set_i64(op, SFA(LEFT_BOUND), 0);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT 0 must be >= 1");
    op = mk_sdpa_fwd();
    os_set_i64(op, SFA(RIGHT_BOUND), -1);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT -1 must be >= 0");
}
T(sdpa_fwd, alibi_needs_causal)
{
    desc op = mk_sdpa_fwd();
    os_set_bool(op, SFA(ALIBI_MASK), true);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT needs a causal mask");
    op = mk_sdpa_fwd();
    os_set_bool(op, SFA(ALIBI_MASK), true);
    os_set_i64(op, SFA(RIGHT_BOUND), 2);
    os_expect_bad(op, "ALIBI_MASK_EXT needs a causal mask");
}
T(sdpa_fwd, fp8_scalars)
{
    static const hipdnnBackendAttributeName_t ids[] = {SFX(DESCALE_Q), SFX(DESCALE_K), SFX(DESCALE_V),
                                                       SFX(DESCALE_S), SFX(SCALE_S), SFX(SCALE_O),
                                                       SFX(AMAX_S), SFX(AMAX_O)};
    static const char *const names[] = {"DESCALE_Q", "DESCALE_K", "DESCALE_V", "DESCALE_S",
                                        "SCALE_S", "SCALE_O", "AMAX_S", "AMAX_O"};
    for (int i = 0; i < 8; i++) {
        desc op = mk_sdpa_fwd_fp8();
        os_set_t(op, ids[i], F32(1, 1, 1, 2));
        char needle[64];
        snprintf(needle, sizeof needle, "%s [1,1,1,2] must be a scalar", names[i]);
        os_expect_bad(op, needle);
    }
}
/* The six FP8 inputs come together and the maxima only with them; FP8 attention composes with a
 * sink and dropout (the reference engine's definition; no GPU template yet). */
T(sdpa_fwd, fp8_all_or_none)
{
    desc op = mk_sdpa_fwd_small(HIPDNN_DATA_FP8_E4M3);
    static const hipdnnBackendAttributeName_t five[] = {SFX(DESCALE_Q), SFX(DESCALE_K), SFX(DESCALE_V),
                                                        SFX(DESCALE_S), SFX(SCALE_O)};
    for (int i = 0; i < 5; i++)
        os_set_t(op, five[i], F32(1, 1, 1, 1));
    os_expect_bad(op, "FP8 attention needs all of DESCALE_Q, DESCALE_K, DESCALE_V, DESCALE_S, SCALE_S and SCALE_O: "
                   "SCALE_S is not set");
    op = mk_sdpa_fwd();
    os_set_t(op, SFX(AMAX_O), F32(1, 1, 1, 1));
    os_expect_bad(op, "AMAX_O is an output of FP8 attention");
    op = mk_sdpa_fwd_fp8();
    os_set_f32(op, SFA(DROPOUT_PROBABILITY), 0.1f);
    os_set_t(op, SFX(SEED), os_scalar_i64(1));
    os_set_t(op, SFX(OFFSET), os_scalar_i64(0));
    os_set_t(op, SFX(SINK_TOKEN), F32(1, 2, 1, 1));
    os_expect_ok(op);
}
T(sdpa_fwd, sink_and_rng_dump)
{
    desc op = mk_sdpa_fwd_full();
    os_set_t(op, SFX(SINK_TOKEN), F32(1, 2, 1, 1));
    os_expect_bad(op, "SINK_TOKEN [1,2,1,1] must be [1,4,1,1]");
    op = mk_sdpa_fwd_full();
    os_set_t(op, SFX(RNG_DUMP), F32(2, 4, 8, 1));
    os_expect_bad(op, "RNG_DUMP [2,4,8,1] must be [2,4,8,10]");
}
T(sdpa_fwd, paged_tables_together)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(PAGE_TABLE_KDESC), I32(2, 1, 3, 1));
    os_expect_bad(op, "PAGE_TABLE_K and PAGE_TABLE_V must be set together (PAGE_TABLE_K is set, PAGE_TABLE_V is not)");
}
T(sdpa_fwd, paged_needs_seq_lens)
{
    desc op = mk_sdpa_fwd();
    os_set_t(op, SF(KDESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 16));
    os_set_t(op, SF(VDESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 12));
    os_set_t(op, SF(PAGE_TABLE_KDESC), I32(2, 1, 3, 1));
    os_set_t(op, SF(PAGE_TABLE_VDESC), I32(2, 1, 3, 1));
    os_expect_bad(op, "paged K/V (PAGE_TABLE_K, PAGE_TABLE_V) need SEQ_LEN_Q and SEQ_LEN_KV");
}
T(sdpa_fwd, page_table_shape_and_type)
{
    desc op = mk_sdpa_fwd_paged();
    os_set_t(op, SF(PAGE_TABLE_KDESC), I32(2, 1, 3, 2));
    os_expect_bad(op, "PAGE_TABLE_K [2,1,3,2] must be [2,1,*,1] ([B,1,P,1])");
    op = mk_sdpa_fwd_paged();
    os_set_t(op, SF(PAGE_TABLE_VDESC), F32(2, 1, 3, 1));
    os_expect_bad(op, "PAGE_TABLE_V has data type FLOAT, must be INT32 or INT64");
}
T(sdpa_fwd, paged_max_seq_len)
{
    desc op = mk_sdpa_fwd_paged();
    os_set_i32(op, SFA(MAX_SEQ_LEN_KV), 13);
    os_set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 13));
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT 13 is outside [1, 12]");
    op = mk_sdpa_fwd_paged(); /* Skv = MAX_SEQ_LEN_KV = 10: the mask must match it */
    os_set_t(op, SFX(ATTN_MASK), TEN(HIPDNN_DATA_HALF, 2, 1, 8, 12));
    os_expect_bad(op, "ATTN_MASK [2,1,8,12] does not broadcast to scores [B,Hq,Sq,Skv] [2,4,8,10]");
}

/* ==== SDPA backward ===================================================================================== */

#define SB(x) HIPDNN_ATTR_OPERATION_SDPA_BWD_##x##_EXT
#define SBA(x) HIPDNN_ATTR_SDPA_BWD_##x##_EXT
desc mk_sdpa_bwd(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT);
    os_set_t(op, SB(Q), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 16));
    os_set_t(op, SB(K), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 16));
    os_set_t(op, SB(V), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 12));
    os_set_t(op, SB(O), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 12));
    os_set_t(op, SB(DO), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 12));
    os_set_t(op, SB(STATS), F32(2, 4, 8, 1));
    os_set_t(op, SB(DQ), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 16));
    os_set_t(op, SB(DK), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 16));
    os_set_t(op, SB(DV), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 12));
    return op;
}
desc mk_sdpa_bwd_full(void)
{
    desc op = mk_sdpa_bwd();
    os_set_t(op, SB(ATTN_MASK), F32(1, 4, 8, 10));
    os_set_t(op, SB(DBIAS), F32(1, 4, 8, 10));
    os_set_t(op, SB(SEQ_LEN_Q), I32(2, 1, 1, 1));
    os_set_t(op, SB(SEQ_LEN_KV), I32(2, 1, 1, 1));
    os_set_bool(op, SBA(PADDING_MASK), true);
    os_set_f32(op, SBA(DROPOUT_PROBABILITY), 0.1f);
    os_set_t(op, SB(SEED), os_scalar_i64(1));
    os_set_t(op, SB(OFFSET), os_scalar_i64(2));
    os_set_t(op, SB(SCALE), os_scalar_f32(0.25f));
    os_set_t(op, SB(DROPOUT_SCALE), os_scalar_f32(1.1f));
    os_set_t(op, SB(DROPOUT_SCALE_INV), os_scalar_f32(0.9f));
    os_set_bool(op, SBA(CAUSAL_MASK), true);
    os_set_bool(op, SBA(ALIBI_MASK), true);
    os_set_i64(op, SBA(LEFT_BOUND), 3);
    return op;
}
T(sdpa_bwd, valid)
{
    os_expect_ok(mk_sdpa_bwd());
    os_expect_ok(mk_sdpa_bwd_full());
}
T(sdpa_bwd, qkvo)
{
    desc op = mk_sdpa_bwd();
    os_set_t(op, SB(K), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 8));
    os_expect_bad(op, "disagree on the head dim D (16 vs 8)");
    op = mk_sdpa_bwd();
    os_set_t(op, SB(V), TEN(HIPDNN_DATA_BFLOAT16, 2, 3, 10, 12));
    os_expect_bad(op, "Q's heads (4) must be a multiple of K's (2) and V's (3)");
    op = mk_sdpa_bwd();
    os_set_t(op, SB(O), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 9, 12));
    os_expect_bad(op, "O [2,4,9,12] must be [2,4,8,12]");
    op = mk_sdpa_bwd();
    os_set_t(op, SB(V), TEN(HIPDNN_DATA_BFLOAT16, 1, 2, 10, 12));
    os_expect_bad(op, "V [1,2,10,12] must be [2,*,10,*]");
}
T(sdpa_bwd, gradients)
{
    desc op = mk_sdpa_bwd();
    os_set_t(op, SB(DO), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 16));
    os_expect_bad(op, "DO [2,4,8,16] must have the dims of O [2,4,8,12]");
    op = mk_sdpa_bwd();
    os_set_t(op, SB(DQ), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 8, 12));
    os_expect_bad(op, "DQ [2,4,8,12] must have the dims of Q [2,4,8,16]");
    op = mk_sdpa_bwd();
    os_set_t(op, SB(DK), TEN(HIPDNN_DATA_BFLOAT16, 2, 4, 10, 16));
    os_expect_bad(op, "DK [2,4,10,16] must have the dims of K [2,2,10,16]");
    op = mk_sdpa_bwd();
    os_set_t(op, SB(DV), TEN(HIPDNN_DATA_BFLOAT16, 2, 2, 10, 16));
    os_expect_bad(op, "DV [2,2,10,16] must have the dims of V [2,2,10,12]");
}
T(sdpa_bwd, stats)
{
    desc op = mk_sdpa_bwd();
    os_set_t(op, SB(STATS), F32(2, 4, 8));
    os_expect_bad(op, "STATS [2,4,8] must be [2,4,8,1] ([B,Hq,Sq,1])");
}
T(sdpa_bwd, dbias)
{
    desc op = mk_sdpa_bwd();
    os_set_t(op, SB(DBIAS), F32(1, 4, 8, 10));
    os_expect_bad(op, "DBIAS [1,4,8,10] is set but ATTN_MASK (the bias it is the gradient of) is not");
    op = mk_sdpa_bwd_full();
    os_set_t(op, SB(DBIAS), F32(2, 4, 8, 10));
    os_expect_bad(op, "DBIAS [2,4,8,10] must have the dims of ATTN_MASK [1,4,8,10]");
}
T(sdpa_bwd, mask_and_seq_lens)
{
    desc op = mk_sdpa_bwd_full();
    os_set_t(op, SB(ATTN_MASK), F32(1, 4, 1, 11));
    os_set_t(op, SB(DBIAS), F32(1, 4, 1, 11));
    os_expect_bad(op, "ATTN_MASK [1,4,1,11] does not broadcast to scores [B,Hq,Sq,Skv] [2,4,8,10]: dim 3 is 11");
    op = mk_sdpa_bwd();
    os_set_bool(op, SBA(PADDING_MASK), true);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT needs both SEQ_LEN_Q and SEQ_LEN_KV");
    op = mk_sdpa_bwd_full();
    os_set_t(op, SB(SEQ_LEN_Q), TEN(HIPDNN_DATA_HALF, 2, 1, 1, 1));
    os_expect_bad(op, "SEQ_LEN_Q has data type HALF");
    op = mk_sdpa_bwd_full();
    os_set_t(op, SB(SEQ_LEN_KV), I32(1, 1, 1, 1));
    os_expect_bad(op, "SEQ_LEN_KV [1,1,1,1] must be [2,1,1,1]");
}
T(sdpa_bwd, dropout)
{
    desc op = mk_sdpa_bwd_full();
    os_set_f32(op, SBA(DROPOUT_PROBABILITY), 1.5f);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_DROPOUT_PROBABILITY_EXT 1.5 is outside [0, 1)");
    op = mk_sdpa_bwd();
    os_set_f32(op, SBA(DROPOUT_PROBABILITY), 0.3f);
    os_set_t(op, SB(OFFSET), os_scalar_i64(2));
    os_expect_bad(op, "DROPOUT_PROBABILITY_EXT 0.3 needs SEED and OFFSET");
    op = mk_sdpa_bwd();
    os_set_f32(op, SBA(DROPOUT_PROBABILITY), 0.3f);
    os_set_t(op, SB(DROPOUT_MASK), TEN(HIPDNN_DATA_HALF, 2, 4, 8, 10));
    os_expect_ok(op);
    op = mk_sdpa_bwd_full();
    os_set_t(op, SB(DROPOUT_SCALE_INV), F32(2, 1, 1, 1));
    os_expect_bad(op, "DROPOUT_SCALE_INV [2,1,1,1] must be a scalar");
    op = mk_sdpa_bwd_full();
    os_set_t(op, SB(SEED), I32(1, 1, 2, 1));
    os_expect_bad(op, "SEED [1,1,2,1] must be a scalar");
}
T(sdpa_bwd, scale_bounds_alibi)
{
    desc op = mk_sdpa_bwd_full();
    os_set_f32(op, SBA(ATTN_SCALE_VALUE), 0.25f);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT and the scale tensor "
                   "HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT are both set");
    op = mk_sdpa_bwd();
    os_set_i64(op, SBA(LEFT_BOUND), -3);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT -3 must be >= 1");
    op = mk_sdpa_bwd();
    os_set_i64(op, SBA(RIGHT_BOUND), -1);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_RIGHT_BOUND_EXT -1 must be >= 0");
    op = mk_sdpa_bwd();
    os_set_bool(op, SBA(ALIBI_MASK), true);
    os_expect_bad(op, "HIPDNN_ATTR_SDPA_BWD_ALIBI_MASK_EXT needs a causal mask");
    op = mk_sdpa_bwd();
    os_set_t(op, SB(SCALE), F32(1, 1, 1, 4));
    os_expect_bad(op, "SCALE [1,1,1,4] must be a scalar");
}

