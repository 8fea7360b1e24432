/* test_fe_fb_corpus.c — the mutation corpus of serialize/fe_fb: truncations, bit flips, byte
 * overwrites, targeted offset / vtable / length damage and deep chains, each walked by a
 * schema-less reader that tries every accessor on every field (run under ASan too: every input
 * sits in a heap block of exactly its size). Part of test_fe_fb.
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

/* ---- the mutation corpus -------------------------------------------------------------------- */

typedef struct walker {
    const uint8_t *buf;
    size_t size;
    long budget; /* tables left to visit for this input */
    long oks;
} walker;

/* Asserts [p, p+n) is inside the buffer and reads every byte of it (ASan sees the reads). */
static void touch(walker *w, const void *p, size_t n)
{
    uintptr_t lo = (uintptr_t)w->buf, q = (uintptr_t)p;
    CHECK(q >= lo && n <= w->size && q - lo <= w->size - n);
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < n; i++)
        sink ^= ((const uint8_t *)p)[i];
    (void)sink;
}

static int tri(walker *w, int r)
{
    CHECK(r == FE_FB_OK || r == FE_FB_ABSENT || r == FE_FB_BAD);
    w->oks += r == FE_FB_OK;
    return r;
}

static void walk_table(walker *w, const fe_fb_table *t);

/* Every scalar accessor: when not OK the default comes back. */
static void walk_scalars(walker *w, const fe_fb_table *t, uint16_t id)
{
    uint8_t u8; int8_t i8; bool bo; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
    int64_t i64; uint64_t u64; float f32; double f64;
    CHECK(tri(w, fe_fb_u8(t, id, 17, &u8)) == FE_FB_OK || u8 == 17);
    CHECK(tri(w, fe_fb_i8(t, id, -17, &i8)) == FE_FB_OK || i8 == -17);
    CHECK(tri(w, fe_fb_bool(t, id, true, &bo)) == FE_FB_OK || bo);
    CHECK(tri(w, fe_fb_i16(t, id, -17, &i16)) == FE_FB_OK || i16 == -17);
    CHECK(tri(w, fe_fb_u16(t, id, 17, &u16)) == FE_FB_OK || u16 == 17);
    CHECK(tri(w, fe_fb_i32(t, id, -17, &i32)) == FE_FB_OK || i32 == -17);
    CHECK(tri(w, fe_fb_u32(t, id, 17, &u32)) == FE_FB_OK || u32 == 17);
    CHECK(tri(w, fe_fb_i64(t, id, -17, &i64)) == FE_FB_OK || i64 == -17);
    CHECK(tri(w, fe_fb_u64(t, id, 17, &u64)) == FE_FB_OK || u64 == 17);
    CHECK(tri(w, fe_fb_f32(t, id, 1.5f, &f32)) == FE_FB_OK || f32 == 1.5f);
    CHECK(tri(w, fe_fb_f64(t, id, 2.5, &f64)) == FE_FB_OK || f64 == 2.5);
}

static void walk_string(walker *w, const char *s, uint32_t n, int r)
{
    if (r != FE_FB_OK) {
        CHECK(s == NULL && n == 0);
        return;
    }
    touch(w, s, (size_t)n + 1);
    CHECK(s[n] == 0);
}

/* Every element accessor on the first elements of v, and one past its end. */
static void walk_vector(walker *w, const fe_fb_vec *v)
{
    static const size_t sizes[] = {1, 2, 4, 8, 12, 16};
    touch(w, v->buf + v->pos - 4, 4);
    CHECK(fe_fb_vec_fits(v, 1));
    uint32_t end = v->len < 24 ? v->len : 24;
    for (uint32_t i = 0; i <= end; i++) {
        const uint8_t *p;
        const char *s;
        uint32_t n;
        fe_fb_table sub;
        uint8_t u8; int32_t i32; int64_t i64;
        for (size_t k = 0; k < 6; k++) {
            if (tri(w, fe_fb_vec_elem(v, i, sizes[k], &p)) == FE_FB_OK)
                touch(w, p, sizes[k]);
            else
                CHECK(p == NULL && (i >= v->len || !fe_fb_vec_fits(v, sizes[k])));
        }
        CHECK(tri(w, fe_fb_vec_u8(v, i, &u8)) == FE_FB_OK || u8 == 0);
        CHECK(tri(w, fe_fb_vec_i32(v, i, &i32)) == FE_FB_OK || i32 == 0);
        CHECK(tri(w, fe_fb_vec_i64(v, i, &i64)) == FE_FB_OK || i64 == 0);
        int r = tri(w, fe_fb_vec_string(v, i, &s, &n));
        CHECK(r != FE_FB_ABSENT);
        walk_string(w, s, n, r);
        r = tri(w, fe_fb_vec_table(v, i, &sub));
        CHECK(r != FE_FB_ABSENT);
        if (r == FE_FB_OK)
            walk_table(w, &sub);
    }
}

/* Every interpretation of field id: scalars, string, structs, sub-table, vector, union. */
static void walk_field(walker *w, const fe_fb_table *t, uint16_t id)
{
    const char *s;
    uint32_t n;
    const uint8_t *p;
    fe_fb_table sub;
    fe_fb_vec v;
    uint8_t type;
    walk_scalars(w, t, id);
    int r = tri(w, fe_fb_string(t, id, &s, &n));
    walk_string(w, s, n, r);
    for (size_t size = 1; size <= 32; size *= 2)
        if (tri(w, fe_fb_struct(t, id, size, &p)) == FE_FB_OK)
            touch(w, p, size);
    if (tri(w, fe_fb_subtable(t, id, &sub)) == FE_FB_OK)
        walk_table(w, &sub);
    if (tri(w, fe_fb_union(t, id, &type, &sub)) == FE_FB_OK)
        walk_table(w, &sub);
    if (tri(w, fe_fb_vector(t, id, &v)) == FE_FB_OK)
        walk_vector(w, &v);
}

static void walk_table(walker *w, const fe_fb_table *t)
{
    if (w->budget-- <= 0)
        return;
    CHECK(t->depth <= FE_FB_MAX_DEPTH && t->buf == w->buf && t->size == w->size);
    touch(w, t->buf + t->vt, t->vt_len);
    touch(w, t->buf + t->pos, t->tbl_len);
    uint32_t ids = (t->vt_len - 4u) / 2u + 1u; /* one past the vtable too */
    for (uint32_t id = 0; id < ids; id++)
        walk_field(w, t, (uint16_t)id);
}

/* Walks one input from a heap block of exactly n bytes; returns fe_fb_root's answer and
 * adds the number of OK answers to *oks (when not NULL). */
static int walk_input_counted(const uint8_t *src, size_t n, long *oks)
{
    uint8_t *copy = malloc(n > 0 ? n : 1);
    fe_fb_table root;
    cr_assert_not_null(copy);
    if (n > 0)
        memcpy(copy, src, n);
    walker w = {copy, n, 200, 0};
    int r = tri(&w, fe_fb_root(copy, n, &root));
    fe_fb_has_identifier(copy, n, "HDGP");
    if (r == FE_FB_OK)
        walk_table(&w, &root);
    else
        CHECK(root.buf == NULL);
    free(copy);
    if (oks != NULL)
        *oks += w.oks;
    return r;
}

static int walk_input(const uint8_t *src, size_t n)
{
    return walk_input_counted(src, n, NULL);
}

/* A fresh rich buffer and where its objects are. */
typedef struct corpus {
    rich r;
    uint8_t *base, *m;
    size_t size;
    map map;
    long inputs, roots_ok, oks; /* inputs walked, roots read, OK answers in all */
} corpus;

static void corpus_open(corpus *c, const char *test)
{
    fbt_rng_seed_fresh(test);
    memset(c, 0, sizeof *c);
    fbt_rich_make(&c->r);
    c->base = fbt_rich_buffer(&c->r, "HDGP", &c->size);
    c->m = malloc(c->size);
    cr_assert(fbt_rich_read(c->base, c->size, &c->r, &c->map), "%s", fbt_why);
    cr_assert_eq(walk_input(c->base, c->size), FE_FB_OK);
    fprintf(stderr, "  base: %zu bytes, %d tables, %d offsets, %d lengths\n", c->size,
            c->map.n_tables, c->map.n_offs, c->map.n_lens);
}

static void corpus_close(corpus *c, long at_least)
{
    fprintf(stderr, "  %ld inputs walked, %ld roots read, %ld OK answers\n", c->inputs,
            c->roots_ok, c->oks);
    cr_assert_geq(c->inputs, at_least);
    cr_assert_gt(c->roots_ok, 0, "some damage leaves the root readable");
    free(c->m);
    free(c->base);
}

/* Walks c->m (a mutated copy of the base). */
static int corpus_walk(corpus *c)
{
    c->inputs++;
    int r = walk_input_counted(c->m, c->size, &c->oks);
    c->roots_ok += r == FE_FB_OK;
    return r;
}

/* The base with the u32 at `at` replaced by v (skipped when it does not fit). */
static void corpus_u32(corpus *c, uint32_t at, uint32_t v)
{
    if ((size_t)at + 4 > c->size)
        return;
    memcpy(c->m, c->base, c->size);
    fbt_put32(c->m + at, v);
    corpus_walk(c);
}

static void corpus_u16(corpus *c, uint32_t at, uint16_t v)
{
    memcpy(c->m, c->base, c->size);
    fbt_put16(c->m + at, v);
    corpus_walk(c);
}

Test(fe_fb, corpus_truncations)
{
    corpus c;
    corpus_open(&c, "corpus_truncations");
    for (size_t n = 0; n < c.size; n++) {
        c.inputs++;
        c.roots_ok += walk_input_counted(c.base, n, &c.oks) == FE_FB_OK;
        cr_assert(!fbt_rich_read(c.base, n, &c.r, NULL), "truncated to %zu of %zu still reads", n,
                  c.size);
    }
    corpus_close(&c, 200);
}

Test(fe_fb, corpus_bit_flips)
{
    corpus c;
    corpus_open(&c, "corpus_bit_flips");
    for (int i = 0; i < 1500; i++) {
        memcpy(c.m, c.base, c.size);
        for (uint32_t k = 0, flips = 1 + fbt_rng_below(4); k < flips; k++) {
            uint32_t bit = fbt_rng_below((uint32_t)c.size * 8);
            c.m[bit / 8] ^= (uint8_t)(1u << bit % 8);
        }
        corpus_walk(&c);
    }
    corpus_close(&c, 1500);
}

Test(fe_fb, corpus_byte_overwrites)
{
    static const uint8_t special[] = {0x00, 0xff, 0x7f, 0x80, 0x01, 0x04, 0xfe, 0xfc};
    corpus c;
    corpus_open(&c, "corpus_byte_overwrites");
    for (int i = 0; i < 1500; i++) {
        memcpy(c.m, c.base, c.size);
        for (uint32_t k = 0, n = 1 + fbt_rng_below(8); k < n; k++) {
            uint8_t v = fbt_rng_below(2) ? special[fbt_rng_below(8)] : (uint8_t)fbt_rng_next();
            c.m[fbt_rng_below((uint32_t)c.size)] = v;
        }
        corpus_walk(&c);
    }
    corpus_close(&c, 1500);
}

/* Offsets pointing out of bounds, backwards (32-bit wrap-around), at themselves, at the
 * parent table (a cycle) and into the middle of other objects. */
Test(fe_fb, corpus_bad_offsets)
{
    corpus c;
    corpus_open(&c, "corpus_bad_offsets");
    uint32_t size = (uint32_t)c.size;
    for (int i = 0; i < c.map.n_offs; i++) {
        uint32_t at = c.map.offs[i].at, parent = c.map.offs[i].parent;
        uint32_t u = fe_fb_ld_u32(c.base + at);
        const uint32_t vals[] = {
            size - at, size - at + 1, size - at - 1, 0xffffffffu, 0x80000000u, 0x7fffffffu,
            0u - at, 0u - (at - parent), 0u - (at - parent) + 4, 0, u + 1, u + 2, u - 1,
            u + 4, u - 4, 1 + fbt_rng_below(size - at), (uint32_t)fbt_rng_next(),
        };
        for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++)
            corpus_u32(&c, at, vals[k]);
    }
    corpus_u32(&c, 0, size), corpus_u32(&c, 0, 0), corpus_u32(&c, 0, 4);
    corpus_close(&c, 200);
}

/* Tables whose soffset sends the vtable outside, onto the table itself or into another
 * object, and vtables with broken sizes and field slots. */
Test(fe_fb, corpus_bad_tables)
{
    corpus c;
    corpus_open(&c, "corpus_bad_tables");
    int32_t size = (int32_t)c.size;
    for (int i = 0; i < c.map.n_tables; i++) {
        int32_t q = (int32_t)c.map.tables[i];
        int32_t other = (int32_t)c.map.tables[fbt_rng_below((uint32_t)c.map.n_tables)];
        const int32_t vals[] = {0, 2, 4, -4, q + 2, q + 4, q - size, INT32_MIN, INT32_MAX,
                                q - other, q - other - 4, 1, (int32_t)fbt_rng_next()};
        for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++)
            corpus_u32(&c, (uint32_t)q, (uint32_t)vals[k]);
    }
    for (int i = 0; i < c.map.n_vtables; i++) {
        uint32_t vt = c.map.vtables[i];
        uint16_t vt_len = fe_fb_ld_u16(c.base + vt), tbl_len = fe_fb_ld_u16(c.base + vt + 2);
        const uint16_t lens[] = {0, 2, 3, 5, (uint16_t)(vt_len + 2), 0xfffe, 0xffff};
        const uint16_t tbls[] = {0, 2, 3, (uint16_t)(tbl_len + 1), 0xffff, (uint16_t)size};
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
            corpus_u16(&c, vt, lens[k]);
        for (size_t k = 0; k < sizeof tbls / sizeof tbls[0]; k++)
            corpus_u16(&c, vt + 2, tbls[k]);
        for (uint32_t e = vt + 4; e + 2 <= vt + vt_len; e += 2) {
            const uint16_t slots[] = {0xffff, 1, 2, 3, (uint16_t)(tbl_len - 1),
                                      (uint16_t)(tbl_len - 2), (uint16_t)fbt_rng_next()};
            for (size_t k = 0; k < sizeof slots / sizeof slots[0]; k++)
                corpus_u16(&c, e, slots[k]);
        }
    }
    corpus_close(&c, 300);
}

/* Vector and string lengths: huge, overflowing when multiplied, just too long, zero. */
Test(fe_fb, corpus_bad_lengths)
{
    corpus c;
    corpus_open(&c, "corpus_bad_lengths");
    uint32_t size = (uint32_t)c.size;
    for (int i = 0; i < c.map.n_lens; i++) {
        uint32_t at = c.map.lens[i], n = fe_fb_ld_u32(c.base + at);
        const uint32_t vals[] = {0xffffffffu, 0x80000000u, 0x7fffffffu, 0x40000000u,
                                 0x20000001u, 0x10000000u, size, size - at - 4,
                                 size - at - 3, n + 1, n + 4, 0, (uint32_t)fbt_rng_next()};
        for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++)
            corpus_u32(&c, at, vals[k]);
    }
    corpus_close(&c, 100);
}

/* Hand-made chains: 70 tables each pointing at the next, and tables pointing back at
 * themselves or their parent through 32-bit wrap-around. */
Test(fe_fb, corpus_chains_and_self_references)
{
    enum { N = 70 };
    uint8_t raw[12 + 8 * N] = {12, 0, 0, 0, 6, 0, 8, 0, 4, 0};
    long inputs = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t pos = 12 + 8 * i;
        fbt_put32(raw + pos, pos - 4);
        fbt_put32(raw + pos + 4, 4);
    }
    cr_assert_eq(walk_input(raw, sizeof raw), FE_FB_OK);
    inputs++;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t at = 12 + 8 * i + 4;
        const uint32_t back[] = {0, 0u - 4, 0u - at, 0u - (at - 12), 0u - 8, 0u - 12};
        for (size_t k = 0; k < sizeof back / sizeof back[0]; k++) {
            uint8_t m[sizeof raw];
            memcpy(m, raw, sizeof raw);
            fbt_put32(m + at, back[k]);
            walk_input(m, sizeof m), inputs++;
        }
    }
    /* A table that is its own vtable (soffset 0) and one whose vtable is its parent. */
    for (uint32_t i = 0; i < N; i++) {
        uint8_t m[sizeof raw];
        memcpy(m, raw, sizeof raw);
        fbt_put32(m + 12 + 8 * i, 0);
        walk_input(m, sizeof m), inputs++;
        memcpy(m, raw, sizeof raw);
        fbt_put32(m + 12 + 8 * i, i > 0 ? 8 : 0);
        walk_input(m, sizeof m), inputs++;
    }
    cr_assert_geq(inputs, 500);
}
