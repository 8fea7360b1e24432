/* fe_fb.c — the FlatBuffers reader and builder declared in fe_fb.h (format picture there).
 *
 * Owns: bounds- and alignment-checked reads of untrusted bytes (every position is computed in
 * 64 bits and checked against the buffer before a byte is touched), and the builder: its
 * arena, its tree of table nodes and the one-pass serializer that lays the tree out parent
 * first, children after, patching each forward offset once the child has a position.
 * Does not own: any schema, or turning statuses into hipdnnStatus_t and last-error text (the
 * callers in serialize/ do that).
 */
#include "serialize/fe_fb.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* ======================================= reader ========================================== */

/* True when n bytes at pos lie inside a buffer of size bytes. */
static bool fits(size_t size, uint64_t pos, uint64_t n)
{
    return pos <= size && n <= size - pos;
}

/* Checks the vtable at vt for the table at pos; fills *out. */
static int table_vtable(const uint8_t *buf, size_t size, uint64_t pos, int64_t vt,
                        uint32_t depth, fe_fb_table *out)
{
    if (vt < 0 || vt % 2 != 0 || !fits(size, (uint64_t)vt, 4))
        return FE_FB_BAD;
    uint16_t vt_len = fe_fb_ld_u16(buf + vt);
    uint16_t tbl_len = fe_fb_ld_u16(buf + vt + 2);
    if (vt_len < 4 || vt_len % 2 != 0 || !fits(size, (uint64_t)vt, vt_len))
        return FE_FB_BAD;
    if (tbl_len < 4 || !fits(size, pos, tbl_len))
        return FE_FB_BAD;
    *out = (fe_fb_table){buf, size, (uint32_t)pos, (uint32_t)vt, vt_len, tbl_len,
                         (uint16_t)depth};
    return FE_FB_OK;
}

/* The table whose soffset is at pos, `depth` levels below the root. */
static int table_at(const uint8_t *buf, size_t size, uint64_t pos, uint32_t depth,
                    fe_fb_table *out)
{
    memset(out, 0, sizeof *out);
    if (depth > FE_FB_MAX_DEPTH || pos % 4 != 0 || !fits(size, pos, 4))
        return FE_FB_BAD;
    int64_t vt = (int64_t)pos - fe_fb_ld_i32(buf + pos);
    return table_vtable(buf, size, pos, vt, depth, out);
}

/* The string whose length prefix is at pos. */
static int string_at(const uint8_t *buf, size_t size, uint64_t pos, const char **s,
                     uint32_t *len)
{
    *s = NULL;
    *len = 0;
    if (pos % 4 != 0 || !fits(size, pos, 4))
        return FE_FB_BAD;
    uint32_t n = fe_fb_ld_u32(buf + pos);
    if (!fits(size, pos + 4, (uint64_t)n + 1) || buf[pos + 4 + n] != 0)
        return FE_FB_BAD;
    *s = (const char *)buf + pos + 4;
    *len = n;
    return FE_FB_OK;
}

/* The vector whose length prefix is at pos (elements are at least one byte each). */
static int vector_at(const uint8_t *buf, size_t size, uint64_t pos, uint16_t depth,
                     fe_fb_vec *out)
{
    memset(out, 0, sizeof *out);
    if (pos % 4 != 0 || !fits(size, pos, 4))
        return FE_FB_BAD;
    uint32_t n = fe_fb_ld_u32(buf + pos);
    if (!fits(size, pos + 4, n))
        return FE_FB_BAD;
    *out = (fe_fb_vec){buf, size, (uint32_t)(pos + 4), n, depth};
    return FE_FB_OK;
}

/* Follows the uoffset stored at `at` (4 bytes there are known to be in bounds). */
static int deref(const uint8_t *buf, uint32_t at, uint64_t *target)
{
    uint32_t u = fe_fb_ld_u32(buf + at);
    if (u == 0 || u > 0x7fffffffu)
        return FE_FB_BAD;
    *target = (uint64_t)at + u;
    return FE_FB_OK;
}

/* Locates field id: n bytes inside the table, at a position aligned to align. */
static int field_at(const fe_fb_table *t, uint16_t id, size_t n, size_t align, uint32_t *at)
{
    if (t == NULL || t->buf == NULL)
        return FE_FB_BAD;
    uint32_t e = 4u + 2u * id;
    if (e + 2u > t->vt_len)
        return FE_FB_ABSENT;
    uint16_t off = fe_fb_ld_u16(t->buf + t->vt + e);
    if (off == 0)
        return FE_FB_ABSENT;
    if (off < 4 || n > t->tbl_len || off > t->tbl_len - n || (t->pos + off) % align != 0)
        return FE_FB_BAD;
    *at = t->pos + off;
    return FE_FB_OK;
}

bool fe_fb_present(const fe_fb_table *t, uint16_t id)
{
    uint32_t at;
    return field_at(t, id, 1, 1, &at) == FE_FB_OK;
}

/* Follows offset field id to the position it points at. */
static int offset_field(const fe_fb_table *t, uint16_t id, uint64_t *target)
{
    uint32_t at;
    int r = field_at(t, id, 4, 4, &at);
    if (r != FE_FB_OK)
        return r;
    return deref(t->buf, at, target);
}

/* Reads an n-byte little-endian scalar field as raw bits. */
static int scalar(const fe_fb_table *t, uint16_t id, size_t n, uint64_t *raw)
{
    uint32_t at;
    int r = field_at(t, id, n, n, &at);
    *raw = 0;
    for (size_t i = 0; r == FE_FB_OK && i < n; i++)
        *raw |= (uint64_t)t->buf[at + i] << (8 * i);
    return r;
}

int fe_fb_root(const uint8_t *buf, size_t size, fe_fb_table *root)
{
    memset(root, 0, sizeof *root);
    if (buf == NULL || size < 8 || size > FE_FB_MAX_SIZE)
        return FE_FB_BAD;
    return table_at(buf, size, fe_fb_ld_u32(buf), 0, root);
}

bool fe_fb_has_identifier(const uint8_t *buf, size_t size, const char ident[4])
{
    return buf != NULL && ident != NULL && size >= 8 && memcmp(buf + 4, ident, 4) == 0;
}

/* Scalar accessors: the raw bits are narrowed to the unsigned type U of the same size and
 * copied into T, which reinterprets them without arithmetic. */
#define FE_FB_GETTER(name, T, U)                                                    \
    int fe_fb_##name(const fe_fb_table *t, uint16_t id, T def, T *out)              \
    {                                                                                \
        uint64_t raw;                                                                \
        int r = scalar(t, id, sizeof(T), &raw);                                      \
        U bits = (U)raw;                                                             \
        if (r == FE_FB_OK)                                                           \
            memcpy(out, &bits, sizeof(T));                                           \
        else                                                                         \
            *out = def;                                                              \
        return r;                                                                    \
    }
FE_FB_GETTER(u8, uint8_t, uint8_t)
FE_FB_GETTER(i8, int8_t, uint8_t)
FE_FB_GETTER(u16, uint16_t, uint16_t)
FE_FB_GETTER(i16, int16_t, uint16_t)
FE_FB_GETTER(u32, uint32_t, uint32_t)
FE_FB_GETTER(i32, int32_t, uint32_t)
FE_FB_GETTER(u64, uint64_t, uint64_t)
FE_FB_GETTER(i64, int64_t, uint64_t)
FE_FB_GETTER(f32, float, uint32_t)
FE_FB_GETTER(f64, double, uint64_t)
#undef FE_FB_GETTER

int fe_fb_bool(const fe_fb_table *t, uint16_t id, bool def, bool *out)
{
    uint64_t raw;
    int r = scalar(t, id, 1, &raw);
    *out = r == FE_FB_OK ? raw != 0 : def;
    return r;
}

int fe_fb_string(const fe_fb_table *t, uint16_t id, const char **s, uint32_t *len)
{
    uint64_t pos;
    int r = offset_field(t, id, &pos);
    *s = NULL;
    *len = 0;
    if (r != FE_FB_OK)
        return r;
    return string_at(t->buf, t->size, pos, s, len);
}

int fe_fb_subtable(const fe_fb_table *t, uint16_t id, fe_fb_table *out)
{
    uint64_t pos;
    int r = offset_field(t, id, &pos);
    memset(out, 0, sizeof *out);
    if (r != FE_FB_OK)
        return r;
    return table_at(t->buf, t->size, pos, t->depth + 1u, out);
}

int fe_fb_union(const fe_fb_table *t, uint16_t id, uint8_t *type, fe_fb_table *out)
{
    uint8_t ty;
    memset(out, 0, sizeof *out);
    *type = 0;
    if (id == 0)
        return FE_FB_BAD;
    int r = fe_fb_u8(t, id - 1, 0, &ty);
    if (r != FE_FB_OK || ty == 0)
        return r == FE_FB_BAD ? FE_FB_BAD : FE_FB_ABSENT;
    *type = ty;
    r = fe_fb_subtable(t, id, out);
    return r == FE_FB_ABSENT ? FE_FB_BAD : r;
}

int fe_fb_union_struct(const fe_fb_table *t, uint16_t id, size_t size, const uint8_t **bytes)
{
    uint64_t pos;
    *bytes = NULL;
    if (size == 0)
        return FE_FB_BAD;
    int r = offset_field(t, id, &pos);
    if (r != FE_FB_OK)
        return FE_FB_BAD; /* the caller saw a member type: the value must be there */
    if (!fits(t->size, pos, size))
        return FE_FB_BAD;
    *bytes = t->buf + pos;
    return FE_FB_OK;
}

int fe_fb_vector(const fe_fb_table *t, uint16_t id, fe_fb_vec *out)
{
    uint64_t pos;
    int r = offset_field(t, id, &pos);
    memset(out, 0, sizeof *out);
    if (r != FE_FB_OK)
        return r;
    return vector_at(t->buf, t->size, pos, t->depth, out);
}

int fe_fb_struct(const fe_fb_table *t, uint16_t id, size_t size, const uint8_t **bytes)
{
    uint32_t at;
    *bytes = NULL;
    if (size == 0)
        return FE_FB_BAD;
    int r = field_at(t, id, size, 1, &at);
    if (r == FE_FB_OK)
        *bytes = t->buf + at;
    return r;
}

bool fe_fb_vec_fits(const fe_fb_vec *v, size_t elem_size)
{
    if (v == NULL || v->buf == NULL || elem_size == 0 || elem_size > FE_FB_MAX_SIZE)
        return false;
    return fits(v->size, v->pos, (uint64_t)v->len * elem_size);
}

int fe_fb_vec_elem(const fe_fb_vec *v, uint32_t i, size_t elem_size, const uint8_t **p)
{
    *p = NULL;
    if (v == NULL || v->buf == NULL || i >= v->len || elem_size == 0 ||
        elem_size > FE_FB_MAX_SIZE)
        return FE_FB_BAD;
    uint64_t at = v->pos + (uint64_t)i * elem_size;
    if (!fits(v->size, at, elem_size))
        return FE_FB_BAD;
    *p = v->buf + at;
    return FE_FB_OK;
}

int fe_fb_vec_u8(const fe_fb_vec *v, uint32_t i, uint8_t *out)
{
    const uint8_t *p;
    int r = fe_fb_vec_elem(v, i, 1, &p);
    *out = r == FE_FB_OK ? p[0] : 0;
    return r;
}

int fe_fb_vec_i32(const fe_fb_vec *v, uint32_t i, int32_t *out)
{
    const uint8_t *p;
    int r = fe_fb_vec_elem(v, i, 4, &p);
    *out = r == FE_FB_OK ? fe_fb_ld_i32(p) : 0;
    return r;
}

int fe_fb_vec_i64(const fe_fb_vec *v, uint32_t i, int64_t *out)
{
    const uint8_t *p;
    int r = fe_fb_vec_elem(v, i, 8, &p);
    *out = r == FE_FB_OK ? fe_fb_ld_i64(p) : 0;
    return r;
}

/* Follows the uoffset held by element i of a vector of offsets. */
static int vec_target(const fe_fb_vec *v, uint32_t i, uint64_t *target)
{
    const uint8_t *p;
    if (fe_fb_vec_elem(v, i, 4, &p) != FE_FB_OK || (p - v->buf) % 4 != 0)
        return FE_FB_BAD;
    return deref(v->buf, (uint32_t)(p - v->buf), target);
}

int fe_fb_vec_table(const fe_fb_vec *v, uint32_t i, fe_fb_table *out)
{
    uint64_t pos;
    memset(out, 0, sizeof *out);
    if (vec_target(v, i, &pos) != FE_FB_OK)
        return FE_FB_BAD;
    return table_at(v->buf, v->size, pos, v->depth + 1u, out);
}

int fe_fb_vec_string(const fe_fb_vec *v, uint32_t i, const char **s, uint32_t *len)
{
    uint64_t pos;
    *s = NULL;
    *len = 0;
    if (vec_target(v, i, &pos) != FE_FB_OK)
        return FE_FB_BAD;
    return string_at(v->buf, v->size, pos, s, len);
}

/* ======================================= builder ========================================= */

/* What a field holds. The first two live inline in the table; the rest are offsets. */
enum { K_SCALAR, K_STRUCT, K_STRING, K_TABLE, K_VEC_SCALARS, K_VEC_TABLES, K_VEC_STRINGS,
       K_OOL_STRUCT /* a struct out of line: the value of a union whose members are structs */ };

typedef struct fbb_str {
    const char *s;
    uint32_t len;
} fbb_str;

typedef struct fbb_field {
    struct fbb_field *next; /* insertion order */
    uint16_t id;
    uint8_t kind;
    uint8_t size;   /* K_SCALAR: value bytes; K_VEC_SCALARS: element bytes */
    uint16_t align; /* inline alignment */
    uint16_t slot;  /* offset inside the table, set by table_plan */
    uint32_t count; /* K_STRUCT: bytes; vectors: elements */
    union {
        uint8_t imm[8];       /* K_SCALAR, little-endian */
        const uint8_t *bytes; /* K_STRUCT; K_VEC_SCALARS (little-endian) */
        fbb_str str;          /* K_STRING */
        fe_fbt *child;        /* K_TABLE */
        fe_fbt **children;    /* K_VEC_TABLES */
        fbb_str *strs;        /* K_VEC_STRINGS */
    } u;
} fbb_field;

struct fe_fbt {
    fe_fbb *b;
    fbb_field *first, *last;
    bool attached; /* already some node's child */
};

typedef struct fbb_chunk {
    struct fbb_chunk *next;
    size_t used, cap;
    max_align_t mem[];
} fbb_chunk;

struct fe_fbb {
    fbb_chunk *chunks;
    int err;      /* sticky: the first error */
    int last;     /* the latest error, what a failing setter returns */
    long fail_in; /* allocations left before an injected failure; < 0: none */
};

enum { FBB_CHUNK = 4096 };

/* The one place builder errors are raised (a breakpoint target): keeps the first. */
static int fbb_fail(fe_fbb *b, int err)
{
    if (b == NULL)
        return err;
    if (b->err == FE_FBB_OK)
        b->err = err;
    b->last = err;
    return err;
}

/* True when the fault-injection countdown says this allocation fails. */
static bool fbb_injected(fe_fbb *b)
{
    if (b->fail_in < 0)
        return false;
    return b->fail_in-- == 0;
}

static void *fbb_realloc(fe_fbb *b, void *p, size_t n)
{
    void *q = fbb_injected(b) ? NULL : base_realloc(p, n);
    if (q == NULL)
        fbb_fail(b, FE_FBB_ENOMEM);
    return q;
}

/* n bytes from the arena, aligned for any type; NULL (sticky ENOMEM) when out of memory. */
static void *arena_alloc(fe_fbb *b, size_t n)
{
    const size_t a = sizeof(max_align_t);
    if (n > FE_FB_MAX_SIZE) {
        fbb_fail(b, FE_FBB_ETOOBIG);
        return NULL;
    }
    n = n == 0 ? a : (n + a - 1) / a * a;
    fbb_chunk *c = b->chunks;
    if (c == NULL || c->cap - c->used < n) {
        size_t cap = n > FBB_CHUNK ? n : FBB_CHUNK;
        c = fbb_realloc(b, NULL, sizeof *c + cap);
        if (c == NULL)
            return NULL;
        *c = (fbb_chunk){b->chunks, 0, cap};
        b->chunks = c;
    }
    void *p = (char *)c->mem + c->used;
    c->used += n;
    return p;
}

static void *arena_dup(fe_fbb *b, const void *src, size_t n)
{
    void *p = arena_alloc(b, n);
    if (p != NULL && n > 0)
        memcpy(p, src, n);
    return p;
}

fe_fbb *fe_fbb_new(void)
{
    fe_fbb *b = base_calloc(1, sizeof *b);
    if (b != NULL)
        b->fail_in = -1;
    return b;
}

void fe_fbb_free(fe_fbb *b)
{
    if (b == NULL)
        return;
    for (fbb_chunk *c = b->chunks, *next; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    free(b);
}

int fe_fbb_status(const fe_fbb *b)
{
    return b == NULL ? FE_FBB_EINVAL : b->err;
}

const char *fe_fbb_strerror(int status)
{
    switch (status) {
    case FE_FBB_OK: return "ok";
    case FE_FBB_ENOMEM: return "out of memory";
    case FE_FBB_EINVAL: return "invalid argument or tree";
    case FE_FBB_ETOOBIG: return "table or buffer too big";
    default: return "unknown builder status";
    }
}

void fe_fbb_fail_alloc_after(fe_fbb *b, long n)
{
    if (b != NULL)
        b->fail_in = n < 0 ? -1 : n;
}

fe_fbt *fe_fbb_table(fe_fbb *b)
{
    if (b == NULL)
        return NULL;
    fe_fbt *t = arena_alloc(b, sizeof *t);
    if (t != NULL)
        *t = (fe_fbt){b, NULL, NULL, false};
    return t;
}

/* ---- recording fields ---- */

static bool field_exists(const fe_fbt *t, uint16_t id)
{
    for (const fbb_field *f = t->first; f != NULL; f = f->next)
        if (f->id == id)
            return true;
    return false;
}

/* A new, unlinked field record of the given kind and inline alignment. */
static int field_new(fe_fbt *t, uint16_t id, uint8_t kind, uint16_t align, fbb_field **out)
{
    *out = NULL;
    if (id > FE_FB_MAX_FIELD_ID || field_exists(t, id))
        return fbb_fail(t->b, FE_FBB_EINVAL);
    fbb_field *f = arena_alloc(t->b, sizeof *f);
    if (f == NULL)
        return t->b->last;
    memset(f, 0, sizeof *f);
    f->id = id;
    f->kind = kind;
    f->align = align;
    *out = f;
    return FE_FBB_OK;
}

static int field_link(fe_fbt *t, fbb_field *f)
{
    if (t->last == NULL)
        t->first = f;
    else
        t->last->next = f;
    t->last = f;
    return FE_FBB_OK;
}

/* Stores the low n bytes of v little-endian at p. */
static void store_le(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int set_scalar(fe_fbt *t, uint16_t id, size_t n, uint64_t bits)
{
    fbb_field *f;
    if (t == NULL)
        return FE_FBB_EINVAL;
    int r = field_new(t, id, K_SCALAR, (uint16_t)n, &f);
    if (r != FE_FBB_OK)
        return r;
    f->size = (uint8_t)n;
    store_le(f->u.imm, bits, n);
    return field_link(t, f);
}

/* Scalar setters: T's bytes are reinterpreted as the same-size unsigned U, then stored. */
#define FE_FBT_SETTER(name, T, U)                      \
    int fe_fbt_##name(fe_fbt *t, uint16_t id, T v)     \
    {                                                  \
        U bits;                                        \
        memcpy(&bits, &v, sizeof bits);                \
        return set_scalar(t, id, sizeof bits, bits);   \
    }
FE_FBT_SETTER(u8, uint8_t, uint8_t)
FE_FBT_SETTER(i8, int8_t, uint8_t)
FE_FBT_SETTER(u16, uint16_t, uint16_t)
FE_FBT_SETTER(i16, int16_t, uint16_t)
FE_FBT_SETTER(u32, uint32_t, uint32_t)
FE_FBT_SETTER(i32, int32_t, uint32_t)
FE_FBT_SETTER(u64, uint64_t, uint64_t)
FE_FBT_SETTER(i64, int64_t, uint64_t)
FE_FBT_SETTER(f32, float, uint32_t)
FE_FBT_SETTER(f64, double, uint64_t)
#undef FE_FBT_SETTER

int fe_fbt_bool(fe_fbt *t, uint16_t id, bool v)
{
    return set_scalar(t, id, 1, v ? 1 : 0);
}

/* Copies len bytes of s into the arena. */
static int str_dup(fe_fbb *b, const char *s, size_t len, fbb_str *out)
{
    if (s == NULL && len > 0)
        return fbb_fail(b, FE_FBB_EINVAL);
    if (len > FE_FB_MAX_SIZE - 8)
        return fbb_fail(b, FE_FBB_ETOOBIG);
    out->s = arena_dup(b, s, len);
    out->len = (uint32_t)len;
    return out->s == NULL ? b->last : FE_FBB_OK;
}

int fe_fbt_string(fe_fbt *t, uint16_t id, const char *s, size_t len)
{
    fbb_field *f;
    if (t == NULL)
        return FE_FBB_EINVAL;
    int r = field_new(t, id, K_STRING, 4, &f);
    if (r == FE_FBB_OK)
        r = str_dup(t->b, s, len, &f->u.str);
    return r == FE_FBB_OK ? field_link(t, f) : r;
}

/* May child be attached to a node of t's builder? */
static bool attachable(const fe_fbt *t, const fe_fbt *child)
{
    return child != NULL && child->b == t->b && !child->attached;
}

int fe_fbt_table(fe_fbt *t, uint16_t id, fe_fbt *child)
{
    fbb_field *f;
    if (t == NULL)
        return FE_FBB_EINVAL;
    if (!attachable(t, child))
        return fbb_fail(t->b, FE_FBB_EINVAL);
    int r = field_new(t, id, K_TABLE, 4, &f);
    if (r != FE_FBB_OK)
        return r;
    f->u.child = child;
    child->attached = true;
    return field_link(t, f);
}

int fe_fbt_union(fe_fbt *t, uint16_t id, uint8_t type, fe_fbt *value)
{
    if (t == NULL)
        return FE_FBB_EINVAL;
    if (id == 0 || type == 0 || field_exists(t, id - 1))
        return fbb_fail(t->b, FE_FBB_EINVAL);
    int r = fe_fbt_table(t, id, value);
    return r == FE_FBB_OK ? fe_fbt_u8(t, id - 1, type) : r;
}

int fe_fbt_union_struct(fe_fbt *t, uint16_t id, uint8_t type, size_t size, size_t align,
                        const void *bytes)
{
    fbb_field *f;
    if (t == NULL)
        return FE_FBB_EINVAL;
    bool align_ok = align == 1 || align == 2 || align == 4 || align == 8 || align == 16;
    if (id == 0 || type == 0 || field_exists(t, id - 1) || !align_ok || size == 0 ||
        size > 65000 || bytes == NULL)
        return fbb_fail(t->b, FE_FBB_EINVAL);
    int r = field_new(t, id, K_OOL_STRUCT, 4, &f);
    if (r != FE_FBB_OK)
        return r;
    f->count = (uint32_t)size;
    f->size = (uint8_t)align; /* the struct's alignment where it is written */
    f->u.bytes = arena_dup(t->b, bytes, size);
    if (f->u.bytes == NULL)
        return t->b->err;
    r = field_link(t, f);
    return r == FE_FBB_OK ? fe_fbt_u8(t, id - 1, type) : r;
}

/* An n-byte scalar in host byte order at p, widened. */
static uint64_t load_host(const uint8_t *p, size_t n)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (n) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

/* Copies count host-order scalars of n bytes into the arena as little-endian. */
static const uint8_t *scalars_dup(fe_fbb *b, size_t n, size_t count, const uint8_t *src)
{
    uint8_t *dst = arena_alloc(b, n * count);
    for (size_t i = 0; dst != NULL && i < count; i++)
        store_le(dst + n * i, load_host(src + n * i, n), n);
    return dst;
}

int fe_fbt_vec_scalars(fe_fbt *t, uint16_t id, size_t elem_size, size_t count,
                       const void *data)
{
    fbb_field *f;
    if (t == NULL)
        return FE_FBB_EINVAL;
    bool size_ok = elem_size == 1 || elem_size == 2 || elem_size == 4 || elem_size == 8;
    if (!size_ok || (data == NULL && count > 0))
        return fbb_fail(t->b, FE_FBB_EINVAL);
    if (count > (FE_FB_MAX_SIZE - 16) / elem_size)
        return fbb_fail(t->b, FE_FBB_ETOOBIG);
    int r = field_new(t, id, K_VEC_SCALARS, 4, &f);
    if (r != FE_FBB_OK)
        return r;
    f->size = (uint8_t)elem_size;
    f->count = (uint32_t)count;
    f->u.bytes = scalars_dup(t->b, elem_size, count, data);
    return f->u.bytes == NULL ? t->b->last : field_link(t, f);
}

/* Marks every child attached, or none when one of them cannot be (NULL, foreign, already
 * attached, or listed twice). */
static int attach_all(fe_fbt *t, size_t count, fe_fbt *const *children)
{
    size_t i = 0;
    while (i < count && attachable(t, children[i]))
        children[i++]->attached = true;
    if (i == count)
        return FE_FBB_OK;
    while (i > 0)
        children[--i]->attached = false;
    return fbb_fail(t->b, FE_FBB_EINVAL);
}

int fe_fbt_vec_tables(fe_fbt *t, uint16_t id, size_t count, fe_fbt *const *children)
{
    fbb_field *f;
    if (t == NULL)
        return FE_FBB_EINVAL;
    if (children == NULL && count > 0)
        return fbb_fail(t->b, FE_FBB_EINVAL);
    if (count > (FE_FB_MAX_SIZE - 16) / 4)
        return fbb_fail(t->b, FE_FBB_ETOOBIG);
    int r = field_new(t, id, K_VEC_TABLES, 4, &f);
    if (r != FE_FBB_OK)
        return r;
    f->count = (uint32_t)count;
    f->u.children = arena_dup(t->b, children, count * sizeof *children);
    if (f->u.children == NULL)
        return t->b->last;
    r = attach_all(t, count, f->u.children);
    return r == FE_FBB_OK ? field_link(t, f) : r;
}

int fe_fbt_vec_strings(fe_fbt *t, uint16_t id, size_t count, const char *const *strs)
{
    fbb_field *f;
    if (t == NULL)
        return FE_FBB_EINVAL;
    if (strs == NULL && count > 0)
        return fbb_fail(t->b, FE_FBB_EINVAL);
    if (count > (FE_FB_MAX_SIZE - 16) / 4)
        return fbb_fail(t->b, FE_FBB_ETOOBIG);
    int r = field_new(t, id, K_VEC_STRINGS, 4, &f);
    if (r != FE_FBB_OK)
        return r;
    f->count = (uint32_t)count;
    f->u.strs = arena_alloc(t->b, count * sizeof *f->u.strs);
    if (f->u.strs == NULL)
        return t->b->last;
    for (size_t i = 0; r == FE_FBB_OK && i < count; i++) {
        if (strs[i] == NULL)
            return fbb_fail(t->b, FE_FBB_EINVAL);
        r = str_dup(t->b, strs[i], strlen(strs[i]), &f->u.strs[i]);
    }
    return r == FE_FBB_OK ? field_link(t, f) : r;
}

int fe_fbt_struct(fe_fbt *t, uint16_t id, size_t size, size_t align, const void *bytes)
{
    fbb_field *f;
    if (t == NULL)
        return FE_FBB_EINVAL;
    bool align_ok = align == 1 || align == 2 || align == 4 || align == 8 || align == 16;
    if (!align_ok || size == 0 || size > 65000 || bytes == NULL)
        return fbb_fail(t->b, FE_FBB_EINVAL);
    int r = field_new(t, id, K_STRUCT, (uint16_t)align, &f);
    if (r != FE_FBB_OK)
        return r;
    f->count = (uint32_t)size;
    f->u.bytes = arena_dup(t->b, bytes, size);
    return f->u.bytes == NULL ? t->b->last : field_link(t, f);
}

/* ---- serializing ---- */

/* The output buffer, grown at its end; positions are offsets from its start. */
typedef struct fbb_out {
    fe_fbb *b;
    uint8_t *p;
    size_t len, cap;
} fbb_out;

/* Appends n zero bytes; *at = where they start. */
static int out_take(fbb_out *o, size_t n, uint32_t *at)
{
    *at = (uint32_t)o->len;
    if (n == 0)
        return FE_FBB_OK;
    if (n > FE_FB_MAX_SIZE - o->len)
        return fbb_fail(o->b, FE_FBB_ETOOBIG);
    if (o->len + n > o->cap) {
        size_t cap = o->cap > 0 ? o->cap : 256;
        while (cap < o->len + n)
            cap *= 2;
        uint8_t *p = fbb_realloc(o->b, o->p, cap);
        if (p == NULL)
            return FE_FBB_ENOMEM;
        o->p = p;
        o->cap = cap;
    }
    memset(o->p + o->len, 0, n);
    o->len += n;
    return FE_FBB_OK;
}

/* Pads with zeros until len + extra is a multiple of align. */
static int out_pad(fbb_out *o, size_t align, size_t extra)
{
    uint32_t at;
    return out_take(o, (align - (o->len + extra) % align) % align, &at);
}

static void out_u16(fbb_out *o, uint32_t at, uint16_t v) { store_le(o->p + at, v, 2); }
static void out_u32(fbb_out *o, uint32_t at, uint32_t v) { store_le(o->p + at, v, 4); }

/* Makes the uoffset at `at` point forward at target. */
static void out_patch(fbb_out *o, uint32_t at, uint32_t target)
{
    out_u32(o, at, target - at);
}

static size_t field_inline_size(const fbb_field *f)
{
    if (f->kind == K_SCALAR)
        return f->size;
    return f->kind == K_STRUCT ? f->count : 4;
}

/* Gives each field its slot (larger alignments first, so padding is rare); *len: the table's
 * inline bytes, *align: its alignment. */
static int table_plan(fe_fbt *t, uint16_t *len, size_t *align)
{
    size_t off = 4;
    *align = 4;
    for (size_t a = 16; a >= 1; a /= 2) {
        for (fbb_field *f = t->first; f != NULL; f = f->next) {
            if (f->align != a)
                continue;
            off = (off + a - 1) / a * a;
            if (off + field_inline_size(f) > 0xffff)
                return fbb_fail(t->b, FE_FBB_ETOOBIG);
            f->slot = (uint16_t)off;
            off += field_inline_size(f);
            *align = a > *align ? a : *align;
        }
    }
    *len = (uint16_t)off;
    return FE_FBB_OK;
}

static uint16_t vtable_size(const fe_fbt *t)
{
    int max_id = -1;
    for (const fbb_field *f = t->first; f != NULL; f = f->next)
        max_id = f->id > max_id ? f->id : max_id;
    return (uint16_t)(4 + 2 * (max_id + 1));
}

/* Writes the vtable at vt and the table's inline part at tp. */
static void write_table(fbb_out *o, const fe_fbt *t, uint32_t vt, uint32_t tp, uint16_t len)
{
    out_u16(o, vt, vtable_size(t));
    out_u16(o, vt + 2, len);
    out_u32(o, tp, tp - vt);
    for (const fbb_field *f = t->first; f != NULL; f = f->next) {
        out_u16(o, vt + 4 + 2u * f->id, f->slot);
        if (f->kind == K_SCALAR)
            memcpy(o->p + tp + f->slot, f->u.imm, f->size);
        else if (f->kind == K_STRUCT)
            memcpy(o->p + tp + f->slot, f->u.bytes, f->count);
    }
}

static int emit_table(fbb_out *o, fe_fbt *t, unsigned depth, uint32_t *pos);

static int emit_string(fbb_out *o, const fbb_str *s, uint32_t *pos)
{
    int r = out_pad(o, 4, 0);
    if (r == FE_FBB_OK)
        r = out_take(o, 4 + (size_t)s->len + 1, pos);
    if (r != FE_FBB_OK)
        return r;
    out_u32(o, *pos, s->len);
    if (s->len > 0)
        memcpy(o->p + *pos + 4, s->s, s->len);
    return FE_FBB_OK;
}

/* Length prefix placed so that the elements are aligned to their size (at least 4). */
static int emit_vec_scalars(fbb_out *o, const fbb_field *f, uint32_t *pos)
{
    size_t bytes = (size_t)f->count * f->size;
    int r = out_pad(o, f->size > 4 ? f->size : 4, 4);
    if (r == FE_FBB_OK)
        r = out_take(o, 4 + bytes, pos);
    if (r != FE_FBB_OK)
        return r;
    out_u32(o, *pos, f->count);
    if (bytes > 0)
        memcpy(o->p + *pos + 4, f->u.bytes, bytes);
    return FE_FBB_OK;
}

/* A vector of offsets: the slots first, then each target, patched as it lands. */
static int emit_vec_offsets(fbb_out *o, const fbb_field *f, unsigned depth, uint32_t *pos)
{
    int r = out_pad(o, 4, 0);
    if (r == FE_FBB_OK)
        r = out_take(o, 4 + 4 * (size_t)f->count, pos);
    if (r != FE_FBB_OK)
        return r;
    out_u32(o, *pos, f->count);
    for (uint32_t i = 0; r == FE_FBB_OK && i < f->count; i++) {
        uint32_t target;
        if (f->kind == K_VEC_TABLES)
            r = emit_table(o, f->u.children[i], depth + 1, &target);
        else
            r = emit_string(o, &f->u.strs[i], &target);
        if (r == FE_FBB_OK)
            out_patch(o, *pos + 4 + 4 * i, target);
    }
    return r;
}

/* Writes an out-of-line struct (a union value) aligned to its alignment. */
static int emit_ool_struct(fbb_out *o, const fbb_field *f, uint32_t *pos)
{
    int r = out_pad(o, f->size, 0);
    if (r == FE_FBB_OK)
        r = out_take(o, f->count, pos);
    if (r == FE_FBB_OK)
        memcpy(o->p + *pos, f->u.bytes, f->count);
    return r;
}

/* Writes what offset field f points at and patches the field's slot at `at`. */
static int emit_child(fbb_out *o, const fbb_field *f, uint32_t at, unsigned depth)
{
    uint32_t target = 0;
    int r;
    switch (f->kind) {
    case K_STRING: r = emit_string(o, &f->u.str, &target); break;
    case K_TABLE: r = emit_table(o, f->u.child, depth + 1, &target); break;
    case K_VEC_SCALARS: r = emit_vec_scalars(o, f, &target); break;
    case K_OOL_STRUCT: r = emit_ool_struct(o, f, &target); break;
    case K_VEC_TABLES:
    case K_VEC_STRINGS: r = emit_vec_offsets(o, f, depth, &target); break;
    default: return FE_FBB_OK; /* inline: already written */
    }
    if (r == FE_FBB_OK)
        out_patch(o, at, target);
    return r;
}

/* Writes t (vtable, then table) at `depth` below the root, then its children. */
static int emit_table(fbb_out *o, fe_fbt *t, unsigned depth, uint32_t *pos)
{
    uint16_t len;
    size_t align;
    uint32_t vt;
    if (depth > FE_FB_MAX_DEPTH)
        return fbb_fail(o->b, FE_FBB_EINVAL);
    int r = table_plan(t, &len, &align);
    if (r == FE_FBB_OK)
        r = out_pad(o, 2, 0);
    if (r == FE_FBB_OK)
        r = out_take(o, vtable_size(t), &vt);
    if (r == FE_FBB_OK)
        r = out_pad(o, align, 0);
    if (r == FE_FBB_OK)
        r = out_take(o, len, pos);
    if (r != FE_FBB_OK)
        return r;
    write_table(o, t, vt, *pos, len);
    for (const fbb_field *f = t->first; r == FE_FBB_OK && f != NULL; f = f->next)
        r = emit_child(o, f, *pos + f->slot, depth);
    return r;
}

int fe_fbb_finish(fe_fbb *b, fe_fbt *root, const char ident[4], uint8_t **out,
                  size_t *out_len)
{
    fbb_out o = {b, NULL, 0, 0};
    uint32_t hdr, root_pos;
    if (out != NULL)
        *out = NULL;
    if (out_len != NULL)
        *out_len = 0;
    if (b == NULL)
        return FE_FBB_EINVAL;
    if (root == NULL || out == NULL || out_len == NULL || root->b != b || root->attached)
        fbb_fail(b, FE_FBB_EINVAL);
    if (b->err != FE_FBB_OK)
        return b->err;
    int r = out_take(&o, ident != NULL ? 8 : 4, &hdr);
    if (r == FE_FBB_OK && ident != NULL)
        memcpy(o.p + 4, ident, 4);
    if (r == FE_FBB_OK)
        r = emit_table(&o, root, 0, &root_pos);
    if (r != FE_FBB_OK) {
        free(o.p);
        return r;
    }
    out_u32(&o, hdr, root_pos);
    *out = o.p;
    *out_len = o.len;
    return FE_FBB_OK;
}
