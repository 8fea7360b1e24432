/* test_ir_graph.c — lowering, fusion partitions and canonical keys of IR graphs.
 *
 * Graphs come from the example files (the files of examples/graphs/) through the public
 * deserializer, so these tests see exactly what a framework's graph lowers to.
 *   fusion: the expected kernel partition of every example graph (an SDPA score modifier is
 *           the attention kernel's score hook); a virtual tensor that a
 *           second kernel reads, and a graph output inside a fused chain, are materialised.
 *   keys:   invariance under uid / name / tensor-order / node-order permutations (randomized,
 *           fresh seed per run), sensitivity to each semantic field (flipped one at a time),
 *           and one golden key so an accidental change of the canonical bytes is noticed;
 *           on IR graphs built directly, every insertion order of a DAG whose alike ops read
 *           different tensors gives one key.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engines/fe_engines.h"

static hipdnnHandle_t handle;
static unsigned seed;

static void setup(void)
{
    cr_assert_eq(hipdnnCreate(&handle), HIPDNN_STATUS_SUCCESS);
    const char *env = getenv("HIPDNN_TEST_SEED");
    seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)clock();
    srand(seed);
    cr_log_info("seed %u (HIPDNN_TEST_SEED replays it)", seed);
}

static void teardown(void) { hipdnnDestroy(handle); }

TestSuite(ir_graph, .init = setup, .fini = teardown);

static json_t *load_example(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/examples/graphs/%s", HIPDNN_SOURCE_DIR, name);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    cr_assert_not_null(doc, "%s: %s", path, err.text);
    return doc;
}

/* Deserializes and finalizes a JSON graph; NULL (with the status in *st) on failure. */
static hipdnnBackendDescriptor_t graph_of(const json_t *doc, hipdnnStatus_t *st)
{
    char *text = json_dumps(doc, 0);
    hipdnnBackendDescriptor_t g = NULL;
    *st = hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, strlen(text));
    free(text);
    if (*st == HIPDNN_STATUS_SUCCESS)
        *st = hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle);
    if (*st == HIPDNN_STATUS_SUCCESS)
        *st = hipdnnBackendFinalize(g);
    if (*st != HIPDNN_STATUS_SUCCESS && g != NULL) {
        hipdnnBackendDestroyDescriptor(g);
        g = NULL;
    }
    return g;
}

static void key_of(const json_t *doc, char key[33])
{
    hipdnnStatus_t st;
    hipdnnBackendDescriptor_t g = graph_of(doc, &st);
    char msg[512] = "";
    hipdnnPeekLastErrorString_ext(msg, sizeof msg);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "%s", msg);
    int64_t n = 0;
    cr_assert_eq(hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR,
                                           33, &n, key), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(n, 33);
    hipdnnBackendDestroyDescriptor(g);
}

/* ---- fusion ------------------------------------------------------------------------------------- */

typedef struct expected {
    const char *file;
    int kernels;
    const char *dump_has[4]; /* substrings the partition dump must contain */
} expected;

static char *partition_of(const char *file, int *n_kernels)
{
    json_t *doc = load_example(file);
    hipdnnStatus_t st;
    hipdnnBackendDescriptor_t g = graph_of(doc, &st);
    json_decref(doc);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS, "%s", file);
    fe_graph_state *gs = fe_graph_of(g->obj);
    cr_assert_not_null(gs->ir, "%s: %s", file, gs->lower_msg);
    ir_partition p;
    cr_assert_eq(ir_fuse(gs->ir, &p), HIPDNN_STATUS_SUCCESS);
    base_sb sb = {0};
    ir_partition_dump(gs->ir, &p, &sb);
    *n_kernels = p.n;
    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
    return sb.p;
}

Test(ir_graph, example_partitions)
{
    static const expected cases[] = {
        {"layernorm.json", 1, {"kernel 0: layernorm", "epilogue -"}},
        {"rmsnorm_residual.json", 1, {"kernel 0: rmsnorm", "prologue pointwise(ADD)",
                                      "writes   uid 3 [4,2048,4096]"}},
        {"matmul_bias_gelu.json", 1, {"kernel 0: matmul", "epilogue pointwise(ADD), pointwise(GELU_FWD)"}},
        {"bn_inference_relu.json", 1, {"kernel 0: bn_inference", "epilogue pointwise(RELU_FWD)"}},
        {"conv_bias_relu.json", 1, {"kernel 0: conv_fwd", "epilogue pointwise(ADD), pointwise(RELU_FWD)"}},
        {"sdpa_causal.json", 1, {"kernel 0: sdpa_fwd"}},
        {"sdpa_gqa_bwd.json", 1, {"kernel 0: sdpa_bwd"}},
        {"sdpa_softcap.json", 1, {"kernel 0: sdpa_fwd", "score    pointwise(DIV), pointwise(TANH_FWD), pointwise(MUL)",
                                  "reads    uid 1 [2,16,2048,128]"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n;
        char *dump = partition_of(cases[i].file, &n);
        cr_log_info("%s:\n%s", cases[i].file, dump);
        cr_expect_eq(n, cases[i].kernels, "%s: %d kernels\n%s", cases[i].file, n, dump);
        for (int j = 0; j < 4 && cases[i].dump_has[j]; j++)
            cr_expect_not_null(strstr(dump, cases[i].dump_has[j]), "%s: no '%s' in\n%s",
                               cases[i].file, cases[i].dump_has[j], dump);
        free(dump);
    }
}

/* matmul -> C (made a graph output) -> add bias -> gelu: C is still written. */
Test(ir_graph, graph_output_inside_a_chain_is_written)
{
    json_t *doc = load_example("matmul_bias_gelu.json");
    json_t *tensors = json_object_get(doc, "tensors");
    int64_t c_uid = json_integer_value(json_object_get(
        json_object_get(json_array_get(json_object_get(doc, "nodes"), 0), "attributes"), "c_tensor_uid"));
    for (size_t i = 0; i < json_array_size(tensors); i++) {
        json_t *t = json_array_get(tensors, i);
        if (json_integer_value(json_object_get(t, "uid")) == c_uid)
            json_object_set_new(t, "virtual", json_false());
    }
    hipdnnStatus_t st;
    hipdnnBackendDescriptor_t g = graph_of(doc, &st);
    json_decref(doc);
    cr_assert_eq(st, HIPDNN_STATUS_SUCCESS);
    fe_graph_state *gs = fe_graph_of(g->obj);
    ir_partition p;
    cr_assert_eq(ir_fuse(gs->ir, &p), HIPDNN_STATUS_SUCCESS);
    cr_expect_eq(p.n, 1, "still one kernel");
    bool written = false;
    for (int i = 0; i < p.k[0].n_writes; i++)
        written |= gs->ir->t[p.k[0].writes[i]].uid == c_uid;
    cr_expect(written, "the matmul result uid %lld is a graph output and must be written", (long long)c_uid);
    ir_partition_free(&p);
    hipdnnBackendDestroyDescriptor(g);
}

/* Two anchors reading one virtual tensor: it crosses kernels, so it is materialised. */
Test(ir_graph, virtual_tensor_read_by_two_kernels_is_materialised)
{
    ir_graph g;
    ir_graph_init(&g);
    ir_tensor x = {.uid = 1, .dtype = HIPDNN_DATA_FLOAT, .rank = 2, .dims = {4, 8}, .strides = {8, 1}};
    ir_tensor v = x, w = {.uid = 3, .dtype = HIPDNN_DATA_FLOAT, .rank = 2, .dims = {8, 8}, .strides = {8, 1}};
    ir_tensor y1 = x, y2 = x;
    v.uid = 2, v.is_virtual = true, y1.uid = 4, y2.uid = 5;
    int tx = ir_add_tensor(&g, &x), tv = ir_add_tensor(&g, &v), tw = ir_add_tensor(&g, &w);
    int t1 = ir_add_tensor(&g, &y1), t2 = ir_add_tensor(&g, &y2);
    ir_op relu = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {tx, -1, -1}, .out = {tv}};
    relu.a.pw.mode = HIPDNN_POINTWISE_RELU_FWD;
    ir_op mm1 = {.kind = IR_OP_MATMUL, .n_in = 2, .n_out = 1, .in = {tv, tw}, .out = {t1}};
    ir_op mm2 = mm1;
    mm2.out[0] = t2;
    ir_add_op(&g, &mm2), ir_add_op(&g, &relu), ir_add_op(&g, &mm1); /* out of order on purpose */
    cr_assert_eq(ir_graph_seal(&g), HIPDNN_STATUS_SUCCESS);
    ir_partition p;
    cr_assert_eq(ir_fuse(&g, &p), HIPDNN_STATUS_SUCCESS);
    cr_expect_eq(p.n, 3, "relu region + two matmuls");
    cr_expect_eq(p.k[0].anchor, -1, "the relu region runs first");
    cr_expect_eq(p.k[0].n_writes, 1);
    cr_expect_eq(g.t[p.k[0].writes[0]].uid, 2, "the virtual relu output goes through memory");
    ir_partition_free(&p);
    ir_graph_free(&g);
}

/* ---- keys ----------------------------------------------------------------------------------------- */

static void shuffle(json_t *arr)
{
    for (size_t i = json_array_size(arr); i > 1; i--) {
        size_t j = (size_t)rand() % i;
        json_t *a = json_incref(json_array_get(arr, i - 1)), *b = json_incref(json_array_get(arr, j));
        json_array_set_new(arr, i - 1, b);
        json_array_set_new(arr, j, a);
    }
}

/* Replaces every uid (tensor uids and *_tensor_uid fields) by a random distinct one. */
static void remap_uids(json_t *doc)
{
    json_t *tensors = json_object_get(doc, "tensors");
    size_t n = json_array_size(tensors);
    int64_t *old = calloc(n, sizeof *old), *neu = calloc(n, sizeof *neu);
    for (size_t i = 0; i < n; i++) {
        json_t *t = json_array_get(tensors, i);
        old[i] = json_integer_value(json_object_get(t, "uid"));
        neu[i] = 1000 + (int64_t)i * 7919 + rand() % 7919;
        json_object_set_new(t, "uid", json_integer(neu[i]));
        json_object_set_new(t, "name", json_sprintf("renamed_%d", rand()));
    }
    json_t *nodes = json_object_get(doc, "nodes");
    for (size_t k = 0; k < json_array_size(nodes); k++) {
        json_t *node = json_array_get(nodes, k), *attrs = json_object_get(node, "attributes");
        json_object_set_new(node, "name", json_sprintf("op_%d", rand()));
        const char *key;
        json_t *val;
        json_object_foreach(attrs, key, val) {
            if (!strstr(key, "tensor_uid") || !json_is_integer(val))
                continue;
            for (size_t i = 0; i < n; i++)
                if (old[i] == json_integer_value(val))
                    json_integer_set(val, neu[i]);
        }
    }
    free(old);
    free(neu);
}

Test(ir_graph, key_ignores_uids_names_and_order)
{
    const char *files[] = {"matmul_bias_gelu.json", "rmsnorm_residual.json", "conv_bias_relu.json",
                           "sdpa_gqa_bwd.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        json_t *doc = load_example(files[f]);
        char base_key[33], key[33];
        key_of(doc, base_key);
        for (int round = 0; round < 8; round++) {
            json_t *copy = json_deep_copy(doc);
            remap_uids(copy);
            shuffle(json_object_get(copy, "tensors"));
            shuffle(json_object_get(copy, "nodes"));
            json_object_set_new(copy, "name", json_string("another name"));
            key_of(copy, key);
            cr_expect_str_eq(key, base_key, "%s round %d", files[f], round);
            json_decref(copy);
        }
        json_decref(doc);
    }
}

/* Mutations of one semantic field each (the graph stays valid); every one must change the key. */
typedef struct mutation {
    const char *file, *array; /* "tensors" or "nodes" */
    int index;
    const char *sub;          /* "attributes" or NULL */
    const char *field, *json; /* the new value, as JSON text */
} mutation;

Test(ir_graph, key_changes_with_every_semantic_field)
{
    static const mutation muts[] = {
        {"matmul_bias_gelu.json", "tensors", 5, NULL, "data_type", "\"HALF\""}, /* y (A alone would mix A·B types) */
        {"matmul_bias_gelu.json", "tensors", 0, NULL, "strides", "[33554432, 1, 8192]"},
        {"matmul_bias_gelu.json", "tensors", 2, NULL, "virtual", "false"},
        {"matmul_bias_gelu.json", "tensors", 3, NULL, "dims", "[1, 8192, 11008]"},
        {"matmul_bias_gelu.json", "nodes", 0, NULL, "compute_data_type", "\"HALF\""},
        {"matmul_bias_gelu.json", "nodes", 1, "attributes", "operation", "\"SUB\""},
        {"matmul_bias_gelu.json", "nodes", 2, "attributes", "operation", "\"RELU_FWD\""},
        {"matmul_bias_gelu.json", "nodes", 1, "attributes", "in_0_tensor_uid", "4"}, /* edges swapped */
        {"layernorm.json", "tensors", 3, NULL, "value", "{\"value\": 1e-6}"},
        {"layernorm.json", "tensors", 0, NULL, "dims", "[8192, 4096]"}, /* control: no change */
    };
    for (size_t i = 0; i < sizeof muts / sizeof muts[0]; i++) {
        const mutation *mu = &muts[i];
        json_t *doc = load_example(mu->file), *m = json_deep_copy(doc);
        json_t *obj = json_array_get(json_object_get(m, mu->array), (size_t)mu->index);
        if (mu->sub != NULL)
            obj = json_object_get(obj, mu->sub);
        json_object_set_new(obj, mu->field, json_loads(mu->json, JSON_DECODE_ANY, NULL));
        if (i == 7) /* the add reads (c, bias) as (bias, c) */
            json_object_set_new(obj, "in_1_tensor_uid", json_integer(3));
        char base_key[33], key[33];
        key_of(doc, base_key);
        key_of(m, key);
        bool control = i + 1 == sizeof muts / sizeof muts[0];
        if (control)
            cr_expect_str_eq(key, base_key, "an unchanged value changed the key");
        else
            cr_expect_str_neq(key, base_key, "changing %s[%d].%s kept the key", mu->array, mu->index,
                              mu->field);
        json_decref(m);
        json_decref(doc);
    }
}

/* Golden: the canonical bytes of layernorm.json must not change by accident. If a change is
 * intended, bump CANON_VERSION in ir/ir_canon.c and update this key. */
Test(ir_graph, golden_key)
{
    json_t *doc = load_example("layernorm.json");
    char key[33];
    key_of(doc, key);
    cr_expect_str_eq(key, GOLDEN_LAYERNORM_KEY, "canonical form changed: %s", key);
    json_decref(doc);
}

/* ---- keys of IR graphs built directly ------------------------------------------------------------- */

/* A DAG of n pointwise ops over n_x alike graph inputs: op i reads src[i] (>= 0: op src[i]'s
 * output; -1 - k: input k) with mode[i], its output virtual when virt[i]. */
typedef struct dag {
    int n_x, n;
    int src[8];
    hipdnnPointwiseMode_t mode[8];
    bool virt[8];
} dag;

/* The key of d with its ops inserted in the order perm (and its inputs in reverse order when
 * x_rev). */
static void dag_key(const dag *d, const int *perm, bool x_rev, ir_key *key)
{
    ir_graph g;
    ir_graph_init(&g);
    ir_tensor x = {.uid = 1, .dtype = HIPDNN_DATA_FLOAT, .rank = 2, .dims = {4, 8}, .strides = {8, 1}};
    int tx[4], tout[8];
    for (int k = 0; k < d->n_x; k++)
        tx[x_rev ? d->n_x - 1 - k : k] = ir_add_tensor(&g, &x), x.uid++;
    for (int i = 0; i < d->n; i++) {
        ir_tensor o = x;
        o.uid = 10 + i, o.is_virtual = d->virt[i];
        tout[i] = ir_add_tensor(&g, &o);
    }
    for (int k = 0; k < d->n; k++) {
        int i = perm[k], src = d->src[i];
        ir_op op = {.kind = IR_OP_POINTWISE, .compute = HIPDNN_DATA_FLOAT, .n_in = 3, .n_out = 1,
                    .in = {src < 0 ? tx[-1 - src] : tout[src], -1, -1}, .out = {tout[i]}};
        op.a.pw.mode = d->mode[i];
        cr_assert_geq(ir_add_op(&g, &op), 0);
    }
    cr_assert_eq(ir_graph_seal(&g), HIPDNN_STATUS_SUCCESS);
    cr_assert_eq(ir_graph_key(&g, key), HIPDNN_STATUS_SUCCESS);
    ir_graph_free(&g);
}

/* How many of d's op insertion orders (all of them; inputs in both orders) give a key other than
 * the first's. */
static int keys_that_differ(const dag *d, int *orders)
{
    int perm[8], differ = 0;
    ir_key first, key;
    for (int i = 0; i < d->n; i++)
        perm[i] = i;
    dag_key(d, perm, false, &first);
    for (*orders = 0;; ++*orders) {
        dag_key(d, perm, *orders % 2 == 1, &key);
        differ += memcmp(key.b, first.b, sizeof key.b) != 0;
        int i = d->n - 2; /* the next permutation in lexicographic order */
        while (i >= 0 && perm[i] > perm[i + 1])
            i--;
        if (i < 0)
            break;
        int j = d->n - 1;
        while (perm[j] < perm[i])
            j--;
        int t = perm[i];
        perm[i] = perm[j], perm[j] = t;
        for (int a = i + 1, b = d->n - 1; a < b; a++, b--)
            t = perm[a], perm[a] = perm[b], perm[b] = t;
    }
    ++*orders;
    return differ;
}

/* Alike ops that read different tensors of equal hashes: every insertion order gives one key
 * (the canonical order once broke their tie by insertion index: 4032 of 5040 orders of the first
 * DAG, found by the API's random key test, seed 1776296718027200020), and a changed wiring gives
 * another. First: x -> two alike producers of virtual tensors, one read by two alike consumers, the
 * other by one, and x -> y -> a third kind. Second: two alike inputs, x0 read by relu and a
 * third op, x1 by relu alone. */
Test(ir_graph, key_of_alike_ops_reading_different_tensors)
{
    const hipdnnPointwiseMode_t E = HIPDNN_POINTWISE_EXP, R = HIPDNN_POINTWISE_RELU_FWD;
    dag d1 = {.n_x = 1, .n = 7, .src = {-1, 0, -1, 2, -1, 0, 4}, .mode = {E, R, E, R, R, R, R},
              .virt = {true, false, true}};
    dag d2 = {.n_x = 2, .n = 3, .src = {-1, -2, -1}, .mode = {R, R, E}};
    int orders;
    cr_expect_eq(keys_that_differ(&d1, &orders), 0, "of %d orders", orders);
    cr_expect_eq(orders, 5040);
    /* the alike pair and the third op in several modes: whether the third is placed before or
     * after the pair depends on how the hashes of the modes compare */
    const hipdnnPointwiseMode_t modes[] = {R, E, HIPDNN_POINTWISE_TANH_FWD, HIPDNN_POINTWISE_SIGMOID_FWD,
                                           HIPDNN_POINTWISE_ABS, HIPDNN_POINTWISE_NEG};
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++) {
            d2.mode[0] = d2.mode[1] = modes[a], d2.mode[2] = modes[b];
            cr_expect_eq(keys_that_differ(&d2, &orders), 0, "modes %d, %d: of %d orders", (int)modes[a],
                         (int)modes[b], orders);
            cr_expect_eq(orders, 6);
        }
    d2.mode[0] = d2.mode[1] = R, d2.mode[2] = E;
    ir_key k1, k2;
    dag_key(&d1, (const int[]){0, 1, 2, 3, 4, 5, 6}, false, &k1);
    d1.src[6] = 0; /* the last op reads the first producer's output: another graph */
    dag_key(&d1, (const int[]){0, 1, 2, 3, 4, 5, 6}, false, &k2);
    cr_expect_neq(memcmp(k1.b, k2.b, sizeof k1.b), 0, "another wiring kept the key");
    dag_key(&d2, (const int[]){0, 1, 2}, false, &k1);
    d2.src[2] = -2; /* exp reads x1: the mirror image, the same graph */
    dag_key(&d2, (const int[]){0, 1, 2}, false, &k2);
    cr_expect_eq(memcmp(k1.b, k2.b, sizeof k1.b), 0, "the mirror image changed the key");
    d2.src[2] = 0; /* exp reads relu's output: another graph */
    dag_key(&d2, (const int[]){0, 1, 2}, false, &k2);
    cr_expect_neq(memcmp(k1.b, k2.b, sizeof k1.b), 0, "another wiring kept the key");
}
