/* emu_run.c — emit, build, run on the host emulator and compare one kernel (emu_run.h). */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/tu.h"
#include "../../common/tu_close_ir.h"
#include "emu_run.h"

enum { GUARD = 64, POISON = 0xff, GUARD_BYTE = 0x5a };

static uint64_t seed;

uint64_t emu_seed(const char *test)
{
    seed = tu_seed(test);
    return seed;
}

cg_target emu_target(int sm_count)
{
    return (cg_target){.platform = "nvidia", .arch = "sm_90", .sm_count = sm_count};
}

/* ---- graph building ------------------------------------------------------------------------------- */

void emu_strides(int rank, const int64_t *dims, const int *order, int64_t pad, int64_t *strides)
{
    int64_t step = 1;
    for (int i = rank - 1; i >= 0; i--) {
        int d = order != NULL ? order[i] : i;
        strides[d] = step;
        step *= dims[d] + (i == rank - 1 ? pad : 0);
    }
}

int emu_tensor(emu_case *c, hipdnnDataType_t dt, int rank, const int64_t *dims, const int64_t *strides,
               bool is_virtual)
{
    ir_tensor t = {.uid = c->g.n_t + 1, .dtype = dt, .rank = rank, .is_virtual = is_virtual};
    memcpy(t.dims, dims, (size_t)rank * sizeof *dims);
    if (strides != NULL)
        memcpy(t.strides, strides, (size_t)rank * sizeof *strides);
    else
        emu_strides(rank, dims, NULL, 0, t.strides);
    int ti = ir_add_tensor(&c->g, &t);
    cr_assert_geq(ti, 0);
    return ti;
}

int emu_scalar(emu_case *c, float v, int rank, bool runtime)
{
    int64_t ones[IR_MAX_RANK] = {1, 1, 1, 1, 1, 1, 1, 1};
    int ti = emu_tensor(c, HIPDNN_DATA_FLOAT, rank, ones, NULL, false);
    c->g.t[ti].by_value = !runtime, c->g.t[ti].runtime_scalar = runtime;
    memcpy(c->g.t[ti].value, &v, sizeof v);
    return ti;
}

void emu_pw(emu_case *c, int mode, int a, int b, int cc, int out)
{
    ir_op op = {.kind = IR_OP_POINTWISE, .n_in = 3, .n_out = 1, .in = {a, b, cc}, .out = {out}};
    op.a.pw = (ir_pointwise){.mode = mode, .relu_upper = INFINITY, .swish_beta = 1, .elu_alpha = 1,
                             .softplus_beta = 1};
    cr_assert_geq(ir_add_op(&c->g, &op), 0);
}

void emu_positive(emu_case *c, int ti)
{
    for (int i = 0; i < EMU_MAX_POSITIVE; i++)
        if (c->positive[i] == 0) {
            c->positive[i] = c->g.t[ti].uid;
            return;
        }
    cr_assert_fail("more than %d positive inputs", EMU_MAX_POSITIVE);
}

void emu_seal(emu_case *c)
{
    cr_assert_eq(ir_graph_seal(&c->g), HIPDNN_STATUS_SUCCESS, "%s: %s", c->what, tu_msg());
}

/* ---- emitting and building ------------------------------------------------------------------------ */

void emu_emit(const emu_case *c, ir_partition *p, cg_kernel *kn)
{
    cr_assert_eq(ir_fuse(&c->g, p), HIPDNN_STATUS_SUCCESS, "%s: %s", c->what, tu_msg());
    cr_assert_eq(p->n, 1, "%s: fused into %d kernels", c->what, p->n);
    char why[256] = "";
    cr_assert(cg_supports_on(&c->g, &p->k[0], &c->target, why, sizeof why), "%s: %s", c->what, why);
    cg_kernel again;
    cr_assert_eq(cg_emit(&c->g, &p->k[0], &c->target, kn), HIPDNN_STATUS_SUCCESS, "%s: %s", c->what, tu_msg());
    cr_assert_eq(cg_emit(&c->g, &p->k[0], &c->target, &again), HIPDNN_STATUS_SUCCESS);
    cr_expect_str_eq(kn->source, again.source, "%s: emission is deterministic", c->what);
    cg_kernel_free(&again);
}

static const char *entry_of(const cg_kernel *kn, int l) { return l == 0 ? kn->entry : kn->then[l - 1].entry; }

/* One extern "C" emu_<entry>(void **a) per distinct entry, calling it with its parameters. */
static void write_wrappers(FILE *f, const cg_kernel *kn)
{
    for (int l = 0; l <= kn->n_then; l++) {
        bool seen = false;
        for (int e = 0; e < l; e++)
            seen |= strcmp(entry_of(kn, e), entry_of(kn, l)) == 0;
        if (seen)
            continue;
        fprintf(f, "extern \"C\" void emu_%s(void **a)\n{\n    %s(", entry_of(kn, l), entry_of(kn, l));
        for (int i = 0; i < kn->n_args; i++) {
            cg_arg_kind k = kn->args[i].kind;
            cr_assert_neq(k, CG_ARG_TMAP, "tensor maps are not emulated");
            fprintf(f, "%s*(%s *)a[%d]", i ? ", " : "",
                    k == CG_ARG_SCALAR ? "float" : k == CG_ARG_INT64 ? "hd_i64" : "void *", i);
        }
        fprintf(f, ");\n}\n");
    }
}

void emu_build(const cg_kernel *kn, const char *source, emu_module *m)
{
    const char *body = strstr(source, "#line 1 \"hd_common.h\"");
    cr_assert_not_null(body, "the emitted source has no hd_common.h section");
    const char *tmp = getenv("TMPDIR");
    snprintf(m->dir, sizeof m->dir, "%s/hipdnn-emu-XXXXXX", tmp != NULL && strlen(tmp) < 40 ? tmp : "/tmp");
    cr_assert_not_null(mkdtemp(m->dir), "mkdtemp %s", m->dir);
    char path[128], cmd[1024];
    snprintf(path, sizeof path, "%s/k.cpp", m->dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "#include \"emu_prelude.h\"\n%s\n", body);
    write_wrappers(f, kn);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -std=c++17 -O1 -ffp-contract=off -w -shared -fPIC -I%s/tests/unit/codegen "
             "-o %s/k.so %s 2> %s/log", HIPDNN_CXX, HIPDNN_SOURCE_DIR, m->dir, path, m->dir);
    if (system(cmd) != 0) {
        snprintf(path, sizeof path, "%s/log", m->dir);
        char *log = tu_read_file(path, NULL);
        cr_assert_fail("host compile failed: %s\n%.3000s", cmd, log != NULL ? log : "");
    }
    snprintf(path, sizeof path, "%s/k.so", m->dir);
    m->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(m->dl, "%s", dlerror());
}

void emu_unload(emu_module *m)
{
    if (m->dl != NULL)
        dlclose(m->dl);
    m->dl = NULL;
    const char *files[] = {"k.cpp", "k.so", "log"};
    char path[128];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", m->dir, files[i]);
        unlink(path);
    }
    cr_expect_eq(rmdir(m->dir), 0, "rmdir %s", m->dir);
}

/* ---- buffers ---------------------------------------------------------------------------------------- */

static int elem_bits(hipdnnDataType_t t)
{
    switch (t) {
    case HIPDNN_DATA_DOUBLE:
    case HIPDNN_DATA_INT64: return 64;
    case HIPDNN_DATA_FLOAT:
    case HIPDNN_DATA_INT32: return 32;
    case HIPDNN_DATA_HALF:
    case HIPDNN_DATA_BFLOAT16: return 16;
    case HIPDNN_DATA_FP4_E2M1:
    case HIPDNN_DATA_INT4: return 4;
    default: return 8;
    }
}

ir_buf emu_view(const ir_tensor *t, void *data)
{
    ir_buf b = {.data = data, .dtype = t->dtype, .rank = t->rank};
    memcpy(b.dims, t->dims, sizeof b.dims);
    memcpy(b.strides, t->strides, sizeof b.strides);
    return b;
}

/* The element offset of idx in t, and the bytes [lo, hi) of the buffer that hold it. */
static void elem_bytes(const ir_tensor *t, const int64_t *idx, size_t *lo, size_t *hi)
{
    int64_t off = 0;
    for (int d = 0; d < t->rank; d++)
        off += idx[d] * t->strides[d];
    int bits = elem_bits(t->dtype);
    *lo = bits == 4 ? (size_t)off / 2 : (size_t)off * (size_t)bits / 8;
    *hi = bits == 4 ? *lo + 1 : *lo + (size_t)bits / 8;
}

static size_t extent(const ir_tensor *t)
{
    int64_t last[IR_MAX_RANK];
    for (int d = 0; d < t->rank; d++)
        last[d] = t->dims[d] - 1;
    size_t lo, hi;
    elem_bytes(t, last, &lo, &hi);
    return hi > 8 ? hi : 8; /* by-value scalars hold up to 8 bytes */
}

static bool positive(const emu_case *c, int64_t uid)
{
    for (int i = 0; i < EMU_MAX_POSITIVE; i++)
        if (c->positive[i] != 0 && c->positive[i] == uid)
            return true;
    return false;
}

static void fill(const emu_case *c, const ir_tensor *t, void *data)
{
    ir_buf b = emu_view(t, data);
    bool pos = positive(c, t->uid);
    int64_t idx[IR_MAX_RANK] = {0};
    do
        ir_store(&b, idx, pos ? tu_float(0.5f, 2.0f) : tu_float(-2.0f, 2.0f));
    while (ir_next_index(&b, idx));
}

static unsigned char *alloc_guarded(size_t n)
{
    unsigned char *p = malloc(n + 2 * GUARD);
    cr_assert_not_null(p);
    memset(p, GUARD_BYTE, GUARD), memset(p + GUARD + n, GUARD_BYTE, GUARD);
    memset(p + GUARD, POISON, n);
    return p + GUARD;
}

void emu_bufs_make(const emu_case *c, emu_bufs *b)
{
    const ir_graph *g = &c->g;
    b->n = g->n_t;
    b->ref = calloc((size_t)g->n_t, sizeof *b->ref), b->got = calloc((size_t)g->n_t, sizeof *b->got);
    b->bytes = calloc((size_t)g->n_t, sizeof *b->bytes);
    cr_assert(b->ref != NULL && b->got != NULL && b->bytes != NULL);
    for (int i = 0; i < g->n_t; i++) {
        const ir_tensor *t = &g->t[i];
        size_t n = b->bytes[i] = extent(t);
        b->ref[i] = alloc_guarded(n), b->got[i] = alloc_guarded(n);
        if (t->by_value || t->runtime_scalar)
            memcpy(b->ref[i], t->value, sizeof t->value);
        else if (t->producer < 0 && !t->is_virtual)
            fill(c, t, b->ref[i]);
    }
    if (c->fill != NULL)
        c->fill(c, b);
    for (int i = 0; i < g->n_t; i++)
        memcpy(b->got[i], b->ref[i], b->bytes[i]);
}

void emu_bufs_free(emu_bufs *b)
{
    for (int i = 0; i < b->n; i++)
        free(b->ref[i] - GUARD), free(b->got[i] - GUARD);
    free(b->ref), free(b->got), free(b->bytes);
    *b = (emu_bufs){0};
}

/* ---- reference and emulated runs ------------------------------------------------------------------ */

void emu_reference(const ir_graph *g, emu_bufs *b)
{
    for (int k = 0; k < g->n_ops; k++) {
        const ir_op *op = &g->ops[k];
        ir_buf in[IR_MAX_SLOTS], out[IR_MAX_SLOTS];
        const ir_buf *inp[IR_MAX_SLOTS];
        ir_buf *outp[IR_MAX_SLOTS];
        for (int s = 0; s < op->n_in; s++) {
            if (op->in[s] >= 0)
                in[s] = emu_view(&g->t[op->in[s]], b->ref[op->in[s]]);
            inp[s] = op->in[s] >= 0 ? &in[s] : NULL;
        }
        for (int s = 0; s < op->n_out; s++) {
            if (op->out[s] >= 0)
                out[s] = emu_view(&g->t[op->out[s]], b->ref[op->out[s]]);
            outp[s] = op->out[s] >= 0 ? &out[s] : NULL;
        }
        ir_ref_ctx ctx = {inp, outp, op->n_in, op->n_out};
        cr_assert_eq(ir_ref_run(op->kind, &op->a, &ctx), HIPDNN_STATUS_SUCCESS, "%s", tu_msg());
    }
}

typedef int (*emu_launch_fn)(void (*)(void **), void **, const unsigned *, const unsigned *);

int emu_run(const emu_module *m, const cg_kernel *kn, emu_bufs *b, char *err, size_t err_len)
{
    void *ws = kn->scratch > 0 ? malloc((size_t)kn->scratch) : NULL, *ptrs[CG_MAX_ARGS], *args[CG_MAX_ARGS];
    float scalars[CG_MAX_ARGS];
    if (ws != NULL)
        memset(ws, POISON, (size_t)kn->scratch);
    for (int i = 0; i < kn->n_args; i++) {
        const cg_arg *a = &kn->args[i];
        if (a->kind == CG_ARG_SCALAR)
            memcpy(&scalars[i], b->got[a->tensor], 4), args[i] = &scalars[i];
        else if (a->kind == CG_ARG_INT64)
            args[i] = (void *)&a->value;
        else
            ptrs[i] = a->kind == CG_ARG_WORKSPACE ? ws : b->got[a->tensor], args[i] = &ptrs[i];
    }
    emu_launch_fn launch = (emu_launch_fn)dlsym(m->dl, "emu_launch");
    const char *(*why)(void) = (const char *(*)(void))dlsym(m->dl, "emu_error");
    cr_assert(launch != NULL && why != NULL);
    int r = 0;
    for (int l = 0; l <= kn->n_then && r == 0; l++) {
        char name[80];
        snprintf(name, sizeof name, "emu_%s", entry_of(kn, l));
        void (*fn)(void **) = (void (*)(void **))dlsym(m->dl, name);
        cr_assert_not_null(fn, "%s", name);
        r = launch(fn, args, l == 0 ? kn->grid : kn->then[l - 1].grid, l == 0 ? kn->block : kn->then[l - 1].block);
        if (r != 0)
            snprintf(err, err_len, "launch %d (%s): %s", l, entry_of(kn, l), why());
    }
    free(ws);
    return r == 0 ? 0 : -1;
}

/* ---- comparing ---------------------------------------------------------------------------------------- */

static bool written(const ir_kernel *k, int ti)
{
    for (int w = 0; w < k->n_writes; w++)
        if (k->writes[w] == ti)
            return true;
    return false;
}

/* Bytes of tensor i the kernel changed but must not have: guards, an output's bytes between its
 * elements, an input's bytes. *first: the first one's offset (negative: the leading guard). */
static size_t stray_bytes(const ir_graph *g, const ir_kernel *k, const emu_bufs *b, int i, ptrdiff_t *first)
{
    const ir_tensor *t = &g->t[i];
    size_t n = b->bytes[i], stray = 0;
    bool out = written(k, i);
    bool *elem = calloc(n, 1);
    cr_assert_not_null(elem);
    if (out) {
        int64_t idx[IR_MAX_RANK] = {0};
        ir_buf v = emu_view(t, b->got[i]);
        do {
            size_t lo, hi;
            elem_bytes(t, idx, &lo, &hi);
            memset(elem + lo, 1, hi - lo);
        } while (ir_next_index(&v, idx));
    }
    for (ptrdiff_t o = -GUARD; o < (ptrdiff_t)(n + GUARD); o++) {
        bool guard = o < 0 || o >= (ptrdiff_t)n;
        unsigned char want = guard ? GUARD_BYTE : out ? POISON : b->ref[i][o];
        if ((guard || !elem[o]) && b->got[i][o] != want && stray++ == 0)
            *first = o;
    }
    free(elem);
    return stray;
}

size_t emu_compare(const emu_case *c, const ir_kernel *k, const emu_bufs *b, bool expect)
{
    const ir_graph *g = &c->g;
    size_t bad = 0;
    for (int w = 0; w < k->n_writes; w++) {
        int ti = k->writes[w];
        ir_buf got = emu_view(&g->t[ti], b->got[ti]), want = emu_view(&g->t[ti], b->ref[ti]);
        char what[400];
        snprintf(what, sizeof what, "%s: output uid %lld (seed %llu)", c->what, (long long)g->t[ti].uid,
                 (unsigned long long)seed);
        bad += tu_close_tensor(g, ti, &got, &want, what, expect).bad;
    }
    for (int i = 0; i < g->n_t; i++) {
        const ir_tensor *t = &g->t[i];
        if (t->is_virtual || t->by_value || t->runtime_scalar)
            continue;
        ptrdiff_t first = 0;
        size_t stray = stray_bytes(g, k, b, i, &first);
        if (expect)
            cr_expect_eq(stray, 0, "%s: uid %lld: %zu bytes the kernel must not write changed, the first at "
                         "byte %td of %zu (seed %llu)", c->what, (long long)t->uid, stray, first, b->bytes[i],
                         (unsigned long long)seed);
        bad += stray;
    }
    return bad;
}

/* An MX quantize (E8M0 scales) of a computed input: where the reference block's amax / qmax lies
 * within float rounding (2^-18 relative) of a power of two, the kernel's float input may cross
 * into the next binade. Such a block's reference scale and codes are remade with the kernel's
 * scale (codes x / scale, rounded as the reference stores them), so the comparison that follows
 * stays exact everywhere else: a scale one binade off anywhere but at a boundary still fails. */
static void accept_binade_flips(const emu_case *c, const ir_kernel *k, emu_bufs *b)
{
    const ir_graph *g = &c->g;
    for (int o = 0; o < k->n_ops; o++) {
        const ir_op *op = &g->ops[k->ops[o]];
        if (op->kind != IR_OP_BS_QUANTIZE || op->n_out < 2 || g->t[op->out[1]].dtype != HIPDNN_DATA_FP8_E8M0)
            continue;
        const ir_tensor *tx = &g->t[op->in[0]], *ty = &g->t[op->out[0]], *ts = &g->t[op->out[1]];
        ir_buf x = emu_view(tx, b->ref[op->in[0]]), yw = emu_view(ty, b->ref[op->out[0]]);
        ir_buf sw = emu_view(ts, b->ref[op->out[1]]), sg = emu_view(ts, b->got[op->out[1]]);
        const int axis = op->a.quant.axis < 0 ? tx->rank + op->a.quant.axis : op->a.quant.axis;
        const int64_t block = op->a.quant.block[0];
        int64_t si[IR_MAX_RANK] = {0};
        do {
            double want = ir_load(&sw, si), got = ir_load(&sg, si), amax = 0;
            if (got == want || !(got == 2 * want || 2 * got == want))
                continue;
            int64_t xi[IR_MAX_RANK];
            memcpy(xi, si, sizeof xi);
            const int64_t lo = si[axis] * block, hi = lo + block < tx->dims[axis] ? lo + block : tx->dims[axis];
            for (xi[axis] = lo; xi[axis] < hi; xi[axis]++)
                amax = fmax(amax, fabs(ir_load(&x, xi)));
            const double eps = 0x1p-18;
            if (ir_quant_block_scale(ts->dtype, ty->dtype, amax * (1 + eps)) != got &&
                ir_quant_block_scale(ts->dtype, ty->dtype, amax * (1 - eps)) != got)
                continue; /* not at a boundary: the comparison reports it */
            ir_store(&sw, si, got);
            for (xi[axis] = lo; xi[axis] < hi; xi[axis]++)
                ir_store(&yw, xi, ir_load(&x, xi) / got);
        } while (ir_next_index(&sw, si));
    }
}

/* ---- the whole check -------------------------------------------------------------------------------- */

/* Builds `source`, runs it on fresh data beside the reference and compares: the number of
 * mismatches (a run the emulator stops counts as one); with `expect`, each fails the test. */
static size_t run_source(const emu_case *c, const ir_kernel *k, const cg_kernel *kn, const char *source,
                         bool expect)
{
    emu_module m;
    emu_build(kn, source, &m);
    emu_bufs b;
    emu_bufs_make(c, &b);
    emu_reference(&c->g, &b);
    char err[600] = "";
    int r = emu_run(&m, kn, &b, err, sizeof err);
    if (expect)
        cr_expect_eq(r, 0, "%s: %s (seed %llu)", c->what, err, (unsigned long long)seed);
    if (r == 0)
        accept_binade_flips(c, k, &b);
    size_t bad = r != 0 ? 1 : emu_compare(c, k, &b, expect);
    if (!expect || bad == 0)
        cr_log_info("%s%s: %zu mismatches%s%s (%u x %u blocks of %u, %d launches)", c->what,
                    expect ? "" : " (self-check)", bad, err[0] ? ": " : "", err, kn->grid[0], kn->grid[1],
                    kn->block[0], kn->n_then + 1);
    emu_bufs_free(&b);
    emu_unload(&m);
    return bad;
}

void emu_expect_caught(emu_case *c, const char *const wrong[][2], int n)
{
    ir_partition p;
    cg_kernel kn;
    emu_emit(c, &p, &kn);
    cr_expect_eq(run_source(c, &p.k[0], &kn, kn.source, false), 0, "%s: the emitted source is right", c->what);
    for (int i = 0; i < n; i++) {
        char *src = emu_replace(kn.source, wrong[i][0], wrong[i][1]);
        cr_expect_gt(run_source(c, &p.k[0], &kn, src, false), 0, "%s: \"%s\" -> \"%s\" is caught", c->what,
                     wrong[i][0], wrong[i][1]);
        free(src);
    }
    cg_kernel_free(&kn);
    ir_partition_free(&p);
    ir_graph_free(&c->g);
}

void emu_check(emu_case *c, cg_kernel *kept)
{
    ir_partition p;
    cg_kernel kn;
    emu_emit(c, &p, &kn);
    run_source(c, &p.k[0], &kn, kn.source, true);
    if (kept != NULL)
        *kept = kn;
    else
        cg_kernel_free(&kn);
    ir_partition_free(&p);
    ir_graph_free(&c->g);
}

long long emu_define(const char *source, const char *name, long long dflt)
{
    char key[96];
    snprintf(key, sizeof key, "#define %s ", name);
    const char *at = strstr(source, key);
    return at != NULL ? strtoll(at + strlen(key), NULL, 0) : dflt;
}

char *emu_replace(const char *source, const char *find, const char *repl)
{
    const char *at = strstr(source, find);
    cr_assert_not_null(at, "the source has no \"%s\" to replace", find);
    size_t n = strlen(source) - strlen(find) + strlen(repl) + 1, pre = (size_t)(at - source);
    char *out = malloc(n);
    cr_assert_not_null(out);
    memcpy(out, source, pre);
    strcpy(out + pre, repl);
    strcat(out + pre, at + strlen(find));
    return out;
}
