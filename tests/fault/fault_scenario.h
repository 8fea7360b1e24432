/* fault_scenario.h — one graph run on the (fake) GPU through the public API, step by step, for
 * the fault sweeps of test_fault_rt.c and test_fault_cache.c (implementation: fault_scenario.c).
 *
 * The scenario: handle; the graph from a JSON file, finalized; heuristics, and the first ranked
 * engine config of the wanted engine (with one knob set, when the graph names one: a new config
 * of that engine); a KERNEL_CACHE descriptor on a cache directory; the plan
 * (JIT compile or cache hit, module load); workspace and every tensor in device memory (poisoned,
 * then filled); a variant pack; events around hipdnnBackendExecute; a stream sync; an output
 * copied back; everything destroyed and freed. It returns the launch trace of the fake runtime.
 *
 * Every call goes through FS_STEP: when it fails, the injector (the fault source a sweep drives)
 * checks that an injected fault explains the failure (its status, a message naming the failed
 * call), injection is switched off and the same call is retried: it must succeed, which shows
 * the failed call left its objects as they were. A fault that fires inside a call that still
 * succeeds is counted as absorbed.
 */
#ifndef HIPDNN_TESTS_FAULT_SCENARIO_H
#define HIPDNN_TESTS_FAULT_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "hipdnn_backend.h"

typedef struct fs_injector {
    const char *name;
    long (*fired)(void);  /* faults injected so far */
    void (*off)(void);
    /* Checks the failure of `call` (status st, the last-error message in tu_msg()) against the
     * fault that fired in it; asserts. NULL: no call may fail (the fault must be absorbed). */
    void (*explain)(const char *call, hipdnnStatus_t st);
} fs_injector;

typedef struct fs_run {
    const fs_injector *inj;
    int failures;   /* calls that failed and were retried */
    int absorbed;   /* calls in which a fault fired and that still succeeded */
    int64_t stats[6]; /* the plan's KERNEL_CACHE_STATS_EXT: kernels, compiled, cached, plan cached,
                       * kernels not stored, plan not stored */
} fs_run;

/* Did `call` fail? Asserts what the injector says about it, switches injection off and returns
 * true (retry it); false on success (counting a fault it absorbed). */
bool fs_failed(fs_run *r, const char *call, hipdnnStatus_t st, long fired_before);
/* The retry of a call that failed under injection must succeed. */
void fs_retried(const char *call, hipdnnStatus_t st);

#define FS_STEP(r, call)                                                                 \
    do {                                                                                 \
        long fired_ = (r)->inj->fired();                                                 \
        hipdnnStatus_t s_ = (call);                                                      \
        if (fs_failed((r), #call, s_, fired_))                                           \
            fs_retried(#call, (call));                                                   \
    } while (0)

typedef struct fs_graph {
    const char *file;   /* tests/fault/graphs/<file> */
    const char *engine; /* "jit_fused", "jit_unfused" */
    const char *knob;   /* NULL, or one engine knob set to knob_value on the heuristics' config */
    int64_t knob_value;
} fs_graph;

/* Runs the scenario on graph g with its kernel cache in cache_dir; returns the launch trace
 * (free it). */
char *fs_scenario(fs_run *r, const fs_graph *g, const char *cache_dir);

/* After a scenario: unloads the modules no plan uses and asserts the fake device holds no
 * allocation, module, event or compiler program. */
void fs_expect_device_empty(const char *when);

#endif
