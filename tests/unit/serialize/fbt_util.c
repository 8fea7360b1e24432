/* fbt_util.c — the test schema's builder and checking reader, and seeded randomness, shared by
 * the test_fe_fb files (fbt_util.h).
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

/* Little-endian stores for hand-made and mutated buffers. */
void fbt_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

void fbt_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

/* ---- randomness ----------------------------------------------------------------------------- */

uint64_t fbt_rng_state;

uint64_t fbt_rng_next(void)
{
    uint64_t z = (fbt_rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t fbt_rng_below(uint32_t n)
{
    return n == 0 ? 0 : (uint32_t)(fbt_rng_next() % n);
}

void fbt_rng_seed_fresh(const char *test)
{
    struct timespec ts;
    const char *env = getenv("HIPDNN_TEST_SEED");
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                    (uint64_t)getpid() << 40;
    if (env != NULL)
        seed = strtoull(env, NULL, 0);
    fbt_rng_state = seed;
    fprintf(stderr, "test_fe_fb %s: seed %llu (HIPDNN_TEST_SEED=%llu replays it)\n", test,
            (unsigned long long)seed, (unsigned long long)seed);
}

static int64_t rnd_i64(void) { return (int64_t)fbt_rng_next(); }

void fbt_rich_make(rich *r)
{
    memset(r, 0, sizeof *r);
    r->u8 = (uint8_t)fbt_rng_next(), r->i8 = (int8_t)fbt_rng_next(), r->flag = fbt_rng_next() & 1;
    r->i16 = (int16_t)fbt_rng_next(), r->u16 = (uint16_t)fbt_rng_next();
    r->i32 = (int32_t)fbt_rng_next(), r->u32 = (uint32_t)fbt_rng_next();
    r->i64 = rnd_i64(), r->u64 = fbt_rng_next();
    r->f32 = (float)rnd_i64() / 3.0f, r->f64 = (double)rnd_i64() / 7.0;
    r->name_len = fbt_rng_below(sizeof r->name);
    for (size_t i = 0; i < r->name_len; i++)
        r->name[i] = (char)fbt_rng_below(128); /* NULs included */
    r->n_longs = 1 + fbt_rng_below(9);
    for (size_t i = 0; i < r->n_longs; i++)
        r->longs[i] = rnd_i64();
    r->n_tags = 1 + fbt_rng_below(5);
    for (size_t i = 0; i < r->n_tags; i++)
        for (size_t k = 0, n = fbt_rng_below(19); k < n; k++)
            r->tags[i][k] = (char)('a' + fbt_rng_below(26));
    r->n_bytes = 1 + fbt_rng_below(13);
    for (size_t i = 0; i < r->n_bytes; i++)
        r->bytes[i] = (uint8_t)fbt_rng_next();
    r->n_ints = 1 + fbt_rng_below(7);
    for (size_t i = 0; i < r->n_ints; i++)
        r->ints[i] = (int32_t)fbt_rng_next();
    r->px = (float)fbt_rng_below(1000) / 4.0f, r->py = -(float)fbt_rng_below(1000) / 8.0f;
    r->pz = rnd_i64();
    r->pet_type = 1 + fbt_rng_below(2);
    r->n_kids = 1 + fbt_rng_below(4);
    for (size_t i = 0; i < r->n_kids; i++)
        r->kid_values[i] = rnd_i64();
    r->chain = 1 + (int)fbt_rng_below(5);
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
fe_fbt *fbt_rich_build(fe_fbb *b, const rich *r)
{
    int order[R_NFIELDS];
    for (int i = 0; i < R_NFIELDS; i++)
        order[i] = i;
    for (int i = R_NFIELDS - 1; i > 0; i--) {
        int j = (int)fbt_rng_below((uint32_t)i + 1), tmp = order[i];
        order[i] = order[j], order[j] = tmp;
    }
    fe_fbt *root = fe_fbb_table(b);
    for (int i = 0; i < R_NFIELDS; i++)
        rich_set(b, root, r, order[i]);
    return root;
}

uint8_t *fbt_rich_buffer(const rich *r, const char *ident, size_t *len)
{
    uint8_t *buf;
    fe_fbb *b = fe_fbb_new();
    cr_assert_not_null(b);
    int st = fe_fbb_finish(b, fbt_rich_build(b, r), ident, &buf, len);
    cr_assert_eq(st, FE_FBB_OK, "finish: %s", fe_fbb_strerror(st));
    fe_fbb_free(b);
    return buf;
}

/* ---- reading the rich root back, recording where things are -------------------------------- */

/* Absolute position of field id of t (the field must be present). */
uint32_t fbt_field_pos(const fe_fb_table *t, uint16_t id)
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

const char *fbt_why; /* the first field rich_read found wrong */

bool fbt_same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

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
    WANT(fe_fb_f32(t, R_F32, 0, &f32) == FE_FB_OK && fbt_same_bits(&f32, &r->f32, 4), "f32");
    WANT(fe_fb_f64(t, R_F64, 0, &f64) == FE_FB_OK && fbt_same_bits(&f64, &r->f64, 8), "f64");
    return true;
}

static bool read_strings(const fe_fb_table *t, const rich *r, map *m)
{
    const char *s;
    uint32_t n;
    WANT(fe_fb_string(t, R_NAME, &s, &n) == FE_FB_OK, "name");
    WANT(n == r->name_len && memcmp(s, r->name, n) == 0 && s[n] == 0, "name value");
    map_off(m, fbt_field_pos(t, R_NAME), t->pos), map_len(m, (uint32_t)((const uint8_t *)s - t->buf - 4));
    WANT(fe_fb_string(t, R_EMPTY_STR, &s, &n) == FE_FB_OK && n == 0 && s[0] == 0, "empty str");
    map_off(m, fbt_field_pos(t, R_EMPTY_STR), t->pos);
    return true;
}

/* Reads vector id and records it; *v is the view. */
static bool read_vec(const fe_fb_table *t, uint16_t id, uint32_t len, fe_fb_vec *v, map *m)
{
    WANT(fe_fb_vector(t, id, v) == FE_FB_OK && v->len == len, "vector");
    map_off(m, fbt_field_pos(t, id), t->pos), map_len(m, v->pos - 4);
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
    map_off(m, fbt_field_pos(c, C_NAME), c->pos), map_len(m, (uint32_t)((const uint8_t *)s - c->buf - 4));
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
        WANT(read_child(&k, r->kid_values[i], i % 2, r->tags[0], m), fbt_why);
    }
    WANT(fe_fb_vec_table(&v, v.len, &k) == FE_FB_BAD && k.buf == NULL, "kids[len]");
    return true;
}

static bool read_chain(const fe_fb_table *t, const rich *r, map *m)
{
    fe_fb_table c, next;
    WANT(fe_fb_subtable(t, R_CHILD, &c) == FE_FB_OK, "child");
    map_off(m, fbt_field_pos(t, R_CHILD), t->pos);
    for (int d = 0; d < r->chain; d++) {
        WANT(c.depth == d + 1, "chain depth");
        WANT(read_child(&c, r->i64 ^ d, d % 2, d == 0 ? "chain" : NULL, m), fbt_why);
        int st = fe_fb_subtable(&c, C_NEXT, &next);
        WANT(st == (d + 1 < r->chain ? FE_FB_OK : FE_FB_ABSENT), "chain next");
        if (st == FE_FB_OK)
            map_off(m, fbt_field_pos(&c, C_NEXT), c.pos);
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
    map_off(m, fbt_field_pos(t, R_PET), t->pos);
    if (type == PET_CHILD)
        return read_child(&pet, r->i64, true, "pet", m);
    map_table(m, &pet);
    WANT(fe_fb_f64(&pet, 0, 2.5, &num) == FE_FB_ABSENT && num == 2.5, "pet other");
    return true;
}

/* True when buf holds exactly r (every field read and compared). */
bool fbt_rich_read(const uint8_t *buf, size_t size, const rich *r, map *m)
{
    fe_fb_table t;
    WANT(fe_fb_root(buf, size, &t) == FE_FB_OK && t.depth == 0, "root");
    map_table(m, &t);
    return read_scalars(&t, r) && read_strings(&t, r, m) && read_scalar_vecs(&t, r, m) &&
           read_tags(&t, r, m) && read_kids(&t, r, m) && read_chain(&t, r, m) &&
           read_pos_pet(&t, r, m);
}

