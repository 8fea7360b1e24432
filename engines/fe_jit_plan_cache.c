/* fe_jit_plan_cache.c — JIT plans in the kernel cache's plan table, so that a plan for a graph seen
 * before (in this process, another one, or on a machine that warmed the cache) is built without
 * lowering, partitioning or code generation: its recipe says which kernels to load and how to
 * launch them.
 *
 * Plan key: kc_plan_key with graph = XXH3-128 over the canonical graph key, the target (arch,
 * platform, multiprocessor count), the templates' hash and this library's source ID
 * (base_build_id: a recipe describes what this code's generator decided; a library built from
 * other sources recomputes it, while the shared and static builds of one tree share records),
 * plus the engine id and its knob values.
 * The run-time compiler is not in the plan key: loading NVRTC or hipRTC just to learn its version
 * costs milliseconds, more than the whole plan build from the cache. The recipe records the
 * compiler (id and version) that built its kernels instead; when this process has the compiler
 * loaded anyway and it is another version, the record is a miss (rebuilt and replaced). So a
 * compiler upgrade reaches a cached plan the first time a process that compiles builds it;
 * until then the cached code objects, valid for the arch, keep serving. Kernel keys always
 * include the compiler version.
 * Recipe (little-endian): magic "HJPR", version, the compiler (id, major, minor), a description
 * for tools (arch, multiprocessor count, the canonical graph key, the op count and names: read
 * by fe_jit_plan_describe, skipped by a plan load), the canonical tensor count, the scratch offset,
 * the workspace slots (canonical tensor, offset), then per kernel: entry, arch, grid, block,
 * shared memory, alignment, scratch bytes, arguments (kind, canonical tensor, tensor-map fields,
 * int64 value) and further launches (entry, grid, block, shared memory, dependent). Tensors are named by
 * their canonical number (ir_graph_canon, kept by the graph), so a graph that differs only in uids or op order
 * maps onto the same recipe. Decoding checks every count and index against this graph; any
 * mismatch is a miss.
 */
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "engines/fe_jit.h"

#define RECIPE_MAGIC "HJPR"
#define RECIPE_VERSION ((uint32_t)FE_PLAN_RECIPE_VERSION)
#define STR_(x) #x
#define STR(x) STR_(x)
#define PLAN_KEY_FORMAT "hipdnn-jit plan key " STR(FE_PLAN_KEY_SCHEMA)
#define DESC_OPS_MAX 255

/* ---- plan key ----------------------------------------------------------------------------------- */

static void put_field(XXH3_state_t *s, const void *p, size_t n)
{
    uint64_t len = n;
    XXH3_128bits_update(s, &len, sizeof len); /* length first: fields cannot run together */
    XXH3_128bits_update(s, p, n);
}

void fe_jit_plan_ref_make(const fe_graph_state *g, const fe_target *t, int64_t engine_id, const int64_t *knobs,
                          int n_knobs, fe_jit_plan_ref *ref)
{
    *ref = (fe_jit_plan_ref){0};
    const uint8_t *build_id;
    size_t n_id = base_build_id(&build_id);
    if (n_id == 0 || g->key[0] == '\0' || n_knobs > FE_MAX_KNOBS)
        return;
    XXH3_state_t *s = XXH3_createState();
    if (s == NULL)
        return;
    int64_t nums[2] = {t->sm_count, (int64_t)cg_templates_hash()};
    XXH3_128bits_reset(s);
    put_field(s, PLAN_KEY_FORMAT, strlen(PLAN_KEY_FORMAT));
    put_field(s, g->key, strlen(g->key));
    put_field(s, t->arch, strlen(t->arch));
    put_field(s, t->platform, strlen(t->platform));
    put_field(s, nums, sizeof nums);
    put_field(s, build_id, n_id);
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(s));
    XXH3_freeState(s);
    memcpy(ref->key.graph.b, c.digest, sizeof ref->key.graph.b);
    memcpy(ref->knobs, knobs, (size_t)n_knobs * sizeof *knobs);
    ref->key.engine_id = engine_id;
    ref->key.knobs = ref->knobs;
    ref->key.n_knobs = (size_t)n_knobs;
    ref->sm_count = t->sm_count;
    ref->valid = true;
}

/* ---- recipe: writing ---------------------------------------------------------------------------- */

static void put_u32(base_sb *sb, uint32_t v)
{
    char b[4] = {(char)v, (char)(v >> 8), (char)(v >> 16), (char)(v >> 24)};
    base_sb_putn(sb, b, 4);
}

static void put_i64(base_sb *sb, int64_t v)
{
    put_u32(sb, (uint32_t)((uint64_t)v & 0xffffffffu));
    put_u32(sb, (uint32_t)((uint64_t)v >> 32));
}

static void put_str(base_sb *sb, const char *s)
{
    put_u32(sb, (uint32_t)strlen(s));
    base_sb_putn(sb, s, strlen(s));
}

static void put_dims(base_sb *sb, const unsigned grid[3], const unsigned block[3], unsigned smem)
{
    for (int i = 0; i < 3; i++)
        put_u32(sb, grid[i]);
    for (int i = 0; i < 3; i++)
        put_u32(sb, block[i]);
    put_u32(sb, smem);
}

/* False when a tensor the plan names has no canonical number (then nothing is stored). */
static bool put_kernel(base_sb *sb, const jit_kernel *k, const int *tid)
{
    const cg_kernel *cg = &k->cg;
    put_str(sb, cg->entry), put_str(sb, cg->arch);
    put_dims(sb, cg->grid, cg->block, cg->smem);
    put_u32(sb, (uint32_t)cg->align), put_i64(sb, cg->scratch);
    put_u32(sb, (uint32_t)cg->n_args);
    for (int a = 0; a < cg->n_args; a++) {
        const cg_arg *arg = &cg->args[a];
        int canon = arg->tensor >= 0 ? tid[arg->tensor] : -1;
        if (arg->tensor >= 0 && canon < 0)
            return false;
        put_u32(sb, (uint32_t)arg->kind), put_i64(sb, canon);
        put_u32(sb, (uint32_t)arg->map.rank);
        for (int i = 0; i < CG_TMAP_MAX_RANK; i++)
            put_i64(sb, (int64_t)arg->map.dims[i]);
        for (int i = 0; i < CG_TMAP_MAX_RANK - 1; i++)
            put_i64(sb, (int64_t)arg->map.strides[i]);
        for (int i = 0; i < CG_TMAP_MAX_RANK; i++)
            put_u32(sb, arg->map.box[i]);
        put_i64(sb, arg->value);
    }
    put_u32(sb, (uint32_t)cg->n_then);
    for (int i = 0; i < cg->n_then; i++) {
        put_str(sb, cg->then[i].entry);
        put_dims(sb, cg->then[i].grid, cg->then[i].block, cg->then[i].smem);
        put_u32(sb, cg->then[i].dependent);
    }
    return true;
}

/* The graph's op names in order, comma separated, cut with "..." past DESC_OPS_MAX bytes. */
static void op_names(const ir_graph *ir, char out[DESC_OPS_MAX + 1])
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < ir->n_ops; i++) {
        const char *name = ir_op_info_of(ir->ops[i].kind)->name;
        size_t need = strlen(name) + (i > 0);
        if (used + need > DESC_OPS_MAX - 4) {
            snprintf(out + used, DESC_OPS_MAX + 1 - used, "%s...", i > 0 ? "," : "");
            return;
        }
        used += (size_t)snprintf(out + used, DESC_OPS_MAX + 1 - used, "%s%s", i > 0 ? "," : "", name);
    }
}

/* What tools show of a plan record (fe_jit_plan_describe reads it back). */
static void put_description(base_sb *sb, const fe_plan_impl *p, int sm_count)
{
    char ops[DESC_OPS_MAX + 1];
    op_names(p->g->ir, ops);
    put_str(sb, p->arch), put_u32(sb, (uint32_t)sm_count);
    put_str(sb, p->g->key);
    put_u32(sb, (uint32_t)p->g->ir->n_ops), put_str(sb, ops);
}

static bool encode(const fe_plan_impl *p, int sm_count, const int *tid, int n_canon, base_sb *sb)
{
    const ir_graph *ir = p->g->ir;
    rt_compiler_info cc;
    if (rt_compiler_for(p->arch, &cc) != HIPDNN_STATUS_SUCCESS)
        return false;
    base_sb_putn(sb, RECIPE_MAGIC, 4);
    put_u32(sb, RECIPE_VERSION);
    put_str(sb, cc.id), put_u32(sb, (uint32_t)cc.major), put_u32(sb, (uint32_t)cc.minor);
    put_description(sb, p, sm_count);
    put_i64(sb, n_canon), put_i64(sb, p->scratch_offset);
    int n_slots = 0;
    for (int i = 0; i < ir->n_t; i++)
        n_slots += p->ws_offset[i] >= 0;
    put_u32(sb, (uint32_t)n_slots);
    for (int i = 0; i < ir->n_t; i++) {
        if (p->ws_offset[i] < 0)
            continue;
        if (tid[i] < 0)
            return false;
        put_i64(sb, tid[i]), put_i64(sb, p->ws_offset[i]);
    }
    put_u32(sb, (uint32_t)p->n_kernels);
    for (int k = 0; k < p->n_kernels; k++)
        if (!put_kernel(sb, &p->k[k], tid))
            return false;
    return !sb->oom;
}

/* ---- recipe: reading ---------------------------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
    bool bad;
} reader;

static uint32_t get_u32(reader *r)
{
    if (r->bad || r->n - r->at < 4) {
        r->bad = true;
        return 0;
    }
    const uint8_t *b = r->p + r->at;
    r->at += 4;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static int64_t get_i64(reader *r)
{
    uint64_t lo = get_u32(r), hi = get_u32(r);
    return (int64_t)(lo | hi << 32);
}

/* A value in [lo, hi]; anything else marks the reader bad. */
static int64_t get_in(reader *r, int64_t lo, int64_t hi)
{
    int64_t v = get_i64(r);
    r->bad |= v < lo || v > hi;
    return r->bad ? lo : v;
}

static uint32_t get_u32_max(reader *r, uint32_t hi)
{
    uint32_t v = get_u32(r);
    r->bad |= v > hi;
    return r->bad ? 0 : v;
}

static void get_str(reader *r, char *out, size_t cap)
{
    uint32_t n = get_u32_max(r, (uint32_t)cap - 1);
    if (r->bad || r->n - r->at < n) {
        r->bad = true;
        out[0] = '\0';
        return;
    }
    memcpy(out, r->p + r->at, n);
    out[n] = '\0';
    r->at += n;
}

static void get_dims(reader *r, unsigned grid[3], unsigned block[3], unsigned *smem)
{
    for (int i = 0; i < 3; i++)
        grid[i] = get_u32(r);
    for (int i = 0; i < 3; i++)
        block[i] = get_u32(r);
    *smem = get_u32(r);
}

/* Canonical tensor number -> this graph's IR tensor (or -1 for "none"). */
static int tensor_of(reader *r, const int *ir_of, int n_canon, bool allow_none)
{
    int64_t c = get_in(r, allow_none ? -1 : 0, n_canon - 1);
    return c < 0 ? -1 : ir_of[c];
}

static void get_kernel(reader *r, jit_kernel *k, const int *ir_of, int n_canon)
{
    cg_kernel *cg = &k->cg;
    get_str(r, k->names[0], sizeof k->names[0]);
    cg->entry = k->names[0];
    get_str(r, cg->arch, sizeof cg->arch);
    get_dims(r, cg->grid, cg->block, &cg->smem);
    cg->align = (int)get_u32_max(r, 4096);
    cg->scratch = get_in(r, 0, INT64_MAX);
    cg->n_args = (int)get_u32_max(r, CG_MAX_ARGS);
    int maps = 0;
    for (int a = 0; a < cg->n_args && !r->bad; a++) {
        cg_arg *arg = &cg->args[a];
        arg->kind = (cg_arg_kind)get_u32_max(r, CG_ARG_COUNTER);
        maps += arg->kind == CG_ARG_TMAP;
        r->bad |= maps > CG_MAX_TMAPS;
        bool needs_tensor = arg->kind != CG_ARG_WORKSPACE && arg->kind != CG_ARG_INT64 && arg->kind != CG_ARG_COUNTER;
        arg->tensor = tensor_of(r, ir_of, n_canon, !needs_tensor);
        r->bad |= needs_tensor && arg->tensor < 0;
        arg->map.rank = (int)get_u32_max(r, CG_TMAP_MAX_RANK);
        for (int i = 0; i < CG_TMAP_MAX_RANK; i++)
            arg->map.dims[i] = (uint64_t)get_in(r, 0, INT64_MAX);
        for (int i = 0; i < CG_TMAP_MAX_RANK - 1; i++)
            arg->map.strides[i] = (uint64_t)get_in(r, 0, INT64_MAX);
        for (int i = 0; i < CG_TMAP_MAX_RANK; i++)
            arg->map.box[i] = get_u32(r);
        arg->value = get_i64(r);
    }
    cg->n_then = (int)get_u32_max(r, CG_MAX_LAUNCHES - 1);
    for (int i = 0; i < cg->n_then && !r->bad; i++) {
        get_str(r, k->names[i + 1], sizeof k->names[i + 1]);
        cg->then[i].entry = k->names[i + 1];
        get_dims(r, cg->then[i].grid, cg->then[i].block, &cg->then[i].smem);
        cg->then[i].dependent = get_u32_max(r, 1) != 0;
    }
}

/* The recorded compiler: another version than the one this process has loaded is stale. */
static void check_compiler(reader *r, const char *arch)
{
    char id[32];
    get_str(r, id, sizeof id);
    uint32_t major = get_u32(r), minor = get_u32(r);
    rt_compiler_info cc;
    if (!r->bad && rt_compiler_loaded(arch, &cc))
        r->bad = strcmp(cc.id, id) != 0 || (uint32_t)cc.major != major || (uint32_t)cc.minor != minor;
}

/* The description after the compiler (put_description); d may be NULL to skip it. */
static void get_description(reader *r, fe_plan_desc *d)
{
    fe_plan_desc skip;
    d = d != NULL ? d : &skip;
    get_str(r, d->arch, sizeof d->arch);
    d->sm_count = (int)get_u32_max(r, INT32_MAX);
    get_str(r, d->graph_key, sizeof d->graph_key);
    d->n_ops = (int)get_u32_max(r, INT32_MAX);
    get_str(r, d->ops, sizeof d->ops);
}

bool fe_jit_plan_describe(const void *recipe, size_t n, fe_plan_desc *out)
{
    *out = (fe_plan_desc){0};
    reader r = {.p = recipe, .n = n};
    r.bad = recipe == NULL || n < 4 || memcmp(recipe, RECIPE_MAGIC, 4) != 0;
    r.at = 4;
    r.bad |= get_u32(&r) != RECIPE_VERSION;
    get_str(&r, out->compiler, sizeof out->compiler);
    out->cc_major = (int)get_u32_max(&r, INT32_MAX), out->cc_minor = (int)get_u32_max(&r, INT32_MAX);
    get_description(&r, out);
    out->n_tensors = get_in(&r, 0, INT32_MAX);
    if (r.bad)
        *out = (fe_plan_desc){0};
    return !r.bad;
}

/* Fills p's kernels and workspace layout from the recipe; false when it does not fit g. */
static bool decode(const void *bytes, size_t n, const fe_graph_state *g, size_t n_kernels, fe_plan_impl *p)
{
    const ir_graph *ir = g->ir;
    const int *tid = g->canon_tid, n_canon = g->n_canon;
    int *ir_of = base_malloc(((size_t)ir->n_t + 1) * sizeof *ir_of);
    reader r = {.p = bytes, .n = n};
    r.bad = ir_of == NULL;
    for (int i = 0; !r.bad && i < ir->n_t; i++)
        if (tid[i] >= 0)
            ir_of[tid[i]] = i;
    r.bad |= n < 4 || memcmp(bytes, RECIPE_MAGIC, 4) != 0;
    r.at = 4;
    r.bad |= get_u32(&r) != RECIPE_VERSION;
    check_compiler(&r, p->arch);
    get_description(&r, NULL);
    r.bad |= get_i64(&r) != n_canon;
    p->scratch_offset = get_in(&r, 0, INT64_MAX);
    for (int i = 0; i < ir->n_t; i++)
        p->ws_offset[i] = -1;
    uint32_t n_slots = get_u32_max(&r, (uint32_t)n_canon);
    for (uint32_t s = 0; s < n_slots && !r.bad; s++) {
        int t = tensor_of(&r, ir_of, n_canon, false);
        int64_t off = get_in(&r, 0, p->scratch_offset);
        r.bad |= !ir->t[t].is_virtual;
        if (!r.bad)
            p->ws_offset[t] = off;
    }
    r.bad |= get_u32(&r) != n_kernels;
    for (size_t k = 0; k < n_kernels && !r.bad; k++)
        get_kernel(&r, &p->k[k], ir_of, n_canon);
    base_free(ir_of);
    return !r.bad && r.at == r.n;
}

/* ---- the plan table ----------------------------------------------------------------------------- */

/* The kernel's code object from the cache, checked to be the kernel the recipe names. */
static bool kernel_record(kc_cache *c, const jit_kernel *k, kc_kernel *rec)
{
    if (!kc_get_kernel(c, &k->key, rec))
        return false;
    if (strcmp(rec->arch, k->cg.arch) == 0 && strcmp(rec->entry, k->cg.entry) == 0)
        return true;
    kc_kernel_release(rec);
    return false;
}

static bool load_kernel(kc_cache *c, jit_kernel *k, bool compile_only)
{
    rt_module *m;
    if (!compile_only && fe_module_find(&k->key, &m)) {
        k->module = m;
        return fe_jit_load(k, NULL, 0) == HIPDNN_STATUS_SUCCESS;
    }
    kc_kernel rec;
    if (!kernel_record(c, k, &rec))
        return false;
    bool ok = compile_only || fe_jit_load(k, rec.code, rec.code_size) == HIPDNN_STATUS_SUCCESS;
    kc_kernel_release(&rec);
    return ok;
}

bool fe_jit_plan_load(kc_cache *c, const fe_jit_plan_ref *ref, const fe_graph_state *g, const fe_target *t,
                      fe_build_stats *stats, fe_plan_impl **out)
{
    kc_plan rec;
    if (c == NULL || !ref->valid || !kc_get_plan(c, &ref->key, &rec))
        return false;
    fe_plan_impl *p = base_calloc(1, sizeof *p);
    bool ok = p != NULL && rec.n_kernels <= (size_t)INT32_MAX;
    if (ok) {
        p->g = g, p->compile_only = t->compile_only;
        snprintf(p->arch, sizeof p->arch, "%s", t->arch);
        p->k = base_calloc(rec.n_kernels + 1, sizeof *p->k);
        p->ws_offset = base_malloc(((size_t)g->ir->n_t + 1) * sizeof *p->ws_offset);
        ok = p->k != NULL && p->ws_offset != NULL && decode(rec.recipe, rec.recipe_size, g, rec.n_kernels, p);
    }
    for (size_t k = 0; ok && k < rec.n_kernels; k++, p->n_kernels++) {
        p->k[k].key = rec.kernels[k];
        ok = load_kernel(c, &p->k[k], t->compile_only);
    }
    if (ok)
        *stats = (fe_build_stats){.kernels = p->n_kernels, .cached = p->n_kernels, .plan_cached = 1};
    else if (p != NULL)
        fe_jit_destroy(p);
    kc_plan_release(&rec);
    base_log(HIPDNN_SEV_INFO, "jit: plan %s from the kernel cache%s", g->key, ok ? "" : ": unusable, building it");
    base_detail(BASE_DETAIL_DEBUG, "jit: plan %s: %s", g->key,
                ok ? "hit in the plan table (no lowering, no codegen, no compile)" : "plan table record unusable");
    if (ok)
        *out = p;
    return ok;
}

bool fe_jit_plan_store(kc_cache *c, const fe_jit_plan_ref *ref, const fe_plan_impl *p)
{
    if (c == NULL || !ref->valid)
        return true; /* nothing to store it in, or a plan the table cannot key */
    kc_key *keys = base_malloc(((size_t)p->n_kernels + 1) * sizeof *keys);
    base_sb sb = {0};
    bool ok = keys != NULL && encode(p, ref->sm_count, p->g->canon_tid, p->g->n_canon, &sb);
    for (int k = 0; ok && k < p->n_kernels; k++)
        keys[k] = p->k[k].key;
    kc_plan rec = {.kernels = keys, .n_kernels = (size_t)p->n_kernels, .recipe = sb.p, .recipe_size = sb.len};
    bool oom = keys == NULL || sb.oom, stored = !ok && !oom; /* a recipe the table cannot hold: nothing to store */
    if (ok)
        stored = kc_put_plan(c, &ref->key, &rec) == HIPDNN_STATUS_SUCCESS;
    if (!stored) {
        char why[HIPDNN_ERROR_STRING_MAX_LENGTH] = "out of memory encoding it";
        if (ok)
            base_last_error(why, sizeof why, true);
        base_log(HIPDNN_SEV_WARN, "kernel cache: plan %s not stored: %s", p->g->key, why);
    }
    base_free(keys), base_sb_free(&sb);
    return stored;
}

bool fe_jit_plan_cached(kc_cache *c, const fe_jit_plan_ref *ref)
{
    kc_plan rec;
    if (c == NULL || !ref->valid || !kc_get_plan(c, &ref->key, &rec))
        return false;
    bool ok = true;
    for (size_t k = 0; ok && k < rec.n_kernels; k++) {
        kc_kernel kr;
        ok = kc_get_kernel(c, &rec.kernels[k], &kr);
        kc_kernel_release(&kr);
    }
    kc_plan_release(&rec);
    return ok;
}
