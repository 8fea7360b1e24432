/* test_fe_jit_cache.c — damaged plan records are misses, never crashes or wrong plans: the real
 * recipe of a compile-only sm_90 plan (NVRTC, an in-memory cache) is stored back truncated, with
 * bytes flipped, with garbage appended or naming a kernel the cache lacks; loading it must fail
 * cleanly (or, for a flipped byte, at most decode to a plan whose every index is in range: ASan
 * and UBSan builds check the memory side), and the intact record loads again afterwards. Also
 * the kernel records' metadata: the stored source is the one compiled; a decode plan's dependent
 * combine launch is dependent after the round trip too. Skips without NVRTC.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/tu.h"
#include "engines/fe_jit.h"
#include "hipdnn_jit.h"

static hipdnnHandle_t handle;

static void setup(void)
{
    if (hipdnnSetCompileTarget_ext("sm_90", 0) != HIPDNN_STATUS_SUCCESS)
        cr_skip_test("no NVRTC on this machine: %s", tu_msg());
    setenv("HIPDNN_CACHE_DISABLE", "1", 1);
    TU_OK(hipdnnCreate(&handle));
}

static void teardown(void)
{
    if (handle != NULL)
        hipdnnDestroy(handle);
    handle = NULL;
    hipdnnSetCompileTarget_ext(NULL, 0);
}

TestSuite(jit_cache, .init = setup, .fini = teardown);

typedef struct built {
    hipdnnBackendDescriptor_t graph;
    const fe_graph_state *g;
    fe_target t;
    fe_jit_plan_ref ref;
    kc_cache *cache;
} built;

/* Builds the plan of `graph` (jit_fused, default knobs; b owns the graph) compile-only into a
 * fresh memory cache. */
static void build_graph(hipdnnBackendDescriptor_t graph, built *b)
{
    b->graph = graph;
    fe_obj *o;
    TU_OK(fe_unwrap(b->graph, "test", &o));
    b->g = fe_graph_of(o);
    TU_OK(kc_open(NULL, &b->cache));
    TU_OK(fe_target_current(&b->t));
    int64_t knobs[FE_MAX_KNOBS];
    for (int i = 0; i < fe_jit_engine.n_knobs; i++)
        knobs[i] = fe_jit_engine.knobs[i].dflt;
    fe_jit_plan_ref_make(b->g, &b->t, fe_jit_engine.id, knobs, fe_jit_engine.n_knobs, &b->ref);
    cr_assert(b->ref.valid, "the plan can be keyed (a source ID and a graph key)");
    fe_build_ctx ctx = {.cache = b->cache};
    fe_plan_impl *p;
    TU_OK(fe_jit_engine.build(b->g, knobs, &ctx, &p));
    cr_assert(ctx.stats.kernels > 0 && ctx.stats.plan_cached == 0);
    fe_jit_engine.destroy(p);
}

/* The same for examples/graphs/`file`. */
static void build(const char *file, built *b) { build_graph(tu_example_graph(handle, file), b); }

static void unbuild(built *b)
{
    kc_close(b->cache);
    tu_destroy(&b->graph);
}

static bool loads(const built *b)
{
    fe_build_stats st;
    fe_plan_impl *p = NULL;
    if (!fe_jit_plan_load(b->cache, &b->ref, b->g, &b->t, &st, &p))
        return false;
    cr_expect(st.plan_cached == 1 && st.compiled == 0 && p != NULL);
    fe_jit_destroy(p);
    return true;
}

static void put_recipe(const built *b, const kc_plan *orig, const void *recipe, size_t n, const kc_key *kernels)
{
    kc_plan rec = {.kernels = kernels != NULL ? kernels : orig->kernels, .n_kernels = orig->n_kernels,
                   .recipe = recipe, .recipe_size = n};
    TU_OK(kc_put_plan(b->cache, &b->ref.key, &rec));
}

Test(jit_cache, damaged_recipes_are_misses)
{
    static const char *const files[] = {"rmsnorm_residual.json", "bn_inference_relu.json", "matmul_bias_gelu.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        built b;
        build(files[f], &b);
        cr_assert(loads(&b), "%s: the stored plan loads", files[f]);
        kc_plan orig;
        cr_assert(kc_get_plan(b.cache, &b.ref.key, &orig));
        size_t n = orig.recipe_size;
        uint8_t *m = malloc(n + 64);
        for (size_t cut = 0; cut < n; cut += 1 + n / 97) { /* every truncation point region */
            put_recipe(&b, &orig, orig.recipe, cut, NULL);
            cr_expect_not(loads(&b), "%s: a recipe cut to %zu of %zu bytes is a miss", files[f], cut, n);
        }
        memcpy(m, orig.recipe, n);
        memset(m + n, 0x5a, 64);
        put_recipe(&b, &orig, m, n + 64, NULL);
        cr_expect_not(loads(&b), "%s: trailing garbage is a miss", files[f]);
        int decoded = 0;
        for (int i = 0; i < 400; i++) { /* flipped bytes: a miss, or in-range fields only */
            memcpy(m, orig.recipe, n);
            for (int k = 0; k < 1 + (int)(tu_rand() % 3); k++)
                m[tu_rand() % n] ^= (uint8_t)(1u << (tu_rand() % 8));
            put_recipe(&b, &orig, m, n, NULL);
            decoded += loads(&b);
        }
        cr_log_info("%s: %d of 400 flipped recipes decoded (fields that stay in range)", files[f], decoded);
        kc_key *other = malloc(orig.n_kernels * sizeof *other);
        memcpy(other, orig.kernels, orig.n_kernels * sizeof *other);
        other[0].b[0] ^= 1;
        put_recipe(&b, &orig, orig.recipe, n, other);
        cr_expect_not(loads(&b), "%s: a kernel the cache lacks is a miss", files[f]);
        put_recipe(&b, &orig, orig.recipe, n, NULL);
        cr_expect(loads(&b), "%s: the intact record loads again", files[f]);
        free(other), free(m);
        kc_plan_release(&orig);
        unbuild(&b);
    }
}

/* A decode shape (GQA 32:8, one query row, 8192 keys): split keys and a combine launch. */
static const char decode_graph[] =
    "{\"name\": \"decode\", \"compute_data_type\": \"FLOAT\", \"intermediate_data_type\": \"FLOAT\","
    " \"io_data_type\": \"BFLOAT16\", \"tensors\": ["
    " {\"uid\": 1, \"name\": \"q\", \"data_type\": \"BFLOAT16\", \"strides\": [4096, 128, 128, 1], \"dims\": [1, 32, 1, 128]},"
    " {\"uid\": 2, \"name\": \"k\", \"data_type\": \"BFLOAT16\", \"strides\": [8388608, 1048576, 128, 1], \"dims\": [1, 8, 8192, 128]},"
    " {\"uid\": 3, \"name\": \"v\", \"data_type\": \"BFLOAT16\", \"strides\": [8388608, 1048576, 128, 1], \"dims\": [1, 8, 8192, 128]},"
    " {\"uid\": 4, \"name\": \"o\", \"data_type\": \"BFLOAT16\", \"strides\": [4096, 128, 128, 1], \"dims\": [1, 32, 1, 128]}],"
    " \"nodes\": [{\"name\": \"sdpa\", \"compute_data_type\": \"FLOAT\", \"attributes_type\": \"SdpaAttributes\","
    " \"attributes\": {\"q_tensor_uid\": 1, \"k_tensor_uid\": 2, \"v_tensor_uid\": 3, \"o_tensor_uid\": 4,"
    " \"attn_scale_value\": 0.08838834764831843}}]}";

/* The decode kernel's combine launch is dependent (rt_launch_dependent) in the plan built and in
 * the plan decoded from its recipe. */
Test(jit_cache, dependent_launches_survive_the_recipe)
{
    built b;
    build_graph(tu_json_graph(handle, decode_graph, strlen(decode_graph), "decode"), &b);
    fe_build_stats st;
    fe_plan_impl *p = NULL;
    cr_assert(fe_jit_plan_load(b.cache, &b.ref, b.g, &b.t, &st, &p), "the stored plan loads");
    int dependent = 0, then = 0;
    for (int i = 0; i < p->n_kernels; i++)
        for (int j = 0; j < p->k[i].cg.n_then; j++)
            then++, dependent += p->k[i].cg.then[j].dependent;
    cr_expect_eq(then, 1, "one combine launch");
    cr_expect_eq(dependent, 1, "launched dependent");
    fe_jit_destroy(p);
    unbuild(&b);
}

Test(jit_cache, a_plan_from_another_compiler_version_is_a_miss)
{
    built b;
    build("layernorm.json", &b); /* compiled: this process has NVRTC loaded */
    kc_plan orig;
    cr_assert(kc_get_plan(b.cache, &b.ref.key, &orig));
    uint8_t *m = malloc(orig.recipe_size);
    memcpy(m, orig.recipe, orig.recipe_size);
    uint32_t id_len;
    memcpy(&id_len, m + 8, 4); /* magic, version, then the compiler id's length (little-endian) */
    m[8 + 4 + id_len + 4] ^= 1; /* the minor version */
    put_recipe(&b, &orig, m, orig.recipe_size, NULL);
    cr_expect_not(loads(&b), "a recipe another compiler version built is a miss");
    put_recipe(&b, &orig, orig.recipe, orig.recipe_size, NULL);
    cr_expect(loads(&b));
    free(m);
    kc_plan_release(&orig);
    unbuild(&b);
}

Test(jit_cache, kernel_records_carry_the_compiled_source)
{
    built b;
    build("layernorm.json", &b);
    kc_plan plan;
    cr_assert(kc_get_plan(b.cache, &b.ref.key, &plan));
    kc_kernel k;
    cr_assert(kc_get_kernel(b.cache, &plan.kernels[0], &k));
    fe_kernel_meta meta;
    cr_assert(fe_kernel_meta_parse(k.meta, k.meta_size, &meta), "the record's metadata parses");
    cr_expect_neq(strstr(meta.source, k.entry), NULL, "the source defines the entry %s", k.entry);
    kc_key again;
    TU_OK(fe_kernel_key(meta.source, k.entry, k.arch, meta.options, meta.n_options, &again));
    cr_expect(memcmp(&again, &plan.kernels[0], sizeof again) == 0, "the stored source is the one keyed and compiled");
    cr_expect_not(fe_kernel_meta_parse(k.meta, k.meta_size - 1, &meta), "a cut record does not parse");
    cr_expect_not(fe_kernel_meta_parse("HJKM0", 6, &meta), "another format does not parse");
    kc_kernel_release(&k);
    kc_plan_release(&plan);
    unbuild(&b);
}
