/* fe_jit.h — private to engines/: the JIT engines' plan, shared by the files that make one:
 *   fe_engine_jit.c      the engines: knobs, support, building a plan from the graph, execute;
 *   fe_jit_plan_cache.c  the plan in the kernel cache's plan table (keys, the recipe's byte form),
 *                        and building a plan from it without lowering or code generation;
 *   fe_jit_plan.c        a plan's kernels loaded (names, modules, functions), a plan freed: what
 *                        both of the above call, calling neither;
 *   fe_jit_modules.c     the process's loaded code objects, shared by every plan that uses them;
 *   fe_jit_counters.c    the device words a plan's kernels keep between launches, one per stream;
 *   fe_jit_custom.c      a custom op's kernel, from its provider.
 */
#ifndef HIPDNN_FE_JIT_H
#define HIPDNN_FE_JIT_H

#include "codegen/cg.h"
#include "engines/fe_engines.h"
#include "runtime/rt.h"

#define FE_JIT_MAX_ENTRY 64 /* entry names, with the NUL */

typedef struct jit_kernel {
    cg_kernel cg;    /* the launch recipe (its source is freed once compiled; entry names point
                      * into `names`) */
    kc_key key;      /* the kernel cache key of its code object */
    char names[CG_MAX_LAUNCHES][FE_JIT_MAX_ENTRY]; /* cg.entry, then cg.then[i].entry */
    rt_module *module; /* NULL in a compile-only plan */
    rt_function fn;
    rt_function fn_then[CG_MAX_LAUNCHES - 1];
} jit_kernel;

/* A plan's counters (CG_ARG_COUNTER): one zeroed device word per stream it ran on. */
typedef struct fe_counter {
    void *stream;
    void *dev;
} fe_counter;
typedef struct fe_counters {
    fe_counter *slot; /* n used of cap */
    int n, cap;
} fe_counters;

struct fe_plan_impl {
    const fe_graph_state *g;
    jit_kernel *k;
    int n_kernels;
    int64_t *ws_offset;     /* per IR tensor: its workspace offset, -1 when bound by the pack */
    int64_t scratch_offset; /* the kernels' shared scratch region */
    bool compile_only;      /* built for hipdnnSetCompileTarget_ext's target: cannot execute */
    char arch[32];
    fe_counters counters;   /* the kernels' CG_ARG_COUNTER words */
};

/* The plan's counter word for `stream` (allocated and zeroed on its first use there). */
hipdnnStatus_t fe_counter_for(fe_counters *c, void *stream, void **out);
void fe_counters_free(fe_counters *c);

/* ---- fe_jit_custom.c: a custom op's kernel from its provider ------------------------------------- */

/* Whether kernel k of g is a custom op. */
bool fe_jit_is_custom(const ir_graph *g, const ir_kernel *k);
/* Whether custom-op kernel k can be built (its provider gives GPU kernels); why says why not. */
bool fe_jit_custom_supports(const ir_graph *g, const ir_kernel *k, char *why, size_t n);
/* cg_emit for a custom-op kernel: the provider's kernel for t->arch as out's recipe (out->cg;
 * its source owned, its entry in out->names[0]: nothing points at the provider's strings). */
hipdnnStatus_t fe_jit_custom_emit(const ir_graph *g, const ir_kernel *k, const cg_target *t, jit_kernel *out);

/* ---- fe_jit_plan.c ----------------------------------------------------------------------------------- */

/* Frees a plan (loaded modules released), whole or partly built. */
void fe_jit_destroy(fe_plan_impl *p);
/* Copies cg.entry and the then-entries into k->names and points the recipe at them. */
hipdnnStatus_t fe_jit_own_names(jit_kernel *k);
/* Loads kernel k's module (from the process's table, else from code: NULL when only the table
 * may serve it) and its functions. */
hipdnnStatus_t fe_jit_load(jit_kernel *k, const void *code, size_t code_len);

/* ---- fe_jit_plan_cache.c ------------------------------------------------------------------------------ */

/* Which plan: the graph, the target (arch, platform, SMs, compiler and version), this build of the
 * library, the engine and its knob values. valid is false when the plan cannot be keyed (then
 * the plan table is not used). */
typedef struct fe_jit_plan_ref {
    bool valid;
    kc_plan_key key;
    int64_t knobs[FE_MAX_KNOBS];
    int sm_count;            /* the target's, for the recipe's description */
} fe_jit_plan_ref;

void fe_jit_plan_ref_make(const fe_graph_state *g, const fe_target *t, int64_t engine_id, const int64_t *knobs,
                          int n_knobs, fe_jit_plan_ref *ref);
/* Builds the plan from the cache's plan table: its recipe and every kernel's code object (or
 * module already loaded). False on any miss or mismatch (nothing kept, the caller builds). */
bool fe_jit_plan_load(kc_cache *c, const fe_jit_plan_ref *ref, const fe_graph_state *g, const fe_target *t,
                      fe_build_stats *stats, fe_plan_impl **out);
/* Records a built plan in the plan table. False when it could not be stored (logged, never raised:
 * the cache is advisory); true also when there is nothing to store (no cache, no key, a recipe
 * the table cannot hold). */
bool fe_jit_plan_store(kc_cache *c, const fe_jit_plan_ref *ref, const fe_plan_impl *p);
/* True when the plan table holds the plan and the kernel table every kernel of it. */
bool fe_jit_plan_cached(kc_cache *c, const fe_jit_plan_ref *ref);

/* ---- fe_jit_modules.c -------------------------------------------------------------------------------- */

/* The loaded module of kernel `key`, taken (one more user) when this process has loaded it. */
bool fe_module_find(const kc_key *key, rt_module **m);
/* Loads code as kernel `key`'s module and takes it (or takes the one another thread loaded). */
hipdnnStatus_t fe_module_load(const kc_key *key, const void *code, size_t code_len, rt_module **m);
/* Gives a module back; the last user's release keeps it loaded a while for the next plan. */
void fe_module_release(rt_module *m);
/* Unloads every module no plan uses now; returns how many (tests: a device left with no module). */
int fe_module_unload_idle(void);

#endif
