/* golden: kernel 1 of 1: entry hd_chan_reduce, arch sm_90, grid 16,1,1, block 256,1,1, smem 0, 2 more launches, scratch 512 */
// hipdnn-jit cg-1, template channorm.hip, target nvidia sm_90
#line 1 "prelude_nvidia.h"
/* golden: kernel_templates/prelude_nvidia.h verbatim */

#line 1 "hd_common.h"
/* golden: kernel_templates/hd_common.h verbatim */

#line 1 "generated"
#define HD_GENERATED 1
#define HD_PARAMS void *p0, void *p1, void *p2, void *p5, void *p6, void *p7, void *p8, void *p9, void *p10, void *p11
#define HD_ARGS p0, p1, p2, p5, p6, p7, p8, p9, p10, p11
#define HD_OP 1
#define HD_C 16
#define HD_M 256LL
#define HD_TC 1
#define HD_TM 256
#define HD_THREADS 256
#define HD_CTILES 16
#define HD_SPLITS 1
#define HD_CHUNK 256LL
#define HD_UNROLL 8
#define HD_EPS (9.99999975e-06f)
#define HD_RUNNING 1
HD_DEVICE float hd_load_x(int c, hd_i64 m, HD_PARAMS)
{
    unsigned q_ = (unsigned)m;
    unsigned k1 = q_ % 64u;
    q_ /= 64u;
    unsigned k0 = q_;
    float t0 = hd_ld<HD_DT_BFLOAT16>(p0, (hd_i64)c * 64LL + k0 * 1024LL + k1 * 1LL);
    return t0;
}
HD_DEVICE float hd_load_dy(int c, hd_i64 m, HD_PARAMS)
{
    return 0.0f;
}
HD_DEVICE void hd_load_chan(int c, float *k, HD_PARAMS)
{
    float t1 = hd_ld<HD_DT_FLOAT>(p1, (hd_i64)c * 1LL);
    k[0] = t1;
    float t2 = hd_ld<HD_DT_FLOAT>(p2, (hd_i64)c * 1LL);
    k[1] = t2;
    k[2] = 0.0f;
}
HD_DEVICE void hd_load_running(int c, float *r, HD_PARAMS)
{
    float t5 = hd_ld<HD_DT_FLOAT>(p5, (hd_i64)c * 1LL);
    r[0] = t5;
    float t6 = hd_ld<HD_DT_FLOAT>(p6, (hd_i64)c * 1LL);
    r[1] = t6;
    float t4 = 0.100000001f;
    r[2] = t4;
}
HD_DEVICE void hd_store_chan(int c, float a, float b, HD_PARAMS)
{
    hd_st<HD_DT_FLOAT>(p8, (hd_i64)c * 1LL, a);
    hd_st<HD_DT_FLOAT>(p9, (hd_i64)c * 1LL, b);
}
HD_DEVICE void hd_store_running(int c, float mean, float var, HD_PARAMS)
{
    hd_st<HD_DT_FLOAT>(p10, (hd_i64)c * 1LL, mean);
    hd_st<HD_DT_FLOAT>(p11, (hd_i64)c * 1LL, var);
}
HD_DEVICE void hd_store_y(int c, hd_i64 m, float v, HD_PARAMS)
{
    unsigned q_ = (unsigned)m;
    unsigned k1 = q_ % 64u;
    q_ /= 64u;
    unsigned k0 = q_;
    float t7 = hd_round<HD_DT_BFLOAT16>(v);
    hd_st<HD_DT_BFLOAT16>(p7, (hd_i64)c * 64LL + k0 * 1024LL + k1 * 1LL, t7);
}
HD_DEVICE void hd_store_dx(int c, hd_i64 m, float v, HD_PARAMS)
{
}
#line 1 "channorm.hip"
/* golden: kernel_templates/channorm.hip verbatim */
