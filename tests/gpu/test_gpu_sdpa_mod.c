/* test_gpu_sdpa_mod.c — attention forward with a score modifier on the GPU (kernel_templates/
 * sdpa_fwd.hip's hd_score_mod hook, codegen/cg_sdpa.c) against the reference engine
 * (ir_ref_sdpa_fwd_mod: the chain per score in double).
 *
 * The modifier is a nested Graph of the SDPA node (HIPDNN_ATTR_OPERATION_SDPA_FWD_SCORE_MOD_*):
 *   softcap   c·tanh(S/c), c drawn in [5, 50] each case, by value or a one-element tensor in
 *             memory; the attention scale is chosen so that S·scale has a spread of about c, so
 *             tanh saturates for a good share of the scores;
 *   linear    S·a + b with a, b one-element tensors in memory (not softcap);
 *   with bias an additive bias [1,Hq,Sq,Skv] after the modifier (op-semantics.md §4.3).
 * Shapes are drawn each run: batch, heads (MHA, GQA), Sq != Skv off every tile edge, head dims
 * 64 and 128 (wgmma on sm_90) and 96 (mma.sync), bf16 and fp16, [b,h,s,d] or [b,s,h,d], always
 * with Stats. The knob test runs the modifier on every main loop: mma.sync (jit.sdpa_wgmma 0),
 * wgmma sequential (2 stages), overlapped (3 stages) and warp-specialized (jit.sdpa_ws 1 and 2).
 * Inputs are fresh uniform values in [-2, 2]; outputs are poisoned (0xFF: NaN) before the run.
 * Comparison (op-semantics.md §4.11, gpu_compare_attention in gpu_util.c): every element
 * isclose with atol = rtol = 2e-2, infinities matched, no NaN, and O's relative L2 error within
 * its type's tolerance; Stats within 1e-3. Seed: HIPDNN_TEST_SEED replays a run.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"

static void reset_knobs(void)
{
    gpu_set_knobs(0, NULL, NULL);
    gpu_teardown();
}

TestSuite(gpu_sdpa_mod, .init = gpu_setup, .fini = reset_knobs, .timeout = 600);

enum { U_Q = 1, U_K, U_V, U_O, U_STATS, U_BIAS };
/* the modifier's sub-graph: S, three intermediates, then c (or a) and b */
enum { U_S = 100, U_T1, U_T2, U_M, U_C, U_B };

typedef enum { MOD_SOFTCAP, MOD_SOFTCAP_MEM, MOD_LINEAR } mod_kind;

typedef struct mod_case {
    const char *dt;  /* "BFLOAT16" or "HALF" */
    int64_t B, Hq, Hk, Sq, Skv, D;
    bool bshd, bias;
    mod_kind mod;
    float c;         /* softcap */
    double scale;
} mod_case;

static mod_case cur; /* the case being filled (the fill callback has no context) */

static json_t *t4(int uid, const char *dt, int64_t d0, int64_t d1, int64_t d2, int64_t d3, bool bshd,
                  bool is_virtual)
{
    int64_t dims[4] = {d0, d1, d2, d3}, st[4];
    packed(4, dims, st, 0);
    if (bshd) /* [b, s, h, d] memory */
        st[3] = 1, st[1] = d3, st[2] = d1 * d3, st[0] = d2 * d1 * d3;
    return tensor(uid, dt, 4, dims, st, is_virtual);
}

static json_t *pw_node(const char *mode, int in0, int in1, int out)
{
    json_t *a = json_object();
    json_object_set_new(a, "operation", json_string(mode));
    json_object_set_new(a, "in_0_tensor_uid", json_integer(in0));
    if (in1 > 0)
        json_object_set_new(a, "in_1_tensor_uid", json_integer(in1));
    json_object_set_new(a, "out_0_tensor_uid", json_integer(out));
    return node("PointwiseAttributes", a);
}

/* The nested Graph of the modifier (S non-virtual: in the sub-graph of its own it is an input). */
static json_t *mod_graph(const mod_case *c)
{
    json_t *g = json_object(), *ts = json_array(), *nodes = json_array();
    json_array_append_new(ts, t4(U_S, "FLOAT", c->B, c->Hq, c->Sq, c->Skv, false, false));
    for (int u = U_T1; u <= U_M; u++)
        json_array_append_new(ts, t4(u, "FLOAT", c->B, c->Hq, c->Sq, c->Skv, false, true));
    if (c->mod == MOD_SOFTCAP) { /* by value, rank 4 like S (pointwise operands share a rank) */
        json_t *cv = t4(U_C, "FLOAT", 1, 1, 1, 1, false, false);
        json_object_set_new(cv, "value_type", json_string("Float32Value"));
        json_object_set_new(cv, "value", json_pack("{s:f}", "value", (double)c->c));
        json_array_append_new(ts, cv);
    } else {
        json_array_append_new(ts, t4(U_C, "FLOAT", 1, 1, 1, 1, false, false));
        if (c->mod == MOD_LINEAR)
            json_array_append_new(ts, t4(U_B, "FLOAT", 1, 1, 1, 1, false, false));
    }
    if (c->mod == MOD_LINEAR) {
        json_array_append_new(nodes, pw_node("MUL", U_S, U_C, U_T1));
        json_array_append_new(nodes, pw_node("ADD", U_T1, U_B, U_M));
        json_array_remove(ts, 2); /* U_T2 unused */
    } else {
        json_array_append_new(nodes, pw_node("DIV", U_S, U_C, U_T1));
        json_array_append_new(nodes, pw_node("TANH_FWD", U_T1, -1, U_T2));
        json_array_append_new(nodes, pw_node("MUL", U_T2, U_C, U_M));
    }
    json_object_set_new(g, "compute_data_type", json_string("FLOAT"));
    json_object_set_new(g, "tensors", ts);
    json_object_set_new(g, "nodes", nodes);
    return g;
}

static hipdnnBackendDescriptor_t build(const mod_case *c)
{
    json_t *ts = json_array(), *a = json_object();
    json_array_append_new(ts, t4(U_Q, c->dt, c->B, c->Hq, c->Sq, c->D, c->bshd, false));
    json_array_append_new(ts, t4(U_K, c->dt, c->B, c->Hk, c->Skv, c->D, c->bshd, false));
    json_array_append_new(ts, t4(U_V, c->dt, c->B, c->Hk, c->Skv, c->D, c->bshd, false));
    json_array_append_new(ts, t4(U_O, c->dt, c->B, c->Hq, c->Sq, c->D, c->bshd, false));
    json_array_append_new(ts, t4(U_STATS, "FLOAT", c->B, c->Hq, c->Sq, 1, false, false));
    json_object_set_new(a, "q_tensor_uid", json_integer(U_Q));
    json_object_set_new(a, "k_tensor_uid", json_integer(U_K));
    json_object_set_new(a, "v_tensor_uid", json_integer(U_V));
    json_object_set_new(a, "o_tensor_uid", json_integer(U_O));
    json_object_set_new(a, "stats_tensor_uid", json_integer(U_STATS));
    json_object_set_new(a, "generate_stats", json_true());
    json_object_set_new(a, "attn_scale_value", json_real(c->scale));
    if (c->bias) { /* [1, Hq, Sq, Skv]: broadcast over batch */
        json_array_append_new(ts, t4(U_BIAS, c->dt, 1, c->Hq, c->Sq, c->Skv, false, false));
        json_object_set_new(a, "attn_mask_tensor_uid", json_integer(U_BIAS));
    }
    json_object_set_new(a, "score_mod_graph", mod_graph(c));
    json_object_set_new(a, "score_mod_input_uid", json_integer(U_S));
    json_object_set_new(a, "score_mod_output_uid", json_integer(U_M));
    json_t *nodes = json_array();
    json_array_append_new(nodes, node("SdpaAttributes", a));
    return finalize_graph(ts, nodes);
}

/* c (softcap in memory), a and b (linear); everything else the default uniform [-2, 2]. */
static bool fill(const ir_tensor *t, ir_buf *b)
{
    int64_t idx[IR_MAX_RANK] = {0};
    if (t->uid == U_C) {
        ir_store(b, idx, cur.mod == MOD_LINEAR ? 0.5 + (double)rand() / RAND_MAX : cur.c);
        return true;
    }
    if (t->uid == U_B) {
        ir_store(b, idx, (double)rand() / RAND_MAX * 2 - 1);
        return true;
    }
    return false;
}

/* The scale that spreads S·scale to about ±c (softcap) or ±3 (linear): Q·K over uniform
 * [-2, 2] has a standard deviation of (4/3)·sqrt(D). */
static void set_head_dim(mod_case *c, int64_t D)
{
    c->D = D;
    c->scale = (c->mod == MOD_LINEAR ? 3.0 : c->c) / (4.0 / 3.0 * sqrt((double)D));
}

/* A random case: sizes off every tile edge, the head dim D (0: 64, 128 or 96). */
static mod_case random_case(mod_kind mod, int64_t D)
{
    static const int64_t dims[] = {64, 128, 96};
    static const int64_t heads[][2] = {{1, 1}, {2, 2}, {4, 1}, {6, 2}};
    int h = rnd(0, 3);
    mod_case c = {.dt = rnd(0, 1) ? "BFLOAT16" : "HALF", .B = rnd(1, 3), .Hq = heads[h][0], .Hk = heads[h][1],
                  .Sq = rnd(1, 300), .Skv = rnd(1, 400), .D = dims[rnd(0, 2)], .bshd = rnd(0, 1), .mod = mod,
                  .c = 5.0f + 45.0f * (float)rand() / (float)RAND_MAX};
    if (c.Sq == c.Skv)
        c.Skv++;
    set_head_dim(&c, D > 0 ? D : c.D);
    return c;
}

static void run(mod_case c, const char *tag)
{
    char what[192];
    snprintf(what, sizeof what, "%s %s B%lld Hq%lld Hk%lld Sq%lld Skv%lld D%lld %s c %.3g scale %.3g%s", tag, c.dt,
             (long long)c.B, (long long)c.Hq, (long long)c.Hk, (long long)c.Sq, (long long)c.Skv,
             (long long)c.D, c.bshd ? "bshd" : "bhsd", (double)c.c, c.scale, c.bias ? " bias" : "");
    cur = c;
    hipdnnBackendDescriptor_t g = build(&c);
    hipdnnBackendDescriptor_t plan = plan_with(g, "jit_fused");
    check_plan_cmp(g, plan, fill, gpu_compare_attention, what);
    hipdnnBackendDestroyDescriptor(plan);
    hipdnnBackendDestroyDescriptor(g);
}

Test(gpu_sdpa_mod, softcap_head_dims_and_types)
{
    static const int64_t d[] = {64, 128, 96, 64, 128, 96};
    for (int r = 0; r < 6; r++) {
        mod_case c = random_case(MOD_SOFTCAP, d[r]);
        c.dt = r % 2 ? "HALF" : "BFLOAT16";
        run(c, "softcap");
    }
}

Test(gpu_sdpa_mod, softcap_constant_in_memory)
{
    for (int r = 0; r < 3; r++)
        run(random_case(MOD_SOFTCAP_MEM, 0), "softcap c in memory");
}

Test(gpu_sdpa_mod, linear_modifier_with_scalars_in_memory)
{
    for (int r = 0; r < 3; r++)
        run(random_case(MOD_LINEAR, 0), "s*a+b");
}

Test(gpu_sdpa_mod, modifier_then_bias)
{
    for (int r = 0; r < 3; r++) {
        mod_case c = random_case(r == 2 ? MOD_LINEAR : MOD_SOFTCAP, 0);
        c.bias = true;
        run(c, "modifier + bias");
    }
}

/* Every main loop of the template with a modifier: mma.sync, wgmma with 2 and 3 stages, and the
 * warp-specialized ones, cp.async loaders and the TMA producer (the wgmma shapes at head dims
 * 64 / 128); the chain as written (jit.sdpa_mod_fold 1; the other tests take the default, its
 * constants folded). */
Test(gpu_sdpa_mod, every_main_loop)
{
    static const char *const ids[] = {"jit.sdpa_stages", "jit.sdpa_wgmma", "jit.sdpa_ws", "jit.sdpa_sw_exp",
                                      "jit.sdpa_mod_fold"};
    static const int64_t loops[][5] = {{2, 0, 0, 0, 1}, {2, 1, 3, 0, 1}, {3, 1, 3, 0, 1}, {2, 1, 1, 0, 1},
                                       {3, 0, 0, 0, 1}, {3, 1, 2, 0, 1}, {0, 1, 0, 2, 1}, {2, 0, 0, 2, 1}};
    static const char *const names[] = {"mma.sync", "wgmma 2 stages", "wgmma 3 stages", "wgmma + loader",
                                        "mma.sync 3 stages", "wgmma + TMA", "default + polynomial exp2",
                                        "mma.sync + polynomial exp2"};
    for (int s = 0; s < 8; s++) {
        gpu_set_knobs(5, ids, loops[s]);
        mod_case c = random_case(s % 2 ? MOD_SOFTCAP : MOD_LINEAR, loops[s][1] ? (rnd(0, 1) ? 64 : 128) : 0);
        run(c, names[s]);
    }
    gpu_set_knobs(0, NULL, NULL);
}

/* The modifier's constant factors folded (jit.sdpa_mod_fold 2): softcap with c by value (S ·
 * (scale / c) in the hook, c · log2 e in the exponent's FMA) on the default loop, mma.sync, wgmma
 * with two stages and a one-row decode; before a bias (the first factor folded, the exponent's
 * fold off); the linear modifier with its scalars in memory (nothing to fold, the exponent's fold
 * with a factor 1). */
Test(gpu_sdpa_mod, constants_folded)
{
    static const char *const ids[] = {"jit.sdpa_mod_fold", "jit.sdpa_wgmma", "jit.sdpa_stages"};
    static const int64_t knobs[][3] = {{2, 1, 0}, {2, 0, 2}, {2, 1, 2}, {2, 1, 0}, {2, 1, 0}, {2, 1, 0}};
    static const char *const names[] = {"folded, default loop", "folded, mma.sync", "folded, wgmma 2 stages",
                                        "folded, then bias", "folded, decode", "folded, s*a+b"};
    for (int s = 0; s < 6; s++) {
        gpu_set_knobs(3, ids, knobs[s]);
        mod_case c = random_case(s == 5 ? MOD_LINEAR : MOD_SOFTCAP, s == 2 ? (rnd(0, 1) ? 64 : 128) : 0);
        c.bias = s == 3;
        if (s == 4)
            c.Sq = 1;
        run(c, names[s]);
    }
    gpu_set_knobs(0, NULL, NULL);
}
