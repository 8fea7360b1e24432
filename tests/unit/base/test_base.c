/* test_base.c — base/'s primitives against independent expectations: base64 (RFC 4648's test
 * vectors, random round trips, malformed input refused), the string builder (growth past its
 * first buffer, printf), checked size products at the overflow edge, fp16 / bf16 rounding to
 * nearest even against the IEEE bit patterns, and the per-thread last error (set by base_fail,
 * kept by a peek, cleared by a read). Random inputs are fresh each run (tu_seed prints the seed).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"
#include "../../common/tu.h"

Test(base_b64, rfc4648_vectors)
{
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        base_sb e = {0}, d = {0};
        base_b64_encode(plain[i], strlen(plain[i]), &e);
        cr_expect_str_eq(base_sb_str(&e), coded[i], "encode \"%s\"", plain[i]);
        cr_expect(base_b64_decode(coded[i], strlen(coded[i]), &d), "decode \"%s\"", coded[i]);
        cr_expect_eq(d.len, strlen(plain[i]));
        cr_expect(memcmp(base_sb_str(&d), plain[i], d.len) == 0, "decode \"%s\"", coded[i]);
        base_sb_free(&e), base_sb_free(&d);
    }
}

Test(base_b64, random_round_trips)
{
    tu_seed("base_b64/random_round_trips");
    for (int n = 0; n < 200; n++) {
        uint8_t buf[300];
        size_t len = (size_t)tu_range(0, (int64_t)sizeof buf);
        tu_bytes(buf, len);
        base_sb e = {0}, d = {0};
        base_b64_encode(buf, len, &e);
        cr_assert_eq(e.len, (len + 2) / 3 * 4, "length %zu", len);
        cr_assert(base_b64_decode(base_sb_str(&e), e.len, &d), "length %zu", len);
        cr_assert_eq(d.len, len);
        cr_assert(memcmp(base_sb_str(&d), buf, len) == 0, "length %zu", len);
        base_sb_free(&e), base_sb_free(&d);
    }
}

Test(base_b64, malformed_input_is_refused)
{
    static const char *const bad[] = {"Zg=", "Z", "Zm9v!", "Zm=v", "====", "Zg==Zg==x", "Zm 9v"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        base_sb d = {0};
        cr_expect(!base_b64_decode(bad[i], strlen(bad[i]), &d), "\"%s\" decoded", bad[i]);
        base_sb_free(&d);
    }
}

Test(base_sb, grows_and_formats)
{
    base_sb sb = {0};
    cr_expect_str_eq(base_sb_str(&sb), "");
    char want[5000] = "";
    for (int i = 0; i < 500; i++) {
        base_sb_printf(&sb, "%d,", i);
        snprintf(want + strlen(want), sizeof want - strlen(want), "%d,", i);
    }
    base_sb_putn(&sb, "xyz", 2);
    strcat(want, "xy");
    cr_expect(!sb.oom);
    cr_expect_eq(sb.len, strlen(want));
    cr_expect_str_eq(base_sb_str(&sb), want);
    base_sb_free(&sb);
}

Test(base_size, products_at_the_overflow_edge)
{
    size_t out = 7;
    cr_expect(base_mul_size(SIZE_MAX / 3, 3, &out));
    cr_expect_eq(out, SIZE_MAX / 3 * 3);
    cr_expect(!base_mul_size(SIZE_MAX / 3 + 1, 3, &out));
    cr_expect(base_mul_size(0, SIZE_MAX, &out));
    cr_expect_eq(out, 0);
    cr_expect(!base_mul_size((size_t)1 << (sizeof(size_t) * 4), (size_t)1 << (sizeof(size_t) * 4), &out));
}

/* IEEE bit patterns: fp16 1.0 = 0x3C00, bf16 1.0 = 0x3F80; halfway cases round to even. */
Test(base_half, rounds_to_nearest_even)
{
    cr_expect_eq(base_f32_to_fp16(1.0f), 0x3C00);
    cr_expect_eq(base_f32_to_fp16(-2.0f), 0xC000);
    cr_expect_eq(base_f32_to_fp16(65504.0f), 0x7BFF);
    cr_expect_eq(base_f32_to_fp16(65520.0f), 0x7C00);              /* halfway to 2^16: rounds to inf */
    cr_expect_eq(base_f32_to_fp16(1.0f + 0x1p-11f), 0x3C00);        /* halfway, even stays */
    cr_expect_eq(base_f32_to_fp16(1.0f + 3 * 0x1p-11f), 0x3C02);    /* halfway, odd rounds up */
    cr_expect_eq(base_f32_to_fp16(0x1p-24f), 0x0001);               /* the smallest subnormal */
    cr_expect_eq(base_f32_to_bf16(1.0f), 0x3F80);
    cr_expect_eq(base_f32_to_bf16(1.0f + 0x1p-8f), 0x3F80);         /* halfway, even stays */
    cr_expect_eq(base_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);     /* halfway, odd rounds up */
    cr_expect(isnan(base_fp16_to_f32(base_f32_to_fp16(NAN))));
    cr_expect(isnan(base_bf16_to_f32(base_f32_to_bf16(NAN))));
    cr_expect_eq(base_fp16_to_f32(0x7C00), INFINITY);
    tu_seed("base_half/rounds_to_nearest_even");
    for (int i = 0; i < 10000; i++) { /* every fp16 / bf16 value converts back exactly */
        uint16_t h = (uint16_t)tu_range(0, 65536);
        float f = base_fp16_to_f32(h), g = base_bf16_to_f32(h);
        if (!isnan(f))
            cr_assert_eq(base_f32_to_fp16(f), h, "fp16 0x%04x", h);
        if (!isnan(g))
            cr_assert_eq(base_f32_to_bf16(g), h, "bf16 0x%04x", h);
    }
}

Test(base_err, last_error_is_kept_by_a_peek_and_cleared_by_a_read)
{
    char msg[64];
    cr_expect_eq(base_fail(HIPDNN_STATUS_BAD_PARAM, "width %d is odd", 7), HIPDNN_STATUS_BAD_PARAM);
    base_last_error(msg, sizeof msg, false);
    cr_expect(strstr(msg, "width 7 is odd") != NULL, "peek: \"%s\"", msg);
    base_last_error(msg, sizeof msg, true);
    cr_expect(strstr(msg, "width 7 is odd") != NULL, "read: \"%s\"", msg);
    base_last_error(msg, sizeof msg, true);
    cr_expect_str_eq(msg, "", "after a read: \"%s\"", msg);
    cr_expect_str_eq(base_status_name(HIPDNN_STATUS_BAD_PARAM), "HIPDNN_STATUS_BAD_PARAM");
}
