/* tu_close.c — per-element comparison with tolerances per type and family (tu_close.h). */
#include <criterion/criterion.h>
#include <math.h>

#include "tu_close.h"

/* The spacing of t's values near 1 (one ulp), or 0 for types compared exactly here. */
static double ulp_of(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FLOAT: return 0x1p-23;
    case HIPDNN_DATA_DOUBLE: return 0x1p-52;
    case HIPDNN_DATA_HALF: return 0x1p-10;
    case HIPDNN_DATA_BFLOAT16: return 0x1p-7;
    case HIPDNN_DATA_FP8_E4M3:
    case HIPDNN_DATA_FP8_E4M3_FNUZ: return 0x1p-3;
    case HIPDNN_DATA_FP8_E5M2:
    case HIPDNN_DATA_FP8_E5M2_FNUZ: return 0x1p-2;
    default: return 0; /* integers, booleans: exact */
    }
}

tu_tol tu_tol_for(hipdnnDataType_t t, tu_family f, long long length)
{
    double out = 2 * ulp_of(t), f32 = 0x1p-23;
    double terms = length > 1 ? sqrt((double)length) : 1;
    switch (f) {
    case TU_EXACT: return (tu_tol){0, 0};
    case TU_POINTWISE: return (tu_tol){out + 8 * f32, out + 8 * f32};
    case TU_REDUCTION: return (tu_tol){out + 16 * f32 * terms, out + 16 * f32 * terms};
    case TU_DOT: /* the sum's magnitude grows like sqrt(length) for O(1) random terms */
        return (tu_tol){(out + 16 * f32) * terms, out + 16 * f32 * terms};
    case TU_ATTENTION: { /* what op-semantics.md §4.11 allows attention: 2e-2, or 2 ulps of t */
        double a = out > 2e-2 ? out : 2e-2;
        return (tu_tol){a, a};
    }
    }
    return (tu_tol){0, 0};
}

/* How far |got - want| is past the bound (<= 0: within it); +inf for a non-finite mismatch. */
static double excess(double got, double want, tu_tol tol, double *bound)
{
    *bound = tol.atol + tol.rtol * fabs(want);
    if (isnan(want))
        return isnan(got) ? 0 : INFINITY;
    if (isinf(want))
        return got == want ? 0 : INFINITY;
    if (!isfinite(got))
        return INFINITY;
    return fabs(got - want) - *bound;
}

tu_close_result tu_close_check(const double *got, const double *want, size_t n, tu_tol tol)
{
    tu_close_result r = {.n = n};
    double worst = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double bound, e = excess(got[i], want[i], tol, &bound);
        if (isfinite(e) && bound > 0 && fabs(got[i] - want[i]) / bound > r.max_ratio)
            r.max_ratio = fabs(got[i] - want[i]) / bound;
        if (e <= 0)
            continue;
        r.bad++;
        if (e > worst) {
            worst = e;
            r.worst = i, r.got = got[i], r.want = want[i], r.bound = bound;
        }
    }
    return r;
}

bool tu_expect_close(const char *what, const double *got, const double *want, size_t n, tu_tol tol)
{
    tu_close_result r = tu_close_check(got, want, n, tol);
    cr_log_info("%s: worst |diff| / bound %.3g (atol %.3g, rtol %.3g)", what, r.max_ratio, tol.atol, tol.rtol);
    cr_expect_eq(r.bad, 0,
                 "%s: %zu of %zu elements differ; worst at index %zu: got %.9g, want %.9g "
                 "(|diff| %.3g > %.3g = atol %.3g + rtol %.3g x |want|)",
                 what, r.bad, r.n, r.worst, r.got, r.want, fabs(r.got - r.want), r.bound, tol.atol,
                 tol.rtol);
    return r.bad == 0;
}
