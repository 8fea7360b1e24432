/* ir_dtype.c — element types of the IR: strided host views (ir_buf) and scalar conversions.
 *
 * Owns: ir_load / ir_store / ir_buf_numel / ir_next_index, the scalar conversions of ir.h, and
 * the broadcast-index helpers of ir_int.h. Does not own any op math (ir_ref_*.c).
 *
 * Every conversion to a narrower type rounds to nearest, ties to even, from the exact double.
 * Types and their encodings (value of a code; what a store does with out-of-range values):
 *   FLOAT, DOUBLE      C conversion (IEEE, overflow to inf)
 *   HALF, BFLOAT16     IEEE binary16 / bfloat16; finite overflow to inf; NaN -> 0x7e00 / 0x7fc0
 *   FP8_E4M3           OCP E4M3 "FN": bias 7, max 448, no inf; NaN = 0x7f|sign; finite overflow
 *                      and +-inf saturate to +-448
 *   FP8_E5M2           OCP E5M2: bias 15, max 57344, inf = 0x7c|sign, NaN -> 0x7e|sign. Finite
 *                      values beyond the maximum SATURATE to +-57344 (as quantizing kernels do,
 *                      "satfinite"); only an infinite input stores as infinity.
 *   FP8_E4M3_FNUZ      bias 8, max 240, no inf, NaN = 0x80, no negative zero (-0 -> 0x00)
 *   FP8_E5M2_FNUZ      bias 16, max 57344, no inf, NaN = 0x80, no negative zero
 *   FP8_E8M0           2^(b-127) for b < 255, 0xff = NaN; no sign, no zero. A store rounds UP
 *                      to the next power of two (the block-scale rule); v <= 2^-127 (also zero
 *                      and negatives) -> 0x00; v > 2^127 and +inf saturate to 0xfe.
 *   FP4_E2M1           packed two per byte, even element offset in the low nibble; bias 1,
 *                      values +-{0, .5, 1, 1.5, 2, 3, 4, 6}; saturating; NaN stores as +6 (0x7)
 *   INT4               packed like FP4, signed two's complement -8..7
 *   INT8/UINT8/INT32/INT64  round to nearest even, saturate to the type's range, NaN -> 0
 *   BOOLEAN            one byte; loads as 1 when the byte is nonzero; stores (v != 0), so NaN -> 1
 *   FP6_E2M3/E3M2_EXT  NOT SUPPORTED in memory (the packing of 6-bit elements is unspecified):
 *                      ir_load returns NaN and ir_store writes nothing; ir_dtype_supported says
 *                      false so ir_ref_run refuses them. ir_dtype_round still rounds to their
 *                      value sets (E2M3: bias 1, max 7.5; E3M2: bias 3, max 28; saturating).
 * Views: an element's offset is sum(idx[i] * strides[i]) over the dims whose size is not 1; the
 * stride of a size-1 dim is never read (../shared/reference/op-semantics.md §0.4).
 */
#include <math.h>
#include <string.h>

#include "ir/ir_int.h"

/* ---- generic small floats ------------------------------------------------------------------- */

typedef enum nan_kind {
    NK_IEEE, /* top exponent: inf (mantissa 0) and NaN */
    NK_FN,   /* only the all-ones code (per sign) is NaN; no inf */
    NK_FNUZ, /* the negative-zero code is the one NaN; no inf, no -0 */
    NK_NONE  /* no NaN, no inf */
} nan_kind;

typedef struct minifloat {
    int ebits, mbits, bias;
    nan_kind nan;
    bool saturate; /* finite overflow stores the largest finite value instead of inf */
} minifloat;

static const minifloat MF_HALF = {5, 10, 15, NK_IEEE, false};
static const minifloat MF_BF16 = {8, 7, 127, NK_IEEE, false};
static const minifloat MF_E4M3 = {4, 3, 7, NK_FN, true};
static const minifloat MF_E5M2 = {5, 2, 15, NK_IEEE, true};
static const minifloat MF_E4M3_FNUZ = {4, 3, 8, NK_FNUZ, true};
static const minifloat MF_E5M2_FNUZ = {5, 2, 16, NK_FNUZ, true};
static const minifloat MF_E2M1 = {2, 1, 1, NK_NONE, true};
static const minifloat MF_E2M3 = {2, 3, 1, NK_NONE, true};
static const minifloat MF_E3M2 = {3, 2, 3, NK_NONE, true};

static const minifloat *minifloat_of(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_HALF: return &MF_HALF;
    case HIPDNN_DATA_BFLOAT16: return &MF_BF16;
    case HIPDNN_DATA_FP8_E4M3: return &MF_E4M3;
    case HIPDNN_DATA_FP8_E5M2: return &MF_E5M2;
    case HIPDNN_DATA_FP8_E4M3_FNUZ: return &MF_E4M3_FNUZ;
    case HIPDNN_DATA_FP8_E5M2_FNUZ: return &MF_E5M2_FNUZ;
    case HIPDNN_DATA_FP4_E2M1: return &MF_E2M1;
    case HIPDNN_DATA_FP6_E2M3_EXT: return &MF_E2M3;
    case HIPDNN_DATA_FP6_E3M2_EXT: return &MF_E3M2;
    case HIPDNN_DATA_FLOAT: case HIPDNN_DATA_DOUBLE: case HIPDNN_DATA_INT8: case HIPDNN_DATA_INT32:
    case HIPDNN_DATA_UINT8: case HIPDNN_DATA_FP8_E8M0: case HIPDNN_DATA_INT4:
    case HIPDNN_DATA_INT64: case HIPDNN_DATA_BOOLEAN: return NULL;
    }
    return NULL; /* a value outside the enum */
}

static double mf_max(const minifloat *f)
{
    int etop = (1 << f->ebits) - (f->nan == NK_IEEE ? 2 : 1);
    int mtop = (1 << f->mbits) - (f->nan == NK_FN ? 2 : 1);
    return ldexp(1.0 + ldexp(mtop, -f->mbits), etop - f->bias);
}

/* |v| rounded to the format: a representable magnitude, or inf (IEEE formats only). */
static double mf_round_mag(const minifloat *f, double a)
{
    double max = mf_max(f);
    if (isinf(a))
        return f->nan == NK_IEEE ? a : max;
    int e;
    frexp(a, &e);
    e -= 1; /* a in [2^e, 2^(e+1)) */
    if (e < 1 - f->bias)
        e = 1 - f->bias; /* subnormal range: fixed quantum */
    double q = ldexp(1.0, e - f->mbits);
    double r = rint(a / q) * q; /* a / q is exact: q is a power of two */
    if (r > max)
        return f->saturate || f->nan != NK_IEEE ? max : INFINITY;
    return r;
}

/* Bits (without sign) of a representable finite magnitude r > 0. */
static uint32_t mf_mag_bits(const minifloat *f, double r)
{
    int emin = 1 - f->bias, e;
    frexp(r, &e);
    e -= 1;
    if (e < emin)
        return (uint32_t)ldexp(r, f->mbits - emin);
    uint32_t man = (uint32_t)ldexp(r, f->mbits - e) - (1u << f->mbits);
    return ((uint32_t)(e + f->bias) << f->mbits) | man;
}

static uint32_t mf_nan_code(const minifloat *f, uint32_t sign)
{
    uint32_t ones_e = ((1u << f->ebits) - 1) << f->mbits;
    switch (f->nan) {
    case NK_IEEE: return sign | ones_e | (1u << (f->mbits - 1));
    case NK_FN: return sign | ones_e | ((1u << f->mbits) - 1);
    case NK_FNUZ: return 1u << (f->ebits + f->mbits);
    case NK_NONE: break;
    }
    return mf_mag_bits(f, mf_max(f)); /* no NaN: +max */
}

static uint32_t mf_encode(const minifloat *f, double v)
{
    uint32_t sign = signbit(v) ? 1u << (f->ebits + f->mbits) : 0;
    if (isnan(v))
        return mf_nan_code(f, sign);
    double r = mf_round_mag(f, fabs(v));
    if (isinf(r))
        return sign | (((1u << f->ebits) - 1) << f->mbits);
    if (r == 0)
        return f->nan == NK_FNUZ ? 0 : sign;
    return sign | mf_mag_bits(f, r);
}

static double mf_decode(const minifloat *f, uint32_t code)
{
    uint32_t emask = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;
    uint32_t ex = (code >> f->mbits) & emask, man = code & mmask;
    bool neg = (code >> (f->ebits + f->mbits)) & 1;
    double s = neg ? -1.0 : 1.0;
    if (f->nan == NK_IEEE && ex == emask)
        return man ? copysign(NAN, s) : s * INFINITY;
    if (f->nan == NK_FN && ex == emask && man == mmask)
        return copysign(NAN, s);
    if (f->nan == NK_FNUZ && neg && ex == 0 && man == 0)
        return NAN;
    if (ex == 0)
        return s * ldexp(man, 1 - f->bias - f->mbits);
    return s * ldexp(man + (1u << f->mbits), (int)ex - f->bias - f->mbits);
}

/* ---- exported scalar conversions -------------------------------------------------------------- */

uint8_t ir_to_fp8_e4m3(double v) { return (uint8_t)mf_encode(&MF_E4M3, v); }
double ir_from_fp8_e4m3(uint8_t b) { return mf_decode(&MF_E4M3, b); }
uint8_t ir_to_fp8_e5m2(double v) { return (uint8_t)mf_encode(&MF_E5M2, v); }
double ir_from_fp8_e5m2(uint8_t b) { return mf_decode(&MF_E5M2, b); }
uint8_t ir_to_fp8_e4m3_fnuz(double v) { return (uint8_t)mf_encode(&MF_E4M3_FNUZ, v); }
double ir_from_fp8_e4m3_fnuz(uint8_t b) { return mf_decode(&MF_E4M3_FNUZ, b); }
uint8_t ir_to_fp8_e5m2_fnuz(double v) { return (uint8_t)mf_encode(&MF_E5M2_FNUZ, v); }
double ir_from_fp8_e5m2_fnuz(uint8_t b) { return mf_decode(&MF_E5M2_FNUZ, b); }
uint8_t ir_to_fp4_e2m1(double v) { return (uint8_t)mf_encode(&MF_E2M1, v); }
double ir_from_fp4_e2m1(uint8_t nibble) { return mf_decode(&MF_E2M1, nibble & 0xf); }

uint8_t ir_to_e8m0(double v)
{
    if (isnan(v))
        return 0xff;
    if (v <= 0x1p-127)
        return 0;
    if (v > 0x1p127)
        return 0xfe;
    int e;
    double m = frexp(v, &e); /* v = m * 2^e, m in [0.5, 1) */
    int k = m == 0.5 ? e - 1 : e; /* smallest k with 2^k >= v */
    return (uint8_t)(k + 127);
}

double ir_from_e8m0(uint8_t b) { return b == 0xff ? NAN : ldexp(1.0, (int)b - 127); }

static int int4_of(double v)
{
    if (isnan(v))
        return 0;
    double r = rint(v);
    return r < -8 ? -8 : r > 7 ? 7 : (int)r;
}

/* Round to nearest even and saturate to [lo, hi]; NaN -> 0. */
static double int_round(double v, double lo, double hi)
{
    if (isnan(v))
        return 0;
    double r = rint(v);
    return r < lo ? lo : r > hi ? hi : r;
}

bool ir_dtype_integral(hipdnnDataType_t t)
{
    return t == HIPDNN_DATA_INT8 || t == HIPDNN_DATA_UINT8 || t == HIPDNN_DATA_INT32 ||
           t == HIPDNN_DATA_INT64 || t == HIPDNN_DATA_INT4 || t == HIPDNN_DATA_BOOLEAN;
}

double ir_dtype_round(hipdnnDataType_t t, double v)
{
    const minifloat *f = minifloat_of(t);
    if (f != NULL)
        return mf_decode(f, mf_encode(f, v));
    switch (t) {
    case HIPDNN_DATA_FLOAT: return (float)v;
    case HIPDNN_DATA_DOUBLE: return v;
    case HIPDNN_DATA_INT8: return int_round(v, -128, 127);
    case HIPDNN_DATA_UINT8: return int_round(v, 0, 255);
    case HIPDNN_DATA_INT32: return int_round(v, -0x1p31, 0x1p31 - 1);
    case HIPDNN_DATA_INT64: return int_round(v, -0x1p63, 0x1p63);
    case HIPDNN_DATA_INT4: return int4_of(v);
    case HIPDNN_DATA_BOOLEAN: return v != 0;
    case HIPDNN_DATA_FP8_E8M0: return ir_from_e8m0(ir_to_e8m0(v));
    case HIPDNN_DATA_HALF: case HIPDNN_DATA_BFLOAT16: case HIPDNN_DATA_FP8_E4M3:
    case HIPDNN_DATA_FP8_E5M2: case HIPDNN_DATA_FP4_E2M1: case HIPDNN_DATA_FP6_E2M3_EXT:
    case HIPDNN_DATA_FP6_E3M2_EXT: case HIPDNN_DATA_FP8_E4M3_FNUZ: case HIPDNN_DATA_FP8_E5M2_FNUZ:
        return NAN;
    }
    return NAN; /* a value outside the enum */
}

/* ---- views ------------------------------------------------------------------------------------ */

bool ir_dtype_supported(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_FP6_E2M3_EXT:
    case HIPDNN_DATA_FP6_E3M2_EXT: return false;
    case HIPDNN_DATA_FLOAT: case HIPDNN_DATA_DOUBLE: case HIPDNN_DATA_HALF: case HIPDNN_DATA_INT8:
    case HIPDNN_DATA_INT32: case HIPDNN_DATA_UINT8: case HIPDNN_DATA_BFLOAT16:
    case HIPDNN_DATA_FP8_E4M3: case HIPDNN_DATA_FP8_E5M2: case HIPDNN_DATA_FP8_E8M0:
    case HIPDNN_DATA_FP4_E2M1: case HIPDNN_DATA_INT4: case HIPDNN_DATA_INT64:
    case HIPDNN_DATA_BOOLEAN: case HIPDNN_DATA_FP8_E4M3_FNUZ: case HIPDNN_DATA_FP8_E5M2_FNUZ:
        return !isnan(ir_dtype_round(t, 0));
    }
    return !isnan(ir_dtype_round(t, 0)); /* a value outside the enum */
}

int64_t ir_buf_numel(const ir_buf *b)
{
    int64_t n = 1;
    for (int i = 0; i < b->rank; i++)
        n *= b->dims[i];
    return n;
}

bool ir_next_index(const ir_buf *b, int64_t *idx)
{
    for (int i = b->rank - 1; i >= 0; i--) {
        if (++idx[i] < b->dims[i])
            return true;
        idx[i] = 0;
    }
    return false;
}

static int64_t elem_offset(const ir_buf *b, const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < b->rank; i++)
        if (b->dims[i] != 1)
            off += idx[i] * b->strides[i];
    return off;
}

#define GET(T, p, off)                                                                        \
    do {                                                                                      \
        T v_;                                                                                 \
        memcpy(&v_, (const char *)(p) + (off) * (int64_t)sizeof(T), sizeof(T));               \
        return (double)v_;                                                                    \
    } while (0)

static uint8_t nibble_at(const ir_buf *b, int64_t off)
{
    uint8_t byte = ((const uint8_t *)b->data)[off >> 1];
    return (off & 1) ? byte >> 4 : byte & 0xf;
}

static double load_at(const ir_buf *b, int64_t off)
{
    const uint8_t *u8 = b->data;
    const minifloat *f = minifloat_of(b->dtype);
    switch (b->dtype) {
    case HIPDNN_DATA_FLOAT: GET(float, b->data, off);
    case HIPDNN_DATA_DOUBLE: GET(double, b->data, off);
    case HIPDNN_DATA_INT8: GET(int8_t, b->data, off);
    case HIPDNN_DATA_UINT8: GET(uint8_t, b->data, off);
    case HIPDNN_DATA_INT32: GET(int32_t, b->data, off);
    case HIPDNN_DATA_INT64: GET(int64_t, b->data, off);
    case HIPDNN_DATA_BOOLEAN: return u8[off] != 0;
    case HIPDNN_DATA_HALF:
    case HIPDNN_DATA_BFLOAT16: {
        uint16_t h;
        memcpy(&h, u8 + off * 2, 2);
        return mf_decode(f, h);
    }
    case HIPDNN_DATA_FP8_E4M3:
    case HIPDNN_DATA_FP8_E5M2:
    case HIPDNN_DATA_FP8_E4M3_FNUZ:
    case HIPDNN_DATA_FP8_E5M2_FNUZ: return mf_decode(f, u8[off]);
    case HIPDNN_DATA_FP8_E8M0: return ir_from_e8m0(u8[off]);
    case HIPDNN_DATA_FP4_E2M1: return mf_decode(f, nibble_at(b, off));
    case HIPDNN_DATA_INT4: return (double)(((int)nibble_at(b, off) ^ 8) - 8);
    case HIPDNN_DATA_FP6_E2M3_EXT:
    case HIPDNN_DATA_FP6_E3M2_EXT: return NAN; /* not supported */
    }
    return NAN; /* not a data type */
}

#undef GET

double ir_load(const ir_buf *b, const int64_t *idx) { return load_at(b, elem_offset(b, idx)); }

#define PUT(T, p, off, val)                                                                   \
    do {                                                                                      \
        T v_ = (T)(val);                                                                      \
        memcpy((char *)(p) + (off) * (int64_t)sizeof(T), &v_, sizeof(T));                     \
    } while (0)

static void put_nibble(ir_buf *b, int64_t off, uint8_t nib)
{
    uint8_t *p = (uint8_t *)b->data + (off >> 1);
    *p = (off & 1) ? (uint8_t)((*p & 0x0f) | (nib << 4)) : (uint8_t)((*p & 0xf0) | (nib & 0xf));
}

static void store_int64(ir_buf *b, int64_t off, double v)
{
    double r = int_round(v, -0x1p63, 0x1p63);
    int64_t i = r >= 0x1p63 ? INT64_MAX : (int64_t)r;
    PUT(int64_t, b->data, off, i);
}

static void store_at(ir_buf *b, int64_t off, double v)
{
    uint8_t *u8 = b->data;
    const minifloat *f = minifloat_of(b->dtype);
    switch (b->dtype) {
    case HIPDNN_DATA_FLOAT: PUT(float, b->data, off, v); break;
    case HIPDNN_DATA_DOUBLE: PUT(double, b->data, off, v); break;
    case HIPDNN_DATA_INT8: PUT(int8_t, b->data, off, int_round(v, -128, 127)); break;
    case HIPDNN_DATA_UINT8: PUT(uint8_t, b->data, off, int_round(v, 0, 255)); break;
    case HIPDNN_DATA_INT32: PUT(int32_t, b->data, off, int_round(v, -0x1p31, 0x1p31 - 1)); break;
    case HIPDNN_DATA_INT64: store_int64(b, off, v); break;
    case HIPDNN_DATA_BOOLEAN: u8[off] = v != 0; break;
    case HIPDNN_DATA_HALF:
    case HIPDNN_DATA_BFLOAT16: PUT(uint16_t, b->data, off, mf_encode(f, v)); break;
    case HIPDNN_DATA_FP8_E4M3:
    case HIPDNN_DATA_FP8_E5M2:
    case HIPDNN_DATA_FP8_E4M3_FNUZ:
    case HIPDNN_DATA_FP8_E5M2_FNUZ: u8[off] = (uint8_t)mf_encode(f, v); break;
    case HIPDNN_DATA_FP8_E8M0: u8[off] = ir_to_e8m0(v); break;
    case HIPDNN_DATA_FP4_E2M1: put_nibble(b, off, (uint8_t)mf_encode(f, v)); break;
    case HIPDNN_DATA_INT4: put_nibble(b, off, (uint8_t)(int4_of(v) & 0xf)); break;
    case HIPDNN_DATA_FP6_E2M3_EXT: case HIPDNN_DATA_FP6_E3M2_EXT:
        break; /* FP6 and unknown types: not supported, nothing written */
    }
}

#undef PUT

void ir_store(ir_buf *b, const int64_t *idx, double v) { store_at(b, elem_offset(b, idx), v); }

/* ---- broadcasting (numpy rules, right-aligned) ------------------------------------------------- */

bool ir_bcast_ok(const ir_buf *b, const int64_t *dims, int rank)
{
    int lead = rank - b->rank;
    for (int i = 0; i < b->rank; i++) {
        int64_t d = b->dims[i];
        if (d != 1 && (i < -lead || d != dims[i + lead]))
            return false;
    }
    return true;
}

void ir_bcast_index(const ir_buf *b, const int64_t *idx, int rank, int64_t *bidx)
{
    int lead = rank - b->rank;
    for (int i = 0; i < b->rank; i++)
        bidx[i] = (b->dims[i] == 1 || i + lead < 0) ? 0 : idx[i + lead];
}
