/* fuzz_plan_recipe.c — libFuzzer harness: a JIT plan's recipe, the engine's blob in a plan
 * record (engines/fe_jit_plan_cache.c: kernels, launch dimensions, arguments naming tensors by
 * canonical number, workspace slots), decoded by fe_jit_plan_load against a real graph.
 *
 * Input: a graph number (fz_graphs.h; the example graph, finalized once per process), a kernel
 * count k (0..4), k pairs of length-prefixed strings (arch, entry) for the kernel records the
 * harness stores under keys 1..k (4 bytes of code each), then the recipe. The harness stores
 * the plan record for the graph's plan key (compile-only gfx90a target, engine 0, no knobs) in a
 * fresh memory cache and loads it.
 * Invariants: a plan that loads has the record's kernel count; every name is NUL-terminated
 * and each kernel's arch and entry are those of its kernel record; every argument is of a known
 * kind, names a tensor of the graph's IR (or none, for workspace and integer arguments) and
 * keeps its tensor-map rank within CG_TMAP_MAX_RANK (4); workspace slots are virtual tensors at offsets within the
 * scratch offset. Everything decoded is freed (LeakSanitizer).
 * Seeds: corpus/plan_recipe/ (real recipes from fz_seeds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/fe_jit.h"
#include "fz.h"
#include "fz_graphs.h"

#define MAX_KERNELS 4

static hipdnnBackendDescriptor_t descs[FZ_N_PLAN_GRAPHS]; /* kept for the process */
static fe_graph_state *graphs[FZ_N_PLAN_GRAPHS];

static fe_graph_state *load_graph(const char *name, hipdnnBackendDescriptor_t *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/graphs/%s", HIPDNN_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    FZ_CHECK(f != NULL, "cannot open %s", path);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    hipdnnBackendDescriptor_t g = NULL;
    hipdnnHandle_t h = fz_handle();
    FZ_CHECK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, n) == HIPDNN_STATUS_SUCCESS &&
                 hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h) ==
                     HIPDNN_STATUS_SUCCESS &&
                 hipdnnBackendFinalize(g) == HIPDNN_STATUS_SUCCESS,
             "%s does not finalize", name);
    fe_graph_state *gs = fe_graph_of(g->obj);
    FZ_CHECK(gs->ir != NULL, "%s has no IR", name);
    *out = g;
    return gs;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fz_environment();
    for (int i = 0; i < FZ_N_PLAN_GRAPHS; i++)
        graphs[i] = load_graph(fz_plan_graphs[i], &descs[i]);
    return 0;
}

static void take_str(fz_in *in, char *out, size_t cap)
{
    size_t n = fz_u8(in) % cap;
    fz_bytes(in, out, n);
    out[n] = '\0';
}

static void check_kernel(const jit_kernel *k, const ir_graph *ir, const char *arch, const char *entry)
{
    const cg_kernel *cg = &k->cg;
    for (int i = 0; i <= cg->n_then; i++)
        FZ_CHECK(memchr(k->names[i], 0, FE_JIT_MAX_ENTRY) != NULL, "name %d is not terminated", i);
    FZ_CHECK(cg->entry == k->names[0] && strcmp(cg->entry, entry) == 0 && strcmp(cg->arch, arch) == 0,
             "kernel %s/%s loaded for the record of %s/%s", cg->arch, cg->entry, arch, entry);
    FZ_CHECK(cg->n_args >= 0 && cg->n_args <= CG_MAX_ARGS && cg->n_then >= 0 && cg->n_then < CG_MAX_LAUNCHES,
             "%d arguments, %d further launches", cg->n_args, cg->n_then);
    for (int a = 0; a < cg->n_args; a++) {
        const cg_arg *arg = &cg->args[a];
        bool none_ok =
            arg->kind == CG_ARG_WORKSPACE || arg->kind == CG_ARG_INT64 || arg->kind == CG_ARG_COUNTER;
        FZ_CHECK((unsigned)arg->kind <= CG_ARG_COUNTER, "argument %d of kind %d", a, (int)arg->kind);
        FZ_CHECK(arg->tensor >= (none_ok ? -1 : 0) && arg->tensor < ir->n_t, "argument %d names tensor %d of %d",
                 a, arg->tensor, ir->n_t);
        FZ_CHECK(arg->map.rank >= 0 && arg->map.rank <= CG_TMAP_MAX_RANK, "argument %d: tensor map of rank %d", a, arg->map.rank);
    }
    for (int i = 0; i < cg->n_then; i++)
        FZ_CHECK(cg->then[i].entry == k->names[i + 1], "launch %d's entry is not its own copy", i + 1);
}

static void check_plan(const fe_plan_impl *p, const fe_graph_state *g, int n_kernels, char arch[][64],
                       char entry[][256])
{
    FZ_CHECK(p->n_kernels == n_kernels && p->g == g, "%d kernels loaded of %d", p->n_kernels, n_kernels);
    FZ_CHECK(p->scratch_offset >= 0, "scratch offset %lld", (long long)p->scratch_offset);
    for (int i = 0; i < g->ir->n_t; i++)
        FZ_CHECK(p->ws_offset[i] == -1 || (p->ws_offset[i] >= 0 && p->ws_offset[i] <= p->scratch_offset &&
                                           g->ir->t[i].is_virtual),
                 "tensor %d at workspace offset %lld (scratch at %lld)", i, (long long)p->ws_offset[i],
                 (long long)p->scratch_offset);
    for (int k = 0; k < n_kernels; k++)
        check_kernel(&p->k[k], g->ir, arch[k], entry[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {.p = data, .n = size};
    const fe_graph_state *g = graphs[fz_u8(&in) % FZ_N_PLAN_GRAPHS];
    int n_kernels = fz_u8(&in) % (MAX_KERNELS + 1);
    char arch[MAX_KERNELS][64], entry[MAX_KERNELS][256];
    kc_key keys[MAX_KERNELS];
    kc_cache *c = NULL;
    FZ_CHECK(kc_open(NULL, &c) == HIPDNN_STATUS_SUCCESS, "opening a memory cache");
    for (int k = 0; k < n_kernels; k++) {
        take_str(&in, arch[k], sizeof arch[k]);
        take_str(&in, entry[k], sizeof entry[k]);
        memset(keys[k].b, k + 1, sizeof keys[k].b);
        kc_kernel rec = {.key = keys[k], .arch = arch[k], .compiler = "fuzz", .compiler_version = "",
                         .entry = entry[k], .code = "code", .code_size = 4};
        kc_put_kernel(c, &rec); /* an empty arch or entry is refused: that kernel then misses */
    }
    fe_target t = {.arch = FZ_PLAN_ARCH, .platform = FZ_PLAN_PLATFORM, .compile_only = true};
    fe_jit_plan_ref ref;
    int64_t no_knobs[1] = {0};
    fe_jit_plan_ref_make(g, &t, 0, no_knobs, 0, &ref);
    FZ_CHECK(ref.valid, "no plan key for a finalized graph");
    kc_plan rec = {.kernels = keys, .n_kernels = (size_t)n_kernels, .recipe = in.p + in.at,
                   .recipe_size = in.n - in.at};
    FZ_CHECK(kc_put_plan(c, &ref.key, &rec) == HIPDNN_STATUS_SUCCESS, "storing a plan record");
    fe_build_stats stats;
    fe_plan_impl *p = NULL;
    bool loaded = fe_jit_plan_load(c, &ref, g, &t, &stats, &p);
    if (getenv("FZ_TRACE") != NULL) /* FZ_TRACE=1: say whether the input decoded */
        fprintf(stderr, "fuzz_plan_recipe: %s\n", loaded ? "loaded" : "not loaded");
    if (loaded) {
        check_plan(p, g, n_kernels, arch, entry);
        FZ_CHECK(stats.kernels == n_kernels && stats.plan_cached == 1, "stats of a loaded plan");
        fe_jit_destroy(p);
    }
    kc_close(c);
    return 0;
}
