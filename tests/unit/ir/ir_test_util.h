/* ir_test_util.h — helpers shared by the IR unit tests (tests/unit/ir).
 *
 * Owns: the test RNG (fresh seed per test, printed; HIPDNN_TEST_SEED replays it), host tensors
 * with random layouts whose memory is poisoned (bytes 0xff: NaN for every float type) before a
 * kernel writes them, running a reference op on them, element-wise comparison with a stated
 * tolerance, and an independent round-to-nearest-even for HALF/BFLOAT16 built from base/'s
 * bit conversions (a second implementation to check ir_dtype.c against).
 */
#ifndef HIPDNN_IR_TEST_UTIL_H
#define HIPDNN_IR_TEST_UTIL_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

/* A check that does not report passes. */
#define CHECK(cond, ...)                                                                      \
    do {                                                                                      \
        if (!(cond))                                                                          \
            cr_assert_fail("%s:%d: %s (seed %llu)", __FILE__, __LINE__, #cond,                \
                           (unsigned long long)tt_seed_value());                              \
    } while (0)

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})

/* ---- randomness ----------------------------------------------------------------------------- */
void tt_seed(const char *test);
uint64_t tt_seed_value(void);
uint64_t tt_rand(void);
double tt_unif(double lo, double hi);
int64_t tt_randint(int64_t lo, int64_t hi); /* inclusive */

/* ---- tensors -------------------------------------------------------------------------------- */
typedef enum tt_layout {
    TT_DENSE,  /* row-major packed */
    TT_RANDOM, /* random dim order, random gaps, garbage strides on size-1 dims */
} tt_layout;

typedef struct tt {
    ir_buf b;
    void *mem;
    size_t bytes;
} tt;

tt *tt_new(hipdnnDataType_t t, int rank, const int64_t *dims, tt_layout layout);
/* Dims in logical order, strides as given (elements); memory sized to cover them. */
tt *tt_new_strided(hipdnnDataType_t t, int rank, const int64_t *dims, const int64_t *strides);
/* Same dims, type and (when TT_RANDOM) a fresh random layout. */
tt *tt_like(const tt *x, hipdnnDataType_t t, tt_layout layout);
void tt_free(tt *x);
void tt_fill(tt *x, double lo, double hi); /* uniform values, rounded to the type on store */
double tt_at(const tt *x, const int64_t *idx);
void tt_set(tt *x, const int64_t *idx, double v);
int64_t tt_numel(const tt *x);
/* Row-major (logical) copy of the elements as doubles; free() it. */
double *tt_dense(const tt *x);
int64_t tt_lin(const int64_t *dims, int rank, const int64_t *idx);
void tt_unlin(const int64_t *dims, int rank, int64_t lin, int64_t *idx);

/* Runs op k with operands given as tensors (NULL = absent). */
hipdnnStatus_t tt_run(ir_op_kind k, const ir_attrs *a, tt *const *in, int n_in, tt *const *out,
                      int n_out);

/* Every element of out within atol + rtol*|want| of want (row-major dense), NaN and infinities
 * exactly where want has them: tests/common/tu_close.h's comparison. Fails (and stops) the test
 * with the count of bad elements, the worst one and the seed. */
void tt_check(const tt *out, const double *want, double atol, double rtol, const char *what);
void tt_check_value(double got, double want, double atol, double rtol, const char *what);

/* ---- independent rounding for HALF and BFLOAT16 ----------------------------------------------- */
/* v rounded to nearest even in t (HALF or BFLOAT16) by searching the table of every code's
 * value as base_fp16_to_f32 / base_bf16_to_f32 decode it. */
double tt_round_ref(hipdnnDataType_t t, double v);
/* got is v correctly rounded to t: equal to tt_round_ref(t, v), or v lies within a relative
 * 1e-9 of the midpoint between got and that value (an exact-tie ambiguity for v computed in
 * another order). */
bool tt_rounded_ok(hipdnnDataType_t t, double got, double v);

#endif
