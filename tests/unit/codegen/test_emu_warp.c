/* test_emu_warp.c — the host emulator's warp primitives and barriers (emu_prelude.h), on a small
 * hand-written kernel built the way emu_run.c builds emitted ones: shuffles deliver the right
 * lane's value (XOR butterflies, broadcasts, groups of lanes while other groups are elsewhere),
 * barriers order shared-memory traffic across warps, and what a GPU leaves undefined is reported
 * as an error naming the block and thread: a lane that returned before a shuffle, lanes meeting
 * at different shuffles, a barrier skipped by returned threads, a lane at a barrier while its
 * warp waits at a shuffle, a shuffle over lanes past a partial warp's end.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <string.h>

#include "emu_run.h"

TestSuite(emu_warp);

/* One entry; `mode` picks the behaviour. out[2 * tid], out[2 * tid + 1]: what the thread saw. */
static const char kernel_source[] =
    "#line 1 \"hd_common.h\"\n"
    "HD_GLOBAL void emu_test_kernel(void *out_, hd_i64 mode)\n"
    "{\n"
    "    float *out = (float *)out_;\n"
    "    unsigned tid = threadIdx.x, lane = tid % HD_WARP, warp = tid / HD_WARP;\n"
    "    float v = (float)(blockIdx.x * 1000 + tid + 1);\n"
    "    __shared__ float red[32];\n"
    "    if (mode == 0) {            /* butterfly sum, broadcast, then the block's sum */\n"
    "        float s = v;\n"
    "        for (int m = 16; m > 0; m /= 2)\n"
    "            s += hd_shfl_xor(s, m);\n"
    "        float b = hd_shfl(v, 5);\n"
    "        if (lane == 0)\n"
    "            red[warp] = s;\n"
    "        __syncthreads();\n"
    "        float total = 0.0f;\n"
    "        for (unsigned w = 0; w < blockDim.x / HD_WARP; w++)\n"
    "            total += red[w];\n"
    "        out[2 * (blockIdx.x * blockDim.x + tid)] = s;\n"
    "        out[2 * (blockIdx.x * blockDim.x + tid) + 1] = tid == 0 ? total : b;\n"
    "    } else if (mode == 1) {     /* max over groups of 8; the first group returns at once */\n"
    "        if (lane < 8)\n"
    "            return;\n"
    "        float m = v;\n"
    "        for (int k = 4; k > 0; k /= 2)\n"
    "            m = fmaxf(m, hd_shfl_xor_group(m, k, 8));\n"
    "        out[2 * tid] = m;\n"
    "        out[2 * tid + 1] = hd_shfl_xor_group(v, 1, 2);\n"
    "    } else if (mode == 2) {     /* lane 3 leaves before a full-warp shuffle */\n"
    "        if (lane == 3)\n"
    "            return;\n"
    "        out[tid] = hd_shfl_xor(v, 1);\n"
    "    } else if (mode == 3) {     /* half the warp over the warp, half in a group of 16 */\n"
    "        out[tid] = lane < 16 ? hd_shfl_xor(v, 1) : hd_shfl_xor_group(v, 1, 16);\n"
    "    } else if (mode == 4) {     /* thread 0 returns, the others wait at a barrier */\n"
    "        if (tid == 0)\n"
    "            return;\n"
    "        __syncthreads();\n"
    "    } else if (mode == 5) {     /* lane 0 at a barrier, its warp at a shuffle */\n"
    "        if (lane == 0)\n"
    "            __syncthreads();\n"
    "        else\n"
    "            out[tid] = hd_shfl_xor(v, 2);\n"
    "    } else if (mode == 6) {     /* a full-warp shuffle in a partial warp */\n"
    "        out[tid] = hd_shfl_xor(v, 1);\n"
    "    }\n"
    "}\n";

typedef int (*launch_fn)(void (*)(void **), void **, const unsigned *, const unsigned *);

typedef struct emu_kernel_lib {
    emu_module m;
    launch_fn launch;
    const char *(*error)(void);
    void (*fn)(void **);
} emu_kernel_lib;

static emu_kernel_lib lib;

static void load(void)
{
    cg_kernel kn = {.entry = "emu_test_kernel", .n_args = 2,
                    .args = {{.kind = CG_ARG_TENSOR, .tensor = 0}, {.kind = CG_ARG_INT64, .tensor = -1}}};
    emu_build(&kn, kernel_source, &lib.m);
    lib.launch = (launch_fn)dlsym(lib.m.dl, "emu_launch");
    lib.error = (const char *(*)(void))dlsym(lib.m.dl, "emu_error");
    lib.fn = (void (*)(void **))dlsym(lib.m.dl, "emu_emu_test_kernel");
    cr_assert(lib.launch != NULL && lib.error != NULL && lib.fn != NULL);
}

static void unload(void) { emu_unload(&lib.m); }

/* Runs mode on grid x block threads over out; the launch's return value. */
static int run(long long mode, unsigned grid, unsigned block, float *out)
{
    void *p = out;
    long long m = mode;
    void *args[2] = {&p, &m};
    const unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
    return lib.launch(lib.fn, args, g, b);
}

Test(emu_warp, shuffles_and_barriers, .init = load, .fini = unload)
{
    static float out[2 * 2 * 128];
    cr_assert_eq(run(0, 2, 128, out), 0, "%s", lib.error());
    for (unsigned blk = 0; blk < 2; blk++) {
        float total = 0;
        for (unsigned t = 0; t < 128; t++)
            total += (float)(blk * 1000 + t + 1);
        for (unsigned t = 0; t < 128; t++) {
            unsigned base = t / 32 * 32;
            float warp_sum = 0;
            for (unsigned l = 0; l < 32; l++)
                warp_sum += (float)(blk * 1000 + base + l + 1);
            const float *o = &out[2 * (blk * 128 + t)];
            cr_expect_eq(o[0], warp_sum, "block %u thread %u: butterfly sum %g, want %g", blk, t, o[0], warp_sum);
            float want1 = t == 0 ? total : (float)(blk * 1000 + base + 5 + 1);
            cr_expect_eq(o[1], want1, "block %u thread %u: %g, want %g", blk, t, o[1], want1);
        }
    }
}

Test(emu_warp, groups_apart_from_returned_lanes, .init = load, .fini = unload)
{
    static float out[2 * 64];
    for (int i = 0; i < 2 * 64; i++)
        out[i] = -1;
    cr_assert_eq(run(1, 1, 64, out), 0, "%s", lib.error());
    for (unsigned t = 0; t < 64; t++) {
        bool gone = t % 32 < 8;
        float want0 = gone ? -1 : (float)(t / 8 * 8 + 8), want1 = gone ? -1 : (float)((t ^ 1u) + 1);
        cr_expect(out[2 * t] == want0 && out[2 * t + 1] == want1, "thread %u: %g %g, want %g %g", t, out[2 * t],
                  out[2 * t + 1], want0, want1);
    }
}

/* Each undefined pattern stops the launch with a reason naming what happened. */
Test(emu_warp, undefined_patterns_are_errors, .init = load, .fini = unload)
{
    static float out[2 * 64];
    const struct { int mode; unsigned block; const char *says; } cases[] = {
        {2, 64, "returned"},
        {3, 64, "different shuffles"},
        {4, 64, "skipped by returning"},
        {5, 64, "barrier while other threads wait at a shuffle"},
        {6, 48, "past the block's last thread"},
    };
    for (int i = 0; i < 5; i++) {
        cr_expect_eq(run(cases[i].mode, 2, cases[i].block, out), -1, "mode %d runs", cases[i].mode);
        cr_expect_not_null(strstr(lib.error(), cases[i].says), "mode %d: \"%s\" should say \"%s\"", cases[i].mode,
                           lib.error(), cases[i].says);
        cr_expect_not_null(strstr(lib.error(), "block (0, 0, 0)"), "mode %d: %s", cases[i].mode, lib.error());
    }
    cr_expect_eq(run(0, 1, 64, out), 0, "a later launch of the same module runs: %s", lib.error());
}
