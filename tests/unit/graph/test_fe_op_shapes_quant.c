/* test_fe_op_shapes_quant.c — finalize-time rules of the paged cache load, block-scale
 * quantize / dequantize and custom op descriptors (graph/fe_check_quant.c); part of
 * test_fe_op_shapes (see test_fe_op_shapes.c for the method).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hipdnn_backend.h"

#include "os_util.h"

/* ==== paged cache load =================================================================================== */

#define PCL(x) HIPDNN_ATTR_OPERATION_PAGED_CACHE_LOAD_##x##_EXT
/* container [nblk 6, H 2, bs 4, D 16], page table [B 2,1,P 3,1]: up to 12 tokens a batch */
static desc pcl(desc y)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR);
    os_set_t(op, PCL(CONTAINER_DESC), TEN(HIPDNN_DATA_HALF, 6, 2, 4, 16));
    os_set_t(op, PCL(YDESC), y);
    os_set_t(op, PCL(SEQUENCE_DESC), I32(2, 1, 1, 1));
    os_set_t(op, PCL(PAGE_TABLE_DESC), I32(2, 1, 3, 1));
    return op;
}
desc mk_pcl(void) { return pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 12, 16)); }
desc mk_pcl_transposed(void) { return pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 16, 10)); }

T(paged_cache_load, valid)
{
    os_expect_ok(mk_pcl());
    os_expect_ok(mk_pcl_transposed());
}
T(paged_cache_load, ranks)
{
    desc op = mk_pcl();
    os_set_t(op, PCL(CONTAINER_DESC), TEN(HIPDNN_DATA_HALF, 6, 2, 64));
    os_expect_bad(op, "CONTAINER [6,2,64] has rank 3, must have rank 4");
    os_expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 24, 16)), "Y [2,24,16] has rank 3");
}
T(paged_cache_load, page_table)
{
    desc op = mk_pcl();
    os_set_t(op, PCL(PAGE_TABLE_DESC), I32(2, 2, 3, 1));
    os_expect_bad(op, "PAGE_TABLE [2,2,3,1] must be [*,1,*,1] ([B,1,P,1])");
    op = mk_pcl();
    os_set_t(op, PCL(PAGE_TABLE_DESC), F32(2, 1, 3, 1));
    os_expect_bad(op, "PAGE_TABLE has data type FLOAT, must be INT32 or INT64");
}
T(paged_cache_load, seq_lens)
{
    desc op = mk_pcl();
    os_set_t(op, PCL(SEQUENCE_DESC), I32(3, 1, 1, 1));
    os_expect_bad(op, "SEQUENCE [3,1,1,1] must be [2,1,1,1]");
    op = mk_pcl();
    os_set_t(op, PCL(SEQUENCE_DESC), TEN(HIPDNN_DATA_UINT8, 2, 1, 1, 1));
    os_expect_bad(op, "SEQUENCE has data type UINT8, must be INT32 or INT64");
}
T(paged_cache_load, y_batch_heads)
{
    os_expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 3, 2, 12, 16)), "Y [3,2,12,16] must be [B,H,..] with B from PAGE_TABLE");
    os_expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 4, 12, 16)), "Y [2,4,12,16] must be [B,H,..]");
}
T(paged_cache_load, y_head_dim)
{
    os_expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 12, 8)), "Y [2,2,12,8] must be [B,H,S,D] or [B,H,D,S] with D = 16");
}
T(paged_cache_load, y_sequence_too_long)
{
    os_expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 13, 16)), "Y [2,2,13,16]: the sequence dim exceeds the 12 tokens");
    os_expect_bad(pcl(TEN(HIPDNN_DATA_HALF, 2, 2, 16, 20)), "Y [2,2,16,20]: the sequence dim exceeds");
}

/* ==== block-scale quantize / dequantize ================================================================== */

#define BSQ(x) HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_##x
static desc bsq(desc x, desc y, desc scale, int32_t block)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR_EXT);
    os_set_t(op, BSQ(XDESC), x);
    os_set_t(op, BSQ(YDESC), y);
    os_set_t(op, BSQ(SCALE_DESC), scale);
    os_set_i32(op, BSQ(BLOCK_SIZE), block);
    return op;
}
/* MXFP8: X [4,64] in blocks of 32 along the last dim */
desc mk_bsq(void)
{
    return bsq(F32(4, 64), TEN(HIPDNN_DATA_FP8_E4M3, 4, 64), TEN(HIPDNN_DATA_FP8_E8M0, 4, 2), 32);
}
/* NVFP4 along axis 0, transposed */
desc mk_bsq_axis0(void)
{
    desc op = bsq(F32(64, 4), TEN(HIPDNN_DATA_FP4_E2M1, 64, 4), TEN(HIPDNN_DATA_FP8_E4M3, 4, 4), 16);
    os_set_i64(op, BSQ(AXIS_EXT), 0);
    os_set_bool(op, BSQ(TRANSPOSE_EXT), true);
    return op;
}
T(bs_quantize, valid)
{
    os_expect_ok(mk_bsq());
    os_expect_ok(mk_bsq_axis0());
    os_expect_ok(bsq(F32(2, 32), TEN(HIPDNN_DATA_INT8, 2, 32), TEN(HIPDNN_DATA_FP8_E8M0, 2, 1), 32));
    os_expect_ok(bsq(F32(2, 32), TEN(HIPDNN_DATA_FP8_E5M2, 2, 32), TEN(HIPDNN_DATA_FP8_E8M0, 2, 1), 32));
}
T(bs_quantize, block_size)
{
    desc op = mk_bsq();
    os_set_i32(op, BSQ(BLOCK_SIZE), 0);
    os_expect_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE 0 must be > 0");
    op = mk_bsq();
    os_set_i32(op, BSQ(BLOCK_SIZE), -32);
    os_expect_bad(op, "BLOCK_SIZE -32 must be > 0");
}
T(bs_quantize, axis_range)
{
    desc op = mk_bsq();
    os_set_i64(op, BSQ(AXIS_EXT), 2);
    os_expect_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_AXIS_EXT 2 is outside [0, 2) for X [4,64]");
    op = mk_bsq();
    os_set_i64(op, BSQ(AXIS_EXT), -1);
    os_expect_bad(op, "AXIS_EXT -1 is outside [0, 2)");
}
T(bs_quantize, not_multiple_of_block)
{
    desc op = mk_bsq();
    os_set_i32(op, BSQ(BLOCK_SIZE), 24);
    os_expect_bad(op, "X [4,64]: dim 1 (64) is not a multiple of BLOCK_SIZE 24");
    op = mk_bsq(); /* the default axis is the last: dim 0 (4) is never blocked */
    os_set_i64(op, BSQ(AXIS_EXT), 0);
    os_expect_bad(op, "dim 0 (4) is not a multiple of BLOCK_SIZE 32");
}
T(bs_quantize, y_dims)
{
    desc op = mk_bsq();
    os_set_t(op, BSQ(YDESC), TEN(HIPDNN_DATA_FP8_E4M3, 4, 32));
    os_expect_bad(op, "Y [4,32] must have the dims of X [4,64]");
}
T(bs_quantize, scale_dims)
{
    desc op = mk_bsq();
    os_set_t(op, BSQ(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 4, 4));
    os_expect_bad(op, "SCALE [4,4] must be [4,2] (X's dims with the blocked axis divided by BLOCK_SIZE)");
    op = mk_bsq_axis0();
    os_set_t(op, BSQ(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E4M3, 64, 1));
    os_expect_bad(op, "SCALE [64,1] must be [4,4]");
}
T(bs_quantize, types)
{
    desc op = mk_bsq();
    os_set_t(op, BSQ(YDESC), TEN(HIPDNN_DATA_HALF, 4, 64));
    os_expect_bad(op, "Y has data type HALF; must be FP8_E4M3, FP8_E5M2, FP4_E2M1 or INT8");
    op = mk_bsq();
    os_set_t(op, BSQ(SCALE_DESC), F32(4, 2));
    os_expect_bad(op, "SCALE has data type FLOAT; must be FP8_E8M0 or FP8_E4M3");
}

#define BSD(x) HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_##x
static desc bsd(desc x, desc scale, desc y)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR_EXT);
    os_set_t(op, BSD(XDESC), x);
    os_set_t(op, BSD(SCALE_DESC), scale);
    os_set_t(op, BSD(YDESC), y);
    return op;
}
/* matmul A [b 2, M 64, K 128] in blocks [1,32] along K */
desc mk_bsd(void)
{
    desc op = bsd(TEN(HIPDNN_DATA_FP8_E4M3, 2, 64, 128), TEN(HIPDNN_DATA_FP8_E8M0, 2, 64, 4), F32(2, 64, 128));
    SET_I32S(op, BSD(BLOCK_SIZE), 1, 32);
    return op;
}
/* matmul B [b, K 128, N 64] in blocks [32,1] along K; scale padded to the 128x4 layout and
 * shared across the batch */
desc mk_bsd_b_padded(void)
{
    desc op = bsd(TEN(HIPDNN_DATA_FP8_E4M3, 2, 100, 64), TEN(HIPDNN_DATA_FP8_E8M0, 1, 4, 128), F32(2, 100, 64));
    SET_I32S(op, BSD(BLOCK_SIZE), 32, 1);
    return op;
}
T(bs_dequantize, valid)
{
    os_expect_ok(mk_bsd());
    os_expect_ok(mk_bsd_b_padded());
    desc op = bsd(TEN(HIPDNN_DATA_FP4_E2M1, 4, 48), TEN(HIPDNN_DATA_FP8_E4M3, 4, 3), F32(4, 48));
    SET_I32S(op, BSD(BLOCK_SIZE), 16); /* one entry: the last dim */
    os_expect_ok(op);
}
T(bs_dequantize, block_entries)
{
    desc op = mk_bsd();
    SET_I32S(op, BSD(BLOCK_SIZE), 1, 0);
    os_expect_bad(op, "HIPDNN_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE entry 1 is 0, must be > 0");
    op = mk_bsd();
    SET_I32S(op, BSD(BLOCK_SIZE), -1, 32);
    os_expect_bad(op, "BLOCK_SIZE entry 0 is -1, must be > 0");
    op = mk_bsd();
    SET_I32S(op, BSD(BLOCK_SIZE), 1, 1, 1, 32);
    os_expect_bad(op, "BLOCK_SIZE has 4 entries, more than X [2,64,128] has dims");
}
T(bs_dequantize, scale_too_small)
{
    desc op = mk_bsd();
    os_set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 2, 64, 3));
    os_expect_bad(op, "SCALE [2,64,3]: dim 2 is 3, needs at least ceil(128 / 32) = 4 (X [2,64,128])");
    op = mk_bsd();
    os_set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 2, 32, 4));
    os_expect_bad(op, "SCALE [2,32,4]: dim 1 is 32, needs at least ceil(64 / 1) = 64");
    op = mk_bsd_b_padded(); /* ceil(100 / 32) = 4 */
    os_set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 1, 3, 64));
    os_expect_bad(op, "dim 1 is 3, needs at least ceil(100 / 32) = 4");
}
T(bs_dequantize, scale_leading_and_rank)
{
    desc op = mk_bsd();
    os_set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 3, 64, 4));
    os_expect_bad(op, "SCALE [3,64,4]: dim 0 is 3, must be X's (2) or 1");
    op = mk_bsd();
    os_set_t(op, BSD(SCALE_DESC), TEN(HIPDNN_DATA_FP8_E8M0, 64, 4));
    os_expect_bad(op, "SCALE [64,4] has rank 2, must have rank 3");
}
T(bs_dequantize, y_dims)
{
    desc op = mk_bsd();
    os_set_t(op, BSD(YDESC), F32(2, 128, 64));
    os_expect_bad(op, "Y [2,128,64] must have the dims of X [2,64,128]");
}

/* ==== custom op ============================================================================================ */

#define CO(x) HIPDNN_ATTR_OPERATION_CUSTOM_OP_##x##_EXT
desc mk_custom(void)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT);
    os_set(op, CO(ID), HIPDNN_TYPE_CHAR, 12, "example.rope");
    desc in[2] = {F32(2, 8, 16), F32(8, 16)}, out = F32(2, 8, 16);
    os_set(op, CO(INPUTS), HIPDNN_TYPE_BACKEND_DESCRIPTOR, 2, in);
    os_set(op, CO(OUTPUTS), HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &out);
    return op;
}
T(custom_op, valid) { os_expect_ok(mk_custom()); }
T(custom_op, no_outputs)
{
    desc op = os_op_new(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT);
    os_set(op, CO(ID), HIPDNN_TYPE_CHAR, 4, "sink");
    desc in = F32(4);
    os_set(op, CO(INPUTS), HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &in);
    os_expect_bad(op, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT: at least one output is needed");
}
T(custom_op, empty_id)
{
    desc op = mk_custom();
    /* a NUL byte in an id is refused when set (ids are text: "\0ab" used to pass as empty) */
    cr_expect_eq(hipdnnBackendSetAttribute(op, CO(ID), HIPDNN_TYPE_CHAR, 3, "\0ab"), HIPDNN_STATUS_BAD_PARAM);
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnGetLastErrorString(msg, sizeof msg);
    cr_expect(strstr(msg, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT: the text has a NUL byte at offset 0"), "%s", msg);
    op = mk_custom();
    os_set(op, CO(ID), HIPDNN_TYPE_CHAR, 0, "");
    os_expect_bad(op, "HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT");
}

