/* sdpa_common.h — device primitives the attention templates share (sdpa_fwd.hip, sdpa_bwd.hip):
 * cp.async copies, ldmatrix, the m16n8k16 mma.sync and the packing of its operands, exp2, the
 * shared-memory chunk swizzle, Philox4x32-10 with the dropout rule of ir/ir_philox.c, and
 * Hopper's warpgroup MMA (wgmma, sm_90a only: a template instantiates it, so sm_80 code never
 * holds one): shared-memory descriptors, fences, the m64nNk16 products and the tile layout the
 * descriptors read.
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

/* ---- wgmma (sm_90a) ---------------------------------------------------------------------------- */
/* A warpgroup (4 warps) computes d[64 x N] += A[64 x 16·k] · B[16·k x N] asynchronously: issue
 * between hd_wgmma_fence and hd_wgmma_commit, then hd_wgmma_wait0 and hd_acc_fence before the
 * accumulators are read. The fp32 accumulator of warp w holds rows 16w + lane/4 (+ 8), columns
 * 8n + 2(lane % 4) (+ 1): d[4n + e] is the mma.sync C fragment acc[n][e] of those 16 rows, so
 * code written for mma.sync fragments reads wgmma results unchanged. */
typedef unsigned long long hd_u64;

/* Shared-memory matrix descriptor, 128-byte swizzle: start address, leading and stride byte
 * offsets, each in 16-byte units. */
HD_DEVICE hd_u64 hd_desc(hd_u32 addr, hd_u32 lbo, hd_u32 sbo)
{
    return (hd_u64)((addr & 0x3FFFF) >> 4) | (hd_u64)(lbo >> 4) << 16 | (hd_u64)(sbo >> 4) << 32 | 1ull << 62;
}

/* Byte offset of 16-byte chunk c of row r in a tile of `rows` rows laid out as the 128-byte-swizzle
 * descriptors read it: 64-element column blocks of [rows][128 bytes], chunk c at c ^ (r % 8). A
 * tile starts on a 1024-byte boundary (the swizzle's period). */
HD_DEVICE hd_u32 hd_wg_off(int r, int c, int rows)
{
    return (hd_u32)((c >> 3) * rows * 128 + r * 128 + (((c & 7) ^ (r & 7)) << 4));
}

template <int U> HD_DEVICE void hd_wgmma_fence_() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
template <int U> HD_DEVICE void hd_wgmma_commit_() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int U> HD_DEVICE void hd_wgmma_wait_() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(U) : "memory"); }
#define hd_wgmma_fence hd_wgmma_fence_<0>
#define hd_wgmma_commit hd_wgmma_commit_<0>
#define hd_wgmma_wait0 hd_wgmma_wait_<0>
/* cp.async (generic proxy) wrote shared memory that wgmma (async proxy) reads next. */
template <int U> HD_DEVICE void hd_async_fence_() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
#define hd_async_fence hd_async_fence_<0>

/* Each accumulator is (re)defined after the wait: nothing reads it earlier. */
template <int N> HD_DEVICE void hd_acc_fence(float *d)
{
#pragma unroll
    for (int i = 0; i < N; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

#define HD_W8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), \
                 "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define HD_W32 HD_W8(0), HD_W8(8), HD_W8(16), HD_W8(24)
#define HD_W64 HD_W32, HD_W8(32), HD_W8(40), HD_W8(48), HD_W8(56)
#define HD_R32 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "        \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define HD_R64 HD_R32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
/* m64nNk16, A and B from shared memory, K-major (TR "0, 0") or M- / N-major where TR's flag is 1
 * (imm-trans-a, imm-trans-b); the predicate (acc 0) overwrites d. */
#define HD_WG_SS(N, AB, R, W, IA, IB, IP, TR)                                                          \
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %" IP ", 0;\n"                                        \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." AB "." AB " {" R "}, %" IA ", %" IB \
                 ", p, 1, 1, " TR "; }"                                                                \
                 : W : "l"(da), "l"(db), "r"(acc))
/* m64nNk16, A from registers (the mma.sync A fragment of each warp's 16 rows), B from shared
 * memory N-major (imm-trans-b); accumulates. */
#define HD_WG_RS(N, AB, R, W, IA, IB, IP)                                                               \
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %" IP ", 0;\n"                                         \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." AB "." AB " {" R "}, " IA ", %" IB   \
                 ", p, 1, 1, 1; }"                                                                      \
                 : W : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1))

/* d[64 x N] (+)= A[64 x 16] · B[16 x N], both from shared memory, K-major (TR 0) or both
 * transposed (TR 1: A M-major, B N-major); acc 0 overwrites. DT: HD_DT_BFLOAT16 or HD_DT_HALF;
 * N: 64 or 128. */
#define HD_WG_SS_DT_N(TR)                                                  \
    if (DT == HD_DT_HALF && N == 64)                                       \
        HD_WG_SS(64, "f16", HD_R32, HD_W32, "32", "33", "34", TR);         \
    else if (DT == HD_DT_HALF)                                             \
        HD_WG_SS(128, "f16", HD_R64, HD_W64, "64", "65", "66", TR);        \
    else if (N == 64)                                                      \
        HD_WG_SS(64, "bf16", HD_R32, HD_W32, "32", "33", "34", TR);        \
    else                                                                   \
        HD_WG_SS(128, "bf16", HD_R64, HD_W64, "64", "65", "66", TR)
template <int DT, int N, int TR = 0> HD_DEVICE void hd_wgmma_ss_as(float *d, hd_u64 da, hd_u64 db, int acc)
{
    if (TR) {
        HD_WG_SS_DT_N("1, 1");
    } else {
        HD_WG_SS_DT_N("0, 0");
    }
}

/* d[64 x N] += A[64 x 16] (registers) · B[16 x N] (shared memory, N-major). */
template <int DT, int N> HD_DEVICE void hd_wgmma_rs_as(float *d, const hd_u32 *a, hd_u64 db)
{
    if (DT == HD_DT_HALF && N == 64)
        HD_WG_RS(64, "f16", HD_R32, HD_W32, "{%32, %33, %34, %35}", "36", "37");
    else if (DT == HD_DT_HALF)
        HD_WG_RS(128, "f16", HD_R64, HD_W64, "{%64, %65, %66, %67}", "68", "69");
    else if (N == 64)
        HD_WG_RS(64, "bf16", HD_R32, HD_W32, "{%32, %33, %34, %35}", "36", "37");
    else
        HD_WG_RS(128, "bf16", HD_R64, HD_W64, "{%64, %65, %66, %67}", "68", "69");
}

/* ---- mbarriers and the tensor-copy engine (TMA; sm_90) ------------------------------------------ */

struct __align__(64) hd_tmap { hd_u64 opaque[16]; }; /* CUtensorMap: 128 opaque bytes */

HD_DEVICE void hd_mbar_init(hd_u32 bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
HD_DEVICE void hd_mbar_arrive(hd_u32 bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
/* One arrival that also announces `bytes` of copies which will complete on the barrier. */
HD_DEVICE void hd_mbar_arrive_tx(hd_u32 bar, hd_u32 bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
/* Waits until the barrier's phase of parity `parity` has completed. The suspend-time hint (10 ms)
 * lets the hardware park the warp until the phase completes: without it try_wait returns after a
 * short system-defined time and the loop spins, taking issue slots from the warps that share the
 * scheduler (the TMA producer's wait for a free stage spun ~250 times a tile: bench/NOTES.md #20). */
HD_DEVICE void hd_mbar_wait(hd_u32 bar, hd_u32 parity)
{
    hd_u32 done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, 10000000; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

/* The box of the rank-4 `map` at coordinates (c0 .. c3), innermost first, into shared memory at
 * dst (128-byte swizzle); its bytes (the whole box, zeros past the tensor's edges included)
 * complete on bar. */
HD_DEVICE void hd_tma_load4(hd_u32 dst, const hd_tmap *map, hd_u32 bar, int c0, int c1, int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 ::"r"(dst), "l"((hd_u64)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar) : "memory");
}

/* The box of the rank-4 `map` at coordinates (c0 .. c3) fetched into L2 only (no shared memory, no
 * barrier): a later copy of it then comes from L2. */
HD_DEVICE void hd_tma_prefetch4(const hd_tmap *map, int c0, int c1, int c2, int c3)
{
    asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.tile [%0, {%1, %2, %3, %4}];"
                 ::"l"((hd_u64)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}

/* The copy engine adds `bytes` of fp32 from shared memory at src to global memory at dst
 * (element-wise atomic adds; both 16-byte aligned, bytes a multiple of 16), in the thread's open
 * bulk group: hd_bulk_commit closes it, hd_bulk_wait_read<N> waits until at most N of the
 * thread's groups still read their sources, hd_bulk_wait<N> until they have also written. */
HD_DEVICE void hd_bulk_add_f32(float *dst, hd_u32 src, hd_u32 bytes)
{
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;"
                 ::"l"(dst), "r"(src), "r"(bytes) : "memory");
}
template <int U> HD_DEVICE void hd_bulk_commit_() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
#define hd_bulk_commit hd_bulk_commit_<0>
template <int N> HD_DEVICE void hd_bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory"); }
template <int N> HD_DEVICE void hd_bulk_wait() { asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory"); }
