/* test_fe_fb.c — unit tests of frontend/fe_fb (FlatBuffers reader and builder).
 *
 * Owns: round trips of every field kind through fe_fbb and back through fe_fb, layout checks
 * (8-byte alignment relative to the buffer start), builder errors and fault injection, and a
 * mutation corpus (truncations, bit flips, byte overwrites, targeted offset/vtable/length
 * damage, deep chains) walked by a schema-less reader that tries every accessor on every field.
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

/* A check that does not report passes (Criterion reports every cr_assert; the corpus makes
 * millions of checks). */
#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond))                                                                        \
            cr_assert_fail("%s:%d: %s", __FILE__, __LINE__, #cond);                         \
    } while (0)

/* Little-endian stores for hand-made and mutated buffers. */
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

/* ---- randomness ----------------------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(uint32_t n)
{
    return n == 0 ? 0 : (uint32_t)(rng_next() % n);
}

static void rng_seed_fresh(const char *test)
{
    struct timespec ts;
    const char *env = getenv("HIPDNN_TEST_SEED");
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                    (uint64_t)getpid() << 40;
    if (env != NULL)
        seed = strtoull(env, NULL, 0);
    rng_state = seed;
    fprintf(stderr, "test_fe_fb %s: seed %llu (HIPDNN_TEST_SEED=%llu replays it)\n", test,
            (unsigned long long)seed, (unsigned long long)seed);
}

/* ---- the test schema -------------------------------------------------------------------------
 * Root  (ids below)                        Child: 0 name string, 1 value long, 2 next Child,
 * Other (union member 2): 0 num double            3 flag bool
 * Vec3  struct { float x; float y; long z; }  16 bytes, aligned to 8
 */
enum {
    R_U8, R_I8, R_BOOL, R_I16, R_U16, R_I32, R_U32, R_I64, R_U64, R_F32, R_F64, /* 0..10 */
    R_NAME, R_CHILD, R_LONGS, R_KIDS, R_TAGS, R_BYTES, R_INTS, R_POS, R_PET_TYPE, R_PET,
    R_EMPTY_STR, R_EMPTY_VEC, R_NFIELDS
};
enum { C_NAME, C_VALUE, C_NEXT, C_FLAG };
enum { PET_CHILD = 1, PET_OTHER = 2 };

typedef struct rich {
    uint8_t u8;
    int8_t i8;
    bool flag;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    char name[40]; /* may hold NULs */
    size_t name_len;
    int64_t longs[9];
    size_t n_longs;
    char tags[5][20]; /* NUL-terminated */
    size_t n_tags;
    uint8_t bytes[13];
    size_t n_bytes;
    int32_t ints[7];
    size_t n_ints;
    float px, py;
    int64_t pz;
    uint8_t pet_type;
    int64_t kid_values[4];
    size_t n_kids;
    int chain; /* tables in the R_CHILD chain, >= 1 */
} rich;

static int64_t rnd_i64(void) { return (int64_t)rng_next(); }

static void rich_make(rich *r)
{
    memset(r, 0, sizeof *r);
    r->u8 = (uint8_t)rng_next(), r->i8 = (int8_t)rng_next(), r->flag = rng_next() & 1;
    r->i16 = (int16_t)rng_next(), r->u16 = (uint16_t)rng_next();
    r->i32 = (int32_t)rng_next(), r->u32 = (uint32_t)rng_next();
    r->i64 = rnd_i64(), r->u64 = rng_next();
    r->f32 = (float)rnd_i64() / 3.0f, r->f64 = (double)rnd_i64() / 7.0;
    r->name_len = rng_below(sizeof r->name);
    for (size_t i = 0; i < r->name_len; i++)
        r->name[i] = (char)rng_below(128); /* NULs included */
    r->n_longs = 1 + rng_below(9);
    for (size_t i = 0; i < r->n_longs; i++)
        r->longs[i] = rnd_i64();
    r->n_tags = 1 + rng_below(5);
    for (size_t i = 0; i < r->n_tags; i++)
        for (size_t k = 0, n = rng_below(19); k < n; k++)
            r->tags[i][k] = (char)('a' + rng_below(26));
    r->n_bytes = 1 + rng_below(13);
    for (size_t i = 0; i < r->n_bytes; i++)
        r->bytes[i] = (uint8_t)rng_next();
    r->n_ints = 1 + rng_below(7);
    for (size_t i = 0; i < r->n_ints; i++)
        r->ints[i] = (int32_t)rng_next();
    r->px = (float)rng_below(1000) / 4.0f, r->py = -(float)rng_below(1000) / 8.0f;
    r->pz = rnd_i64();
    r->pet_type = 1 + rng_below(2);
    r->n_kids = 1 + rng_below(4);
    for (size_t i = 0; i < r->n_kids; i++)
        r->kid_values[i] = rnd_i64();
    r->chain = 1 + (int)rng_below(5);
}

/* Vec3 laid out little-endian: x at 0, y at 4, z at 8. */
static void vec3_bytes(uint8_t out[16], float x, float y, int64_t z)
{
    uint32_t ux, uy;
    uint64_t uz;
    memcpy(&ux, &x, 4), memcpy(&uy, &y, 4), memcpy(&uz, &z, 8);
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)(ux >> 8 * i), out[4 + i] = (uint8_t)(uy >> 8 * i);
    for (int i = 0; i < 8; i++)
        out[8 + i] = (uint8_t)(uz >> 8 * i);
}

/* Setter return values are ignored on purpose: errors are sticky and finish reports them. */
static fe_fbt *child_make(fe_fbb *b, const char *name, int64_t value, bool flag, fe_fbt *next)
{
    fe_fbt *c = fe_fbb_table(b);
    fe_fbt_i64(c, C_VALUE, value);
    fe_fbt_bool(c, C_FLAG, flag);
    if (name != NULL)
        fe_fbt_string(c, C_NAME, name, strlen(name));
    if (next != NULL)
        fe_fbt_table(c, C_NEXT, next);
    return c;
}

static fe_fbt *chain_make(fe_fbb *b, const rich *r)
{
    fe_fbt *next = NULL;
    for (int d = r->chain - 1; d >= 0; d--)
        next = child_make(b, d == 0 ? "chain" : NULL, r->i64 ^ d, d % 2, next);
    return next;
}

static void rich_set_vectors(fe_fbb *b, fe_fbt *t, const rich *r, int field)
{
    const char *tags[5];
    fe_fbt *kids[4];
    switch (field) {
    case R_LONGS: fe_fbt_vec_scalars(t, R_LONGS, 8, r->n_longs, r->longs); break;
    case R_BYTES: fe_fbt_vec_scalars(t, R_BYTES, 1, r->n_bytes, r->bytes); break;
    case R_INTS: fe_fbt_vec_scalars(t, R_INTS, 4, r->n_ints, r->ints); break;
    case R_EMPTY_VEC: fe_fbt_vec_scalars(t, R_EMPTY_VEC, 8, 0, NULL); break;
    case R_TAGS:
        for (size_t i = 0; i < r->n_tags; i++)
            tags[i] = r->tags[i];
        fe_fbt_vec_strings(t, R_TAGS, r->n_tags, tags);
        break;
    case R_KIDS:
        for (size_t i = 0; i < r->n_kids; i++)
            kids[i] = child_make(b, r->tags[0], r->kid_values[i], i % 2, NULL);
        fe_fbt_vec_tables(t, R_KIDS, r->n_kids, kids);
        break;
    }
}

static void rich_set(fe_fbb *b, fe_fbt *t, const rich *r, int field)
{
    uint8_t pos[16];
    switch (field) {
    case R_U8: fe_fbt_u8(t, field, r->u8); break;
    case R_I8: fe_fbt_i8(t, field, r->i8); break;
    case R_BOOL: fe_fbt_bool(t, field, r->flag); break;
    case R_I16: fe_fbt_i16(t, field, r->i16); break;
    case R_U16: fe_fbt_u16(t, field, r->u16); break;
    case R_I32: fe_fbt_i32(t, field, r->i32); break;
    case R_U32: fe_fbt_u32(t, field, r->u32); break;
    case R_I64: fe_fbt_i64(t, field, r->i64); break;
    case R_U64: fe_fbt_u64(t, field, r->u64); break;
    case R_F32: fe_fbt_f32(t, field, r->f32); break;
    case R_F64: fe_fbt_f64(t, field, r->f64); break;
    case R_NAME: fe_fbt_string(t, field, r->name, r->name_len); break;
    case R_EMPTY_STR: fe_fbt_string(t, field, NULL, 0); break;
    case R_CHILD: fe_fbt_table(t, field, chain_make(b, r)); break;
    case R_POS: vec3_bytes(pos, r->px, r->py, r->pz), fe_fbt_struct(t, field, 16, 8, pos); break;
    case R_PET_TYPE: break; /* set with R_PET */
    case R_PET:
        fe_fbt_union(t, R_PET, r->pet_type,
                     r->pet_type == PET_CHILD ? child_make(b, "pet", r->i64, true, NULL)
                                              : fe_fbb_table(b));
        break;
    default: rich_set_vectors(b, t, r, field); break;
    }
}

/* The rich root, its fields set in a random order (so layouts vary from run to run). */
static fe_fbt *rich_build(fe_fbb *b, const rich *r)
{
    int order[R_NFIELDS];
    for (int i = 0; i < R_NFIELDS; i++)
        order[i] = i;
    for (int i = R_NFIELDS - 1; i > 0; i--) {
        int j = (int)rng_below((uint32_t)i + 1), tmp = order[i];
        order[i] = order[j], order[j] = tmp;
    }
    fe_fbt *root = fe_fbb_table(b);
    for (int i = 0; i < R_NFIELDS; i++)
        rich_set(b, root, r, order[i]);
    return root;
}

static uint8_t *rich_buffer(const rich *r, const char *ident, size_t *len)
{
    uint8_t *buf;
    fe_fbb *b = fe_fbb_new();
    cr_assert_not_null(b);
    int st = fe_fbb_finish(b, rich_build(b, r), ident, &buf, len);
    cr_assert_eq(st, FE_FBB_OK, "finish: %s", fe_fbb_strerror(st));
    fe_fbb_free(b);
    return buf;
}

/* ---- reading the rich root back, recording where things are -------------------------------- */

typedef struct map {
    uint32_t tables[64], vtables[64], lens[128];
    struct { uint32_t at, parent; } offs[128];
    int n_tables, n_vtables, n_lens, n_offs;
} map;

/* Absolute position of field id of t (the field must be present). */
static uint32_t field_pos(const fe_fb_table *t, uint16_t id)
{
    return t->pos + fe_fb_ld_u16(t->buf + t->vt + 4 + 2 * id);
}

static void map_table(map *m, const fe_fb_table *t)
{
    if (m != NULL && m->n_tables < 64)
        m->tables[m->n_tables++] = t->pos, m->vtables[m->n_vtables++] = t->vt;
}

static void map_off(map *m, uint32_t at, uint32_t parent)
{
    if (m != NULL && m->n_offs < 128)
        m->offs[m->n_offs].at = at, m->offs[m->n_offs++].parent = parent;
}

static void map_len(map *m, uint32_t at)
{
    if (m != NULL && m->n_lens < 128)
        m->lens[m->n_lens++] = at;
}

static const char *why; /* the first field rich_read found wrong */
#define WANT(cond, name)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            why = (name);                                                                   \
            return false;                                                                   \
        }                                                                                   \
    } while (0)

static bool same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

static bool read_scalars(const fe_fb_table *t, const rich *r)
{
    uint8_t u8; int8_t i8; bool bo; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
    int64_t i64; uint64_t u64; float f32; double f64;
    WANT(fe_fb_u8(t, R_U8, 0, &u8) == FE_FB_OK && u8 == r->u8, "u8");
    WANT(fe_fb_i8(t, R_I8, 0, &i8) == FE_FB_OK && i8 == r->i8, "i8");
    WANT(fe_fb_bool(t, R_BOOL, !r->flag, &bo) == FE_FB_OK && bo == r->flag, "bool");
    WANT(fe_fb_i16(t, R_I16, 0, &i16) == FE_FB_OK && i16 == r->i16, "i16");
    WANT(fe_fb_u16(t, R_U16, 0, &u16) == FE_FB_OK && u16 == r->u16, "u16");
    WANT(fe_fb_i32(t, R_I32, 0, &i32) == FE_FB_OK && i32 == r->i32, "i32");
    WANT(fe_fb_u32(t, R_U32, 0, &u32) == FE_FB_OK && u32 == r->u32, "u32");
    WANT(fe_fb_i64(t, R_I64, 0, &i64) == FE_FB_OK && i64 == r->i64, "i64");
    WANT(fe_fb_u64(t, R_U64, 0, &u64) == FE_FB_OK && u64 == r->u64, "u64");
    WANT(fe_fb_f32(t, R_F32, 0, &f32) == FE_FB_OK && same_bits(&f32, &r->f32, 4), "f32");
    WANT(fe_fb_f64(t, R_F64, 0, &f64) == FE_FB_OK && same_bits(&f64, &r->f64, 8), "f64");
    return true;
}

static bool read_strings(const fe_fb_table *t, const rich *r, map *m)
{
    const char *s;
    uint32_t n;
    WANT(fe_fb_string(t, R_NAME, &s, &n) == FE_FB_OK, "name");
    WANT(n == r->name_len && memcmp(s, r->name, n) == 0 && s[n] == 0, "name value");
    map_off(m, field_pos(t, R_NAME), t->pos), map_len(m, (uint32_t)((const uint8_t *)s - t->buf - 4));
    WANT(fe_fb_string(t, R_EMPTY_STR, &s, &n) == FE_FB_OK && n == 0 && s[0] == 0, "empty str");
    map_off(m, field_pos(t, R_EMPTY_STR), t->pos);
    return true;
}

/* Reads vector id and records it; *v is the view. */
static bool read_vec(const fe_fb_table *t, uint16_t id, uint32_t len, fe_fb_vec *v, map *m)
{
    WANT(fe_fb_vector(t, id, v) == FE_FB_OK && v->len == len, "vector");
    map_off(m, field_pos(t, id), t->pos), map_len(m, v->pos - 4);
    return true;
}

static bool read_scalar_vecs(const fe_fb_table *t, const rich *r, map *m)
{
    fe_fb_vec v;
    int64_t l; int32_t i32; uint8_t u8;
    WANT(read_vec(t, R_LONGS, (uint32_t)r->n_longs, &v, m) && fe_fb_vec_fits(&v, 8), "longs");
    for (uint32_t i = 0; i < v.len; i++)
        WANT(fe_fb_vec_i64(&v, i, &l) == FE_FB_OK && l == r->longs[i], "longs[i]");
    WANT(fe_fb_vec_i64(&v, v.len, &l) == FE_FB_BAD && l == 0, "longs[len]");
    WANT(read_vec(t, R_INTS, (uint32_t)r->n_ints, &v, m), "ints");
    for (uint32_t i = 0; i < v.len; i++)
        WANT(fe_fb_vec_i32(&v, i, &i32) == FE_FB_OK && i32 == r->ints[i], "ints[i]");
    WANT(read_vec(t, R_BYTES, (uint32_t)r->n_bytes, &v, m), "bytes");
    for (uint32_t i = 0; i < v.len; i++)
        WANT(fe_fb_vec_u8(&v, i, &u8) == FE_FB_OK && u8 == r->bytes[i], "bytes[i]");
    WANT(read_vec(t, R_EMPTY_VEC, 0, &v, m) && fe_fb_vec_fits(&v, 8), "empty vec");
    return true;
}

static bool read_tags(const fe_fb_table *t, const rich *r, map *m)
{
    fe_fb_vec v;
    const char *s;
    uint32_t n;
    WANT(read_vec(t, R_TAGS, (uint32_t)r->n_tags, &v, m), "tags");
    for (uint32_t i = 0; i < v.len; i++) {
        WANT(fe_fb_vec_string(&v, i, &s, &n) == FE_FB_OK, "tags[i]");
        WANT(n == strlen(r->tags[i]) && memcmp(s, r->tags[i], n + 1) == 0, "tags[i] value");
        map_off(m, v.pos + 4 * i, t->pos), map_len(m, (uint32_t)((const uint8_t *)s - v.buf - 4));
    }
    return true;
}

/* A Child table: value, flag, and name when want_name is not NULL. */
static bool read_child(const fe_fb_table *c, int64_t value, bool flag, const char *want_name,
                       map *m)
{
    int64_t v;
    bool f;
    const char *s;
    uint32_t n;
    map_table(m, c);
    WANT(fe_fb_i64(c, C_VALUE, 0, &v) == FE_FB_OK && v == value, "child value");
    WANT(fe_fb_bool(c, C_FLAG, !flag, &f) == FE_FB_OK && f == flag, "child flag");
    if (want_name == NULL)
        return true;
    WANT(fe_fb_string(c, C_NAME, &s, &n) == FE_FB_OK && strcmp(s, want_name) == 0, "child name");
    map_off(m, field_pos(c, C_NAME), c->pos), map_len(m, (uint32_t)((const uint8_t *)s - c->buf - 4));
    return true;
}

static bool read_kids(const fe_fb_table *t, const rich *r, map *m)
{
    fe_fb_vec v;
    fe_fb_table k;
    WANT(read_vec(t, R_KIDS, (uint32_t)r->n_kids, &v, m), "kids");
    for (uint32_t i = 0; i < v.len; i++) {
        WANT(fe_fb_vec_table(&v, i, &k) == FE_FB_OK && k.depth == t->depth + 1, "kids[i]");
        map_off(m, v.pos + 4 * i, t->pos);
        WANT(read_child(&k, r->kid_values[i], i % 2, r->tags[0], m), why);
    }
    WANT(fe_fb_vec_table(&v, v.len, &k) == FE_FB_BAD && k.buf == NULL, "kids[len]");
    return true;
}

static bool read_chain(const fe_fb_table *t, const rich *r, map *m)
{
    fe_fb_table c, next;
    WANT(fe_fb_subtable(t, R_CHILD, &c) == FE_FB_OK, "child");
    map_off(m, field_pos(t, R_CHILD), t->pos);
    for (int d = 0; d < r->chain; d++) {
        WANT(c.depth == d + 1, "chain depth");
        WANT(read_child(&c, r->i64 ^ d, d % 2, d == 0 ? "chain" : NULL, m), why);
        int st = fe_fb_subtable(&c, C_NEXT, &next);
        WANT(st == (d + 1 < r->chain ? FE_FB_OK : FE_FB_ABSENT), "chain next");
        if (st == FE_FB_OK)
            map_off(m, field_pos(&c, C_NEXT), c.pos);
        c = next;
    }
    return true;
}

static bool read_pos_pet(const fe_fb_table *t, const rich *r, map *m)
{
    const uint8_t *p;
    uint8_t want[16], type;
    fe_fb_table pet;
    double num;
    vec3_bytes(want, r->px, r->py, r->pz);
    WANT(fe_fb_struct(t, R_POS, 16, &p) == FE_FB_OK && memcmp(p, want, 16) == 0, "pos");
    WANT(fe_fb_ld_f32(p) == r->px && fe_fb_ld_i64(p + 8) == r->pz, "pos members");
    WANT(fe_fb_union(t, R_PET, &type, &pet) == FE_FB_OK && type == r->pet_type, "pet");
    map_off(m, field_pos(t, R_PET), t->pos);
    if (type == PET_CHILD)
        return read_child(&pet, r->i64, true, "pet", m);
    map_table(m, &pet);
    WANT(fe_fb_f64(&pet, 0, 2.5, &num) == FE_FB_ABSENT && num == 2.5, "pet other");
    return true;
}

/* True when buf holds exactly r (every field read and compared). */
static bool rich_read(const uint8_t *buf, size_t size, const rich *r, map *m)
{
    fe_fb_table t;
    WANT(fe_fb_root(buf, size, &t) == FE_FB_OK && t.depth == 0, "root");
    map_table(m, &t);
    return read_scalars(&t, r) && read_strings(&t, r, m) && read_scalar_vecs(&t, r, m) &&
           read_tags(&t, r, m) && read_kids(&t, r, m) && read_chain(&t, r, m) &&
           read_pos_pet(&t, r, m);
}

/* ---- round trips ---------------------------------------------------------------------------- */

Test(fe_fb, roundtrip_every_field_kind)
{
    rng_seed_fresh("roundtrip_every_field_kind");
    for (int iter = 0; iter < 200; iter++) {
        rich r;
        size_t len;
        rich_make(&r);
        const char *ident = iter % 2 ? "HDGP" : NULL;
        uint8_t *buf = rich_buffer(&r, ident, &len);
        cr_assert(rich_read(buf, len, &r, NULL), "iteration %d: %s", iter, why);
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
        cr_assert(fe_fb_f32(&root, 0, 7.0f, &fo) == FE_FB_OK && same_bits(&fo, &f[i], 4));
        cr_assert(fe_fb_f64(&root, 1, 7.0, &dobl) == FE_FB_OK && same_bits(&dobl, &d[i], 8));
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
        cr_assert_eq(field_pos(t, id) % 8, 0, "level %d field %u at %u", level, id,
                     field_pos(t, id));
    }
    cr_assert(fe_fb_f64(t, 9, 0, &d) == FE_FB_OK && d == 0.5 && field_pos(t, 9) % 8 == 0);
    cr_assert(fe_fb_struct(t, 10, 16, &(const uint8_t *){0}) == FE_FB_OK);
    cr_assert_eq(field_pos(t, 10) % 8, 0, "struct aligned to 8");
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
    rng_seed_fresh("rich_layout_alignment");
    for (int iter = 0; iter < 100; iter++) {
        rich r;
        size_t len;
        fe_fb_table t;
        fe_fb_vec v;
        rich_make(&r);
        uint8_t *buf = rich_buffer(&r, iter % 2 ? "HDGP" : NULL, &len);
        cr_assert_eq(fe_fb_root(buf, len, &t), FE_FB_OK);
        cr_assert(t.pos % 8 == 0 && field_pos(&t, R_I64) % 8 == 0 &&
                  field_pos(&t, R_U64) % 8 == 0 && field_pos(&t, R_F64) % 8 == 0 &&
                  field_pos(&t, R_POS) % 8 == 0 && field_pos(&t, R_I32) % 4 == 0 &&
                  field_pos(&t, R_I16) % 2 == 0, "scalars aligned");
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
        put32(raw + 12 + 8 * i, 12 + 8 * i - 4);
        put32(raw + 12 + 8 * i + 4, 4); /* the next table, 4 bytes on */
    }
    cr_assert_eq(fe_fb_root(raw, sizeof raw, &t), FE_FB_OK);
    int d = 0;
    while (fe_fb_subtable(&t, 0, &c) == FE_FB_OK)
        t = c, d++;
    cr_assert_eq(d, FE_FB_MAX_DEPTH, "stopped at depth %d", d);
    cr_assert_eq(fe_fb_subtable(&t, 0, &c), FE_FB_BAD);
}

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
            put32(m + cases[i].at, cases[i].v);
        else
            put16(m + cases[i].at, (uint16_t)cases[i].v);
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
    uint32_t e0 = t.vt + 4, p1 = field_pos(&t, 1), p2 = field_pos(&t, 2), p3 = field_pos(&t, 3);
    uint32_t s1 = p1 + fe_fb_ld_u32(buf + p1), v2 = p2 + fe_fb_ld_u32(buf + p2);
    uint16_t slot0 = fe_fb_ld_u16(buf + e0);
#define MUTATE(stmt, call, what)                                                            \
    do {                                                                                    \
        memcpy(m, buf, len);                                                                \
        stmt;                                                                               \
        cr_assert_eq(fe_fb_root(m, len, &t), FE_FB_OK, what);                               \
        cr_assert_eq(call, FE_FB_BAD, what);                                                \
    } while (0)
    MUTATE(put16(m + e0, (uint16_t)(slot0 + 4)), fe_fb_i64(&t, 0, 1, &x), "i64 misaligned");
    MUTATE(put16(m + e0, t.tbl_len), fe_fb_i64(&t, 0, 1, &x), "i64 past the table");
    MUTATE(put16(m + e0, 2), fe_fb_i64(&t, 0, 1, &x), "i64 over the soffset");
    MUTATE(put32(m + p1, 0), fe_fb_string(&t, 1, &s, &n), "offset zero");
    MUTATE(put32(m + p1, 0x80000000u), fe_fb_string(&t, 1, &s, &n), "offset negative");
    MUTATE(put32(m + p1, (uint32_t)len - p1), fe_fb_string(&t, 1, &s, &n), "string at end");
    MUTATE(put32(m + p1, 0u - p1), fe_fb_string(&t, 1, &s, &n), "string offset wraps");
    MUTATE(put32(m + p1, fe_fb_ld_u32(buf + p1) + 2), fe_fb_string(&t, 1, &s, &n),
           "string misaligned");
    MUTATE(m[s1 + 7] = 'x', fe_fb_string(&t, 1, &s, &n), "string without NUL");
    MUTATE(put32(m + s1, 0xffffffffu), fe_fb_string(&t, 1, &s, &n), "string huge");
    MUTATE(put32(m + s1, (uint32_t)len), fe_fb_string(&t, 1, &s, &n), "string too long");
    MUTATE(put32(m + v2, 0xffffffffu), fe_fb_vector(&t, 2, &v), "vector huge");
    MUTATE(put32(m + p3, 0u - (p3 - t.pos)), fe_fb_subtable(&t, 3, &sub), "wraps to parent");
    MUTATE(put32(m + p3, 4), fe_fb_subtable(&t, 3, &sub), "child overlaps");
    MUTATE(put32(m + p2, (uint32_t)(len - p2 - 2)), fe_fb_vector(&t, 2, &v), "vector at end");
#undef MUTATE
    /* A vector whose length fits bytewise but not as 8-byte elements. */
    memcpy(m, buf, len);
    put32(m + v2, (uint32_t)(len - v2 - 4));
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
    rng_seed_fresh("finish_is_repeatable");
    rich_make(&r);
    fe_fbb *b = fe_fbb_new();
    fe_fbt *root = rich_build(b, &r);
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
    rng_state = layout_seed;
    int st = fe_fbb_finish(b, rich_build(b, r), "HDGP", &buf, &len);
    if (st == FE_FBB_OK)
        cr_assert(rich_read(buf, len, r, NULL), "%s", why);
    else
        cr_assert_null(buf);
    free(buf);
    fe_fbb_free(b);
    return st;
}

Test(fe_fb, builder_fault_injection)
{
    rich r;
    rng_seed_fresh("builder_fault_injection");
    rich_make(&r);
    uint64_t layout_seed = rng_next();
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
    rng_seed_fresh(test);
    memset(c, 0, sizeof *c);
    rich_make(&c->r);
    c->base = rich_buffer(&c->r, "HDGP", &c->size);
    c->m = malloc(c->size);
    cr_assert(rich_read(c->base, c->size, &c->r, &c->map), "%s", why);
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
    put32(c->m + at, v);
    corpus_walk(c);
}

static void corpus_u16(corpus *c, uint32_t at, uint16_t v)
{
    memcpy(c->m, c->base, c->size);
    put16(c->m + at, v);
    corpus_walk(c);
}

Test(fe_fb, corpus_truncations)
{
    corpus c;
    corpus_open(&c, "corpus_truncations");
    for (size_t n = 0; n < c.size; n++) {
        c.inputs++;
        c.roots_ok += walk_input_counted(c.base, n, &c.oks) == FE_FB_OK;
        cr_assert(!rich_read(c.base, n, &c.r, NULL), "truncated to %zu of %zu still reads", n,
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
        for (uint32_t k = 0, flips = 1 + rng_below(4); k < flips; k++) {
            uint32_t bit = rng_below((uint32_t)c.size * 8);
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
        for (uint32_t k = 0, n = 1 + rng_below(8); k < n; k++) {
            uint8_t v = rng_below(2) ? special[rng_below(8)] : (uint8_t)rng_next();
            c.m[rng_below((uint32_t)c.size)] = v;
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
            u + 4, u - 4, 1 + rng_below(size - at), (uint32_t)rng_next(),
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
        int32_t other = (int32_t)c.map.tables[rng_below((uint32_t)c.map.n_tables)];
        const int32_t vals[] = {0, 2, 4, -4, q + 2, q + 4, q - size, INT32_MIN, INT32_MAX,
                                q - other, q - other - 4, 1, (int32_t)rng_next()};
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
                                      (uint16_t)(tbl_len - 2), (uint16_t)rng_next()};
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
                                 size - at - 3, n + 1, n + 4, 0, (uint32_t)rng_next()};
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
        put32(raw + pos, pos - 4);
        put32(raw + pos + 4, 4);
    }
    cr_assert_eq(walk_input(raw, sizeof raw), FE_FB_OK);
    inputs++;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t at = 12 + 8 * i + 4;
        const uint32_t back[] = {0, 0u - 4, 0u - at, 0u - (at - 12), 0u - 8, 0u - 12};
        for (size_t k = 0; k < sizeof back / sizeof back[0]; k++) {
            uint8_t m[sizeof raw];
            memcpy(m, raw, sizeof raw);
            put32(m + at, back[k]);
            walk_input(m, sizeof m), inputs++;
        }
    }
    /* A table that is its own vtable (soffset 0) and one whose vtable is its parent. */
    for (uint32_t i = 0; i < N; i++) {
        uint8_t m[sizeof raw];
        memcpy(m, raw, sizeof raw);
        put32(m + 12 + 8 * i, 0);
        walk_input(m, sizeof m), inputs++;
        memcpy(m, raw, sizeof raw);
        put32(m + 12 + 8 * i, i > 0 ? 8 : 0);
        walk_input(m, sizeof m), inputs++;
    }
    cr_assert_geq(inputs, 500);
}
