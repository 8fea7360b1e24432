/* test_ir_dtype.c — unit tests of ir/ir_dtype.c: element types and strided views.
 *
 * Owns: exhaustive checks of every code of the 8-bit and 4-bit types (decode against a second
 * decoder written here, re-encode to itself except NaN aliases, midpoints round to the even
 * code, just off a midpoint rounds to the nearer one, saturation and NaN rules), HALF/BFLOAT16
 * against base/'s conversions and an independent nearest-even search, the integer types,
 * sub-byte packing, and view indexing (row-major order, garbage strides on size-1 dims).
 * Tolerances: none — every check here is exact.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "ir/ir_int.h"
#include "ir_test_util.h"

/* ---- a second decoder -------------------------------------------------------------------------- */

typedef enum { K_IEEE, K_FN, K_FNUZ, K_NONE } kind;

typedef struct fmt {
    hipdnnDataType_t t;
    int e, m, bias;
    kind k;
    double max;
    int bits;
} fmt;

static const fmt F_E4M3 = {HIPDNN_DATA_FP8_E4M3, 4, 3, 7, K_FN, 448, 8};
static const fmt F_E5M2 = {HIPDNN_DATA_FP8_E5M2, 5, 2, 15, K_IEEE, 57344, 8};
static const fmt F_E4M3Z = {HIPDNN_DATA_FP8_E4M3_FNUZ, 4, 3, 8, K_FNUZ, 240, 8};
static const fmt F_E5M2Z = {HIPDNN_DATA_FP8_E5M2_FNUZ, 5, 2, 16, K_FNUZ, 57344, 8};
static const fmt F_E2M1 = {HIPDNN_DATA_FP4_E2M1, 2, 1, 1, K_NONE, 6, 4};

static double pow2(int k)
{
    double r = 1;
    for (; k > 0; k--)
        r *= 2;
    for (; k < 0; k++)
        r /= 2;
    return r;
}

static double ref_decode(const fmt *f, unsigned code)
{
    unsigned sign = code >> (f->bits - 1), ex = (code >> f->m) & ((1u << f->e) - 1);
    unsigned man = code & ((1u << f->m) - 1);
    bool top = ex == (1u << f->e) - 1;
    if (f->k == K_IEEE && top)
        return man ? NAN : (sign ? -INFINITY : INFINITY);
    if (f->k == K_FN && top && man == (1u << f->m) - 1)
        return NAN;
    if (f->k == K_FNUZ && code == 1u << (f->bits - 1))
        return NAN;
    double v = ex ? (1.0 + man / pow2(f->m)) * pow2((int)ex - f->bias)
                  : man / pow2(f->m) * pow2(1 - f->bias);
    return sign ? -v : v;
}

static double load_code(hipdnnDataType_t t, uint16_t code);
static uint16_t store_code(hipdnnDataType_t t, double v);

static double lib_decode(const fmt *f, unsigned code)
{
    switch (f->t) {
    case HIPDNN_DATA_HALF:
    case HIPDNN_DATA_BFLOAT16: return load_code(f->t, (uint16_t)code);
    case HIPDNN_DATA_FP8_E4M3: return ir_from_fp8_e4m3((uint8_t)code);
    case HIPDNN_DATA_FP8_E5M2: return ir_from_fp8_e5m2((uint8_t)code);
    case HIPDNN_DATA_FP8_E4M3_FNUZ: return ir_from_fp8_e4m3_fnuz((uint8_t)code);
    case HIPDNN_DATA_FP8_E5M2_FNUZ: return ir_from_fp8_e5m2_fnuz((uint8_t)code);
    default: return ir_from_fp4_e2m1((uint8_t)code);
    }
}

static unsigned lib_encode(const fmt *f, double v)
{
    switch (f->t) {
    case HIPDNN_DATA_HALF:
    case HIPDNN_DATA_BFLOAT16: return store_code(f->t, v);
    case HIPDNN_DATA_FP8_E4M3: return ir_to_fp8_e4m3(v);
    case HIPDNN_DATA_FP8_E5M2: return ir_to_fp8_e5m2(v);
    case HIPDNN_DATA_FP8_E4M3_FNUZ: return ir_to_fp8_e4m3_fnuz(v);
    case HIPDNN_DATA_FP8_E5M2_FNUZ: return ir_to_fp8_e5m2_fnuz(v);
    default: return ir_to_fp4_e2m1(v);
    }
}

static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* Every code decodes like the second decoder, re-encodes to itself (NaN codes: to a NaN code;
 * FNUZ has no -0 to alias) and ir_dtype_round agrees with decode(encode). */
static void every_code(const fmt *f)
{
    for (unsigned c = 0; c < (1u << f->bits); c++) {
        double v = lib_decode(f, c);
        CHECK(same(v, ref_decode(f, c)));
        unsigned back = lib_encode(f, v);
        if (isnan(v))
            CHECK(isnan(lib_decode(f, back)));
        else
            CHECK(back == c);
        CHECK(same(ir_dtype_round(f->t, v), v));
    }
}

/* Finite non-negative values in increasing order, with their codes. */
static int positives(const fmt *f, double *v, unsigned *code)
{
    int n = 0;
    for (unsigned c = 0; c < (1u << (f->bits - 1)); c++) {
        double x = lib_decode(f, c);
        if (isfinite(x))
            v[n] = x, code[n++] = c;
    }
    for (int i = 1; i < n; i++)
        CHECK(v[i] > v[i - 1]);
    return n;
}

/* The midpoint of two neighbours rounds to the even code; a hair off it to the nearer one. */
static void midpoints(const fmt *f)
{
    double *v = malloc(sizeof *v << (f->bits - 1));
    unsigned *code = malloc(sizeof *code << (f->bits - 1));
    cr_assert(v != NULL && code != NULL);
    int n = positives(f, v, code);
    CHECK(v[n - 1] == f->max);
    for (int i = 0; i + 1 < n; i++) {
        double mid = 0.5 * (v[i] + v[i + 1]), eps = (v[i + 1] - v[i]) * 1e-6;
        unsigned even = code[i] % 2 == 0 ? code[i] : code[i + 1];
        for (int s = 0; s < 2; s++) {
            double sg = s ? -1 : 1;
            unsigned sb = s ? 1u << (f->bits - 1) : 0;
            unsigned want_even = even == 0 && f->k == K_FNUZ ? 0 : even | sb;
            unsigned want_lo = code[i] == 0 && f->k == K_FNUZ ? 0 : code[i] | sb;
            CHECK(lib_encode(f, sg * mid) == want_even);
            CHECK(lib_encode(f, sg * (mid - eps)) == want_lo);
            CHECK(lib_encode(f, sg * (mid + eps)) == (code[i + 1] | sb));
        }
    }
    free(v);
    free(code);
}

Test(ir_dtype, fp8_e4m3_every_code)
{
    every_code(&F_E4M3);
    midpoints(&F_E4M3);
    CHECK(ir_from_fp8_e4m3(0x7e) == 448 && ir_from_fp8_e4m3(0x38) == 1.0);
    CHECK(ir_from_fp8_e4m3(0x08) == 0x1p-6 && ir_from_fp8_e4m3(0x01) == 0x1p-9);
    CHECK(isnan(ir_from_fp8_e4m3(0x7f)) && isnan(ir_from_fp8_e4m3(0xff)));
    CHECK(ir_to_fp8_e4m3(NAN) == 0x7f && ir_to_fp8_e4m3(-NAN) == 0xff);
    /* saturating: 464 is the 448/480 midpoint, 480 would be the NaN code */
    CHECK(ir_to_fp8_e4m3(449) == 0x7e && ir_to_fp8_e4m3(464) == 0x7e);
    CHECK(ir_to_fp8_e4m3(1e30) == 0x7e && ir_to_fp8_e4m3(-1e30) == 0xfe);
    CHECK(ir_to_fp8_e4m3(INFINITY) == 0x7e && ir_to_fp8_e4m3(-INFINITY) == 0xfe);
    CHECK(ir_to_fp8_e4m3(-0.0) == 0x80 && ir_to_fp8_e4m3(0x1p-11) == 0x00);
}

Test(ir_dtype, fp8_e5m2_every_code)
{
    every_code(&F_E5M2);
    midpoints(&F_E5M2);
    CHECK(ir_from_fp8_e5m2(0x7b) == 57344 && ir_from_fp8_e5m2(0x3c) == 1.0);
    CHECK(ir_from_fp8_e5m2(0x7c) == INFINITY && ir_from_fp8_e5m2(0xfc) == -INFINITY);
    CHECK(ir_from_fp8_e5m2(0x01) == 0x1p-16);
    CHECK(ir_to_fp8_e5m2(NAN) == 0x7e);
    /* finite overflow saturates (documented choice); only infinity stays infinity */
    CHECK(ir_to_fp8_e5m2(61440) == 0x7b && ir_to_fp8_e5m2(1e30) == 0x7b);
    CHECK(ir_to_fp8_e5m2(-1e30) == 0xfb);
    CHECK(ir_to_fp8_e5m2(INFINITY) == 0x7c && ir_to_fp8_e5m2(-INFINITY) == 0xfc);
}

Test(ir_dtype, fp8_fnuz_every_code)
{
    every_code(&F_E4M3Z);
    midpoints(&F_E4M3Z);
    every_code(&F_E5M2Z);
    midpoints(&F_E5M2Z);
    CHECK(ir_from_fp8_e4m3_fnuz(0x7f) == 240 && ir_from_fp8_e4m3_fnuz(0x40) == 1.0);
    CHECK(ir_from_fp8_e5m2_fnuz(0x7f) == 57344 && ir_from_fp8_e5m2_fnuz(0x40) == 1.0);
    CHECK(ir_from_fp8_e4m3_fnuz(0x01) == 0x1p-10 && ir_from_fp8_e5m2_fnuz(0x01) == 0x1p-17);
    CHECK(isnan(ir_from_fp8_e4m3_fnuz(0x80)) && isnan(ir_from_fp8_e5m2_fnuz(0x80)));
    CHECK(ir_to_fp8_e4m3_fnuz(NAN) == 0x80 && ir_to_fp8_e5m2_fnuz(-NAN) == 0x80);
    CHECK(ir_to_fp8_e4m3_fnuz(-0.0) == 0x00 && ir_to_fp8_e4m3_fnuz(-0x1p-13) == 0x00);
    CHECK(ir_to_fp8_e5m2_fnuz(-0.0) == 0x00);
    CHECK(ir_to_fp8_e4m3_fnuz(1e9) == 0x7f && ir_to_fp8_e4m3_fnuz(-INFINITY) == 0xff);
    CHECK(ir_to_fp8_e5m2_fnuz(INFINITY) == 0x7f);
}

Test(ir_dtype, fp4_e2m1_every_code)
{
    static const double vals[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    every_code(&F_E2M1);
    midpoints(&F_E2M1);
    for (unsigned c = 0; c < 16; c++)
        CHECK(same(ir_from_fp4_e2m1((uint8_t)c), (c & 8 ? -1 : 1) * vals[c & 7]));
    CHECK(ir_to_fp4_e2m1(2.5) == 0x4 && ir_to_fp4_e2m1(5) == 0x6 && ir_to_fp4_e2m1(0.25) == 0);
    CHECK(ir_to_fp4_e2m1(0.75) == 0x2 && ir_to_fp4_e2m1(1.25) == 0x2 && ir_to_fp4_e2m1(1.75) == 4);
    CHECK(ir_to_fp4_e2m1(7) == 0x7 && ir_to_fp4_e2m1(-1e9) == 0xf && ir_to_fp4_e2m1(INFINITY) == 7);
    CHECK(ir_to_fp4_e2m1(NAN) == 0x7); /* no NaN: documented choice +6 */
    CHECK(ir_to_fp4_e2m1(-0.0) == 0x8);
}

Test(ir_dtype, fp8_e8m0_every_code)
{
    for (int b = 0; b < 255; b++) {
        double v = ir_from_e8m0((uint8_t)b);
        CHECK(v == pow2(b - 127));
        CHECK(ir_to_e8m0(v) == b);
        CHECK(ir_dtype_round(HIPDNN_DATA_FP8_E8M0, v) == v);
        if (b > 0 && b < 254) { /* rounds UP to the next power of two */
            CHECK(ir_to_e8m0(v * (1 + 0x1p-40)) == b + 1);
            CHECK(ir_to_e8m0(v * 0.75) == b);
            CHECK(ir_to_e8m0(v * 0.5000001) == b);
        }
    }
    CHECK(isnan(ir_from_e8m0(0xff)) && ir_to_e8m0(NAN) == 0xff);
    CHECK(ir_to_e8m0(0) == 0 && ir_to_e8m0(-5) == 0 && ir_to_e8m0(0x1p-130) == 0);
    CHECK(ir_to_e8m0(0x1p127 * 1.5) == 0xfe && ir_to_e8m0(INFINITY) == 0xfe);
    CHECK(ir_to_e8m0(3.0) == 129 && ir_to_e8m0(1.0) == 127);
}

/* ---- HALF / BFLOAT16 --------------------------------------------------------------------------- */

static double load_code(hipdnnDataType_t t, uint16_t code)
{
    ir_buf b = {&code, t, 1, {1}, {1}};
    int64_t idx[1] = {0};
    return ir_load(&b, idx);
}

static uint16_t store_code(hipdnnDataType_t t, double v)
{
    uint16_t code = 0xdead;
    ir_buf b = {&code, t, 1, {1}, {1}};
    int64_t idx[1] = {0};
    ir_store(&b, idx, v);
    return code;
}

static void half_every_code(hipdnnDataType_t t)
{
    for (unsigned c = 0; c < 65536; c++) {
        double v = load_code(t, (uint16_t)c);
        double want = t == HIPDNN_DATA_HALF ? base_fp16_to_f32((uint16_t)c)
                                            : base_bf16_to_f32((uint16_t)c);
        CHECK(same(v, want));
        if (!isnan(v))
            CHECK(store_code(t, v) == c);
    }
}

/* Random doubles spread over the exponent range, incl. subnormals and overflow. */
static void half_random(hipdnnDataType_t t, int emin, int emax)
{
    for (int i = 0; i < 200000; i++) {
        double v = ldexp(tt_unif(1, 2), (int)tt_randint(emin, emax)) * (tt_rand() & 1 ? -1 : 1);
        double got = load_code(t, store_code(t, v));
        CHECK(same(got, tt_round_ref(t, v)));
        CHECK(same(ir_dtype_round(t, v), got));
    }
}

Test(ir_dtype, half_and_bf16)
{
    tt_seed("ir_dtype.half_and_bf16");
    half_every_code(HIPDNN_DATA_HALF);
    half_every_code(HIPDNN_DATA_BFLOAT16);
    half_random(HIPDNN_DATA_HALF, -27, 17);
    half_random(HIPDNN_DATA_BFLOAT16, -136, 129);
    midpoints(&(fmt){HIPDNN_DATA_HALF, 5, 10, 15, K_IEEE, 65504, 16});
    midpoints(&(fmt){HIPDNN_DATA_BFLOAT16, 8, 7, 127, K_IEEE, 0x1.fep127, 16});
}

Test(ir_dtype, half_overflow_and_nan)
{
    CHECK(store_code(HIPDNN_DATA_HALF, 65519.99) == 0x7bff);
    CHECK(store_code(HIPDNN_DATA_HALF, 65520) == 0x7c00); /* the tie goes to infinity */
    CHECK(store_code(HIPDNN_DATA_HALF, -1e9) == 0xfc00);
    CHECK(store_code(HIPDNN_DATA_HALF, NAN) == 0x7e00);
    CHECK(store_code(HIPDNN_DATA_HALF, 0x1p-25) == 0x0000);            /* tie to even: 0 */
    CHECK(store_code(HIPDNN_DATA_HALF, 0x1p-25 * 1.0000001) == 0x0001);
    CHECK(store_code(HIPDNN_DATA_BFLOAT16, 0x1p128) == 0x7f80);
    CHECK(store_code(HIPDNN_DATA_BFLOAT16, 1.0 + 0x1p-8) == 0x3f80);   /* tie to even */
    CHECK(store_code(HIPDNN_DATA_BFLOAT16, 1.0 + 3 * 0x1p-8) == 0x3f82);
    /* no double rounding through float: just above a bf16 midpoint by less than a float ulp */
    CHECK(store_code(HIPDNN_DATA_BFLOAT16, 1.0 + 0x1p-8 + 0x1p-40) == 0x3f81);
    CHECK(store_code(HIPDNN_DATA_HALF, 1.0 + 0x1p-11 + 0x1p-40) == 0x3c01);
}

Test(ir_dtype, float_and_double)
{
    tt_seed("ir_dtype.float_and_double");
    for (int i = 0; i < 10000; i++) {
        double v = ldexp(tt_unif(-2, 2), (int)tt_randint(-160, 140));
        float f;
        double d;
        ir_buf bf = {&f, HIPDNN_DATA_FLOAT, 0, {0}, {0}}, bd = {&d, HIPDNN_DATA_DOUBLE, 0, {0}, {0}};
        ir_store(&bf, NULL, v);
        ir_store(&bd, NULL, v);
        CHECK(same(f, (float)v) && same(ir_load(&bf, NULL), (float)v));
        CHECK(d == v && ir_load(&bd, NULL) == v);
        CHECK(same(ir_dtype_round(HIPDNN_DATA_FLOAT, v), (float)v));
    }
}

/* ---- integers and booleans --------------------------------------------------------------------- */

static double roundtrip(hipdnnDataType_t t, double v)
{
    uint64_t mem = 0x5a5a5a5a5a5a5a5aull;
    ir_buf b = {&mem, t, 1, {1}, {1}};
    int64_t idx[1] = {0};
    ir_store(&b, idx, v);
    return ir_load(&b, idx);
}

Test(ir_dtype, integers)
{
    static const double half_ties[][2] = {{0.5, 0}, {1.5, 2}, {2.5, 2}, {-2.5, -2}, {-3.5, -4}};
    hipdnnDataType_t ints[] = {HIPDNN_DATA_INT8, HIPDNN_DATA_UINT8, HIPDNN_DATA_INT32,
                               HIPDNN_DATA_INT64, HIPDNN_DATA_INT4};
    for (int t = 0; t < 5; t++) {
        for (int i = 0; i < 5; i++) {
            double v = half_ties[i][0], w = half_ties[i][1];
            if (ints[t] == HIPDNN_DATA_UINT8 && w < 0)
                w = 0;
            CHECK(roundtrip(ints[t], v) == w && ir_dtype_round(ints[t], v) == w);
        }
        CHECK(roundtrip(ints[t], NAN) == 0);
    }
    CHECK(roundtrip(HIPDNN_DATA_INT8, 127.6) == 127 && roundtrip(HIPDNN_DATA_INT8, -1e9) == -128);
    CHECK(roundtrip(HIPDNN_DATA_UINT8, 300) == 255 && roundtrip(HIPDNN_DATA_UINT8, -7) == 0);
    CHECK(roundtrip(HIPDNN_DATA_INT32, 1e12) == 2147483647.0);
    CHECK(roundtrip(HIPDNN_DATA_INT32, -1e12) == -2147483648.0);
    CHECK(roundtrip(HIPDNN_DATA_INT64, 1e30) == 0x1p63 &&
          roundtrip(HIPDNN_DATA_INT64, -1e30) == -0x1p63);
    CHECK(roundtrip(HIPDNN_DATA_INT64, 0x1p52 + 1) == 0x1p52 + 1);
    CHECK(roundtrip(HIPDNN_DATA_INT4, 7.4) == 7 && roundtrip(HIPDNN_DATA_INT4, -9) == -8);
    CHECK(roundtrip(HIPDNN_DATA_BOOLEAN, 0) == 0 && roundtrip(HIPDNN_DATA_BOOLEAN, -0.1) == 1);
    CHECK(roundtrip(HIPDNN_DATA_BOOLEAN, NAN) == 1);
    uint8_t byte = 7; /* any nonzero byte loads as true */
    ir_buf b = {&byte, HIPDNN_DATA_BOOLEAN, 0, {0}, {0}};
    CHECK(ir_load(&b, NULL) == 1);
}

Test(ir_dtype, packed_nibbles)
{
    uint8_t mem[5];
    ir_buf b = {mem, HIPDNN_DATA_FP4_E2M1, 1, {9}, {1}};
    static const double v[9] = {0.5, -6, 3, 1, -0.5, 4, 1.5, -2, 6};
    memset(mem, 0xab, sizeof mem);
    for (int64_t i = 0; i < 9; i++)
        ir_store(&b, &i, v[i]);
    CHECK(mem[0] == (uint8_t)(0x1 | 0xf << 4)); /* element 0 low nibble, element 1 high */
    CHECK(mem[1] == (uint8_t)(0x5 | 0x2 << 4));
    CHECK(mem[4] == (uint8_t)(0x7 | 0xa << 4)); /* element 8 low; the high nibble kept */
    for (int64_t i = 0; i < 9; i++)
        CHECK(ir_load(&b, &i) == v[i]);
    b.dtype = HIPDNN_DATA_INT4;
    for (int64_t i = 0; i < 9; i++)
        ir_store(&b, &i, (double)i - 5);
    CHECK(mem[0] == (uint8_t)(0xb | 0xc << 4) && (mem[4] & 0xf) == 3 && (mem[4] >> 4) == 0xa);
    for (int64_t i = 0; i < 9; i++)
        CHECK(ir_load(&b, &i) == (double)i - 5);
    for (unsigned c = 0; c < 16; c++) { /* every INT4 code */
        mem[0] = (uint8_t)c;
        int64_t i = 0;
        double want = c < 8 ? (double)c : (double)c - 16;
        CHECK(ir_load(&b, &i) == want);
        ir_store(&b, &i, want);
        CHECK((mem[0] & 0xf) == c);
    }
}

Test(ir_dtype, fp6_not_supported)
{
    uint8_t mem[4] = {0x11, 0x22, 0x33, 0x44};
    ir_buf b = {mem, HIPDNN_DATA_FP6_E2M3_EXT, 1, {4}, {1}};
    int64_t i = 1;
    CHECK(!ir_dtype_supported(HIPDNN_DATA_FP6_E2M3_EXT));
    CHECK(!ir_dtype_supported(HIPDNN_DATA_FP6_E3M2_EXT));
    CHECK(!ir_dtype_supported((hipdnnDataType_t)99) && ir_dtype_supported(HIPDNN_DATA_INT4));
    CHECK(isnan(ir_load(&b, &i)));
    ir_store(&b, &i, 1.0);
    CHECK(mem[0] == 0x11 && mem[1] == 0x22 && mem[2] == 0x33 && mem[3] == 0x44);
    /* the value sets still round */
    CHECK(ir_dtype_round(HIPDNN_DATA_FP6_E2M3_EXT, 100) == 7.5);
    CHECK(ir_dtype_round(HIPDNN_DATA_FP6_E2M3_EXT, 0.0625) == 0); /* tie: 0 and 0.125 */
    CHECK(ir_dtype_round(HIPDNN_DATA_FP6_E3M2_EXT, 100) == 28);
    CHECK(ir_dtype_round(HIPDNN_DATA_FP6_E3M2_EXT, 0x1p-4) == 0x1p-4);
}

/* ---- views ------------------------------------------------------------------------------------- */

Test(ir_dtype, views)
{
    double mem[64];
    for (int i = 0; i < 64; i++)
        mem[i] = i;
    /* [2, 1, 3] with a garbage stride on the size-1 dim and a column-major-ish layout */
    ir_buf b = {mem, HIPDNN_DATA_DOUBLE, 3, {2, 1, 3}, {1, 99990001, 5}};
    int64_t idx[3] = {0, 0, 0}, seen = 0;
    CHECK(ir_buf_numel(&b) == 6);
    do {
        CHECK(idx[1] == 0);
        CHECK(ir_load(&b, idx) == (double)(idx[0] + 5 * idx[2]));
        CHECK(tt_lin(b.dims, 3, idx) == seen); /* row-major order */
        seen++;
    } while (ir_next_index(&b, idx));
    CHECK(seen == 6 && idx[0] == 0 && idx[2] == 0);
    ir_buf s = {mem + 7, HIPDNN_DATA_DOUBLE, 0, {0}, {0}};
    CHECK(ir_buf_numel(&s) == 1 && ir_load(&s, NULL) == 7 && !ir_next_index(&s, NULL));
    ir_buf e = {mem, HIPDNN_DATA_DOUBLE, 2, {3, 0}, {0, 1}};
    CHECK(ir_buf_numel(&e) == 0);
}

Test(ir_dtype, broadcast_helpers)
{
    ir_buf a = {NULL, HIPDNN_DATA_FLOAT, 2, {1, 4}, {4, 1}};
    ir_buf big = {NULL, HIPDNN_DATA_FLOAT, 4, {1, 1, 3, 4}, {0, 0, 4, 1}};
    const int64_t dims[3] = {2, 3, 4};
    int64_t idx[3] = {1, 2, 3}, bi[4];
    CHECK(ir_bcast_ok(&a, dims, 3) && ir_bcast_ok(&big, dims, 3));
    ir_bcast_index(&a, idx, 3, bi);
    CHECK(bi[0] == 0 && bi[1] == 3);
    ir_bcast_index(&big, idx, 3, bi);
    CHECK(bi[0] == 0 && bi[1] == 0 && bi[2] == 2 && bi[3] == 3);
    ir_buf bad = {NULL, HIPDNN_DATA_FLOAT, 2, {2, 4}, {4, 1}};
    ir_buf bad2 = {NULL, HIPDNN_DATA_FLOAT, 4, {2, 2, 3, 4}, {0, 0, 4, 1}};
    CHECK(!ir_bcast_ok(&bad, dims, 3) && !ir_bcast_ok(&bad2, dims, 3));
}
