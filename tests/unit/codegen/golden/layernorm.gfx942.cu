/* golden: kernel 1 of 1: entry hd_rownorm_kernel, arch gfx942, grid 16,1,1, block 32,1,1, smem 0, 0 more launches, scratch 0 */
// hipdnn-jit cg-1, template rownorm.hip, target amd gfx942
#line 1 "prelude_amd.h"
/* golden: kernel_templates/prelude_amd.h verbatim */

#line 1 "hd_common.h"
/* golden: kernel_templates/hd_common.h verbatim */

#line 1 "generated"
#define HD_GENERATED 1
#define HD_PARAMS void *p0, void *p1, void *p2, void *p4, void *p5, void *p6
#define HD_ARGS p0, p1, p2, p4, p5, p6
#define HD_ROWS 16LL
#define HD_COLS 256
#define HD_THREADS 32
#define HD_VEC 8
#define HD_RMS 0
#define HD_EPS (9.99999975e-06f)
#define HD_PREFETCH 0
#define HD_SHIFTED_STATS 0
#define HD_QUANT 0
HD_DEVICE void hd_load_x(hd_i64 r, int c, float *v, HD_PARAMS)
{
    float t0[HD_VEC];
    hd_ldv<HD_DT_BFLOAT16, HD_VEC>(p0, (0LL + ((r / 1LL) % 16LL) * 256LL) + c, t0);
    for (int j = 0; j < HD_VEC; j++) v[j] = t0[j];
}
HD_DEVICE void hd_load_w(int c, float *s, float *b, HD_PARAMS)
{
    float t1[HD_VEC];
    hd_ldv<HD_DT_FLOAT, HD_VEC>(p1, c, t1);
    for (int j = 0; j < HD_VEC; j++) s[j] = t1[j];
    float t2[HD_VEC];
    hd_ldv<HD_DT_FLOAT, HD_VEC>(p2, c, t2);
    for (int j = 0; j < HD_VEC; j++) b[j] = t2[j];
}
HD_DEVICE void hd_store_y(hd_i64 r, int c, const float *v, HD_PARAMS)
{
    float t4[HD_VEC];
    for (int j = 0; j < HD_VEC; j++) t4[j] = hd_round<HD_DT_BFLOAT16>(v[j]);
    hd_stv<HD_DT_BFLOAT16, HD_VEC>(p4, (0LL + ((r / 1LL) % 16LL) * 256LL) + c, t4);
}
HD_DEVICE void hd_store_stats(hd_i64 r, float mean, float inv, HD_PARAMS)
{
    hd_st<HD_DT_FLOAT>(p5, (0LL + ((r / 1LL) % 16LL) * 1LL), mean);
    hd_st<HD_DT_FLOAT>(p6, (0LL + ((r / 1LL) % 16LL) * 1LL), inv);
}
#line 1 "rownorm.hip"
/* golden: kernel_templates/rownorm.hip verbatim */
