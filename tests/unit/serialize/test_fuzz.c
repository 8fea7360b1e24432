/* test_fuzz.c — malformed serialized graphs fail cleanly.
 *
 * Owns: mutation corpora generated here from valid serialized graphs and fed to
 * hipdnnBackendCreateAndDeserializeGraph_ext (seeds: a small graph, one or every operation
 * type, examples/graphs/sdpa_softcap.json, whose SDPA node nests a score modifier Graph, and a
 * graph in hipDNN's older Node layout with uid-0 fields left out;
 * FlatBuffer: truncation at every length, random
 * bit flips, random byte overwrites, every aligned 32-bit word replaced with huge, small and
 * off-by-some values (root/table/vtable offsets, vector and string lengths), every 16-bit vtable
 * slot replaced, HDGP containers with broken blobs) and to
 * hipdnnBackendCreateAndDeserializeJsonGraph_ext (JSON: truncation, a wrong JSON kind at every
 * value, unknown fields, unknown enum names, uids of missing tensors, invalid graphs, deep
 * nesting, odd documents).
 * Every binary input must give SUCCESS, BAD_PARAM or NOT_SUPPORTED; every JSON input
 * BAD_PARAM (NOT_SUPPORTED where the operation table name itself is changed); a failure leaves
 * a message and the output untouched; a success yields a graph that re-serializes and is
 * destroyed. Inputs are copied into exact-size heap blocks so that ASan (`./build.sh test`)
 * sees any read past the end. Seeds are printed; HIPDNN_TEST_SEED replays.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/tu.h"
#include "serialize/fe_fb.h"
#include "sz_util.h"

#define SENTINEL ((hipdnnBackendDescriptor_t)(uintptr_t)0x5151)
#define MAX_REPORTS 25

static hipdnnHandle_t handle;

static void setup(void)
{
    TU_OK(hipdnnCreate(&handle));
}

static void teardown(void)
{
    cr_expect_eq(hipdnnDestroy(handle), HIPDNN_STATUS_SUCCESS);
}

typedef struct tally {
    int cases, ok, bad_param, not_supported, wrong, reported;
} tally;

static void report(tally *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(tally *t, const char *fmt, ...)
{
    t->wrong++;
    if (t->reported++ < MAX_REPORTS) {
        char buf[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        cr_expect_fail("%s", buf);
    }
}

/* Destroys a graph deserialized from a mutated input after checking it re-serializes. */
static void check_survivor(tally *t, hipdnnBackendDescriptor_t g, const char *what)
{
    size_t len = 0;
    hipdnnStatus_t st = hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &len, NULL);
    if (st == HIPDNN_STATUS_SUCCESS) {
        uint8_t *buf = malloc(len);
        cr_assert_not_null(buf);
        st = hipdnnBackendGetSerializedBinaryGraph_ext(g, len, &len, buf);
        free(buf);
    }
    if (st != HIPDNN_STATUS_SUCCESS)
        report(t, "%s: accepted, but re-serializing it fails: %s", what, tu_msg());
    if (hipdnnBackendDestroyDescriptor(g) != HIPDNN_STATUS_SUCCESS)
        report(t, "%s: accepted, but cannot be destroyed: %s", what, tu_msg());
}

/* Feeds one binary input (copied to an exact-size block). */
static void feed_binary(tally *t, const uint8_t *bytes, size_t len, const char *what)
{
    uint8_t *copy = malloc(len > 0 ? len : 1);
    cr_assert_not_null(copy);
    if (len > 0)
        memcpy(copy, bytes, len);
    char msg[8];
    hipdnnGetLastErrorString(msg, sizeof msg);
    hipdnnBackendDescriptor_t g = SENTINEL;
    hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeGraph_ext(&g, copy, len);
    free(copy);
    t->cases++;
    if (st == HIPDNN_STATUS_SUCCESS) {
        t->ok++;
        check_survivor(t, g, what);
        return;
    }
    t->bad_param += st == HIPDNN_STATUS_BAD_PARAM;
    t->not_supported += st == HIPDNN_STATUS_NOT_SUPPORTED;
    if (st != HIPDNN_STATUS_BAD_PARAM && st != HIPDNN_STATUS_NOT_SUPPORTED)
        report(t, "%s: status %s [%s]", what, tu_st(st), tu_msg());
    if (g != SENTINEL)
        report(t, "%s: the output was written on failure", what);
    if (tu_msg()[0] == '\0')
        report(t, "%s: failed without a message", what);
}

/* A small valid graph: one RELU on two [R, D] tensors. */
static uint8_t *small_graph(size_t *len)
{
    rc_ctx c;
    rc_fill(&c, rc_spec_of(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR), false, handle);
    hipdnnBackendDescriptor_t g = rc_build(&c);
    uint8_t *bin = sz_binary(g, len);
    TU_OK(hipdnnBackendDestroyDescriptor(g));
    rc_release(&c);
    return bin;
}

/* The same kind of graph as hipDNN's Nov-2025 frontend writes it: the older Node layout (no
 * compute_data_type; the union at ids 1 + 2) and uid-0 fields left out. y = relu(x), [4, 8]. */
static uint8_t *old_layout_graph(size_t *len)
{
    int64_t dims[] = {4, 8}, strides[] = {8, 1};
    fe_fbb *b = fe_fbb_new();
    fe_fbt *ts[2], *relu = fe_fbb_table(b), *node = fe_fbb_table(b), *g = fe_fbb_table(b);
    for (int i = 0; i < 2; i++) {
        ts[i] = fe_fbb_table(b);
        if (i > 0)
            fe_fbt_i64(ts[i], 0, i);                       /* uid (0: left out) */
        fe_fbt_string(ts[i], 1, i ? "y" : "x", 1);
        fe_fbt_i8(ts[i], 2, 1);                            /* FLOAT */
        fe_fbt_vec_scalars(ts[i], 3, 8, 2, strides);
        fe_fbt_vec_scalars(ts[i], 4, 8, 2, dims);
    }
    fe_fbt_i8(relu, 0, 34);                                /* RELU_FWD; in_0 0: left out */
    fe_fbt_i64(relu, 8, 1);                                /* out_0 */
    fe_fbt_string(node, 0, "relu", 4);
    fe_fbt_union(node, 2, 2, relu);                        /* PointwiseAttributes */
    fe_fbt_i8(g, 1, 1);                                    /* compute_data_type FLOAT */
    fe_fbt_vec_tables(g, 4, 2, ts);
    fe_fbt_vec_tables(g, 5, 1, &node);
    uint8_t *out = NULL;
    cr_assert_eq(fe_fbb_finish(b, g, NULL, &out, len), FE_FBB_OK);
    fe_fbb_free(b);
    return out;
}

/* examples/graphs/sdpa_softcap.json (an SDPA score modifier: a nested Graph) as bytes and,
 * when json is not NULL, as our JSON text. */
static uint8_t *softcap_graph(size_t *len, char **json)
{
    hipdnnBackendDescriptor_t g = tu_example_graph(handle, "sdpa_softcap.json");
    uint8_t *bin = sz_binary(g, len);
    if (json != NULL)
        *json = sz_json_text(g);
    TU_OK(hipdnnBackendDestroyDescriptor(g));
    return bin;
}

/* A graph of one full-recipe operation of type `type`, or of every type (type 0). */
static uint8_t *op_graph(hipdnnBackendDescriptorType_t type, size_t *len, char **json)
{
    const rc_desc *specs[32];
    int n = sz_op_specs(specs, 32);
    if (type != 0) {
        specs[0] = rc_spec_of(type);
        n = 1;
    }
    sz_graph g;
    sz_build(&g, handle, specs, n, (int)tu_range(0, 1), true);
    uint8_t *bin = sz_binary(g.graph, len);
    if (json != NULL)
        *json = sz_json_text(g.graph);
    sz_free(&g);
    return bin;
}

static void summary(const tally *t, const char *name)
{
    fprintf(stderr, "%s: %d inputs: %d accepted, %d BAD_PARAM, %d NOT_SUPPORTED, %d wrong\n", name,
            t->cases, t->ok, t->bad_param, t->not_supported, t->wrong);
    cr_expect_eq(t->wrong, 0, "%s: %d of %d inputs misbehaved (first %d reported above)", name,
                 t->wrong, t->cases, MAX_REPORTS);
}

/* ---- FlatBuffer ------------------------------------------------------------------------------------ */

Test(binary, truncation_at_every_length, .init = setup, .fini = teardown)
{
    tally t = {0};
    tu_seed("binary::truncation_at_every_length");
    size_t len = 0;
    uint8_t *bin = small_graph(&len);
    char what[64];
    for (size_t n = 0; n < len; n++) {
        snprintf(what, sizeof what, "first %zu of %zu bytes", n, len);
        feed_binary(&t, bin, n, what);
    }
    feed_binary(&t, bin, len, "the whole graph");
    cr_expect_geq(t.ok, 1, "the untruncated graph was refused");
    free(bin);
    bin = softcap_graph(&len, NULL);
    for (size_t n = 0; n < len; n += 1 + n / 512) {
        snprintf(what, sizeof what, "softcap: first %zu of %zu", n, len);
        feed_binary(&t, bin, n, what);
    }
    free(bin);
    int ok = t.ok;
    bin = old_layout_graph(&len);
    for (size_t n = 0; n <= len; n++) {
        snprintf(what, sizeof what, "older Node layout: first %zu of %zu", n, len);
        feed_binary(&t, bin, n, what);
    }
    cr_expect_eq(t.ok, ok + 1, "the whole older-layout graph is read, no prefix of it is");
    free(bin);
    summary(&t, "truncation");
    cr_expect_geq(t.cases, 100);
}

/* Every aligned 32-bit word (offsets, lengths, scalars) and 16-bit word (vtable slots) replaced. */
static void word_mutations(tally *t, const uint8_t *bin, size_t len, const char *name)
{
    uint8_t *m = malloc(len);
    cr_assert_not_null(m);
    char what[96];
    for (size_t at = 0; at + 4 <= len; at += 4) {
        uint32_t orig;
        memcpy(&orig, bin + at, 4);
        const uint32_t values[] = {0,          1,          2,          3,          4,
                                   (uint32_t)len - 4, (uint32_t)len, (uint32_t)len + 4,
                                   0x7fffffffu, 0x80000000u, 0xfffffffcu, 0xffffffffu,
                                   orig + 1,   orig + 4,   orig * 2 + 8, orig - 4};
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            if (values[v] == orig)
                continue;
            memcpy(m, bin, len);
            memcpy(m + at, &values[v], 4);
            snprintf(what, sizeof what, "%s: u32 at %zu = 0x%x (was 0x%x)", name, at, values[v], orig);
            feed_binary(t, m, len, what);
        }
    }
    for (size_t at = 0; at + 2 <= len; at += 2) {
        uint16_t orig;
        memcpy(&orig, bin + at, 2);
        const uint16_t values[] = {0, 1, 3, 0xfffe, 0xffff, 0x8000, (uint16_t)(orig + 2),
                                   (uint16_t)(orig + 4)};
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            if (values[v] == orig)
                continue;
            memcpy(m, bin, len);
            memcpy(m + at, &values[v], 2);
            snprintf(what, sizeof what, "%s: u16 at %zu = 0x%x (was 0x%x)", name, at, values[v], orig);
            feed_binary(t, m, len, what);
        }
    }
    free(m);
}

Test(binary, offset_and_length_words_replaced, .init = setup, .fini = teardown)
{
    tally t = {0};
    tu_seed("binary::offset_and_length_words_replaced");
    size_t len = 0;
    uint8_t *bin = small_graph(&len);
    word_mutations(&t, bin, len, "small graph");
    free(bin);
    bin = op_graph(HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT, &len, NULL);
    word_mutations(&t, bin, len, "layernorm graph");
    free(bin);
    bin = softcap_graph(&len, NULL);
    word_mutations(&t, bin, len, "score modifier graph");
    free(bin);
    bin = old_layout_graph(&len);
    word_mutations(&t, bin, len, "older Node layout graph");
    free(bin);
    summary(&t, "offsets and lengths");
    cr_expect_geq(t.cases, 500);
}

Test(binary, random_bit_flips_and_byte_overwrites, .init = setup, .fini = teardown)
{
    tally t = {0};
    tu_seed("binary::random_bit_flips_and_byte_overwrites");
    size_t lens[5];
    uint8_t *seeds[5];
    seeds[0] = small_graph(&lens[0]);
    seeds[1] = op_graph(HIPDNN_BACKEND_OPERATION_SDPA_FPROP_DESCRIPTOR_EXT, &lens[1], NULL);
    seeds[2] = op_graph(0, &lens[2], NULL);
    seeds[3] = softcap_graph(&lens[3], NULL);
    seeds[4] = old_layout_graph(&lens[4]);
    char what[96];
    for (int i = 0; i < 1500; i++) {
        int s = (int)tu_range(0, 4);
        uint8_t *m = malloc(lens[s]);
        cr_assert_not_null(m);
        memcpy(m, seeds[s], lens[s]);
        int k = (int)tu_range(1, 4);
        if (i % 3 != 2) { /* bit flips */
            for (int j = 0; j < k; j++) {
                size_t at = (size_t)tu_range(0, (int64_t)lens[s] - 1);
                m[at] ^= (uint8_t)(1u << tu_range(0, 7));
            }
            snprintf(what, sizeof what, "seed %d: %d bit flip(s), case %d", s, k, i);
        } else { /* byte overwrites */
            for (int j = 0; j < 2 * k; j++)
                m[tu_range(0, (int64_t)lens[s] - 1)] = (uint8_t)tu_rand();
            snprintf(what, sizeof what, "seed %d: %d byte overwrite(s), case %d", s, 2 * k, i);
        }
        feed_binary(&t, m, lens[s], what);
        free(m);
    }
    for (int s = 0; s < 5; s++)
        free(seeds[s]);
    summary(&t, "bit flips and overwrites");
    cr_expect_geq(t.cases, 1500);
}

/* Random bytes, and valid bytes with garbage appended or prepended. */
Test(binary, garbage_and_framing, .init = setup, .fini = teardown)
{
    tally t = {0};
    tu_seed("binary::garbage_and_framing");
    uint8_t junk[4096];
    for (int i = 0; i < 100; i++) {
        size_t n = (size_t)tu_range(1, sizeof junk);
        tu_bytes(junk, n);
        feed_binary(&t, junk, n, "random bytes");
    }
    size_t len = 0;
    uint8_t *bin = small_graph(&len);
    uint8_t *big = malloc(len + 64);
    cr_assert_not_null(big);
    memcpy(big, bin, len);
    tu_bytes(big + len, 64);
    feed_binary(&t, big, len + 64, "garbage after a valid graph");
    tu_bytes(big, 4);
    memcpy(big + 4, bin, len);
    feed_binary(&t, big, len + 4, "garbage before a valid graph");
    free(big);
    free(bin);
    summary(&t, "garbage");
}

/* HDGP containers whose graph blob is broken. */
Test(binary, broken_hdgp_containers, .init = setup, .fini = teardown)
{
    tally t = {0};
    tu_seed("binary::broken_hdgp_containers");
    size_t len = 0, clen = 0;
    uint8_t *bin = small_graph(&len);
    for (size_t cut = 0; cut < len; cut += (size_t)tu_range(1, 8)) {
        fe_fbb *b = fe_fbb_new();
        fe_fbt *root = fe_fbb_table(b);
        fe_fbt_vec_scalars(root, 0, 1, cut, bin);
        uint8_t *c = NULL;
        cr_assert_eq(fe_fbb_finish(b, root, "HDGP", &c, &clen), FE_FBB_OK);
        fe_fbb_free(b);
        char what[64];
        snprintf(what, sizeof what, "HDGP holding %zu of %zu graph bytes", cut, len);
        feed_binary(&t, c, clen, what);
        /* and the container itself cut short */
        snprintf(what, sizeof what, "HDGP (%zu) cut to %zu bytes", clen, clen / 2);
        feed_binary(&t, c, clen / 2, what);
        word_mutations(&t, c, clen < 64 ? clen : 64, "HDGP head");
        free(c);
    }
    free(bin);
    summary(&t, "HDGP");
}

/* ---- JSON -------------------------------------------------------------------------------------------- */

/* Feeds one JSON text; BAD_PARAM expected (or NOT_SUPPORTED when allowed). */
static void feed_json(tally *t, const char *text, size_t len, bool allow_not_supported,
                      const char *what)
{
    char *copy = malloc(len > 0 ? len : 1);
    cr_assert_not_null(copy);
    memcpy(copy, text, len);
    char msg[8];
    hipdnnGetLastErrorString(msg, sizeof msg);
    hipdnnBackendDescriptor_t g = SENTINEL;
    hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, copy, len);
    free(copy);
    t->cases++;
    if (st == HIPDNN_STATUS_SUCCESS) {
        t->ok++;
        report(t, "%s: accepted, expected BAD_PARAM", what);
        check_survivor(t, g, what);
        return;
    }
    t->bad_param += st == HIPDNN_STATUS_BAD_PARAM;
    t->not_supported += st == HIPDNN_STATUS_NOT_SUPPORTED;
    if (st != HIPDNN_STATUS_BAD_PARAM && !(allow_not_supported && st == HIPDNN_STATUS_NOT_SUPPORTED))
        report(t, "%s: status %s [%s]", what, tu_st(st), tu_msg());
    if (g != SENTINEL)
        report(t, "%s: the output was written on failure", what);
    if (tu_msg()[0] == '\0')
        report(t, "%s: failed without a message", what);
}

static void feed_doc(tally *t, const json_t *doc, bool allow_not_supported, const char *what)
{
    char *text = json_dumps(doc, JSON_COMPACT);
    cr_assert_not_null(text);
    feed_json(t, text, strlen(text), allow_not_supported, what);
    free(text);
}

/* Valid seed documents: 0 a small graph, 1 a layernorm graph, 2 every operation type, 3 the score
 * modifier example (a nested Graph). */
static json_t *seed_doc(int which)
{
    char *text = NULL;
    size_t len = 0;
    uint8_t *bin;
    if (which == 3) {
        bin = softcap_graph(&len, &text);
        free(bin);
    } else if (which == 0) {
        rc_ctx c;
        rc_fill(&c, rc_spec_of(HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR), true, handle);
        hipdnnBackendDescriptor_t g = rc_build(&c);
        text = sz_json_text(g);
        TU_OK(hipdnnBackendDestroyDescriptor(g));
        rc_release(&c);
    } else {
        bin = op_graph(which == 1 ? HIPDNN_BACKEND_OPERATION_LAYERNORM_DESCRIPTOR_EXT : 0, &len,
                       &text);
        free(bin);
    }
    json_error_t err;
    json_t *doc = json_loads(text, 0, &err);
    free(text);
    cr_assert_not_null(doc, "%s", err.text);
    return doc;
}

/* Calls fn on every value below doc (not doc itself): its parent, key or index. */
typedef void (*visit_fn)(void *ctx, json_t *root, json_t *parent, const char *key, size_t index,
                         json_t *value, const char *path);

static void walk(json_t *root, json_t *node, char *path, size_t cap, visit_fn fn, void *ctx)
{
    size_t at = strlen(path);
    if (json_is_object(node)) {
        const char *key;
        json_t *v;
        json_object_foreach(node, key, v) {
            snprintf(path + at, cap - at, ".%s", key);
            fn(ctx, root, node, key, 0, v, path);
            walk(root, v, path, cap, fn, ctx);
        }
    } else if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++) {
            json_t *v = json_array_get(node, i);
            snprintf(path + at, cap - at, "[%zu]", i);
            fn(ctx, root, node, NULL, i, v, path);
            walk(root, v, path, cap, fn, ctx);
        }
    }
    path[at] = '\0';
}

/* Replaces one value (in place), feeds the document, and puts the value back. */
static void with_replaced(tally *t, json_t *root, json_t *parent, const char *key, size_t index,
                          json_t *replacement, bool allow_not_supported, const char *what)
{
    json_t *orig;
    if (key != NULL) {
        orig = json_incref(json_object_get(parent, key));
        json_object_set_new(parent, key, replacement);
    } else {
        orig = json_incref(json_array_get(parent, index));
        json_array_set_new(parent, index, replacement);
    }
    feed_doc(t, root, allow_not_supported, what);
    if (key != NULL)
        json_object_set_new(parent, key, orig);
    else
        json_array_set_new(parent, index, orig);
}

typedef struct walk_ctx {
    tally *t;
    int64_t missing_uid;
} walk_ctx;

static bool is_table_name_key(const char *key)
{
    return key != NULL && strcmp(key, "attributes_type") == 0;
}

/* A value of another JSON kind at every position. */
static void wrong_kinds(void *vctx, json_t *root, json_t *parent, const char *key, size_t index,
                        json_t *value, const char *path)
{
    walk_ctx *c = vctx;
    json_t *repl[2];
    switch (json_typeof(value)) {
    case JSON_OBJECT: repl[0] = json_array(), repl[1] = json_integer(7); break;
    case JSON_ARRAY: repl[0] = json_object(), repl[1] = json_string("x"); break;
    case JSON_STRING: repl[0] = json_object(), repl[1] = json_array(); break;
    case JSON_INTEGER:
    case JSON_REAL: repl[0] = json_string("x"), repl[1] = json_object(); break;
    default: repl[0] = json_string("x"), repl[1] = json_array(); break;
    }
    char what[400];
    for (int i = 0; i < 2; i++) {
        snprintf(what, sizeof what, "wrong kind at %s", path);
        with_replaced(c->t, root, parent, key, index, repl[i], false, what);
    }
}

/* An unknown name for every enum-valued string; a missing uid for every tensor reference. */
static void bad_names_and_uids(void *vctx, json_t *root, json_t *parent, const char *key,
                               size_t index, json_t *value, const char *path)
{
    walk_ctx *c = vctx;
    char what[400];
    if (json_is_string(value) && key != NULL && strcmp(key, "name") != 0 &&
        strcmp(key, "custom_op_id") != 0) {
        snprintf(what, sizeof what, "unknown name at %s", path);
        with_replaced(c->t, root, parent, key, index, json_string("NO_SUCH_NAME"),
                      is_table_name_key(key), what);
    }
    /* (PointwiseAttributes.axis_tensor_uid is a plain axis index despite its name) */
    if (json_is_integer(value) && key != NULL && strstr(key, "_tensor_uid") != NULL &&
        strcmp(key, "axis_tensor_uid") != 0) {
        snprintf(what, sizeof what, "missing tensor uid at %s", path);
        with_replaced(c->t, root, parent, key, index, json_integer(c->missing_uid), false, what);
    }
    if (json_is_array(value) && key != NULL && strstr(key, "_tensor_uid") != NULL &&
        json_array_size(value) > 0) {
        snprintf(what, sizeof what, "missing tensor uid in %s", path);
        json_t *copy = json_deep_copy(value);
        json_array_set_new(copy, 0, json_integer(c->missing_uid));
        with_replaced(c->t, root, parent, key, index, copy, false, what);
    }
}

static void unknown_fields(tally *t, json_t *root)
{
    /* every object, including the root */
    json_t *stack[256];
    int n = 0;
    stack[n++] = root;
    while (n > 0) {
        json_t *o = stack[--n];
        if (json_is_object(o)) {
            json_object_set_new(o, "zz_no_such_field", json_integer(1));
            feed_doc(t, root, false, "an unknown field");
            json_object_del(o, "zz_no_such_field");
            const char *key;
            json_t *v;
            json_object_foreach(o, key, v)
                if ((json_is_object(v) || json_is_array(v)) && n < 256)
                    stack[n++] = v;
        } else if (json_is_array(o)) {
            for (size_t i = 0; i < json_array_size(o) && n < 256; i++)
                if (json_is_object(json_array_get(o, i)) || json_is_array(json_array_get(o, i)))
                    stack[n++] = json_array_get(o, i);
        }
    }
}

/* The largest tensor uid anywhere in doc, nested graphs (score modifiers) included: a uid above
 * it names no tensor of the graph or of any sub-graph. */
static int64_t max_uid(const json_t *doc)
{
    int64_t m = 0;
    const char *key;
    json_t *v;
    size_t i;
    if (json_is_array(doc))
        json_array_foreach((json_t *)doc, i, v) {
            int64_t u = max_uid(v);
            m = u > m ? u : m;
        }
    if (json_is_object(doc))
        json_object_foreach((json_t *)doc, key, v) {
            int64_t u = strcmp(key, "uid") == 0 ? json_integer_value(v) : max_uid(v);
            m = u > m ? u : m;
        }
    return m;
}

Test(json, truncated_texts, .init = setup, .fini = teardown)
{
    tally t = {0};
    tu_seed("json::truncated_texts");
    for (int s = 0; s < 4; s += s == 1 ? 2 : 1) { /* seeds 0, 1 and the score modifier (3) */
        json_t *doc = seed_doc(s);
        char *text = json_dumps(doc, JSON_INDENT(1));
        size_t len = strlen(text);
        for (int i = 0; i < 80; i++) {
            size_t n = (size_t)tu_range(1, (int64_t)len - 1);
            char what[64];
            snprintf(what, sizeof what, "seed %d cut to %zu of %zu", s, n, len);
            feed_json(&t, text, n, false, what);
        }
        free(text);
        json_decref(doc);
    }
    summary(&t, "truncated JSON");
    cr_expect_geq(t.cases, 240);
}

Test(json, wrong_kinds_unknown_fields_names_and_uids, .init = setup, .fini = teardown)
{
    tally t = {0};
    tu_seed("json::wrong_kinds_unknown_fields_names_and_uids");
    for (int s = 0; s < 4; s++) {
        json_t *doc = seed_doc(s);
        walk_ctx c = {&t, max_uid(doc) + tu_range(1, 1000)};
        char path[512] = "";
        walk(doc, doc, path, sizeof path, wrong_kinds, &c);
        walk(doc, doc, path, sizeof path, bad_names_and_uids, &c);
        unknown_fields(&t, doc);
        json_decref(doc);
    }
    summary(&t, "malformed JSON graphs");
    cr_expect_geq(t.cases, 200);
}

/* Graphs that are well-formed JSON but not valid graphs. */
Test(json, invalid_graphs, .init = setup, .fini = teardown)
{
    tally t = {0};
    tu_seed("json::invalid_graphs");
    json_t *doc = seed_doc(0); /* x -> relu -> t (virtual) -> identity -> y */
    json_t *tensors = json_object_get(doc, "tensors"), *nodes = json_object_get(doc, "nodes");
    cr_assert_eq(json_array_size(nodes), 2);
    json_t *a0 = json_object_get(json_array_get(nodes, 0), "attributes");
    json_t *a1 = json_object_get(json_array_get(nodes, 1), "attributes");
    int64_t x = json_integer_value(json_object_get(a0, "in_0_tensor_uid"));
    int64_t mid = json_integer_value(json_object_get(a0, "out_0_tensor_uid"));
    int64_t y = json_integer_value(json_object_get(a1, "out_0_tensor_uid"));
    /* a cycle: op0 reads y */
    json_object_set_new(a0, "in_0_tensor_uid", json_integer(y));
    feed_doc(&t, doc, false, "a cycle");
    json_object_set_new(a0, "in_0_tensor_uid", json_integer(x));
    /* two producers of y */
    json_object_set_new(a0, "out_0_tensor_uid", json_integer(y));
    feed_doc(&t, doc, false, "a tensor written twice");
    json_object_set_new(a0, "out_0_tensor_uid", json_integer(mid));
    /* a virtual tensor nobody produces: op1 reads a new virtual tensor */
    json_t *orphan = json_deep_copy(json_array_get(tensors, 0));
    json_object_set_new(orphan, "uid", json_integer(max_uid(doc) + 1));
    json_object_set_new(orphan, "virtual", json_true());
    json_array_append_new(tensors, orphan);
    json_object_set_new(a1, "in_0_tensor_uid", json_integer(max_uid(doc)));
    feed_doc(&t, doc, false, "a dangling virtual tensor");
    json_object_set_new(a1, "in_0_tensor_uid", json_integer(mid));
    json_array_remove(tensors, json_array_size(tensors) - 1);
    /* two tensors with one uid */
    json_t *twin = json_deep_copy(json_array_get(tensors, 0));
    json_array_append_new(tensors, twin);
    feed_doc(&t, doc, false, "duplicate tensor uids");
    json_array_remove(tensors, json_array_size(tensors) - 1);
    /* no nodes */
    json_t *saved = json_incref(nodes);
    json_object_set_new(doc, "nodes", json_array());
    feed_doc(&t, doc, false, "no nodes");
    json_object_set_new(doc, "nodes", saved);
    /* sanity: the repaired document is valid again */
    hipdnnBackendDescriptor_t g = NULL;
    char *text = json_dumps(doc, 0);
    TU_OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, strlen(text)));
    free(text);
    TU_OK(hipdnnBackendDestroyDescriptor(g));
    json_decref(doc);
    summary(&t, "invalid graphs");
}

Test(json, odd_documents_and_deep_nesting, .init = setup, .fini = teardown)
{
    tally t = {0};
    static const char *const docs[] = {
        " ", "null", "true", "7", "\"graph\"", "[]", "{}", "{\"tensors\": [], \"nodes\": []}",
        "{\"tensors\": [{}], \"nodes\": []}", "{\"name\": \"a\", \"name\": \"b\"}",
        "{\"tensors\": [], \"nodes\": [{}]}", "{\"tensors\": [{\"uid\": 1e400}], \"nodes\": []}",
        "{\"tensors\": [{\"uid\": 99999999999999999999}], \"nodes\": []}", "{\"name\": NaN}",
        "{\"name\": \"\xff\xfe\"}", "{\"nodes\": [], \"tensors\": [], }", "{'name': 'x'}",
        "{\"tensors\": [{\"uid\": 1, \"data_type\": \"FLOAT\", \"dims\": [-1], \"strides\": [1]}],"
        " \"nodes\": []}",
        "{\"tensors\": [{\"uid\": 1, \"data_type\": \"FLOAT\", \"dims\": [2], \"strides\": [1],"
        " \"value_type\": \"Float32Value\", \"value\": {\"value\": 1}}], \"nodes\": []}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        feed_json(&t, docs[i], strlen(docs[i]), false, docs[i]);
    /* a NUL inside the text */
    feed_json(&t, "{\"name\": \"a\0b\"}", 15, false, "an embedded NUL");
    /* deep nesting: as the document, and as field values */
    const int depths[] = {64, 3000, 100000};
    for (int d = 0; d < 3; d++) {
        size_t n = (size_t)depths[d];
        char *deep = malloc(6 * n + 64);
        cr_assert_not_null(deep);
        for (int kind = 0; kind < 3; kind++) {
            size_t at = 0;
            if (kind == 1)
                at += (size_t)sprintf(deep, "{\"tensors\": ");
            if (kind == 2)
                at += (size_t)sprintf(deep, "{\"tensors\": [], \"nodes\": [], \"name\": ");
            memset(deep + at, '[', n);
            memset(deep + at + n, ']', n);
            at += 2 * n;
            if (kind > 0)
                deep[at++] = '}';
            char what[64];
            snprintf(what, sizeof what, "arrays nested %zu deep (form %d)", n, kind);
            feed_json(&t, deep, at, false, what);
        }
        /* nested objects */
        size_t at = 0;
        for (size_t i = 0; i < n / 2; i++)
            at += (size_t)sprintf(deep + at, "{\"a\":");
        deep[at++] = '1';
        memset(deep + at, '}', n / 2);
        char what[64];
        snprintf(what, sizeof what, "objects nested %zu deep", n / 2);
        feed_json(&t, deep, at + n / 2, false, what);
        free(deep);
    }
    summary(&t, "odd documents");
}
