/* sz_util.h — helpers shared by the serialization suites: graphs of any operation types with
 * every optional attribute set (from tests/common/recipes), the serialized forms of a graph,
 * and JSON comparisons that print both sides when they differ.
 * Implementation: sz_util.c (public API and jansson only).
 */
#ifndef HIPDNN_TESTS_SZ_UTIL_H
#define HIPDNN_TESTS_SZ_UTIL_H

#include <hipdnn_backend.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/recipes.h"

#define SZ_MAX_OPS 24

/* A graph built from full recipes; owns everything it made. */
typedef struct sz_graph {
    hipdnnBackendDescriptor_t graph;
    rc_ctx ctx[SZ_MAX_OPS];
    int n_ctx;
    rc_ctx extra; /* consumers of virtual outputs */
} sz_graph;

/* Every OPERATION_* spec of rc_specs, in table order. */
int sz_op_specs(const rc_desc **out, int max);

/* A graph of one full-recipe operation per spec (graph-level optional attributes set too),
 * each in recipe variant `variant` (modulo its count); every virtual output gets an IDENTITY
 * consumer. Finalized when `finalize`. */
void sz_build(sz_graph *g, hipdnnHandle_t handle, const rc_desc *const *specs, int n,
              int variant, bool finalize);
void sz_free(sz_graph *g);

/* The serialized forms of a graph (asserting success); free() the results. */
char *sz_json_text(hipdnnBackendDescriptor_t graph);
uint8_t *sz_binary(hipdnnBackendDescriptor_t graph, size_t *len);
/* The JSON model of a graph, parsed. json_decref it. */
json_t *sz_json(hipdnnBackendDescriptor_t graph);

/* json_equal, printing both documents on a difference; returns the verdict. */
bool sz_same(const json_t *a, const json_t *b, const char *what);
/* Like sz_same but reals compare equal when they round to the same float, or differ by at
 * most 6e-7 (flatc 2.0.8 prints floats in fixed notation with 6 decimals). */
bool sz_same_loose(const json_t *a, const json_t *b, const char *what);

#endif
