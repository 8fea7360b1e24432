/* tu.h — small helpers shared by the test suites: a seeded random generator, status checks
 * that print the library's last-error message.
 *
 * Uses nothing but <hipdnn_backend.h>, Criterion and the C library, so tests/api/ suites may
 * include it. Implementation: tu.c, compiled into every test program that uses it.
 *
 * Randomness: tu_seed("test name") seeds from the clock and pid (fresh every run) and prints
 * the seed; HIPDNN_TEST_SEED=<n> replays a run.
 */
#ifndef HIPDNN_TESTS_TU_H
#define HIPDNN_TESTS_TU_H

#include <criterion/criterion.h>
#include <hipdnn_backend.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- randomness (splitmix64; state shared by every file of one test program) ------------ */

uint64_t tu_rand(void);
/* Uniform in [lo, hi] (inclusive). */
int64_t tu_range(int64_t lo, int64_t hi);
/* Uniform in [lo, hi). */
float tu_float(float lo, float hi);
/* Seeds fresh (or from HIPDNN_TEST_SEED) and prints the seed with the test's name. */
uint64_t tu_seed(const char *test);
/* Fills n bytes with random data. */
void tu_bytes(void *p, size_t n);

/* ---- statuses ------------------------------------------------------------------------------ */

/* The calling thread's last error message, without clearing it (a per-thread buffer). */
const char *tu_msg(void);

static inline const char *tu_st(hipdnnStatus_t s) { return hipdnnGetErrorString(s); }

/* Asserts that `call` returns `want` (fatal for the test). */
#define TU_EQ(call, want)                                                                        \
    do {                                                                                        \
        hipdnnStatus_t tu_s_ = (call), tu_w_ = (want);                                          \
        cr_assert_eq(tu_s_, tu_w_, "%s:%d: %s -> %s, expected %s [%s]", __FILE__, __LINE__,     \
                     #call, tu_st(tu_s_), tu_st(tu_w_), tu_msg());                              \
    } while (0)
#define TU_OK(call) TU_EQ(call, HIPDNN_STATUS_SUCCESS)

/* Non-fatal variant with a context string. */
#define TU_EXPECT(call, want, ctx)                                                               \
    do {                                                                                        \
        hipdnnStatus_t tu_s_ = (call), tu_w_ = (want);                                          \
        cr_expect_eq(tu_s_, tu_w_, "%s: %s -> %s, expected %s [%s]", (ctx), #call, tu_st(tu_s_), \
                     tu_st(tu_w_), tu_msg());                                                   \
    } while (0)

/* ---- small descriptor helpers ---------------------------------------------------------------- */

/* examples/graphs/<file>, deserialized, bound to handle and finalized (asserts on failure). */
hipdnnBackendDescriptor_t tu_example_graph(hipdnnHandle_t handle, const char *file);
/* The same for a graph's JSON text of len bytes (`what` names it in failure messages). */
hipdnnBackendDescriptor_t tu_json_graph(hipdnnHandle_t handle, const char *text, size_t len, const char *what);
/* A finalized OPERATIONGRAPH on handle of one finalized operation. */
hipdnnBackendDescriptor_t tu_graph_of(hipdnnHandle_t handle, hipdnnBackendDescriptor_t op);

/* Skips the calling test (reported as skipped, with the reason) where no GPU can be allocated on. */
void tu_need_gpu(void);

/* Descriptors a test keeps alive until tu_kept_release (from its .fini, or mid-test): tu_keep
 * returns d; at most TU_MAX_KEPT at once. */
#define TU_MAX_KEPT 1024
hipdnnBackendDescriptor_t tu_keep(hipdnnBackendDescriptor_t d);
void tu_kept_release(void);

static inline void tu_destroy(hipdnnBackendDescriptor_t *d)
{
    if (*d != NULL) {
        cr_expect_eq(hipdnnBackendDestroyDescriptor(*d), HIPDNN_STATUS_SUCCESS, "destroy: %s",
                     tu_msg());
        *d = NULL;
    }
}

/* An unfinalized tensor descriptor with every attribute set but a value (caller finalizes and
 * destroys it), for tests of finalize itself. */
hipdnnBackendDescriptor_t tu_tensor_unfinalized(int64_t uid, hipdnnDataType_t dt, int rank, const int64_t *dims,
                                                const int64_t *strides, bool is_virtual);

/* A whole file, NUL-terminated (the NUL not counted in *len); NULL when it cannot be read. */
char *tu_read_file(const char *path, size_t *len);

/* A finalized tensor descriptor (caller destroys it): uid, type, dims with packed strides,
 * virtual or not, and by-value bytes when value is not NULL (value_len of them). */
hipdnnBackendDescriptor_t tu_tensor(int64_t uid, hipdnnDataType_t dt, int rank, const int64_t *dims,
                                    bool is_virtual, const void *value, int64_t value_len);

/* A finalized execution plan of graph g on engine `engine_id` with its default knobs (ENGINE,
 * ENGINECFG and PLAN finalized in turn, the first two destroyed). The first failing call's status,
 * with nothing left allocated; no Criterion assertion (usable in a forked child). */
hipdnnStatus_t tu_try_plan(hipdnnHandle_t handle, hipdnnBackendDescriptor_t g, int64_t engine_id,
                           hipdnnBackendDescriptor_t *plan);

/* The SDPA ops' tensor attributes in uid order 1..: forward Q, K, V, O, Stats; backward Q, K, V,
 * O, Stats, dO, dQ, dK, dV. */
extern const hipdnnBackendAttributeName_t tu_sdpa_fwd_attrs[5];
extern const hipdnnBackendAttributeName_t tu_sdpa_bwd_attrs[9];

/* A finalized unary POINTWISE op: out = mode(in). */
hipdnnBackendDescriptor_t tu_unary(hipdnnPointwiseMode_t mode, hipdnnBackendDescriptor_t in,
                                   hipdnnBackendDescriptor_t out);

/* A finalized variant pack binding n uids to pointers, with workspace ws (caller destroys it). */
hipdnnBackendDescriptor_t tu_pack(int n, const int64_t *uids, void *const *ptrs, void *ws);

/* Packed row-major strides for dims. */
static inline void tu_packed_strides(int rank, const int64_t *dims, int64_t *strides)
{
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i];
    }
}

/* Strides of a convolution operand's dims (rank 4 or 5; dim 1 the channels): NCHW, or with
 * nhwc the channels fastest; the fastest dim's extent rounded up to a multiple of 8 with nhwc
 * and pad8 (pixels of 8-channel chunks), then `pad` elements more. */
static inline void tu_conv_strides(int rank, const int64_t *dims, bool nhwc, bool pad8, int64_t pad, int64_t *s)
{
    int order[8], n = 0; /* fastest first */
    if (nhwc)
        order[n++] = 1;
    for (int d = rank - 1; d >= 0; d--)
        if (!nhwc || d != 1)
            order[n++] = d;
    int64_t acc = 1;
    for (int i = 0; i < rank; i++)
        s[order[i]] = acc, acc *= i > 0 ? dims[order[i]] : (nhwc && pad8 ? (dims[1] + 7) / 8 * 8 : dims[order[0]]) + pad;
}

#endif
