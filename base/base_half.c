/* base_half.c — float <-> fp16 / bf16 bit conversions (round to nearest even).
 *
 * Used wherever a half-precision scalar crosses a boundary that stores floats (the
 * serialized graph keeps fp16/bf16 by-value scalars widened to float32).
 */
#include <math.h>
#include <string.h>

#include "base/base.h"

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float base_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

uint16_t base_f32_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if (isnan(f))
        return (uint16_t)((u >> 16) | 0x40); /* keep it a quiet NaN */
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

float base_fp16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    int exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ff;
    if (exp == 0x1f)
        return bits_f32(sign | 0x7f800000u | (man << 13));
    if (exp == 0) /* zero or subnormal: man * 2^-24 */
        return (sign ? -1.0f : 1.0f) * ldexpf((float)man, -24);
    return bits_f32(sign | ((uint32_t)(exp - 15 + 127) << 23) | (man << 13));
}

uint16_t base_f32_to_fp16(float f)
{
    uint16_t sign = (uint16_t)((f32_bits(f) >> 16) & 0x8000);
    float a = fabsf(f);
    if (isnan(f))
        return sign | 0x7e00;
    if (a >= 65520.0f) /* rounds to infinity */
        return sign | 0x7c00;
    if (a < ldexpf(1.0f, -14)) { /* subnormal range: quantum 2^-24 */
        float q = nearbyintf(a * ldexpf(1.0f, 24)); /* default rounding: nearest even */
        return sign | (uint16_t)q;
    }
    uint32_t u = f32_bits(a);
    uint32_t exp = (u >> 23) - 127 + 15;
    uint32_t man = u & 0x7fffff;
    uint32_t r = (exp << 10) | (man >> 13);
    uint32_t rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (r & 1)))
        r++;
    return sign | (uint16_t)r;
}
