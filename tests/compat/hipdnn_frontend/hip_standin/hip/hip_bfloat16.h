/* hip_bfloat16.h — host-only stand-in: bfloat16 with float conversion (round to nearest even). */
#pragma once
#include "hip_runtime.h"
#include <ostream>
#include <stdint.h>
#include <string.h>

struct hip_bfloat16 {
    uint16_t data = 0;
    hip_bfloat16() = default;
    explicit hip_bfloat16(float f)
    {
        uint32_t u; memcpy(&u, &f, 4);
        data = (u & 0x7fffffffu) > 0x7f800000u ? (uint16_t)((u >> 16) | 0x40u)
                                               : (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
    operator float() const { uint32_t u = (uint32_t)data << 16; float f; memcpy(&f, &u, 4); return f; }
};
inline std::ostream &operator<<(std::ostream &os, const hip_bfloat16 &b) { return os << (float)b; }
