/* fuzz_hip_source.c — libFuzzer harness: jit.hip_source's payload reader and size expressions
 * (graph/fe_custom_hip_source.c, graph/fe_custom_expr.c) on arbitrary bytes, against fixed
 * tensors: in0 [2, 3, 4, 5] (strides 60, 20, 5, 1), in1 [7], out0 [6, 8], out1 [2^40, 2^30, 4]
 * (its numel overflows int64).
 *
 * Input: the whole input is the payload (the op's DATA bytes, not NUL-terminated) of one call of
 * the provider's check (with out1 as a second output when the bytes hold "out1", else out0 only); the input up to its first NUL byte (at most 400 bytes) is also evaluated
 * as one size expression.
 * Invariants: the check returns 0 or 1; a refusal's reason is NUL-terminated, starts with
 * "jit.hip_source: " and says something. An accepted payload gives a kernel (the provider's
 * `kernel`) whose launch is within the limits the check promises (grid x 1..2^31-1, y and z
 * 1..65535, block dims >= 1 with at most 1024 threads, shared bytes <= 232448), whose arguments
 * name existing tensors and name every output, whose entry occurs in its source, and which a
 * second call gives again unchanged. An expression evaluates (twice to one value) or is refused
 * with a reason. Everything read is freed (LeakSanitizer; the kernel's per-thread slot holds the
 * last payload, reachable). The host reference (a compiler run per input) is not fuzzed here.
 * Seeds: corpus/hip_source/ (payloads of the tests and examples/graphs/hip_source_scale.json, and
 * expressions, from fz_seeds).
 */
#include <stdio.h>
#include <string.h>

#include "fz.h"
#include "graph/fe_custom_int.h"

#define WHY 2048

static const hipdnnJitCustomTensor_t inputs[2] = {
    {.uid = 1, .data_type = HIPDNN_DATA_FLOAT, .rank = 4, .dims = {2, 3, 4, 5}, .strides = {60, 20, 5, 1}},
    {.uid = 2, .data_type = HIPDNN_DATA_HALF, .rank = 1, .dims = {7}, .strides = {1}},
};
static const hipdnnJitCustomTensor_t outputs[2] = {
    {.uid = 3, .data_type = HIPDNN_DATA_FLOAT, .rank = 2, .dims = {6, 8}, .strides = {8, 1}},
    {.uid = 4, .data_type = HIPDNN_DATA_FLOAT, .rank = 3, .dims = {1LL << 40, 1LL << 30, 4},
     .strides = {1LL << 32, 4, 1}},
};

static void check_refusal(const char *why, const char *what)
{
    FZ_CHECK(memchr(why, '\0', WHY) != NULL, "%s: the reason is not terminated", what);
    FZ_CHECK(strncmp(why, "jit.hip_source: ", 16) == 0 && why[16] != '\0', "%s: reason \"%s\"", what, why);
}

static void check_kernel(const hipdnnJitCustomOpCall_t *c, const hipdnnJitKernelSource_t *k)
{
    FZ_CHECK(k->source != NULL && k->entry != NULL && strstr(k->source, k->entry) != NULL, "source and entry");
    FZ_CHECK(k->grid[0] >= 1 && k->grid[0] <= 2147483647u && k->grid[1] >= 1 && k->grid[1] <= 65535 &&
                 k->grid[2] >= 1 && k->grid[2] <= 65535,
             "grid %u %u %u", k->grid[0], k->grid[1], k->grid[2]);
    FZ_CHECK(k->block[0] >= 1 && k->block[1] >= 1 && k->block[2] >= 1 &&
                 (uint64_t)k->block[0] * k->block[1] * k->block[2] <= 1024,
             "block %u %u %u", k->block[0], k->block[1], k->block[2]);
    FZ_CHECK(k->shared_bytes <= FE_HS_MAX_SHARED, "shared bytes %u", k->shared_bytes);
    FZ_CHECK(k->num_args >= 0 && k->num_args <= HIPDNN_JIT_CUSTOM_OP_MAX_ARGS, "%d arguments", (int)k->num_args);
    bool named[2] = {false, false};
    for (int i = 0; i < k->num_args; i++) {
        const hipdnnJitKernelArg_t *a = &k->args[i];
        FZ_CHECK(a->kind == HIPDNN_JIT_ARG_INPUT || a->kind == HIPDNN_JIT_ARG_OUTPUT || a->kind == HIPDNN_JIT_ARG_INT64,
                 "argument %d of kind %d", i, (int)a->kind);
        if (a->kind == HIPDNN_JIT_ARG_INPUT)
            FZ_CHECK(a->index >= 0 && a->index < c->num_inputs, "argument %d: input %d", i, (int)a->index);
        if (a->kind == HIPDNN_JIT_ARG_OUTPUT) {
            FZ_CHECK(a->index >= 0 && a->index < c->num_outputs, "argument %d: output %d", i, (int)a->index);
            named[a->index] = true;
        }
    }
    for (int o = 0; o < c->num_outputs; o++)
        FZ_CHECK(named[o], "output %d named by no argument", o);
}

/* Whether the bytes hold "out1" (the call then has two outputs, else one). */
static bool names_out1(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i + 4 <= size; i++)
        if (memcmp(data + i, "out1", 4) == 0)
            return true;
    return false;
}

static void payload(const uint8_t *data, size_t size)
{
    hipdnnJitCustomOpCall_t c = {.op_id = "jit.hip_source", .payload = data, .payload_size = size,
                                 .compute_type = HIPDNN_DATA_FLOAT, .num_inputs = 2, .inputs = inputs,
                                 .num_outputs = names_out1(data, size) ? 2 : 1, .outputs = outputs};
    char why[WHY];
    memset(why, 'x', sizeof why);
    why[0] = '\0';
    int r = fe_hs_check(&c, why, sizeof why);
    FZ_CHECK(r == 0 || r == 1, "check returned %d", r);
    if (r != 0) {
        check_refusal(why, "check");
        return;
    }
    hipdnnJitKernelSource_t k1, k2;
    FZ_CHECK(fe_hs_kernel(&c, "sm_90", &k1, why, sizeof why) == 0, "kernel after an accepted check: %s", why);
    check_kernel(&c, &k1);
    char entry[64];
    snprintf(entry, sizeof entry, "%s", k1.entry);
    size_t source_len = strlen(k1.source);
    FZ_CHECK(fe_hs_kernel(&c, "gfx942", &k2, why, sizeof why) == 0, "a second kernel: %s", why);
    FZ_CHECK(strcmp(entry, k2.entry) == 0 && strlen(k2.source) == source_len &&
                 memcmp(k1.grid, k2.grid, sizeof k1.grid) == 0 && memcmp(k1.block, k2.block, sizeof k1.block) == 0 &&
                 k1.num_args == k2.num_args && memcmp(k1.args, k2.args, (size_t)k1.num_args * sizeof k1.args[0]) == 0,
             "two kernels of one payload differ");
}

static void expression(const uint8_t *data, size_t size)
{
    char text[401];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    hipdnnJitCustomOpCall_t c = {.op_id = "jit.hip_source", .num_inputs = 2, .inputs = inputs, .num_outputs = 2,
                                 .outputs = outputs};
    int64_t v1 = 0, v2 = 0;
    char why[WHY] = "";
    int r = fe_expr_eval(text, &c, &v1, why, sizeof why);
    FZ_CHECK(r == 0 || r == -1, "fe_expr_eval returned %d", r);
    if (r != 0) {
        FZ_CHECK(why[0] != '\0' && memchr(why, '\0', sizeof why) != NULL, "a refused expression without a reason");
        return;
    }
    FZ_CHECK(fe_expr_eval(text, &c, &v2, why, sizeof why) == 0 && v1 == v2, "\"%s\": %lld, then %lld", text,
             (long long)v1, (long long)v2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    payload(data, size);
    expression(data, size);
    return 0;
}
