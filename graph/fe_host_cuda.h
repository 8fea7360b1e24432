/* fe_host_cuda.h — CUDA's and HIP's kernel spellings for a host C++17 compiler: what a
 * jit.hip_source kernel (graph/fe_custom_hip_source.c) may use when its host reference runs it.
 * NEVER compiled into the library: the library embeds this text and puts it after
 * graph/fe_host_sched.h (dim3, the index variables, __syncthreads, hd_host_shuffle) and before
 * the user's source (graph/fe_custom_host.c).
 *
 * Owns: the qualifiers (__global__, __device__, __host__, __forceinline__, __restrict__,
 * __launch_bounds__, __shared__ as a function-local static, __constant__), HIP's index macros,
 * the fast-math intrinsics as their libm functions (__expf -> expf; no reduced precision),
 * rsqrtf, bit casts, min / max, atomics as plain updates (threads never run at once), fences and
 * __ldg as nothing, and the warp shuffles (__shfl*_sync and HIP's __shfl*, width a power of two up
 * to 32; every lane of the group must take part) and __syncwarp. A kernel using anything else
 * (half types, cooperative groups, inline PTX) does not compile here: the reference says so with
 * the compiler's first lines. Dynamic shared memory (`extern __shared__ T name[];`) is declared by
 * the library from the payload's shared_bytes (graph/fe_custom_hip_source.c).
 */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __shared__ static
#define __constant__
#define __align__(n) alignas(n)

#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

/* ---- math ---------------------------------------------------------------------------------------- */

static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
/* macros: the C library declares some of these names itself (glibc: its internal aliases) */
#define __expf(x) expf(x)
#define __exp10f(x) powf(10.0f, (x))
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __powf(x, y) powf((x), (y))
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }

static inline int __float_as_int(float f)
{
    int i;
    memcpy(&i, &f, 4);
    return i;
}
static inline float __int_as_float(int i)
{
    float f;
    memcpy(&f, &i, 4);
    return f;
}
static inline unsigned __float_as_uint(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float __uint_as_float(unsigned u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline long long __double_as_longlong(double d)
{
    long long i;
    memcpy(&i, &d, 8);
    return i;
}
static inline double __longlong_as_double(long long i)
{
    double d;
    memcpy(&d, &i, 8);
    return d;
}
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline float __int2float_rn(int i) { return (float)i; }

/* CUDA's overloads of min and max for any two arithmetic types (the usual conversions). */
template <class A, class B> static inline auto min(A a, B b) -> decltype(a + b) { return b < a ? b : a; }
template <class A, class B> static inline auto max(A a, B b) -> decltype(a + b) { return a < b ? b : a; }

/* ---- atomics, fences, loads: threads never run at the same time -------------------------------- */

template <class T, class U> static inline T atomicAdd(T *p, U v)
{
    T old = *p;
    *p = (T)(old + v);
    return old;
}
template <class T, class U> static inline T atomicSub(T *p, U v)
{
    T old = *p;
    *p = (T)(old - v);
    return old;
}
template <class T, class U> static inline T atomicMax(T *p, U v)
{
    T old = *p;
    *p = old < (T)v ? (T)v : old;
    return old;
}
template <class T, class U> static inline T atomicMin(T *p, U v)
{
    T old = *p;
    *p = (T)v < old ? (T)v : old;
    return old;
}
template <class T, class U> static inline T atomicExch(T *p, U v)
{
    T old = *p;
    *p = (T)v;
    return old;
}
template <class T, class U, class V> static inline T atomicCAS(T *p, U compare, V v)
{
    T old = *p;
    if (old == (T)compare)
        *p = (T)v;
    return old;
}
template <class T, class U> static inline T atomicAnd(T *p, U v)
{
    T old = *p;
    *p = (T)(old & v);
    return old;
}
template <class T, class U> static inline T atomicOr(T *p, U v)
{
    T old = *p;
    *p = (T)(old | v);
    return old;
}
static inline void __threadfence(void) {}
static inline void __threadfence_block(void) {}
static inline void __threadfence_system(void) {}
template <class T> static inline T __ldg(const T *p) { return *p; }

/* ---- warp shuffles --------------------------------------------------------------------------------- */

template <class T> static inline T __shfl_sync(unsigned, T v, int src, int width = 32)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_IDX, src, width);
}
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int mask, int width = 32)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_XOR, mask, width);
}
template <class T> static inline T __shfl_up_sync(unsigned, T v, unsigned delta, int width = 32)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_UP, (int)delta, width);
}
template <class T> static inline T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_DOWN, (int)delta, width);
}
template <class T> static inline T __shfl(T v, int src, int width = 32)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_IDX, src, width);
}
template <class T> static inline T __shfl_xor(T v, int mask, int width = 32)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_XOR, mask, width);
}
template <class T> static inline T __shfl_up(T v, unsigned delta, int width = 32)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_UP, (int)delta, width);
}
template <class T> static inline T __shfl_down(T v, unsigned delta, int width = 32)
{
    return hd_host_shuffle(v, HD_HOST_SHFL_DOWN, (int)delta, width);
}
static inline void __syncwarp(unsigned = 0xffffffffu) { (void)hd_host_shuffle(0, HD_HOST_SYNC, 0, 32); }

/* ---- the launch wrapper's argument: a tensor's address converts to any pointer parameter ------- */

struct hd_host_ptr {
    void *p;
    template <class T> operator T *() const { return (T *)p; }
};
