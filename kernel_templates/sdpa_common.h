/* sdpa_common.h — device primitives the attention templates share (sdpa_fwd.hip, sdpa_fwd_fp8.hip,
 * sdpa_bwd.hip): the packing of mma operands (FP8 included), exp2, the shared-memory chunk
 * swizzle, Philox4x32-10 with the dropout rule of ir/ir_philox.c, and the tile layout Hopper's
 * wgmma descriptors read. The tensor-core and async-copy wrappers themselves (cp.async, ldmatrix,
 * mma.sync, wgmma, mbarriers, TMA, bulk copies) are hd_tensor_nv.h's, which comes just before
 * this file.
 *
 * cg_assemble places this file after hd_common.h and hd_tensor_nv.h and before the generated
 * defines of the templates that use it (codegen/cg_assemble.c, `libraries`): nothing here reads
 * a define or a hook; the operand type is a template argument (HD_DT_BFLOAT16 or HD_DT_HALF; the
 * FP8 ones for hd_pack4_f8_as), so each template binds it once (hd_mma, hd_pack2). NVIDIA sm_80
 * or newer only.
 */

/* Two floats as a packed pair of type DT (lo in the low half), rounded to nearest. */
template <int DT> HD_DEVICE hd_u32 hd_pack2_as(float lo, float hi)
{
    hd_u32 r;
    if (DT == HD_DT_HALF)
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    else
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/* Four floats as four 8-bit floats of type DT (HD_DT_FP8_E4M3 or HD_DT_FP8_E5M2; a0 in the low
 * byte), rounded to nearest even, finite values saturating (sm_89+; only the FP8 template
 * instantiates it). */
template <int DT> HD_DEVICE hd_u32 hd_pack4_f8_as(float a0, float a1, float a2, float a3)
{
    unsigned short lo, hi;
    if (DT == HD_DT_FP8_E5M2) {
        asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(lo) : "f"(a1), "f"(a0));
        asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(hi) : "f"(a3), "f"(a2));
    } else {
        asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(lo) : "f"(a1), "f"(a0));
        asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(hi) : "f"(a3), "f"(a2));
    }
    return (hd_u32)lo | (hd_u32)hi << 16;
}

HD_DEVICE float hd_exp2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* Byte offset of 16-byte chunk c of row r in a tile of `ch` chunks a row (ch a multiple of 8):
 * chunk c stored at c ^ (r % 8), so ldmatrix and cp.async are free of bank conflicts. */
HD_DEVICE hd_u32 hd_swz(int r, int c, int ch) { return (hd_u32)((r * ch + (c ^ (r & 7))) * 16); }

/* Philox4x32-10 (ir/ir_philox.c) and the dropout rule: whether element `lin` of the scores is
 * kept at drop probability p (bit for bit ir_dropout_keep). */
HD_DEVICE bool hd_philox_keep(unsigned long long seed, unsigned long long offset, hd_i64 lin, float p)
{
    unsigned long long n = (unsigned long long)lin >> 2;
    hd_u32 c[4] = {(hd_u32)n, (hd_u32)(n >> 32), (hd_u32)offset, (hd_u32)(offset >> 32)};
    hd_u32 k0 = (hd_u32)seed, k1 = (hd_u32)(seed >> 32);
#pragma unroll
    for (int r = 0; r < 10; r++) {
        if (r > 0)
            k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
        hd_u32 lo0 = 0xD2511F53u * c[0], hi0 = __umulhi(0xD2511F53u, c[0]);
        hd_u32 lo1 = 0xCD9E8D57u * c[2], hi1 = __umulhi(0xCD9E8D57u, c[2]);
        hd_u32 n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
        c[0] = n0, c[1] = lo1, c[2] = n2, c[3] = lo0;
    }
    hd_u32 x = c[lin & 3];
    float u = __fadd_rn(__fmul_rn((float)x, 2.3283064365386963e-10f), 1.1641532182693481e-10f);
    return u > p;
}

/* ---- the wgmma tile layout (sm_90a) ----------------------------------------------------------- */

/* Byte offset of 16-byte chunk c of row r in a tile of `rows` rows laid out as the 128-byte-swizzle
 * descriptors read it: 64-element column blocks of [rows][128 bytes], chunk c at c ^ (r % 8). A
 * tile starts on a 1024-byte boundary (the swizzle's period). */
HD_DEVICE hd_u32 hd_wg_off(int r, int c, int rows)
{
    return (hd_u32)((c >> 3) * rows * 128 + r * 128 + (((c & 7) ^ (r & 7)) << 4));
}
