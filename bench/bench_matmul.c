/* bench_matmul.c — times the fused matmul + bias + GELU graph built through the public API and
 * run by the fused JIT engine (kernel_templates/matmul_sm90.hip on an H100/H200, matmul.hip
 * elsewhere), and prints TFLOP/s.
 *
 * Usage: bench_matmul [SIZE] [plain] [--dynamic] [KNOB=VALUE ...]  — SIZE (4096 or 8192) runs
 * one size; --dynamic builds the graphs with IS_DYNAMIC_SHAPE_ENABLED (M and the batch as
 * kernel arguments; "dynamic" ends the config column);
 * `plain` times the matmul alone (y = A · B in bf16, case mm_plain), to separate the epilogue's
 * cost; KNOB=VALUE pairs (e.g. jit.matmul_tile_n=128) choose engine knobs (the 7th column).
 * Graph: y [1, M, N] bf16 = GELU(A [1, M, K] · B [1, K, N] + bias [1, 1, N]), bf16 operands, fp32
 * accumulation, A and B row-major. Flops counted: 2·M·N·K (the epilogue is not counted).
 * Timing: CUDA events around each execute after warm-up, median of REPS, inputs rotated over
 * SETS buffer sets (each larger than L2). Output: one line per case, "case M N K ms TFLOP/s",
 * for bench/compare_matmul.py. Shared plumbing (graph from JSON, plan, packs, timing):
 * bench_util.h.
 */
#include <string.h>

#include "bench_util.h"

#define SETS 2
#define REPS 30

static json_t *tensor(int uid, const char *dt, int64_t d0, int64_t d1, int64_t d2, bool is_virtual)
{
    return json_pack("{s:i, s:s, s:[I,I,I], s:[I,I,I], s:b}", "uid", uid, "data_type", dt, "strides",
                     (json_int_t)(d1 * d2), (json_int_t)d2, (json_int_t)1, "dims", (json_int_t)d0,
                     (json_int_t)d1, (json_int_t)d2, "virtual", is_virtual);
}

/* uids: 1 a, 2 b, 3 c (virtual fp32), 4 bias, 5 c + bias (virtual), 6 y. */
static hipdnnBackendDescriptor_t build(int64_t M, int64_t N, int64_t K, bool plain)
{
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, tensor(1, "BFLOAT16", 1, M, K, false));
    json_array_append_new(t, tensor(2, "BFLOAT16", 1, K, N, false));
    if (plain) { /* y = A · B stored as bf16: uid 6 is the matmul's output */
        json_array_append_new(t, tensor(6, "BFLOAT16", 1, M, N, false));
        json_array_append_new(n, bench_node("MatmulAttributes", json_pack("{s:i,s:i,s:i}", "a_tensor_uid", 1,
                                      "b_tensor_uid", 2, "c_tensor_uid", 6)));
        return bench_graph(t, n);
    }
    json_array_append_new(t, tensor(3, "FLOAT", 1, M, N, true));
    json_array_append_new(t, tensor(4, "BFLOAT16", 1, 1, N, false));
    json_array_append_new(t, tensor(5, "FLOAT", 1, M, N, true));
    json_array_append_new(t, tensor(6, "BFLOAT16", 1, M, N, false));
    json_array_append_new(n, bench_node("MatmulAttributes", json_pack("{s:i,s:i,s:i}", "a_tensor_uid", 1,
                                  "b_tensor_uid", 2, "c_tensor_uid", 3)));
    json_array_append_new(n, bench_node("PointwiseAttributes", json_pack("{s:s,s:i,s:i,s:i}", "operation", "ADD",
                                  "in_0_tensor_uid", 3, "in_1_tensor_uid", 4, "out_0_tensor_uid", 5)));
    json_array_append_new(n, bench_node("PointwiseAttributes", json_pack("{s:s,s:i,s:i}", "operation", "GELU_FWD",
                                  "in_0_tensor_uid", 5, "out_0_tensor_uid", 6)));
    return bench_graph(t, n);
}

typedef struct knobs {
    int n;
    const char *ids[8];
    int64_t values[8];
    char label[256]; /* "default" or "id=value,..." */
} knobs;

static void run_case(int64_t M, int64_t N, int64_t K, bool plain, const knobs *kn)
{
    hipdnnBackendDescriptor_t g = build(M, N, K, plain), plan = bench_jit_plan_with(g, kn->n, kn->ids, kn->values);
    void *bias = bench_random_bf16((size_t)N), *bufs[SETS][3];
    hipdnnBackendDescriptor_t packs[SETS];
    for (int s = 0; s < SETS; s++) {
        size_t elems[3] = {(size_t)(M * K), (size_t)(K * N), (size_t)(M * N)};
        for (int b = 0; b < 3; b++)
            bufs[s][b] = bench_random_bf16(elems[b]);
        int64_t uids[4] = {1, 2, 6, 4};
        void *ptrs[4] = {bufs[s][0], bufs[s][1], bufs[s][2], bias};
        packs[s] = bench_pack(plain ? 3 : 4, uids, ptrs);
    }
    float ms = bench_median_ms(plan, packs, SETS, 5, REPS);
    double flops = 2.0 * (double)M * (double)N * (double)K;
    printf("%-14s %6lld %6lld %6lld %9.4f %8.1f %s\n", plain ? "mm_plain" : "mm_bias_gelu", (long long)M,
           (long long)N, (long long)K, ms, flops / (ms * 1e-3) / 1e12, kn->label);
    fflush(stdout);
    for (int s = 0; s < SETS; s++) {
        hipdnnBackendDestroyDescriptor(packs[s]);
        for (int b = 0; b < 3; b++)
            hipdnnDeviceFree_ext(bufs[s][b]);
    }
    hipdnnDeviceFree_ext(bias);
    hipdnnBackendDestroyDescriptor(plan), hipdnnBackendDestroyDescriptor(g);
}

int main(int argc, char **argv)
{
    static const int64_t sizes[] = {4096, 8192};
    int64_t only = 0;
    bool plain = false;
    knobs kn = {.label = "default"};
    size_t used = 0;
    for (int i = 1; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (strcmp(argv[i], "plain") == 0) {
            plain = true;
        } else if (strcmp(argv[i], "--dynamic") == 0) {
            bench_dynamic = true;
        } else if (eq != NULL && kn.n < 8) {
            static char ids[8][64];
            snprintf(ids[kn.n], sizeof ids[kn.n], "%.*s", (int)(eq - argv[i]), argv[i]);
            kn.ids[kn.n] = ids[kn.n], kn.values[kn.n] = atoll(eq + 1);
            used += (size_t)snprintf(kn.label + used, sizeof kn.label - used, "%s%s", kn.n ? "," : "",
                                     argv[i] + 4 * (strncmp(argv[i], "jit.", 4) == 0));
            kn.n++;
        } else {
            only = atoll(argv[i]);
        }
    }
    if (bench_dynamic)
        snprintf(kn.label + used, sizeof kn.label - used, "%sdynamic", kn.n ? "," : "");
    bench_init("bench_matmul");
    printf("%-14s %6s %6s %6s %9s %8s %s\n", "case", "M", "N", "K", "ms", "TFLOP/s", "config");
    for (size_t s = 0; s < 2; s++)
        if (only == 0 || only == sizes[s])
            run_case(sizes[s], sizes[s], sizes[s], plain, &kn);
    hipdnnDestroy(bench_handle);
    return 0;
}
