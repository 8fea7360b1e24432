/* fe_fb.h — a small, safe FlatBuffers reader and builder: the frontend's contract with the
 * FlatBuffers wire format (hipDNN's serialized `Graph`, knob settings, the "HDGP" container).
 *
 * Owns: reading any byte string as a FlatBuffer without ever touching a byte outside it, and
 * writing a tree of tables as a buffer the official FlatBuffers Verifier accepts.
 * Does not own: any schema. Field ids, field types and defaults are the caller's
 * (serialize/fe_fb_graph.c knows hipDNN's schema); this module knows only the format.
 * Implementation: serialize/fe_fb.c. Tests: tests/unit/serialize/test_fe_fb*.c.
 *
 * The format (all integers little-endian; positions are byte offsets from the buffer start):
 *
 *   buffer   [u32 root uoffset][4-byte file identifier, optional] ... objects ...
 *   table    at T: [i32 soffset = T - V][inline fields ...]       (T 4-aligned)
 *   vtable   at V: [u16 vt_len][u16 tbl_len][u16 off(id 0)][u16 off(id 1)]...   (V 2-aligned)
 *            off == 0 or id beyond vt_len: field absent; else the field is at T + off
 *   scalar   inline, aligned to its size (1, 2, 4, 8)
 *   struct   inline, aligned to its largest member
 *   offset   string / vector / sub-table / union value: inline u32 u at P, target = P + u
 *            (1 <= u <= 2^31-1, so always forward; the reader refuses u == 0 like the
 *            official Verifier, which also makes cycles between objects impossible)
 *   vector   at L: [u32 len][len elements]   L 4-aligned, elements aligned to their size
 *            (vectors of tables or strings hold u32 offsets, each relative to itself)
 *   string   a vector of bytes followed by a NUL that the length does not count
 *   union    two fields: id N-1 the type (u8, 0 = NONE), id N the value (offset to a table)
 *
 * Reader: every accessor checks bounds and alignment of what it reads and answers with a
 * tri-state: FE_FB_OK (present and well-formed), FE_FB_ABSENT (not present; scalar outputs
 * get the caller's default), FE_FB_BAD (the bytes are malformed; outputs get the default or
 * are zeroed). A zeroed view (what a failed call leaves) answers FE_FB_BAD everywhere.
 * Compared with the official FlatBuffers Verifier (checked by differential fuzzing against
 * flatbuffers 2.0.8), the reader is stricter where no real producer differs: a vtable must
 * hold its 4-byte header, the table's inline size must be >= 4 and inside the buffer, every
 * field must lie inside its table, an offset of 0 is BAD everywhere (the Verifier lets it
 * pass inside vectors), and a union with a non-NONE type must have its value. It is laxer in
 * two harmless ways: struct fields are not alignment-checked (they are read bytewise), and a
 * NONE union's value field is never looked at.
 * Builder: an arena-backed tree of table nodes, serialized in one pass by fe_fbb_finish.
 * Every error is sticky: the first one is kept and returned by fe_fbb_finish, so callers may
 * build a whole tree and check once. Nothing here aborts or prints.
 */
#ifndef FE_FB_H
#define FE_FB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- limits ------------------------------------------------------------------------------ */

#define FE_FB_MAX_DEPTH 64             /* deepest table nesting read or written (root = 0) */
#define FE_FB_MAX_SIZE 0x7fffffffu     /* largest buffer, as for the official FlatBuffers */
#define FE_FB_MAX_FIELD_ID 32764u      /* largest field id whose vtable still fits a u16 */

/* ---- reader ------------------------------------------------------------------------------ */

/* Results of every reader call. */
enum { FE_FB_BAD = -1, FE_FB_ABSENT = 0, FE_FB_OK = 1 };

/* A view of one table inside a buffer. Filled by fe_fb_root / fe_fb_subtable /
 * fe_fb_union / fe_fb_vec_table, which have checked that [pos, pos+tbl_len) and
 * [vt, vt+vt_len) lie inside the buffer. */
typedef struct fe_fb_table {
    const uint8_t *buf; /* the whole buffer */
    size_t size;        /* its length in bytes */
    uint32_t pos;       /* table start (its soffset) */
    uint32_t vt;        /* vtable start */
    uint16_t vt_len;    /* vtable bytes */
    uint16_t tbl_len;   /* table inline bytes, soffset included */
    uint16_t depth;     /* 0 for the root, parent's + 1 below it; never > FE_FB_MAX_DEPTH */
} fe_fb_table;

/* A view of one vector. Only its 4-byte length and len >= 1-byte elements are known to fit
 * when it is handed out; element accessors check each element (or use fe_fb_vec_fits). */
typedef struct fe_fb_vec {
    const uint8_t *buf; /* the whole buffer */
    size_t size;        /* its length in bytes */
    uint32_t pos;       /* first element (the length sits at pos - 4) */
    uint32_t len;       /* element count */
    uint16_t depth;     /* depth of the table that holds the vector */
} fe_fb_vec;

/* The root table. Checks size >= 8 and <= FE_FB_MAX_SIZE, the root offset, and that the table
 * and its vtable are inside the buffer and aligned. Returns FE_FB_OK or FE_FB_BAD (also for
 * buf == NULL); *root is zeroed unless OK. */
int fe_fb_root(const uint8_t *buf, size_t size, fe_fb_table *root);

/* True when size >= 8 and bytes 4..7 equal the 4 characters of ident (e.g. "HDGP"). */
bool fe_fb_has_identifier(const uint8_t *buf, size_t size, const char ident[4]);

/* True when field `id` has a vtable entry that points inside the table (its contents are not
 * checked). Lets a reader tell two layouts of one table apart by the fields they use. */
bool fe_fb_present(const fe_fb_table *t, uint16_t id);

/* Scalar field `id` of table t. OK: *out = the stored value. ABSENT or BAD: *out = def.
 * BAD: the field lies (partly) outside the table or is not aligned to its size.
 * bool reads a u8; any non-zero byte is true. */
int fe_fb_u8(const fe_fb_table *t, uint16_t id, uint8_t def, uint8_t *out);
int fe_fb_i8(const fe_fb_table *t, uint16_t id, int8_t def, int8_t *out);
int fe_fb_bool(const fe_fb_table *t, uint16_t id, bool def, bool *out);
int fe_fb_u16(const fe_fb_table *t, uint16_t id, uint16_t def, uint16_t *out);
int fe_fb_i16(const fe_fb_table *t, uint16_t id, int16_t def, int16_t *out);
int fe_fb_u32(const fe_fb_table *t, uint16_t id, uint32_t def, uint32_t *out);
int fe_fb_i32(const fe_fb_table *t, uint16_t id, int32_t def, int32_t *out);
int fe_fb_u64(const fe_fb_table *t, uint16_t id, uint64_t def, uint64_t *out);
int fe_fb_i64(const fe_fb_table *t, uint16_t id, int64_t def, int64_t *out);
int fe_fb_f32(const fe_fb_table *t, uint16_t id, float def, float *out);
int fe_fb_f64(const fe_fb_table *t, uint16_t id, double def, double *out);

/* String field `id`. OK: *s points into the buffer at len bytes followed by a NUL (the bytes
 * may themselves hold NULs). BAD: offset, length or terminator out of bounds, or no NUL.
 * Not OK: *s = NULL, *len = 0. */
int fe_fb_string(const fe_fb_table *t, uint16_t id, const char **s, uint32_t *len);

/* Sub-table field `id`. BAD also when the child would be deeper than FE_FB_MAX_DEPTH.
 * Not OK: *out is zeroed. */
int fe_fb_subtable(const fe_fb_table *t, uint16_t id, fe_fb_table *out);

/* Union whose value is field `id` and whose type is field id - 1 (id must be >= 1).
 * ABSENT: type missing or 0 (NONE), value ignored. OK: *type != 0 and *out is the value
 * table. BAD: id == 0, a malformed type or value, or a non-NONE type without a value.
 * Not OK: *out is zeroed; *type is 0 unless it was read. */
int fe_fb_union(const fe_fb_table *t, uint16_t id, uint8_t *type, fe_fb_table *out);

/* Vector field `id`. OK: the length prefix is 4-aligned and in bounds and at least len bytes
 * follow it. Not OK: *out is zeroed. */
int fe_fb_vector(const fe_fb_table *t, uint16_t id, fe_fb_vec *out);

/* The value of a union whose members are structs (hipDNN's TensorValue): the field at id is an
 * offset to `size` struct bytes. The caller reads the type at id - 1 first; FE_FB_BAD when the
 * value is missing or does not fit. */
int fe_fb_union_struct(const fe_fb_table *t, uint16_t id, size_t size, const uint8_t **bytes);

/* Inline struct field `id` of `size` bytes (size >= 1). OK: *bytes points at them inside the
 * table; decode members with fe_fb_ld_*. Not OK: *bytes = NULL. */
int fe_fb_struct(const fe_fb_table *t, uint16_t id, size_t size, const uint8_t **bytes);

/* True when all v->len elements of elem_size bytes lie inside the buffer (overflow-checked). */
bool fe_fb_vec_fits(const fe_fb_vec *v, size_t elem_size);

/* Element i of a vector of elem_size-byte elements. Element accessors return FE_FB_OK or
 * FE_FB_BAD (i >= len, element out of bounds, malformed target); on BAD outputs are zeroed
 * (NULL pointers, 0 numbers, zeroed views). Element alignment is not required. */
int fe_fb_vec_elem(const fe_fb_vec *v, uint32_t i, size_t elem_size, const uint8_t **p);
int fe_fb_vec_u8(const fe_fb_vec *v, uint32_t i, uint8_t *out);
int fe_fb_vec_i32(const fe_fb_vec *v, uint32_t i, int32_t *out);
int fe_fb_vec_i64(const fe_fb_vec *v, uint32_t i, int64_t *out);
int fe_fb_vec_table(const fe_fb_vec *v, uint32_t i, fe_fb_table *out);
int fe_fb_vec_string(const fe_fb_vec *v, uint32_t i, const char **s, uint32_t *len);

/* Little-endian loads for struct members and vector elements (p must have n bytes). */
static inline uint16_t fe_fb_ld_u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t fe_fb_ld_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t fe_fb_ld_u64(const uint8_t *p)
{
    return (uint64_t)fe_fb_ld_u32(p) | (uint64_t)fe_fb_ld_u32(p + 4) << 32;
}
static inline int32_t fe_fb_ld_i32(const uint8_t *p)
{
    uint32_t u = fe_fb_ld_u32(p);
    int32_t v;
    memcpy(&v, &u, 4);
    return v;
}
static inline int64_t fe_fb_ld_i64(const uint8_t *p)
{
    uint64_t u = fe_fb_ld_u64(p);
    int64_t v;
    memcpy(&v, &u, 8);
    return v;
}
static inline float fe_fb_ld_f32(const uint8_t *p)
{
    uint32_t u = fe_fb_ld_u32(p);
    float v;
    memcpy(&v, &u, 4);
    return v;
}
static inline double fe_fb_ld_f64(const uint8_t *p)
{
    uint64_t u = fe_fb_ld_u64(p);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

/* ---- builder ----------------------------------------------------------------------------- */

/* Builder statuses (0 or negative). */
enum {
    FE_FBB_OK = 0,
    FE_FBB_ENOMEM = -1,  /* an allocation failed */
    FE_FBB_EINVAL = -2,  /* a bad argument: NULL, id > FE_FB_MAX_FIELD_ID, id set twice,
                            a node attached twice or to another builder, a cycle, too deep */
    FE_FBB_ETOOBIG = -3, /* a table over 64 KiB inline, or a buffer over FE_FB_MAX_SIZE */
};

typedef struct fe_fbb fe_fbb; /* the builder: owns an arena and every node in it */
typedef struct fe_fbt fe_fbt; /* a table node, owned by its builder */

/* A new, empty builder; NULL when out of memory. */
fe_fbb *fe_fbb_new(void);

/* Frees the builder and every node made by it (NULL is fine). Buffers from finish stay. */
void fe_fbb_free(fe_fbb *b);

/* The sticky status: FE_FBB_OK or the first error seen. */
int fe_fbb_status(const fe_fbb *b);

/* A readable name for a builder status. */
const char *fe_fbb_strerror(int status);

/* A new table node with no fields; NULL (and a sticky ENOMEM, or EINVAL for b == NULL). */
fe_fbt *fe_fbb_table(fe_fbb *b);

/* Field setters: record field `id` of table t. Values are copied; the builder writes exactly
 * what it is told (a value equal to the schema default is still written). Each returns
 * FE_FBB_OK or the error it also records in t's builder (t == NULL: EINVAL, nothing recorded).
 * Setting an id twice is EINVAL. A child node may be attached once, to a node of the same
 * builder; that keeps the nodes a tree. */
int fe_fbt_u8(fe_fbt *t, uint16_t id, uint8_t v);
int fe_fbt_i8(fe_fbt *t, uint16_t id, int8_t v);
int fe_fbt_bool(fe_fbt *t, uint16_t id, bool v);
int fe_fbt_u16(fe_fbt *t, uint16_t id, uint16_t v);
int fe_fbt_i16(fe_fbt *t, uint16_t id, int16_t v);
int fe_fbt_u32(fe_fbt *t, uint16_t id, uint32_t v);
int fe_fbt_i32(fe_fbt *t, uint16_t id, int32_t v);
int fe_fbt_u64(fe_fbt *t, uint16_t id, uint64_t v);
int fe_fbt_i64(fe_fbt *t, uint16_t id, int64_t v);
int fe_fbt_f32(fe_fbt *t, uint16_t id, float v);
int fe_fbt_f64(fe_fbt *t, uint16_t id, double v);

/* A string of len bytes (s may be NULL when len == 0); a NUL is appended when written. */
int fe_fbt_string(fe_fbt *t, uint16_t id, const char *s, size_t len);

/* A sub-table. */
int fe_fbt_table(fe_fbt *t, uint16_t id, fe_fbt *child);

/* A union: type (1..255) at id - 1 and the value table at id (id >= 1). */
int fe_fbt_union(fe_fbt *t, uint16_t id, uint8_t type, fe_fbt *value);

/* A union whose member is a struct: type at id - 1, and at id an offset to `size` bytes
 * written out of line, aligned to align (as FlatBuffers stores struct members of unions). */
int fe_fbt_union_struct(fe_fbt *t, uint16_t id, uint8_t type, size_t size, size_t align,
                        const void *bytes);

/* A vector of count scalars of elem_size bytes (1, 2, 4 or 8) in host byte order at data
 * (may be NULL when count == 0); written little-endian, elements aligned to elem_size. */
int fe_fbt_vec_scalars(fe_fbt *t, uint16_t id, size_t elem_size, size_t count,
                       const void *data);

/* A vector of count sub-tables (none may be NULL). */
int fe_fbt_vec_tables(fe_fbt *t, uint16_t id, size_t count, fe_fbt *const *children);

/* A vector of count NUL-terminated strings (none may be NULL). */
int fe_fbt_vec_strings(fe_fbt *t, uint16_t id, size_t count, const char *const *strs);

/* An inline struct: size bytes (1..65000) copied verbatim (the caller lays it out
 * little-endian with its padding), placed aligned to align (1, 2, 4, 8 or 16). */
int fe_fbt_struct(fe_fbt *t, uint16_t id, size_t size, size_t align, const void *bytes);

/* Serializes the tree under root into a new malloc'd buffer (the caller frees *out with
 * free()), with the 4-character file identifier ident unless it is NULL. The root must not be
 * attached to another node; nesting deeper than FE_FB_MAX_DEPTH is EINVAL. The tree is left
 * as it was, so finish may be called again. Returns FE_FBB_OK, or the sticky error (then
 * *out = NULL, *out_len = 0). */
int fe_fbb_finish(fe_fbb *b, fe_fbt *root, const char ident[4], uint8_t **out,
                  size_t *out_len);

/* Testing: make the (n+1)-th allocation from now fail (n = 0: the next one); n < 0 turns
 * injected failures off. Covers node, field, arena and output allocations. */
void fe_fbb_fail_alloc_after(fe_fbb *b, long n);

#endif /* FE_FB_H */
