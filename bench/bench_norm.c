/* bench_norm.c — times fused norm graphs built through the public API and run by the fused JIT
 * engine, and prints achieved bandwidth.
 *
 * Graphs (bf16 I/O, fp32 scale/bias and statistics math):
 *   layernorm        y = LN(x)
 *   rmsnorm          y = RMS(x)
 *   add_rmsnorm      h = x + r (written), y = RMS(h)     (residual stream + norm, one kernel)
 *   rmsnorm_fp8      y = fp8_e4m3(RMS(x) * 4)
 * Bytes counted: each tensor the kernel must read or write once (x, r, y, h; weights and
 * statistics are negligible and not counted). Timing: CUDA events around each launch after
 * warm-up, median of 50, inputs rotated over 4 buffer sets (> L2) so the cache does not serve
 * them. Output: one line per case, "case rows cols ms GB/s", for bench/compare.py; with
 * `--configs` first, one line per JIT config the heuristics rank, its knob choices last; with
 * `--dynamic` (after --configs, if any) the graphs are IS_DYNAMIC_SHAPE_ENABLED (rows as a
 * kernel argument) and each line ends in "dynamic". Arguments after those: KINDS (names to run,
 * e.g. "rmsnorm,layernorm") and ROWS (that shape only, e.g. 16384).
 * Shared plumbing (graph from JSON, plan, packs, timing): bench_util.h.
 */
#include <string.h>

#include "bench_util.h"

#define SETS 4
#define REPS 50

static json_t *tensor(int uid, const char *dt, int64_t r, int64_t c, bool is_virtual)
{
    return json_pack("{s:i, s:s, s:[I,I], s:[I,I], s:b}", "uid", uid, "data_type", dt, "strides",
                     (json_int_t)c, (json_int_t)1, "dims", (json_int_t)r, (json_int_t)c, "virtual", is_virtual);
}

static json_t *scalar(int uid, double v)
{
    return json_pack("{s:i, s:s, s:[i,i], s:[i,i], s:s, s:{s:f}}", "uid", uid, "data_type", "FLOAT",
                     "strides", 1, 1, "dims", 1, 1, "value_type", "Float32Value", "value", "value", v);
}

/* The graph of one case; uids: 1 x, 2 scale, 3 bias, 4 eps, 5 y, 10 r, 11 h, 21 y8. */
static hipdnnBackendDescriptor_t build(const char *kind, int64_t R, int64_t C)
{
    json_t *t = json_array(), *n = json_array();
    bool rms = strcmp(kind, "layernorm") != 0, fp8 = strstr(kind, "fp8") != NULL;
    bool residual = strncmp(kind, "add_", 4) == 0;
    json_array_append_new(t, tensor(1, "BFLOAT16", R, C, false));
    json_array_append_new(t, tensor(2, "FLOAT", 1, C, false));
    json_array_append_new(t, tensor(3, "FLOAT", 1, C, false));
    json_array_append_new(t, scalar(4, 1e-5));
    json_array_append_new(t, tensor(5, fp8 ? "FLOAT" : "BFLOAT16", R, C, fp8));
    int x = 1;
    if (residual) {
        json_array_append_new(t, tensor(10, "BFLOAT16", R, C, false));
        json_array_append_new(t, tensor(11, "BFLOAT16", R, C, false));
        json_array_append_new(n, bench_node("PointwiseAttributes", json_pack("{s:s,s:i,s:i,s:i}", "operation", "ADD",
                                      "in_0_tensor_uid", 1, "in_1_tensor_uid", 10, "out_0_tensor_uid", 11)));
        x = 11;
    }
    if (fp8) {
        json_array_append_new(t, scalar(20, 4.0));
        json_array_append_new(t, tensor(21, "FP8_E4M3", R, C, false));
        json_array_append_new(n, bench_node("PointwiseAttributes", json_pack("{s:s,s:i,s:i,s:i}", "operation", "MUL",
                                      "in_0_tensor_uid", 5, "in_1_tensor_uid", 20, "out_0_tensor_uid", 21)));
    }
    if (rms)
        json_array_append_new(n, bench_node("RMSNormAttributes", json_pack("{s:i,s:i,s:i,s:i,s:s}", "x_tensor_uid", x,
            "scale_tensor_uid", 2, "epsilon_tensor_uid", 4, "y_tensor_uid", 5, "forward_phase", "INFERENCE")));
    else
        json_array_append_new(n, bench_node("LayernormAttributes", json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:s}", "x_tensor_uid", x,
            "scale_tensor_uid", 2, "bias_tensor_uid", 3, "epsilon_tensor_uid", 4, "y_tensor_uid", 5,
            "normalized_dim_count", 1, "forward_phase", "INFERENCE")));
    return bench_graph(t, n);
}

/* Times one graph; with `all_configs`, every JIT config the heuristics rank (one line each, the
 * config's knob choices last), else the first one. */
static void run_case(const char *kind, int64_t R, int64_t C, bool all_configs)
{
    hipdnnBackendDescriptor_t g = build(kind, R, C), plans[16];
    char labels[16][96];
    int n_plans = 0;
    if (!all_configs)
        plans[n_plans++] = bench_jit_plan(g), snprintf(labels[0], sizeof labels[0], "%s", "");
    else
        for (int r = 0; r < 16; r++)
            if ((plans[n_plans] = bench_jit_plan_ranked(g, r, labels[n_plans], sizeof labels[0])) != NULL)
                n_plans++;
    bool residual = strncmp(kind, "add_", 4) == 0, fp8 = strstr(kind, "fp8") != NULL;
    size_t elems = (size_t)(R * C);
    float *w = malloc((size_t)C * 4);
    for (int64_t i = 0; i < C; i++)
        w[i] = 1.0f + (float)rand() / (float)RAND_MAX * 0.1f;
    void *scale, *bias, *bufs[SETS][4];
    CHECK(hipdnnDeviceMalloc_ext(&scale, (size_t)C * 4));
    CHECK(hipdnnDeviceMalloc_ext(&bias, (size_t)C * 4));
    CHECK(hipdnnMemcpyHostToDevice_ext(scale, w, (size_t)C * 4));
    CHECK(hipdnnMemcpyHostToDevice_ext(bias, w, (size_t)C * 4));
    hipdnnBackendDescriptor_t packs[SETS];
    for (int s = 0; s < SETS; s++) { /* x, y, r, h */
        bufs[s][0] = bench_random_bf16(elems), bufs[s][2] = bench_random_bf16(elems);
        CHECK(hipdnnDeviceMalloc_ext(&bufs[s][1], elems * 2));
        CHECK(hipdnnDeviceMalloc_ext(&bufs[s][3], elems * 2));
        int64_t uids[6] = {1, 2, 3, fp8 ? 21 : 5, 10, 11};
        void *ptrs[6] = {bufs[s][0], scale, bias, bufs[s][1], bufs[s][2], bufs[s][3]};
        packs[s] = bench_pack(residual ? 6 : 4, uids, ptrs);
    }
    double bytes = (double)elems * (2 /* x */ + (fp8 ? 1 : 2) /* y */ + (residual ? 4 : 0) /* r, h */);
    for (int p = 0; p < n_plans; p++) {
        float ms = bench_median_ms(plans[p], packs, SETS, 10, REPS);
        printf("%-12s %6lld %6lld %9.4f %8.1f %s%s\n", kind, (long long)R, (long long)C, ms,
               bytes / (ms * 1e-3) / 1e9, labels[p], bench_dynamic ? " dynamic" : "");
        fflush(stdout);
        hipdnnBackendDestroyDescriptor(plans[p]);
    }
    for (int s = 0; s < SETS; s++) {
        hipdnnBackendDestroyDescriptor(packs[s]);
        for (int b = 0; b < 4; b++)
            hipdnnDeviceFree_ext(bufs[s][b]);
    }
    hipdnnDeviceFree_ext(scale), hipdnnDeviceFree_ext(bias), free(w);
    hipdnnBackendDestroyDescriptor(g);
}

int main(int argc, char **argv)
{
    static const int64_t shapes[][2] = {{16384, 4096}, {65536, 4096}, {32768, 8192}, {8192, 1024}};
    const char *kinds[] = {"layernorm", "rmsnorm", "add_rmsnorm", "rmsnorm_fp8"};
    bool all_configs = argc > 1 && strcmp(argv[1], "--configs") == 0;
    if (all_configs)
        argc--, argv++;
    if (argc > 1 && strcmp(argv[1], "--dynamic") == 0)
        bench_dynamic = true, argc--, argv++;
    bench_init("bench_norm");
    printf("%-12s %6s %6s %9s %8s\n", "case", "rows", "cols", "ms", "GB/s");
    int64_t rows = argc > 2 ? atoll(argv[2]) : 0; /* a ROWS argument after KINDS: that shape only */
    for (size_t k = 0; k < 4; k++)
        for (size_t s = 0; s < 4; s++)
            if ((argc < 2 || strstr(argv[1], kinds[k]) != NULL) && (rows == 0 || rows == shapes[s][0]))
                run_case(kinds[k], shapes[s][0], shapes[s][1], all_configs);
    hipdnnDestroy(bench_handle);
    return 0;
}
