/* custom_plugin.c — a custom-op plugin library for tests/api/test_plugin_paths.c: provider
 * "plug" owns "plug.negate" (y = −x on FLOAT tensors of equal dims, packed or strided, no
 * payload). Built twice: as is, and with PLUGIN_BAD_VERSION (its table claims api_version 99,
 * which the library must refuse). Uses only include/hipdnn_jit_custom_op.h; links nothing.
 */
#include <stdio.h>
#include <string.h>

#include "hipdnn_jit_custom_op.h"

static int check(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    if (strcmp(c->op_id, "plug.negate") != 0)
        return snprintf(why, n, "plug has no operation '%s'", c->op_id), 1;
    if (c->num_inputs != 1 || c->num_outputs != 1 || c->inputs[0].data_type != HIPDNN_DATA_FLOAT ||
        c->outputs[0].data_type != HIPDNN_DATA_FLOAT || c->inputs[0].rank != c->outputs[0].rank)
        return snprintf(why, n, "negate takes one FLOAT tensor to one of the same rank"), 1;
    return 0;
}

/* Visits every element of dims (rank r) in row-major order, mapping it through both views. */
static int reference(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    (void)why, (void)n;
    const hipdnnJitCustomTensor_t *x = &c->inputs[0], *y = &c->outputs[0];
    int64_t total = 1, idx[HIPDNN_JIT_CUSTOM_OP_MAX_RANK] = {0};
    for (int d = 0; d < x->rank; d++)
        total *= x->dims[d];
    for (int64_t i = 0; i < total; i++) {
        int64_t ox = 0, oy = 0;
        for (int d = 0; d < x->rank; d++)
            ox += idx[d] * x->strides[d], oy += idx[d] * y->strides[d];
        ((float *)y->data)[oy] = -((const float *)x->data)[ox];
        for (int d = x->rank - 1; d >= 0 && ++idx[d] == x->dims[d]; d--)
            idx[d] = 0;
    }
    return 0;
}

#ifdef PLUGIN_BAD_VERSION
#define API 99
#define NAME "plugbad"
#else
#define API HIPDNN_JIT_CUSTOM_OP_API_VERSION
#define NAME "plug"
#endif

static const hipdnnJitCustomOpProvider_t providers[] = {
    {.api_version = API, .name = NAME, .version = "1.2.3", .check = check, .reference = reference},
};

__attribute__((visibility("default"))) const hipdnnJitCustomOpProvider_t *hipdnnJitCustomOpProviders(int32_t *count)
{
    *count = 1;
    return providers;
}
