/* bench_attention.c — forward attention (SDPA_FWD) throughput of the fused JIT engine.
 *
 * Shapes (B, H, S, D), bf16, [b,s,h,d] memory (what PyTorch's SDPA gets from a transpose of
 * [b,s,h,d] activations), Sq = Skv = S, attention scale 1/sqrt(D), no stats; each shape without
 * and with a causal mask; each under the default tile shape and the tile knobs listed in
 * `configs`. FLOPs (FlashAttention-2 convention): 4·B·H·S·S·D, halved for causal.
 * Timing: bench_median_ms (events, warm-up, median of REPS, inputs rotated over SETS sets).
 * Output: "B H S D causal config ms TFLOP/s" per line, for bench/compare_attention.py.
 * Usage: bench_attention [B H S D]  (no arguments: the standard list)
 */
#include <math.h>
#include <string.h>

#include "bench_util.h"

#define SETS 2
#define REPS 20

static const char *const knob_ids[] = {"jit.sdpa_block_m", "jit.sdpa_block_n", "jit.sdpa_warps", "jit.sdpa_stages",
                                       "jit.sdpa_wgmma", "jit.sdpa_ws"};
/* Tile shapes tried beside the default (rows, keys, warps, stages, wgmma on sm_90, loading
 * warpgroup); bench/NOTES.md has the others measured. */
static const int64_t configs[][6] = {{128, 128, 8, 2, 1, 1}, {128, 128, 8, 3, 1, 1}, {128, 64, 8, 3, 1, 1},
                                     {64, 64, 4, 3, 1, 1}};
#define N_KNOBS 6

static json_t *bshd(int uid, int64_t b, int64_t h, int64_t s, int64_t d)
{
    return json_pack("{s:i, s:s, s:[I,I,I,I], s:[I,I,I,I], s:b}", "uid", uid, "data_type", "BFLOAT16",
                     "dims", (json_int_t)b, (json_int_t)h, (json_int_t)s, (json_int_t)d, "strides",
                     (json_int_t)(s * h * d), (json_int_t)d, (json_int_t)(h * d), (json_int_t)1, "virtual", 0);
}

static hipdnnBackendDescriptor_t attention_graph(int64_t B, int64_t H, int64_t S, int64_t D, bool causal)
{
    json_t *ts = json_array();
    for (int uid = 1; uid <= 4; uid++)
        json_array_append_new(ts, bshd(uid, B, H, S, D));
    json_t *a = json_pack("{s:i, s:i, s:i, s:i, s:f}", "q_tensor_uid", 1, "k_tensor_uid", 2, "v_tensor_uid", 3,
                          "o_tensor_uid", 4, "attn_scale_value", 1.0 / sqrt((double)D));
    if (causal)
        json_object_set_new(a, "right_bound", json_integer(0));
    json_t *nodes = json_array();
    json_array_append_new(nodes, bench_node("SdpaAttributes", a));
    return bench_graph(ts, nodes);
}

static void run_shape(int64_t B, int64_t H, int64_t S, int64_t D)
{
    size_t n = (size_t)(B * H * S * D);
    void *bufs[SETS][4];
    int64_t uids[4] = {1, 2, 3, 4};
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < 4; i++)
            bufs[s][i] = bench_random_bf16(n);
    for (int causal = 0; causal < 2; causal++) {
        hipdnnBackendDescriptor_t g = attention_graph(B, H, S, D, causal);
        double flops = 4.0 * (double)B * (double)H * (double)S * (double)S * (double)D / (causal ? 2 : 1);
        int n_cfg = (int)(sizeof configs / sizeof configs[0]);
        for (int c = -1; c < n_cfg; c++) {
            hipdnnBackendDescriptor_t plan = c < 0 ? bench_jit_plan_with(g, 0, NULL, NULL)
                                                   : bench_jit_plan_with(g, N_KNOBS, knob_ids, configs[c]);
            char label[48] = "default";
            if (c >= 0)
                snprintf(label, sizeof label, "%lld/%lld/%lld/%lld/%s", (long long)configs[c][0],
                         (long long)configs[c][1], (long long)configs[c][2], (long long)configs[c][3],
                         configs[c][5] ? "ws" : configs[c][4] ? "wgmma" : "mma");
            hipdnnBackendDescriptor_t packs[SETS];
            for (int s = 0; s < SETS; s++)
                packs[s] = bench_pack(4, uids, bufs[s]);
            float ms = bench_median_ms(plan, packs, SETS, 3, REPS);
            printf("%lld %lld %lld %lld %d %s %.4f %.1f\n", (long long)B, (long long)H, (long long)S,
                   (long long)D, causal, label, ms, flops / (ms * 1e-3) / 1e12);
            fflush(stdout);
            for (int s = 0; s < SETS; s++)
                hipdnnBackendDestroyDescriptor(packs[s]);
            hipdnnBackendDestroyDescriptor(plan);
        }
        hipdnnBackendDestroyDescriptor(g);
    }
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < 4; i++)
            hipdnnDeviceFree_ext(bufs[s][i]);
}

int main(int argc, char **argv)
{
    static const int64_t shapes[][4] = {{16, 16, 1024, 64}, {8, 16, 2048, 128}, {4, 16, 4096, 128},
                                        {2, 16, 8192, 128}, {1, 32, 16384, 128}, {4, 32, 4096, 64}};
    bench_init("bench_attention");
    printf("# B H S D causal config ms TFLOP/s\n");
    if (argc == 5)
        run_shape(atoll(argv[1]), atoll(argv[2]), atoll(argv[3]), atoll(argv[4]));
    else
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            run_shape(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
    hipdnnDestroy(bench_handle);
    return 0;
}
