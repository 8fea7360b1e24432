/* blockquant.hip — block-scale quantize (MXFP8, MXFP4, NVFP4, MXINT8) with an elementwise
 * prologue (pointwise ops, dequantize, batchnorm inference): one thread per block of HD_BLOCK
 * consecutive elements along the quantized axis (grid-stride loop over the blocks).
 *
 * Per block: the quantizer's input values v (the prologue runs per element), amax = max |v|
 * (NaN wins), scale = the smallest scale-type value >= amax / HD_QMAX (hd_block_scale, the
 * ratio in double), q = v / scale rounded once to the element type (saturating).
 *
 * Contract
 *   holes   HD_THREADS     threads per block (multiple of the warp size)
 *           HD_BLOCKS      number of quantization blocks (= elements of the scale tensor)
 *           HD_BLOCK       elements per block (even when HD_Y_FP4)
 *           HD_HOLD        1: keep a block's values in registers (small blocks); 0: run the
 *                          prologue twice (amax pass, then quantize pass)
 *           HD_QVEC        1, or 8: the block is read and written 8 elements at a time
 *                          (hd_qx_vec, hd_store_qvec; needs HD_HOLD and HD_BLOCK % 8 == 0;
 *                          codegen checks the layouts: unit stride along the axis, 16-byte
 *                          aligned rows)
 *           HD_Y_DT        element type: HD_DT_FP8_E4M3, HD_DT_FP8_E5M2, HD_DT_INT8 (hd_st), or
 *                          HD_DT_FP4_E2M1 with HD_Y_FP4 1 (two elements per byte; the kernel
 *                          hands the hooks packed codes)
 *           HD_SCALE_DT    HD_DT_FP8_E8M0 or HD_DT_FP8_E4M3
 *           HD_QMAX        the element type's largest finite value (448, 57344, 127, 6)
 *           HD_PARAMS, HD_ARGS
 *           hd_qx(blk, j, first, HD_PARAMS) -> float   element j of block blk of the input;
 *                          stores the prologue results that go to memory when `first`
 *           hd_store_scale(blk, code, HD_PARAMS)         the block's scale (its encoding)
 *           hd_store_q(blk, j, q, HD_PARAMS)            element j (not FP4)
 *           hd_store_fp4x2(blk, j, hd_u8 b, HD_PARAMS)  FP4: elements j, j + 1 (j even), one byte
 *           hd_qx_vec(blk, j, float v[HD_QVEC], HD_PARAMS)     HD_QVEC > 1: elements j .. j + 8
 *           hd_store_qvec(blk, j, const float q[HD_QVEC], HD_PARAMS)  their codes, one store
 *           hd_store_fp4x8(blk, j, hd_u32 w, HD_PARAMS)  FP4, HD_QVEC 8: eight codes, one store
 *   layout  any strides (codegen decomposes blk over the scale's dims); FP4 output needs the
 *           block's element pairs to share bytes (axis stride 1, even offsets)
 *   reference  ir_ref_bs_quantize (ir/ir_ref_quant.c), bit-exact for the same input values
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_THREADS 256
#define HD_BLOCKS 1024
#define HD_BLOCK 32
#define HD_HOLD 1
#define HD_QVEC 1
#define HD_Y_DT HD_DT_FP8_E4M3
#define HD_Y_FP4 0
#define HD_SCALE_DT HD_DT_FP8_E8M0
#define HD_QMAX 448.0
#define HD_PARAMS void *x, void *y, void *s
#define HD_ARGS x, y, s
HD_DEVICE float hd_qx(hd_i64 blk, int j, bool first, HD_PARAMS) { return hd_ld<HD_DT_BFLOAT16>(x, blk * HD_BLOCK + j); }
HD_DEVICE void hd_store_scale(hd_i64 blk, hd_u8 code, HD_PARAMS) { ((hd_u8 *)s)[blk] = code; }
HD_DEVICE void hd_store_q(hd_i64 blk, int j, float q, HD_PARAMS) { hd_st<HD_Y_DT>(y, blk * HD_BLOCK + j, q); }
HD_DEVICE void hd_store_fp4x2(hd_i64 blk, int j, hd_u8 b, HD_PARAMS) {}
HD_DEVICE void hd_qx_vec(hd_i64 blk, int j, float *v, HD_PARAMS) {}
HD_DEVICE void hd_store_qvec(hd_i64 blk, int j, const float *q, HD_PARAMS) {}
HD_DEVICE void hd_store_fp4x8(hd_i64 blk, int j, hd_u32 w, HD_PARAMS) {}
#endif

#if HD_HOLD
#define HD_UNROLL _Pragma("unroll")
#else
#define HD_UNROLL _Pragma("unroll 4")
#endif

HD_GLOBAL HD_LAUNCH_BOUNDS(HD_THREADS) void hd_blockquant_kernel(HD_PARAMS)
{
    hd_i64 stride = (hd_i64)gridDim.x * HD_THREADS;
    for (hd_i64 blk = (hd_i64)blockIdx.x * HD_THREADS + threadIdx.x; blk < HD_BLOCKS; blk += stride) {
        float amax = 0.0f;
#if HD_QVEC > 1
        float v[HD_BLOCK];
#pragma unroll
        for (int j = 0; j < HD_BLOCK; j += HD_QVEC)
            hd_qx_vec(blk, j, v + j, HD_ARGS);
#pragma unroll
        for (int j = 0; j < HD_BLOCK; j++)
            amax = hd_amax(amax, v[j]);
#define HD_V(j) v[j]
#elif HD_HOLD
        float v[HD_BLOCK];
#pragma unroll
        for (int j = 0; j < HD_BLOCK; j++) {
            v[j] = hd_qx(blk, j, true, HD_ARGS);
            amax = hd_amax(amax, v[j]);
        }
#define HD_V(j) v[j]
#else
        HD_UNROLL
        for (int j = 0; j < HD_BLOCK; j++)
            amax = hd_amax(amax, hd_qx(blk, j, true, HD_ARGS));
#define HD_V(j) hd_qx(blk, j, false, HD_ARGS)
#endif
        hd_u8 code;
        float scale = hd_block_scale<HD_SCALE_DT>(amax, HD_QMAX, &code);
        float inv = 1.0f / scale; /* exact for a power of two */
        hd_store_scale(blk, code, HD_ARGS);
#if HD_QVEC > 1 && HD_Y_FP4
#pragma unroll
        for (int j = 0; j < HD_BLOCK; j += HD_QVEC) {
            hd_u32 w = 0;
#pragma unroll
            for (int k = 0; k < HD_QVEC; k++)
                w |= (hd_u32)hd_bs_fp4<HD_SCALE_DT>(HD_V(j + k), scale, inv) << (4 * k);
            hd_store_fp4x8(blk, j, w, HD_ARGS);
        }
#elif HD_QVEC > 1
#pragma unroll
        for (int j = 0; j < HD_BLOCK; j += HD_QVEC) {
            float q[HD_QVEC];
#pragma unroll
            for (int k = 0; k < HD_QVEC; k++)
                q[k] = hd_bs_quant<HD_SCALE_DT>(HD_V(j + k), scale, inv);
            hd_store_qvec(blk, j, q, HD_ARGS);
        }
#elif HD_Y_FP4
        HD_UNROLL
        for (int j = 0; j < HD_BLOCK; j += 2)
            hd_store_fp4x2(blk, j, (hd_u8)(hd_bs_fp4<HD_SCALE_DT>(HD_V(j), scale, inv) |
                                           hd_bs_fp4<HD_SCALE_DT>(HD_V(j + 1), scale, inv) << 4), HD_ARGS);
#else
        HD_UNROLL
        for (int j = 0; j < HD_BLOCK; j++)
            hd_store_q(blk, j, hd_bs_quant<HD_SCALE_DT>(HD_V(j), scale, inv), HD_ARGS);
#endif
#undef HD_V
    }
}
