/* recipes_attn.c — the recipes of the SDPA forward and backward, paged cache load, block-scale
 * quantize / dequantize and custom op descriptors. Shapes: op-semantics.md (§4 SDPA, §5 block
 * scaling); letters in comments are B batch, H heads, S sequence, D head dim.
 */
#include "recipes.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tu.h"

#include "recipes_util.h"

typedef struct sdpa_shape {
    int64_t b, h, sq, skv, d;
    hipdnnDataType_t dt;
} sdpa_shape;

static sdpa_shape sdpa_problem(void)
{
    return (sdpa_shape){tu_range(1, 2), tu_range(1, 4), tu_range(1, 64), tu_range(1, 64),
                        8 * tu_range(1, 8),
                        tu_rand() & 1 ? HIPDNN_DATA_HALF : HIPDNN_DATA_BFLOAT16};
}

void recipe_sdpa_fwd(rc_ctx *c)
{
    sdpa_shape s = sdpa_problem();
    int64_t b = s.b, h = s.h, sq = s.sq, skv = s.skv, d = s.d;
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_KDESC, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_VDESC, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_ODESC, s.dt, b, h, sq, d);
    if (c->full) {
        int64_t seed = (int64_t)tu_rand(), offset = tu_range(0, 1 << 20);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_ATTN_MASK_EXT, s.dt, 1, h, sq, skv);
        if (c->variant == 0) /* the scale as a tensor, or (variant 1) as a value */
            rcu_put(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC, rc_scalar_f32(c, 4, tu_float(0.05f, 1)));
        else
            rcu_s_f32(c, HIPDNN_ATTR_SDPA_FWD_ATTN_SCALE_VALUE_EXT, tu_float(0.05f, 1));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, HIPDNN_DATA_INT32, b, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, HIPDNN_DATA_INT32, b, 1, 1, 1);
        rcu_put(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SEED_EXT,
            rcu_scalar(c, 4, HIPDNN_DATA_INT64, &seed, sizeof seed));
        rcu_put(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_OFFSET_EXT,
            rcu_scalar(c, 4, HIPDNN_DATA_INT64, &offset, sizeof offset));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_MASK_EXT, s.dt, b, h, sq, skv);
        rcu_put(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DROPOUT_SCALE_EXT, rc_scalar_f32(c, 4, 1.25f));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC, HIPDNN_DATA_INT32, b, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC, HIPDNN_DATA_INT32, b, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC, HIPDNN_DATA_UINT8, b, h,
               (sq + 127) / 128, ((skv + 127) / 128 + 7) / 8);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SINK_TOKEN_EXT, F, 1, h, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_Q_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_K_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_V_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_DESCALE_S_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_S_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SCALE_O_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC, F, b, h, sq, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_MAX_EXT, F, b, h, sq, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_SUM_EXP_EXT, F, b, h, sq, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_RNG_DUMP_EXT, F, b, h, sq, skv);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_S_EXT, F, 1, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_FWD_AMAX_O_EXT, F, 1, 1, 1, 1);
        rcu_s_bool(c, HIPDNN_ATTR_SDPA_FWD_GENERATE_STATS_EXT, true);
        rcu_s_bool(c, HIPDNN_ATTR_SDPA_FWD_ALIBI_MASK_EXT, tu_rand() & 1);
        rcu_s_bool(c, HIPDNN_ATTR_SDPA_FWD_PADDING_MASK_EXT, true);
        rcu_s_bool(c, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_EXT, false);
        rcu_s_bool(c, HIPDNN_ATTR_SDPA_FWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT, false);
        rcu_s_f32(c, HIPDNN_ATTR_SDPA_FWD_DROPOUT_PROBABILITY_EXT, tu_float(0.01f, 0.5f));
        rcu_s_i64(c, HIPDNN_ATTR_SDPA_FWD_LEFT_BOUND_EXT, tu_range(1, skv));
        rcu_s_i64(c, HIPDNN_ATTR_SDPA_FWD_RIGHT_BOUND_EXT, 0);
        rcu_s_i32(c, HIPDNN_ATTR_SDPA_FWD_MAX_SEQ_LEN_KV_EXT, (int32_t)skv);
        rcu_s_enum(c, HIPDNN_ATTR_SDPA_FWD_DIAGONAL_ALIGNMENT_EXT, (int)tu_range(0, 1));
        rcu_s_enum(c, HIPDNN_ATTR_SDPA_FWD_MMA_CORE_MODE_EXT, s.dt);
        rcu_s_enum(c, HIPDNN_ATTR_SDPA_FWD_IMPLEMENTATION_EXT, (int)tu_range(0, 2));
        rcu_s_enum(c, HIPDNN_ATTR_SDPA_FWD_COMP_TYPE_EXT, F);
    }
    rcu_op_common(c);
}

void recipe_sdpa_bwd(rc_ctx *c)
{
    sdpa_shape s = sdpa_problem();
    int64_t b = s.b, h = s.h, sq = s.sq, skv = s.skv, d = s.d;
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_Q_EXT, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_K_EXT, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_V_EXT, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_O_EXT, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DO_EXT, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_STATS_EXT, F, b, h, sq, 1);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DQ_EXT, s.dt, b, h, sq, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DK_EXT, s.dt, b, h, skv, d);
    TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DV_EXT, s.dt, b, h, skv, d);
    if (c->full) {
        int64_t seed = (int64_t)tu_rand(), offset = tu_range(0, 1 << 20);
        if (c->variant == 0)
            rcu_put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_SCALE_EXT, rc_scalar_f32(c, 4, tu_float(0.05f, 1)));
        else
            rcu_s_f32(c, HIPDNN_ATTR_SDPA_BWD_ATTN_SCALE_VALUE_EXT, tu_float(0.05f, 1));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_ATTN_MASK_EXT, s.dt, 1, h, sq, skv);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_Q_EXT, HIPDNN_DATA_INT32, b, 1, 1, 1);
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KV_EXT, HIPDNN_DATA_INT32, b, 1, 1, 1);
        rcu_put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_SEED_EXT,
            rcu_scalar(c, 4, HIPDNN_DATA_INT64, &seed, sizeof seed));
        rcu_put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_OFFSET_EXT,
            rcu_scalar(c, 4, HIPDNN_DATA_INT64, &offset, sizeof offset));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_MASK_EXT, s.dt, b, h, sq, skv);
        rcu_put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_EXT, rc_scalar_f32(c, 4, 1.25f));
        rcu_put(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DROPOUT_SCALE_INV_EXT, rc_scalar_f32(c, 4, 0.8f));
        TENSOR(c, HIPDNN_ATTR_OPERATION_SDPA_BWD_DBIAS_EXT, s.dt, 1, h, sq, skv);
        rcu_s_bool(c, HIPDNN_ATTR_SDPA_BWD_ALIBI_MASK_EXT, tu_rand() & 1);
        rcu_s_bool(c, HIPDNN_ATTR_SDPA_BWD_PADDING_MASK_EXT, true);
        rcu_s_bool(c, HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_EXT, false);
        rcu_s_bool(c, HIPDNN_ATTR_SDPA_BWD_CAUSAL_MASK_BOTTOM_RIGHT_EXT, false);
        rcu_s_f32(c, HIPDNN_ATTR_SDPA_BWD_DROPOUT_PROBABILITY_EXT, tu_float(0.01f, 0.5f));
        rcu_s_i64(c, HIPDNN_ATTR_SDPA_BWD_LEFT_BOUND_EXT, tu_range(1, skv));
        rcu_s_i64(c, HIPDNN_ATTR_SDPA_BWD_RIGHT_BOUND_EXT, 0);
        rcu_s_enum(c, HIPDNN_ATTR_SDPA_BWD_DIAGONAL_ALIGNMENT_EXT, (int)tu_range(0, 1));
        rcu_s_enum(c, HIPDNN_ATTR_SDPA_BWD_COMP_TYPE_EXT, F);
    }
    rcu_op_common(c);
}

/* Paged cache load: container [B*blocks, H, bs, D] -> Y [B,H,S,D] (virtual), seq lens
 * [B,1,1,1] and page table [B,1,blocks,1] INT32 (§4.8). */
void recipe_paged_cache_load(rc_ctx *c)
{
    int64_t b = tu_range(1, 3), h = tu_range(1, 4), bs = (int64_t)1 << tu_range(0, 4);
    int64_t s = tu_range(1, 64), d = 8 * tu_range(1, 8), blocks = (s + bs - 1) / bs;
    hipdnnDataType_t dt = tu_rand() & 1 ? HIPDNN_DATA_HALF : HIPDNN_DATA_BFLOAT16;
    TENSOR(c, HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC_EXT, dt, b * blocks, h, bs, d);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC_EXT, dt, 4, (int64_t[]){b, h, s, d},
           true);
    TENSOR(c, HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC_EXT, HIPDNN_DATA_INT32, b, 1, 1, 1);
    TENSOR(c, HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC_EXT, HIPDNN_DATA_INT32, b, 1,
           blocks, 1);
    if (c->full)
        rcu_s_enum(c, HIPDNN_ATTR_PAGED_CACHE_LOAD_COMP_TYPE_EXT, F);
    rcu_op_common(c);
}

/* Block scaling along the last dim: X [M, K], scales [M, K/32] FP8_E8M0 (§5.2-5.3). */
void recipe_bs_quantize(rc_ctx *c)
{
    int64_t m = tu_range(1, 64), k = 32 * tu_range(1, 8);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC, F, m, k);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC, HIPDNN_DATA_FP8_E4M3, m, k);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC, HIPDNN_DATA_FP8_E8M0, m, k / 32);
    rcu_s_i32(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE, 32);
    if (c->full) {
        rcu_s_i64(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT, 1);
        rcu_s_bool(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_TRANSPOSE_EXT, false);
        rcu_s_enum(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_MATH_PREC, F);
    }
    rcu_op_common(c);
}

void recipe_bs_dequantize(rc_ctx *c)
{
    int64_t m = tu_range(1, 64), k = 32 * tu_range(1, 8);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC, HIPDNN_DATA_FP8_E4M3, m, k);
    TENSOR(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC, HIPDNN_DATA_FP8_E8M0, m, k / 32);
    rcu_tensor(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC, F, 2, (int64_t[]){m, k}, true);
    rcu_a_i32(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE, 2, (int32_t[]){1, 32});
    if (c->full) {
        rcu_s_bool(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_NEG_SCALE, tu_rand() & 1);
        rcu_s_enum(c, HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_MATH_PREC, F);
    }
    rcu_op_common(c);
}

void recipe_custom_op(rc_ctx *c)
{
    static const char id[] = "example.rope";
    int64_t dims[3] = {tu_range(1, 4), tu_range(1, 32), 8 * tu_range(1, 8)};
    hipdnnBackendDescriptor_t out = rc_tensor(c, -1, HIPDNN_DATA_HALF, 3, dims, false);
    rcu_s_bytes(c, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT, id, sizeof id - 1);
    rcu_put_tensors(c, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, 1, &out);
    if (c->full) {
        hipdnnBackendDescriptor_t in[2] = {rc_tensor(c, -1, HIPDNN_DATA_HALF, 3, dims, false),
                                           rc_tensor(c, -1, F, 3, (int64_t[]){1, dims[1], dims[2]},
                                                     false)};
        unsigned char data[40];
        tu_bytes(data, sizeof data);
        rcu_put_tensors(c, HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT, 2, in);
        rcu_s_bytes(c, HIPDNN_ATTR_OPERATION_CUSTOM_OP_DATA_EXT, data, (size_t)tu_range(1, 40));
        rcu_s_enum(c, HIPDNN_ATTR_CUSTOM_OP_COMP_TYPE_EXT, F);
    }
    rcu_op_common(c);
}
#undef F

