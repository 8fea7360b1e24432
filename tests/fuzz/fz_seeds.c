/* fz_seeds.c — writes the fuzz harnesses' seed corpus: `fz_seeds DIR` (DIR = tests/fuzz/corpus
 * from the repository root) fills DIR/<harness>/ with real inputs made by the library itself:
 *   json_graph/     every examples/graphs/ (every .json), as it is and as the library writes it back
 *   fb_graph/       the same graphs in the FlatBuffer form
 *   api_calls/      each example graph rebuilt as a fuzz_api_calls program (every attribute the
 *                   graph's descriptors hold, set in dependency order, each finalized), then
 *                   heuristics, engine configs (the first ranked one and the reference engine's),
 *                   execution plans and a variant pack
 *   plan_recipe/    the recipe of each fz_graphs.h graph's plan for gfx90a (compile-only, hipRTC:
 *                   Debian's libamdhip64-5), with its kernels' arch and entry names
 *   cache_records/  the first such plan's kernel and plan records, its bundle (plain and with
 *                   the deep-reseal bit) and its KERNEL_CACHE JSON
 *   hip_source/     jit.hip_source payloads (examples/graphs/hip_source_scale.json's, dynamic shared
 *                   memory, a 3-D launch, a refused key) and size expressions
 * Input formats: each harness's header comment. Without hipRTC the plan-based seeds are left
 * out (a message says so). Not a test; run by hand when a format changes.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache/kc_int.h"
#include "hipdnn_jit.h"
#include "engines/fe_engines.h"
#include "fz_graphs.h"

#define MAX_SLOTS 24 /* fuzz_api_calls' POOL */

static const char *out_dir;
static hipdnnHandle_t handle;

static void die(const char *what)
{
    char msg[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnPeekLastErrorString_ext(msg, sizeof msg);
    fprintf(stderr, "fz_seeds: %s [%s]\n", what, msg);
    exit(1);
}

#define OK(call)                                                                                 \
    do {                                                                                        \
        if ((call) != HIPDNN_STATUS_SUCCESS)                                                    \
            die(#call);                                                                         \
    } while (0)

static void write_seed(const char *harness, const char *name, uint8_t mode, bool with_mode, const void *p,
                       size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out_dir, harness);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        die(path);
    snprintf(path, sizeof path, "%s/%s/%s", out_dir, harness, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (with_mode && fwrite(&mode, 1, 1, f) != 1) || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die(path);
    printf("%s (%zu bytes)\n", path, n + with_mode);
}

static char *read_text(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die(path);
    static char buf[1 << 20];
    *n = fread(buf, 1, sizeof buf - 1, f);
    buf[*n] = '\0';
    fclose(f);
    return buf;
}

static hipdnnBackendDescriptor_t finalized_graph(const char *text, size_t n)
{
    hipdnnBackendDescriptor_t g = NULL;
    OK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, n));
    OK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    OK(hipdnnBackendFinalize(g));
    return g;
}

/* ---- fuzz_api_calls programs ------------------------------------------------------------------- */

typedef struct prog {
    base_sb sb;
    const fe_obj *slots[MAX_SLOTS];
    int n_slots;
} prog;

static void u8(prog *p, unsigned v)
{
    char c = (char)v;
    base_sb_putn(&p->sb, &c, 1);
}

static void u16(prog *p, unsigned v) { u8(p, v & 0xff), u8(p, v >> 8); }

/* The TYPE byte naming `type` among fuzz_api_calls' raw types. */
static unsigned type_byte(int64_t type)
{
    return 0xc0 + (type == HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT ? 32
                   : type == HIPDNN_TYPE_OPERATION_TYPE_EXT ? 33 : (unsigned)type);
}

static int new_slot(prog *p, const fe_obj *o)
{
    if (p->n_slots == MAX_SLOTS)
        die("a program needs more slots than fuzz_api_calls has");
    p->slots[p->n_slots] = o;
    return p->n_slots++;
}

static int slot_of(const prog *p, const fe_obj *o)
{
    for (int i = 0; i < p->n_slots; i++)
        if (p->slots[i] == o)
            return i;
    return -1;
}

static void op_create(prog *p, int slot, int type) { u8(p, 0), u8(p, (unsigned)slot), u8(p, (unsigned)type); }
static void op_finalize(prog *p, int slot) { u8(p, 4), u8(p, (unsigned)slot); }

/* SET slot (raw name) TYPE COUNT: the caller appends the values. */
static void op_set(prog *p, int slot, int name, int64_t type, int count)
{
    u8(p, 2), u8(p, (unsigned)slot), u8(p, 0xff), u16(p, (unsigned)name), u8(p, type_byte(type));
    u8(p, (unsigned)count);
}

static void op_get(prog *p, int slot, int name, int64_t type, int requested, const int *slots)
{
    u8(p, 3), u8(p, (unsigned)slot), u8(p, 0xff), u16(p, (unsigned)name), u8(p, type_byte(type));
    u8(p, (unsigned)requested), u8(p, 0);
    for (int i = 0; type == HIPDNN_TYPE_BACKEND_DESCRIPTOR && i < requested; i++)
        u8(p, (unsigned)slots[i]);
}

static void set_desc(prog *p, int slot, int name, int value)
{
    op_set(p, slot, name, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1);
    u8(p, (unsigned)value);
}

static void set_i64(prog *p, int slot, int name, int64_t type, int64_t v, size_t size)
{
    op_set(p, slot, name, type, 1);
    for (size_t i = 0; i < size; i++)
        u8(p, (unsigned)((uint64_t)v >> (8 * i)) & 0xff);
}

static int emit_obj(prog *p, const fe_obj *o);

/* The elements of one stored value, as fuzz_api_calls reads them. */
static void emit_values(prog *p, const fe_attr *a, const fe_val *v)
{
    const void *src = a->shape == FE_ONE ? (const void *)&v->one : v->arr;
    for (int64_t i = 0; i < v->n; i++) {
        if (v->type == HIPDNN_TYPE_BACKEND_DESCRIPTOR)
            u8(p, (unsigned)slot_of(p, ((fe_obj *const *)src)[i]));
        else if (v->type == HIPDNN_TYPE_HANDLE || v->type == HIPDNN_TYPE_VOID_PTR)
            u8(p, 1);
        else {
            size_t size = v->type == HIPDNN_TYPE_BOOLEAN || v->type == HIPDNN_TYPE_CHAR ? 1
                          : v->type == HIPDNN_TYPE_INT64 || v->type == HIPDNN_TYPE_DOUBLE ? 8 : 4;
            base_sb_putn(&p->sb, (const char *)src + i * (int64_t)size, size);
        }
    }
}

/* Every descriptor o's values point to, then o: created, each set attribute set, finalized. */
static int emit_obj(prog *p, const fe_obj *o)
{
    int have = slot_of(p, o);
    if (have >= 0)
        return have;
    const fe_class *c = o->cls;
    int n = c->n_attrs + (c->op_type != 0 ? fe_n_op_common_attrs : 0);
    for (int i = 0; i < n; i++) {
        const fe_attr *a = i < c->n_attrs ? &c->attrs[i] : &fe_op_common_attrs[i - c->n_attrs];
        const fe_val *v = fe_val_of((fe_obj *)o, a);
        for (int64_t k = 0; v->n > 0 && v->type == HIPDNN_TYPE_BACKEND_DESCRIPTOR && k < v->n; k++)
            emit_obj(p, a->shape == FE_ONE ? v->one.obj : ((fe_obj *const *)v->arr)[k]);
    }
    int s = new_slot(p, o);
    op_create(p, s, c->type);
    for (int i = 0; i < n; i++) {
        const fe_attr *a = i < c->n_attrs ? &c->attrs[i] : &fe_op_common_attrs[i - c->n_attrs];
        const fe_val *v = fe_val_of((fe_obj *)o, a);
        if (v->n == 0 || v->n > 64)
            continue;
        op_set(p, s, a->id, v->type, (int)v->n);
        emit_values(p, a, v);
    }
    op_finalize(p, s);
    return s;
}

/* The graph's descriptors, then heuristics, the first ranked config, the reference engine's
 * config, a plan of each and a variant pack. */
static void api_program(const char *stem, hipdnnBackendDescriptor_t g)
{
    prog p = {0};
    int gs = emit_obj(&p, g->obj);
    int heur = new_slot(&p, NULL), cfg = new_slot(&p, NULL), eng = new_slot(&p, NULL);
    int ref_cfg = new_slot(&p, NULL), plan = new_slot(&p, NULL), pack = new_slot(&p, NULL);
    op_create(&p, heur, HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    set_i64(&p, heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, HIPDNN_HEUR_MODE_FALLBACK, 4);
    set_desc(&p, heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, gs);
    op_finalize(&p, heur);
    op_get(&p, heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, NULL);
    op_create(&p, cfg, HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    op_get(&p, heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
    op_finalize(&p, cfg);
    op_create(&p, eng, HIPDNN_BACKEND_ENGINE_DESCRIPTOR);
    set_desc(&p, eng, HIPDNN_ATTR_ENGINE_OPERATION_GRAPH, gs);
    set_i64(&p, eng, HIPDNN_ATTR_ENGINE_GLOBAL_INDEX, HIPDNN_TYPE_INT64, fe_reference_engine.id, 8);
    op_finalize(&p, eng);
    op_get(&p, eng, HIPDNN_ATTR_ENGINE_KNOB_INFO, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 0, NULL);
    op_create(&p, ref_cfg, HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    set_desc(&p, ref_cfg, HIPDNN_ATTR_ENGINECFG_ENGINE, eng);
    op_finalize(&p, ref_cfg);
    for (int c = 0; c < 2; c++) {
        op_create(&p, plan, HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        op_set(&p, plan, HIPDNN_ATTR_EXECUTION_PLAN_HANDLE, HIPDNN_TYPE_HANDLE, 1), u8(&p, 1);
        set_desc(&p, plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, c == 0 ? cfg : ref_cfg);
        op_finalize(&p, plan);
        op_get(&p, plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, NULL);
        op_get(&p, plan, HIPDNN_ATTR_EXECUTION_PLAN_TENSOR_UIDS_EXT, HIPDNN_TYPE_INT64, 16, NULL);
    }
    op_create(&p, pack, HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    const fe_graph_info *gi = &fe_graph_of(g->obj)->gi;
    int n = gi->n_tensors < 16 ? gi->n_tensors : 16;
    op_set(&p, pack, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, n);
    for (int i = 0; i < n; i++) {
        int64_t uid = fe_tensor(gi->tensors[i].t).uid;
        base_sb_putn(&p.sb, (const char *)&uid, 8);
    }
    op_set(&p, pack, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, n);
    for (int i = 0; i < n; i++)
        u8(&p, (unsigned)(8 * i + 8));
    op_finalize(&p, pack);
    char name[300];
    snprintf(name, sizeof name, "%s.prog", stem);
    write_seed("api_calls", name, 0, false, p.sb.p, p.sb.len);
    base_sb_free(&p.sb);
}

/* ---- graphs ------------------------------------------------------------------------------------ */

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void graph_seeds(void)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/examples/graphs", HIPDNN_SOURCE_DIR);
    DIR *d = opendir(dir);
    if (d == NULL)
        die(dir);
    char *names[64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 64)
        if (strlen(e->d_name) > 5 && strcmp(e->d_name + strlen(e->d_name) - 5, ".json") == 0)
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (int i = 0; i < n; i++) {
        char path[4096], stem[256], name[300];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(stem, sizeof stem, "%.*s", (int)strlen(names[i]) - 5, names[i]);
        size_t len;
        const char *text = read_text(path, &len);
        write_seed("json_graph", names[i], 0, false, text, len);
        hipdnnBackendDescriptor_t g = finalized_graph(text, len);
        size_t blen = 0;
        OK(hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &blen, NULL));
        uint8_t *bin = malloc(blen);
        OK(hipdnnBackendGetSerializedBinaryGraph_ext(g, blen, &blen, bin));
        snprintf(name, sizeof name, "%s.fb", stem);
        write_seed("fb_graph", name, 0, false, bin, blen);
        size_t jlen = 0;
        OK(hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &jlen, NULL));
        char *json = malloc(jlen);
        OK(hipdnnBackendGetSerializedJsonGraph_ext(g, jlen, &jlen, json));
        snprintf(name, sizeof name, "%s.written.json", stem);
        if (jlen - 1 != len || memcmp(json, text, len) != 0)
            write_seed("json_graph", name, 0, false, json, jlen - 1);
        api_program(stem, g);
        free(bin), free(json), free(names[i]);
        OK(hipdnnBackendDestroyDescriptor(g));
    }
}

/* ---- plans, records, bundles -------------------------------------------------------------------- */

/* The compile-only gfx90a plan of a graph, built into a memory KERNEL_CACHE; returns that cache. */
static hipdnnBackendDescriptor_t plan_cache(hipdnnBackendDescriptor_t g)
{
    hipdnnBackendDescriptor_t kc = NULL, heur = NULL, cfg = NULL, plan = NULL;
    OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR, &kc));
    OK(hipdnnBackendFinalize(kc));
    hipdnnBackendHeurMode_t mode = HIPDNN_HEUR_MODE_FALLBACK;
    int64_t n = 0;
    OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_MODE, HIPDNN_TYPE_HEUR_MODE, 1, &mode));
    OK(hipdnnBackendSetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &g));
    OK(hipdnnBackendFinalize(heur));
    OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    OK(hipdnnBackendGetAttribute(heur, HIPDNN_ATTR_ENGINEHEUR_RESULTS, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &cfg));
    OK(hipdnnBackendFinalize(cfg));
    OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                 &cfg));
    OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, HIPDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                 &kc));
    OK(hipdnnBackendSetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_HANDLE, HIPDNN_TYPE_HANDLE, 1, &handle));
    OK(hipdnnBackendFinalize(plan));
    OK(hipdnnBackendDestroyDescriptor(plan));
    OK(hipdnnBackendDestroyDescriptor(cfg));
    OK(hipdnnBackendDestroyDescriptor(heur));
    return kc;
}

typedef struct entry {
    kc_table table;
    const uint8_t *rec;
    size_t len;
} entry;

/* The records of a bundle (layout: cache/kc_bundle.c). */
static int bundle_entries(const uint8_t *b, size_t len, entry *out, int max)
{
    int n = 0;
    for (size_t at = 32; at + 40 <= len - 16 && n < max; n++) {
        out[n] = (entry){.table = b[at], .rec = b + at + 40, .len = (size_t)kc__get64(b + at + 24)};
        at += 40 + ((out[n].len + 7) & ~(size_t)7);
    }
    return n;
}

static const entry *kernel_entry(const entry *e, int n, const kc_key *key)
{
    for (int i = 0; i < n; i++)
        if (e[i].table == KC_TABLE_KERNEL && memcmp(e[i].rec + 8, key->b, KC_KEY_SIZE) == 0)
            return &e[i];
    die("a plan's kernel is not in its bundle");
    return NULL;
}

/* [graph number][kernel count][arch, entry per kernel][recipe]: fuzz_plan_recipe's input. */
static void recipe_seed(int graph, const char *stem, const entry *e, int n)
{
    for (int i = 0; i < n; i++) {
        kc_plan plan;
        if (e[i].table != KC_TABLE_PLAN || kc__plan_check(e[i].rec, e[i].len, NULL, NULL, &plan) != NULL)
            continue;
        base_sb sb = {0};
        char head[2] = {(char)graph, (char)plan.n_kernels};
        base_sb_putn(&sb, head, 2);
        for (size_t k = 0; k < plan.n_kernels; k++) {
            const entry *ke = kernel_entry(e, n, &plan.kernels[k]);
            kc_kernel kr;
            if (kc__kernel_check(ke->rec, ke->len, NULL, true, &kr) != NULL)
                die("a bad kernel record in a fresh bundle");
            char la = (char)strlen(kr.arch), le = (char)strlen(kr.entry);
            base_sb_putn(&sb, &la, 1), base_sb_puts(&sb, kr.arch);
            base_sb_putn(&sb, &le, 1), base_sb_puts(&sb, kr.entry);
        }
        base_sb_putn(&sb, plan.recipe, plan.recipe_size);
        char name[300];
        snprintf(name, sizeof name, "%s.recipe", stem);
        write_seed("plan_recipe", name, 0, false, sb.p, sb.len);
        base_sb_free(&sb);
    }
}

/* The records, the bundle and the JSON of one plan's cache: fuzz_cache_records' inputs. */
static void record_seeds(const char *stem, hipdnnBackendDescriptor_t kc, const uint8_t *b, size_t len,
                         const entry *e, int n)
{
    char name[300];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s.%s%d", stem, e[i].table == KC_TABLE_KERNEL ? "kernel" : "plan", i);
        write_seed("cache_records", name, e[i].table == KC_TABLE_KERNEL ? 0 : 1, true, e[i].rec, e[i].len);
    }
    snprintf(name, sizeof name, "%s.bundle", stem);
    write_seed("cache_records", name, 2, true, b, len);
    snprintf(name, sizeof name, "%s.bundle-deep", stem);
    write_seed("cache_records", name, 2 | 8, true, b, len);
    int64_t jn = 0;
    OK(hipdnnBackendGetAttribute(kc, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT, HIPDNN_TYPE_CHAR, 0, &jn,
                                 NULL));
    char *json = malloc((size_t)jn);
    OK(hipdnnBackendGetAttribute(kc, HIPDNN_ATTR_KERNEL_CACHE_JSON_REPRESENTATION_EXT, HIPDNN_TYPE_CHAR, jn, &jn,
                                 json));
    snprintf(name, sizeof name, "%s.cache.json", stem);
    write_seed("cache_records", name, 3, true, json, (size_t)jn - 1);
    free(json);
}

static void plan_seeds(void)
{
    if (hipdnnSetCompileTarget_ext(FZ_PLAN_ARCH, 0) != HIPDNN_STATUS_SUCCESS) {
        fprintf(stderr, "fz_seeds: no compiler for %s (hipRTC): plan_recipe and cache_records seeds left out\n",
                FZ_PLAN_ARCH);
        return;
    }
    for (int i = 0; i < FZ_N_PLAN_GRAPHS; i++) {
        char path[4096], stem[256];
        snprintf(path, sizeof path, "%s/examples/graphs/%s", HIPDNN_SOURCE_DIR, fz_plan_graphs[i]);
        snprintf(stem, sizeof stem, "%.*s", (int)strlen(fz_plan_graphs[i]) - 5, fz_plan_graphs[i]);
        size_t len;
        const char *text = read_text(path, &len);
        hipdnnBackendDescriptor_t g = finalized_graph(text, len);
        hipdnnBackendDescriptor_t kc = plan_cache(g);
        uint8_t *b = NULL;
        size_t blen = 0, n_records = 0;
        OK(kc_export_mem(fe_kernel_cache_of(kc->obj), &b, &blen, &n_records));
        entry e[64];
        int n = bundle_entries(b, blen, e, 64);
        recipe_seed(i, stem, e, n);
        if (i == 0)
            record_seeds(stem, kc, b, blen, e, n);
        base_free(b);
        OK(hipdnnBackendDestroyDescriptor(kc));
        OK(hipdnnBackendDestroyDescriptor(g));
    }
}

/* ---- hip_source: jit.hip_source payloads and size expressions ------------------------------------------- */

/* The payload bytes of examples/graphs/hip_source_scale.json's custom op. */
static void example_payload(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/graphs/hip_source_scale.json", HIPDNN_SOURCE_DIR);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    json_t *data = json_object_get(json_object_get(json_array_get(json_object_get(doc, "nodes"), 0), "attributes"),
                                   "data");
    if (!json_is_array(data))
        die(path);
    size_t n = json_array_size(data);
    char *bytes = malloc(n + 1);
    if (bytes == NULL)
        die("out of memory");
    for (size_t i = 0; i < n; i++)
        bytes[i] = (char)json_integer_value(json_array_get(data, i));
    write_seed("hip_source", "scale_example.json", 0, false, bytes, n);
    free(bytes);
    json_decref(doc);
}

static void hip_source_seeds(void)
{
    static const char *const seeds[][2] = {
        {"rowmax_dynamic_shared.json",
         "{\"source\": \"extern __shared__ float m[];\\nextern \\\"C\\\" __global__ void rowmax(const float *x, "
         "float *y, long long c) { m[0] = x[0]; y[blockIdx.x] = m[0]; }\", \"entry\": \"rowmax\", \"block\": [128], "
         "\"grid\": [\"dim(in0, 0) * dim(in0, 1)\"], \"shared_bytes\": 16, \"args\": [\"in0\", \"out0\", "
         "\"dim(in0, -1)\"]}"},
        {"launch_3d.json",
         "{\"source\": \"__global__ void k3(float *a, float *b, long long n) {}\", \"entry\": \"k3\", "
         "\"block\": [8, 4, 2], \"grid\": [\"cdiv(numel(in0), 64)\", 3, \"max(rank(in1), min(2, 5))\"], "
         "\"args\": [\"out1\", \"out0\", 7, -3, \"-stride(in0, -2) % 3\", \"stride(out1, 0) / 1024\"]}"},
        {"unknown_key.json", "{\"source\": \"k\", \"entry\": \"k\", \"blocks\": [1], \"grid\": [1], \"args\": []}"},
        {"expr_cdiv.txt", "cdiv(numel(out0), 256)"},
        {"expr_precedence.txt", "-stride(in0, -1) * (dim(in0, 2) + 3) % 7 - -2"},
        {"expr_overflow.txt", "numel(out1)"},
        {"expr_nested.txt", "max(min(rank(in1), 2), dim(out1, -3) / 1024) + ((((1))))"},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        write_seed("hip_source", seeds[i][0], 0, false, seeds[i][1], strlen(seeds[i][1]));
    example_payload();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fz_seeds DIR   (DIR: tests/fuzz/corpus)\n");
        return 2;
    }
    out_dir = argv[1];
    setenv("HIPDNN_CACHE_DISABLE", "1", 1);
    OK(hipdnnCreate(&handle));
    graph_seeds();
    hip_source_seeds();
    plan_seeds();
    OK(hipdnnDestroy(handle));
    return 0;
}
