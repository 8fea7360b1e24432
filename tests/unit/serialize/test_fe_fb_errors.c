/* test_fe_fb_errors.c — serialize/fe_fb on bad input and bad use: hand-made malformed roots and
 * fields the reader must refuse, builder argument errors, cycles and attached roots, repeated
 * finish, and fault injection (every allocation of a build failed in turn). Part of test_fe_fb.
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

/* ---- malformed input, by hand --------------------------------------------------------------- */

/* A small buffer: field 0 = i64, 1 = string "hey", 2 = [i64] {5, 6}, 3 = sub-table. */
static uint8_t *small_buffer(size_t *len)
{
    fe_fbb *b = fe_fbb_new();
    fe_fbt *t = fe_fbb_table(b);
    uint8_t *buf;
    fe_fbt_i64(t, 0, 77);
    fe_fbt_string(t, 1, "hey", 3);
    fe_fbt_vec_scalars(t, 2, 8, 2, (const int64_t[]){5, 6});
    fe_fbt_table(t, 3, fe_fbb_table(b));
    cr_assert_eq(fe_fbb_finish(b, t, NULL, &buf, len), FE_FBB_OK);
    fe_fbb_free(b);
    return buf;
}

Test(fe_fb, reader_rejects_malformed_roots)
{
    size_t len;
    uint8_t *buf = small_buffer(&len), *m = malloc(len);
    fe_fb_table t;
    cr_assert_eq(fe_fb_root(buf, len, &t), FE_FB_OK);
    uint32_t root = t.pos, vt = t.vt;
    const struct { uint32_t at; uint32_t v; int bytes; const char *what; } cases[] = {
        {0, (uint32_t)len, 4, "root offset at the end"},
        {0, 0xfffffffcu, 4, "root offset huge"},
        {0, root + 2, 4, "root misaligned"},
        {0, 0, 4, "root offset zero"},
        {root, root - vt + 1, 4, "vtable odd"},
        {root, root + 4, 4, "vtable before the buffer"},
        {root, (uint32_t)-(int32_t)len, 4, "vtable after the buffer"},
        {vt, 2, 2, "vtable shorter than its header"},
        {vt, 7, 2, "vtable length odd"},
        {vt, 0xfffe, 2, "vtable past the end"},
        {vt + 2, 2, 2, "table shorter than its soffset"},
        {vt + 2, 0xffff, 2, "table past the end"},
    };
    cr_assert_eq(fe_fb_root(buf, 7, &t), FE_FB_BAD, "too short");
    cr_assert_eq(fe_fb_root(NULL, len, &t), FE_FB_BAD);
    cr_assert_eq(fe_fb_root(buf, (size_t)FE_FB_MAX_SIZE + 1, &t), FE_FB_BAD, "too big");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(m, buf, len);
        if (cases[i].bytes == 4)
            fbt_put32(m + cases[i].at, cases[i].v);
        else
            fbt_put16(m + cases[i].at, (uint16_t)cases[i].v);
        cr_assert_eq(fe_fb_root(m, len, &t), FE_FB_BAD, "%s", cases[i].what);
        cr_assert_null(t.buf, "%s: view zeroed", cases[i].what);
    }
    free(m);
    free(buf);
}

Test(fe_fb, reader_rejects_malformed_fields)
{
    size_t len;
    uint8_t *buf = small_buffer(&len), *m = malloc(len);
    fe_fb_table t, sub;
    fe_fb_vec v;
    const char *s;
    uint32_t n;
    int64_t x;
    cr_assert_eq(fe_fb_root(buf, len, &t), FE_FB_OK);
    uint32_t e0 = t.vt + 4, p1 = fbt_field_pos(&t, 1), p2 = fbt_field_pos(&t, 2), p3 = fbt_field_pos(&t, 3);
    uint32_t s1 = p1 + fe_fb_ld_u32(buf + p1), v2 = p2 + fe_fb_ld_u32(buf + p2);
    uint16_t slot0 = fe_fb_ld_u16(buf + e0);
#define MUTATE(stmt, call, what)                                                            \
    do {                                                                                    \
        memcpy(m, buf, len);                                                                \
        stmt;                                                                               \
        cr_assert_eq(fe_fb_root(m, len, &t), FE_FB_OK, what);                               \
        cr_assert_eq(call, FE_FB_BAD, what);                                                \
    } while (0)
    MUTATE(fbt_put16(m + e0, (uint16_t)(slot0 + 4)), fe_fb_i64(&t, 0, 1, &x), "i64 misaligned");
    MUTATE(fbt_put16(m + e0, t.tbl_len), fe_fb_i64(&t, 0, 1, &x), "i64 past the table");
    MUTATE(fbt_put16(m + e0, 2), fe_fb_i64(&t, 0, 1, &x), "i64 over the soffset");
    MUTATE(fbt_put32(m + p1, 0), fe_fb_string(&t, 1, &s, &n), "offset zero");
    MUTATE(fbt_put32(m + p1, 0x80000000u), fe_fb_string(&t, 1, &s, &n), "offset negative");
    MUTATE(fbt_put32(m + p1, (uint32_t)len - p1), fe_fb_string(&t, 1, &s, &n), "string at end");
    MUTATE(fbt_put32(m + p1, 0u - p1), fe_fb_string(&t, 1, &s, &n), "string offset wraps");
    MUTATE(fbt_put32(m + p1, fe_fb_ld_u32(buf + p1) + 2), fe_fb_string(&t, 1, &s, &n),
           "string misaligned");
    MUTATE(m[s1 + 7] = 'x', fe_fb_string(&t, 1, &s, &n), "string without NUL");
    MUTATE(fbt_put32(m + s1, 0xffffffffu), fe_fb_string(&t, 1, &s, &n), "string huge");
    MUTATE(fbt_put32(m + s1, (uint32_t)len), fe_fb_string(&t, 1, &s, &n), "string too long");
    MUTATE(fbt_put32(m + v2, 0xffffffffu), fe_fb_vector(&t, 2, &v), "vector huge");
    MUTATE(fbt_put32(m + p3, 0u - (p3 - t.pos)), fe_fb_subtable(&t, 3, &sub), "wraps to parent");
    MUTATE(fbt_put32(m + p3, 4), fe_fb_subtable(&t, 3, &sub), "child overlaps");
    MUTATE(fbt_put32(m + p2, (uint32_t)(len - p2 - 2)), fe_fb_vector(&t, 2, &v), "vector at end");
#undef MUTATE
    /* A vector whose length fits bytewise but not as 8-byte elements. */
    memcpy(m, buf, len);
    fbt_put32(m + v2, (uint32_t)(len - v2 - 4));
    cr_assert_eq(fe_fb_root(m, len, &t), FE_FB_OK);
    cr_assert_eq(fe_fb_vector(&t, 2, &v), FE_FB_OK);
    cr_assert(!fe_fb_vec_fits(&v, 8) && fe_fb_vec_fits(&v, 1));
    cr_assert(fe_fb_vec_i64(&v, 0, &x) == FE_FB_OK && x == 5);
    cr_assert(fe_fb_vec_i64(&v, v.len - 1, &x) == FE_FB_BAD && x == 0);
    v.len = 0x40000000u; /* 2^30 * 8 wraps a 32-bit product */
    cr_assert(!fe_fb_vec_fits(&v, 8) && !fe_fb_vec_fits(&v, 16));
    cr_assert_eq(fe_fb_vec_elem(&v, 0x3fffffffu, 16, &(const uint8_t *){0}), FE_FB_BAD);
    cr_assert_eq(fe_fb_vec_elem(&v, 0, (size_t)FE_FB_MAX_SIZE + 1, &(const uint8_t *){0}),
                 FE_FB_BAD);
    free(m);
    free(buf);
}

/* ---- builder errors ------------------------------------------------------------------------- */

Test(fe_fb, builder_rejects_bad_arguments)
{
    fe_fbb *b = fe_fbb_new(), *other = fe_fbb_new();
    fe_fbt *t = fe_fbb_table(b), *c = fe_fbb_table(b), *foreign = fe_fbb_table(other);
    uint8_t *buf = (uint8_t *)"poison";
    size_t len = 99;
    cr_assert_eq(fe_fbb_status(b), FE_FBB_OK);
    cr_assert_eq(fe_fbt_i32(NULL, 0, 1), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_i32(t, FE_FB_MAX_FIELD_ID + 1, 1), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbb_status(b), FE_FBB_EINVAL, "errors are sticky");
    cr_assert_eq(fe_fbt_i32(t, FE_FB_MAX_FIELD_ID, 1), FE_FBB_OK);
    cr_assert_eq(fe_fbt_i32(t, 0, 1), FE_FBB_OK);
    cr_assert_eq(fe_fbt_u8(t, 0, 1), FE_FBB_EINVAL, "id set twice");
    cr_assert_eq(fe_fbt_table(t, 1, foreign), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_table(t, 1, NULL), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_table(t, 1, c), FE_FBB_OK);
    cr_assert_eq(fe_fbt_table(t, 2, c), FE_FBB_EINVAL, "attached twice");
    cr_assert_eq(fe_fbt_vec_tables(t, 3, 2, (fe_fbt *const[]){fe_fbb_table(b), NULL}),
                 FE_FBB_EINVAL);
    fe_fbt *d = fe_fbb_table(b);
    cr_assert_eq(fe_fbt_vec_tables(t, 4, 2, (fe_fbt *const[]){d, d}), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_table(t, 5, d), FE_FBB_OK, "a refused vector leaves d free");
    cr_assert_eq(fe_fbt_vec_strings(t, 6, 1, (const char *const[]){NULL}), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_vec_scalars(t, 7, 3, 1, "abc"), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_vec_scalars(t, 7, 4, 1, NULL), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_vec_scalars(t, 7, 8, SIZE_MAX / 4, "x"), FE_FBB_ETOOBIG);
    cr_assert_eq(fe_fbt_string(t, 8, NULL, 1), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_struct(t, 9, 4, 3, "abcd"), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_struct(t, 9, 0, 4, "abcd"), FE_FBB_EINVAL);
    cr_assert_eq(fe_fbt_union(t, 10, 0, fe_fbb_table(b)), FE_FBB_EINVAL, "type NONE");
    cr_assert_eq(fe_fbt_union(t, 0, 1, fe_fbb_table(b)), FE_FBB_EINVAL, "no id for the type");
    cr_assert_eq(fe_fbt_union(t, 1, 1, fe_fbb_table(b)), FE_FBB_EINVAL, "type id taken");
    cr_assert_eq(fe_fbb_finish(b, t, NULL, &buf, &len), FE_FBB_EINVAL);
    cr_assert(buf == NULL && len == 0);
    cr_assert_eq(fe_fbb_finish(NULL, t, NULL, &buf, &len), FE_FBB_EINVAL);
    cr_assert_null(fe_fbb_table(NULL));
    cr_assert_str_eq(fe_fbb_strerror(FE_FBB_ENOMEM), "out of memory");
    cr_assert_str_neq(fe_fbb_strerror(12345), fe_fbb_strerror(FE_FBB_OK));
    fe_fbb_free(b);
    fe_fbb_free(other);
    fe_fbb_free(NULL);
}

Test(fe_fb, setters_return_their_error_finish_the_first)
{
    static const char big[5000];
    fe_fbb *b = fe_fbb_new();
    fe_fbt *t = fe_fbb_table(b);
    uint8_t *buf;
    size_t len;
    cr_assert_eq(fe_fbt_i32(t, 0, 1), FE_FBB_OK);
    cr_assert_eq(fe_fbt_i32(t, 0, 1), FE_FBB_EINVAL);
    fe_fbb_fail_alloc_after(b, 0); /* the next arena chunk */
    cr_assert_eq(fe_fbt_string(t, 1, big, sizeof big), FE_FBB_ENOMEM);
    cr_assert_eq(fe_fbt_string(t, 2, big, sizeof big), FE_FBB_OK, "one injected failure");
    cr_assert_eq(fe_fbb_status(b), FE_FBB_EINVAL, "the first error is kept");
    cr_assert_eq(fe_fbb_finish(b, t, NULL, &buf, &len), FE_FBB_EINVAL);
    fe_fbb_free(b);
}

Test(fe_fb, builder_rejects_cycles_and_attached_roots)
{
    fe_fbb *b = fe_fbb_new();
    fe_fbt *a = fe_fbb_table(b), *c = fe_fbb_table(b);
    uint8_t *buf;
    size_t len;
    cr_assert_eq(fe_fbt_table(a, 0, c), FE_FBB_OK);
    cr_assert_eq(fe_fbt_table(c, 0, a), FE_FBB_OK); /* a cycle: each node has one parent */
    cr_assert_eq(fe_fbb_finish(b, a, NULL, &buf, &len), FE_FBB_EINVAL, "root has a parent");
    cr_assert_null(buf);
    fe_fbb_free(b);

    b = fe_fbb_new();
    a = fe_fbb_table(b);
    cr_assert_eq(fe_fbt_table(a, 0, a), FE_FBB_OK); /* a self-loop */
    cr_assert_eq(fe_fbb_finish(b, a, NULL, &buf, &len), FE_FBB_EINVAL);
    fe_fbb_free(b);

    static const uint8_t big[65000];
    b = fe_fbb_new();
    a = fe_fbb_table(b);
    cr_assert_eq(fe_fbt_struct(a, 0, 65000, 8, big), FE_FBB_OK);
    cr_assert_eq(fe_fbt_struct(a, 1, 1000, 4, big), FE_FBB_OK);
    cr_assert_eq(fe_fbb_finish(b, a, NULL, &buf, &len), FE_FBB_ETOOBIG, "table over 64 KiB");
    fe_fbb_free(b);
}

Test(fe_fb, finish_is_repeatable)
{
    rich r;
    uint8_t *b1, *b2;
    size_t l1, l2;
    fbt_rng_seed_fresh("finish_is_repeatable");
    fbt_rich_make(&r);
    fe_fbb *b = fe_fbb_new();
    fe_fbt *root = fbt_rich_build(b, &r);
    cr_assert_eq(fe_fbb_finish(b, root, "HDGP", &b1, &l1), FE_FBB_OK);
    cr_assert_eq(fe_fbb_finish(b, root, "HDGP", &b2, &l2), FE_FBB_OK);
    cr_assert(l1 == l2 && memcmp(b1, b2, l1) == 0, "same tree, same bytes");
    free(b1);
    free(b2);
    fe_fbb_free(b);
}

/* Builds the rich tree with allocation n failing; returns finish's status. */
static int rich_with_failure(const rich *r, long n, uint64_t layout_seed)
{
    uint8_t *buf = NULL;
    size_t len;
    fe_fbb *b = fe_fbb_new();
    cr_assert_not_null(b);
    fe_fbb_fail_alloc_after(b, n);
    fbt_rng_state = layout_seed;
    int st = fe_fbb_finish(b, fbt_rich_build(b, r), "HDGP", &buf, &len);
    if (st == FE_FBB_OK)
        cr_assert(fbt_rich_read(buf, len, r, NULL), "%s", fbt_why);
    else
        cr_assert_null(buf);
    free(buf);
    fe_fbb_free(b);
    return st;
}

Test(fe_fb, builder_fault_injection)
{
    rich r;
    fbt_rng_seed_fresh("builder_fault_injection");
    fbt_rich_make(&r);
    uint64_t layout_seed = fbt_rng_next();
    long n = 0;
    int st;
    while ((st = rich_with_failure(&r, n, layout_seed)) != FE_FBB_OK) {
        cr_assert_eq(st, FE_FBB_ENOMEM, "failure %ld: %s", n, fe_fbb_strerror(st));
        cr_assert_lt(n, 10000);
        n++;
    }
    cr_assert_geq(n, 2, "the tree needed %ld allocations", n);
}

Test(fe_fb, builder_fault_injection_big)
{
    /* Many nodes and a big vector: several arena chunks and output reallocations. */
    for (long n = 0;; n++) {
        fe_fbb *b = fe_fbb_new();
        uint8_t *buf = NULL;
        size_t len;
        static int64_t big[3000];
        fe_fbb_fail_alloc_after(b, n);
        fe_fbt *root = fe_fbb_table(b), *kids[300];
        for (int i = 0; i < 300; i++) {
            kids[i] = fe_fbb_table(b);
            fe_fbt_string(kids[i], 0, "a name of some length", 21);
        }
        fe_fbt_vec_tables(root, 0, 300, kids);
        fe_fbt_vec_scalars(root, 1, 8, 3000, big);
        int st = fe_fbb_finish(b, root, NULL, &buf, &len);
        fe_fbb_free(b);
        free(buf);
        if (st == FE_FBB_OK) {
            cr_assert_geq(n, 5);
            break;
        }
        cr_assert_eq(st, FE_FBB_ENOMEM);
        cr_assert_lt(n, 100000);
    }
}

