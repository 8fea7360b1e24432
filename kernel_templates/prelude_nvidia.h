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

HD_DEVICE float hd_shfl_xor(float v, int lane_mask) { return __shfl_xor_sync(0xffffffffu, v, lane_mask); }
HD_DEVICE float hd_bits_f32(hd_u32 u) { return __uint_as_float(u); }
HD_DEVICE hd_u32 hd_f32_bits(float f) { return __float_as_uint(f); }
HD_DEVICE float hd_rsqrt(float x) { return rsqrtf(x); }

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
