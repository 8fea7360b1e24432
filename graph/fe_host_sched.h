/* fe_host_sched.h — runs GPU-style kernels on the host: the block scheduler. C++17 for a host
 * compiler, NEVER compiled into the library: the library embeds this text (cmake/embed.cmake) and
 * puts it in front of a kernel source it builds into a shared object at run time
 * (graph/fe_custom_host.c, for jit.hip_source's host reference); the tests' emulator of emitted
 * kernels includes it too (tests/unit/codegen/emu_prelude.h). Self-contained: C headers only.
 *
 * Owns: dim3 and the index variables (threadIdx, blockIdx, blockDim, gridDim), __syncthreads,
 * the warp exchange every shuffle spelling is built on (hd_host_shuffle), and the launch:
 *   extern "C" int hd_host_launch(void (*fn)(void **), void **args, grid[3], block[3])
 *   extern "C" const char *hd_host_error(void)
 * fn is a wrapper calling the kernel with its parameters taken from args; the launch runs it
 * once per thread. Spellings (CUDA's, HIP's, the templates' hd_ names) live in the text put
 * after this one.
 *
 * Blocks run one after another; each block runs its threads as ucontext coroutines, one at a
 * time: a thread runs until it returns or waits, and waits at two places:
 *   __syncthreads   until every thread of the block is there;
 *   a shuffle       until every lane that takes part (the warp's 32, or an aligned group of a
 *                   power of two of them) has deposited its value; then each lane gets its
 *                   partner's value and they go on. A warp barrier (__syncwarp) is a shuffle
 *                   whose values nobody reads, over the lanes of the warp that exist.
 * So a function-local `static` serves as __shared__ memory (zero-filled once, where a GPU's
 * would hold garbage), and an atomic is a plain update. What a GPU leaves undefined is an
 * error (hd_host_launch returns -1, hd_host_error() says what happened, naming the block and
 * thread): a barrier some threads reach after others returned, a shuffle whose lanes did not
 * all arrive (one returned, or waits elsewhere: divergence), a shuffle that reads a lane
 * outside its group or past the block's last thread. Each thread has a 64 KiB stack. One
 * launch at a time per loaded object (its state is this file's statics): callers serialize.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
typedef dim3 uint3;
static dim3 threadIdx, blockIdx, gridDim, blockDim;
static const int warpSize = 32;

enum { HD_HOST_READY, HD_HOST_AT_BARRIER, HD_HOST_AT_SHUFFLE, HD_HOST_DONE };
enum { HD_HOST_STACK = 64 * 1024, HD_HOST_MAX_THREADS = 1024, HD_HOST_WARP = 32 };
/* XOR: lane ^ arg; IDX: lane arg of the group; UP / DOWN: lane - / + arg, the lane's own value
 * when that is outside the group; SYNC: no value (a warp barrier over the lanes that exist). */
enum hd_host_shfl_kind { HD_HOST_SHFL_XOR, HD_HOST_SHFL_IDX, HD_HOST_SHFL_UP, HD_HOST_SHFL_DOWN, HD_HOST_SYNC };

/* One thread of the running block; at a shuffle, what it asked for and what it got. */
struct hd_host_thread {
    int state;
    int kind, arg, group; /* the shuffle: its kind, lane mask / lane / offset, lanes taking part */
    unsigned long long in, out;
};

static ucontext_t hd_host_main_ctx, hd_host_ctx[HD_HOST_MAX_THREADS];
static hd_host_thread hd_host_t[HD_HOST_MAX_THREADS];
static unsigned hd_host_n; /* threads in a block */
static int hd_host_cur;
static char *hd_host_stacks;
static size_t hd_host_stacks_size;
static struct hd_host_stacks_owner {
    ~hd_host_stacks_owner() { free(hd_host_stacks); } /* at dlclose or exit */
} hd_host_stacks_owner_;
static void (*hd_host_fn)(void **);
static void **hd_host_args;
static char hd_host_err[512];

/* Parks the running thread in `state` and returns to the scheduler. */
static void hd_host_wait(int state)
{
    hd_host_t[hd_host_cur].state = state;
    swapcontext(&hd_host_ctx[hd_host_cur], &hd_host_main_ctx);
}

static inline void __syncthreads(void) { hd_host_wait(HD_HOST_AT_BARRIER); }

static unsigned long long hd_host_shuffle_bits(unsigned long long v, int kind, int arg, int group)
{
    hd_host_thread *t = &hd_host_t[hd_host_cur];
    t->kind = kind, t->arg = arg, t->group = group, t->in = v;
    hd_host_wait(HD_HOST_AT_SHUFFLE);
    return t->out;
}

/* The value of type T (at most 8 bytes) that the lane the shuffle names holds. */
template <class T> static inline T hd_host_shuffle(T v, int kind, int arg, int group)
{
    static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
    unsigned long long bits = 0;
    memcpy(&bits, &v, sizeof v);
    bits = hd_host_shuffle_bits(bits, kind, arg, group);
    T r;
    memcpy(&r, &bits, sizeof r);
    return r;
}

static int hd_host_fail(const char *what, unsigned lane)
{
    snprintf(hd_host_err, sizeof hd_host_err, "block (%u, %u, %u), thread %u (warp %u lane %u): %s", blockIdx.x,
             blockIdx.y, blockIdx.z, lane, lane / HD_HOST_WARP, lane % HD_HOST_WARP, what);
    return -1;
}

/* The lane whose value lane j of a group [base, base + g) gets; -1 when it reads outside. */
static long hd_host_source(const hd_host_thread *t, unsigned j, unsigned base, unsigned g)
{
    unsigned arg = (unsigned)t->arg;
    switch (t->kind) {
    case HD_HOST_SHFL_XOR: {
        unsigned src = j ^ arg;
        return src < base || src >= base + g ? -1 : (long)src;
    }
    case HD_HOST_SHFL_IDX: return (long)(base + arg % g);
    case HD_HOST_SHFL_UP: return j - base >= arg ? (long)(j - arg) : (long)j;
    case HD_HOST_SHFL_DOWN: return j - base + arg < g ? (long)(j + arg) : (long)j;
    default: return (long)j;
    }
}

/* The shuffle thread i waits at: 1 when every lane of its group was there and all got their
 * values (now READY), 0 when some lane has not arrived yet, -1 when it never can. */
static int hd_host_resolve(unsigned i)
{
    const hd_host_thread *me = &hd_host_t[i];
    unsigned g = (unsigned)me->group, base = i & ~(g - 1), end = base + g;
    if (g == 0 || g > HD_HOST_WARP || (g & (g - 1)) != 0)
        return hd_host_fail("a shuffle over a group that is not a power of two up to the warp", i);
    if (me->kind == HD_HOST_SYNC && end > hd_host_n) /* a warp barrier: the lanes that exist */
        end = hd_host_n;
    for (unsigned j = base; j < end; j++) {
        if (j >= hd_host_n)
            return hd_host_fail("a shuffle over lanes past the block's last thread", i);
        if (hd_host_t[j].state == HD_HOST_DONE)
            return hd_host_fail("a shuffle some of whose lanes have returned (divergence)", j);
        if (hd_host_t[j].state != HD_HOST_AT_SHUFFLE)
            return 0;
        if (hd_host_t[j].kind != me->kind || hd_host_t[j].group != me->group)
            return hd_host_fail("lanes of one group meet at different shuffles (divergence)", j);
    }
    for (unsigned j = base; j < end; j++) {
        long src = hd_host_source(&hd_host_t[j], j, base, g);
        if (src < 0)
            return hd_host_fail("a shuffle reads a lane outside its group", j);
        hd_host_t[j].out = hd_host_t[src].in;
    }
    for (unsigned j = base; j < end; j++)
        hd_host_t[j].state = HD_HOST_READY;
    return 1;
}

/* After every thread ran as far as it could: lets a complete shuffle or barrier go on.
 * 1: some threads may run again, 0: the block is done, -1: it is stuck (hd_host_err says why). */
static int hd_host_release(void)
{
    unsigned done = 0, barrier = 0, moved = 0;
    for (unsigned i = 0; i < hd_host_n; i++) {
        if (hd_host_t[i].state == HD_HOST_AT_SHUFFLE) {
            int r = hd_host_resolve(i);
            if (r < 0)
                return -1;
            moved += (unsigned)r;
        }
        done += hd_host_t[i].state == HD_HOST_DONE, barrier += hd_host_t[i].state == HD_HOST_AT_BARRIER;
    }
    if (moved > 0)
        return 1;
    if (done == hd_host_n)
        return 0;
    if (barrier == hd_host_n) {
        for (unsigned i = 0; i < hd_host_n; i++)
            hd_host_t[i].state = HD_HOST_READY;
        return 1;
    }
    for (unsigned i = 0; i < hd_host_n; i++) /* name one waiting thread */
        if (hd_host_t[i].state != HD_HOST_DONE)
            return hd_host_fail(done > 0 && barrier > 0 && barrier + done == hd_host_n
                                    ? "waits at a barrier that other threads skipped by returning"
                                : hd_host_t[i].state == HD_HOST_AT_BARRIER
                                    ? "waits at a barrier while other threads wait at a shuffle (divergence)"
                                    : "waits at a shuffle whose lanes never all arrive (divergence)",
                                i);
    return -1;
}

static void hd_host_thread_main(int i)
{
    hd_host_fn(hd_host_args);
    hd_host_t[i].state = HD_HOST_DONE;
}

/* Runs one block to completion; -1 when its threads disagree on a barrier or a shuffle. */
static int hd_host_block(void)
{
    for (unsigned i = 0; i < hd_host_n; i++) {
        getcontext(&hd_host_ctx[i]);
        hd_host_ctx[i].uc_stack.ss_sp = hd_host_stacks + (size_t)i * HD_HOST_STACK;
        hd_host_ctx[i].uc_stack.ss_size = HD_HOST_STACK;
        hd_host_ctx[i].uc_link = &hd_host_main_ctx;
        makecontext(&hd_host_ctx[i], (void (*)(void))hd_host_thread_main, 1, (int)i);
        hd_host_t[i].state = HD_HOST_READY;
    }
    for (;;) {
        for (unsigned i = 0; i < hd_host_n; i++) {
            if (hd_host_t[i].state != HD_HOST_READY)
                continue;
            hd_host_cur = (int)i;
            threadIdx.x = i % blockDim.x, threadIdx.y = i / blockDim.x % blockDim.y;
            threadIdx.z = i / (blockDim.x * blockDim.y);
            swapcontext(&hd_host_main_ctx, &hd_host_ctx[i]);
        }
        int r = hd_host_release();
        if (r <= 0)
            return r;
    }
}

extern "C" __attribute__((visibility("default"))) const char *hd_host_error(void) { return hd_host_err; }

/* Runs fn on every thread of a grid x block launch: 0, or -1 (a thread broke a barrier or a
 * shuffle), -2 (a block of 0 or more than 1024 threads), -3 (no memory for the stacks). */
extern "C" __attribute__((visibility("default"))) int hd_host_launch(void (*fn)(void **), void **args,
                                                                      const unsigned grid[3],
                                                                      const unsigned block[3])
{
    unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
    hd_host_err[0] = '\0';
    if (threads == 0 || threads > HD_HOST_MAX_THREADS) {
        snprintf(hd_host_err, sizeof hd_host_err, "a block of %llu threads (1..%d)", threads, HD_HOST_MAX_THREADS);
        return -2;
    }
    hd_host_n = (unsigned)threads;
    size_t need = (size_t)hd_host_n * HD_HOST_STACK;
    if (need > hd_host_stacks_size) {
        free(hd_host_stacks);
        hd_host_stacks_size = 0;
        if ((hd_host_stacks = (char *)malloc(need)) == NULL) {
            snprintf(hd_host_err, sizeof hd_host_err, "no memory for %u thread stacks", hd_host_n);
            return -3;
        }
        hd_host_stacks_size = need;
    }
    hd_host_fn = fn, hd_host_args = args;
    gridDim = dim3(grid[0], grid[1], grid[2]), blockDim = dim3(block[0], block[1], block[2]);
    for (unsigned z = 0; z < grid[2]; z++)
        for (unsigned y = 0; y < grid[1]; y++)
            for (unsigned x = 0; x < grid[0]; x++) {
                blockIdx = dim3(x, y, z);
                if (hd_host_block() != 0)
                    return -1;
            }
    return 0;
}
