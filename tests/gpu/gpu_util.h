/* gpu_util.h — the GPU tests' harness (gpu_util.c), shared by every tests/gpu/test_gpu_*.c file.
 *
 * A case builds a graph in the JSON model (tensor, scalar, node, finalize_graph), then
 * check_graph runs it on the JIT engine (device memory, outputs poisoned with 0xFF bytes) and on
 * the reference engine (host memory) with the same fresh random inputs and compares every output
 * element by element (tests/common/tu_close.h, the tolerance from the type and the ops that made
 * the output), or with a comparison of the file's own through check_plan_cmp
 * (gpu_compare_attention).
 * Each file declares its own suite with `.init = gpu_setup, .fini = gpu_teardown`.
 */
#ifndef HIPDNN_TEST_GPU_UTIL_H
#define HIPDNN_TEST_GPU_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/tu.h"
#include "engines/fe_engines.h"
#include "runtime/rt.h"

extern hipdnnHandle_t handle;
extern unsigned seed;

/* Suite init (skips without a GPU; seeds rand() from HIPDNN_TEST_SEED or the clock) and fini. */
void gpu_setup(void);
void gpu_teardown(void);
/* A random integer in [lo, hi]. */
int rnd(int lo, int hi);

/* ---- graph building (JSON model) ---- */
json_t *tensor(int uid, const char *dtype, int rank, const int64_t *dims, const int64_t *strides,
               bool is_virtual);
/* A by-value fp32 scalar of rank 2 ([1, 1]). */
json_t *scalar(int uid, float v);
/* Packed row-major strides for dims; the second-to-last dim's stride is padded by row_pad. */
void packed(int rank, const int64_t *dims, int64_t *strides, int64_t row_pad);
json_t *node(const char *type, json_t *attrs);
/* Deserializes {tensors, nodes}, attaches the handle and finalizes; steals both arrays. */
hipdnnBackendDescriptor_t finalize_graph(json_t *tensors, json_t *nodes);

/* ---- running ---- */
/* Knob choices every following plan_with gives engines other than the reference one (ids are
 * kept, not copied; n = 0 goes back to the defaults). Suites that set knobs reset them. */
void gpu_set_knobs(int n, const char *const *ids, const int64_t *values);
hipdnnBackendDescriptor_t plan_with(hipdnnBackendDescriptor_t g, const char *engine);
/* The same with a finalized KERNEL_CACHE attached (NULL: the process-wide cache). */
hipdnnBackendDescriptor_t plan_with_cache(hipdnnBackendDescriptor_t g, const char *engine, hipdnnBackendDescriptor_t cache);
int64_t workspace_of(hipdnnBackendDescriptor_t plan);
void execute(hipdnnBackendDescriptor_t plan, int n, int64_t *uids, void **ptrs, void *ws);
/* The same, returning the status instead of asserting it (the message is in tu_msg()). */
hipdnnStatus_t try_execute(hipdnnBackendDescriptor_t plan, int n, int64_t *uids, void **ptrs, void *ws);
/* Bytes from a tensor's first element to one past its last. */
size_t extent_bytes(const ir_tensor *t);
ir_buf view(const ir_tensor *t, void *data);
/* The relative-L2 tolerance for an output of type t (the aggregate checks that remain beside the
 * per-element ones). */
double tolerance(hipdnnDataType_t t);

/* Fills input t (view b) with values a case needs (page tables, positive variances); returns
 * false to leave it to the default: uniform random in [-2, 2]. */
typedef bool (*gpu_fill_fn)(const ir_tensor *t, ir_buf *b);
/* Runs g on `engine` (device memory) and on the reference engine (host memory) with the same
 * inputs and compares every output. */
void check_graph_with(hipdnnBackendDescriptor_t g, const char *engine, gpu_fill_fn fill, const char *what);
/* The same with a finalized plan of g (any engine config) in place of the engine's default one. */
void check_plan(hipdnnBackendDescriptor_t g, hipdnnBackendDescriptor_t plan, gpu_fill_fn fill,
                const char *what);
/* Compares output t of the GPU run (got) with the reference's (want), failing the test on a
 * mismatch. check_plan's (cmp NULL): every element within tu_close's bound for the output's type
 * and the family and sum length of the ops that made it. */
typedef void (*gpu_compare_fn)(const ir_tensor *t, const ir_buf *got, const ir_buf *want, const char *what);
/* check_plan's default comparison of output ir->t[ti]. */
void gpu_compare_output(const ir_graph *ir, int ti, const ir_buf *got, const ir_buf *want, const char *what);
/* How many times check_plan_cmp executes the GPU plan (default 1), poisoning the outputs before
 * each and comparing each with the reference: state a plan keeps between launches must not leak. */
void gpu_set_executions(int n);
/* check_plan with comparison cmp. */
void check_plan_cmp(hipdnnBackendDescriptor_t g, hipdnnBackendDescriptor_t plan, gpu_fill_fn fill,
                    gpu_compare_fn cmp, const char *what);
/* Attention's comparison (op-semantics.md §4.11): every element within atol = rtol = 2e-2
 * (tu_close's TU_ATTENTION), infinities matched exactly (Stats of fully masked rows are −inf), no
 * NaN; and relative L2 over the finite elements within tolerance(type) for 16-bit outputs (O),
 * 1e-3 for fp32 ones (Stats, Max, Sum_exp, RNG_DUMP). */
void gpu_compare_attention(const ir_tensor *t, const ir_buf *got, const ir_buf *want, const char *what);
/* ---- attention backward ---- */
/* Uids below GPU_MAX_UID (gpu_check_backward's buffers are indexed by uid). */
#define GPU_MAX_UID 256
typedef bool (*gpu_uid_pred)(int64_t uid);
/* A gradient of attention compared (op-semantics.md §4.11): every element within atol 2e-2 (7e-2
 * for a bf16 gradient that sums over every query row, `kv`: dK, dV), rtol 2e-2, no NaN; the
 * relative L2 error within twice the type's tolerance. */
void gpu_compare_grad(const ir_tensor *t, const ir_buf *got, const ir_buf *want, bool kv, const char *what);
/* The backward graph gb checked: its inputs filled (fill, else uniform [-2, 2]), O and Stats (every
 * output of the forward graph gf over the same uids) from the reference engine's forward of them,
 * then gb on jit_fused (device memory, outputs poisoned) and on the reference engine, every output
 * compared (gpu_compare_grad; kv(uid) says which sum over query rows). With `bitwise` a second run
 * of the JIT plan, outputs poisoned again, must give the same bytes in the outputs it names. */
void gpu_check_backward(hipdnnBackendDescriptor_t gb, hipdnnBackendDescriptor_t gf, gpu_fill_fn fill, gpu_uid_pred kv,
                        gpu_uid_pred bitwise, const char *what);

/* check_graph_with(g, "jit_fused", NULL, what). */
void check_graph(hipdnnBackendDescriptor_t g, const char *what);
/* check_graph_with on jit_fused, then on jit_unfused ("<what> on <engine>"). */
void check_graph_both_jit(hipdnnBackendDescriptor_t g, const char *what);

#endif
