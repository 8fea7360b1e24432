/* dyn_graphs.h — graph families for the dynamic-shape tests (tests/unit/codegen/test_cg_dyn.c,
 * tests/gpu/test_gpu_dyn.c): one topology each, built at any batch B and sequence length S
 * (the dims that vary between calls) with the inner dims fixed, in the JSON model, optionally
 * with HIPDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED set.
 *
 *   DYN_LAYERNORM        layernorm training, x [B, S, H] bf16 -> y bf16, mean / inv_var [B, S, 1]
 *   DYN_RMSNORM_RESIDUAL r = x + res (stored), rmsnorm inference of r, all [B, S, H] bf16
 *   DYN_POINTWISE_BCAST  y = (x + bias[1, 1, H]) * gate[B, 1, 1], z = relu(y) (both bf16):
 *                        B and S index differently for the gate (two outer dims)
 *   DYN_POINTWISE_PADDED y = x * scale[1, S, 1] + bias[1, 1, H], x and y with padded rows
 *   DYN_MATMUL_BIAS      y [B, S, N] = relu(A [B, S, K] · W [1, K, N] + bias [1, 1, N]), bf16
 *   DYN_MATMUL_BATCHED   y [B, 2, S, N] = A [B, 2, S, K] · W [B, 2, K, N] (two batch dims)
 * `inner` is H (norms, pointwise) or K = N (matmuls); a multiple of 8 keeps vector accesses.
 */
#ifndef HIPDNN_TESTS_DYN_GRAPHS_H
#define HIPDNN_TESTS_DYN_GRAPHS_H

#include <hipdnn_backend.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum dyn_family {
    DYN_LAYERNORM,
    DYN_RMSNORM_RESIDUAL,
    DYN_POINTWISE_BCAST,
    DYN_POINTWISE_PADDED,
    DYN_MATMUL_BIAS,
    DYN_MATMUL_BATCHED,
    DYN_FAMILIES
} dyn_family;

const char *dyn_family_name(dyn_family f);
/* The family's JSON graph at (b, s, inner) (malloc'd text). */
char *dyn_graph_json(dyn_family f, int64_t b, int64_t s, int64_t inner);
/* The graph deserialized, bound to handle, with the dynamic-shape flag when `dynamic`, and
 * finalized (Criterion asserts on failure). */
hipdnnBackendDescriptor_t dyn_graph(hipdnnHandle_t handle, dyn_family f, int64_t b, int64_t s,
                                    int64_t inner, bool dynamic);

#endif
