/* emu_run.h — runs one emitted kernel on the host and checks it against the reference
 * interpreter: the harness of the host-emulated kernel tests (test_emu_*.c, test_cg_channorm.c).
 *
 * A case is a sealed IR graph that fuses into one kernel, and the codegen target (knobs) to
 * emit it for. emu_check goes the way of the JIT engine as far as the source: ir_fuse, then
 * cg_supports and cg_emit (twice: the same bytes); then, in place of NVRTC and the GPU:
 *   build    the emitted source from hd_common.h on, after emu_prelude.h instead of the NVIDIA
 *            prelude, with one wrapper per entry, compiled by the host C++ compiler (HIPDNN_CXX,
 *            the project's) into a shared object and loaded;
 *   data     every tensor in its own buffer with guard bytes on both sides: inputs random
 *            (uniform in [-2, 2], or [0.5, 2] for the uids the case names positive), everything
 *            else poisoned (0xFF: NaN in the float types);
 *   run      every launch of the kernel in order, with its grid and block, on the emulator;
 *   compare  every output the kernel writes, element by element (tu_close_ir.h: the tolerance
 *            of its op family and data types) against the reference interpreter run op by op;
 *            and every byte the kernel must not write unchanged: the guards, an output's bytes
 *            between its elements (padded layouts), every input. An MX (E8M0) block scale one
 *            binade off is the reference's only where the block's amax lies within float rounding
 *            of the binade's edge (the kernel's float input may cross it); its codes are then
 *            checked against the reference's input divided by the kernel's scale.
 * Failure messages name the case and the run's seed (emu_seed). The source is compiled without
 * sanitizers even in a sanitizer build (plain `-O1`): the compile stays fast and the shared
 * object does not need the sanitizer runtime's instrumentation; the guard bytes stand in for
 * ASan's checks of the kernel's accesses, and the test program itself stays sanitized.
 */
#ifndef HIPDNN_TESTS_EMU_RUN_H
#define HIPDNN_TESTS_EMU_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codegen/cg.h"
#include "ir/ir.h"

#define EMU_MAX_POSITIVE 8

struct emu_bufs;

typedef struct emu_case {
    ir_graph g;                          /* sealed; fuses into one kernel */
    cg_target target;                    /* platform "nvidia", an arch and knobs */
    int64_t positive[EMU_MAX_POSITIVE];  /* uids drawn from [0.5, 2] (0 = unused) */
    char what[200];                      /* names the case in messages */
    /* Optional: after the random fill, gives inputs values of the case's choosing (page ids,
     * lengths) in the reference's copies (b->ref); the kernel's copies are made from them. */
    void (*fill)(const struct emu_case *c, struct emu_bufs *b);
} emu_case;

/* The host twin of an emitted kernel: a loaded shared object. */
typedef struct emu_module {
    void *dl;
    char dir[64];
} emu_module;

/* Every tensor of a graph in host memory: the reference's copy and the kernel's. */
typedef struct emu_bufs {
    int n;
    unsigned char **ref, **got; /* each points past its leading guard */
    size_t *bytes;              /* each buffer's extent, guards excluded */
} emu_bufs;

/* ---- building a case's graph (tensor uids are their index + 1) ---- */

/* Strides of dims laid out with `order` (dims outermost first; NULL: row-major), the innermost
 * one's rows padded by `pad` elements. */
void emu_strides(int rank, const int64_t *dims, const int *order, int64_t pad, int64_t *strides);
/* Adds a tensor (strides NULL: packed row-major); returns its index. */
int emu_tensor(emu_case *c, hipdnnDataType_t dt, int rank, const int64_t *dims, const int64_t *strides,
               bool is_virtual);
/* A float scalar of the given rank (all dims 1): a by-value constant, or with `runtime` a
 * scalar bound at execute (a kernel parameter). */
int emu_scalar(emu_case *c, float v, int rank, bool runtime);
/* out = mode(a, b, cc) (b, cc: -1 when absent); default parameters as the API's. */
void emu_pw(emu_case *c, int mode, int a, int b, int cc, int out);
/* Draws tensor ti's values from [0.5, 2]. */
void emu_positive(emu_case *c, int ti);
/* Seals the graph (asserting success). */
void emu_seal(emu_case *c);

/* ---- running ---- */

/* tu_seed(test), remembered for the failure messages. */
uint64_t emu_seed(const char *test);
/* A target for NVIDIA sm_90 with default knobs and `sm_count` multiprocessors. */
cg_target emu_target(int sm_count);

/* Fuses c->g into exactly one kernel and emits it (asserting cg_supports, and that a second
 * emission gives the same bytes). The caller frees both. */
void emu_emit(const emu_case *c, ir_partition *p, cg_kernel *kn);
/* Builds the host twin of kn from `source` (kn->source, or an altered copy of it). */
void emu_build(const cg_kernel *kn, const char *source, emu_module *m);
void emu_unload(emu_module *m);

void emu_bufs_make(const emu_case *c, emu_bufs *b);
/* A view of tensor t over `data` (one of b->ref / b->got), for ir_load / ir_store. */
ir_buf emu_view(const ir_tensor *t, void *data);
void emu_bufs_free(emu_bufs *b);
/* Runs the reference interpreter op by op over b->ref. */
void emu_reference(const ir_graph *g, emu_bufs *b);
/* Runs every launch of kn over b->got; 0, or -1 with the emulator's reason in err. */
int emu_run(const emu_module *m, const cg_kernel *kn, emu_bufs *b, char *err, size_t err_len);
/* Compares what the kernel wrote (see above); returns the number of wrong elements and bytes.
 * With `expect`, each mismatch fails the test. */
size_t emu_compare(const emu_case *c, const ir_kernel *k, const emu_bufs *b, bool expect);

/* The whole check of one case; frees c->g. With `kept` not NULL, the emitted kernel is handed
 * back (the caller frees it), e.g. to see which paths its #defines chose. */
void emu_check(emu_case *c, cg_kernel *kept);
/* The self-check that a wrong kernel is caught: emits c's kernel, checks that its source runs
 * without a mismatch, then each of n alterations (wrong[i][0] replaced by wrong[i][1] in the
 * source, e.g. an index off by one) on fresh data, expecting mismatches (a run the emulator
 * stops counts as one). Frees c->g. */
void emu_expect_caught(emu_case *c, const char *const wrong[][2], int n);
/* The value of `#define name <integer>` in an emitted source, or `dflt` when it is not there. */
long long emu_define(const char *source, const char *name, long long dflt);
/* source with the first occurrence of `find` replaced by `repl` (malloc'd; asserts that `find`
 * occurs), for the self-checks that a wrong kernel is caught. */
char *emu_replace(const char *source, const char *find, const char *repl);

#endif
