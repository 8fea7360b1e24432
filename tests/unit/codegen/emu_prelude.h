/* emu_prelude.h — runs emitted kernel sources on the host, for codegen tests without a GPU.
 *
 * It stands in for kernel_templates/prelude_nvidia.h: the same names (HD_DEVICE, hd_u16, hd_div,
 * fp16 conversions, warp shuffles, ...) spelled for a host C++17 compiler, plus a tiny block
 * scheduler. Each block runs its threads as ucontext coroutines, one at a time; a thread runs
 * until it returns or waits, and waits at two places:
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
 * (tests/unit/codegen/emu_run.c).
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
struct alignas(8) hd_vec8 {
    hd_u32 x, y;
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

enum { EMU_READY, EMU_AT_BARRIER, EMU_AT_SHUFFLE, EMU_DONE };
enum { EMU_STACK = 64 * 1024, EMU_MAX_THREADS = 1024 };
enum emu_shfl_kind { EMU_SHFL_XOR, EMU_SHFL_IDX };

/* One thread of the running block; at a shuffle, what it asked for and what it got. */
struct emu_thread_state {
    int state;
    int kind, arg, group; /* the shuffle: XOR lane mask or source lane, lanes taking part */
    float in, out;
};

static ucontext_t emu_main_ctx, emu_ctx[EMU_MAX_THREADS];
static emu_thread_state emu_t[EMU_MAX_THREADS];
static unsigned emu_n; /* threads in a block */
static int emu_cur;
static char *emu_stacks;
static struct emu_stacks_owner {
    ~emu_stacks_owner() { free(emu_stacks); } /* at dlclose */
} emu_stacks_owner_;
static void (*emu_fn)(void **);
static void **emu_args;
static char emu_err[512];

/* Parks the running thread in `state` and returns to the scheduler. */
static void emu_wait(int state)
{
    emu_t[emu_cur].state = state;
    swapcontext(&emu_ctx[emu_cur], &emu_main_ctx);
}

static void __syncthreads(void) { emu_wait(EMU_AT_BARRIER); }

static float emu_shuffle(float v, int kind, int arg, int group)
{
    emu_thread_state *t = &emu_t[emu_cur];
    t->kind = kind, t->arg = arg, t->group = group, t->in = v;
    emu_wait(EMU_AT_SHUFFLE);
    return t->out;
}

static inline float hd_shfl_xor(float v, int lane_mask) { return emu_shuffle(v, EMU_SHFL_XOR, lane_mask, HD_WARP); }
static inline float hd_shfl(float v, int src_lane) { return emu_shuffle(v, EMU_SHFL_IDX, src_lane, HD_WARP); }
static inline float hd_shfl_xor_group(float v, int lane_mask, int group)
{
    return emu_shuffle(v, EMU_SHFL_XOR, lane_mask, group);
}
/* Launches run one after the other here: a dependent launch has nothing to wait for. */
static inline void hd_grid_wait(void) {}
static inline void hd_grid_launch_dependents(void) {}

static int emu_fail(const char *what, unsigned lane)
{
    snprintf(emu_err, sizeof emu_err, "block (%u, %u, %u), thread %u (warp %u lane %u): %s", blockIdx.x,
             blockIdx.y, blockIdx.z, lane, lane / HD_WARP, lane % HD_WARP, what);
    return -1;
}

/* The shuffle thread i waits at: 1 when every lane of its group was there and all got their
 * values (now READY), 0 when some lane has not arrived yet, -1 when it never can. */
static int emu_resolve(unsigned i)
{
    const emu_thread_state *me = &emu_t[i];
    unsigned g = (unsigned)me->group, base = i & ~(g - 1);
    if (g == 0 || g > HD_WARP || (g & (g - 1)) != 0)
        return emu_fail("a shuffle over a group that is not a power of two up to the warp", i);
    for (unsigned j = base; j < base + g; j++) {
        if (j >= emu_n)
            return emu_fail("a shuffle over lanes past the block's last thread", i);
        if (emu_t[j].state == EMU_DONE)
            return emu_fail("a shuffle some of whose lanes have returned (divergence)", j);
        if (emu_t[j].state != EMU_AT_SHUFFLE)
            return 0;
        if (emu_t[j].kind != me->kind || emu_t[j].group != me->group)
            return emu_fail("lanes of one group meet at different shuffles (divergence)", j);
    }
    for (unsigned j = base; j < base + g; j++) {
        unsigned arg = (unsigned)emu_t[j].arg;
        unsigned src = emu_t[j].kind == EMU_SHFL_XOR ? j ^ arg : base + arg % g;
        if (src < base || src >= base + g)
            return emu_fail("a shuffle reads a lane outside its group", j);
        emu_t[j].out = emu_t[src].in;
    }
    for (unsigned j = base; j < base + g; j++)
        emu_t[j].state = EMU_READY;
    return 1;
}

/* After every thread ran as far as it could: lets a complete shuffle or barrier go on.
 * 1: some threads may run again, 0: the block is done, -1: it is stuck (emu_err says why). */
static int emu_release(void)
{
    unsigned done = 0, barrier = 0, moved = 0;
    for (unsigned i = 0; i < emu_n; i++) {
        if (emu_t[i].state == EMU_AT_SHUFFLE) {
            int r = emu_resolve(i);
            if (r < 0)
                return -1;
            moved += (unsigned)r;
        }
        done += emu_t[i].state == EMU_DONE, barrier += emu_t[i].state == EMU_AT_BARRIER;
    }
    if (moved > 0)
        return 1;
    if (done == emu_n)
        return 0;
    if (barrier == emu_n) {
        for (unsigned i = 0; i < emu_n; i++)
            emu_t[i].state = EMU_READY;
        return 1;
    }
    for (unsigned i = 0; i < emu_n; i++) /* name one waiting thread */
        if (emu_t[i].state != EMU_DONE)
            return emu_fail(done > 0 && barrier > 0 && barrier + done == emu_n
                                ? "waits at a barrier that other threads skipped by returning"
                            : emu_t[i].state == EMU_AT_BARRIER
                                ? "waits at a barrier while other threads wait at a shuffle (divergence)"
                                : "waits at a shuffle whose lanes never all arrive (divergence)",
                            i);
    return -1;
}

static void emu_thread(int i)
{
    emu_fn(emu_args);
    emu_t[i].state = EMU_DONE;
}

/* Runs one block to completion; -1 when its threads disagree on a barrier or a shuffle. */
static int emu_block(void)
{
    for (unsigned i = 0; i < emu_n; i++) {
        getcontext(&emu_ctx[i]);
        emu_ctx[i].uc_stack.ss_sp = emu_stacks + (size_t)i * EMU_STACK;
        emu_ctx[i].uc_stack.ss_size = EMU_STACK;
        emu_ctx[i].uc_link = &emu_main_ctx;
        makecontext(&emu_ctx[i], (void (*)(void))emu_thread, 1, (int)i);
        emu_t[i].state = EMU_READY;
    }
    for (;;) {
        for (unsigned i = 0; i < emu_n; i++) {
            if (emu_t[i].state != EMU_READY)
                continue;
            emu_cur = (int)i;
            threadIdx.x = i % blockDim.x, threadIdx.y = i / blockDim.x % blockDim.y;
            threadIdx.z = i / (blockDim.x * blockDim.y);
            swapcontext(&emu_main_ctx, &emu_ctx[i]);
        }
        int r = emu_release();
        if (r <= 0)
            return r;
    }
}

extern "C" const char *emu_error(void) { return emu_err; }

extern "C" int emu_launch(void (*fn)(void **), void **args, const unsigned grid[3], const unsigned block[3])
{
    emu_n = block[0] * block[1] * block[2];
    emu_err[0] = '\0';
    if (emu_n == 0 || emu_n > EMU_MAX_THREADS) {
        snprintf(emu_err, sizeof emu_err, "a block of %u threads", emu_n);
        return -2;
    }
    if (emu_stacks == NULL && (emu_stacks = (char *)malloc((size_t)EMU_MAX_THREADS * EMU_STACK)) == NULL)
        return -3;
    emu_fn = fn, emu_args = args;
    gridDim = {grid[0], grid[1], grid[2]}, blockDim = {block[0], block[1], block[2]};
    for (unsigned z = 0; z < grid[2]; z++)
        for (unsigned y = 0; y < grid[1]; y++)
            for (unsigned x = 0; x < grid[0]; x++) {
                blockIdx = {x, y, z};
                if (emu_block() != 0)
                    return -1;
            }
    return 0;
}
