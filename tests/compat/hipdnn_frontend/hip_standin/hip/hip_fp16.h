/* hip_fp16.h — host-only stand-in: an IEEE binary16 value type converting to and from float
 * (round to nearest even), enough for hipDNN's frontend headers. */
#pragma once
#include "hip_runtime.h"
#include <stdint.h>
#include <string.h>

struct __half_raw { unsigned short x; };
struct __half {
    unsigned short x = 0;
    __half() = default;
    __half(__half_raw r) : x(r.x) {}
    __half(float f) : x(from_float(f)) {}
    operator __half_raw() const { return __half_raw{x}; }
    operator float() const { return to_float(x); }
    static unsigned short from_float(float f)
    {
        uint32_t u; memcpy(&u, &f, 4);
        uint32_t sign = (u >> 16) & 0x8000u, e = (u >> 23) & 0xffu, m = u & 0x7fffffu;
        if (e == 0xffu) return (unsigned short)(sign | 0x7c00u | (m ? 0x200u : 0u));
        int ee = (int)e - 127 + 15;
        if (ee >= 31) return (unsigned short)(sign | 0x7c00u);
        if (ee <= 0) {
            if (ee < -10) return (unsigned short)sign;
            m |= 0x800000u;
            uint32_t shift = (uint32_t)(14 - ee), h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
            if (rem > half || (rem == half && (h & 1u))) h++;
            return (unsigned short)(sign | h);
        }
        uint32_t h = ((uint32_t)ee << 10) | (m >> 13), rem = m & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
        return (unsigned short)(sign | h);
    }
    static float to_float(unsigned short h)
    {
        uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
        if (e == 0x1fu) u = sign | 0x7f800000u | (m << 13);
        else if (e != 0) u = sign | ((e - 15 + 127) << 23) | (m << 13);
        else if (m == 0) u = sign;
        else { int k = -1; do { m <<= 1; k++; } while (!(m & 0x400u)); u = sign | ((uint32_t)(127 - 15 - k) << 23) | ((m & 0x3ffu) << 13); }
        float f; memcpy(&f, &u, 4); return f;
    }
};
typedef __half half;
