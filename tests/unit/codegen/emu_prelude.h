/* emu_prelude.h — runs emitted kernel sources on the host, for codegen tests without a GPU.
 *
 * It stands in for kernel_templates/prelude_nvidia.h: the same names (HD_DEVICE, hd_u16, hd_div,
 * fp16 conversions, warp shuffles, ...) spelled for a host C++17 compiler, on top of the
 * library's host block scheduler, graph/fe_host_sched.h (the one jit.hip_source's host reference
 * runs user kernels on): each block runs its threads as ucontext coroutines, one at a time; a
 * thread runs until it returns or waits, and waits at two places:
 *   __syncthreads   until every thread of the block is there;
 *   a shuffle       (hd_shfl_xor, hd_shfl, hd_shfl_xor_group) until every lane that takes part
 *                   (the warp's 32, or the aligned group's) has deposited its value; the
 *                   scheduler then hands each lane its partner's value and lets them go on.
 * Blocks run one after another, so `__shared__` can be a function-local static (zero-filled
 * once, where a GPU's would hold garbage). What a GPU leaves undefined is reported as an error
 * (emu_launch returns -1, emu_error() says what happened): a barrier that some threads reach
 * after others returned, a shuffle whose lanes did not all arrive (one returned, or waits at a
 * barrier or at another kind of shuffle: divergence), a shuffle that reads a lane outside its
 * group or past the block's last thread.
 * Arithmetic is IEEE float (no fast-math, no FMA contraction on x86-64) without the GPU's
 * approximate rsqrt / division, which is well inside the tolerances the tests use. Threads never
 * run at the same time, so races are not found here, and an atomic would be a plain update.
 *
 * The test compiles `#include "emu_prelude.h"` + the emitted source from hd_common.h on + one
 * wrapper per entry (emu_<entry>(void **args) calling the kernel with its parameters) into a
 * shared object and calls emu_launch(emu_<entry>, args, grid, block) per launch
 * (tests/unit/codegen/emu_run.c); emu_launch and emu_error are the scheduler's hd_host_launch
 * and hd_host_error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HD_DEVICE static inline
#define HD_GLOBAL extern "C"
#define HD_LAUNCH_BOUNDS(threads)
#define HD_WARP 32
#define __shared__ static

typedef unsigned short hd_u16;
typedef unsigned char hd_u8;
typedef unsigned int hd_u32;
typedef long long hd_i64;
struct alignas(16) hd_vec16 {
    hd_u32 x, y, z, w;
};
struct alignas(8) hd_vec8 {
    hd_u32 x, y;
};

static inline float hd_bits_f32(hd_u32 u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline hd_u32 hd_f32_bits(float f)
{
    hd_u32 u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float __int_as_float(int i) { return hd_bits_f32((hd_u32)i); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline float hd_rsqrt(float x) { return 1.0f / sqrtf(x); }
static inline float hd_div(float a, float b) { return a / b; }
/* IEEE binary16 <-> float in software (round to nearest even), as the GPU's cvt instructions do:
 * any C++ compiler builds it (clang 14 has no _Float16 on x86). */
static inline float hd_f16_to_f32(hd_u16 h)
{
    unsigned sign = (unsigned)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
    if (e == 0x1fu)
        u = sign | 0x7f800000u | (m << 13);
    else if (e != 0)
        u = sign | ((e + 112u) << 23) | (m << 13);
    else if (m == 0)
        u = sign;
    else { /* subnormal: normalize */
        int k = -1;
        do
            m <<= 1, k++;
        while (!(m & 0x400u));
        u = sign | ((unsigned)(112 - k) << 23) | ((m & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline hd_u16 hd_f32_to_f16(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    unsigned sign = (u >> 16) & 0x8000u, e = (u >> 23) & 0xffu, m = u & 0x7fffffu;
    if (e == 0xffu)
        return (hd_u16)(sign | 0x7c00u | (m ? 0x200u : 0u));
    int ee = (int)e - 112;
    if (ee >= 31)
        return (hd_u16)(sign | 0x7c00u);
    if (ee <= 0) {
        if (ee < -10)
            return (hd_u16)sign;
        m |= 0x800000u;
        unsigned shift = (unsigned)(14 - ee), h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        return (hd_u16)(sign | (h + (rem > half || (rem == half && (h & 1u)))));
    }
    unsigned h = ((unsigned)ee << 10) | (m >> 13), rem = m & 0x1fffu;
    return (hd_u16)(sign | (h + (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))));
}

/* ---- the block scheduler: the library's (graph/fe_host_sched.h) -------------------------------- */

#include "../../../graph/fe_host_sched.h"

static inline float hd_shfl_xor(float v, int lane_mask)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_XOR, lane_mask, HD_WARP);
}
static inline float hd_shfl(float v, int src_lane) { return hd_host_shuffle(v, HD_HOST_SHFL_IDX, src_lane, HD_WARP); }
static inline float hd_shfl_xor_group(float v, int lane_mask, int group)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_XOR, lane_mask, group);
}
/* Launches run one after the other here: a dependent launch has nothing to wait for. */
static inline void hd_grid_wait(void) {}
static inline void hd_grid_launch_dependents(void) {}

/* The names emu_run.c and the tests look up. */
extern "C" const char *emu_error(void) { return hd_host_error(); }

extern "C" int emu_launch(void (*fn)(void **), void **args, const unsigned grid[3], const unsigned block[3])
{
    return hd_host_launch(fn, args, grid, block);
}
