/* test_ir_philox.c — unit tests of ir/ir_philox.c.
 *
 * Owns: the Random123 known-answer vectors of philox4x32_10, the uniform mapping (exact values
 * at the ends, range, monotonicity), the dropout rule as documented in ir_philox.c (recomputed
 * here from the generator), and the keep rate of ir_dropout_keep over 10^6 indices.
 * Tolerances: keep rate within 0.005 (absolute) of 1 - p; the standard deviation of the rate
 * over 10^6 draws is at most 0.0005, so that is 10 sigma.
 */
#include <math.h>

#include "ir/ir_int.h"
#include "ir_test_util.h"

static void kat(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1,
                uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3)
{
    const uint32_t ctr[4] = {c0, c1, c2, c3}, key[2] = {k0, k1};
    uint32_t out[4];
    ir_philox4x32_10(ctr, key, out);
    cr_assert(out[0] == r0 && out[1] == r1 && out[2] == r2 && out[3] == r3,
              "philox(%08x %08x %08x %08x / %08x %08x) = %08x %08x %08x %08x", c0, c1, c2, c3, k0,
              k1, out[0], out[1], out[2], out[3]);
}

Test(ir_philox, known_answers)
{
    kat(0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8);
    kat(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
        0x41c83b0e, 0xa20bc7c6, 0x6d5451fd);
    kat(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
        0x94fdcceb, 0x5001e420, 0x24126ea1);
}

Test(ir_philox, uniform)
{
    tt_seed("ir_philox.uniform");
    CHECK(ir_philox_uniform(0) == 0x1p-33f);
    CHECK(ir_philox_uniform(1) == 0x1p-32f + 0x1p-33f);
    CHECK(ir_philox_uniform(0xffffffffu) == 1.0f);
    CHECK(ir_philox_uniform(0x80000000u) == 0.5f + 0x1p-33f);
    uint32_t prev = 0;
    float pu = ir_philox_uniform(0);
    for (int i = 0; i < 100000; i++) {
        uint32_t x = prev + (uint32_t)tt_randint(0, 60000);
        if (x < prev)
            break;
        float u = ir_philox_uniform(x);
        CHECK(u > 0.0f && u <= 1.0f && u >= pu);
        CHECK(fabs((double)u - (x * 0x1p-32 + 0x1p-33)) <= 0x1p-24); /* float rounding only */
        prev = x, pu = u;
    }
}

/* The documented mapping, recomputed from the generator. */
static bool keep_by_spec(uint64_t seed, uint64_t offset, uint64_t i, double p)
{
    uint64_t n = i / 4;
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t ctr[4] = {(uint32_t)n, (uint32_t)(n >> 32), (uint32_t)offset, (uint32_t)(offset >> 32)};
    uint32_t out[4];
    ir_philox4x32_10(ctr, key, out);
    return ir_philox_uniform(out[i % 4]) > (float)p;
}

Test(ir_philox, dropout_mapping)
{
    tt_seed("ir_philox.dropout_mapping");
    for (int i = 0; i < 20000; i++) {
        uint64_t seed = tt_rand(), offset = tt_rand() >> tt_randint(0, 63);
        uint64_t idx = tt_rand() >> tt_randint(1, 63);
        double p = tt_unif(0, 1);
        CHECK(ir_dropout_keep(seed, offset, (int64_t)idx, p) == keep_by_spec(seed, offset, idx, p));
        CHECK(ir_dropout_keep(seed, offset, (int64_t)idx, 0.0));
        CHECK(!ir_dropout_keep(seed, offset, (int64_t)idx, 1.0));
    }
    /* four consecutive indices share one call: index 4n+w uses word w of counter n */
    uint32_t key[2] = {0x01234567u, 0x89abcdefu}, ctr[4] = {5, 0, 7, 0}, out[4];
    ir_philox4x32_10(ctr, key, out);
    for (int w = 0; w < 4; w++) {
        double u = ir_philox_uniform(out[w]);
        CHECK(ir_dropout_keep(0x89abcdef01234567ull, 7, 20 + w, u - 1e-4) == true);
        CHECK(ir_dropout_keep(0x89abcdef01234567ull, 7, 20 + w, u) == false);
        /* p is rounded to float before the comparison: just below u in double still drops */
        CHECK(ir_dropout_keep(0x89abcdef01234567ull, 7, 20 + w, nextafter(u, 0)) == false);
    }
}

Test(ir_philox, dropout_keep_rate)
{
    tt_seed("ir_philox.dropout_keep_rate");
    static const double ps[] = {0.1, 0.25, 0.5, 0.9};
    for (int k = 0; k < 4; k++) {
        uint64_t seed = tt_rand(), offset = tt_rand(), kept = 0, same = 0;
        for (int64_t i = 0; i < 1000000; i++) {
            bool a = ir_dropout_keep(seed, offset, i, ps[k]);
            kept += a;
            same += a == ir_dropout_keep(seed, offset + 1, i, ps[k]);
        }
        double rate = kept / 1e6, agree = same / 1e6, p = ps[k];
        cr_assert(fabs(rate - (1 - p)) <= 0.005, "p %g: keep rate %g (seed %llu)", p, rate,
                  (unsigned long long)tt_seed_value());
        /* another offset gives an independent mask: agreement p^2 + (1-p)^2 */
        cr_assert(fabs(agree - (p * p + (1 - p) * (1 - p))) <= 0.005, "p %g: agreement %g", p,
                  agree);
    }
}
