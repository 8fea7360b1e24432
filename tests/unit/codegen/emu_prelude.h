/* emu_prelude.h — runs emitted kernel sources on the host, for codegen tests without a GPU.
 *
 * It stands in for kernel_templates/prelude_nvidia.h: the same names (HD_DEVICE, hd_u16, hd_div,
 * fp16 conversions, ...) spelled for a host C++17 compiler, plus a tiny block scheduler. Each
 * block runs its threads as ucontext coroutines, one at a time, switching at __syncthreads;
 * blocks run one after another, so `__shared__` can be a function-local static. A barrier that
 * some threads of a block reach and others skip (by returning) is reported as an error.
 * Not emulated: warp shuffles (hd_shfl_xor aborts), so only templates without them run here
 * (channorm.hip). Arithmetic is IEEE float without the GPU's approximate rsqrt/division, which
 * is well inside the tolerances the tests use.
 *
 * The test compiles `#include "emu_prelude.h"` + the emitted source from hd_common.h on + one
 * wrapper per entry (emu_<entry>(void **args) calling the kernel with its parameters) into a
 * shared object and calls emu_launch(emu_<entry>, args, grid, block) per launch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

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

struct emu_dim3 {
    unsigned x, y, z;
};
static emu_dim3 threadIdx, blockIdx, gridDim, blockDim;

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
static inline float hd_shfl_xor(float, int)
{
    fprintf(stderr, "emu: warp shuffles are not emulated\n");
    abort();
}
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

/* ---- the block scheduler ------------------------------------------------------------------------ */

enum { EMU_RUNNING, EMU_AT_BARRIER, EMU_DONE };
enum { EMU_STACK = 64 * 1024, EMU_MAX_THREADS = 1024 };

static ucontext_t emu_main_ctx, emu_ctx[EMU_MAX_THREADS];
static int emu_state[EMU_MAX_THREADS], emu_cur;
static char *emu_stacks;
static struct emu_stacks_owner {
    ~emu_stacks_owner() { free(emu_stacks); } /* at dlclose */
} emu_stacks_owner_;
static void (*emu_fn)(void **);
static void **emu_args;

static void __syncthreads(void)
{
    emu_state[emu_cur] = EMU_AT_BARRIER;
    swapcontext(&emu_ctx[emu_cur], &emu_main_ctx);
}

static void emu_thread(int i)
{
    emu_fn(emu_args);
    emu_state[i] = EMU_DONE;
}

/* Runs one block to completion; -1 when its threads disagree on a barrier. */
static int emu_block(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        getcontext(&emu_ctx[i]);
        emu_ctx[i].uc_stack.ss_sp = emu_stacks + (size_t)i * EMU_STACK;
        emu_ctx[i].uc_stack.ss_size = EMU_STACK;
        emu_ctx[i].uc_link = &emu_main_ctx;
        makecontext(&emu_ctx[i], (void (*)(void))emu_thread, 1, (int)i);
        emu_state[i] = EMU_RUNNING;
    }
    for (;;) {
        unsigned done = 0, waiting = 0;
        for (unsigned i = 0; i < n; i++) {
            if (emu_state[i] == EMU_DONE)
                continue;
            emu_state[i] = EMU_RUNNING;
            emu_cur = (int)i;
            threadIdx.x = i % blockDim.x, threadIdx.y = i / blockDim.x % blockDim.y;
            threadIdx.z = i / (blockDim.x * blockDim.y);
            swapcontext(&emu_main_ctx, &emu_ctx[i]);
        }
        for (unsigned i = 0; i < n; i++)
            done += emu_state[i] == EMU_DONE, waiting += emu_state[i] == EMU_AT_BARRIER;
        if (done == n)
            return 0;
        if (done > 0 && waiting > 0)
            return -1;
    }
}

extern "C" int emu_launch(void (*fn)(void **), void **args, const unsigned grid[3], const unsigned block[3])
{
    unsigned n = block[0] * block[1] * block[2];
    if (n == 0 || n > EMU_MAX_THREADS)
        return -2;
    if (emu_stacks == NULL && (emu_stacks = (char *)malloc((size_t)EMU_MAX_THREADS * EMU_STACK)) == NULL)
        return -3;
    emu_fn = fn, emu_args = args;
    gridDim = {grid[0], grid[1], grid[2]}, blockDim = {block[0], block[1], block[2]};
    for (unsigned z = 0; z < grid[2]; z++)
        for (unsigned y = 0; y < grid[1]; y++)
            for (unsigned x = 0; x < grid[0]; x++) {
                blockIdx = {x, y, z};
                if (emu_block(n) != 0)
                    return -1;
            }
    return 0;
}
