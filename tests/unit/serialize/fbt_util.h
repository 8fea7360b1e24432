/* fbt_util.h — helpers shared by the files of test_fe_fb (tests/unit/serialize): seeded
 * randomness, the test schema (a "rich" root with every field kind, children, unions, a struct),
 * building a rich buffer in a random field order and reading it back while mapping where every
 * table, offset and length lies. Uses serialize/fe_fb.h.
 */
#ifndef FBT_UTIL_H
#define FBT_UTIL_H

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

typedef struct map {
    uint32_t tables[64], vtables[64], lens[128];
    struct { uint32_t at, parent; } offs[128];
    int n_tables, n_vtables, n_lens, n_offs;
} map;

#define WANT(cond, name)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fbt_why = (name);                                                                   \
            return false;                                                                   \
        }                                                                                   \
    } while (0)

void fbt_put32(uint8_t *p, uint32_t v);
void fbt_put16(uint8_t *p, uint16_t v);
extern uint64_t fbt_rng_state;
uint64_t fbt_rng_next(void);
uint32_t fbt_rng_below(uint32_t n);
void fbt_rng_seed_fresh(const char *test);
void fbt_rich_make(rich *r);
fe_fbt *fbt_rich_build(fe_fbb *b, const rich *r);
uint8_t *fbt_rich_buffer(const rich *r, const char *ident, size_t *len);
uint32_t fbt_field_pos(const fe_fb_table *t, uint16_t id);
extern const char *fbt_why;
bool fbt_same_bits(const void *a, const void *b, size_t n);
bool fbt_rich_read(const uint8_t *buf, size_t size, const rich *r, map *m);

#endif
