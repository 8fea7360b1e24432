/* hd_tensor_nv.h — the NVIDIA tensor-core and asynchronous-copy primitives, once, for the
 * templates that use them (matmul.hip, conv_igemm.hip, matmul_sm90.hip, sdpa_fwd.hip,
 * sdpa_fwd_fp8.hip and sdpa_bwd.hip): thin wrappers over inline PTX, each one instruction or a
 * short fixed sequence.
 *
 *   sm_80    shared-address conversion (hd_smem_addr); cp.async 16 B, commit, wait; ldmatrix x4
 *            (+ .trans); mma.sync m16n8k16 with fp32 accumulate (hd_mma16<DT>); named barriers
 *            (hd_bar_sync<N>, hd_bar_arrive<N>, and _at<ID, N> for a fixed ID).
 *   sm_90a   wgmma: the shared-memory descriptor, fence / commit / wait, the generic-to-async
 *            proxy fence, the accumulator fence, the register lists and the m64nNk16 products
 *            (A and B from shared memory, or A from registers) and their FP8 m64nNk32 forms
 *            (hd_wgmma_ss8_as, hd_wgmma_rs8_as: e4m3 / e5m2, both operands K-major); setmaxnreg; mbarriers (init,
 *            the init fence, arrive, arrive with a byte count, wait); the tensor-copy engine
 *            (TMA: 3-D and 4-D loads, an L2 prefetch, a 4-D store), bulk groups and the bulk
 *            fp32 reduction into global memory.
 *
 * cg_assemble (codegen/cg_assemble.c, `libraries`) places this file after hd_common.h and before
 * the template's other library, if any, and before the generated defines: nothing here reads a
 * define or a hook. The operand type is a template argument (HD_DT_BFLOAT16 or HD_DT_HALF), so
 * each template binds it once to its HD_AB_DT / HD_DT (hd_mma, hd_wgmma_ss, ...).
 * sm_80 code sees this whole file: what only sm_90a assembles (wgmma, setmaxnreg, the mbarrier
 * init fence, bulk groups) is a template that sm_80 code never instantiates — where no argument
 * is needed, a dummy one (hd_x_<0>, spelled hd_x by a macro) — so NVRTC emits none of it there.
 * The other sm_90 wrappers (mbarrier waits, TMA) are plain forceinline functions that sm_80 code
 * never calls, so they are never emitted either.
 * NVIDIA only. The AMD counterpart (MFMA, LDS transposes, buffer loads) would be hd_tensor_amd.h
 * beside prelude_amd.h, chosen by the target's vendor as cg_assemble chooses the prelude.
 */

typedef unsigned long long hd_u64;

/* The 32-bit shared-memory address of generic pointer p (into shared memory). */
HD_DEVICE hd_u32 hd_smem_addr(const void *p)
{
    hd_u32 r;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
    return r;
}

/* ---- cp.async, ldmatrix, mma.sync (sm_80) ------------------------------------------------------- */

/* 16 bytes global -> shared; only the first `bytes` (0 .. 16) are read, the rest zero-filled
 * (0: nothing is read). hd_cp_commit closes the thread's group of copies; hd_cp_wait<N> waits
 * until at most N of its groups are still in flight. */
HD_DEVICE void hd_cp_async16(hd_u32 dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes));
}
HD_DEVICE void hd_cp_commit() { asm volatile("cp.async.commit_group;"); }
/* Shared-memory loads and stores by shared address (LDS / STS: a generic pointer's access waits on
 * the long scoreboard); ordered with barriers and the other shared accesses ("memory"). */
HD_DEVICE hd_u32 hd_lds32(hd_u32 a)
{
    hd_u32 v;
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    return v;
}
HD_DEVICE void hd_sts32(hd_u32 a, hd_u32 x) { asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(x) : "memory"); }
HD_DEVICE void hd_sts128(hd_u32 a, hd_u32 x, hd_u32 y, hd_u32 z, hd_u32 w)
{
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(x), "r"(y), "r"(z), "r"(w) : "memory");
}
template <int N> HD_DEVICE void hd_cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }

/* Four 8 x 8 matrices of 16-bit elements from shared memory (lane l gives the row address of
 * matrix l / 8), as mma.sync fragments; _trans transposes each. */
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

/* d += a · b for one m16n8k16 tile of operand type DT (HD_DT_HALF, else bf16; fp32 accumulate). */
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

/* ---- named barriers ------------------------------------------------------------------------------ */
/* Barrier `id` (1 .. 15; 0 is __syncthreads') completes when N threads (a multiple of 32, all
 * warps whole) have reached it: hd_bar_sync waits there, hd_bar_arrive goes on. The _at forms
 * name a fixed barrier ID as an immediate (a register that holds the constant changes ptxas's
 * register allocation). */
template <int N> HD_DEVICE void hd_bar_sync(int id) { asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(N) : "memory"); }
template <int N> HD_DEVICE void hd_bar_arrive(int id) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "n"(N) : "memory"); }
template <int ID, int N> HD_DEVICE void hd_bar_sync_at() { asm volatile("bar.sync %0, %1;" ::"n"(ID), "n"(N) : "memory"); }
template <int ID, int N> HD_DEVICE void hd_bar_arrive_at() { asm volatile("bar.arrive %0, %1;" ::"n"(ID), "n"(N) : "memory"); }

/* ---- wgmma (sm_90a) ---------------------------------------------------------------------------- */
/* A warpgroup (4 warps) computes d[64 x N] += A[64 x 16·k] · B[16·k x N] asynchronously: issue
 * between hd_wgmma_fence and hd_wgmma_commit, then hd_wgmma_wait0 and hd_acc_fence before the
 * accumulators are read. The fp32 accumulator of warp w holds rows 16w + lane/4 (+ 8), columns
 * 8n + 2(lane % 4) (+ 1): d[4n + e] is the mma.sync C fragment acc[n][e] of those 16 rows, so
 * code written for mma.sync fragments reads wgmma results unchanged. */

/* Shared-memory matrix descriptor, 128-byte swizzle: start address, leading and stride byte
 * offsets, each in 16-byte units. */
HD_DEVICE hd_u64 hd_desc(hd_u32 addr, hd_u32 lbo, hd_u32 sbo)
{
    return (hd_u64)((addr & 0x3FFFF) >> 4) | (hd_u64)(lbo >> 4) << 16 | (hd_u64)(sbo >> 4) << 32 | 1ull << 62;
}

template <int U> HD_DEVICE void hd_wgmma_fence_() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
template <int U> HD_DEVICE void hd_wgmma_commit_() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int U> HD_DEVICE void hd_wgmma_wait_() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(U) : "memory"); }
#define hd_wgmma_fence hd_wgmma_fence_<0>
#define hd_wgmma_commit hd_wgmma_commit_<0>
#define hd_wgmma_wait0 hd_wgmma_wait_<0>
/* The threads (generic proxy) wrote shared memory that wgmma or the tensor-copy engine (async
 * proxy) reads next. */
template <int U> HD_DEVICE void hd_async_fence_() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
#define hd_async_fence hd_async_fence_<0>

/* Each of the N accumulators is (re)defined here, after the wait: reads of them cannot move
 * above hd_wgmma_wait0. */
template <int N> HD_DEVICE void hd_acc_fence(float *d)
{
#pragma unroll
    for (int i = 0; i < N; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* The accumulator operands of an m64nNk16 (N / 2 registers of d): W the constraints, R the
 * register list. */
#define HD_W8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), \
                 "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define HD_W32 HD_W8(0), HD_W8(8), HD_W8(16), HD_W8(24)
#define HD_W64 HD_W32, HD_W8(32), HD_W8(40), HD_W8(48), HD_W8(56)
#define HD_W128 HD_W64, HD_W8(64), HD_W8(72), HD_W8(80), HD_W8(88), HD_W8(96), HD_W8(104), HD_W8(112), HD_W8(120)
#define HD_R32 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "        \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define HD_R64 HD_R32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define HD_R128 HD_R64 ", "                                                                      \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "            \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "            \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
/* m64nNk16, A and B from shared memory; operands IA, IB (descriptors), IP (acc: 0 overwrites d),
 * then the imm-trans-a and imm-trans-b flags (TA, TB: 1 for M-major A, N-major B). */
#define HD_WG_SS(N, AB, R, W, IA, IB, IP, ITA, ITB)                                                    \
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %" IP ", 0;\n"                                        \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." AB "." AB " {" R "}, %" IA ", %" IB \
                 ", p, 1, 1, %" ITA ", %" ITB "; }"                                                    \
                 : W : "l"(da), "l"(db), "r"(acc), "n"(TA), "n"(TB))
#define HD_WG_SS_N(AB)                                                                 \
    if (N == 64)                                                                       \
        HD_WG_SS(64, AB, HD_R32, HD_W32, "32", "33", "34", "35", "36");                \
    else if (N == 128)                                                                 \
        HD_WG_SS(128, AB, HD_R64, HD_W64, "64", "65", "66", "67", "68");               \
    else                                                                               \
        HD_WG_SS(256, AB, HD_R128, HD_W128, "128", "129", "130", "131", "132")
/* m64nNk16, A from registers (the mma.sync A fragment of each warp's 16 rows), B from shared
 * memory N-major (imm-trans-b); accumulates. */
#define HD_WG_RS(N, AB, R, W, IA, IB, IP)                                                               \
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %" IP ", 0;\n"                                         \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." AB "." AB " {" R "}, " IA ", %" IB   \
                 ", p, 1, 1, 1; }"                                                                      \
                 : W : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1))

/* d[64 x N] (+)= A[64 x 16] · B[16 x N], both from shared memory: A K-major (TA 0) or M-major
 * (TA 1), B K-major (TB 0) or N-major (TB 1; by default as A); acc 0 overwrites d.
 * DT: HD_DT_BFLOAT16 or HD_DT_HALF; N: 64, 128 or 256. */
template <int DT, int N, int TA = 0, int TB = TA> HD_DEVICE void hd_wgmma_ss_as(float *d, hd_u64 da, hd_u64 db, int acc)
{
    if (DT == HD_DT_HALF) {
        HD_WG_SS_N("f16");
    } else {
        HD_WG_SS_N("bf16");
    }
}

/* d[64 x N] += A[64 x 16] (registers) · B[16 x N] (shared memory, N-major); N: 64 or 128. */
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

/* ---- FP8 wgmma (sm_90a): m64nNk32, operands .e4m3 or .e5m2, fp32 accumulate ------------------ */
/* 8-bit operands take no transpose: A and B are both K-major (rows of 32-element k steps, 32
 * bytes of each 128-byte swizzle row). A from registers is four .b32 a thread, each four 8-bit
 * elements (low byte first) of the warp's 16 rows: registers 0 and 2 row lane / 4, 1 and 3 row
 * lane / 4 + 8; columns 4·(lane % 4) + 0..3 in registers 0 and 1, 16 more in 2 and 3 (the PTX
 * ISA's m64nNk32 A fragment, as mma.sync m16n8k32's for 8-bit types). */
#define HD_WG_SS8(N, AB, R, W, IA, IB, IP)                                                             \
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %" IP ", 0;\n"                                        \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32." AB "." AB " {" R "}, %" IA ", %" IB \
                 ", p, 1, 1; }"                                                                        \
                 : W : "l"(da), "l"(db), "r"(acc))
#define HD_WG_SS8_N(AB)                                                  \
    if (N == 64)                                                         \
        HD_WG_SS8(64, AB, HD_R32, HD_W32, "32", "33", "34");             \
    else                                                                 \
        HD_WG_SS8(128, AB, HD_R64, HD_W64, "64", "65", "66")
#define HD_WG_RS8(N, AB, R, W, IA, IB, IP)                                                              \
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %" IP ", 0;\n"                                         \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32." AB "." AB " {" R "}, " IA ", %" IB   \
                 ", p, 1, 1; }"                                                                         \
                 : W : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1))
#define HD_WG_RS8_N(AB)                                                                    \
    if (N == 64)                                                                           \
        HD_WG_RS8(64, AB, HD_R32, HD_W32, "{%32, %33, %34, %35}", "36", "37");             \
    else if (N == 128)                                                                     \
        HD_WG_RS8(128, AB, HD_R64, HD_W64, "{%64, %65, %66, %67}", "68", "69");            \
    else                                                                                   \
        HD_WG_RS8(256, AB, HD_R128, HD_W128, "{%128, %129, %130, %131}", "132", "133")

/* d[64 x N] (+)= A[64 x 32] · B[32 x N], both from shared memory, both K-major; acc 0 overwrites
 * d. DT: HD_DT_FP8_E4M3 or HD_DT_FP8_E5M2; N: 64 or 128. */
template <int DT, int N> HD_DEVICE void hd_wgmma_ss8_as(float *d, hd_u64 da, hd_u64 db, int acc)
{
    if (DT == HD_DT_FP8_E5M2) {
        HD_WG_SS8_N("e5m2");
    } else {
        HD_WG_SS8_N("e4m3");
    }
}

/* d[64 x N] += A[64 x 32] (registers, the fragment above) · B[32 x N] (shared memory, K-major);
 * N: 64, 128 or 256. */
template <int DT, int N> HD_DEVICE void hd_wgmma_rs8_as(float *d, const hd_u32 *a, hd_u64 db)
{
    if (DT == HD_DT_FP8_E5M2) {
        HD_WG_RS8_N("e5m2");
    } else {
        HD_WG_RS8_N("e4m3");
    }
}

/* Registers move between warpgroups (sm_90a): each warp of the warpgroup gives its registers
 * down to N a thread (hd_setmaxnreg_dec) or takes them up to N (hd_setmaxnreg_inc); N a multiple
 * of 8 in 24 .. 256, the same in every warp of the warpgroup. */
template <int N> HD_DEVICE void hd_setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N)); }
template <int N> HD_DEVICE void hd_setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N)); }

/* ---- mbarriers and the tensor-copy engine (TMA; sm_90) ------------------------------------------ */

struct __align__(64) hd_tmap { hd_u64 opaque[16]; }; /* CUtensorMap: 128 opaque bytes */

HD_DEVICE void hd_mbar_init(hd_u32 bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
/* After the hd_mbar_init calls, before the barriers' first use by other threads or the copy engine
 * (then a __syncthreads). */
template <int U> HD_DEVICE void hd_mbar_init_fence_() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
#define hd_mbar_init_fence hd_mbar_init_fence_<0>
HD_DEVICE void hd_mbar_arrive(hd_u32 bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
/* One arrival that also announces `bytes` of copies which will complete on the barrier. */
HD_DEVICE void hd_mbar_arrive_tx(hd_u32 bar, hd_u32 bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
/* Waits until the barrier's phase of parity `parity` has completed. HINT_NS, a suspend-time hint
 * in nanoseconds, lets the hardware park the warp until the phase completes: without one
 * (HINT_NS 0) try_wait returns after a short system-defined time and the loop spins, taking issue
 * slots from the warps that share the scheduler (attention's TMA producer spun ~250 times a tile
 * waiting for a free stage: bench/NOTES.md #20). hd_mbar_wait hints 10 ms, as CUTLASS does;
 * matmul_sm90.hip still spins (hd_mbar_wait_ns<0>): the hint was measured on attention only. */
template <hd_u32 HINT_NS> HD_DEVICE void hd_mbar_wait_ns(hd_u32 bar, hd_u32 parity)
{
    hd_u32 done = 0;
    while (!done) {
        if (HINT_NS)
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3; "
                         "selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(bar), "r"(parity), "n"(HINT_NS) : "memory");
        else
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                         "selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    }
}
HD_DEVICE void hd_mbar_wait(hd_u32 bar, hd_u32 parity) { hd_mbar_wait_ns<10000000>(bar, parity); }

/* The box of the rank-3 / rank-4 `map` at coordinates (c0 .. c2 / c3), innermost first, into
 * shared memory at dst (the map's swizzle); its bytes (the whole box, zeros past the tensor's
 * edges included) complete on bar. */
HD_DEVICE void hd_tma_load(hd_u32 dst, const hd_tmap *map, hd_u32 bar, int c0, int c1, int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];"
                 ::"r"(dst), "l"((hd_u64)map), "r"(c0), "r"(c1), "r"(c2), "r"(bar) : "memory");
}
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

/* Shared memory at src (the map's swizzle; hd_async_fence after the threads' writes) into the box
 * of the rank-4 `map` at coordinates (c0 .. c3), in the thread's open bulk group. */
HD_DEVICE void hd_tma_store4(const hd_tmap *map, hd_u32 src, int c0, int c1, int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];"
                 ::"l"((hd_u64)map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src) : "memory");
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
