/* test_fe_fb_interop.c — frontend/fe_fb against the official FlatBuffers compiler.
 *
 * Owns: (a) buffers built by fe_fbb, decoded to JSON by `flatc --json --raw-binary` and
 * checked value by value (jansson); (b) JSON encoded by `flatc -b` and read back with fe_fb.
 * The schema is fb_interop.fbs beside this file. flatc comes from PATH; without it every test
 * skips and the program exits 77, which ctest reports as skipped.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serialize/fe_fb.h"

#define SCHEMA HIPDNN_SOURCE_DIR "/tests/unit/serialize/fb_interop.fbs"

extern char **environ;

/* Field ids of fb_interop.fbs. */
enum { R_NAME, R_BIG, R_RATIO, R_FLAG, R_COLOR, R_LONGS, R_CHILDREN, R_PET_TYPE, R_PET, R_POS,
       R_TAGS };
enum { CHILD_NAME, CHILD_VALUE };
enum { PET_CAT = 1, PET_DOG = 2 };
enum { COLOR_RED, COLOR_GREEN, COLOR_BLUE };

/* ---- files and processes -------------------------------------------------------------------- */

static bool flatc_on_path(void)
{
    const char *path = getenv("PATH");
    char dir[4096], file[4200];
    while (path != NULL && *path != 0) {
        size_t n = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s", (int)n, path);
        snprintf(file, sizeof file, "%s/flatc", n > 0 ? dir : ".");
        if (access(file, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

static void need_flatc(void)
{
    if (!flatc_on_path())
        cr_skip_test("flatc is not on PATH (apt-get install flatbuffers-compiler)");
}

/* Runs flatc with args, output to DIR/flatc.log; returns its exit status. */
static int run_flatc(const char *dir, char *const args[])
{
    char log[4200];
    pid_t pid;
    int status = -1;
    posix_spawn_file_actions_t fa;
    snprintf(log, sizeof log, "%s/flatc.log", dir);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    int err = posix_spawnp(&pid, "flatc", &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    cr_assert_eq(err, 0, "posix_spawnp flatc: %s", strerror(err));
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* The whole file in a heap block of exactly its size. */
static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_gt(n, 0);
    rewind(f);
    uint8_t *buf = malloc((size_t)n);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void make_tmpdir(char dir[64])
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, 64, "%.40s/fe_fb_interop.XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp %s", dir);
}

/* Removes dir and the plain files in it. */
static void remove_tmpdir(const char *dir)
{
    char path[4200];
    DIR *d = opendir(dir);
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d != NULL)
        closedir(d);
    rmdir(dir);
}

/* ---- (a) fe_fbb -> flatc --json ------------------------------------------------------------- */

static uint8_t *vec3(uint8_t out[16], float x, float y, int64_t z)
{
    uint32_t ux, uy;
    uint64_t uz;
    memcpy(&ux, &x, 4), memcpy(&uy, &y, 4), memcpy(&uz, &z, 8);
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)(ux >> 8 * i), out[4 + i] = (uint8_t)(uy >> 8 * i);
    for (int i = 0; i < 8; i++)
        out[8 + i] = (uint8_t)(uz >> 8 * i);
    return out;
}

static const char NAME[] = "hipdnn \"jit\" \\ ünïcode";
static const int64_t LONGS[] = {-1, 0, 1, INT64_MAX, INT64_MIN};
static const char *const TAGS[] = {"x", "", "yz"};

static fe_fbt *child(fe_fbb *b, const char *name, int64_t value)
{
    fe_fbt *c = fe_fbb_table(b);
    if (name != NULL)
        fe_fbt_string(c, CHILD_NAME, name, strlen(name));
    fe_fbt_i64(c, CHILD_VALUE, value);
    return c;
}

/* The full Root: every field set. */
static fe_fbt *full_root(fe_fbb *b)
{
    uint8_t pos[16];
    fe_fbt *t = fe_fbb_table(b), *dog = fe_fbb_table(b);
    fe_fbt *kids[2] = {child(b, "a", 1), child(b, NULL, -2)};
    fe_fbt_string(t, R_NAME, NAME, strlen(NAME));
    fe_fbt_i64(t, R_BIG, 9007199254740993); /* 2^53 + 1: not a double */
    fe_fbt_f32(t, R_RATIO, 0.5f);
    fe_fbt_bool(t, R_FLAG, true);
    fe_fbt_i8(t, R_COLOR, COLOR_BLUE);
    fe_fbt_vec_scalars(t, R_LONGS, 8, 5, LONGS);
    fe_fbt_vec_tables(t, R_CHILDREN, 2, kids);
    fe_fbt_string(dog, 0, "rex", 3);
    fe_fbt_f64(dog, 1, 12.5);
    fe_fbt_union(t, R_PET, PET_DOG, dog);
    fe_fbt_struct(t, R_POS, 16, 8, vec3(pos, 1.5f, -2.25f, 3));
    fe_fbt_vec_strings(t, R_TAGS, 3, TAGS);
    return t;
}

/* A Root with defaults written explicitly and the optional ratio left out. */
static fe_fbt *min_root(fe_fbb *b)
{
    fe_fbt *t = fe_fbb_table(b);
    fe_fbt_i64(t, R_BIG, 0);
    fe_fbt_i8(t, R_COLOR, COLOR_RED);
    fe_fbt_bool(t, R_FLAG, false);
    return t;
}

/* Builds a root with make, runs it through flatc --json and returns the parsed JSON. */
static json_t *to_json(const char *dir, fe_fbt *(*make)(fe_fbb *), const char *stem)
{
    char bin[128], json[128];
    uint8_t *buf;
    size_t len;
    json_error_t err;
    fe_fbb *b = fe_fbb_new();
    cr_assert_eq(fe_fbb_finish(b, make(b), "FBIT", &buf, &len), FE_FBB_OK);
    fe_fbb_free(b);
    snprintf(bin, sizeof bin, "%s/%s.bin", dir, stem);
    snprintf(json, sizeof json, "%s/%s.json", dir, stem);
    write_file(bin, buf, len);
    free(buf);
    char *args[] = {"flatc", "--json", "--strict-json", "--raw-binary", "-o", (char *)dir,
                    SCHEMA, "--", bin, NULL};
    cr_assert_eq(run_flatc(dir, args), 0, "flatc --json failed (see %s/flatc.log)", dir);
    json_t *root = json_load_file(json, 0, &err);
    cr_assert_not_null(root, "%s:%d: %s", json, err.line, err.text);
    return root;
}

static json_t *get(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    cr_assert_not_null(v, "JSON lacks \"%s\"", key);
    return v;
}

static void want_str(json_t *obj, const char *key, const char *want)
{
    json_t *v = get(obj, key);
    cr_assert(json_is_string(v), "\"%s\" is not a string", key);
    cr_assert_str_eq(json_string_value(v), want, "\"%s\"", key);
}

static void want_int(json_t *obj, const char *key, json_int_t want)
{
    json_t *v = get(obj, key);
    cr_assert(json_is_integer(v), "\"%s\" is not an integer", key);
    cr_assert_eq(json_integer_value(v), want, "\"%s\": %lld", key,
                 (long long)json_integer_value(v));
}

static void want_num(json_t *obj, const char *key, double want)
{
    json_t *v = get(obj, key);
    cr_assert(json_is_number(v), "\"%s\" is not a number", key);
    cr_assert_eq(json_number_value(v), want, "\"%s\": %g", key, json_number_value(v));
}

static void check_full_json(json_t *j)
{
    want_str(j, "name", NAME);
    want_int(j, "big", 9007199254740993);
    want_num(j, "ratio", 0.5);
    cr_assert(json_is_true(get(j, "flag")));
    want_str(j, "color", "Blue");
    json_t *longs = get(j, "longs");
    cr_assert_eq(json_array_size(longs), 5);
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(json_integer_value(json_array_get(longs, i)), LONGS[i], "longs[%zu]", i);
    json_t *kids = get(j, "children");
    cr_assert_eq(json_array_size(kids), 2);
    want_str(json_array_get(kids, 0), "name", "a");
    want_int(json_array_get(kids, 0), "value", 1);
    cr_assert_null(json_object_get(json_array_get(kids, 1), "name"));
    want_int(json_array_get(kids, 1), "value", -2);
    want_str(j, "pet_type", "Dog");
    want_str(get(j, "pet"), "name", "rex");
    want_num(get(j, "pet"), "weight", 12.5);
    want_num(get(j, "pos"), "x", 1.5);
    want_num(get(j, "pos"), "y", -2.25);
    want_int(get(j, "pos"), "z", 3);
    json_t *tags = get(j, "tags");
    cr_assert_eq(json_array_size(tags), 3);
    for (size_t i = 0; i < 3; i++)
        cr_assert_str_eq(json_string_value(json_array_get(tags, i)), TAGS[i]);
}

Test(fe_fb_interop, fe_fbb_buffer_decoded_by_flatc)
{
    char dir[64];
    need_flatc();
    make_tmpdir(dir);
    json_t *full = to_json(dir, full_root, "full");
    check_full_json(full);
    json_decref(full);

    json_t *min = to_json(dir, min_root, "min");
    want_int(min, "big", 0); /* written defaults are present */
    want_str(min, "color", "Red");
    cr_assert(json_is_false(get(min, "flag")));
    cr_assert_null(json_object_get(min, "ratio"), "an absent optional scalar stays absent");
    cr_assert_null(json_object_get(min, "name"));
    cr_assert_null(json_object_get(min, "pos"));
    json_decref(min);
    remove_tmpdir(dir);
}

/* ---- (b) flatc -b -> fe_fb ------------------------------------------------------------------ */

static const char IN_JSON[] =
    "{\n"
    "  \"name\": \"from flatc\",\n"
    "  \"big\": -9007199254740993,\n"
    "  \"ratio\": -0.75,\n"
    "  \"flag\": true,\n"
    "  \"color\": \"Green\",\n"
    "  \"longs\": [3, -4, 9223372036854775807, -9223372036854775808],\n"
    "  \"children\": [{\"name\": \"c0\", \"value\": 10}, {\"value\": -20},\n"
    "                 {\"name\": \"zero\", \"value\": 0}],\n"
    "  \"pet_type\": \"Cat\",\n"
    "  \"pet\": {\"lives\": 9},\n"
    "  \"pos\": {\"x\": 0.25, \"y\": 8.5, \"z\": -77},\n"
    "  \"tags\": [\"alpha\", \"\", \"beta\"]\n"
    "}\n";

static void check_str(const fe_fb_table *t, uint16_t id, const char *want)
{
    const char *s;
    uint32_t n;
    cr_assert_eq(fe_fb_string(t, id, &s, &n), FE_FB_OK, "string %u", id);
    cr_assert(n == strlen(want) && strcmp(s, want) == 0, "string %u: \"%s\"", id, s);
}

static void check_scalars(const fe_fb_table *t)
{
    int64_t big;
    float ratio;
    bool flag;
    int8_t color;
    const uint8_t *p;
    check_str(t, R_NAME, "from flatc");
    cr_assert(fe_fb_i64(t, R_BIG, 0, &big) == FE_FB_OK && big == -9007199254740993);
    cr_assert(fe_fb_f32(t, R_RATIO, 0, &ratio) == FE_FB_OK && ratio == -0.75f);
    cr_assert(fe_fb_bool(t, R_FLAG, false, &flag) == FE_FB_OK && flag);
    cr_assert(fe_fb_i8(t, R_COLOR, 0, &color) == FE_FB_OK && color == COLOR_GREEN);
    cr_assert_eq(fe_fb_struct(t, R_POS, 16, &p), FE_FB_OK);
    cr_assert((p - t->buf) % 8 == 0, "flatc aligns the struct too");
    cr_assert(fe_fb_ld_f32(p) == 0.25f && fe_fb_ld_f32(p + 4) == 8.5f);
    cr_assert_eq(fe_fb_ld_i64(p + 8), -77);
}

static void check_vectors(const fe_fb_table *t)
{
    static const int64_t longs[] = {3, -4, INT64_MAX, INT64_MIN};
    static const char *const tags[] = {"alpha", "", "beta"};
    fe_fb_vec v;
    int64_t x;
    const char *s;
    uint32_t n;
    cr_assert(fe_fb_vector(t, R_LONGS, &v) == FE_FB_OK && v.len == 4 && fe_fb_vec_fits(&v, 8));
    cr_assert_eq(v.pos % 8, 0, "flatc aligns long elements");
    for (uint32_t i = 0; i < 4; i++)
        cr_assert(fe_fb_vec_i64(&v, i, &x) == FE_FB_OK && x == longs[i], "longs[%u]", i);
    cr_assert(fe_fb_vector(t, R_TAGS, &v) == FE_FB_OK && v.len == 3);
    for (uint32_t i = 0; i < 3; i++) {
        cr_assert_eq(fe_fb_vec_string(&v, i, &s, &n), FE_FB_OK);
        cr_assert(n == strlen(tags[i]) && strcmp(s, tags[i]) == 0, "tags[%u]", i);
    }
}

static void check_children(const fe_fb_table *t)
{
    fe_fb_vec v;
    fe_fb_table c;
    int64_t x;
    const char *s;
    uint32_t n;
    cr_assert(fe_fb_vector(t, R_CHILDREN, &v) == FE_FB_OK && v.len == 3);
    cr_assert_eq(fe_fb_vec_table(&v, 0, &c), FE_FB_OK);
    check_str(&c, CHILD_NAME, "c0");
    cr_assert(fe_fb_i64(&c, CHILD_VALUE, 0, &x) == FE_FB_OK && x == 10);
    cr_assert_eq(fe_fb_vec_table(&v, 1, &c), FE_FB_OK);
    cr_assert(fe_fb_string(&c, CHILD_NAME, &s, &n) == FE_FB_ABSENT && s == NULL);
    cr_assert(fe_fb_i64(&c, CHILD_VALUE, 0, &x) == FE_FB_OK && x == -20);
    cr_assert_eq(fe_fb_vec_table(&v, 2, &c), FE_FB_OK);
    check_str(&c, CHILD_NAME, "zero");
    cr_assert(fe_fb_i64(&c, CHILD_VALUE, 55, &x) == FE_FB_ABSENT && x == 55,
              "flatc leaves a default value out");
}

static void check_pet(const fe_fb_table *t)
{
    uint8_t type;
    fe_fb_table pet;
    int32_t lives;
    cr_assert_eq(fe_fb_union(t, R_PET, &type, &pet), FE_FB_OK);
    cr_assert_eq(type, PET_CAT);
    cr_assert(fe_fb_i32(&pet, 0, 0, &lives) == FE_FB_OK && lives == 9);
}

Test(fe_fb_interop, flatc_buffer_read_by_fe_fb)
{
    char dir[64], json[128], bin[128];
    size_t len;
    fe_fb_table root;
    need_flatc();
    make_tmpdir(dir);
    snprintf(json, sizeof json, "%s/in.json", dir);
    snprintf(bin, sizeof bin, "%s/in.bin", dir);
    write_file(json, IN_JSON, strlen(IN_JSON));
    char *args[] = {"flatc", "-b", "-o", dir, SCHEMA, json, NULL};
    cr_assert_eq(run_flatc(dir, args), 0, "flatc -b failed (see %s/flatc.log)", dir);
    uint8_t *buf = read_file(bin, &len);
    cr_assert(fe_fb_has_identifier(buf, len, "FBIT"));
    cr_assert_eq(fe_fb_root(buf, len, &root), FE_FB_OK);
    check_scalars(&root);
    check_vectors(&root);
    check_children(&root);
    check_pet(&root);
    free(buf);
    remove_tmpdir(dir);
}
