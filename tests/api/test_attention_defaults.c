/* test_attention_defaults.c — the attention kernels a framework gets through the public API alone:
 * a graph deserialized from JSON, the heuristics' first config (it must be jit_fused's, with its
 * default knobs), its plan finalized compile-only for sm_90 with 132 multiprocessors
 * (hipdnnSetCompileTarget_ext; real NVRTC, no GPU). Decode (GQA 32:8, Sq 1, 32768 keys) gets the
 * decode path: 4 query heads packed per block in a 16-row tile whose four warps split the keys,
 * the keys split across blocks in 16 (one wave at one block an SM), the combine's scratch in the
 * plan's workspace; paged K/V get the same with the page-table loads a tile ahead and two blocks
 * an SM, at 64 packed rows (Sq 16) the TMA producer; prefill at head dim 128 gets the
 * TMA producer warpgroup with 3 stages, the two computing warpgroups taking turns in
 * FlashAttention-3's order, on the persistent grid, and needs no workspace; the backward at head
 * dim 128 gets wgmma with dQ accumulated inside the dK/dV pass. What was emitted is read back from
 * HIPDNN_JIT_DUMP_DIR. Skips without NVRTC.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tu.h"
#include "hipdnn_jit.h"

#define DESC HIPDNN_TYPE_BACKEND_DESCRIPTOR

static char dump[64];
static hipdnnHandle_t handle;

static void setup(void)
{
    if (hipdnnSetCompileTarget_ext("sm_90", 132) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no NVRTC on this machine: %s", tu_msg());
    snprintf(dump, sizeof dump, "/tmp/hipdnn-attn-XXXXXX");
    cr_assert_not_null(mkdtemp(dump));
    setenv("HIPDNN_CACHE_DISABLE", "1", 1);
    setenv("HIPDNN_JIT_DUMP_DIR", dump, 1);
    TU_OK(hipdnnCreate(&handle));
}

static void teardown(void)
{
    if (handle != NULL)
        hipdnnDestroy(handle);
    handle = NULL;
    unsetenv("HIPDNN_JIT_DUMP_DIR");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dump);
    if (dump[0] != '\0' && system(cmd) != 0)
        cr_log_warn("could not remove %s", dump);
    hipdnnSetCompileTarget_ext(NULL, 0);
}

TestSuite(attention_defaults, .init = setup, .fini = teardown);

/* A bf16 tensor of the JSON model: [b,h,s,d] dims, [b,s,h,d] memory (paged: [blocks,h,bs,d] packed). */
static json_t *tensor(int uid, int64_t b, int64_t h, int64_t s, int64_t d, bool bshd)
{
    json_t *st = bshd ? json_pack("[I,I,I,i]", (json_int_t)(s * h * d), (json_int_t)d, (json_int_t)(h * d), 1)
                      : json_pack("[I,I,I,i]", (json_int_t)(h * s * d), (json_int_t)(s * d), (json_int_t)d, 1);
    return json_pack("{s:i, s:s, s:[I,I,I,I], s:o}", "uid", uid, "data_type", "BFLOAT16", "dims", (json_int_t)b,
                     (json_int_t)h, (json_int_t)s, (json_int_t)d, "strides", st);
}

static json_t *ints(int uid, int64_t d0, int64_t d2)
{
    return json_pack("{s:i, s:s, s:[I,i,I,i], s:[I,I,i,i]}", "uid", uid, "data_type", "INT32", "dims",
                     (json_int_t)d0, 1, (json_int_t)d2, 1, "strides", (json_int_t)d2, (json_int_t)d2, 1, 1);
}

/* Attention over Q [B,Hq,Sq,128] and K/V of Hk heads and Skv keys (paged: 64-token pages). */
static hipdnnBackendDescriptor_t graph(int64_t B, int64_t Hq, int64_t Hk, int64_t Sq, int64_t Skv, bool paged)
{
    json_t *ts = json_array();
    json_array_append_new(ts, tensor(1, B, Hq, Sq, 128, true));
    json_array_append_new(ts, tensor(4, B, Hq, Sq, 128, true));
    json_t *a = json_pack("{s:i, s:i, s:i, s:i, s:f}", "q_tensor_uid", 1, "k_tensor_uid", 2, "v_tensor_uid", 3,
                          "o_tensor_uid", 4, "attn_scale_value", 0.0883883);
    if (paged) {
        int64_t P = Skv / 64;
        json_array_append_new(ts, tensor(2, B * P, Hk, 64, 128, false));
        json_array_append_new(ts, tensor(3, B * P, Hk, 64, 128, false));
        for (int uid = 5; uid <= 6; uid++)
            json_array_append_new(ts, ints(uid, B, P));
        for (int uid = 7; uid <= 8; uid++)
            json_array_append_new(ts, ints(uid, B, 1));
        json_object_set_new(a, "page_table_k_tensor_uid", json_integer(5));
        json_object_set_new(a, "page_table_v_tensor_uid", json_integer(6));
        json_object_set_new(a, "seq_len_q_tensor_uid", json_integer(7));
        json_object_set_new(a, "seq_len_kv_tensor_uid", json_integer(8));
        json_object_set_new(a, "padding_mask", json_true());
    } else {
        json_array_append_new(ts, tensor(2, B, Hk, Skv, 128, true));
        json_array_append_new(ts, tensor(3, B, Hk, Skv, 128, true));
    }
    json_t *node = json_pack("{s:s, s:s, s:s, s:o}", "name", "sdpa", "compute_data_type", "FLOAT", "attributes_type",
                             "SdpaAttributes", "attributes", a);
    json_t *doc = json_pack("{s:o, s:[o]}", "tensors", ts, "nodes", node);
    char *text = json_dumps(doc, 0);
    hipdnnBackendDescriptor_t g = tu_json_graph(handle, text, strlen(text), "attention graph");
    free(text);
    json_decref(doc);
    return g;
}

/* The heuristics' first config's plan (asserting it is jit_fused's, without knob choices) and its
 * workspace size. */
static hipdnnBackendDescriptor_t first_plan(hipdnnBackendDescriptor_t g, int64_t *workspace)
{
    hipdnnBackendDescriptor_t heur, cfgs[8], eng, plan;
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    int64_t n = 0, m = 0;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    TU_OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, DESC, 1, &g));
    TU_OK(hipdnnBackendFinalize(heur));
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, 0, &n, NULL));
    cr_assert(n >= 1 && n <= 8, "%lld configs", (long long)n);
    for (int64_t i = 0; i < n; i++)
        TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]));
    TU_OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, DESC, n, &n, cfgs));
    TU_OK(hipdnnBackendFinalize(cfgs[0]));
    TU_OK(hipdnnBackendGetAttribute(cfgs[0], HIPDNN_ATTR_ENGINECFG_ENGINE, DESC, 1, &m, &eng));
    char name[32] = "";
    TU_OK(hipdnnBackendGetAttribute(eng, HIPDNN_ATTR_ENGINE_NAME_EXT, HIPDNN_TYPE_CHAR, sizeof name, &m, name));
    cr_assert_str_eq(name, "jit_fused", "the heuristics rank the fused JIT engine first");
    TU_OK(hipdnnBackendGetAttribute(cfgs[0], HIPDNN_ATTR_ENGINECFG_KNOB_CHOICES, DESC, 0, &m, NULL));
    cr_expect_eq(m, 0, "its first config keeps every knob at its default");
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    TU_OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, DESC, 1, &cfgs[0]));
    TU_OK(hipdnnBackendFinalize(plan));
    TU_OK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &m,
                                    workspace));
    hipdnnBackendDestroyDescriptor(eng);
    for (int64_t i = 0; i < n; i++)
        hipdnnBackendDestroyDescriptor(cfgs[i]);
    hipdnnBackendDestroyDescriptor(heur);
    return plan;
}

/* The one attention source the plan dumped, found by its entry (the dump directory is emptied first
 * by the caller). */
static char *dumped_source_of(const char *entry)
{
    DIR *d = opendir(dump);
    cr_assert_not_null(d);
    char *found = NULL;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char path[320];
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s", dump, e->d_name);
        char *text = e->d_name[0] == '.' ? NULL : tu_read_file(path, &len);
        if (text != NULL && strstr(text, entry) != NULL && n++ == 0)
            found = text;
        else
            free(text);
    }
    closedir(d);
    cr_assert_eq(n, 1, "one attention kernel dumped, %d found", n);
    return found;
}

static char *dumped_source(void) { return dumped_source_of("hd_sdpa_fwd_kernel"); }

static void clear_dump(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/*", dump);
    cr_assert_eq(system(cmd), 0);
}

static void expect_defines(const char *src, const char *const *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        cr_expect_not_null(strstr(src, want[i]), "%s: the source has \"%s\"", what, want[i]);
}

/* The source of the attention kernel the heuristics' first plan compiles for graph(...), and the
 * plan's workspace size. */
static char *first_plan_source(int64_t B, int64_t Hq, int64_t Hk, int64_t Sq, int64_t Skv, bool paged, int64_t *ws)
{
    hipdnnBackendDescriptor_t g = graph(B, Hq, Hk, Sq, Skv, paged);
    clear_dump();
    *ws = -1;
    hipdnnBackendDescriptor_t plan = first_plan(g, ws);
    tu_destroy(&plan);
    tu_destroy(&g);
    return dumped_source();
}

Test(attention_defaults, decode_gets_packed_split_kernels)
{
    int64_t ws;
    char *src = first_plan_source(1, 32, 8, 1, 32768, false, &ws);
    /* the combine's scratch: 32 rows x room for 66 splits x (128 + 2) floats */
    cr_expect_eq(ws, (int64_t)32 * 66 * 130 * 4, "workspace %lld", (long long)ws);
    const char *want[] = {"#define HD_PACK 4\n", "#define HD_SPLIT 16\n", "#define HD_WS 0\n", "#define HD_BM 16\n",
                          "#define HD_KSPLIT 4\n", "hd_sdpa_combine_kernel"};
    expect_defines(src, want, 6, "decode");
    free(src);
}

Test(attention_defaults, paged_decode_by_rows)
{
    int64_t ws;
    char *src = first_plan_source(4, 32, 8, 16, 32768, true, &ws);
    cr_expect_gt(ws, 0, "split keys: scratch in the workspace");
    const char *want[] = {"#define HD_PACK 4\n", "#define HD_WS 2\n", "#define HD_BOX_ROWS 64\n",
                          "HD_DEVICE void hd_k_at("};
    expect_defines(src, want, 4, "paged decode");
    free(src);
    /* Sq 1 (16 packed rows): the warps' key split, one page entry a tile, the block's entries in
     * shared memory, one block an SM (4 x 8 blocks of packed rows, 132 / 32: 4 splits of 128 tiles) */
    src = first_plan_source(4, 32, 8, 1, 32768, true, &ws);
    const char *want1[] = {"#define HD_PACK 4\n", "#define HD_SPLIT 4\n", "#define HD_WS 0\n", "#define HD_KSPLIT 4\n",
                           "#define HD_TILE_PAGE 1\n#define HD_PT_TILES 128\n", "#define HD_PAGED 1\n"};
    expect_defines(src, want1, 6, "paged decode at Sq 1");
    free(src);
}

Test(attention_defaults, prefill_gets_the_fa3_schedule)
{
    int64_t ws;
    char *src = first_plan_source(2, 16, 16, 2048, 2048, false, &ws);
    cr_expect_eq(ws, 0);
    const char *want[] = {"#define HD_BM 128\n#define HD_BN 128\n#define HD_WARPS 12\n#define HD_STAGES 3\n",
                          "#define HD_WS 2\n", "#define HD_PACK 1\n#define HD_SPLIT 1\n",
                          "#define HD_PINGPONG 1\n#define HD_INTRA 1\n#define HD_TMA_WG 1\n", "#define HD_O_TMA 1\n",
                          "#define HD_PERSIST 1\n"};
    expect_defines(src, want, 6, "prefill");
    free(src);
}

/* The backward of examples/graphs/sdpa_gqa_bwd.json (GQA 32:8, causal, head dim 128, 2 x 2048
 * rows): wgmma (sm_90a), dQ accumulated inside the dK/dV pass (each warpgroup's piece added by the
 * copy engine, then the convert launch) rather than a pass of its own, no loading warpgroup; the
 * workspace holds lse2 and Dn per query row and the fp32 dQ accumulator. */
Test(attention_defaults, backward_accumulates_dq_in_the_kv_pass)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/graphs/sdpa_gqa_bwd.json", HIPDNN_SOURCE_DIR);
    size_t len = 0;
    char *text = tu_read_file(path, &len);
    cr_assert_not_null(text, "%s", path);
    hipdnnBackendDescriptor_t g = tu_json_graph(handle, text, len, "sdpa_gqa_bwd.json");
    free(text);
    clear_dump();
    int64_t ws = -1;
    hipdnnBackendDescriptor_t plan = first_plan(g, &ws);
    tu_destroy(&plan);
    tu_destroy(&g);
    char *src = dumped_source_of("hd_sdpa_bwd_kv");
    const char *want[] = {"#define HD_ATOMIC 1\n", "#define HD_SM90 1\n", "#define HD_LOADER 0\n",
                          "#define HD_DQ_OWN 0\n", "#define HD_BM 64\n", "#define HD_BN 128\n"};
    expect_defines(src, want, 6, "backward");
    free(src);
    /* lse2 and Dn: 2 x 32 x 2048 floats each; the accumulator 2 x 32 x 2048 x 128 floats */
    const int64_t rows = 2 * 32 * 2048;
    cr_expect_eq(ws, (2 * rows + rows * 128) * 4, "workspace %lld", (long long)ws);
}
