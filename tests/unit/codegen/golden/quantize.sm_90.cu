/* golden: kernel 1 of 1: entry hd_blockquant_kernel, arch sm_90, grid 1,1,1, block 256,1,1, smem 0, 0 more launches, scratch 0 */
// hipdnn-jit cg-1, template blockquant.hip, target nvidia sm_90
#line 1 "prelude_nvidia.h"
/* golden: kernel_templates/prelude_nvidia.h verbatim */

#line 1 "hd_common.h"
/* golden: kernel_templates/hd_common.h verbatim */

#line 1 "generated"
#define HD_GENERATED 1
#define HD_PARAMS void *p0, void *p1, void *p2
#define HD_ARGS p0, p1, p2
#define HD_THREADS 256
#define HD_BLOCKS 8LL
#define HD_BLOCK 32
#define HD_HOLD 1
#define HD_QVEC 8
#define HD_Y_DT HD_DT_FP8_E4M3
#define HD_Y_FP4 0
#define HD_SCALE_DT HD_DT_FP8_E8M0
#define HD_QMAX 448.0
HD_DEVICE float hd_qx(hd_i64 blk, int j, bool first, HD_PARAMS)
{
    (void)first;
    hd_i64 b_ = blk;
    hd_i64 c1 = b_ % 2LL * 32LL + j; b_ /= 2LL;
    hd_i64 c0 = b_ % 4LL; b_ /= 4LL;
    (void)b_;
    float t0 = hd_ld<HD_DT_BFLOAT16>(p0, c0 * 64LL + c1 * 1LL);
    return t0;
}
HD_DEVICE void hd_store_scale(hd_i64 blk, hd_u8 code, HD_PARAMS)
{
    const int j = 0;
    hd_i64 b_ = blk;
    hd_i64 c1 = b_ % 2LL * 32LL + j; b_ /= 2LL;
    hd_i64 c0 = b_ % 4LL; b_ /= 4LL;
    (void)b_;
    ((hd_u8 *)p2)[c0 * 2LL + (c1 / 32LL) * 1LL] = code;
}
HD_DEVICE void hd_store_q(hd_i64 blk, int j, float q, HD_PARAMS)
{
    hd_i64 b_ = blk;
    hd_i64 c1 = b_ % 2LL * 32LL + j; b_ /= 2LL;
    hd_i64 c0 = b_ % 4LL; b_ /= 4LL;
    (void)b_;
    hd_st<HD_DT_FP8_E4M3>(p1, c0 * 64LL + c1 * 1LL, q);
}
HD_DEVICE void hd_store_fp4x2(hd_i64 blk, int j, hd_u8 b, HD_PARAMS)
{
}
HD_DEVICE void hd_qx_vec(hd_i64 blk, int j, float *v, HD_PARAMS)
{
    hd_i64 b_ = blk;
    hd_i64 c1 = b_ % 2LL * 32LL + j; b_ /= 2LL;
    hd_i64 c0 = b_ % 4LL; b_ /= 4LL;
    (void)b_;
    float t0[HD_QVEC];
    hd_ldv<HD_DT_BFLOAT16, HD_QVEC>(p0, c0 * 64LL + c1 * 1LL, t0);
    for (int k = 0; k < HD_QVEC; k++) v[k] = t0[k];
}
HD_DEVICE void hd_store_qvec(hd_i64 blk, int j, const float *q, HD_PARAMS)
{
    hd_i64 b_ = blk;
    hd_i64 c1 = b_ % 2LL * 32LL + j; b_ /= 2LL;
    hd_i64 c0 = b_ % 4LL; b_ /= 4LL;
    (void)b_;
    hd_i64 o = c0 * 64LL + c1 * 1LL;
    hd_vec8 w;
    for (int k = 0; k < HD_QVEC; k++)
        hd_st<HD_DT_FP8_E4M3>(&w, k, q[k]);
    *(hd_vec8 *)((hd_u8 *)p1 + o) = w;
}
HD_DEVICE void hd_store_fp4x8(hd_i64 blk, int j, hd_u32 w, HD_PARAMS)
{
}
#line 1 "blockquant.hip"
/* golden: kernel_templates/blockquant.hip verbatim */
