/* golden: kernel 1 of 1: entry hd_sdpa_fwd_kernel, arch sm_90a, grid 1,2,1, block 128,1,1, smem 58368, 0 more launches, scratch 0 */
// hipdnn-jit cg-1, template sdpa_fwd.hip, target nvidia sm_90
#line 1 "prelude_nvidia.h"
/* golden: kernel_templates/prelude_nvidia.h verbatim */

#line 1 "hd_common.h"
/* golden: kernel_templates/hd_common.h verbatim */

#line 1 "hd_tensor_nv.h"
/* golden: kernel_templates/hd_tensor_nv.h verbatim */

#line 1 "sdpa_common.h"
/* golden: kernel_templates/sdpa_common.h verbatim */

#line 1 "sdpa_mask_iv.h"
/* golden: kernel_templates/sdpa_mask_iv.h verbatim */

#line 1 "generated"
#define HD_GENERATED 1
#define HD_PARAMS void *p0, void *p1, void *p2, void *p3, void *p4
#define HD_ARGS p0, p1, p2, p3, p4
#define HD_DT HD_DT_BFLOAT16
#define HD_O_DT HD_DT_BFLOAT16
#define HD_B 1
#define HD_HQ 2
#define HD_SQ 64
#define HD_SKV 64
#define HD_D 64
#define HD_DV 64
#define HD_BM 64
#define HD_BN 64
#define HD_WARPS 4
#define HD_STAGES 3
#define HD_SM90 1
#define HD_WS 0
#define HD_OVERLAP 0
#define HD_PACK 1
#define HD_SPLIT 1
#define HD_MIN_BLOCKS 2
#define HD_PINGPONG 0
#define HD_INTRA 0
#define HD_TMA_WG 0
#define HD_O_PAIR 1
#define HD_PERSIST 0
#define HD_L2_HEADS 1
#define HD_SW_EXP 0
#define HD_O_TMA 0
#define HD_L2_AHEAD 0
#define HD_QBUF 1
#define HD_KSPLIT 1
#define HD_KV_AHEAD 0
#define HD_TILE_PAGE 0
#define HD_PT_TILES 0
#define HD_HAS_RIGHT 1
#define HD_RIGHT 0
#define HD_HAS_LEFT 0
#define HD_LEFT 0
#define HD_BOTTOM_RIGHT 0
#define HD_Q_PTR p0
#define HD_K_PTR p1
#define HD_V_PTR p2
#define HD_O_PTR p3
#define HD_BIAS 0
#define HD_ALIBI 0
#define HD_SINK 0
#define HD_DROPOUT 0
#define HD_FOLD 1
#define HD_DMASK 0
#define HD_RNG_DUMP 0
HD_DEVICE hd_i64 hd_q_off(int b, int h, int i, HD_PARAMS)
{
    return 0LL + (hd_i64)(h / 1) * 4096LL + (hd_i64)(i) * 64LL;
}
HD_DEVICE hd_i64 hd_o_off(int b, int h, int i, HD_PARAMS)
{
    return 0LL + (hd_i64)(h / 1) * 4096LL + (hd_i64)(i) * 64LL;
}
HD_DEVICE hd_i64 hd_k_off(int b, int h, int i, HD_PARAMS)
{
    return 0LL + (hd_i64)(h / 1) * 4096LL + (hd_i64)(i) * 64LL;
}
HD_DEVICE hd_i64 hd_v_off(int b, int h, int i, HD_PARAMS)
{
    return 0LL + (hd_i64)(h / 1) * 4096LL + (hd_i64)(i) * 64LL;
}
HD_DEVICE float hd_scale(HD_PARAMS)
{
    return 0.125f;
}
HD_DEVICE int hd_seq_q(int b, HD_PARAMS)
{
    return 64;
}
HD_DEVICE int hd_seq_kv(int b, HD_PARAMS)
{
    return 64;
}
HD_DEVICE float hd_drop_scale(HD_PARAMS)
{
    return 1.0f;
}
HD_DEVICE void hd_row_stats(int b, int h, int i, float m, float l, HD_PARAMS)
{
    hd_st<HD_DT_FLOAT>(p4, 0LL + (hd_i64)(h) * 64LL + (hd_i64)(i) * 1LL, l > 0.0f ? m + logf(l) : m);
}
#line 1 "sdpa_fwd.hip"
/* golden: kernel_templates/sdpa_fwd.hip verbatim from line 1 */
#line 1 "sdpa_band.h"
/* golden: kernel_templates/sdpa_band.h verbatim */
#line 386 "sdpa_fwd.hip"
/* golden: kernel_templates/sdpa_fwd.hip verbatim from line 386 */
#line 1 "sdpa_mask.h"
/* golden: kernel_templates/sdpa_mask.h verbatim */
#line 390 "sdpa_fwd.hip"
/* golden: kernel_templates/sdpa_fwd.hip verbatim from line 390 */
#line 1 "sdpa_fwd_block.h"
/* golden: kernel_templates/sdpa_fwd_block.h verbatim */
#line 393 "sdpa_fwd.hip"
/* golden: kernel_templates/sdpa_fwd.hip verbatim from line 393 */
#line 1 "sdpa_fwd_tile.h"
/* golden: kernel_templates/sdpa_fwd_tile.h verbatim */
#line 395 "sdpa_fwd.hip"
/* golden: kernel_templates/sdpa_fwd.hip verbatim from line 395 */
#line 1 "sdpa_fwd_store.h"
/* golden: kernel_templates/sdpa_fwd_store.h verbatim */
#line 397 "sdpa_fwd.hip"
/* golden: kernel_templates/sdpa_fwd.hip verbatim from line 397 */
#line 1 "sdpa_fwd_ws.h"
/* golden: kernel_templates/sdpa_fwd_ws.h verbatim */
#line 399 "sdpa_fwd.hip"
/* golden: kernel_templates/sdpa_fwd.hip verbatim from line 399 */
