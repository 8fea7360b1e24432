/* tu_close.h — the one per-element comparison every numerics test uses.
 *
 * For every element: |got - want| <= atol + rtol·|want|; where want is NaN, got must be NaN; where
 * want is ±Inf, got must be the same infinity; a NaN or infinite got against a finite want is a
 * mismatch. On a mismatch the test fails (Criterion cr_expect) with the number of bad elements,
 * the worst one (largest excess over its bound) with its index, both values and the bound, and
 * the seed the caller passes in its `what`. Never one norm over the whole tensor: a norm hides a
 * few wrong elements. Tolerances per data type and operation family: tu_tol_for.
 * Plain C and Criterion; usable from every test folder. Implementation: tu_close.c.
 */
#ifndef HIPDNN_TESTS_TU_CLOSE_H
#define HIPDNN_TESTS_TU_CLOSE_H

#include <hipdnn_backend.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct tu_tol {
    double atol, rtol;
} tu_tol;

/* What produced an output, for its tolerance. */
typedef enum tu_family {
    TU_EXACT,       /* copies, layout changes, comparisons, selects: bit-exact */
    TU_POINTWISE,   /* a few fp32 operations per element (fast transcendentals included) */
    TU_REDUCTION,   /* norms, statistics, softmax: fp32 sums over `length` elements, O(1) results */
    TU_DOT,         /* matmul, convolution: sums of `length` products of O(1) inputs */
    TU_ATTENTION,   /* fused attention: P rounded to 16 bits before P·V, as FlashAttention does */
} tu_family;

/* The tolerance for an output of type t from an operation of family f that sums `length`
 * terms (ignored for TU_EXACT and TU_POINTWISE). The output's rounding (2 ulps of t) plus the
 * fp32 arithmetic's: ~sqrt(length) roundings of the running sum for sums. */
tu_tol tu_tol_for(hipdnnDataType_t t, tu_family f, long long length);

typedef struct tu_close_result {
    size_t n, bad;
    size_t worst;        /* index of the worst element (largest |got - want| - bound) */
    double got, want, bound;
    double max_ratio;    /* the largest |got - want| / bound over the finite elements (headroom) */
} tu_close_result;

/* Compares n elements and returns the result without failing the test. */
tu_close_result tu_close_check(const double *got, const double *want, size_t n, tu_tol tol);

/* tu_close_check, failing the test (cr_expect) on any mismatch with a message that starts with
 * `what`; returns true when every element matched. */
bool tu_expect_close(const char *what, const double *got, const double *want, size_t n, tu_tol tol);

#endif
