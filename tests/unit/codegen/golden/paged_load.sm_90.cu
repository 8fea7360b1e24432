/* golden: kernel 1 of 1: entry hd_paged_load_kernel, arch sm_90, grid 8,1,1, block 256,1,1, smem 0, 0 more launches, scratch 0 */
// hipdnn-jit cg-1, template paged_load.hip, target nvidia sm_90
#line 1 "prelude_nvidia.h"
/* golden: kernel_templates/prelude_nvidia.h verbatim */

#line 1 "hd_common.h"
/* golden: kernel_templates/hd_common.h verbatim */

#line 1 "generated"
#define HD_GENERATED 1
#define HD_PARAMS void *p0, void *p1, void *p2, void *p3
#define HD_ARGS p0, p1, p2, p3
#define HD_THREADS 256
#define HD_B 2LL
#define HD_H 2LL
#define HD_S 64LL
#define HD_D 64LL
#define HD_PAGE 16LL
#define HD_NBLK 8LL
#define HD_VEC 8
HD_DEVICE hd_i64 hd_seq_len(hd_i64 b, HD_PARAMS)
{
    return hd_ldi<HD_DT_INT32>(p1, 0LL + b * 1LL);
}
HD_DEVICE hd_i64 hd_page(hd_i64 b, hd_i64 pg, HD_PARAMS)
{
    return pg < 4LL ? hd_ldi<HD_DT_INT32>(p2, 0LL + b * 4LL + pg * 1LL) : -1;
}
HD_DEVICE void hd_copy(bool ok, hd_i64 page, hd_i64 b, hd_i64 h, hd_i64 s, hd_i64 d, HD_PARAMS)
{
    hd_i64 src = 0LL + page * 2048LL + h * 1024LL + (s % HD_PAGE) * 64LL + d * 1LL;
    hd_i64 dst = 0LL + b * 8192LL + h * 4096LL + s * 64LL + d * 1LL;
    hd_vec16 w = {0u, 0u, 0u, 0u};
    if (ok)
        w = *(const hd_vec16 *)((const char *)p0 + src * 2);
    *(hd_vec16 *)((char *)p3 + dst * 2) = w;
}
#line 1 "paged_load.hip"
/* golden: kernel_templates/paged_load.hip verbatim */
