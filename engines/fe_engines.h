/* fe_engines.h — the contract of engines/: what runs a graph. The engine list and ENGINE
 * descriptor, heuristics (ENGINEHEUR), knobs (KNOB_INFO, KNOB_CHOICE), engine configs, execution
 * plans and hipdnnBackendExecute, the KERNEL_CACHE descriptor, the reference engine and the JIT
 * engines with their use of codegen/, cache/ and runtime/.
 *
 * Owns (engines/): fe_engine.c (engine list, ENGINE, enumeration _ext calls), fe_heuristics.c,
 * fe_knob.c, fe_enginecfg.c (ENGINECFG), fe_plan.c (EXECUTION_PLAN, execute), fe_kernel_cache_desc.c
 * (KERNEL_CACHE), fe_engine_ref.c, fe_engine_jit.c and the JIT plan's files (private fe_jit.h:
 * fe_jit_plan*.c, fe_jit_modules.c, fe_jit_counters.c), fe_code_objects.c (kernel code objects
 * through the cache), fe_target.c (what the JIT generates code for).
 * Uses every module below it: graph/, desc/, ir/, codegen/, cache/, runtime/, base/.
 */
#ifndef HIPDNN_FE_ENGINES_H
#define HIPDNN_FE_ENGINES_H

#include "cache/kc.h"
#include "graph/fe_graph.h"

/* ---- fe_target.c: what the JIT engines generate code for --------------------------------------- */

typedef struct fe_target {
    char arch[32];        /* sm_90, gfx942 */
    const char *platform; /* nvidia, amd (the runtime's or cg_caps.platform; plan keys hash it) */
    int sm_count;
    bool compile_only;    /* named by hipdnnSetCompileTarget_ext: no device behind it */
} fe_target;

/* The compile target when one is set, else this process's device (NOT_SUPPORTED without a GPU). */
hipdnnStatus_t fe_target_current(fe_target *t);
/* ---- fe_code_objects.c: code objects through the kernel cache --------------------------------- */

/* Schema versions of what the kernel cache holds for the engines (hipdnnKernelCacheGetSchema_ext):
 * a change to what a kernel key or a plan key hashes, or to the recipe's layout, bumps its number
 * (old records then miss). */
#define FE_KERNEL_KEY_SCHEMA 1
#define FE_PLAN_KEY_SCHEMA 1
#define FE_PLAN_RECIPE_VERSION 4 /* 2: rank-4 tensor maps; 3: dependent launches; 4: a description */

/* The cache key of an emitted kernel: XXH3-128 of the compiler (id, version), arch, options,
 * entry and source. NOT_SUPPORTED when no compiler serves arch. */
hipdnnStatus_t fe_kernel_key(const char *source, const char *entry, const char *arch,
                             const char *const *options, int n_options, kc_key *key);
/* The code object of source for arch: `cache`'s (NULL: no cache) when it holds this kernel
 * (*hit), else compiled (rt_compile) and stored there with its source. *key gets the kernel
 * key; *code is malloc'd (caller frees). *stored (optional) is false when the kernel was
 * compiled but the cache could not store it (full, or not writable: logged at WARN; the call
 * still succeeds, the cache being advisory). */
hipdnnStatus_t fe_kernel_code(kc_cache *cache, const char *source, const char *name, const char *entry,
                              const char *arch, void **code, size_t *code_len, kc_key *key, bool *hit,
                              bool *stored);
/* A kernel record's metadata: compile options and the emitted source (pointers into meta). */
#define FE_KERNEL_META_MAX_OPTIONS 16
typedef struct fe_kernel_meta {
    const char *options[FE_KERNEL_META_MAX_OPTIONS];
    int n_options;
    const char *source;
} fe_kernel_meta;
/* False when meta is not in fe_kernel_code's format (a record from another writer). */
bool fe_kernel_meta_parse(const void *meta, size_t n, fe_kernel_meta *out);
/* Kernels this process compiled (run-time compiler calls through fe_kernel_code). */
void fe_count_compile(void);
uint64_t fe_compile_count(void);

/* ---- fe_knob.c: KNOB_INFO and KNOB_CHOICE descriptors -------------------------------------------- */

extern const fe_class fe_knob_info_class, fe_knob_choice_class;

/* The most knobs an engine has (an engine config holds one value per knob). */
#define FE_MAX_KNOBS 32

/* An engine's integer knob (our engines' knobs are all integers). */
typedef struct fe_knob_def {
    const char *id;          /* "<engine>.<knob>", e.g. "jit.tile_m" */
    const char *description;
    int64_t min, max, stride, dflt;
    const int64_t *valid;    /* optional list of valid values (NULL: every stride step) */
    int n_valid;
} fe_knob_def;

/* A finalized KNOB_INFO object describing def (one reference, the caller's). */
hipdnnStatus_t fe_knob_info_make(const fe_knob_def *def, fe_obj **out);

/* A finalized KNOB_CHOICE's content. */
typedef struct fe_knob_choice_view {
    const char *id;
    hipdnnBackendAttributeType_t type; /* INT64, DOUBLE or CHAR */
    int64_t i64;
    double f64;
    const char *str;
} fe_knob_choice_view;
fe_knob_choice_view fe_knob_choice(fe_obj *choice);
/* ---- engines (fe_engine.c registry, fe_engine_*.c implementations) ------------------------------ */

typedef struct fe_plan_impl fe_plan_impl; /* an engine's compiled plan, private to the engine */

/* What a plan build did with the kernel cache. */
typedef struct fe_build_stats {
    int64_t kernels;     /* kernels in the plan */
    int64_t compiled;    /* compiled by this build */
    int64_t cached;      /* code objects taken from the kernel cache (or already loaded) */
    int64_t plan_cached; /* 1: the plan came from the cache's plan table (no lowering, no codegen) */
    int64_t kernels_not_stored; /* compiled, but the cache could not store them */
    int64_t plan_not_stored;    /* 1: the plan's record was not stored (it could not be, or one of
                                 * its kernels was not) */
} fe_build_stats;

/* A plan build's surroundings: the kernel cache to use (the plan's KERNEL_CACHE, else the
 * process-wide one; NULL: none) and what the build reports back. */
typedef struct fe_build_ctx {
    kc_cache *cache;
    fe_build_stats stats;
} fe_build_ctx;

/* What an engine offers. Every slot is required unless marked optional. Knob values reach the engine as one int64 per
 * entry of `knobs`, in that order, defaults filled in. */
typedef struct fe_engine {
    int64_t id;                       /* HIPDNN_ATTR_ENGINE_GLOBAL_INDEX */
    const char *name;                 /* unique, never empty */
    const char *type;                 /* "host" or "gpu" */
    const fe_knob_def *knobs;
    int n_knobs;
    const int *notes;                 /* hipdnnBackendBehaviorNote_t values */
    int n_notes;
    /* Optional: is the device the engine runs on usable? Asked before `supports`: SUCCESS;
     * NOT_SUPPORTED when there is none (then `supports` says no, and why); any other status is a
     * device failure, already raised, that fails the call asking (heuristics, ENGINE finalize). */
    hipdnnStatus_t (*device)(void);
    /* Can the engine run this graph? If not, `why` says why (for NOT_SUPPORTED messages). */
    bool (*supports)(const fe_graph_state *g, char *why, size_t why_len);
    /* Optional: the engine's knob settings for this graph, best first (its heuristic); fills
     * up to max vectors of n_knobs values and returns how many. NULL: the defaults only. */
    int (*configs)(const fe_graph_state *g, int64_t (*knobs)[FE_MAX_KNOBS], int max);
    /* Workspace bytes the plan will need with these knob values. */
    int64_t (*workspace)(const fe_graph_state *g, const int64_t *knobs);
    hipdnnStatus_t (*build)(const fe_graph_state *g, const int64_t *knobs, fe_build_ctx *ctx,
                            fe_plan_impl **out);
    /* Optional: would build() with these knobs take everything from `cache` (compile nothing)? */
    bool (*is_cached)(const fe_graph_state *g, const int64_t *knobs, kc_cache *cache);
    /* Runs the plan on the handle's stream with the tensors of the pack. */
    hipdnnStatus_t (*execute)(fe_plan_impl *p, hipdnnHandle_t handle, const fe_varpack_view *pack);
    void (*destroy)(fe_plan_impl *p);
} fe_engine;

/* ---- fe_jit_plan_cache.c: what a JIT plan record describes (hipdnn-cache ls / show) ------------ */

/* The description a plan recipe carries: the target and compiler it was built for, and the graph. */
typedef struct fe_plan_desc {
    char compiler[32];       /* "nvrtc", "hiprtc" */
    int cc_major, cc_minor;
    char arch[32];           /* "sm_90" */
    int sm_count;
    char graph_key[33];      /* the canonical graph key (hex) */
    int n_ops;
    char ops[256];           /* op names in topological order, comma separated; "...": cut */
    int64_t n_tensors;       /* the graph's canonical tensors */
} fe_plan_desc;

/* Reads the description of a plan record's recipe; false when it is not a recipe of this
 * library's format (FE_PLAN_RECIPE_VERSION). */
bool fe_jit_plan_describe(const void *recipe, size_t n, fe_plan_desc *out);

extern const fe_engine *const fe_engines[];
extern const int fe_n_engines;
const fe_engine *fe_engine_by_id(int64_t id);
/* SUCCESS unless e's device is there but failed (fe_engine.device: not NOT_SUPPORTED): then that
 * status, already raised by the runtime. */
hipdnnStatus_t fe_engine_device_failure(const fe_engine *e);
extern const fe_engine fe_reference_engine, fe_jit_engine, fe_jit_unfused_engine;
extern const fe_class fe_kernel_cache_class;
extern const fe_class fe_engine_class, fe_enginecfg_class, fe_engineheur_class, fe_plan_class;

/* fe_kernel_cache_desc.c: the cache of a finalized KERNEL_CACHE descriptor (NULL for anything else). */
kc_cache *fe_kernel_cache_of(fe_obj *o);
/* Attribute rows of the engine descriptors (fe_enginecfg.c, fe_plan.c): a descriptor-valued
 * attribute (one, or up to FE_MAX_KNOBS), and a computed INT64 (fe_get_one_i64). */
#define DESC_ROW(ID, DTYPE, FLAGS, SHAPE)                                                        \
    {.id = ID, .name = #ID, .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR, .shape = SHAPE,              \
     .flags = FLAGS, .min_n = 1, .max_n = (SHAPE) == FE_ONE ? 1 : FE_MAX_KNOBS, .desc = DTYPE,       \
     .fb_id = -1}
#define GET_I64(ID, FN)                                                                          \
    {.id = ID, .name = #ID, .type = HIPDNN_TYPE_INT64, .shape = FE_ONE, .flags = FE_GET_ONLY,    \
     .min_n = 1, .max_n = 1, .fb_id = -1, .get = FN}

/* fe_engine_ref_ragged.c: the reference engine's run of op k of ir, whose operands include a
 * packed (ragged) tensor, over the views bufs (one per IR tensor). */
hipdnnStatus_t fe_ref_run_ragged(const ir_graph *ir, int k, ir_buf *bufs);

/* fe_enginecfg.c: what a finalized ENGINECFG keeps (its priv). */
typedef struct fe_enginecfg_state {
    const fe_engine *engine;
    fe_obj *graph;
    int64_t knobs[FE_MAX_KNOBS];
    int64_t workspace;
} fe_enginecfg_state;
/* fe_enginecfg.c: would a plan of this finalized ENGINECFG take everything from cache c? */
bool fe_enginecfg_is_cached(fe_obj *cfg, kc_cache *c);

#endif
