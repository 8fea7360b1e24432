/* ir_philox.c — the counter-based random numbers of the IR: Philox4x32-10 and the dropout rule.
 *
 * Owns: ir_philox4x32_10, ir_philox_uniform and ir_dropout_keep. Does not own where dropout is
 * applied (the SDPA reference and kernels call ir_dropout_keep).
 *
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): 10 rounds
 * of  (lo0,hi0) = 0xD2511F53 * c0,  (lo1,hi1) = 0xCD9E8D57 * c2  (32x32 -> 64-bit products),
 *     c = { hi1 ^ c1 ^ k0,  lo1,  hi0 ^ c3 ^ k1,  lo0 },
 * with the key bumped by (0x9E3779B9, 0xBB67AE85) between rounds. Checked against the
 * Random123 known-answer vectors (tests/unit/ir/test_ir_philox.c).
 *
 * Uniform: u = x * 2^-32 + 2^-33 computed in float (as curand_uniform): x is converted to float
 * (round to nearest even), the product is exact, the sum rounds once. u lies in (0, 1].
 *
 * THE DROPOUT RULE (every GPU kernel follows it bit for bit). For a dropout of probability p
 * applied to element `linear_index` of a tensor (for SDPA: ((b*H + h)*Sq + i)*Skv + j of the
 * [B, H, Sq, Skv] score matrix), with the 64-bit `seed` and `offset` operands:
 *     key     = { seed & 0xffffffff, seed >> 32 }
 *     n       = (uint64_t)linear_index / 4
 *     counter = { n & 0xffffffff, n >> 32, offset & 0xffffffff, offset >> 32 }
 *     x       = philox4x32_10(counter, key)[linear_index % 4]
 *     keep    = uniform(x) > (float)p       (comparison in float; p rounded to float first)
 * So four consecutive elements share one Philox call; p = 0 keeps everything (u > 0 always) and
 * p = 1 drops everything (u <= 1 always).
 */
#include "ir/ir_int.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

static void philox_round(uint32_t c[4], const uint32_t k[2])
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)PHILOX_M1 * c[2];
    uint32_t lo0 = (uint32_t)p0, hi0 = (uint32_t)(p0 >> 32);
    uint32_t lo1 = (uint32_t)p1, hi1 = (uint32_t)(p1 >> 32);
    c[0] = hi1 ^ c[1] ^ k[0];
    c[1] = lo1;
    c[2] = hi0 ^ c[3] ^ k[1];
    c[3] = lo0;
}

void ir_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c[4] = {counter[0], counter[1], counter[2], counter[3]};
    uint32_t k[2] = {key[0], key[1]};
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k[0] += PHILOX_W0;
            k[1] += PHILOX_W1;
        }
        philox_round(c, k);
    }
    for (int i = 0; i < 4; i++)
        out[i] = c[i];
}

float ir_philox_uniform(uint32_t x)
{
    float f = (float)x;
    return f * 0x1p-32f + 0x1p-33f;
}

bool ir_dropout_keep(uint64_t seed, uint64_t offset, int64_t linear_index, double p)
{
    uint64_t n = (uint64_t)linear_index / 4;
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t ctr[4] = {(uint32_t)n, (uint32_t)(n >> 32), (uint32_t)offset, (uint32_t)(offset >> 32)};
    uint32_t out[4];
    ir_philox4x32_10(ctr, key, out);
    return ir_philox_uniform(out[(uint64_t)linear_index % 4]) > (float)p;
}
