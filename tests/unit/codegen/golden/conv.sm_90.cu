/* golden: kernel 1 of 1: entry hd_conv_igemm_kernel, arch sm_90, grid 1,1,1, block 256,1,1, smem 0, 0 more launches, scratch 0 */
// hipdnn-jit cg-1, template conv_igemm.hip, target nvidia sm_90
#line 1 "prelude_nvidia.h"
/* golden: kernel_templates/prelude_nvidia.h verbatim */

#line 1 "hd_common.h"
/* golden: kernel_templates/hd_common.h verbatim */

#line 1 "hd_tensor_nv.h"
/* golden: kernel_templates/hd_tensor_nv.h verbatim */

#line 1 "generated"
#define HD_GENERATED 1
#define HD_PARAMS void *p0, void *p1, void *p3, void *p4
#define HD_ARGS p0, p1, p3, p4
#define HD_AB_DT HD_DT_BFLOAT16
#define HD_N 2
#define HD_CG 16
#define HD_KG 32
#define HD_G 1
#define HD_FLIP 0
#define HD_ID 1
#define HD_OD 1
#define HD_FD 1
#define HD_PD 0
#define HD_SD 1
#define HD_DD 1
#define HD_IH 8
#define HD_OH 8
#define HD_FH 3
#define HD_PH 1
#define HD_SH 1
#define HD_DH 1
#define HD_IW 8
#define HD_OW 8
#define HD_FW 3
#define HD_PW 1
#define HD_SW 1
#define HD_DW 1
#define HD_XS_N 1024LL
#define HD_XS_C 1LL
#define HD_XS_D 0LL
#define HD_XS_H 128LL
#define HD_XS_W 16LL
#define HD_X_DT HD_DT_BFLOAT16
#define HD_X_PTR p0
#define HD_WS_K 144LL
#define HD_WS_C 1LL
#define HD_WS_D 0LL
#define HD_WS_H 48LL
#define HD_WS_W 16LL
#define HD_W_DT HD_DT_BFLOAT16
#define HD_W_PTR p1
#define HD_YS_N 2048LL
#define HD_YS_K 64LL
#define HD_YS_D 0LL
#define HD_YS_H 8LL
#define HD_YS_W 1LL
#define HD_Y_DT HD_DT_FLOAT
HD_DEVICE void hd_epilogue(hd_i64 a, hd_i64 b, int s0, int s1, int s2, float acc, HD_PARAMS)
{
    (void)s0, (void)s1, (void)s2;
    float t2 = hd_round<HD_DT_FLOAT>(acc);
    float t3 = hd_ld<HD_DT_BFLOAT16>(p3, 0LL + (hd_i64)b * 1LL);
    float t4 = hd_pointwise<2>(t2, t3, 0.0f, hd_pw_params{0.0f, __int_as_float(0x7f800000), 0.0f, 1.0f, 1.0f, 1.0f});
    t4 = hd_round<HD_DT_BFLOAT16>(t4);
    hd_st<HD_DT_BFLOAT16>(p4, 0LL + (hd_i64)a * 2048LL + (hd_i64)b * 1LL + (hd_i64)s1 * 256LL + (hd_i64)s2 * 32LL, t4);
}
#line 1 "conv_igemm.hip"
/* golden: kernel_templates/conv_igemm.hip verbatim */
