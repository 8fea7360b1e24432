/* prelude_amd.h — the AMD spellings the kernel templates use (compiled by hipRTC, which brings
 * the HIP device headers). Same names as prelude_nvidia.h; templates use only these.
 * Every template kernel codegen emits for AMD compiles with it (tests/unit/codegen/test_cg_amd.c:
 * hipRTC for gfx942 / gfx90a), but none has run on an AMD GPU yet.
 * HD_WARP is the wavefront: 64 on CDNA (gfx9xx); a block may be smaller than one. */
#define HD_DEVICE __device__ __forceinline__
#define HD_GLOBAL extern "C" __global__
#define HD_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
#define HD_WARP 64

typedef unsigned short hd_u16;
typedef unsigned char hd_u8;
typedef unsigned int hd_u32;
typedef long long hd_i64;
struct __attribute__((aligned(16))) hd_vec16 { hd_u32 x, y, z, w; };
struct __attribute__((aligned(8))) hd_vec8 { hd_u32 x, y; };

HD_DEVICE float hd_shfl_xor(float v, int lane_mask) { return __shfl_xor(v, lane_mask); }
HD_DEVICE float hd_shfl(float v, int src_lane) { return __shfl(v, src_lane); }
HD_DEVICE float hd_shfl_xor_group(float v, int lane_mask, int group)
{
    (void)group; /* no lane mask to name on AMD */
    return __shfl_xor(v, lane_mask);
}
/* v, which every lane of the wavefront holds alike, in a scalar register. */
HD_DEVICE int hd_warp_uniform(int v) { return __builtin_amdgcn_readfirstlane(v); }
HD_DEVICE float hd_bits_f32(hd_u32 u) { return __uint_as_float(u); }
HD_DEVICE hd_u32 hd_f32_bits(float f) { return __float_as_uint(f); }
HD_DEVICE float hd_rsqrt(float x) { return rsqrtf(x); }
/* a / b to about 2 ulp, without the IEEE division's slow path (a call with a stack frame). */
HD_DEVICE float hd_div(float a, float b) { return __fdividef(a, b); }
HD_DEVICE float hd_tanh_fast(float x) { return tanhf(x); }

HD_DEVICE float hd_f16_to_f32(hd_u16 h) { return (float)__builtin_bit_cast(_Float16, h); }
HD_DEVICE hd_u16 hd_f32_to_f16(float f) { return __builtin_bit_cast(hd_u16, (_Float16)f); }

/* Programmatic dependent launch has no AMD counterpart: rt_launch_dependent launches plainly. */
HD_DEVICE void hd_grid_wait() {}
HD_DEVICE void hd_grid_launch_dependents() {}

/* The compute unit this thread runs on (a developer's trace, sdpa_fwd.hip's HD_TRACE). */
HD_DEVICE hd_u32 hd_sm_id() { return __smid(); }
