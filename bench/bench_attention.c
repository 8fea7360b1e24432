/* bench_attention.c — attention throughput of the fused JIT engine: forward (SDPA_FWD), or with
 * --backward the backward (SDPA_BWD, its O and Stats made by one forward run first).
 *
 * Shapes (B, H, S, D), bf16, [b,s,h,d] memory (what PyTorch's SDPA gets from a transpose of
 * [b,s,h,d] activations), Sq = Skv = S, attention scale 1/sqrt(D), no stats; each shape without
 * and with a causal mask; each under the default tile shape and the tile knobs listed in
 * `configs`. FLOPs (FlashAttention-2 convention): 4·B·H·S·S·D, halved for causal.
 * Timing: bench_median_ms (events, warm-up, median of REPS, inputs rotated over SETS sets).
 * Backward: FLOPs 2.5x the forward's (10·B·H·S·S·D, halved for causal); configs "default"
 * (wgmma on sm_90 at head dims 64 and 128, dQ accumulated in the dK/dV pass), "mma" (jit.sdpa_wgmma
 * 0: the mma.sync products), "dq_pass" (jit.sdpa_bwd_atomic 1: the deterministic dQ pass), and
 * "bm64" (jit.sdpa_block_m 64: the wgmma passes' 64-row inner tiles, the default at head dim
 * 128; head dim 64 takes 128) and "w4" (jit.sdpa_warps 4: one warpgroup a wgmma block).
 * Output: "B H S D causal config ms TFLOP/s" per line, for bench/compare_attention.py.
 * Decode (--decode): Q [B,32,Sq,128] against a K/V cache of 8 heads (GQA 32:8), bf16, no mask,
 * Sq 1, 4, 16, B·Skv = 131072 or 262144 tokens (at least 0.5 GB of K/V: no L2 reuse between
 * the rotated sets); dense K/V in [b,s,h,d] memory, or paged (containers [blocks,8,64,128], page
 * tables a random permutation — in order with BENCH_PAGES=ordered in the environment, to tell the
 * cost of the scattered pages from the kernel's —, sequence lengths in memory; BENCH_LENS=1 gives the
 * dense graph those lengths too, to tell the padding mask's cost from the pages'; BENCH_PAGE_LAYOUT=token
 * lays each page out token-major, [64 tokens][8 heads][128] as vLLM's cache does, through the
 * containers' strides, where the default is cuDNN's head-major [8 heads][64][128]). Counted: the K/V bytes read once,
 * 2·B·Skv·8·128·2. Configs beside the default: no split, the TMA producer (jit.sdpa_ws 2) with 3
 * or 4 stages or 128-key tiles, packing off.
 * Output: "B Hq Hk Sq Skv D paged config ms TB/s" per line.
 * Softcap (--softcap): each non-causal forward row also with a softcap score modifier c·tanh(S/c),
 * c = 50 (config "softcap"; a modifier excludes the causal mask), to report its cost as a ratio to
 * the unmodified default kernel.
 * FP8 (--fp8): at the D=128 shapes (or the one given), non-causal and causal, our bf16 default
 * ("bf16_default"), then FP8 attention with Q, K, V and O in E4M3 ([b,s,h,d]) and the six factors
 * in memory ("fp8_e4m3"; "fp8_e4m3+amax" with the AMAX_S / AMAX_O outputs), FLOPs as above; the
 * same output lines.
 * Usage: bench_attention [--backward | --decode | --softcap | --fp8] [--default] [--knobs ID=V,ID=V ...]... [B H S D]
 *        (--decode: [B Sq Skv]; no sizes: the standard list; --default: the default config only, as
 *        bench/suite.sh runs it; each --knobs adds a config of engine knobs, labelled by its text,
 *        run beside the default in place of the built-in ones: forward (with --softcap on the
 *        softcap graph), decode and backward)
 */
#include <math.h>
#include <string.h>

#include "bench_util.h"

#define SETS 2
#define REPS 20

static const char *const knob_ids[] = {"jit.sdpa_block_m", "jit.sdpa_block_n", "jit.sdpa_warps", "jit.sdpa_stages",
                                       "jit.sdpa_wgmma", "jit.sdpa_ws", "jit.sdpa_pingpong", "jit.sdpa_intra",
                                       "jit.sdpa_persist"};
/* Tile shapes tried beside the default (rows, keys, warps, stages, wgmma on sm_90, loaders: 1
 * cp.async warpgroup, 2 TMA (a warp), 4 TMA (a warpgroup, setmaxnreg), 3 the computing warps; the
 * two warpgroups taking turns: 2 yes ("+pp"); FlashAttention-3's order, softmax(t) under
 * P·V(t - 1): 2 yes ("+intra"); the persistent grid: 2 yes ("+p"));
 * bench/NOTES.md has the others measured. */
static const int64_t configs[][9] = {{128, 128, 8, 2, 1, 3, 0, 0, 0}, {128, 128, 8, 3, 1, 2, 0, 0, 2},
                                     {128, 128, 8, 3, 1, 2, 2, 2, 0}, {128, 128, 8, 3, 1, 4, 0, 0, 0},
                                     {128, 128, 8, 3, 1, 4, 0, 2, 0}, {128, 128, 8, 3, 1, 4, 2, 2, 0},
                                     {128, 128, 8, 3, 1, 4, 2, 2, 2}, {64, 64, 4, 2, 1, 3, 0, 0, 0},
                                     {64, 64, 4, 2, 0, 0, 0, 0, 0}};
#define N_KNOBS 9

static bool default_only; /* --default: skip the tile shapes of `configs` */

/* Configs from the command line (--knobs "jit.sdpa_ws=4,jit.sdpa_intra=2"). */
#define MAX_USER 8
#define MAX_USER_KNOBS 12
typedef struct user_cfg {
    const char *label;                /* the option's text */
    int n;
    char ids[MAX_USER_KNOBS][48];
    const char *id_ptrs[MAX_USER_KNOBS];
    int64_t vals[MAX_USER_KNOBS];
} user_cfg;
static user_cfg users[MAX_USER];
static int n_users;

/* One --knobs argument into users[n_users]; exits with a message on a malformed one. */
static void parse_knobs(const char *spec)
{
    if (n_users == MAX_USER) {
        fprintf(stderr, "bench_attention: at most %d --knobs\n", MAX_USER);
        exit(2);
    }
    user_cfg *u = &users[n_users++];
    *u = (user_cfg){.label = spec};
    for (const char *p = spec; *p != '\0';) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        end = end != NULL ? end : p + strlen(p);
        if (eq == NULL || eq > end || eq - p >= 48 || u->n == MAX_USER_KNOBS) {
            fprintf(stderr, "bench_attention: --knobs wants ID=V[,ID=V]..., got \"%s\"\n", spec);
            exit(2);
        }
        memcpy(u->ids[u->n], p, (size_t)(eq - p));
        u->ids[u->n][eq - p] = '\0';
        u->id_ptrs[u->n] = u->ids[u->n];
        u->vals[u->n++] = strtoll(eq + 1, NULL, 10);
        p = *end == ',' ? end + 1 : end;
    }
}
static bool softcap;      /* --softcap: a softcap score modifier (c = 50) on every graph */

/* The score modifier graph c·tanh(S/c), c = 50 by value (examples/graphs/sdpa_softcap.json's). */
static json_t *softcap_graph(int64_t B, int64_t H, int64_t S)
{
    json_t *ts = json_array(), *nodes = json_array();
    for (int uid = 100; uid <= 103; uid++)
        json_array_append_new(ts, json_pack("{s:i, s:s, s:[I,I,I,I], s:[I,I,I,I], s:b}", "uid", uid, "data_type",
                                            "FLOAT", "dims", (json_int_t)B, (json_int_t)H, (json_int_t)S,
                                            (json_int_t)S, "strides", (json_int_t)(H * S * S), (json_int_t)(S * S),
                                            (json_int_t)S, (json_int_t)1, "virtual", uid > 100));
    json_array_append_new(ts, json_pack("{s:i, s:s, s:[i,i,i,i], s:[i,i,i,i], s:s, s:{s:f}}", "uid", 104, "data_type",
                                        "FLOAT", "dims", 1, 1, 1, 1, "strides", 1, 1, 1, 1, "value_type",
                                        "Float32Value", "value", "value", 50.0));
    const char *ops[3] = {"DIV", "TANH_FWD", "MUL"};
    int in0[3] = {100, 101, 102}, in1[3] = {104, -1, 104};
    for (int i = 0; i < 3; i++) {
        json_t *a = json_pack("{s:s, s:i, s:i}", "operation", ops[i], "in_0_tensor_uid", in0[i], "out_0_tensor_uid",
                              101 + i);
        if (in1[i] >= 0)
            json_object_set_new(a, "in_1_tensor_uid", json_integer(in1[i]));
        json_t *n = bench_node("PointwiseAttributes", a);
        json_object_set_new(n, "name", json_string(ops[i]));
        json_array_append_new(nodes, n);
    }
    return json_pack("{s:s, s:s, s:o, s:o}", "name", "softcap_50", "compute_data_type", "FLOAT", "tensors", ts,
                     "nodes", nodes);
}

static json_t *bshd(int uid, int64_t b, int64_t h, int64_t s, int64_t d)
{
    return json_pack("{s:i, s:s, s:[I,I,I,I], s:[I,I,I,I], s:b}", "uid", uid, "data_type", "BFLOAT16",
                     "dims", (json_int_t)b, (json_int_t)h, (json_int_t)s, (json_int_t)d, "strides",
                     (json_int_t)(s * h * d), (json_int_t)d, (json_int_t)(h * d), (json_int_t)1, "virtual", 0);
}

static hipdnnBackendDescriptor_t attention_graph(int64_t B, int64_t H, int64_t S, int64_t D, bool causal, bool mod)
{
    json_t *ts = json_array();
    for (int uid = 1; uid <= 4; uid++)
        json_array_append_new(ts, bshd(uid, B, H, S, D));
    json_t *a = json_pack("{s:i, s:i, s:i, s:i, s:f}", "q_tensor_uid", 1, "k_tensor_uid", 2, "v_tensor_uid", 3,
                          "o_tensor_uid", 4, "attn_scale_value", 1.0 / sqrt((double)D));
    if (causal)
        json_object_set_new(a, "right_bound", json_integer(0));
    if (mod) {
        json_object_set_new(a, "score_mod_graph", softcap_graph(B, H, S));
        json_object_set_new(a, "score_mod_input_uid", json_integer(100));
        json_object_set_new(a, "score_mod_output_uid", json_integer(103));
    }
    json_t *nodes = json_array();
    json_array_append_new(nodes, bench_node("SdpaAttributes", a));
    return bench_graph(ts, nodes);
}

/* ---- backward ---- */

enum { B_Q = 1, B_K, B_V, B_O, B_DO, B_STATS, B_DQ, B_DK, B_DV, B_N = 9 };

static json_t *stats_tensor(int64_t B, int64_t H, int64_t S)
{
    return json_pack("{s:i, s:s, s:[I,I,I,I], s:[I,I,I,I], s:b}", "uid", B_STATS, "data_type", "FLOAT", "dims",
                     (json_int_t)B, (json_int_t)H, (json_int_t)S, (json_int_t)1, "strides", (json_int_t)(H * S),
                     (json_int_t)S, (json_int_t)1, (json_int_t)1, "virtual", 0);
}

/* The forward with Stats (backward = false) or the backward over the same tensors. */
static hipdnnBackendDescriptor_t bwd_graph(int64_t B, int64_t H, int64_t S, int64_t D, bool causal, bool backward)
{
    json_t *ts = json_array();
    for (int uid = B_Q; uid <= (backward ? B_DV : B_O); uid++)
        if (uid != B_STATS && (backward || uid != B_DO))
            json_array_append_new(ts, bshd(uid, B, H, S, D));
    json_array_append_new(ts, stats_tensor(B, H, S));
    json_t *a = json_pack("{s:i, s:i, s:i, s:i, s:i, s:f}", "q_tensor_uid", B_Q, "k_tensor_uid", B_K, "v_tensor_uid",
                          B_V, "o_tensor_uid", B_O, "stats_tensor_uid", B_STATS, "attn_scale_value", 1.0 / sqrt((double)D));
    if (backward) {
        json_object_set_new(a, "do_tensor_uid", json_integer(B_DO));
        json_object_set_new(a, "dq_tensor_uid", json_integer(B_DQ));
        json_object_set_new(a, "dk_tensor_uid", json_integer(B_DK));
        json_object_set_new(a, "dv_tensor_uid", json_integer(B_DV));
    } else {
        json_object_set_new(a, "generate_stats", json_true());
    }
    if (causal)
        json_object_set_new(a, "right_bound", json_integer(0));
    json_t *nodes = json_array();
    json_array_append_new(nodes, bench_node(backward ? "SdpaBackwardAttributes" : "SdpaAttributes", a));
    return bench_graph(ts, nodes);
}

static void run_backward(int64_t B, int64_t H, int64_t S, int64_t D)
{
    /* beside the default: the mma.sync products (what sm_90 ran before wgmma), the deterministic dQ
     * pass, 64-row inner tiles, one warpgroup a block */
    static const char *const ids[] = {"jit.sdpa_bwd_atomic", "jit.sdpa_wgmma", "jit.sdpa_block_m", "jit.sdpa_warps"};
    static const int64_t alt[][4] = {{0, 0, 0, 0}, {1, 1, 0, 0}, {0, 1, 64, 0}, {0, 1, 0, 4}};
    static const char *const names[] = {"default", "mma", "dq_pass", "bm64", "w4"};
    size_t n = (size_t)(B * H * S * D);
    void *bufs[SETS][B_N];
    int64_t uids[B_N];
    for (int i = 0; i < B_N; i++)
        uids[i] = i + 1;
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < B_N; i++)
            bufs[s][i] = bench_random_bf16(i + 1 == B_STATS ? (size_t)(2 * B * H * S) : n);
    for (int causal = 0; causal < 2; causal++) {
        hipdnnBackendDescriptor_t gf = bwd_graph(B, H, S, D, causal, false), gb = bwd_graph(B, H, S, D, causal, true);
        hipdnnBackendDescriptor_t fwd = bench_jit_plan_with(gf, 0, NULL, NULL);
        for (int s = 0; s < SETS; s++) { /* O and Stats of each set's Q, K, V */
            int64_t fu[5] = {B_Q, B_K, B_V, B_O, B_STATS};
            void *fp[5] = {bufs[s][0], bufs[s][1], bufs[s][2], bufs[s][3], bufs[s][B_STATS - 1]};
            hipdnnBackendDescriptor_t pack = bench_pack(5, fu, fp);
            bench_median_ms(fwd, &pack, 1, 0, 1);
            hipdnnBackendDestroyDescriptor(pack);
        }
        hipdnnBackendDestroyDescriptor(fwd);
        double flops = 10.0 * (double)B * (double)H * (double)S * (double)S * (double)D / (causal ? 2 : 1);
        int n_cfg = default_only ? 1 : n_users > 0 ? 1 + n_users : 5; /* --knobs: the default and those */
        for (int c = 0; c < n_cfg; c++) {
            const user_cfg *u = n_users > 0 && c > 0 ? &users[c - 1] : NULL;
            hipdnnBackendDescriptor_t plan = u != NULL ? bench_jit_plan_with(gb, u->n, u->id_ptrs, u->vals)
                                             : bench_jit_plan_with(gb, c ? 4 : 0, ids, c ? alt[c - 1] : NULL);
            float ms = bench_plan_ms(plan, B_N, uids, &bufs[0][0], B_N, SETS, 3, REPS);
            printf("%lld %lld %lld %lld %d %s %.4f %.1f\n", (long long)B, (long long)H, (long long)S, (long long)D,
                   causal, u != NULL ? u->label : names[c], ms, flops / (ms * 1e-3) / 1e12);
            fflush(stdout);
            hipdnnBackendDestroyDescriptor(plan);
        }
        hipdnnBackendDestroyDescriptor(gb);
        hipdnnBackendDestroyDescriptor(gf);
    }
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < B_N; i++)
            hipdnnDeviceFree_ext(bufs[s][i]);
}

/* ---- decode ---- */

enum { D_Q = 1, D_K, D_V, D_O, D_PAGE_K, D_PAGE_V, D_SEQ_Q, D_SEQ_KV, D_N = 8 };
#define D_HQ 32
#define D_HK 8
#define D_DIM 128
#define D_BS 64 /* paged block size */

static json_t *dense_tensor(int uid, const char *dt, int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    return json_pack("{s:i, s:s, s:[I,I,I,I], s:[I,I,I,I], s:b}", "uid", uid, "data_type", dt, "dims",
                     (json_int_t)d0, (json_int_t)d1, (json_int_t)d2, (json_int_t)d3, "strides",
                     (json_int_t)(d1 * d2 * d3), (json_int_t)(d2 * d3), (json_int_t)d3, (json_int_t)1, "virtual", 0);
}

/* BENCH_LENS=1: the dense decode graph carries the paged one's sequence lengths (all full), to
 * tell the padding mask's cost from the pages'. */
static bool dense_lens(void)
{
    const char *v = getenv("BENCH_LENS");
    return v != NULL && strcmp(v, "1") == 0;
}

/* BENCH_PAGE_LAYOUT=token: pages token-major (vLLM's [block, 64, H, D]) instead of head-major. */
static bool token_major_pages(void)
{
    const char *v = getenv("BENCH_PAGE_LAYOUT");
    return v != NULL && strcmp(v, "token") == 0;
}

static hipdnnBackendDescriptor_t decode_graph(int64_t B, int64_t Sq, int64_t Skv, bool paged)
{
    json_t *ts = json_array();
    json_array_append_new(ts, bshd(D_Q, B, D_HQ, Sq, D_DIM));
    json_t *a = json_pack("{s:i, s:i, s:i, s:i, s:f}", "q_tensor_uid", D_Q, "k_tensor_uid", D_K, "v_tensor_uid", D_V,
                          "o_tensor_uid", D_O, "attn_scale_value", 1.0 / sqrt((double)D_DIM));
    if (paged) {
        int64_t P = Skv / D_BS;
        for (int uid = D_K; uid <= D_V; uid++) {
            json_t *c = dense_tensor(uid, "BFLOAT16", B * P, D_HK, D_BS, D_DIM);
            if (token_major_pages()) /* strides [bs·H·D, D, H·D, 1]: a page's tokens, each with its 8 heads */
                json_object_set_new(c, "strides", json_pack("[I,I,I,I]", (json_int_t)(D_BS * D_HK * D_DIM),
                                                             (json_int_t)D_DIM, (json_int_t)(D_HK * D_DIM), (json_int_t)1));
            json_array_append_new(ts, c);
        }
        json_array_append_new(ts, dense_tensor(D_PAGE_K, "INT32", B, 1, P, 1));
        json_array_append_new(ts, dense_tensor(D_PAGE_V, "INT32", B, 1, P, 1));
        json_array_append_new(ts, dense_tensor(D_SEQ_Q, "INT32", B, 1, 1, 1));
        json_array_append_new(ts, dense_tensor(D_SEQ_KV, "INT32", B, 1, 1, 1));
        json_object_set_new(a, "page_table_k_tensor_uid", json_integer(D_PAGE_K));
        json_object_set_new(a, "page_table_v_tensor_uid", json_integer(D_PAGE_V));
        json_object_set_new(a, "seq_len_q_tensor_uid", json_integer(D_SEQ_Q));
        json_object_set_new(a, "seq_len_kv_tensor_uid", json_integer(D_SEQ_KV));
        json_object_set_new(a, "padding_mask", json_true());
    } else {
        json_array_append_new(ts, bshd(D_K, B, D_HK, Skv, D_DIM));
        json_array_append_new(ts, bshd(D_V, B, D_HK, Skv, D_DIM));
    }
    if (!paged && dense_lens()) { /* the paged graph's padding mask on dense K/V */
        json_array_append_new(ts, dense_tensor(D_SEQ_Q, "INT32", B, 1, 1, 1));
        json_array_append_new(ts, dense_tensor(D_SEQ_KV, "INT32", B, 1, 1, 1));
        json_object_set_new(a, "seq_len_q_tensor_uid", json_integer(D_SEQ_Q));
        json_object_set_new(a, "seq_len_kv_tensor_uid", json_integer(D_SEQ_KV));
        json_object_set_new(a, "padding_mask", json_true());
    }
    json_array_append_new(ts, bshd(D_O, B, D_HQ, Sq, D_DIM));
    json_t *nodes = json_array();
    json_array_append_new(nodes, bench_node("SdpaAttributes", a));
    return bench_graph(ts, nodes);
}

static void *device_ints(const int *v, size_t n)
{
    void *dev;
    CHECK(hipdnnDeviceMalloc_ext(&dev, n * sizeof *v));
    CHECK(hipdnnMemcpyHostToDevice_ext(dev, v, n * sizeof *v));
    return dev;
}

/* The sequence lengths of a set at bufs[lens], bufs[lens + 1], and with `tables` its page tables
 * (each batch's pages a random permutation of the containers' blocks; in order with
 * BENCH_PAGES=ordered). */
static void paged_meta(int64_t B, int64_t Sq, int64_t Skv, void **bufs, bool tables, int lens)
{
    int64_t P = Skv / D_BS, n = B * P;
    int *perm = malloc((size_t)n * sizeof *perm), seq[2][64];
    for (int64_t i = 0; i < n; i++)
        perm[i] = (int)i;
    const char *order = getenv("BENCH_PAGES");
    for (int64_t i = n - 1; i > 0 && !(order != NULL && strcmp(order, "ordered") == 0); i--) {
        int64_t j = rand() % (i + 1);
        int x = perm[i];
        perm[i] = perm[j], perm[j] = x;
    }
    for (int64_t b = 0; b < B && b < 64; b++)
        seq[0][b] = (int)Sq, seq[1][b] = (int)Skv;
    if (tables) {
        bufs[D_PAGE_K - 1] = device_ints(perm, (size_t)n);
        bufs[D_PAGE_V - 1] = device_ints(perm, (size_t)n);
    }
    bufs[lens] = device_ints(seq[0], (size_t)B);
    bufs[lens + 1] = device_ints(seq[1], (size_t)B);
    free(perm);
}

static void run_decode(int64_t B, int64_t Sq, int64_t Skv)
{
    static const char *const ids[] = {"jit.sdpa_splits", "jit.sdpa_stages", "jit.sdpa_block_n", "jit.sdpa_pack",
                                      "jit.sdpa_ws"};
    static const int64_t alt[][5] = {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 2}, {0, 4, 0, 0, 2},
                                     {0, 2, 128, 0, 2}, {0, 0, 0, 1, 0}};
    static const char *const names[] = {"default", "nosplit", "tma", "tma_s4", "tma_bn128s2", "nopack"};
    size_t nq = (size_t)(B * D_HQ * Sq * D_DIM), nkv = (size_t)(B * D_HK * Skv * D_DIM);
    double bytes = 2.0 * (double)nkv * 2.0;
    for (int paged = 0; paged < 2; paged++) {
        void *bufs[SETS][D_N] = {{0}};
        int64_t uids[D_N];
        int n = paged ? D_N : 4;
        for (int i = 0; i < D_N; i++)
            uids[i] = i + 1;
        const bool lens = paged || dense_lens(); /* dense: the lengths right after Q, K, V, O */
        if (!paged && lens)
            uids[4] = D_SEQ_Q, uids[5] = D_SEQ_KV, n = 6;
        for (int s = 0; s < SETS; s++) {
            bufs[s][D_Q - 1] = bench_random_bf16(nq), bufs[s][D_O - 1] = bench_random_bf16(nq);
            bufs[s][D_K - 1] = bench_random_bf16(nkv), bufs[s][D_V - 1] = bench_random_bf16(nkv);
            if (lens)
                paged_meta(B, Sq, Skv, bufs[s], paged, paged ? D_SEQ_Q - 1 : 4);
        }
        hipdnnBackendDescriptor_t g = decode_graph(B, Sq, Skv, paged);
        int n_cfg = default_only ? 1 : n_users > 0 ? 1 + n_users : 6;
        for (int c = 0; c < n_cfg; c++) {
            const user_cfg *u = n_users > 0 && c > 0 ? &users[c - 1] : NULL;
            hipdnnBackendDescriptor_t plan = u != NULL ? bench_jit_plan_with(g, u->n, u->id_ptrs, u->vals)
                                             : bench_jit_plan_with(g, c ? 5 : 0, ids, c ? alt[c] : NULL);
            float ms = bench_plan_ms(plan, n, uids, &bufs[0][0], D_N, SETS, 3, REPS);
            printf("%lld %d %d %lld %lld %d %d %s %.4f %.3f\n", (long long)B, D_HQ, D_HK, (long long)Sq,
                   (long long)Skv, D_DIM, paged, u != NULL ? u->label : names[c], ms, bytes / (ms * 1e-3) / 1e12);
            fflush(stdout);
            hipdnnBackendDestroyDescriptor(plan);
        }
        hipdnnBackendDestroyDescriptor(g);
        for (int s = 0; s < SETS; s++)
            for (int i = 0; i < D_N; i++)
                if (bufs[s][i] != NULL)
                    hipdnnDeviceFree_ext(bufs[s][i]);
    }
}

/* ---- forward ---- */

static void run_shape(int64_t B, int64_t H, int64_t S, int64_t D)
{
    size_t n = (size_t)(B * H * S * D);
    void *bufs[SETS][4];
    int64_t uids[4] = {1, 2, 3, 4};
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < 4; i++)
            bufs[s][i] = bench_random_bf16(n);
    for (int causal = 0; causal < (softcap ? 1 : 2); causal++) { /* a score modifier excludes the causal mask */
        hipdnnBackendDescriptor_t g = attention_graph(B, H, S, D, causal, false);
        hipdnnBackendDescriptor_t gmod = softcap ? attention_graph(B, H, S, D, causal, true) : NULL;
        double flops = 4.0 * (double)B * (double)H * (double)S * (double)S * (double)D / (causal ? 2 : 1);
        int n_cfg = default_only ? 0 : n_users > 0 ? n_users : (int)(sizeof configs / sizeof configs[0]);
        for (int c = softcap ? -2 : -1; c < n_cfg; c++) {
            const user_cfg *u = n_users > 0 && c >= 0 ? &users[c] : NULL;
            hipdnnBackendDescriptor_t plan = c < 0 ? bench_jit_plan_with(c == -2 ? gmod : g, 0, NULL, NULL)
                                             : u != NULL ? bench_jit_plan_with(softcap ? gmod : g, u->n, u->id_ptrs, u->vals)
                                                         : bench_jit_plan_with(g, N_KNOBS, knob_ids, configs[c]);
            char label[48] = "default";
            if (c == -2)
                snprintf(label, sizeof label, "softcap");
            if (c >= 0 && u == NULL)
                snprintf(label, sizeof label, "%lld/%lld/%lld/%lld/%s%s%s%s", (long long)configs[c][0],
                         (long long)configs[c][1], (long long)configs[c][2], (long long)configs[c][3],
                         configs[c][5] >= 4 ? "tmawg" : configs[c][5] == 2 ? "tma" : configs[c][5] == 1 ? "ws"
                         : configs[c][4] ? "wgmma" : "mma",
                         configs[c][6] == 2 ? "+pp" : "", configs[c][7] == 2 ? "+intra" : "",
                         configs[c][8] == 2 ? "+p" : "");
            hipdnnBackendDescriptor_t packs[SETS];
            for (int s = 0; s < SETS; s++)
                packs[s] = bench_pack(4, uids, bufs[s]);
            float ms = bench_median_ms(plan, packs, SETS, 3, REPS);
            printf("%lld %lld %lld %lld %d %s %.4f %.1f\n", (long long)B, (long long)H, (long long)S,
                   (long long)D, causal, u != NULL ? u->label : label, ms, flops / (ms * 1e-3) / 1e12);
            fflush(stdout);
            for (int s = 0; s < SETS; s++)
                hipdnnBackendDestroyDescriptor(packs[s]);
            hipdnnBackendDestroyDescriptor(plan);
        }
        hipdnnBackendDestroyDescriptor(g);
        if (gmod != NULL)
            hipdnnBackendDestroyDescriptor(gmod);
    }
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < 4; i++)
            hipdnnDeviceFree_ext(bufs[s][i]);
}

/* ---- FP8 (--fp8) ---- */

enum { F_Q = 1, F_K, F_V, F_O, F_DQ, F_DK, F_DV, F_DS, F_SS, F_SO, F_AMAX_S, F_AMAX_O, F_N = 12 };

/* Device memory of n random finite E4M3 values of magnitude 2^-3 .. 2^2 (either sign). */
static void *random_e4m3(size_t n)
{
    unsigned char *h = malloc(n);
    unsigned s = (unsigned)rand() | 1u;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 17, s ^= s << 5;
        h[i] = (unsigned char)((s & 0x80u) | (4u + (s >> 8) % 5u) << 3 | ((s >> 16) & 7u));
    }
    void *dev;
    CHECK(hipdnnDeviceMalloc_ext(&dev, n));
    CHECK(hipdnnMemcpyHostToDevice_ext(dev, h, n));
    free(h);
    return dev;
}

static json_t *f8_tensor(int uid, const char *dt, int64_t b, int64_t h, int64_t s, int64_t d)
{
    return json_pack("{s:i, s:s, s:[I,I,I,I], s:[I,I,I,I], s:b}", "uid", uid, "data_type", dt, "dims", (json_int_t)b,
                     (json_int_t)h, (json_int_t)s, (json_int_t)d, "strides", (json_int_t)(s * h * d), (json_int_t)d,
                     (json_int_t)(h * d), (json_int_t)1, "virtual", 0);
}

/* FP8 attention: Q, K, V, O in E4M3 ([b,s,h,d]), the six factors one-element floats in memory,
 * AMAX_S / AMAX_O when amax. */
static hipdnnBackendDescriptor_t fp8_graph(int64_t B, int64_t H, int64_t S, int64_t D, bool causal, bool amax)
{
    static const char *const keys[] = {"q_tensor_uid", "k_tensor_uid", "v_tensor_uid", "o_tensor_uid",
                                       "descale_q_tensor_uid", "descale_k_tensor_uid", "descale_v_tensor_uid",
                                       "descale_s_tensor_uid", "scale_s_tensor_uid", "scale_o_tensor_uid",
                                       "amax_s_tensor_uid", "amax_o_tensor_uid"};
    json_t *ts = json_array(), *a = json_pack("{s:f}", "attn_scale_value", 1.0 / sqrt((double)D));
    for (int uid = F_Q; uid <= (amax ? F_AMAX_O : F_SO); uid++) {
        json_array_append_new(ts, uid <= F_O ? f8_tensor(uid, "FP8_E4M3", B, H, S, D)
                                             : f8_tensor(uid, "FLOAT", 1, 1, 1, 1));
        json_object_set_new(a, keys[uid - 1], json_integer(uid));
    }
    if (causal)
        json_object_set_new(a, "right_bound", json_integer(0));
    json_t *nodes = json_array();
    json_array_append_new(nodes, bench_node("SdpaAttributes", a));
    return bench_graph(ts, nodes);
}

/* One shape: our bf16 default, then FP8 (E4M3 in and out) without and with the amax outputs, on
 * the same shape in the same run; FLOPs as the bf16 rows count them. */
static void run_fp8(int64_t B, int64_t H, int64_t S, int64_t D)
{
    size_t n = (size_t)(B * H * S * D);
    void *bf[SETS][4], *f8[SETS][F_N];
    const float factors[6] = {1.0f, 1.0f, 1.0f, 1.0f / 448.0f, 448.0f, 1.0f}; /* descale q k v s, scale s o */
    int64_t uids[F_N];
    for (int i = 0; i < F_N; i++)
        uids[i] = i + 1;
    for (int s = 0; s < SETS; s++) {
        for (int i = 0; i < 4; i++)
            bf[s][i] = bench_random_bf16(n), f8[s][i] = random_e4m3(n);
        for (int i = 4; i < F_N; i++) {
            CHECK(hipdnnDeviceMalloc_ext(&f8[s][i], sizeof(float)));
            if (i < 10)
                CHECK(hipdnnMemcpyHostToDevice_ext(f8[s][i], &factors[i - 4], sizeof(float)));
        }
    }
    for (int causal = 0; causal < 2; causal++) {
        double flops = 4.0 * (double)B * (double)H * (double)S * (double)S * (double)D / (causal ? 2 : 1);
        for (int c = 0; c < 3; c++) {
            hipdnnBackendDescriptor_t g = c == 0 ? attention_graph(B, H, S, D, causal, false)
                                                 : fp8_graph(B, H, S, D, causal, c == 2);
            hipdnnBackendDescriptor_t plan = bench_jit_plan_with(g, 0, NULL, NULL);
            float ms = c == 0 ? bench_plan_ms(plan, 4, uids, &bf[0][0], 4, SETS, 3, REPS)
                              : bench_plan_ms(plan, c == 2 ? F_N : F_SO, uids, &f8[0][0], F_N, SETS, 3, REPS);
            static const char *const names[] = {"bf16_default", "fp8_e4m3", "fp8_e4m3+amax"};
            printf("%lld %lld %lld %lld %d %s %.4f %.1f\n", (long long)B, (long long)H, (long long)S, (long long)D,
                   causal, names[c], ms, flops / (ms * 1e-3) / 1e12);
            fflush(stdout);
            hipdnnBackendDestroyDescriptor(plan);
            hipdnnBackendDestroyDescriptor(g);
        }
    }
    for (int s = 0; s < SETS; s++) {
        for (int i = 0; i < 4; i++)
            hipdnnDeviceFree_ext(bf[s][i]);
        for (int i = 0; i < F_N; i++)
            hipdnnDeviceFree_ext(f8[s][i]);
    }
}

int main(int argc, char **argv)
{
    /* the standard list: D=128 at S = 1k .. 16k (the range), D=64, 192 and 256 */
    static const int64_t shapes[][4] = {{16, 16, 1024, 64}, {16, 16, 1024, 128}, {8, 16, 2048, 128},
                                        {4, 16, 4096, 128}, {2, 16, 8192, 128}, {1, 32, 16384, 128},
                                        {4, 32, 4096, 64}, {4, 16, 4096, 192}, {2, 16, 4096, 256}};
    bool backward = argc > 1 && strcmp(argv[1], "--backward") == 0;
    bool decode = argc > 1 && strcmp(argv[1], "--decode") == 0;
    bool fp8 = argc > 1 && strcmp(argv[1], "--fp8") == 0;
    softcap = argc > 1 && strcmp(argv[1], "--softcap") == 0;
    void (*run)(int64_t, int64_t, int64_t, int64_t) = backward ? run_backward : fp8 ? run_fp8 : run_shape;
    argc -= backward || decode || softcap || fp8, argv += backward || decode || softcap || fp8;
    default_only = argc > 1 && strcmp(argv[1], "--default") == 0;
    argc -= default_only, argv += default_only;
    while (argc > 2 && strcmp(argv[1], "--knobs") == 0) {
        parse_knobs(argv[2]);
        argc -= 2, argv += 2;
    }
    bench_init("bench_attention");
    if (decode) { /* (B, Skv) at 131072 and 262144 tokens, each Sq */
        static const int64_t bs[][2] = {{1, 131072}, {4, 32768}, {16, 8192}, {64, 4096}};
        static const int64_t sqs[] = {1, 4, 16};
        printf("# decode: B Hq Hk Sq Skv D paged config ms TB/s(K/V)\n");
        if (argc == 4) /* one shape: B Sq Skv */
            run_decode(atoll(argv[1]), atoll(argv[2]), atoll(argv[3]));
        for (size_t i = 0; argc != 4 && i < sizeof bs / sizeof bs[0]; i++)
            for (size_t q = 0; q < 3; q++)
                run_decode(bs[i][0], sqs[q], bs[i][1]);
        hipdnnDestroy(bench_handle);
        return 0;
    }
    printf("# %s: B H S D causal config ms TFLOP/s\n", backward ? "backward" : fp8 ? "forward fp8" : "forward");
    if (argc == 5)
        run(atoll(argv[1]), atoll(argv[2]), atoll(argv[3]), atoll(argv[4]));
    else
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            if (!fp8 || shapes[i][3] == 128) /* --fp8: the D=128 rows of the bf16 table */
                run(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
    hipdnnDestroy(bench_handle);
    return 0;
}
