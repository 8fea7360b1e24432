/* fe_custom_hip_source.c — jit.hip_source, the one op of the built-in custom-op provider `jit`:
 * a user's own HIP/CUDA kernel in a graph, no plugin needed. The payload is a JSON object:
 *
 *   { "source": "extern \"C\" __global__ void scale(...) {...}",   kernel text, < 1 MiB
 *     "entry": "scale",                                           a C identifier in the source
 *     "block": [256, 1, 1],                 1..3 positive ints (missing = 1), product <= 1024
 *     "grid": ["cdiv(numel(out0), 256)", 1],   1..3 positive ints or size expressions
 *     "shared_bytes": 0,                    optional dynamic shared memory, <= 232448
 *     "args": ["in0", "out0", "numel(out0)", "stride(in0, 1)", 7] }
 *
 * An argument is an integer (an int64 parameter), "in<N>" / "out<N>" (that tensor's address) or a
 * size expression (fe_custom_expr.c; an int64 parameter). Every output must be named by an
 * argument. Owns: reading and checking a payload against the op's tensors (fe_hs_read; the
 * check runs it at graph finalize and every refusal says which field and why), the GPU kernel
 * (its strings live in a per-thread slot until the provider's next call on that thread: the
 * library copies them as soon as `kernel` returns). The host reference is fe_custom_hip_ref.c's,
 * the provider table (name "jit", version, these functions) fe_custom.c's. Contract:
 * graph/fe_custom_int.h.
 */
#include <ctype.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/fe_custom_int.h"

#define OP "jit.hip_source"
#define KEYS "source, entry, block, grid, shared_bytes, args"

int fe_hs_refuse(char *why, size_t n, const char *fmt, ...)
{
    int k = snprintf(why, n, OP ": ");
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < n)
        vsnprintf(why + k, n - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- the document ---------------------------------------------------------------------------------- */

/* The payload parsed twice, into *doc: jansson (2.14) can return a document with bytes missing
 * from a string when an allocation fails inside its lexer, and reports some failures without
 * saying "out of memory", so two reads that disagree (or one that fails alone, or a failure
 * with no message) are an allocation failure, never a kernel read wrongly. */
static int parse(const hipdnnJitCustomOpCall_t *c, json_t **doc, char *why, size_t n)
{
    json_error_t e1, e2;
    json_t *d1 = json_loadb((const char *)c->payload, c->payload_size, JSON_REJECT_DUPLICATES, &e1);
    json_t *d2 = json_loadb((const char *)c->payload, c->payload_size, JSON_REJECT_DUPLICATES, &e2);
    bool both = d1 != NULL && d2 != NULL, agree = both ? json_equal(d1, d2) : d1 == NULL && d2 == NULL;
    json_decref(d2);
    if (both && agree) {
        *doc = d1;
        return 0;
    }
    json_decref(d1);
    if (!agree || e1.text[0] == '\0' || json_error_code(&e1) == json_error_out_of_memory ||
        strcmp(e1.text, e2.text) != 0)
        return fe_hs_refuse(why, n, "reading the payload: out of memory");
    return fe_hs_refuse(why, n, "the payload is not valid JSON: %s (line %d, column %d)", e1.text, e1.line, e1.column);
}

static int read_doc(const hipdnnJitCustomOpCall_t *c, json_t **doc, char *why, size_t n)
{
    if (c->payload_size == 0 || c->payload == NULL)
        return fe_hs_refuse(why, n, "the payload is empty; it is a JSON object with the keys " KEYS);
    if (parse(c, doc, why, n) != 0)
        return -1;
    if (!json_is_object(*doc))
        return fe_hs_refuse(why, n, "the payload is not a JSON object (keys: " KEYS ")");
    const char *key;
    json_t *v;
    json_object_foreach(*doc, key, v) {
        static const char *const known[] = {"source", "entry", "block", "grid", "shared_bytes", "args"};
        bool ok = false;
        for (int i = 0; i < 6; i++)
            ok |= strcmp(key, known[i]) == 0;
        if (!ok)
            return fe_hs_refuse(why, n, "unknown key \"%.64s\" (keys: " KEYS ")", key);
    }
    return 0;
}

/* Whether word occurs in text as a whole identifier. */
static bool has_word(const char *text, const char *word)
{
    size_t len = strlen(word);
    for (const char *at = strstr(text, word); at != NULL; at = strstr(at + 1, word)) {
        bool start = at == text || !(isalnum((unsigned char)at[-1]) || at[-1] == '_');
        bool end = !(isalnum((unsigned char)at[len]) || at[len] == '_');
        if (start && end)
            return true;
    }
    return false;
}

static int read_strings(json_t *doc, fe_hs_op *op, char *why, size_t n)
{
    json_t *src = json_object_get(doc, "source"), *entry = json_object_get(doc, "entry");
    if (!json_is_string(src) || json_string_length(src) == 0)
        return fe_hs_refuse(why, n, "\"source\" %s: it is the kernel's HIP/CUDA text, a non-empty string",
                      src == NULL ? "is missing" : "is not a non-empty string");
    if (json_string_length(src) >= FE_HS_MAX_SOURCE)
        return fe_hs_refuse(why, n, "\"source\" holds %zu bytes: fewer than %d (1 MiB) please", json_string_length(src),
                      FE_HS_MAX_SOURCE);
    if (!json_is_string(entry))
        return fe_hs_refuse(why, n, "\"entry\" %s: the name of the __global__ function to launch",
                      entry == NULL ? "is missing" : "is not a string");
    const char *e = json_string_value(entry);
    size_t len = json_string_length(entry);
    bool ident = len > 0 && len < 64 && (isalpha((unsigned char)e[0]) || e[0] == '_');
    for (size_t i = 0; ident && i < len; i++)
        ident = isalnum((unsigned char)e[i]) || e[i] == '_';
    if (!ident)
        return fe_hs_refuse(why, n, "\"entry\" \"%.64s\" is not a C identifier of 1..63 characters", e);
    op->source = json_string_value(src), op->entry = e;
    if (!has_word(op->source, e))
        return fe_hs_refuse(why, n, "\"entry\" \"%s\" does not occur in \"source\"", e);
    return 0;
}

/* ---- launch geometry -------------------------------------------------------------------------------- */

/* An array of 1..3 entries under key (required). */
static int dims_array(json_t *doc, const char *key, json_t **arr, char *why, size_t n)
{
    *arr = json_object_get(doc, key);
    if (*arr == NULL)
        return fe_hs_refuse(why, n, "\"%s\" is missing: an array of 1 to 3 %s", key,
                      key[0] == 'b' ? "positive integers" : "positive integers or size expressions");
    if (!json_is_array(*arr) || json_array_size(*arr) < 1 || json_array_size(*arr) > 3)
        return fe_hs_refuse(why, n, "\"%s\" is not an array of 1 to 3 entries", key);
    return 0;
}

static int read_block(json_t *doc, fe_hs_op *op, char *why, size_t n)
{
    json_t *arr;
    if (dims_array(doc, "block", &arr, why, n) != 0)
        return -1;
    static const int64_t most[3] = {1024, 1024, 64};
    int64_t threads = 1;
    for (size_t d = 0; d < 3; d++) {
        json_t *v = json_array_get(arr, d);
        int64_t x = v != NULL && json_is_integer(v) ? json_integer_value(v) : v == NULL ? 1 : 0;
        if (x < 1 || x > most[d])
            return fe_hs_refuse(why, n, "block[%zu] must be an integer 1..%lld", d, (long long)most[d]);
        op->block[d] = (uint32_t)x, threads *= x;
    }
    if (threads > 1024)
        return fe_hs_refuse(why, n, "\"block\" [%u, %u, %u] has %lld threads: at most 1024", op->block[0], op->block[1],
                      op->block[2], (long long)threads);
    return 0;
}

static int read_grid(json_t *doc, const hipdnnJitCustomOpCall_t *c, fe_hs_op *op, char *why, size_t n)
{
    json_t *arr;
    if (dims_array(doc, "grid", &arr, why, n) != 0)
        return -1;
    static const int64_t most[3] = {2147483647, 65535, 65535};
    static const char axis[3] = {'x', 'y', 'z'};
    for (size_t d = 0; d < 3; d++) {
        json_t *v = json_array_get(arr, d);
        int64_t x = 1;
        char msg[256];
        if (json_is_string(v)) {
            if (fe_expr_eval(json_string_value(v), c, &x, msg, sizeof msg) != 0)
                return fe_hs_refuse(why, n, "grid[%zu] \"%.80s\": %s", d, json_string_value(v), msg);
        } else if (json_is_integer(v)) {
            x = json_integer_value(v);
        } else if (v != NULL) {
            return fe_hs_refuse(why, n, "grid[%zu] is neither an integer nor a size expression (a string)", d);
        }
        if (x < 1 || x > most[d])
            return fe_hs_refuse(why, n, "grid[%zu] is %lld: the grid's %c must be 1..%lld", d, (long long)x, axis[d],
                          (long long)most[d]);
        op->grid[d] = (uint32_t)x;
    }
    return 0;
}

static int read_shared(json_t *doc, fe_hs_op *op, char *why, size_t n)
{
    json_t *v = json_object_get(doc, "shared_bytes");
    if (v == NULL)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > FE_HS_MAX_SHARED)
        return fe_hs_refuse(why, n, "\"shared_bytes\" must be an integer 0..%d", FE_HS_MAX_SHARED);
    op->shared_bytes = (uint32_t)json_integer_value(v);
    return 0;
}

/* ---- arguments -------------------------------------------------------------------------------------- */

/* "in<N>" / "out<N>" exactly: its kind and index (-1 when N is too large); false otherwise. */
static bool tensor_name(const char *s, hipdnnJitKernelArgKind_t *kind, int32_t *index)
{
    bool in = strncmp(s, "in", 2) == 0, out = !in && strncmp(s, "out", 3) == 0;
    const char *d = s + (in ? 2 : out ? 3 : 0);
    if ((!in && !out) || *d == '\0')
        return false;
    int64_t k = 0;
    for (; *d != '\0'; d++) {
        if (!isdigit((unsigned char)*d))
            return false;
        k = k < 100000 ? k * 10 + (*d - '0') : k;
    }
    *kind = in ? HIPDNN_JIT_ARG_INPUT : HIPDNN_JIT_ARG_OUTPUT;
    *index = k < 100000 ? (int32_t)k : -1;
    return true;
}

static int read_arg(json_t *v, size_t i, const hipdnnJitCustomOpCall_t *c, hipdnnJitKernelArg_t *a, char *why,
                    size_t n)
{
    if (json_is_integer(v)) {
        *a = (hipdnnJitKernelArg_t){.kind = HIPDNN_JIT_ARG_INT64, .value = json_integer_value(v)};
        return 0;
    }
    if (!json_is_string(v))
        return fe_hs_refuse(why, n, "args[%zu] is neither an integer nor a string (\"in<N>\", \"out<N>\" or a size "
                      "expression)", i);
    const char *s = json_string_value(v);
    if (tensor_name(s, &a->kind, &a->index)) {
        bool in = a->kind == HIPDNN_JIT_ARG_INPUT;
        int32_t count = in ? c->num_inputs : c->num_outputs;
        if (a->index < 0 || a->index >= count)
            return fe_hs_refuse(why, n, "args[%zu] \"%.32s\": the op has %d %s%s", i, s, (int)count,
                          in ? "input" : "output", count == 1 ? "" : "s");
        return 0;
    }
    char msg[256];
    *a = (hipdnnJitKernelArg_t){.kind = HIPDNN_JIT_ARG_INT64};
    if (fe_expr_eval(s, c, &a->value, msg, sizeof msg) != 0)
        return fe_hs_refuse(why, n, "args[%zu] \"%.80s\": %s", i, s, msg);
    return 0;
}

static int read_args(json_t *doc, const hipdnnJitCustomOpCall_t *c, fe_hs_op *op, char *why, size_t n)
{
    json_t *arr = json_object_get(doc, "args");
    if (!json_is_array(arr))
        return fe_hs_refuse(why, n, "\"args\" %s: the kernel's parameters in order, each an integer, \"in<N>\", "
                      "\"out<N>\" or a size expression", arr == NULL ? "is missing" : "is not an array");
    if (json_array_size(arr) > HIPDNN_JIT_CUSTOM_OP_MAX_ARGS)
        return fe_hs_refuse(why, n, "\"args\" has %zu entries: at most %d", json_array_size(arr),
                      HIPDNN_JIT_CUSTOM_OP_MAX_ARGS);
    op->num_args = (int32_t)json_array_size(arr);
    for (int32_t i = 0; i < op->num_args; i++)
        if (read_arg(json_array_get(arr, (size_t)i), (size_t)i, c, &op->args[i], why, n) != 0)
            return -1;
    for (int32_t o = 0; o < c->num_outputs; o++) {
        bool named = false;
        for (int32_t i = 0; i < op->num_args && !named; i++)
            named = op->args[i].kind == HIPDNN_JIT_ARG_OUTPUT && op->args[i].index == o;
        if (!named)
            return fe_hs_refuse(why, n, "output %d (out%d, uid %lld) is named by no argument, so the kernel could not "
                          "write it: add \"out%d\" to \"args\"", (int)o, (int)o, (long long)c->outputs[o].uid, (int)o);
    }
    return 0;
}

/* ---- reading a call ------------------------------------------------------------------------------------- */

void fe_hs_free(fe_hs_op *op)
{
    json_decref(op->doc);
    op->doc = NULL;
}

int fe_hs_read(const hipdnnJitCustomOpCall_t *c, fe_hs_op *op, char *why, size_t n)
{
    *op = (fe_hs_op){0};
    if (strcmp(c->op_id, OP) != 0)
        return snprintf(why, n, "jit has no operation '%s' (it has: hip_source, as \"" OP "\")", c->op_id), -1;
    json_t *doc = NULL;
    int r = read_doc(c, &doc, why, n);
    op->doc = doc;
    if (r == 0)
        r = read_strings(doc, op, why, n);
    if (r == 0)
        r = read_block(doc, op, why, n);
    if (r == 0)
        r = read_grid(doc, c, op, why, n);
    if (r == 0)
        r = read_shared(doc, op, why, n);
    if (r == 0)
        r = read_args(doc, c, op, why, n);
    if (r != 0)
        fe_hs_free(op);
    return r;
}

/* ---- the provider's check and kernel (its table: fe_custom.c) ------------------------------------------ */

int fe_hs_check(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    fe_hs_op op;
    if (fe_hs_read(c, &op, why, n) != 0)
        return 1;
    fe_hs_free(&op);
    return 0;
}

/* The document behind the strings `kernel` handed out last on this thread (freed at the next
 * call, or when the thread ends). */
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static bool slot_ok;

static void slot_free(void *doc) { json_decref(doc); }
static void slot_init(void) { slot_ok = pthread_key_create(&slot_key, slot_free) == 0; }

int fe_hs_kernel(const hipdnnJitCustomOpCall_t *c, const char *arch, hipdnnJitKernelSource_t *ks, char *why,
                 size_t n)
{
    (void)arch; /* the source is compiled as given for every target */
    pthread_once(&slot_once, slot_init);
    if (!slot_ok)
        return fe_hs_refuse(why, n, "no thread-local slot for the kernel's strings"), 1;
    fe_hs_op op;
    if (fe_hs_read(c, &op, why, n) != 0)
        return 1;
    json_t *old = pthread_getspecific(slot_key);
    if (pthread_setspecific(slot_key, op.doc) != 0) {
        fe_hs_free(&op);
        return fe_hs_refuse(why, n, "no thread-local slot for the kernel's strings"), 1;
    }
    json_decref(old);
    *ks = (hipdnnJitKernelSource_t){.source = op.source, .entry = op.entry, .shared_bytes = op.shared_bytes,
                                    .num_args = op.num_args};
    memcpy(ks->grid, op.grid, sizeof ks->grid), memcpy(ks->block, op.block, sizeof ks->block);
    memcpy(ks->args, op.args, (size_t)op.num_args * sizeof op.args[0]);
    return 0;
}
