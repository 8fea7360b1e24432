/* bench_masks.c — attention forward with mask modifiers on the fused JIT engine: the masks of
 * bench/bench_masks.py (PyTorch's FlexAttention, CUDNN and FLASH on the same problem), so the two
 * tables of one GPU run sit side by side in bench/RESULTS.md.
 *
 * The problem: T tokens packed in N documents (equal lengths, or --uneven: random cuts, seed 0 as
 * bench_masks.py draws them... with C's own generator, so the lengths are printed), H heads, head
 * dim D, bf16, Q/K/V/O [1,H,T,D] contiguous, attention scale 1/sqrt(D). Masks, each a mask
 * modifier sub-graph over the packed sequence (row i = query, column j = key; doc ids INT32
 * tensors [1,1,T,1] and [1,1,1,T] in memory):
 *   document         doc(i) == doc(j)
 *   document+causal  doc(i) == doc(j) and j <= i
 *   prefix-LM        j <= i or j < P
 *   sliding chunk    floor(i/C) − floor(j/C) <= 1 and j <= i
 * and beside them the same kernel without a mask ("none": every pair) and with the causal band
 * ("causal"), the unmasked kernel the masks are measured against; and "document+causal band": the
 * document mask with the causal part as the band attribute (right_bound 0) rather than in the mask.
 * TFLOP/s count the unmasked (i, j) pairs only (4·D FLOPs a pair and head), counted here on the
 * host from the same definitions. Timing: bench_median_ms (events, warm-up, median of REPS, two
 * input sets); each execution includes the block classification launch (the lists are built per
 * execution from the doc-id tensors).
 * Output: "mask ms TFLOP/s pairs" per line, then a markdown table.
 * Usage: bench_masks [--tokens T] [--docs N] [--heads H] [--dim D] [--prefix P] [--chunk C] [--uneven]
 *        [--knob ID=V]... (engine knobs of every plan) [--print-graphs] (the graphs as JSON, no GPU
 *        needed: hipdnn-cache warm takes them)
 */
#include <math.h>
#include <string.h>

#include "bench_util.h"

#define SETS 2
#define REPS 20

typedef enum { M_NONE, M_CAUSAL, M_DOC, M_DOC_CAUSAL, M_PREFIX, M_CHUNK, M_DOC_BAND, M_N } mask_kind;
static const char *const names[M_N] = {"none", "causal", "document", "document+causal", "prefix-LM", "sliding chunk",
                                       "document+causal band"};

static int64_t T = 16384, N = 8, H = 16, D = 128, P = 1024, C = 1024;
static bool uneven;
static int32_t *doc; /* doc id of each token */
#define MAX_KNOBS 8
static const char *knob_ids[MAX_KNOBS]; /* --knob ID=V: engine knobs of every plan */
static int64_t knob_vals[MAX_KNOBS];
static int n_knobs;

enum { U_Q = 1, U_K, U_V, U_O, U_IDX = 100, U_ROW, U_COL, U_DOC_Q, U_DOC_KV, U_T0 = 110, U_P = 130, U_C, U_ONE };

static json_t *t4(int uid, const char *dt, int64_t d0, int64_t d1, int64_t d2, int64_t d3, bool is_virtual)
{
    return json_pack("{s:i, s:s, s:[I,I,I,I], s:[I,I,I,I], s:b}", "uid", uid, "data_type", dt, "dims", (json_int_t)d0,
                     (json_int_t)d1, (json_int_t)d2, (json_int_t)d3, "strides", (json_int_t)(d1 * d2 * d3),
                     (json_int_t)(d2 * d3), (json_int_t)d3, (json_int_t)1, "virtual", is_virtual);
}

static json_t *scores(int uid, const char *dt, bool is_virtual) { return t4(uid, dt, 1, H, T, T, is_virtual); }

static json_t *by_value(int uid, const char *dt, double v)
{
    json_t *t = t4(uid, dt, 1, 1, 1, 1, false);
    bool f = strcmp(dt, "FLOAT") == 0;
    json_object_set_new(t, "value_type", json_string(f ? "Float32Value" : "Int32Value"));
    json_object_set_new(t, "value", f ? json_pack("{s:f}", "value", v) : json_pack("{s:i}", "value", (int)v));
    return t;
}

static json_t *pw(const char *mode, int in0, int in1, int out)
{
    json_t *a = json_pack("{s:s, s:i, s:i}", "operation", mode, "in_0_tensor_uid", in0, "out_0_tensor_uid", out);
    if (in1 > 0)
        json_object_set_new(a, "in_1_tensor_uid", json_integer(in1));
    return bench_node("PointwiseAttributes", a);
}

static json_t *gen_index(int axis, int out)
{
    json_t *a = json_pack("{s:s, s:i, s:i, s:i}", "operation", "GEN_INDEX", "axis_tensor_uid", axis,
                          "in_0_tensor_uid", U_IDX, "out_0_tensor_uid", out);
    return bench_node("PointwiseAttributes", a);
}

/* The mask sub-graph of kind k and its result uid. */
static json_t *mask_graph(mask_kind k, int *result)
{
    json_t *ts = json_array(), *ns = json_array();
    json_array_append_new(ts, scores(U_IDX, "INT32", false));
    const char *idt = k == M_CHUNK ? "FLOAT" : "INT32";
    if (k != M_DOC && k != M_DOC_BAND) {
        json_array_append_new(ts, scores(U_ROW, idt, true));
        json_array_append_new(ts, scores(U_COL, idt, true));
        json_array_append_new(ns, gen_index(2, U_ROW));
        json_array_append_new(ns, gen_index(3, U_COL));
    }
    int t = U_T0;
    if (k == M_DOC || k == M_DOC_CAUSAL || k == M_DOC_BAND) {
        json_array_append_new(ts, t4(U_DOC_Q, "INT32", 1, 1, T, 1, false));
        json_array_append_new(ts, t4(U_DOC_KV, "INT32", 1, 1, 1, T, false));
        json_array_append_new(ts, scores(t, "BOOLEAN", true));
        json_array_append_new(ns, pw("CMP_EQ", U_DOC_Q, U_DOC_KV, t));
        if (k == M_DOC_CAUSAL) {
            json_array_append_new(ts, scores(t + 1, "BOOLEAN", true));
            json_array_append_new(ts, scores(t + 2, "BOOLEAN", true));
            json_array_append_new(ns, pw("CMP_LE", U_COL, U_ROW, t + 1));
            json_array_append_new(ns, pw("LOGICAL_AND", t, t + 1, t + 2));
            t += 2;
        }
    } else if (k == M_PREFIX) {
        json_array_append_new(ts, by_value(U_P, "INT32", (double)P));
        for (int n = 0; n < 3; n++)
            json_array_append_new(ts, scores(t + n, "BOOLEAN", true));
        json_array_append_new(ns, pw("CMP_LE", U_COL, U_ROW, t));
        json_array_append_new(ns, pw("CMP_LT", U_COL, U_P, t + 1));
        json_array_append_new(ns, pw("LOGICAL_OR", t, t + 1, t + 2));
        t += 2;
    } else { /* sliding chunk */
        json_array_append_new(ts, by_value(U_C, "FLOAT", (double)C));
        json_array_append_new(ts, by_value(U_ONE, "FLOAT", 1.0));
        for (int n = 0; n < 8; n++)
            json_array_append_new(ts, scores(t + n, n < 5 ? "FLOAT" : "BOOLEAN", true));
        json_array_append_new(ns, pw("DIV", U_ROW, U_C, t));
        json_array_append_new(ns, pw("FLOOR", t, 0, t + 1));
        json_array_append_new(ns, pw("DIV", U_COL, U_C, t + 2));
        json_array_append_new(ns, pw("FLOOR", t + 2, 0, t + 3));
        json_array_append_new(ns, pw("SUB", t + 1, t + 3, t + 4));
        json_array_append_new(ns, pw("CMP_LE", t + 4, U_ONE, t + 5));
        json_array_append_new(ns, pw("CMP_LE", U_COL, U_ROW, t + 6));
        json_array_append_new(ns, pw("LOGICAL_AND", t + 5, t + 6, t + 7));
        t += 7;
    }
    *result = t;
    return json_pack("{s:s, s:s, s:o, s:o}", "name", names[k], "compute_data_type", "FLOAT", "tensors", ts, "nodes", ns);
}

static json_t *graph_json(mask_kind k)
{
    json_t *ts = json_array();
    for (int uid = U_Q; uid <= U_O; uid++)
        json_array_append_new(ts, t4(uid, "BFLOAT16", 1, H, T, D, false));
    json_t *a = json_pack("{s:i, s:i, s:i, s:i, s:f}", "q_tensor_uid", U_Q, "k_tensor_uid", U_K, "v_tensor_uid", U_V,
                          "o_tensor_uid", U_O, "attn_scale_value", 1.0 / sqrt((double)D));
    if (k == M_CAUSAL || k == M_DOC_BAND)
        json_object_set_new(a, "right_bound", json_integer(0));
    if (k >= M_DOC) {
        int result;
        json_object_set_new(a, "mask_mod_graph", mask_graph(k, &result));
        json_object_set_new(a, "mask_mod_input_uid", json_integer(U_IDX));
        json_object_set_new(a, "mask_mod_output_uid", json_integer(result));
    }
    json_t *nodes = json_array();
    json_array_append_new(nodes, bench_node("SdpaAttributes", a));
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "name", names[k], "compute_data_type", "FLOAT",
                     "intermediate_data_type", "FLOAT", "io_data_type", "BFLOAT16", "tensors", ts, "nodes", nodes);
}

static bool keep(mask_kind k, int64_t i, int64_t j)
{
    switch (k) {
    case M_NONE: return true;
    case M_CAUSAL: return j <= i;
    case M_DOC: return doc[i] == doc[j];
    case M_DOC_CAUSAL: case M_DOC_BAND: return doc[i] == doc[j] && j <= i;
    case M_PREFIX: return j <= i || j < P;
    case M_CHUNK: return i / C - j / C <= 1 && j <= i;
    case M_N: break;
    }
    return false;
}

static double pairs(mask_kind k)
{
    double n = 0;
    for (int64_t i = 0; i < T; i++)
        for (int64_t j = 0; j < T; j++)
            n += keep(k, i, j);
    return n;
}

/* Document lengths: equal, or N - 1 random distinct cuts (a fixed seed). */
static void documents(void)
{
    int64_t *cut = calloc((size_t)N + 1, sizeof *cut);
    doc = calloc((size_t)T, sizeof *doc);
    if (cut == NULL || doc == NULL)
        exit(1);
    srand(0);
    for (int64_t d = 1; d < N; d++) {
        if (!uneven) {
            cut[d] = d * (T / N);
            continue;
        }
        bool fresh;
        do {
            cut[d] = 1 + rand() % (T - 1), fresh = true;
            for (int64_t e = 1; e < d; e++)
                fresh = fresh && cut[e] != cut[d];
        } while (!fresh);
    }
    cut[N] = T;
    for (int64_t a = 1; a < N; a++) /* sort the cuts */
        for (int64_t b = a; b > 1 && cut[b - 1] > cut[b]; b--) {
            int64_t x = cut[b];
            cut[b] = cut[b - 1], cut[b - 1] = x;
        }
    printf("# documents:");
    for (int64_t d = 0; d < N; d++) {
        printf(" %lld", (long long)(cut[d + 1] - cut[d]));
        for (int64_t t = cut[d]; t < cut[d + 1]; t++)
            doc[t] = (int32_t)d;
    }
    printf("\n");
    free(cut);
}

static int64_t arg(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "bench_masks: %s needs a value\n", argv[*i]);
        exit(2);
    }
    return atoll(argv[++*i]);
}

int main(int argc, char **argv)
{
    bool print = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tokens") == 0)
            T = arg(argc, argv, &i);
        else if (strcmp(argv[i], "--docs") == 0)
            N = arg(argc, argv, &i);
        else if (strcmp(argv[i], "--heads") == 0)
            H = arg(argc, argv, &i);
        else if (strcmp(argv[i], "--dim") == 0)
            D = arg(argc, argv, &i);
        else if (strcmp(argv[i], "--prefix") == 0)
            P = arg(argc, argv, &i);
        else if (strcmp(argv[i], "--chunk") == 0)
            C = arg(argc, argv, &i);
        else if (strcmp(argv[i], "--uneven") == 0)
            uneven = true;
        else if (strcmp(argv[i], "--print-graphs") == 0)
            print = true;
        else if (strcmp(argv[i], "--knob") == 0 && i + 1 < argc && n_knobs < MAX_KNOBS && strchr(argv[i + 1], '=')) {
            char *eq = strchr(argv[++i], '=');
            *eq = '\0';
            knob_ids[n_knobs] = argv[i], knob_vals[n_knobs++] = atoll(eq + 1);
        }
        else {
            fprintf(stderr, "usage: bench_masks [--tokens T] [--docs N] [--heads H] [--dim D] [--prefix P] "
                            "[--chunk C] [--uneven] [--knob ID=V]... [--print-graphs]\n");
            return 2;
        }
    }
    if (T < 2 || N < 1 || N > T || H < 1 || D < 8 || P < 0 || C < 1) {
        fprintf(stderr, "bench_masks: sizes out of range\n");
        return 2;
    }
    documents();
    if (print) {
        for (int k = 0; k < M_N; k++) {
            json_t *g = graph_json((mask_kind)k);
            char *s = json_dumps(g, JSON_COMPACT);
            printf("%s\n", s);
            free(s);
            json_decref(g);
        }
        return 0;
    }
    bench_init("bench_masks");
    size_t n = (size_t)(H * T * D);
    void *bufs[SETS][6];
    int64_t uids[6] = {U_Q, U_K, U_V, U_O, U_DOC_Q, U_DOC_KV};
    for (int s = 0; s < SETS; s++) {
        for (int i = 0; i < 4; i++)
            bufs[s][i] = bench_random_bf16(n);
        for (int i = 4; i < 6; i++) {
            CHECK(hipdnnDeviceMalloc_ext(&bufs[s][i], (size_t)T * sizeof *doc));
            CHECK(hipdnnMemcpyHostToDevice_ext(bufs[s][i], doc, (size_t)T * sizeof *doc));
        }
    }
    double tf[M_N];
    float ms[M_N];
    for (int k = 0; k < M_N; k++) {
        json_t *g = graph_json((mask_kind)k);
        hipdnnBackendDescriptor_t graph = bench_graph(json_incref(json_object_get(g, "tensors")),
                                                      json_incref(json_object_get(g, "nodes")));
        json_decref(g);
        hipdnnBackendDescriptor_t plan = bench_jit_plan_with(graph, n_knobs, knob_ids, knob_vals);
        int n_t = k == M_DOC || k == M_DOC_CAUSAL || k == M_DOC_BAND ? 6 : 4;
        ms[k] = bench_plan_ms(plan, n_t, uids, &bufs[0][0], 6, SETS, 3, REPS);
        double p = pairs((mask_kind)k);
        tf[k] = 4.0 * (double)D * p * (double)H / (ms[k] * 1e-3) / 1e12;
        printf("%s %.4f %.1f %.0f\n", names[k], ms[k], tf[k], p);
        fflush(stdout);
        hipdnnBackendDestroyDescriptor(plan);
        hipdnnBackendDestroyDescriptor(graph);
    }
    printf("\n| mask | implementation | ms | TFLOP/s (unmasked pairs) | %% of 790 |\n|---|---|---:|---:|---:|\n");
    for (int k = 0; k < M_N; k++)
        printf("| %s | hipdnn-jit | %.3f | %.0f | %.0f%% |\n", names[k], ms[k], tf[k], 100 * tf[k] / 790);
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < 6; i++)
            hipdnnDeviceFree_ext(bufs[s][i]);
    free(doc);
    return 0;
}
