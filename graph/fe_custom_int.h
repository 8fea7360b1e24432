/* fe_custom_int.h — private to graph/: the built-in custom-op provider `jit` and what its op
 * jit.hip_source is made of.
 *   fe_custom_hip_source.c  the provider table, the payload (JSON) read and checked against the
 *                           op's tensors, the GPU kernel;
 *   fe_custom_hip_ref.c     the host reference: the user's kernel behind the host preludes, run
 *                           on the host;
 *   fe_custom_expr.c        size expressions ("cdiv(numel(out0), 256)") over the op's tensors;
 *   fe_custom_host.c        a C++ text built into a shared object by the host compiler, loaded
 *                           once per process and launched on the host block scheduler
 *                           (graph/fe_host_sched.h).
 * fe_custom.c holds the provider's table, a built-in entry of its registry (no program or plugin
 * can take the name). The reference runs the kernel on the host over the call's host tensors.
 */
#ifndef HIPDNN_FE_CUSTOM_INT_H
#define HIPDNN_FE_CUSTOM_INT_H

#include "graph/fe_graph.h"
#include "hipdnn_jit_custom_op.h"

/* ---- fe_custom_hip_source.c ----------------------------------------------------------------------- */

/* The built-in provider "jit" (its table: fe_custom.c) has one op, jit.hip_source (README.md
 * "Custom ops"); these are its check, kernel and reference (hipdnnJitCustomOpProvider_t's
 * contract: 0, or non-zero with the reason in why). */
int fe_hs_check(const hipdnnJitCustomOpCall_t *call, char *why, size_t why_size);
int fe_hs_kernel(const hipdnnJitCustomOpCall_t *call, const char *arch, hipdnnJitKernelSource_t *kernel, char *why,
                 size_t why_size);
int fe_hs_reference(const hipdnnJitCustomOpCall_t *call, char *why, size_t why_size); /* fe_custom_hip_ref.c */

#define FE_HS_MAX_SOURCE (1 << 20)  /* bytes of kernel source, the NUL excluded: fewer */
#define FE_HS_MAX_SHARED 232448     /* dynamic shared memory bytes (227 KiB, sm_90's opt-in) */

/* One use of jit.hip_source, read and checked: its payload against its tensors, every size
 * expression evaluated. */
typedef struct fe_hs_op {
    void *doc;          /* the parsed payload (a json_t), which owns source and entry */
    const char *source; /* the kernel's source, NUL-terminated */
    const char *entry;  /* its __global__ function */
    uint32_t grid[3], block[3], shared_bytes;
    int32_t num_args;
    hipdnnJitKernelArg_t args[HIPDNN_JIT_CUSTOM_OP_MAX_ARGS]; /* INPUT / OUTPUT index, or INT64 value */
} fe_hs_op;

/* Reads call's payload (README.md "Custom ops" gives the format) against its tensors: 0, or -1
 * with the refusal, "jit.hip_source: <field> ...: <what is wrong>", in why. On success free the
 * op with fe_hs_free. */
/* Writes "jit.hip_source: <message>" into why (n bytes); returns -1 (fe_custom_hip_source.c). */
int fe_hs_refuse(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int fe_hs_read(const hipdnnJitCustomOpCall_t *call, fe_hs_op *op, char *why, size_t why_size);
void fe_hs_free(fe_hs_op *op);

/* ---- fe_custom_expr.c: size expressions ----------------------------------------------------------- */

#define FE_EXPR_MAX_LEN 256  /* characters */
#define FE_EXPR_MAX_DEPTH 32 /* nested parentheses, calls and unary minus */

/* Evaluates a size expression over the tensors of call (in<N>, out<N>), in int64:
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '%') unary)*          / and % truncate toward zero, as C's
 *   unary   := '-' unary | primary
 *   primary := INT | '(' expr ')' | f '(' args ')'
 *   f       := numel(T) | rank(T) | dim(T, d) | stride(T, d) | cdiv(a, b) | min(a, b) | max(a, b)
 *   T       := in<N> | out<N>                              d < 0 counts from the end
 * Returns 0 with *value, or -1 with what is wrong (no field name, no quote of the text) in
 * why: a syntax error and where, division or modulo by zero, int64 overflow, a tensor or dim
 * index out of range, more than FE_EXPR_MAX_LEN characters or FE_EXPR_MAX_DEPTH levels. */
int fe_expr_eval(const char *text, const hipdnnJitCustomOpCall_t *call, int64_t *value, char *why, size_t why_size);

/* ---- fe_custom_host.c: kernels run on the host ---------------------------------------------------- */

typedef struct fe_host_object fe_host_object;

/* The embedded text of a host prelude: "fe_host_sched.h" or "fe_host_cuda.h" (NULL otherwise). */
const char *fe_host_prelude(const char *name);
/* The shared object built from `text` (C++17 holding the scheduler and an extern "C" wrapper
 * `void hd_host_kernel(void **args)`), held for the caller: built with the host compiler
 * ($HIPDNN_HOST_CXX, else c++ on PATH) in a private temporary directory, which is removed
 * again, on the first use of the text in this process, then kept (at most 32 objects; the
 * least recently used one no caller holds makes room). 0, or -1 with the reason in why (no
 * compiler, the compiler's first lines of errors, a load failure). */
int fe_host_load(const char *text, fe_host_object **obj, char *why, size_t why_size);
/* Runs hd_host_kernel over grid x block threads with args (one launch at a time per object). 0,
 * or -1 with the scheduler's reason (a barrier or shuffle the threads disagree on). */
int fe_host_launch(fe_host_object *obj, void **args, const uint32_t grid[3], const uint32_t block[3], char *why,
                   size_t why_size);
/* Gives a held object back. */
void fe_host_release(fe_host_object *obj);

#endif
