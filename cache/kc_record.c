/* kc_record.c — the on-disk records: encoding, and the checks every read runs.
 *
 * Owns the two record layouts (format KC_FORMAT_VERSION = 2; integers little-endian) and
 * the key helpers. Knows nothing of LMDB: a record is bytes stored under a key.
 *
 * Kernel record (table "kernels", key = the 16-byte kernel key):
 *   off  size  field
 *     0     4  magic "HDKK"
 *     4     2  format version
 *     6     2  reserved, 0
 *     8    16  kernel key (must equal the LMDB key)
 *    24     8  created (unix seconds)
 *    32     8  code size (must equal record length - H)
 *    40     8  XXH64 of the code
 *    48     8  header checksum: XXH64 of bytes [56, H) seeded with XXH64 of bytes [0, 48)
 *    56     2  arch length          58  2  compiler id length
 *    60     2  compiler version len 62  2  entry name length
 *    64     4  launch metadata length
 *    68     4  header size H (a multiple of 16; the code starts at H). Version 1 kept H in 16
 *              bits at offset 6, which metadata carrying a kernel's source (an attention
 *              backward's is ~70 KB) overflowed: every such record failed its checks.
 *    72        arch, compiler id, compiler version, entry: each followed by a NUL;
 *              the metadata; zero padding up to H
 *     H        the code object
 *
 * Plan record (table "plans", key = XXH3-128 of graph key, engine id and knob values):
 *     0     4  magic "HDKP"
 *     4     2  format version
 *     6     2  reserved, 0
 *     8    16  plan key (must equal the LMDB key)
 *    24     8  created
 *    32     4  knob count k          36  4  kernel count n
 *    40     8  recipe length r
 *    48     8  checksum: XXH64 of bytes [56, end) seeded with XXH64 of bytes [0, 48)
 *    56    16  graph key
 *    72     8  engine id
 *    80    8k  knob values (int64)
 *            16n kernel keys, then the r recipe bytes; the record ends there.
 *
 * Last-used times are not in the records: they live in their own table (kc_space.c) so that
 * recording a use rewrites 8 bytes, not a code object.
 */
#include <string.h>
#include <xxhash.h>

#include "cache/kc_int.h"

#define K_MAGIC "HDKK"
#define P_MAGIC "HDKP"
#define K_FIXED 72
#define P_FIXED 80

void kc__put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

void kc__put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void kc__put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

uint16_t kc__get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

uint32_t kc__get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t kc__get64(const uint8_t *p)
{
    return (uint64_t)kc__get32(p) | (uint64_t)kc__get32(p + 4) << 32;
}

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* XXH64 of [56, end) seeded with XXH64 of [0, 48): everything but the checksum field. */
static uint64_t sum_around(const uint8_t *d, size_t end)
{
    return XXH64(d + 56, end - 56, XXH64(d, 48, 0));
}

const char *kc__table_name(kc_table t)
{
    return t == KC_TABLE_KERNEL ? "kernel" : t == KC_TABLE_PLAN ? "plan" : "unknown";
}

/* ---- kernels ------------------------------------------------------------------------------- */

static hipdnnStatus_t check_str(const char *what, const char *s, size_t max, bool may_be_empty)
{
    if (s == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kernel cache: the kernel's %s is NULL", what);
    size_t n = strnlen(s, max + 1);
    if (n > max)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache: the kernel's %s is longer than %zu bytes",
                         what, max);
    if (n == 0 && !may_be_empty)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache: the kernel's %s is empty", what);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t check_kernel(const kc_kernel *k)
{
    hipdnnStatus_t st;
    if ((st = check_str("arch", k->arch, KC_MAX_ARCH, false)) != HIPDNN_STATUS_SUCCESS ||
        (st = check_str("compiler id", k->compiler, KC_MAX_COMPILER, false)) != HIPDNN_STATUS_SUCCESS ||
        (st = check_str("compiler version", k->compiler_version, KC_MAX_COMPILER, true)) !=
            HIPDNN_STATUS_SUCCESS ||
        (st = check_str("entry name", k->entry, KC_MAX_ENTRY, false)) != HIPDNN_STATUS_SUCCESS)
        return st;
    if (k->meta_size > KC_MAX_META)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache: launch metadata of %zu bytes (limit %u)",
                         k->meta_size, KC_MAX_META);
    if ((k->meta == NULL && k->meta_size > 0) || k->code == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kernel cache: the kernel's %s is NULL",
                         k->code == NULL ? "code" : "metadata");
    if (k->code_size == 0 || k->code_size > SIZE_MAX / 2)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "kernel cache: code object of %zu bytes", k->code_size);
    return HIPDNN_STATUS_SUCCESS;
}

static uint8_t *put_str(uint8_t *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    p[n] = 0;
    return p + n + 1;
}

hipdnnStatus_t kc__kernel_encode(const kc_kernel *k, int64_t created, uint8_t **out, size_t *len)
{
    hipdnnStatus_t st = check_kernel(k);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    size_t la = strlen(k->arch), lc = strlen(k->compiler), lv = strlen(k->compiler_version);
    size_t le = strlen(k->entry);
    size_t h = align16(K_FIXED + la + lc + lv + le + 4 + k->meta_size);
    uint8_t *d = base_calloc(1, h + k->code_size);
    if (d == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel cache: no memory for a %zu-byte record",
                         h + k->code_size);
    memcpy(d, K_MAGIC, 4);
    kc__put16(d + 4, KC_FORMAT_VERSION);
    memcpy(d + 8, k->key.b, KC_KEY_SIZE);
    kc__put64(d + 24, (uint64_t)created);
    kc__put64(d + 32, k->code_size);
    kc__put64(d + 40, XXH64(k->code, k->code_size, 0));
    kc__put16(d + 56, (uint16_t)la);
    kc__put16(d + 58, (uint16_t)lc);
    kc__put16(d + 60, (uint16_t)lv);
    kc__put16(d + 62, (uint16_t)le);
    kc__put32(d + 64, (uint32_t)k->meta_size);
    kc__put32(d + 68, (uint32_t)h);
    uint8_t *p = put_str(d + K_FIXED, k->arch, la);
    p = put_str(p, k->compiler, lc);
    p = put_str(p, k->compiler_version, lv);
    p = put_str(p, k->entry, le);
    if (k->meta_size > 0)
        memcpy(p, k->meta, k->meta_size);
    memcpy(d + h, k->code, k->code_size);
    kc__put64(d + 48, sum_around(d, h));
    *out = d;
    *len = h + k->code_size;
    return HIPDNN_STATUS_SUCCESS;
}

/* A NUL-terminated string of exactly n bytes at *p; advances *p. */
static bool take_str(const uint8_t **p, size_t n, const char **s)
{
    if ((*p)[n] != 0 || memchr(*p, 0, n) != NULL)
        return false;
    *s = (const char *)*p;
    *p += n + 1;
    return true;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

/* Fixed-part checks shared by the record kinds. */
static const char *check_head(const uint8_t *d, size_t len, size_t fixed, const char *magic,
                              const kc_key *key)
{
    if (len < fixed)
        return "shorter than a record header";
    if (memcmp(d, magic, 4) != 0)
        return memcmp(d, magic[3] == 'K' ? P_MAGIC : K_MAGIC, 4) == 0 ? "a record of the other table"
                                                                     : "bad magic";
    if (kc__get16(d + 4) != KC_FORMAT_VERSION)
        return "another format version";
    if (key != NULL && memcmp(d + 8, key->b, KC_KEY_SIZE) != 0)
        return "stored key does not match";
    return NULL;
}

static const char *kernel_lengths(const uint8_t *d, size_t len, size_t *h)
{
    *h = kc__get32(d + 68);
    size_t la = kc__get16(d + 56), lc = kc__get16(d + 58), lv = kc__get16(d + 60);
    size_t le = kc__get16(d + 62), lm = kc__get32(d + 64);
    if (la == 0 || la > KC_MAX_ARCH || lc == 0 || lc > KC_MAX_COMPILER || lv > KC_MAX_COMPILER ||
        le == 0 || le > KC_MAX_ENTRY || lm > KC_MAX_META || kc__get16(d + 6) != 0)
        return "bad header field";
    if (*h % 16 != 0 || *h != align16(K_FIXED + la + lc + lv + le + 4 + lm))
        return "header size does not match its fields";
    if (*h > len || kc__get64(d + 32) != len - *h)
        return "code size does not match the record length";
    return NULL;
}

const char *kc__kernel_check(const uint8_t *d, size_t len, const kc_key *key, bool hash_code,
                             kc_kernel *view)
{
    const char *why = check_head(d, len, K_FIXED, K_MAGIC, key);
    size_t h = 0;
    if (why == NULL)
        why = kernel_lengths(d, len, &h);
    if (why != NULL)
        return why;
    kc_kernel k = {0};
    const uint8_t *p = d + K_FIXED;
    if (!take_str(&p, kc__get16(d + 56), &k.arch) || !take_str(&p, kc__get16(d + 58), &k.compiler) ||
        !take_str(&p, kc__get16(d + 60), &k.compiler_version) || !take_str(&p, kc__get16(d + 62), &k.entry))
        return "bad string in the header";
    k.meta_size = kc__get32(d + 64);
    k.meta = p;
    if (!all_zero(p + k.meta_size, (size_t)(d + h - p) - k.meta_size))
        return "nonzero header padding";
    if (kc__get64(d + 48) != sum_around(d, h))
        return "header checksum mismatch";
    if (hash_code && kc__get64(d + 40) != XXH64(d + h, len - h, 0))
        return "code checksum mismatch";
    if (view != NULL) {
        memcpy(k.key.b, d + 8, KC_KEY_SIZE);
        k.code = d + h;
        k.code_size = len - h;
        k.created = (int64_t)kc__get64(d + 24);
        *view = k;
    }
    return NULL;
}

/* ---- plans --------------------------------------------------------------------------------- */

static size_t raw_key_size(const kc_plan_key *pk) { return KC_KEY_SIZE + 8 + 8 * pk->n_knobs; }

/* graph key, engine id, knob values: the bytes the plan key hashes and the record stores. */
static void raw_key(const kc_plan_key *pk, uint8_t *out)
{
    memcpy(out, pk->graph.b, KC_KEY_SIZE);
    kc__put64(out + KC_KEY_SIZE, (uint64_t)pk->engine_id);
    for (size_t i = 0; i < pk->n_knobs; i++)
        kc__put64(out + KC_KEY_SIZE + 8 + 8 * i, (uint64_t)pk->knobs[i]);
}

void kc_plan_key_hash(const kc_plan_key *pk, kc_key *out)
{
    uint8_t raw[KC_KEY_SIZE + 8 + 8 * KC_MAX_KNOBS];
    size_t n = pk->n_knobs <= KC_MAX_KNOBS ? pk->n_knobs : KC_MAX_KNOBS;
    kc_plan_key clipped = *pk;
    clipped.n_knobs = n;
    raw_key(&clipped, raw);
    XXH128_canonical_t can;
    XXH128_canonicalFromHash(&can, XXH3_128bits(raw, raw_key_size(&clipped)));
    memcpy(out->b, can.digest, KC_KEY_SIZE);
}

static hipdnnStatus_t check_plan(const kc_plan_key *pk, const kc_plan *p)
{
    if ((pk->knobs == NULL && pk->n_knobs > 0) || (p->kernels == NULL && p->n_kernels > 0) ||
        (p->recipe == NULL && p->recipe_size > 0))
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "kernel cache: a plan's %s is NULL",
                         pk->knobs == NULL && pk->n_knobs > 0 ? "knob vector"
                         : p->recipe == NULL && p->recipe_size > 0 ? "recipe" : "kernel list");
    if (pk->n_knobs > KC_MAX_KNOBS || p->n_kernels > KC_MAX_PLAN_KERNELS || p->recipe_size > KC_MAX_RECIPE)
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "kernel cache: a plan of %zu knobs, %zu kernels, a %zu-byte recipe (limits %d, %d, %u)",
                         pk->n_knobs, p->n_kernels, p->recipe_size, KC_MAX_KNOBS, KC_MAX_PLAN_KERNELS,
                         KC_MAX_RECIPE);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t kc__plan_encode(const kc_plan_key *pk, const kc_plan *p, int64_t created, uint8_t **out,
                               size_t *len)
{
    hipdnnStatus_t st = check_plan(pk, p);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    size_t n = P_FIXED + 8 * pk->n_knobs + KC_KEY_SIZE * p->n_kernels + p->recipe_size;
    uint8_t *d = base_calloc(1, n);
    if (d == NULL)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "kernel cache: no memory for a %zu-byte plan record", n);
    kc_key key;
    kc_plan_key_hash(pk, &key);
    memcpy(d, P_MAGIC, 4);
    kc__put16(d + 4, KC_FORMAT_VERSION);
    memcpy(d + 8, key.b, KC_KEY_SIZE);
    kc__put64(d + 24, (uint64_t)created);
    kc__put32(d + 32, (uint32_t)pk->n_knobs);
    kc__put32(d + 36, (uint32_t)p->n_kernels);
    kc__put64(d + 40, p->recipe_size);
    raw_key(pk, d + 56);
    uint8_t *q = d + P_FIXED + 8 * pk->n_knobs;
    if (p->n_kernels > 0)
        memcpy(q, p->kernels, KC_KEY_SIZE * p->n_kernels);
    if (p->recipe_size > 0)
        memcpy(q + KC_KEY_SIZE * p->n_kernels, p->recipe, p->recipe_size);
    kc__put64(d + 48, sum_around(d, n));
    *out = d;
    *len = n;
    return HIPDNN_STATUS_SUCCESS;
}

static bool same_plan_key(const uint8_t *d, const kc_plan_key *pk)
{
    if (kc__get32(d + 32) != pk->n_knobs || memcmp(d + 56, pk->graph.b, KC_KEY_SIZE) != 0 ||
        (int64_t)kc__get64(d + 72) != pk->engine_id)
        return false;
    for (size_t i = 0; i < pk->n_knobs; i++)
        if ((int64_t)kc__get64(d + P_FIXED + 8 * i) != pk->knobs[i])
            return false;
    return true;
}

const char *kc__plan_check(const uint8_t *d, size_t len, const kc_key *key, const kc_plan_key *pk,
                           kc_plan *view)
{
    const char *why = check_head(d, len, P_FIXED, P_MAGIC, key);
    if (why != NULL)
        return why;
    uint64_t nk = kc__get32(d + 32), n = kc__get32(d + 36), r = kc__get64(d + 40);
    if (kc__get16(d + 6) != 0 || nk > KC_MAX_KNOBS || n > KC_MAX_PLAN_KERNELS || r > KC_MAX_RECIPE)
        return "bad header field";
    if (len != P_FIXED + 8 * nk + KC_KEY_SIZE * n + r)
        return "lengths do not match the record length";
    if (kc__get64(d + 48) != sum_around(d, len))
        return "checksum mismatch";
    kc_key rehash;
    kc_plan_key stored = {.engine_id = (int64_t)kc__get64(d + 72), .n_knobs = (size_t)nk};
    int64_t knobs[KC_MAX_KNOBS];
    memcpy(stored.graph.b, d + 56, KC_KEY_SIZE);
    for (size_t i = 0; i < nk; i++)
        knobs[i] = (int64_t)kc__get64(d + P_FIXED + 8 * i);
    stored.knobs = knobs;
    kc_plan_key_hash(&stored, &rehash);
    if (memcmp(rehash.b, d + 8, KC_KEY_SIZE) != 0)
        return "stored plan key does not hash to the record key";
    if (pk != NULL && !same_plan_key(d, pk))
        return "stored plan key does not match";
    if (view != NULL) {
        const uint8_t *q = d + P_FIXED + 8 * nk;
        *view = (kc_plan){.kernels = (const kc_key *)q, .n_kernels = (size_t)n,
                          .recipe = q + KC_KEY_SIZE * n, .recipe_size = (size_t)r,
                          .created = (int64_t)kc__get64(d + 24)};
    }
    return NULL;
}

void kc__plan_key_of(const uint8_t *d, kc_plan_key *pk, int64_t *knobs)
{
    *pk = (kc_plan_key){.engine_id = (int64_t)kc__get64(d + 72), .knobs = knobs, .n_knobs = kc__get32(d + 32)};
    memcpy(pk->graph.b, d + 56, KC_KEY_SIZE);
    for (size_t i = 0; i < pk->n_knobs; i++)
        knobs[i] = (int64_t)kc__get64(d + P_FIXED + 8 * i);
}

const char *kc__rec_check(kc_table t, const uint8_t *d, size_t len, const kc_key *key)
{
    if (t == KC_TABLE_KERNEL)
        return kc__kernel_check(d, len, key, true, NULL);
    if (t == KC_TABLE_PLAN)
        return kc__plan_check(d, len, key, NULL, NULL);
    return "unknown table";
}

/* ---- keys ------------------------------------------------------------------------------------ */

void kc_key_hex(const kc_key *key, char out[2 * KC_KEY_SIZE + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < KC_KEY_SIZE; i++) {
        out[2 * i] = digits[key->b[i] >> 4];
        out[2 * i + 1] = digits[key->b[i] & 15];
    }
    out[2 * KC_KEY_SIZE] = '\0';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool kc_key_parse(const char *hex, kc_key *out)
{
    if (hex == NULL || strlen(hex) != 2 * KC_KEY_SIZE)
        return false;
    kc_key k;
    for (int i = 0; i < KC_KEY_SIZE; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        k.b[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = k;
    return true;
}
