/* sdpa_common.h — device primitives the attention templates share (sdpa_fwd.hip, sdpa_bwd.hip):
 * cp.async copies, ldmatrix, the m16n8k16 mma.sync and the packing of its operands, exp2, the
 * shared-memory chunk swizzle, and Philox4x32-10 with the dropout rule of ir/ir_philox.c.
 *
 * cg_assemble places this file after hd_common.h and before the generated defines of the
 * templates that use it (codegen/cg_emit.c, `libraries`): nothing here reads a define or a hook;
 * the operand type is a template argument (HD_DT_BFLOAT16 or HD_DT_HALF), so each template
 * binds it once (hd_mma, hd_pack2). NVIDIA sm_80 or newer only.
 */

HD_DEVICE hd_u32 hd_smem_addr(const void *p)
{
    hd_u32 r;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
    return r;
}

/* 16 bytes global -> shared; `bytes` 0 zero-fills the chunk without reading. */
HD_DEVICE void hd_cp_async16(hd_u32 dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes));
}
HD_DEVICE void hd_cp_commit() { asm volatile("cp.async.commit_group;"); }
template <int N> HD_DEVICE void hd_cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }

HD_DEVICE void hd_ldsm_x4(hd_u32 *r, hd_u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
HD_DEVICE void hd_ldsm_x4_trans(hd_u32 *r, hd_u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

/* d += a · b for one m16n8k16 tile of operand type DT (fp32 accumulate). */
template <int DT> HD_DEVICE void hd_mma16(float *d, const hd_u32 *a, hd_u32 b0, hd_u32 b1)
{
    if (DT == HD_DT_HALF)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

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
