/* paged_load.hip — paged KV-cache load: gathers the pages of a container through a page table
 * into a contiguous K or V tensor (grid-stride loop; one item = HD_VEC consecutive elements
 * along D).
 *
 *   y[b, h, s, d] = container[page_table[b, 0, s / PAGE, 0], h, s % PAGE, d]   s < seq_len[b]
 *                 = 0                                                          otherwise
 * y is [B, H, S, D] or the transposed K form [B, H, D, S]; codegen folds the form into y's
 * strides, so the template only sees (b, h, s, d).
 *
 * Contract
 *   holes   HD_THREADS                      threads per block
 *           HD_B, HD_H, HD_S, HD_D          y's batch, heads, sequence and head size
 *           HD_PAGE, HD_NBLK                tokens per page, pages in the container
 *           HD_VEC                          elements per item (D % HD_VEC == 0)
 *           HD_PARAMS, HD_ARGS
 *           hd_seq_len(b, HD_PARAMS) -> hd_i64       seq_len[b] (HD_S when absent)
 *           hd_page(b, p, HD_PARAMS) -> hd_i64       page_table[b, 0, p, 0]
 *           hd_copy(ok, page, b, h, s, d, HD_PARAMS) HD_VEC elements from the container page
 *                                                    (zeros when !ok) to y
 *   layout  any strides; HD_VEC > 1 (16-byte copies) needs D contiguous in both tensors,
 *           16-byte aligned rows and equal types (codegen checks)
 *   reference  ir_ref_paged_cache_load (ir/ir_ref_quant.c). A page id outside [0, HD_NBLK)
 *           for a position that is read is an error there (nothing written); here it reads
 *           nothing and writes zeros.
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_THREADS 256
#define HD_B 2
#define HD_H 4
#define HD_S 64
#define HD_D 128
#define HD_PAGE 16
#define HD_NBLK 8
#define HD_VEC 8
#define HD_PARAMS void *cont, void *seq, void *table, void *y
#define HD_ARGS cont, seq, table, y
HD_DEVICE hd_i64 hd_seq_len(hd_i64 b, HD_PARAMS) { return hd_ldi<HD_DT_INT32>(seq, b); }
HD_DEVICE hd_i64 hd_page(hd_i64 b, hd_i64 p, HD_PARAMS) { return hd_ldi<HD_DT_INT32>(table, b * (HD_S / HD_PAGE) + p); }
HD_DEVICE void hd_copy(bool ok, hd_i64 page, hd_i64 b, hd_i64 h, hd_i64 s, hd_i64 d, HD_PARAMS)
{
    hd_vec16 w = {0u, 0u, 0u, 0u};
    if (ok)
        w = *(const hd_vec16 *)((const hd_u16 *)cont + ((page * HD_H + h) * HD_PAGE + s % HD_PAGE) * HD_D + d);
    *(hd_vec16 *)((hd_u16 *)y + ((b * HD_H + h) * HD_S + s) * HD_D + d) = w;
}
#endif

HD_GLOBAL HD_LAUNCH_BOUNDS(HD_THREADS) void hd_paged_load_kernel(HD_PARAMS)
{
    const hd_i64 items = (hd_i64)HD_B * HD_H * HD_S * (HD_D / HD_VEC);
    hd_i64 stride = (hd_i64)gridDim.x * HD_THREADS;
    for (hd_i64 i = (hd_i64)blockIdx.x * HD_THREADS + threadIdx.x; i < items; i += stride) {
        hd_i64 d = i % (HD_D / HD_VEC) * HD_VEC, r = i / (HD_D / HD_VEC);
        hd_i64 s = r % HD_S;
        r /= HD_S;
        hd_i64 h = r % HD_H, b = r / HD_H;
        hd_i64 page = s < hd_seq_len(b, HD_ARGS) ? hd_page(b, s / HD_PAGE, HD_ARGS) : -1;
        hd_copy(page >= 0 && page < HD_NBLK, page, b, h, s, d, HD_ARGS);
    }
}
