/* bench_util.h — what the benchmark programs share: graph building from the JSON model, the
 * fused-JIT plan, variant packs, random bf16 inputs, and event timing (median of many calls
 * rotating over several input sets so the L2 cache does not serve them).
 * The benchmarks are programs like any user's: they include only the public headers and link
 * only libhipdnn_backend.so. Device memory comes through the public hipdnn_jit.h extensions;
 * events come from the vendor's runtime, loaded with dlopen as a framework has its own
 * (bench_timer.c).
 */
#ifndef HIPDNN_BENCH_UTIL_H
#define HIPDNN_BENCH_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "hipdnn_backend.h"
#include "hipdnn_jit.h"

#define CHECK(call)                                                                              \
    do {                                                                                        \
        hipdnnStatus_t st_ = (call);                                                            \
        if (st_ != HIPDNN_STATUS_SUCCESS) {                                                     \
            char m_[HIPDNN_ERROR_STRING_MAX_LENGTH];                                            \
            hipdnnGetLastErrorString(m_, sizeof m_);                                            \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, m_);                   \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

extern hipdnnHandle_t bench_handle;
/* When set (a program's --dynamic), bench_graph marks graphs IS_DYNAMIC_SHAPE_ENABLED: their
 * kernels take batch and sequence dims as run-time arguments. */
extern bool bench_dynamic;

/* A handle, or exit(1) with a message when there is no GPU. */
void bench_init(const char *program);
/* bench_timer.c: loads the vendor runtime and makes device 0's primary context current (called
 * by bench_init); GPU events on the default stream. Failures exit(1) with a message. */
void bench_timer_init(void);
void *bench_event_create(void);
void bench_event_record(void *event);
/* Waits for `end`, then the milliseconds between the two events. */
float bench_event_ms(void *start, void *end);
void bench_event_destroy(void *event);
/* A node of the JSON model with compute type FLOAT. */
json_t *bench_node(const char *type, json_t *attrs);
/* Deserializes and finalizes {"tensors": tensors, "nodes": nodes} (takes both references). */
hipdnnBackendDescriptor_t bench_graph(json_t *tensors, json_t *nodes);
/* The heuristics' first plan, which must be the fused JIT engine's. */
hipdnnBackendDescriptor_t bench_jit_plan(hipdnnBackendDescriptor_t graph);
/* The plan of the heuristics' config of this rank when it is the fused JIT engine's (else NULL),
 * with its knob choices written to label ("defaults" or "knob=value,..."). */
hipdnnBackendDescriptor_t bench_jit_plan_ranked(hipdnnBackendDescriptor_t graph, int rank, char *label,
                                                size_t len);
/* The fused JIT engine's plan with these knob choices (ids[i] = values[i], the rest defaults). */
hipdnnBackendDescriptor_t bench_jit_plan_with(hipdnnBackendDescriptor_t graph, int n_knobs, const char *const *ids,
                                              const int64_t *values);
/* The default config of the named engine as a finalized plan, or NULL when the engine does not
 * support the graph. */
hipdnnBackendDescriptor_t bench_engine_plan(hipdnnBackendDescriptor_t graph, const char *engine);
hipdnnBackendDescriptor_t bench_pack(int n, int64_t *uids, void **ptrs);
/* The same with a workspace pointer. */
hipdnnBackendDescriptor_t bench_pack_ws(int n, int64_t *uids, void **ptrs, void *ws);
/* Device memory holding n random bf16 values in [-2, 2). */
void *bench_random_bf16(size_t n);
/* Median milliseconds of `reps` event-timed executions after `warmup`, rotating over packs; the
 * event pairs are all recorded before the first is read (PyTorch's timer, bench/torch_timing.py). */
float bench_median_ms(hipdnnBackendDescriptor_t plan, hipdnnBackendDescriptor_t *packs, int n_packs,
                      int warmup, int reps);
/* The same for a plan and n_sets input sets of n tensors (set s: ptrs[s * stride + i] for uids[i]),
 * with the plan's workspace allocated for the run (at most 8 sets). */
float bench_plan_ms(hipdnnBackendDescriptor_t plan, int n, int64_t *uids, void **ptrs, int stride, int n_sets,
                    int warmup, int reps);

#endif
