/* tu_close_ir.h — per-element comparison of one IR tensor (tu_close.h) with the tolerance its
 * producing ops call for: the widest operation family and the longest sum on the ops that made
 * it (looking through pointwise epilogues to their anchor), at the coarsest data type it passed
 * through (the reference rounds virtual intermediates to their types). Shared by the GPU tests
 * (tests/gpu/gpu_util.c) and the host-emulated kernels (tests/unit/codegen/emu_run.c).
 * Needs the internal ir/ir.h, so not for tests/api/. Implementation: tu_close_ir.c.
 */
#ifndef HIPDNN_TESTS_TU_CLOSE_IR_H
#define HIPDNN_TESTS_TU_CLOSE_IR_H

#include "ir/ir.h"
#include "tu_close.h"

/* The tolerance for output tensor ti of ir. */
tu_tol tu_tol_of_output(const ir_graph *ir, int ti);

/* Compares every element of got with want (two views of tensor ti) at tu_tol_of_output's
 * tolerance; with `expect`, a mismatch fails the test (tu_expect_close, message starting with
 * `what`), else the result is only returned. */
tu_close_result tu_close_tensor(const ir_graph *ir, int ti, const ir_buf *got, const ir_buf *want,
                                const char *what, bool expect);

#endif
