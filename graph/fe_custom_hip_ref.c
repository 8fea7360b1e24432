/* fe_custom_hip_ref.c — jit.hip_source's host reference: the user's kernel run on the host, so a
 * graph holding one executes on the reference engine without a GPU.
 *
 * The text handed to the host compiler (fe_custom_host.c builds, loads and caches it) is
 *   graph/fe_host_sched.h      dim3, the index variables, the block scheduler, __syncthreads
 *   graph/fe_host_cuda.h       CUDA / HIP spellings, math, atomics, shuffles, hd_host_ptr
 *   #line 1 "jit.hip_source"   the user's source, `extern __shared__` made a plain extern array
 *                              (the word __shared__ blanked: lines and columns stay)
 *   the dynamic shared arrays  one zeroed block of max(shared_bytes, 16) bytes per array name,
 *                              16-byte aligned (asm .comm, so the text needs no element type)
 *   hd_host_kernel(void **a)   calls the entry: a tensor's address as hd_host_ptr (converts to
 *                              any pointer parameter), an integer as long long (converts to int,
 *                              size_t, float, ... parameters)
 * Compile errors name "jit.hip_source:<line>:<column>". Owns the text and the launch's argument
 * block; fe_custom_hip_source.c has read and checked the payload (fe_hs_read).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "graph/fe_custom_int.h"

#define OP "jit.hip_source"
#define MAX_DYN 16    /* distinct dynamic shared array names */
#define MSG_SIZE 1536 /* a message from the host build: the compiler's first lines */

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Whether `extern` stands right before at (whitespace between), as a word. */
static bool after_extern(const char *src, const char *at)
{
    while (at > src && isspace((unsigned char)at[-1]))
        at--;
    return at - src >= 6 && memcmp(at - 6, "extern", 6) == 0 && (at - 6 == src || !ident_char(at[-7]));
}

/* The name declared by the declaration from `at` on: the identifier before its first '[' (none
 * when a ';', '{', '}' or '=' comes first: not an array declaration, e.g. inside a comment). */
static bool declared_array(const char *at, char *name, size_t size)
{
    size_t k = strcspn(at, "[;{}=");
    if (at[k] != '[')
        return false;
    const char *end = at + k;
    while (end > at && isspace((unsigned char)end[-1]))
        end--;
    const char *start = end;
    while (start > at && ident_char(start[-1]))
        start--;
    if (start == end || (size_t)(end - start) >= size || isdigit((unsigned char)*start))
        return false;
    memcpy(name, start, (size_t)(end - start));
    name[end - start] = '\0';
    return true;
}

/* Blanks the __shared__ of every `extern __shared__` of src and collects the arrays' names. */
static int dynamic_shared(char *src, char names[][64], int *n_names, char *why, size_t n)
{
    *n_names = 0;
    for (char *at = strstr(src, "__shared__"); at != NULL; at = strstr(at + 10, "__shared__")) {
        if ((at > src && ident_char(at[-1])) || ident_char(at[10]) || !after_extern(src, at))
            continue;
        memset(at, ' ', 10);
        char name[64];
        if (!declared_array(at + 10, name, sizeof name))
            continue;
        bool seen = false;
        for (int i = 0; i < *n_names && !seen; i++)
            seen = strcmp(names[i], name) == 0;
        if (seen)
            continue;
        if (*n_names == MAX_DYN)
            return fe_hs_refuse(why, n, "the host reference takes at most %d dynamic shared arrays", MAX_DYN);
        snprintf(names[(*n_names)++], 64, "%s", name);
    }
    return 0;
}

/* The whole C++ text (see the file comment) into *text. */
static int compose(const fe_hs_op *op, base_sb *text, char *why, size_t n)
{
    const char *sched = fe_host_prelude("fe_host_sched.h"), *cuda = fe_host_prelude("fe_host_cuda.h");
    if (sched == NULL || cuda == NULL)
        return fe_hs_refuse(why, n, "the host preludes are not embedded in this build");
    size_t len = strlen(op->source);
    char *src = base_malloc(len + 1);
    if (src == NULL)
        return fe_hs_refuse(why, n, "out of memory");
    memcpy(src, op->source, len + 1);
    char names[MAX_DYN][64];
    int n_names;
    int r = dynamic_shared(src, names, &n_names, why, n);
    if (r == 0) {
        base_sb_printf(text, "%s\n%s\n#line 1 \"" OP "\"\n", sched, cuda);
        base_sb_putn(text, src, len);
        base_sb_puts(text, "\n#line 1 \"" OP " (the host reference's wrapper)\"\n");
        for (int i = 0; i < n_names; i++)
            base_sb_printf(text, "asm(\".hidden %s\\n.comm %s, %u, 16\\n\");\n", names[i], names[i],
                           op->shared_bytes > 16 ? op->shared_bytes : 16);
        base_sb_printf(text, "extern \"C\" __attribute__((visibility(\"default\"))) void hd_host_kernel(void **a)\n"
                       "{\n    %s(", op->entry);
        for (int i = 0; i < op->num_args; i++)
            base_sb_printf(text, "%s%s a[%d]%s", i ? ", " : "",
                           op->args[i].kind == HIPDNN_JIT_ARG_INT64 ? "*(const long long *)" : "hd_host_ptr{*(void **)",
                           i, op->args[i].kind == HIPDNN_JIT_ARG_INT64 ? "" : "}");
        base_sb_puts(text, ");\n}\n");
        if (text->oom)
            r = fe_hs_refuse(why, n, "out of memory");
    }
    base_free(src);
    return r;
}

/* Launches the loaded kernel over the call's host tensors. */
static int run(const hipdnnJitCustomOpCall_t *c, const fe_hs_op *op, fe_host_object *obj, char *why, size_t n)
{
    void *ptrs[HIPDNN_JIT_CUSTOM_OP_MAX_ARGS], *args[HIPDNN_JIT_CUSTOM_OP_MAX_ARGS];
    long long vals[HIPDNN_JIT_CUSTOM_OP_MAX_ARGS];
    for (int i = 0; i < op->num_args; i++) {
        const hipdnnJitKernelArg_t *a = &op->args[i];
        if (a->kind == HIPDNN_JIT_ARG_INT64) {
            vals[i] = a->value, args[i] = &vals[i];
            continue;
        }
        const hipdnnJitCustomTensor_t *t = a->kind == HIPDNN_JIT_ARG_INPUT ? &c->inputs[a->index] : &c->outputs[a->index];
        if (t->data == NULL)
            return fe_hs_refuse(why, n, "args[%d]: %s%d (uid %lld) has no host memory", i,
                          a->kind == HIPDNN_JIT_ARG_INPUT ? "in" : "out", (int)a->index, (long long)t->uid);
        ptrs[i] = t->data, args[i] = &ptrs[i];
    }
    char msg[MSG_SIZE];
    if (fe_host_launch(obj, args, op->grid, op->block, msg, sizeof msg) != 0)
        return fe_hs_refuse(why, n, "the host reference of \"%s\": %s", op->entry, msg);
    return 0;
}

int fe_hs_reference(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    fe_hs_op op;
    if (fe_hs_read(c, &op, why, n) != 0)
        return 1;
    base_sb text = {0};
    fe_host_object *obj = NULL;
    char msg[MSG_SIZE];
    int r = compose(&op, &text, why, n);
    if (r == 0 && fe_host_load(base_sb_str(&text), &obj, msg, sizeof msg) != 0)
        r = fe_hs_refuse(why, n, "the host reference of \"%s\" was not built: %s", op.entry, msg);
    if (r == 0)
        r = run(c, &op, obj, why, n);
    fe_host_release(obj);
    base_sb_free(&text);
    fe_hs_free(&op);
    return r != 0;
}
