/* test_close.c — the per-element comparison helper itself (tests/common/tu_close.c).
 *
 * One deliberately wrong element in a million is found, by index, while the relative L2 error
 * over the whole tensor (the check the GPU tests used before) stays below the bf16 tolerance
 * they used (1.2e-2) and would have passed it; NaN and infinity positions must match; values
 * within the bound pass; the tolerance table grows with the type's ulp and the sum's length.
 * Fresh random data each run (seed printed).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "../common/tu.h"
#include "../common/tu_close.h"

Test(close, one_wrong_element_in_a_million_is_found)
{
    tu_seed("close::one_wrong_element_in_a_million_is_found");
    const size_t n = 1 << 20;
    double *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    tu_tol tol = tu_tol_for(HIPDNN_DATA_BFLOAT16, TU_POINTWISE, 1);
    for (size_t i = 0; i < n; i++) {
        want[i] = tu_float(-2, 2);
        got[i] = want[i] * (1 + tol.rtol * tu_float(-0.5f, 0.5f)); /* within the bound */
    }
    tu_close_result r = tu_close_check(got, want, n, tol);
    cr_expect_eq(r.bad, 0, "values within the bound pass (worst at %zu: %g vs %g)", r.worst, r.got, r.want);
    size_t at = (size_t)tu_range(0, (int64_t)n - 1);
    got[at] = want[at] + 1.0; /* one element off by 1 */
    r = tu_close_check(got, want, n, tol);
    cr_expect_eq(r.bad, 1);
    cr_expect_eq(r.worst, at, "the worst element is the wrong one");
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++)
        num += (got[i] - want[i]) * (got[i] - want[i]), den += want[i] * want[i];
    cr_expect_lt(sqrt(num / den), 1.2e-2, "a whole-tensor norm would not see it (relative L2 %g)",
                 sqrt(num / den));
    free(want), free(got);
}

Test(close, nan_and_infinity_positions_must_match)
{
    tu_tol tol = {1e-3, 1e-3};
    double want[] = {NAN, 1.0, INFINITY, -INFINITY, 2.0, 0.0};
    double ok[] = {NAN, 1.0005, INFINITY, -INFINITY, 2.001, -0.0005};
    cr_expect_eq(tu_close_check(ok, want, 6, tol).bad, 0);
    double bad[][6] = {{0.0, 1.0, INFINITY, -INFINITY, 2.0, 0.0},      /* NaN lost */
                       {NAN, NAN, INFINITY, -INFINITY, 2.0, 0.0},      /* NaN appeared */
                       {NAN, 1.0, -INFINITY, -INFINITY, 2.0, 0.0},     /* wrong infinity */
                       {NAN, 1.0, INFINITY, -INFINITY, INFINITY, 0.0}, /* infinity appeared */
                       {NAN, 1.0, 1e30, -INFINITY, 2.0, 0.0},          /* infinity lost */
                       {NAN, 1.0, INFINITY, -INFINITY, 2.0, 0.0021}};  /* beyond atol at 0 */
    for (int k = 0; k < 6; k++) {
        tu_close_result r = tu_close_check(bad[k], want, 6, tol);
        cr_expect_eq(r.bad, 1, "case %d: %zu bad", k, r.bad);
    }
}

Test(close, tolerances_follow_type_and_length)
{
    tu_tol f32 = tu_tol_for(HIPDNN_DATA_FLOAT, TU_POINTWISE, 1);
    tu_tol b16 = tu_tol_for(HIPDNN_DATA_BFLOAT16, TU_POINTWISE, 1);
    tu_tol h16 = tu_tol_for(HIPDNN_DATA_HALF, TU_POINTWISE, 1);
    cr_expect(f32.rtol < h16.rtol && h16.rtol < b16.rtol, "%g %g %g", f32.rtol, h16.rtol, b16.rtol);
    cr_expect(b16.rtol <= 0x1p-5 && b16.rtol >= 0x1p-7, "bf16: about 2 ulps (%g)", b16.rtol);
    tu_tol k64 = tu_tol_for(HIPDNN_DATA_BFLOAT16, TU_DOT, 64), k4096 = tu_tol_for(HIPDNN_DATA_BFLOAT16, TU_DOT, 4096);
    cr_expect_gt(k4096.atol, k64.atol, "longer sums, wider bounds");
    tu_tol ex = tu_tol_for(HIPDNN_DATA_INT32, TU_EXACT, 1);
    cr_expect(ex.atol == 0 && ex.rtol == 0);
}
