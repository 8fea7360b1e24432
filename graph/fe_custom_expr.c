/* fe_custom_expr.c — size expressions of jit.hip_source payloads: "cdiv(numel(out0), 256)",
 * "stride(in0, -1) * 2", evaluated in int64 over a custom op's tensors (fe_custom_int.h gives the
 * grammar). A recursive descent over the text, every operation overflow-checked; the first
 * error stops it and says what and where. Knows nothing of JSON or of which payload field the
 * text came from: the caller names the field.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/fe_custom_int.h"

typedef struct ex {
    const char *s;
    size_t at;
    int depth;
    const hipdnnJitCustomOpCall_t *call;
    char *why;
    size_t why_size;
} ex;

/* Records what is wrong (the first error only) and returns -1. */
static int fail(ex *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(ex *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (e->why_size > 0)
        vsnprintf(e->why, e->why_size, fmt, ap);
    va_end(ap);
    return -1;
}

static void skip(ex *e)
{
    while (e->s[e->at] == ' ' || e->s[e->at] == '\t' || e->s[e->at] == '\n' || e->s[e->at] == '\r')
        e->at++;
}

/* What stands at the cursor, for messages: "'x' at character 5" or "the end". */
static const char *here(const ex *e, char *buf, size_t n)
{
    unsigned char c = (unsigned char)e->s[e->at];
    if (c == '\0')
        snprintf(buf, n, "the end");
    else if (isprint(c))
        snprintf(buf, n, "'%c' at character %zu", c, e->at + 1);
    else
        snprintf(buf, n, "byte 0x%02x at character %zu", c, e->at + 1);
    return buf;
}

static int expect(ex *e, char c)
{
    skip(e);
    if (e->s[e->at] != c) {
        char b[40];
        return fail(e, "expected '%c', found %s", c, here(e, b, sizeof b));
    }
    e->at++;
    return 0;
}

static int expr(ex *e, int64_t *v);

/* ---- tensors ------------------------------------------------------------------------------------ */

/* "in<N>" / "out<N>" at the cursor: the tensor. */
static int tensor(ex *e, const hipdnnJitCustomTensor_t **t, char *name, size_t name_size)
{
    skip(e);
    bool in = strncmp(e->s + e->at, "in", 2) == 0, out = !in && strncmp(e->s + e->at, "out", 3) == 0;
    size_t at = e->at + (in ? 2 : out ? 3 : 0);
    if ((!in && !out) || !isdigit((unsigned char)e->s[at])) {
        char b[40];
        return fail(e, "expected a tensor (in<N> or out<N>), found %s", here(e, b, sizeof b));
    }
    int64_t k = 0;
    while (isdigit((unsigned char)e->s[at])) {
        if (k < 1000000)
            k = k * 10 + (e->s[at] - '0');
        at++;
    }
    if (isalnum((unsigned char)e->s[at]) || e->s[at] == '_')
        return fail(e, "'%.*s' is not a tensor (in<N> or out<N>)", (int)(at - e->at + 1), e->s + e->at);
    int32_t count = in ? e->call->num_inputs : e->call->num_outputs;
    snprintf(name, name_size, "%.*s", (int)(at - e->at > 24 ? 24 : at - e->at), e->s + e->at);
    if (k >= count)
        return fail(e, "%s: the op has %d %s%s", name, (int)count, in ? "input" : "output", count == 1 ? "" : "s");
    *t = in ? &e->call->inputs[k] : &e->call->outputs[k];
    e->at = at;
    return 0;
}

/* dim(T, d) / stride(T, d): d counts from the end when negative. */
static int dim_of(ex *e, bool stride, int64_t *v)
{
    const hipdnnJitCustomTensor_t *t;
    char name[32];
    int64_t d;
    if (tensor(e, &t, name, sizeof name) != 0 || expect(e, ',') != 0 || expr(e, &d) != 0)
        return -1;
    int64_t k = d < 0 ? d + t->rank : d;
    if (k < 0 || k >= t->rank || k >= HIPDNN_JIT_CUSTOM_OP_MAX_RANK)
        return fail(e, "%s has rank %d: no dim %lld", name, (int)t->rank, (long long)d);
    *v = stride ? t->strides[k] : t->dims[k];
    return 0;
}

static int numel(ex *e, int64_t *v)
{
    const hipdnnJitCustomTensor_t *t;
    char name[32];
    if (tensor(e, &t, name, sizeof name) != 0)
        return -1;
    int64_t n = 1;
    for (int d = 0; d < t->rank && d < HIPDNN_JIT_CUSTOM_OP_MAX_RANK; d++)
        if (__builtin_mul_overflow(n, t->dims[d], &n))
            return fail(e, "numel(%s) overflows int64", name);
    *v = n;
    return 0;
}

/* ---- arithmetic --------------------------------------------------------------------------------- */

static int arith(ex *e, char op, int64_t a, int64_t b, int64_t *v)
{
    bool over = false;
    switch (op) {
    case '+': over = __builtin_add_overflow(a, b, v); break;
    case '-': over = __builtin_sub_overflow(a, b, v); break;
    case '*': over = __builtin_mul_overflow(a, b, v); break;
    case '/':
    case '%':
        if (b == 0)
            return fail(e, "%s by zero", op == '/' ? "division" : "modulo");
        if (a == INT64_MIN && b == -1)
            over = true;
        else
            *v = op == '/' ? a / b : a % b;
        break;
    default: return fail(e, "internal: operator '%c'", op);
    }
    if (over)
        return fail(e, "int64 overflow in %lld %c %lld", (long long)a, op, (long long)b);
    return 0;
}

/* cdiv(a, b) = ceil(a / b), min, max. */
static int binary_fn(ex *e, const char *fn, int64_t *v)
{
    int64_t a, b;
    if (expr(e, &a) != 0 || expect(e, ',') != 0 || expr(e, &b) != 0)
        return -1;
    if (strcmp(fn, "min") == 0 || strcmp(fn, "max") == 0) {
        *v = (strcmp(fn, "min") == 0) == (a < b) ? a : b;
        return 0;
    }
    if (b == 0)
        return fail(e, "cdiv(%lld, 0): division by zero", (long long)a);
    if (a == INT64_MIN && b == -1)
        return fail(e, "int64 overflow in cdiv(%lld, -1)", (long long)a);
    *v = a / b + (a % b != 0 && (a < 0) == (b < 0));
    return 0;
}

/* ---- the grammar --------------------------------------------------------------------------------- */

static int number(ex *e, int64_t *v)
{
    int64_t n = 0;
    size_t start = e->at;
    while (isdigit((unsigned char)e->s[e->at])) {
        if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, e->s[e->at] - '0', &n))
            return fail(e, "the number at character %zu does not fit in int64", start + 1);
        e->at++;
    }
    if (isalpha((unsigned char)e->s[e->at]) || e->s[e->at] == '_')
        return fail(e, "a number followed by '%c' at character %zu", e->s[e->at], e->at + 1);
    *v = n;
    return 0;
}

static int call_fn(ex *e, int64_t *v)
{
    size_t start = e->at, n = 0;
    while (isalnum((unsigned char)e->s[e->at + n]) || e->s[e->at + n] == '_')
        n++;
    char fn[16];
    if (n >= sizeof fn)
        return fail(e, "unknown name '%.*s' at character %zu", (int)(n > 40 ? 40 : n), e->s + start, start + 1);
    memcpy(fn, e->s + start, n);
    fn[n] = '\0';
    static const char *const names[] = {"numel", "rank", "dim", "stride", "cdiv", "min", "max"};
    int which = -1;
    for (int i = 0; i < 7; i++)
        if (strcmp(fn, names[i]) == 0)
            which = i;
    if (which < 0) {
        bool tensor_like = (strncmp(fn, "in", 2) == 0 && isdigit((unsigned char)fn[2])) ||
                           (strncmp(fn, "out", 3) == 0 && isdigit((unsigned char)fn[3]));
        if (tensor_like)
            return fail(e, "%s is a tensor, not a number: use numel(%s), rank(%s), dim(%s, d) or stride(%s, d)",
                        fn, fn, fn, fn, fn);
        return fail(e, "unknown function '%s' at character %zu (numel, rank, dim, stride, cdiv, min, max)", fn,
                    start + 1);
    }
    e->at += n;
    if (expect(e, '(') != 0)
        return -1;
    int r;
    if (which == 0) {
        r = numel(e, v);
    } else if (which == 1) {
        const hipdnnJitCustomTensor_t *t;
        char name[32];
        r = tensor(e, &t, name, sizeof name);
        if (r == 0)
            *v = t->rank;
    } else if (which == 2 || which == 3) {
        r = dim_of(e, which == 3, v);
    } else {
        r = binary_fn(e, fn, v);
    }
    return r != 0 ? r : expect(e, ')');
}

static int primary(ex *e, int64_t *v)
{
    skip(e);
    char c = e->s[e->at];
    if (isdigit((unsigned char)c))
        return number(e, v);
    if (c == '(') {
        e->at++;
        if (expr(e, v) != 0)
            return -1;
        return expect(e, ')');
    }
    if (isalpha((unsigned char)c) || c == '_')
        return call_fn(e, v);
    char b[40];
    return fail(e, "expected a number, '(', '-' or a function, found %s", here(e, b, sizeof b));
}

static int enter(ex *e)
{
    if (++e->depth > FE_EXPR_MAX_DEPTH)
        return fail(e, "nested deeper than %d levels", FE_EXPR_MAX_DEPTH);
    return 0;
}

static int unary(ex *e, int64_t *v)
{
    skip(e);
    if (e->s[e->at] != '-')
        return primary(e, v);
    e->at++;
    int64_t x;
    if (enter(e) != 0 || unary(e, &x) != 0)
        return -1;
    e->depth--;
    if (x == INT64_MIN)
        return fail(e, "int64 overflow in -(%lld)", (long long)x);
    *v = -x;
    return 0;
}

static int term(ex *e, int64_t *v)
{
    if (unary(e, v) != 0)
        return -1;
    for (;;) {
        skip(e);
        char op = e->s[e->at];
        if (op != '*' && op != '/' && op != '%')
            return 0;
        e->at++;
        int64_t b;
        if (unary(e, &b) != 0 || arith(e, op, *v, b, v) != 0)
            return -1;
    }
}

static int expr(ex *e, int64_t *v)
{
    if (enter(e) != 0 || term(e, v) != 0)
        return -1;
    for (;;) {
        skip(e);
        char op = e->s[e->at];
        if (op != '+' && op != '-')
            break;
        e->at++;
        int64_t b;
        if (term(e, &b) != 0 || arith(e, op, *v, b, v) != 0)
            return -1;
    }
    e->depth--;
    return 0;
}

int fe_expr_eval(const char *text, const hipdnnJitCustomOpCall_t *call, int64_t *value, char *why, size_t why_size)
{
    ex e = {.s = text, .call = call, .why = why, .why_size = why_size};
    size_t len = strnlen(text, FE_EXPR_MAX_LEN + 1);
    if (len > FE_EXPR_MAX_LEN)
        return fail(&e, "longer than %d characters", FE_EXPR_MAX_LEN);
    skip(&e);
    if (text[e.at] == '\0')
        return fail(&e, "an empty expression");
    int64_t v;
    if (expr(&e, &v) != 0)
        return -1;
    skip(&e);
    if (text[e.at] != '\0') {
        char b[40];
        return fail(&e, "unexpected %s", here(&e, b, sizeof b));
    }
    *value = v;
    return 0;
}
