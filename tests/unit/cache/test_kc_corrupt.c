/* test_kc_corrupt.c — a damaged record is never returned: it is a miss, counted and logged,
 * kc_verify reports it, kc_verify(fix) deletes it, and a new put (the recompile) replaces it.
 *
 * Owns: records damaged through LMDB directly, one way each — a flipped code byte, a
 * truncated record, random garbage, a wrong magic, another format version, another key's
 * record, a wrong code size field, a flipped header byte (entry name), a nonzero reserved field, a plan with a flipped
 * recipe byte, a kernel record stored as a plan, a key of the wrong length, and a stray
 * last-used entry — beside untouched records that must keep working.
 */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "kt_util.h"

#define CODE 5000
#define N 12

static char *dir;

static void setup(void) { dir = kt_tmpdir(); }
static void teardown(void) { kt_rmrf(dir); }

TestSuite(kc_corrupt, .init = setup, .fini = teardown);

static uint8_t *raw_kernel(uint64_t id, size_t *len)
{
    kc_key k;
    kt_key(id, &k);
    uint8_t *v = kt_raw_get(dir, "kernels", k.b, KC_KEY_SIZE, len);
    cr_assert_not_null(v, "kernel %llu is stored", (unsigned long long)id);
    return v;
}

static void raw_put_kernel(uint64_t id, const uint8_t *v, size_t len)
{
    kc_key k;
    kt_key(id, &k);
    kt_raw_put(dir, "kernels", k.b, KC_KEY_SIZE, v, len);
}

static kc_plan_key plan_key(int64_t *knobs)
{
    kc_plan_key pk = {.engine_id = 4, .knobs = knobs, .n_knobs = 2};
    memset(pk.graph.b, 0x42, KC_KEY_SIZE);
    return pk;
}

static uint8_t *find(uint8_t *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0)
            return hay + i;
    return NULL;
}

/* Damages kernels 1..9 one way each and the plan, and adds stray records. */
static void damage(kc_key *plan_lmdb_key)
{
    size_t len;
    uint8_t *v = raw_kernel(1, &len);
    v[len - 1 - (size_t)tu_range(0, CODE - 1)] ^= (uint8_t)tu_range(1, 255); /* a code byte */
    raw_put_kernel(1, v, len);
    free(v);
    v = raw_kernel(2, &len);
    raw_put_kernel(2, v, len - (size_t)tu_range(1, len - 1)); /* truncated */
    free(v);
    uint8_t garbage[4000];
    tu_bytes(garbage, sizeof garbage);
    raw_put_kernel(3, garbage, sizeof garbage);
    v = raw_kernel(4, &len);
    v[0] ^= 0xff; /* magic */
    raw_put_kernel(4, v, len);
    free(v);
    v = raw_kernel(5, &len);
    v[4] = KC_FORMAT_VERSION + 1; /* another format version */
    raw_put_kernel(5, v, len);
    free(v);
    v = raw_kernel(7, &len);
    raw_put_kernel(6, v, len); /* kernel 7's record under kernel 6's key */
    v[32] += 1;                /* kernel 7's code size field */
    raw_put_kernel(7, v, len);
    free(v);
    v = raw_kernel(8, &len);
    uint8_t *e = find(v, len, "kt_kernel_8");
    cr_assert_not_null(e);
    e[3] = 'K'; /* the entry name */
    raw_put_kernel(8, v, len);
    free(v);
    v = raw_kernel(9, &len);
    v[68] = 1; /* a reserved header field */
    raw_put_kernel(9, v, len);
    free(v);

    v = kt_raw_get(dir, "plans", plan_lmdb_key->b, KC_KEY_SIZE, &len);
    cr_assert_not_null(v);
    v[len - 1] ^= 0x01; /* the recipe's last byte */
    kt_raw_put(dir, "plans", plan_lmdb_key->b, KC_KEY_SIZE, v, len);
    free(v);
    kc_key stray;
    kt_key(1000, &stray);
    v = raw_kernel(10, &len);
    kt_raw_put(dir, "plans", stray.b, KC_KEY_SIZE, v, len); /* a kernel record in the plan table */
    kt_raw_put(dir, "kernels", stray.b, 15, v, len);        /* a 15-byte key */
    free(v);
    uint8_t at[17] = {KC_TABLE_KERNEL}, when[8] = {1};
    kt_key(2000, (kc_key *)(at + 1));
    kt_raw_put(dir, "last_used", at, sizeof at, when, sizeof when); /* a time without a record */
}

static bool listed(const kc_bad *bad, size_t n, kc_table t, const kc_key *key, const char **why)
{
    for (size_t i = 0; i < n; i++)
        if (bad[i].table == t && memcmp(bad[i].key.b, key->b, KC_KEY_SIZE) == 0) {
            *why = bad[i].reason;
            return true;
        }
    return false;
}

Test(kc_corrupt, damaged_records_miss_verify_reports_fix_removes)
{
    tu_seed("kc_corrupt/damaged_records_miss_verify_reports_fix_removes");
    int64_t knobs[2] = {3, 1};
    kc_plan_key pk = plan_key(knobs);
    uint8_t recipe[64];
    tu_bytes(recipe, sizeof recipe);
    kc_key pkey;
    kc_plan_key_hash(&pk, &pkey);
    kc_cache *c = kt_open(dir, 0, 0);
    for (uint64_t i = 0; i < N; i++)
        kt_put(c, i, CODE);
    kc_plan plan = {.recipe = recipe, .recipe_size = sizeof recipe};
    TU_OK(kc_put_plan(c, &pk, &plan));
    kc_close(c);

    damage(&pkey);

    c = kt_open(dir, 0, 0);
    for (uint64_t i = 0; i < N; i++) {
        bool damaged = i >= 1 && i <= 9;
        cr_expect_eq(kt_get(c, i, CODE), damaged ? 0 : 1, "kernel %llu (%s)", (unsigned long long)i,
                     damaged ? "damaged: a miss" : "intact: a hit");
    }
    kc_plan got;
    cr_expect_not(kc_get_plan(c, &pk, &got), "the damaged plan is a miss");
    kc_stats s;
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.corrupt, 10, "9 kernels + 1 plan counted corrupt, got %llu", (unsigned long long)s.corrupt);

    kc_bad *bad;
    size_t n;
    TU_OK(kc_verify(c, false, &bad, &n));
    cr_expect_eq(n, 12, "verify reports 9 kernels, the plan, the stray plan and the short key; got %zu", n);
    for (uint64_t i = 1; i <= 9; i++) {
        kc_key k;
        const char *why = "";
        kt_key(i, &k);
        cr_expect(listed(bad, n, KC_TABLE_KERNEL, &k, &why), "kernel %llu reported", (unsigned long long)i);
        cr_log_info("kernel %llu: %s", (unsigned long long)i, why);
    }
    const char *why = "";
    cr_expect(listed(bad, n, KC_TABLE_PLAN, &pkey, &why), "the plan reported");
    kc_key stray;
    kt_key(1000, &stray);
    cr_expect(listed(bad, n, KC_TABLE_PLAN, &stray, &why) && strstr(why, "other table") != NULL,
              "a kernel record in the plan table: %s", why);
    kc_key k6;
    kt_key(6, &k6);
    cr_expect(listed(bad, n, KC_TABLE_KERNEL, &k6, &why) && strstr(why, "key") != NULL, "kernel 6: %s", why);
    base_free(bad);

    TU_OK(kc_verify(c, true, &bad, &n));
    cr_expect_eq(n, 12, "fix reports what it deletes");
    base_free(bad);
    kt_expect_clean(c, "after fix");
    TU_OK(kc_get_stats(c, &s));
    cr_expect_eq(s.kernels, N - 9, "only intact kernels remain");
    cr_expect_eq(s.plans, 0);
    size_t len;
    uint8_t at[17] = {KC_TABLE_KERNEL};
    kt_key(2000, (kc_key *)(at + 1));
    kc_close(c);
    uint8_t *v = kt_raw_get(dir, "last_used", at, sizeof at, &len);
    cr_expect_null(v, "the stray last-used entry is gone");
    free(v);

    c = kt_open(dir, 0, 0);
    for (uint64_t i = 1; i <= 9; i++) { /* the engine recompiles and overwrites */
        cr_expect_eq(kt_get(c, i, CODE), 0);
        kt_put(c, i, CODE);
        cr_expect_eq(kt_get(c, i, CODE), 1, "kernel %llu after the recompile", (unsigned long long)i);
    }
    TU_OK(kc_put_plan(c, &pk, &plan));
    cr_expect(kc_get_plan(c, &pk, &got));
    kc_plan_release(&got);
    kt_expect_clean(c, "after the recompile");
    kc_close(c);
}

Test(kc_corrupt, overwriting_a_corrupt_record_without_verify)
{
    tu_seed("kc_corrupt/overwriting_a_corrupt_record_without_verify");
    kc_cache *c = kt_open(dir, 0, 0);
    kt_put(c, 1, CODE);
    kc_close(c);
    size_t len;
    uint8_t *v = raw_kernel(1, &len);
    v[len / 2] ^= 0x80;
    raw_put_kernel(1, v, len);
    free(v);
    c = kt_open(dir, 0, 0);
    for (int round = 0; round < 3; round++)
        cr_expect_eq(kt_get(c, 1, CODE), 0, "a corrupt record is never returned (lookup %d)", round);
    kt_put(c, 1, CODE);
    cr_expect_eq(kt_get(c, 1, CODE), 1);
    kt_expect_clean(c, "after the overwrite");
    kc_close(c);
}
