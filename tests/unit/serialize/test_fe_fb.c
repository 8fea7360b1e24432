/* test_fe_fb.c — unit tests of serialize/fe_fb (FlatBuffers reader and builder).
 *
 * Owns: round trips of every field kind through fe_fbb and back through fe_fb, layout checks
 * (8-byte alignment relative to the buffer start), builder errors and fault injection, and a
 * mutation corpus (truncations, bit flips, byte overwrites, targeted offset/vtable/length
 * damage, deep chains) walked by a schema-less reader that tries every accessor on every field.
 * This file: round trips, layout and nesting; malformed input and builder errors are in
 * test_fe_fb_errors.c, the mutation corpus in test_fe_fb_corpus.c, helpers in fbt_util.c.
 * Interop with the official flatc is in test_fe_fb_interop.c.
 * Randomness is seeded freshly each run and the seed printed; HIPDNN_TEST_SEED replays one.
 * Run under -DHIPDNN_SANITIZE=ON too: every corpus input sits in a heap block of exactly its
 * size, so any read outside it is an ASan report.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "serialize/fe_fb.h"

#include "fbt_util.h"

/* ---- round trips ---------------------------------------------------------------------------- */

Test(fe_fb, roundtrip_every_field_kind)
{
    fbt_rng_seed_fresh("roundtrip_every_field_kind");
    for (int iter = 0; iter < 200; iter++) {
        rich r;
        size_t len;
        fbt_rich_make(&r);
        const char *ident = iter % 2 ? "HDGP" : NULL;
        uint8_t *buf = fbt_rich_buffer(&r, ident, &len);
        cr_assert(fbt_rich_read(buf, len, &r, NULL), "iteration %d: %s", iter, fbt_why);
        cr_assert_eq(fe_fb_has_identifier(buf, len, "HDGP"), ident != NULL);
        free(buf);
    }
}

Test(fe_fb, special_float_values)
{
    const float f[] = {0.0f, -0.0f, INFINITY, -INFINITY, 1e-45f, 3.4028235e38f};
    const double d[] = {0.0, -0.0, INFINITY, 4.9e-324, 1.7976931348623157e308, -1.5};
    for (size_t i = 0; i < 6; i++) {
        fe_fbb *b = fe_fbb_new();
        fe_fbt *t = fe_fbb_table(b);
        uint8_t *buf;
        size_t len;
        fe_fb_table root;
        float fo;
        double dobl;
        fe_fbt_f32(t, 0, f[i]);
        fe_fbt_f64(t, 1, d[i]);
        fe_fbt_f32(t, 2, NAN);
        cr_assert_eq(fe_fbb_finish(b, t, NULL, &buf, &len), FE_FBB_OK);
        cr_assert_eq(fe_fb_root(buf, len, &root), FE_FB_OK);
        cr_assert(fe_fb_f32(&root, 0, 7.0f, &fo) == FE_FB_OK && fbt_same_bits(&fo, &f[i], 4));
        cr_assert(fe_fb_f64(&root, 1, 7.0, &dobl) == FE_FB_OK && fbt_same_bits(&dobl, &d[i], 8));
        cr_assert(fe_fb_f32(&root, 2, 7.0f, &fo) == FE_FB_OK && isnan(fo), "NaN survives");
        free(buf);
        fe_fbb_free(b);
    }
}

/* A root with only the given field set; returns its buffer. */
static uint8_t *one_field(int kind, size_t *len)
{
    fe_fbb *b = fe_fbb_new();
    fe_fbt *t = fe_fbb_table(b);
    uint8_t *buf;
    if (kind == 0)
        fe_fbt_i32(t, 3, 0); /* a default-valued field is still written */
    cr_assert_eq(fe_fbb_finish(b, t, NULL, &buf, len), FE_FBB_OK);
    fe_fbb_free(b);
    return buf;
}

Test(fe_fb, absent_fields_give_defaults)
{
    size_t len;
    uint8_t *buf = one_field(0, &len);
    fe_fb_table t, sub;
    fe_fb_vec v;
    uint8_t u8, type;
    int8_t i8; bool bo; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32; int64_t i64;
    uint64_t u64; float f32; double f64;
    const char *s = "x";
    uint32_t n = 9;
    const uint8_t *p = buf;
    cr_assert_eq(fe_fb_root(buf, len, &t), FE_FB_OK);
    cr_assert(fe_fb_i32(&t, 3, 42, &i32) == FE_FB_OK && i32 == 0, "written default is present");
    for (uint16_t id = 0; id < 40; id += (id == 2 ? 2 : 1)) { /* 0..2 inside the vtable */
        cr_assert(fe_fb_u8(&t, id, 7, &u8) == FE_FB_ABSENT && u8 == 7);
        cr_assert(fe_fb_i8(&t, id, -7, &i8) == FE_FB_ABSENT && i8 == -7);
        cr_assert(fe_fb_bool(&t, id, true, &bo) == FE_FB_ABSENT && bo);
        cr_assert(fe_fb_i16(&t, id, -300, &i16) == FE_FB_ABSENT && i16 == -300);
        cr_assert(fe_fb_u16(&t, id, 300, &u16) == FE_FB_ABSENT && u16 == 300);
        cr_assert(fe_fb_i32(&t, id, -5, &i32) == FE_FB_ABSENT && i32 == -5);
        cr_assert(fe_fb_u32(&t, id, 5, &u32) == FE_FB_ABSENT && u32 == 5);
        cr_assert(fe_fb_i64(&t, id, INT64_MIN, &i64) == FE_FB_ABSENT && i64 == INT64_MIN);
        cr_assert(fe_fb_u64(&t, id, UINT64_MAX, &u64) == FE_FB_ABSENT && u64 == UINT64_MAX);
        cr_assert(fe_fb_f32(&t, id, 1.5f, &f32) == FE_FB_ABSENT && f32 == 1.5f);
        cr_assert(fe_fb_f64(&t, id, -2.5, &f64) == FE_FB_ABSENT && f64 == -2.5);
        cr_assert(fe_fb_string(&t, id, &s, &n) == FE_FB_ABSENT && s == NULL && n == 0);
        cr_assert(fe_fb_subtable(&t, id, &sub) == FE_FB_ABSENT && sub.buf == NULL);
        cr_assert(fe_fb_vector(&t, id, &v) == FE_FB_ABSENT && v.buf == NULL);
        cr_assert(fe_fb_struct(&t, id, 16, &p) == FE_FB_ABSENT && p == NULL);
        cr_assert(fe_fb_union(&t, id + 1, &type, &sub) == FE_FB_ABSENT && type == 0);
    }
    cr_assert(fe_fb_u8(&sub, 0, 3, &u8) == FE_FB_BAD && u8 == 3, "a zeroed view is BAD");
    cr_assert_eq(fe_fb_vec_u8(&v, 0, &u8), FE_FB_BAD);
    cr_assert_eq(fe_fb_union(&t, 0, &type, &sub), FE_FB_BAD);
    free(buf);
}

Test(fe_fb, empty_table_and_empty_vectors)
{
    fe_fbb *b = fe_fbb_new();
    fe_fbt *t = fe_fbb_table(b);
    uint8_t *buf;
    size_t len;
    fe_fb_table root, sub;
    fe_fb_vec v;
    fe_fbt_table(t, 1, fe_fbb_table(b));
    fe_fbt_vec_tables(t, 2, 0, NULL);
    fe_fbt_vec_strings(t, 3, 0, NULL);
    fe_fbt_vec_scalars(t, 4, 1, 0, NULL);
    cr_assert_eq(fe_fbb_finish(b, t, NULL, &buf, &len), FE_FBB_OK);
    cr_assert_eq(fe_fb_root(buf, len, &root), FE_FB_OK);
    cr_assert_eq(fe_fb_subtable(&root, 1, &sub), FE_FB_OK);
    cr_assert(sub.vt_len == 4 && sub.tbl_len == 4 && sub.depth == 1);
    for (uint16_t id = 2; id <= 4; id++) {
        cr_assert(fe_fb_vector(&root, id, &v) == FE_FB_OK && v.len == 0);
        cr_assert(fe_fb_vec_fits(&v, 8) && !fe_fb_vec_fits(&v, 0));
        const uint8_t *p;
        cr_assert_eq(fe_fb_vec_elem(&v, 0, 1, &p), FE_FB_BAD);
    }
    free(buf);
    fe_fbb_free(b);
}

Test(fe_fb, unions)
{
    fe_fbb *b = fe_fbb_new();
    fe_fbt *t = fe_fbb_table(b), *c = fe_fbb_table(b);
    uint8_t *buf, type;
    size_t len;
    fe_fb_table root, val;
    int32_t x;
    fe_fbt_i32(c, 0, 1234);
    cr_assert_eq(fe_fbt_union(t, 2, 9, c), FE_FBB_OK);
    cr_assert_eq(fe_fbt_u8(t, 5, 3), FE_FBB_OK); /* a type (id 5) without its value (id 6) */
    cr_assert_eq(fe_fbt_u8(t, 7, 0), FE_FBB_OK); /* NONE with a value: the value is ignored */
    cr_assert_eq(fe_fbt_table(t, 8, fe_fbb_table(b)), FE_FBB_OK);
    cr_assert_eq(fe_fbb_finish(b, t, NULL, &buf, &len), FE_FBB_OK);
    cr_assert_eq(fe_fb_root(buf, len, &root), FE_FB_OK);
    cr_assert(fe_fb_union(&root, 2, &type, &val) == FE_FB_OK && type == 9);
    cr_assert(fe_fb_i32(&val, 0, 0, &x) == FE_FB_OK && x == 1234);
    cr_assert(fe_fb_union(&root, 6, &type, &val) == FE_FB_BAD && type == 3 && val.buf == NULL);
    cr_assert(fe_fb_union(&root, 8, &type, &val) == FE_FB_ABSENT && type == 0);
    cr_assert(fe_fb_union(&root, 3, &type, &val) == FE_FB_BAD, "an offset read as a type");
    free(buf);
    fe_fbb_free(b);
}

Test(fe_fb, file_identifier)
{
    fe_fbb *b = fe_fbb_new();
    fe_fbt *t = fe_fbb_table(b);
    uint8_t *with, *without;
    size_t lw, lo;
    fe_fb_table r1, r2;
    int64_t v;
    fe_fbt_i64(t, 0, -99);
    cr_assert_eq(fe_fbb_finish(b, t, "HDGP", &with, &lw), FE_FBB_OK);
    cr_assert_eq(fe_fbb_finish(b, t, NULL, &without, &lo), FE_FBB_OK);
    cr_assert(memcmp(with + 4, "HDGP", 4) == 0);
    cr_assert(fe_fb_has_identifier(with, lw, "HDGP") && !fe_fb_has_identifier(with, lw, "HDGQ"));
    cr_assert(!fe_fb_has_identifier(without, lo, "HDGP"));
    cr_assert(!fe_fb_has_identifier(with, 7, "HDGP") && !fe_fb_has_identifier(NULL, 8, "HDGP"));
    cr_assert(fe_fb_root(with, lw, &r1) == FE_FB_OK && fe_fb_root(without, lo, &r2) == FE_FB_OK);
    cr_assert(fe_fb_i64(&r1, 0, 0, &v) == FE_FB_OK && v == -99);
    cr_assert(fe_fb_i64(&r2, 0, 0, &v) == FE_FB_OK && v == -99);
    free(with);
    free(without);
    fe_fbb_free(b);
}

/* ---- layout --------------------------------------------------------------------------------- */

/* Checks that every 8-byte scalar and 8-byte vector element of t (a "wide" table) sits at a
 * multiple of 8 from the buffer start, and recurses into its child. */
static void check_wide(const fe_fb_table *t, int level)
{
    fe_fb_vec v;
    fe_fb_table c;
    int64_t x;
    double d;
    for (uint16_t id = 1; id <= 7; id += 2) {
        cr_assert(fe_fb_i64(t, id, 0, &x) == FE_FB_OK && x == level * 100 + id);
        cr_assert_eq(fbt_field_pos(t, id) % 8, 0, "level %d field %u at %u", level, id,
                     fbt_field_pos(t, id));
    }
    cr_assert(fe_fb_f64(t, 9, 0, &d) == FE_FB_OK && d == 0.5 && fbt_field_pos(t, 9) % 8 == 0);
    cr_assert(fe_fb_struct(t, 10, 16, &(const uint8_t *){0}) == FE_FB_OK);
    cr_assert_eq(fbt_field_pos(t, 10) % 8, 0, "struct aligned to 8");
    for (uint16_t id = 11; id <= 12; id++) {
        cr_assert(fe_fb_vector(t, id, &v) == FE_FB_OK && fe_fb_vec_fits(&v, 8));
        cr_assert_eq(v.pos % 8, 0, "level %d vector %u elements at %u", level, id, v.pos);
    }
    if (fe_fb_subtable(t, 14, &c) == FE_FB_OK)
        check_wide(&c, level + 1);
}

/* A wide table: odd-sized bytes, strings and vectors between 8-byte things, all shifted by a
 * leading string of `shift` bytes. */
static fe_fbt *wide_make(fe_fbb *b, int level, int shift, int levels)
{
    static const char pad[] = "0123456789abcdefg";
    static const uint8_t bytes[7] = {1, 2, 3, 4, 5, 6, 7};
    const int64_t longs[3] = {-1, 2, -3};
    const double dbls[2] = {0.25, -8};
    uint8_t st[16] = {0};
    fe_fbt *t = fe_fbb_table(b);
    fe_fbt_string(t, 13, pad, (size_t)shift);
    for (uint16_t id = 0; id <= 8; id += 2)
        fe_fbt_u8(t, id, (uint8_t)id);
    for (uint16_t id = 1; id <= 7; id += 2)
        fe_fbt_i64(t, id, level * 100 + id);
    fe_fbt_f64(t, 9, 0.5);
    fe_fbt_struct(t, 10, 16, 8, st);
    fe_fbt_vec_scalars(t, 15, 1, (size_t)shift % 7 + 1, bytes);
    fe_fbt_vec_scalars(t, 11, 8, 3, longs);
    fe_fbt_vec_strings(t, 16, 1, (const char *const[]){pad + shift % 5});
    fe_fbt_vec_scalars(t, 12, 8, 2, dbls);
    if (level + 1 < levels)
        fe_fbt_table(t, 14, wide_make(b, level + 1, (shift + 3) % 17, levels));
    return t;
}

Test(fe_fb, eight_byte_values_aligned_to_buffer_start)
{
    for (int shift = 0; shift <= 16; shift++) {
        for (int ident = 0; ident < 2; ident++) {
            fe_fbb *b = fe_fbb_new();
            uint8_t *buf;
            size_t len;
            fe_fb_table root;
            fe_fbt *t = wide_make(b, 0, shift, 4);
            cr_assert_eq(fe_fbb_finish(b, t, ident ? "HDGP" : NULL, &buf, &len), FE_FBB_OK);
            cr_assert_eq(fe_fb_root(buf, len, &root), FE_FB_OK);
            check_wide(&root, 0);
            free(buf);
            fe_fbb_free(b);
        }
    }
}

Test(fe_fb, rich_layout_alignment)
{
    fbt_rng_seed_fresh("rich_layout_alignment");
    for (int iter = 0; iter < 100; iter++) {
        rich r;
        size_t len;
        fe_fb_table t;
        fe_fb_vec v;
        fbt_rich_make(&r);
        uint8_t *buf = fbt_rich_buffer(&r, iter % 2 ? "HDGP" : NULL, &len);
        cr_assert_eq(fe_fb_root(buf, len, &t), FE_FB_OK);
        cr_assert(t.pos % 8 == 0 && fbt_field_pos(&t, R_I64) % 8 == 0 &&
                  fbt_field_pos(&t, R_U64) % 8 == 0 && fbt_field_pos(&t, R_F64) % 8 == 0 &&
                  fbt_field_pos(&t, R_POS) % 8 == 0 && fbt_field_pos(&t, R_I32) % 4 == 0 &&
                  fbt_field_pos(&t, R_I16) % 2 == 0, "scalars aligned");
        cr_assert(fe_fb_vector(&t, R_LONGS, &v) == FE_FB_OK && v.pos % 8 == 0);
        cr_assert(fe_fb_vector(&t, R_EMPTY_VEC, &v) == FE_FB_OK && v.pos % 8 == 0);
        free(buf);
    }
}

/* ---- nesting -------------------------------------------------------------------------------- */

/* A chain of `levels` tables below the root, each linking the next by field 0. */
static int chain_finish(int levels, uint8_t **buf, size_t *len)
{
    fe_fbb *b = fe_fbb_new();
    fe_fbt *next = NULL;
    for (int i = 0; i <= levels; i++) {
        fe_fbt *t = fe_fbb_table(b);
        fe_fbt_i32(t, 1, i);
        if (next != NULL)
            fe_fbt_table(t, 0, next);
        next = t;
    }
    int st = fe_fbb_finish(b, next, NULL, buf, len);
    fe_fbb_free(b);
    return st;
}

Test(fe_fb, nesting_limit_in_builder_and_reader)
{
    uint8_t *buf;
    size_t len;
    fe_fb_table t, c;
    cr_assert_eq(chain_finish(FE_FB_MAX_DEPTH + 1, &buf, &len), FE_FBB_EINVAL);
    cr_assert_null(buf);
    cr_assert_eq(chain_finish(FE_FB_MAX_DEPTH, &buf, &len), FE_FBB_OK);
    cr_assert_eq(fe_fb_root(buf, len, &t), FE_FB_OK);
    for (int d = 1; d <= FE_FB_MAX_DEPTH; d++) {
        cr_assert_eq(fe_fb_subtable(&t, 0, &c), FE_FB_OK, "depth %d", d);
        cr_assert_eq(c.depth, d);
        t = c;
    }
    cr_assert_eq(fe_fb_subtable(&t, 0, &c), FE_FB_ABSENT);
    free(buf);

    /* By hand: 70 tables sharing one vtable, each pointing at the next; the reader stops. */
    enum { N = 70 };
    uint8_t raw[12 + 8 * N] = {12, 0, 0, 0, 6, 0, 8, 0, 4, 0};
    for (uint32_t i = 0; i < N; i++) {
        fbt_put32(raw + 12 + 8 * i, 12 + 8 * i - 4);
        fbt_put32(raw + 12 + 8 * i + 4, 4); /* the next table, 4 bytes on */
    }
    cr_assert_eq(fe_fb_root(raw, sizeof raw, &t), FE_FB_OK);
    int d = 0;
    while (fe_fb_subtable(&t, 0, &c) == FE_FB_OK)
        t = c, d++;
    cr_assert_eq(d, FE_FB_MAX_DEPTH, "stopped at depth %d", d);
    cr_assert_eq(fe_fb_subtable(&t, 0, &c), FE_FB_BAD);
}

