/* golden: kernel 1 of 1: entry hd_sdpa_bwd_pre, arch sm_90a, grid 16,2,1, block 256,1,1, smem 0, 2 more launches, scratch 66560 */
// hipdnn-jit cg-1, template sdpa_bwd.hip, target nvidia sm_90
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
#define HD_PARAMS void *p0, void *p1, void *p2, void *p3, void *p4, void *p5, void *p6, void *p7, void *p8
#define HD_ARGS p0, p1, p2, p3, p4, p5, p6, p7, p8
#define HD_DT HD_DT_BFLOAT16
#define HD_DQ_DT HD_DT_BFLOAT16
#define HD_DK_DT HD_DT_BFLOAT16
#define HD_DV_DT HD_DT_BFLOAT16
#define HD_B 1
#define HD_HQ 2
#define HD_HK 2
#define HD_SQ 64
#define HD_SQP 64
#define HD_SKV 64
#define HD_D 64
#define HD_DV 64
#define HD_BN 128
#define HD_BM 128
#define HD_STAGES 2
#define HD_QBN 128
#define HD_QSTAGES 2
#define HD_ATOMIC 1
#define HD_WARPS 8
#define HD_SM90 1
#define HD_LOADER 0
#define HD_DQ_OWN 0
#define HD_HAS_RIGHT 1
#define HD_RIGHT 0
#define HD_HAS_LEFT 0
#define HD_LEFT 0
#define HD_BOTTOM_RIGHT 0
#define HD_Q_PTR p0
#define HD_K_PTR p1
#define HD_V_PTR p2
#define HD_O_PTR p3
#define HD_DO_PTR p4
#define HD_DQ_PTR p6
#define HD_DK_PTR p7
#define HD_DV_PTR p8
#define HD_BIAS 0
#define HD_ALIBI 0
#define HD_DBIAS 0
#define HD_DROPOUT 0
#define HD_DMASK 0
HD_DEVICE hd_i64 hd_q_off(int b, int h, int i, HD_PARAMS)
{
    return 0LL + (hd_i64)(h / 1) * 4096LL + (hd_i64)(i) * 64LL;
}
HD_DEVICE hd_i64 hd_o_off(int b, int h, int i, HD_PARAMS)
{
    return 0LL + (hd_i64)(h / 1) * 4096LL + (hd_i64)(i) * 64LL;
}
HD_DEVICE hd_i64 hd_do_off(int b, int h, int i, HD_PARAMS)
{
    return 0LL + (hd_i64)(h / 1) * 4096LL + (hd_i64)(i) * 64LL;
}
HD_DEVICE hd_i64 hd_dq_off(int b, int h, int i, HD_PARAMS)
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
HD_DEVICE hd_i64 hd_dk_off(int b, int h, int i, HD_PARAMS)
{
    return 0LL + (hd_i64)(h / 1) * 4096LL + (hd_i64)(i) * 64LL;
}
HD_DEVICE hd_i64 hd_dv_off(int b, int h, int i, HD_PARAMS)
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
HD_DEVICE float hd_drop_sinv(HD_PARAMS)
{
    float s = hd_drop_scale(HD_ARGS);
    return s != 0.0f ? 1.0f / s : 0.0f;
}
HD_DEVICE float hd_stats(int b, int h, int i, HD_PARAMS)
{
    return hd_ld<HD_DT_FLOAT>(p5, 0LL + (hd_i64)(h) * 64LL + (hd_i64)(i) * 1LL);
}
#line 1 "sdpa_bwd.hip"
/* golden: kernel_templates/sdpa_bwd.hip verbatim from line 1 */
#line 1 "sdpa_band.h"
/* golden: kernel_templates/sdpa_band.h verbatim */
#line 290 "sdpa_bwd.hip"
/* golden: kernel_templates/sdpa_bwd.hip verbatim from line 290 */
#line 1 "sdpa_mask.h"
/* golden: kernel_templates/sdpa_mask.h verbatim */
#line 294 "sdpa_bwd.hip"
/* golden: kernel_templates/sdpa_bwd.hip verbatim from line 294 */
#line 1 "sdpa_bwd_kv.h"
/* golden: kernel_templates/sdpa_bwd_kv.h verbatim */
#line 491 "sdpa_bwd.hip"
/* golden: kernel_templates/sdpa_bwd.hip verbatim from line 491 */
