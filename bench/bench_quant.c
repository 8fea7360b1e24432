/* bench_quant.c — times block-scale quantize graphs and the paged KV-cache load built through
 * the public API and run by the fused JIT engine, and prints achieved bandwidth.
 *
 * Cases (bf16 input [rows, cols], blocks along cols):
 *   mxfp8           y = MXFP8(x): E4M3 codes, one E8M0 scale per 32     (blockquant.hip, 8-wide)
 *   mxfp8_pad       the same with rows padded by one element: the one-element path
 *   nvfp4           y = NVFP4(x): packed E2M1 codes, one E4M3 scale per 16
 *   rmsnorm_mxfp8   y = MXFP8(RMS(x))   (one row kernel: rownorm.hip with the quantize tail)
 *   rmsnorm_nvfp4   y = NVFP4(RMS(x))
 *   paged           K [B=rows/2048.., H=8, S=2048, D=128] gathered from 16-token pages in a
 *                   random order (rows x cols elements in all)
 * Bytes counted: what must move once (x read, codes and scales written; paged: container read,
 * y written). Timing: bench_median_ms (events, median of 50, 4 input sets rotated).
 * Output: "case rows cols ms GB/s".
 */
#include <string.h>

#include "bench_util.h"

#define SETS 4
#define REPS 50

static json_t *tensor(int uid, const char *dt, int rank, const int64_t *d, const int64_t *s, bool is_virtual)
{
    json_t *dims = json_array(), *strides = json_array();
    for (int i = 0; i < rank; i++)
        json_array_append_new(dims, json_integer(d[i])), json_array_append_new(strides, json_integer(s[i]));
    return json_pack("{s:i, s:s, s:o, s:o, s:b}", "uid", uid, "data_type", dt, "strides", strides, "dims", dims,
                     "virtual", is_virtual);
}

static json_t *matrix(int uid, const char *dt, int64_t r, int64_t c, int64_t ld, bool is_virtual)
{
    return tensor(uid, dt, 2, (int64_t[]){r, c}, (int64_t[]){ld, 1}, is_virtual);
}

/* uids: 1 x, 2 scale (norm weight), 4 eps, 5 norm y, 21 codes, 22 block scales. */
static hipdnnBackendDescriptor_t build_quant(const char *kind, int64_t R, int64_t C)
{
    json_t *t = json_array(), *n = json_array();
    bool fp4 = strstr(kind, "nvfp4") != NULL, norm = strncmp(kind, "rmsnorm", 7) == 0;
    int block = fp4 ? 16 : 32, x = 1;
    json_array_append_new(t, matrix(1, "BFLOAT16", R, C, strstr(kind, "pad") ? C + 1 : C, false));
    if (norm) {
        json_array_append_new(t, matrix(2, "FLOAT", 1, C, C, false));
        json_array_append_new(t, json_pack("{s:i, s:s, s:[i,i], s:[i,i], s:s, s:{s:f}}", "uid", 4, "data_type",
                                           "FLOAT", "strides", 1, 1, "dims", 1, 1, "value_type", "Float32Value",
                                           "value", "value", 1e-5));
        json_array_append_new(t, matrix(5, "FLOAT", R, C, C, true));
        json_array_append_new(n, bench_node("RMSNormAttributes", json_pack("{s:i,s:i,s:i,s:i,s:s}", "x_tensor_uid", 1,
            "scale_tensor_uid", 2, "epsilon_tensor_uid", 4, "y_tensor_uid", 5, "forward_phase", "INFERENCE")));
        x = 5;
    }
    json_array_append_new(t, matrix(21, fp4 ? "FP4_E2M1" : "FP8_E4M3", R, C, C, false));
    json_array_append_new(t, matrix(22, fp4 ? "FP8_E4M3" : "FP8_E8M0", R, C / block, C / block, false));
    json_array_append_new(n, bench_node("BlockScaleQuantizeAttributes", json_pack("{s:i,s:i,s:i,s:i,s:i}",
        "x_tensor_uid", x, "y_tensor_uid", 21, "scale_tensor_uid", 22, "block_size", block, "axis", 1)));
    return bench_graph(t, n);
}

static void run_quant(const char *kind, int64_t R, int64_t C)
{
    hipdnnBackendDescriptor_t g = build_quant(kind, R, C), plan = bench_jit_plan(g);
    bool fp4 = strstr(kind, "nvfp4") != NULL, norm = strncmp(kind, "rmsnorm", 7) == 0;
    size_t elems = (size_t)(R * C), xelems = (size_t)(R * (strstr(kind, "pad") ? C + 1 : C));
    size_t ybytes = fp4 ? elems / 2 : elems, sbytes = elems / (fp4 ? 16 : 32);
    float *w = malloc((size_t)C * 4);
    for (int64_t i = 0; i < C; i++)
        w[i] = 1.0f + (float)rand() / (float)RAND_MAX * 0.1f;
    void *weight, *bufs[SETS][3];
    CHECK(hipdnnDeviceMalloc_ext(&weight, (size_t)C * 4));
    CHECK(hipdnnMemcpyHostToDevice_ext(weight, w, (size_t)C * 4));
    hipdnnBackendDescriptor_t packs[SETS];
    for (int s = 0; s < SETS; s++) {
        bufs[s][0] = bench_random_bf16(xelems);
        CHECK(hipdnnDeviceMalloc_ext(&bufs[s][1], ybytes));
        CHECK(hipdnnDeviceMalloc_ext(&bufs[s][2], sbytes));
        int64_t uids[4] = {1, 21, 22, 2};
        void *ptrs[4] = {bufs[s][0], bufs[s][1], bufs[s][2], weight};
        packs[s] = bench_pack(norm ? 4 : 3, uids, ptrs);
    }
    float ms = bench_median_ms(plan, packs, SETS, 10, REPS);
    double bytes = (double)elems * 2 + (double)ybytes + (double)sbytes;
    printf("%-14s %6lld %6lld %9.4f %8.1f\n", kind, (long long)R, (long long)C, ms, bytes / (ms * 1e-3) / 1e9);
    fflush(stdout);
    for (int s = 0; s < SETS; s++) {
        hipdnnBackendDestroyDescriptor(packs[s]);
        for (int b = 0; b < 3; b++)
            hipdnnDeviceFree_ext(bufs[s][b]);
    }
    hipdnnDeviceFree_ext(weight), free(w);
    hipdnnBackendDestroyDescriptor(plan), hipdnnBackendDestroyDescriptor(g);
}

/* K [B, H, S, D] from pages of 16 tokens; rows x cols = B*H*S x D. */
static void run_paged(int64_t R, int64_t C)
{
    const int64_t H = 8, S = 2048, page = 16, D = C, B = R / (H * S), P = S / page, nblk = B * P;
    int64_t cd[4] = {nblk, H, page, D}, cs[4] = {H * page * D, page * D, D, 1};
    int64_t yd[4] = {B, H, S, D}, ys[4] = {H * S * D, S * D, D, 1};
    int64_t td[4] = {B, 1, P, 1}, ts[4] = {P, P, 1, 1}, sd[4] = {B, 1, 1, 1}, ss[4] = {1, 1, 1, 1};
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, tensor(1, "BFLOAT16", 4, cd, cs, false));
    json_array_append_new(t, tensor(2, "INT32", 4, sd, ss, false));
    json_array_append_new(t, tensor(3, "INT32", 4, td, ts, false));
    json_array_append_new(t, tensor(4, "BFLOAT16", 4, yd, ys, false));
    json_array_append_new(n, bench_node("PagedCacheLoadAttributesExt", json_pack("{s:i,s:i,s:i,s:i}",
        "container_tensor_uid", 1, "seq_len_tensor_uid", 2, "page_table_tensor_uid", 3, "y_tensor_uid", 4)));
    hipdnnBackendDescriptor_t g = bench_graph(t, n), plan = bench_jit_plan(g);
    int32_t *table = malloc((size_t)nblk * 4), *lens = malloc((size_t)B * 4);
    for (int64_t i = 0; i < nblk; i++)
        table[i] = (int32_t)i;
    for (int64_t i = nblk - 1; i > 0; i--) { /* a random order of the pages */
        int64_t j = rand() % (i + 1);
        int32_t v = table[i];
        table[i] = table[j], table[j] = v;
    }
    for (int64_t b = 0; b < B; b++)
        lens[b] = (int32_t)S;
    void *dt, *dl, *bufs[SETS][2];
    CHECK(hipdnnDeviceMalloc_ext(&dt, (size_t)nblk * 4));
    CHECK(hipdnnDeviceMalloc_ext(&dl, (size_t)B * 4));
    CHECK(hipdnnMemcpyHostToDevice_ext(dt, table, (size_t)nblk * 4));
    CHECK(hipdnnMemcpyHostToDevice_ext(dl, lens, (size_t)B * 4));
    hipdnnBackendDescriptor_t packs[SETS];
    size_t elems = (size_t)(B * H * S * D);
    for (int s = 0; s < SETS; s++) {
        bufs[s][0] = bench_random_bf16(elems);
        CHECK(hipdnnDeviceMalloc_ext(&bufs[s][1], elems * 2));
        int64_t uids[4] = {1, 2, 3, 4};
        void *ptrs[4] = {bufs[s][0], dl, dt, bufs[s][1]};
        packs[s] = bench_pack(4, uids, ptrs);
    }
    float ms = bench_median_ms(plan, packs, SETS, 10, REPS);
    printf("%-14s %6lld %6lld %9.4f %8.1f\n", "paged", (long long)R, (long long)C, ms,
           (double)elems * 4 / (ms * 1e-3) / 1e9);
    fflush(stdout);
    for (int s = 0; s < SETS; s++) {
        hipdnnBackendDestroyDescriptor(packs[s]);
        hipdnnDeviceFree_ext(bufs[s][0]), hipdnnDeviceFree_ext(bufs[s][1]);
    }
    hipdnnDeviceFree_ext(dt), hipdnnDeviceFree_ext(dl), free(table), free(lens);
    hipdnnBackendDestroyDescriptor(plan), hipdnnBackendDestroyDescriptor(g);
}

int main(int argc, char **argv)
{
    static const int64_t shapes[][2] = {{16384, 4096}, {8192, 1024}};
    const char *kinds[] = {"mxfp8", "mxfp8_pad", "nvfp4", "rmsnorm_mxfp8", "rmsnorm_nvfp4"};
    bench_init("bench_quant");
    printf("%-14s %6s %6s %9s %8s\n", "case", "rows", "cols", "ms", "GB/s");
    for (size_t k = 0; k < 5; k++)
        for (size_t s = 0; s < 2; s++)
            if (argc < 2 || strstr(argv[1], kinds[k]) != NULL)
                run_quant(kinds[k], shapes[s][0], shapes[s][1]);
    if (argc < 2 || strstr(argv[1], "paged") != NULL)
        run_paged(16 * 8 * 2048, 128);
    hipdnnDestroy(bench_handle);
    return 0;
}
