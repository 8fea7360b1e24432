/* fe_custom.c — custom-op providers (include/hipdnn_jit_custom_op.h): the registry, finding an
 * op id's provider, and the library's calls into a provider.
 *
 * Owns: the provider registry (hipdnnJitRegisterCustomOpProvider_ext, plugins added through
 * fe_custom_register with their file as origin by fe_custom_plugins.c; the built-in providers,
 * `jit` (its op: fe_custom_hip_source.c), are static entries ahead of every registration, so no
 * program or plugin can take their names), fe_custom_validate (the
 * table rules), fe_custom_bind (at graph finalize, after the
 * IR is sealed: every CUSTOM op gets its provider, and the provider's check accepts it, or the
 * graph gets no IR and the refusal names the op and the reason), and fe_custom_reference (the
 * reference engine's run of a custom op through the provider's host implementation).
 * The registry only grows (a provider's table must outlive the library's use of it), under a
 * mutex; lookups copy nothing. A provider's message buffer is ours and always NUL-terminated
 * before we read it, whatever the provider wrote. The strings a provider's `kernel` gives are
 * copied before anything else runs (fe_custom_kernel).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "graph/fe_custom_int.h"

#define MAX_PROVIDERS 64
#define WHY_SIZE 1536 /* a provider's reason: a host compiler's first lines fit */

typedef struct entry {
    const hipdnnJitCustomOpProvider_t *p;
    char origin[256]; /* "registered by the program", the plugin file, or "built into the library" */
} entry;

/* `jit`: jit.hip_source, a user's kernel in a graph (fe_custom_hip_source.c, fe_custom_hip_ref.c). */
static const hipdnnJitCustomOpProvider_t jit_provider = {
    .api_version = HIPDNN_JIT_CUSTOM_OP_API_VERSION, .name = "jit", .version = "1",
    .check = fe_hs_check, .reference = fe_hs_reference, .kernel = fe_hs_kernel};

/* Always present: the library's own providers (listed after the registered ones in messages). */
static const entry builtins[] = {{&jit_provider, "built into the library"}};
#define N_BUILTINS ((int)(sizeof builtins / sizeof builtins[0]))

static entry providers[MAX_PROVIDERS];
static int n_providers;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The entry named `name` (n characters), built-in or registered, or NULL (under lock). */
static const entry *named(const char *name, size_t n)
{
    for (int i = 0; i < N_BUILTINS + n_providers; i++) {
        const entry *e = i < N_BUILTINS ? &builtins[i] : &providers[i - N_BUILTINS];
        if (strlen(e->p->name) == n && memcmp(e->p->name, name, n) == 0)
            return e;
    }
    return NULL;
}

hipdnnStatus_t fe_custom_validate(const hipdnnJitCustomOpProvider_t *p, const char *origin)
{
    if (p == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "custom-op provider (%s) is NULL", origin);
    if (p->api_version != HIPDNN_JIT_CUSTOM_OP_API_VERSION)
        return base_fail(HIPDNN_STATUS_VERSION_MISMATCH, "custom-op provider (%s): api_version %u, this library "
                         "speaks %d", origin, p->api_version, HIPDNN_JIT_CUSTOM_OP_API_VERSION);
    if (p->name == NULL || p->version == NULL || p->check == NULL || p->reference == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "custom-op provider (%s): %s is NULL", origin,
                         p->name == NULL ? "name" : p->version == NULL ? "version"
                         : p->check == NULL ? "check" : "reference");
    size_t n = strlen(p->name);
    if (n == 0 || n >= 64 || strchr(p->name, '.') != NULL || strchr(p->name, ' ') != NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "custom-op provider (%s): name '%s' must be 1..63 characters "
                         "without '.' or ' '", origin, p->name);
    if (strlen(p->version) >= 56)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "custom-op provider '%s' (%s): version string longer than 55",
                         p->name, origin);
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_custom_register(const hipdnnJitCustomOpProvider_t *p, const char *origin)
{
    hipdnnStatus_t st = fe_custom_validate(p, origin);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    pthread_mutex_lock(&lock);
    const entry *taken = named(p->name, strlen(p->name));
    if (taken != NULL)
        st = base_fail(HIPDNN_STATUS_BAD_PARAM, "custom-op provider '%s' (%s): the name is taken (%s)", p->name,
                       origin, taken->origin);
    if (st == HIPDNN_STATUS_SUCCESS && n_providers == MAX_PROVIDERS)
        st = base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "custom-op provider '%s' (%s): %d providers are registered "
                       "already, the most this library keeps", p->name, origin, MAX_PROVIDERS);
    if (st == HIPDNN_STATUS_SUCCESS) {
        providers[n_providers].p = p;
        snprintf(providers[n_providers].origin, sizeof providers[n_providers].origin, "%s", origin);
        n_providers++;
        base_log(HIPDNN_SEV_INFO, "custom ops: provider '%s' version %s (%s)", p->name, p->version, origin);
    }
    pthread_mutex_unlock(&lock);
    return st;
}

const hipdnnJitCustomOpProvider_t *fe_custom_find(const char *op_id)
{
    const char *dot = strrchr(op_id, '.');
    if (dot == NULL)
        return NULL;
    pthread_mutex_lock(&lock);
    const entry *e = named(op_id, (size_t)(dot - op_id));
    pthread_mutex_unlock(&lock);
    return e != NULL ? e->p : NULL;
}

/* "a, b, jit (built in)": the registered names, then the built-in ones. */
static void provider_names(char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_providers + N_BUILTINS && used < size; i++) {
        bool builtin = i >= n_providers;
        used += (size_t)snprintf(buf + used, size - used, "%s%s%s", i ? ", " : "",
                                 builtin ? builtins[i - n_providers].p->name : providers[i].p->name,
                                 builtin ? " (built in)" : "");
    }
    pthread_mutex_unlock(&lock);
}

/* ---- calls ---------------------------------------------------------------------------------------- */

static void describe(const ir_tensor *t, int64_t uid, void *data, hipdnnJitCustomTensor_t *out)
{
    *out = (hipdnnJitCustomTensor_t){.uid = uid, .data_type = t->dtype, .rank = t->rank, .data = data};
    for (int d = 0; d < t->rank && d < HIPDNN_JIT_CUSTOM_OP_MAX_RANK; d++)
        out->dims[d] = t->dims[d], out->strides[d] = t->strides[d];
}

/* The call of op with tensors from the IR graph (data NULL). */
static void make_call(const ir_graph *g, const ir_op *op, hipdnnJitCustomTensor_t *in, hipdnnJitCustomTensor_t *out,
                      hipdnnJitCustomOpCall_t *call)
{
    for (int i = 0; i < op->n_in; i++)
        describe(&g->t[op->in[i]], g->t[op->in[i]].uid, NULL, &in[i]);
    for (int i = 0; i < op->n_out; i++)
        describe(&g->t[op->out[i]], g->t[op->out[i]].uid, NULL, &out[i]);
    *call = (hipdnnJitCustomOpCall_t){.op_id = op->a.custom.id, .payload = op->a.custom.payload,
                                      .payload_size = op->a.custom.payload_size, .compute_type = op->compute,
                                      .num_inputs = op->n_in, .inputs = in, .num_outputs = op->n_out, .outputs = out};
}

hipdnnStatus_t fe_custom_bind(ir_graph *g)
{
    for (int k = 0; k < g->n_ops; k++) {
        ir_op *op = &g->ops[k];
        if (op->kind != IR_OP_CUSTOM)
            continue;
        const char *id = op->a.custom.id;
        const hipdnnJitCustomOpProvider_t *p = fe_custom_find(id);
        if (p == NULL) {
            char names[256];
            provider_names(names, sizeof names);
            return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "custom op '%s': no provider owns it (an id is "
                             "\"<provider>.<operation>\"; providers: %s; add one with "
                             "hipdnnSetEnginePluginPaths_ext or hipdnnJitRegisterCustomOpProvider_ext)", id, names);
        }
        hipdnnJitCustomTensor_t in[IR_MAX_SLOTS], out[IR_MAX_SLOTS];
        hipdnnJitCustomOpCall_t call;
        make_call(g, op, in, out, &call);
        char why[WHY_SIZE] = "";
        if (p->check(&call, why, sizeof why) != 0) {
            why[sizeof why - 1] = '\0';
            return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "custom op '%s': provider '%s' refuses it: %s", id,
                             p->name, why[0] ? why : "(no reason given)");
        }
        op->a.custom.owner = p;
        snprintf(op->a.custom.provider, sizeof op->a.custom.provider, "%s %s", p->name, p->version);
    }
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_custom_reference(const ir_graph *g, const ir_op *op, const ir_buf *const *in,
                                   ir_buf *const *out)
{
    const hipdnnJitCustomOpProvider_t *p = op->a.custom.owner;
    if (p == NULL)
        return base_fail(HIPDNN_STATUS_INTERNAL_ERROR, "custom op '%s': no provider bound", op->a.custom.id);
    hipdnnJitCustomTensor_t ti[IR_MAX_SLOTS], to[IR_MAX_SLOTS];
    hipdnnJitCustomOpCall_t call;
    make_call(g, op, ti, to, &call);
    for (int i = 0; i < op->n_in; i++)
        ti[i].data = in[i]->data;
    for (int i = 0; i < op->n_out; i++)
        to[i].data = out[i]->data;
    char why[WHY_SIZE] = "";
    if (p->reference(&call, why, sizeof why) != 0) {
        why[sizeof why - 1] = '\0';
        return base_fail(HIPDNN_STATUS_EXECUTION_FAILED, "custom op '%s': provider '%s' reference failed: %s",
                         op->a.custom.id, p->name, why[0] ? why : "(no reason given)");
    }
    return HIPDNN_STATUS_SUCCESS;
}

bool fe_custom_has_kernel(const ir_op *op)
{
    const hipdnnJitCustomOpProvider_t *p = op->a.custom.owner;
    return p != NULL && p->kernel != NULL;
}

hipdnnStatus_t fe_custom_kernel(const ir_graph *g, const ir_op *op, const char *arch, hipdnnJitKernelSource_t *ks,
                                char **source, char **entry)
{
    *source = *entry = NULL;
    const hipdnnJitCustomOpProvider_t *p = op->a.custom.owner;
    if (p == NULL || p->kernel == NULL)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "custom op '%s': provider '%s' gives no GPU kernel (host "
                         "reference only)", op->a.custom.id, p != NULL ? p->name : "?");
    hipdnnJitCustomTensor_t ti[IR_MAX_SLOTS], to[IR_MAX_SLOTS];
    hipdnnJitCustomOpCall_t call;
    make_call(g, op, ti, to, &call);
    *ks = (hipdnnJitKernelSource_t){0};
    char why[WHY_SIZE] = "";
    if (p->kernel(&call, arch, ks, why, sizeof why) != 0) {
        why[sizeof why - 1] = '\0';
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "custom op '%s': provider '%s' gives no kernel for %s: %s",
                         op->a.custom.id, p->name, arch, why[0] ? why : "(no reason given)");
    }
    if (ks->source == NULL || ks->entry == NULL || ks->num_args < 0 || ks->num_args > HIPDNN_JIT_CUSTOM_OP_MAX_ARGS)
        return base_fail(HIPDNN_STATUS_PLUGIN_ERROR, "custom op '%s': provider '%s' filled the kernel with %s",
                         op->a.custom.id, p->name, ks->source == NULL ? "no source" : ks->entry == NULL ? "no entry"
                         : "a bad argument count");
    *source = base_memdup(ks->source, strlen(ks->source) + 1), *entry = base_memdup(ks->entry, strlen(ks->entry) + 1);
    if (*source == NULL || *entry == NULL) {
        base_free(*source), base_free(*entry), *source = *entry = NULL;
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "custom op '%s': out of memory", op->a.custom.id);
    }
    ks->source = *source, ks->entry = *entry; /* the provider's strings are not read again */
    return HIPDNN_STATUS_SUCCESS;
}

/* ---- public API ----------------------------------------------------------------------------------- */

static hipdnnStatus_t hipdnnJitRegisterCustomOpProvider_ext_body(const hipdnnJitCustomOpProvider_t *provider);

HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnJitRegisterCustomOpProvider_ext(const hipdnnJitCustomOpProvider_t *provider)
{
    base_call_begin();
    return base_call_done(hipdnnJitRegisterCustomOpProvider_ext_body(provider));
}

static hipdnnStatus_t hipdnnJitRegisterCustomOpProvider_ext_body(const hipdnnJitCustomOpProvider_t *provider)
{
    return fe_custom_register(provider, "registered by the program");
}
