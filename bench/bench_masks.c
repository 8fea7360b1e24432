/* bench_masks.c — attention with mask modifiers on the fused JIT engine: the masks of
 * bench/bench_masks.py (PyTorch's FlexAttention, CUDNN and FLASH on the same problem), so the two
 * tables of one GPU run sit side by side in bench/RESULTS.md.
 *
 * The problem: T tokens packed in N documents (equal lengths; --uneven: random cuts from C's own
 * generator, seed 0, printed; --lens A,B,..: the lengths given, e.g. those bench_masks.py --uneven
 * prints), H heads, head dim D, bf16, Q/K/V/O [1,H,T,D] contiguous, attention scale 1/sqrt(D),
 * forward or (--backward) backward. Masks, each a mask
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
 * --backward: the backward (SDPA_BWD: dQ, dK, dV) of each, its O and Stats from one forward run
 * first; FLOPs 2.5x the forward's (10·D a pair and head).
 * Output: "mask ms TFLOP/s pairs" per line, then a markdown table.
 * Usage: bench_masks [--tokens T] [--docs N] [--heads H] [--dim D] [--prefix P] [--chunk C] [--uneven]
 *        [--lens A,B,..] [--backward] [--knob ID=V]... (engine knobs of every plan) [--print-graphs] (the graphs as JSON, no GPU
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
static const char *lens_arg; /* --lens a,b,..: the documents' lengths (summing to T) */
static int32_t *doc; /* doc id of each token */
#define MAX_KNOBS 8
static const char *knob_ids[MAX_KNOBS]; /* --knob ID=V: engine knobs of every plan */
static int64_t knob_vals[MAX_KNOBS];
static int n_knobs;

enum { U_Q = 1, U_K, U_V, U_O, U_STATS, U_DO, U_DQ, U_DK, U_DV, U_IDX = 100, U_ROW, U_COL, U_DOC_Q, U_DOC_KV,
       U_T0 = 110, U_P = 130, U_C, U_ONE };
#define N_BUF 11 /* Q .. dV, the two doc-id tensors */
static const int64_t buf_uids[N_BUF] = {U_Q, U_K, U_V, U_O, U_STATS, U_DO, U_DQ, U_DK, U_DV, U_DOC_Q, U_DOC_KV};

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

/* The forward (with Stats when `stats`), or the backward over the same tensors (`bwd`). */
static json_t *graph_json(mask_kind k, bool stats, bool bwd)
{
    json_t *ts = json_array();
    for (int uid = U_Q; uid <= (bwd ? U_DV : U_O); uid++)
        if (uid != U_STATS)
            json_array_append_new(ts, t4(uid, "BFLOAT16", 1, H, T, D, false));
    if (stats || bwd)
        json_array_append_new(ts, t4(U_STATS, "FLOAT", 1, H, T, 1, false));
    json_t *a = json_pack("{s:i, s:i, s:i, s:i, s:f}", "q_tensor_uid", U_Q, "k_tensor_uid", U_K, "v_tensor_uid", U_V,
                          "o_tensor_uid", U_O, "attn_scale_value", 1.0 / sqrt((double)D));
    if (stats || bwd)
        json_object_set_new(a, "stats_tensor_uid", json_integer(U_STATS));
    if (stats && !bwd)
        json_object_set_new(a, "generate_stats", json_true());
    if (bwd) {
        json_object_set_new(a, "do_tensor_uid", json_integer(U_DO));
        json_object_set_new(a, "dq_tensor_uid", json_integer(U_DQ));
        json_object_set_new(a, "dk_tensor_uid", json_integer(U_DK));
        json_object_set_new(a, "dv_tensor_uid", json_integer(U_DV));
    }
    if (k == M_CAUSAL || k == M_DOC_BAND)
        json_object_set_new(a, "right_bound", json_integer(0));
    if (k >= M_DOC) {
        int result;
        json_object_set_new(a, "mask_mod_graph", mask_graph(k, &result));
        json_object_set_new(a, "mask_mod_input_uid", json_integer(U_IDX));
        json_object_set_new(a, "mask_mod_output_uid", json_integer(result));
    }
    json_t *nodes = json_array();
    json_array_append_new(nodes, bench_node(bwd ? "SdpaBackwardAttributes" : "SdpaAttributes", a));
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
    for (int64_t d = 0, at = 0; lens_arg != NULL && d < N; d++) { /* --lens: the given lengths */
        const char *p = lens_arg;
        for (int64_t e = 0; e < d && p != NULL; e++)
            p = strchr(p, ','), p = p != NULL ? p + 1 : NULL;
        at += p != NULL ? atoll(p) : 0;
        cut[d + 1] = d + 1 < N ? at : T;
    }
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

static hipdnnBackendDescriptor_t graph_of(mask_kind k, bool stats, bool bwd)
{
    json_t *g = graph_json(k, stats, bwd);
    hipdnnBackendDescriptor_t graph = bench_graph(json_incref(json_object_get(g, "tensors")),
                                                  json_incref(json_object_get(g, "nodes")));
    json_decref(g);
    return graph;
}

/* The tensors of a forward (Q, K, V, O, (Stats)) or backward (all nine) and the doc ids. */
static int binding(bool bwd, bool stats, bool docs, int64_t *uids, void **ptrs, void *const *set)
{
    int n = 0;
    for (int i = 0; i < N_BUF; i++) {
        int64_t u = buf_uids[i];
        bool doc_t = u == U_DOC_Q || u == U_DOC_KV;
        if ((doc_t && !docs) || (!doc_t && u > U_O && !bwd && !(stats && u == U_STATS)))
            continue;
        uids[n] = u, ptrs[n++] = set[i];
    }
    return n;
}

/* Median ms of plan over the sets (a forward, or with bwd the backward; docs: the doc ids bound). */
static float timed(hipdnnBackendDescriptor_t plan, bool bwd, bool stats, bool docs, void *(*sets)[N_BUF], int n_sets,
                   int warmup, int reps)
{
    int64_t uids[N_BUF];
    void *ptrs[SETS * N_BUF];
    int n = 0;
    for (int s = 0; s < n_sets; s++)
        n = binding(bwd, stats, docs, uids, ptrs + s * N_BUF, sets[s]);
    return bench_plan_ms(plan, n, uids, ptrs, N_BUF, n_sets, warmup, reps);
}

/* O and Stats of each set, by one forward of mask k. */
static void forward_outputs(mask_kind k, void *bufs[SETS][N_BUF])
{
    bool docs = k == M_DOC || k == M_DOC_CAUSAL || k == M_DOC_BAND;
    hipdnnBackendDescriptor_t g = graph_of(k, true, false), plan = bench_jit_plan_with(g, 0, NULL, NULL);
    for (int s = 0; s < SETS; s++)
        timed(plan, false, true, docs, &bufs[s], 1, 0, 1);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(g);
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
    bool print = false, backward = false;
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
        else if (strcmp(argv[i], "--backward") == 0)
            backward = true;
        else if (strcmp(argv[i], "--lens") == 0 && i + 1 < argc)
            lens_arg = argv[++i];
        else if (strcmp(argv[i], "--knob") == 0 && i + 1 < argc && n_knobs < MAX_KNOBS && strchr(argv[i + 1], '=')) {
            char *eq = strchr(argv[++i], '=');
            *eq = '\0';
            knob_ids[n_knobs] = argv[i], knob_vals[n_knobs++] = atoll(eq + 1);
        }
        else {
            fprintf(stderr, "usage: bench_masks [--tokens T] [--docs N] [--heads H] [--dim D] [--prefix P] "
                            "[--chunk C] [--uneven | --lens A,B,..] [--backward] [--knob ID=V]... [--print-graphs]\n");
            return 2;
        }
    }
    if (lens_arg != NULL) { /* N and T from the list */
        N = 1, T = atoll(lens_arg);
        for (const char *p = strchr(lens_arg, ','); p != NULL; p = strchr(p + 1, ','))
            N++, T += atoll(p + 1);
    }
    if (T < 2 || N < 1 || N > T || H < 1 || D < 8 || P < 0 || C < 1) {
        fprintf(stderr, "bench_masks: sizes out of range\n");
        return 2;
    }
    documents();
    if (print) {
        for (int k = 0; k < M_N; k++) {
            json_t *g = graph_json((mask_kind)k, backward, backward);
            char *s = json_dumps(g, JSON_COMPACT);
            printf("%s\n", s);
            free(s);
            json_decref(g);
        }
        return 0;
    }
    bench_init("bench_masks");
    size_t n = (size_t)(H * T * D);
    void *bufs[SETS][N_BUF];
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < N_BUF; i++) {
            if (buf_uids[i] != U_DOC_Q && buf_uids[i] != U_DOC_KV) {
                bufs[s][i] = bench_random_bf16(buf_uids[i] == U_STATS ? (size_t)(2 * H * T) : n);
                continue;
            }
            CHECK(hipdnnDeviceMalloc_ext(&bufs[s][i], (size_t)T * sizeof *doc));
            CHECK(hipdnnMemcpyHostToDevice_ext(bufs[s][i], doc, (size_t)T * sizeof *doc));
        }
    double tf[M_N];
    float ms[M_N];
    for (int k = 0; k < M_N; k++) {
        bool docs = k == M_DOC || k == M_DOC_CAUSAL || k == M_DOC_BAND;
        if (backward) /* O and Stats of each set's Q, K, V through the forward */
            forward_outputs((mask_kind)k, bufs);
        hipdnnBackendDescriptor_t graph = graph_of((mask_kind)k, false, backward);
        hipdnnBackendDescriptor_t plan = bench_jit_plan_with(graph, n_knobs, knob_ids, knob_vals);
        ms[k] = timed(plan, backward, false, docs, bufs, SETS, 3, REPS);
        double p = pairs((mask_kind)k);
        tf[k] = (backward ? 10.0 : 4.0) * (double)D * p * (double)H / (ms[k] * 1e-3) / 1e12;
        printf("%s %.4f %.1f %.0f\n", names[k], ms[k], tf[k], p);
        fflush(stdout);
        hipdnnBackendDestroyDescriptor(plan);
        hipdnnBackendDestroyDescriptor(graph);
    }
    printf("\n| mask | implementation | ms | TFLOP/s (unmasked pairs) | %% of 790 |\n|---|---|---:|---:|---:|\n");
    for (int k = 0; k < M_N; k++)
        printf("| %s | hipdnn-jit%s | %.3f | %.0f | %.0f%% |\n", names[k], backward ? " backward" : "", ms[k], tf[k],
               100 * tf[k] / 790);
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < N_BUF; i++)
            hipdnnDeviceFree_ext(bufs[s][i]);
    free(doc);
    return 0;
}
