/* test_emu_math.c — device math helpers of hd_common.h on the host emulator (emu_prelude.h),
 * against libm in double: hd_exp2_poly (2^x without the special-function unit) within its stated
 * relative error 7.5e-5 over the whole range it computes, 0 below 2^-125 (as ex2.approx.ftz
 * flushes), +inf from 2^128, NaN kept.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/cg_int.h"
#include "emu_run.h"

TestSuite(emu_math);

static const char kernel[] =
    "HD_GLOBAL void emu_test_kernel(void *in_, void *out_, hd_i64 n)\n"
    "{\n"
    "    const float *in = (const float *)in_;\n"
    "    float *out = (float *)out_;\n"
    "    for (hd_i64 i = threadIdx.x; i < n; i += blockDim.x)\n"
    "        out[i] = hd_exp2_poly(in[i]);\n"
    "}\n";

typedef int (*launch_fn)(void (*)(void **), void **, const unsigned *, const unsigned *);

Test(emu_math, exp2_poly_error_and_edges)
{
    const char *common = cg_template_text("hd_common.h");
    cr_assert_not_null(common);
    size_t len = strlen(common) + sizeof kernel + 32;
    char *src = malloc(len);
    snprintf(src, len, "#line 1 \"hd_common.h\"\n%s\n%s", common, kernel);
    cg_kernel kn = {.entry = "emu_test_kernel", .n_args = 3,
                    .args = {{.kind = CG_ARG_TENSOR, .tensor = 0}, {.kind = CG_ARG_TENSOR, .tensor = 1},
                             {.kind = CG_ARG_INT64, .tensor = -1}}};
    emu_module m;
    emu_build(&kn, src, &m);
    launch_fn launch = (launch_fn)dlsym(m.dl, "emu_launch");
    void (*fn)(void **) = (void (*)(void **))dlsym(m.dl, "emu_emu_test_kernel");
    cr_assert(launch != NULL && fn != NULL);

    enum { STEPS = 64 * 270 };                 /* x from -135 to 135 in steps of 1/64, then edges */
    static const float edges[] = {-INFINITY, INFINITY, NAN, -0.0f, 0.0f, -125.0f, -125.000015f, -124.99999f,
                                  127.99999f, 128.0f, 1e-30f, -1e-30f, 0.5f, -0.999999f};
    const long long n = STEPS + (long long)(sizeof edges / sizeof edges[0]);
    float *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    for (long long i = 0; i < STEPS; i++)
        in[i] = -135.0f + (float)i / 64.0f + 0.37f / 64.0f; /* off the integers too */
    memcpy(in + STEPS, edges, sizeof edges);
    for (long long i = 0; i < n; i++)
        out[i] = -1.0f; /* poison: 2^x is never negative */
    void *pin = in, *pout = out;
    long long count = n;
    void *args[3] = {&pin, &pout, &count};
    const unsigned grid[3] = {1, 1, 1}, block[3] = {128, 1, 1};
    cr_assert_eq(launch(fn, args, grid, block), 0);
    int bad = 0;
    for (long long i = 0; i < n && bad < 10; i++) {
        double x = in[i], want = exp2(x), got = out[i];
        bool ok;
        if (isnan(x))
            ok = isnan(got);
        else if (x < -125.0)
            ok = got == 0.0;
        else if (x >= 128.0)
            ok = isinf(got) && got > 0;
        else
            ok = fabs(got - want) <= 7.5e-5 * want;
        if (!ok) {
            bad++;
            cr_log_error("hd_exp2_poly(%.9g) = %.9g, want %.9g", x, got, want);
        }
    }
    cr_expect_eq(bad, 0, "hd_exp2_poly: %d value(s) outside the stated error", bad);
    free(in), free(out), free(src);
    emu_unload(&m);
}
