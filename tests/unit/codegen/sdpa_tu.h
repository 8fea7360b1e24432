/* sdpa_tu.h — what the attention codegen tests (test_cg_sdpa.c forward, test_cg_sdpa_bwd.c
 * backward) share: mask kinds, IR tensor builders, the fusion and deterministic-emission steps,
 * and the NVRTC compile check of an emitted kernel. */
#ifndef HIPDNN_TEST_SDPA_TU_H
#define HIPDNN_TEST_SDPA_TU_H

#include <stdbool.h>
#include <stdint.h>

#include "codegen/cg.h"

typedef enum { MASK_NONE, MASK_CAUSAL, MASK_CAUSAL_BR, MASK_WINDOW, MASK_PADDING, N_MASKS } mask_kind;
extern const char *const mask_names[N_MASKS];

/* Whether NVRTC compiles for sm_90 here (the tests skip without it). */
bool have_compiler(void);
/* A [d0,d1,d2,d3] tensor of g, [b,h,s,d] memory or, with bshd, [b,s,h,d]; its index. */
int add(ir_graph *g, hipdnnDataType_t dt, int64_t d0, int64_t d1, int64_t d2, int64_t d3, bool bshd);
/* A by-value integer scalar [1,1,1,1] of type dt holding v; its index. */
int add_i64(ir_graph *g, hipdnnDataType_t dt, int64_t v);
/* Dumps (HIPDNN_JIT_DUMP_DIR) and compiles kernel k with NVRTC for its arch, expecting success
 * (the compiler's log in the failure message); whether it compiled. With HIPDNN_TEST_EMIT_ONLY=1
 * (build.sh's sanitizer pass) it only dumps: the compile of that source ran in the gcc pass. */
bool compile_emitted(const cg_kernel *k, const char *what);
/* Fuses g into one kernel (p) that codegen supports, asserting both. */
void one_supported_kernel(const ir_graph *g, ir_partition *p, const char *what);
/* Emits kernel k for target t into *out, twice, expecting the same source both times. */
void emit_twice(const ir_graph *g, const ir_kernel *k, const cg_target *t, cg_kernel *out, const char *what);

#endif
