/* prelude_nvidia.h — the NVIDIA spellings the kernel templates use (compiled by NVRTC, which
 * has no system headers: everything here is self-contained). The AMD prelude defines the same
 * names; templates use only these. */
#define HD_DEVICE __device__ __forceinline__
#define HD_GLOBAL extern "C" __global__
#define HD_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
#define HD_WARP 32

typedef unsigned short hd_u16;
typedef unsigned char hd_u8;
typedef unsigned int hd_u32;
typedef long long hd_i64;
struct __align__(16) hd_vec16 { hd_u32 x, y, z, w; };
struct __align__(8) hd_vec8 { hd_u32 x, y; };

HD_DEVICE float hd_shfl_xor(float v, int lane_mask) { return __shfl_xor_sync(0xffffffffu, v, lane_mask); }
HD_DEVICE float hd_shfl(float v, int src_lane) { return __shfl_sync(0xffffffffu, v, src_lane); }
/* The same within an aligned group of `group` lanes (a power of two <= 32) that all take part,
 * while other lanes of the warp may be elsewhere. */
HD_DEVICE float hd_shfl_xor_group(float v, int lane_mask, int group)
{
    hd_u32 lanes = group >= 32 ? 0xffffffffu : ((1u << group) - 1u) << (threadIdx.x % 32u & ~(hd_u32)(group - 1));
    return __shfl_xor_sync(lanes, v, lane_mask);
}
/* v, which every lane of the warp holds alike, as the compiler can see it is: a warp reduction
 * (REDUX, sm_80+) lands in a uniform register, so what is computed from v stays on the uniform
 * datapath (wgmma descriptors, barrier slots) instead of being moved there before every use.
 * PTX, not __reduce_min_sync: that intrinsic makes NVRTC load its builtins library, whose
 * thread-local block LeakSanitizer then trips over at exit (hipdnn-cache warm under ASan). */
HD_DEVICE int hd_warp_uniform(int v)
{
#if __CUDA_ARCH__ >= 800
    int r;
    asm volatile("redux.sync.min.s32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(v));
    return r;
#else
    return __shfl_sync(0xffffffffu, v, 0);
#endif
}
HD_DEVICE float hd_bits_f32(hd_u32 u) { return __uint_as_float(u); }
HD_DEVICE hd_u32 hd_f32_bits(float f) { return __float_as_uint(f); }
HD_DEVICE float hd_rsqrt(float x) { return rsqrtf(x); }
/* a / b to about 2 ulp, without the IEEE division's slow path (a call with a stack frame). */
HD_DEVICE float hd_div(float a, float b) { return __fdividef(a, b); }
/* tanh to a relative error of about 2^-11 (tanh.approx.f32, sm_75+): one instruction where
 * tanhf is ~30; for score modifiers, whose results feed a bf16/fp16 product. */
HD_DEVICE float hd_tanh_fast(float x)
{
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

HD_DEVICE float hd_f16_to_f32(hd_u16 h)
{
    float f;
    asm("{ .reg .f16 t; mov.b16 t, %1; cvt.f32.f16 %0, t; }" : "=f"(f) : "h"(h));
    return f;
}

HD_DEVICE hd_u16 hd_f32_to_f16(float f)
{
    hd_u16 h;
    asm("{ .reg .f16 t; cvt.rn.f16.f32 t, %1; mov.b16 %0, t; }" : "=h"(h) : "f"(f));
    return h;
}

/* Ampere and newer convert fp32 to bf16 in hardware (round to nearest even; NaN stays NaN). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HD_HAS_BF16_CVT 1
HD_DEVICE hd_u16 hd_f32_to_bf16_hw(float f)
{
    hd_u16 r;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
    return r;
}
#endif

/* Hopper/Ada convert to FP8 E4M3 in hardware (round to nearest even, saturating to 448). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define HD_HAS_E4M3_CVT 1
HD_DEVICE hd_u8 hd_f32_to_e4m3_hw(float f)
{
    hd_u16 r;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(f));
    return (hd_u8)(r & 0xff);
}
#endif

/* Programmatic dependent launch (sm_90 and newer; runtime rt_launch_dependent): a kernel launched
 * dependent waits in hd_grid_wait until the stream's previous kernel has finished and its writes
 * are visible; that kernel lets it launch early with hd_grid_launch_dependents. Both do nothing
 * on older devices and in a kernel launched plainly. */
HD_DEVICE void hd_grid_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
HD_DEVICE void hd_grid_launch_dependents()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* The multiprocessor this thread runs on (a developer's trace, sdpa_fwd.hip's HD_TRACE). */
HD_DEVICE hd_u32 hd_sm_id()
{
    hd_u32 id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}
