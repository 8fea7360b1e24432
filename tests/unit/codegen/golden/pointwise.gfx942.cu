/* golden: kernel 1 of 1: entry hd_pointwise_kernel, arch gfx942, grid 1,1,1, block 256,1,1, smem 0, 0 more launches, scratch 0 */
// hipdnn-jit cg-1, template pointwise.hip, target amd gfx942
#line 1 "prelude_amd.h"
/* golden: kernel_templates/prelude_amd.h verbatim */

#line 1 "hd_common.h"
/* golden: kernel_templates/hd_common.h verbatim */

#line 1 "generated"
#define HD_GENERATED 1
#define HD_PARAMS void *p0, void *p1, void *p3
#define HD_ARGS p0, p1, p3
#define HD_THREADS 256
#define HD_NUMEL 128LL
HD_DEVICE void hd_element(hd_i64 i, HD_PARAMS)
{
    hd_i64 c2 = i % 8LL; i /= 8LL;
    hd_i64 c1 = i % 8LL; i /= 8LL;
    hd_i64 c0 = i % 2LL; i /= 2LL;
    c2 *= 8;
    float v0[8];
    hd_ldv<HD_DT_BFLOAT16, 8>(p0, c0 * 512LL + c1 * 64LL + c2 * 1LL, v0);
    float v1[8];
    hd_ldv<HD_DT_BFLOAT16, 8>(p1, c2 * 1LL, v1);
    float o3[8];
#pragma unroll
    for (int j = 0; j < 8; j++) {
    float t0 = v0[j];
    float t1 = v1[j];
    float t2 = hd_pointwise<2>(t0, t1, 0.0f, hd_pw_params{0.0f, __int_as_float(0x7f800000), 0.0f, 1.0f, 1.0f, 1.0f});
    t2 = hd_round<HD_DT_FLOAT>(t2);
    float t3 = hd_pointwise<34>(t2, 0.0f, 0.0f, hd_pw_params{0.0f, __int_as_float(0x7f800000), 0.0f, 1.0f, 1.0f, 1.0f});
    t3 = hd_round<HD_DT_BFLOAT16>(t3);
    o3[j] = t3;
    }
    hd_stv<HD_DT_BFLOAT16, 8>(p3, c0 * 512LL + c1 * 64LL + c2 * 1LL, o3);
}
#line 1 "pointwise.hip"
/* golden: kernel_templates/pointwise.hip verbatim */
