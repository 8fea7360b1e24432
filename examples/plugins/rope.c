/* rope.c — an example custom-op plugin for hipdnn-jit: provider "example", operation
 * "example.rope", rotary position embedding (RoPE) as transformer attention applies it to Q and K.
 *
 *   inputs:  x [B, H, S, D] (FLOAT or BFLOAT16, any strides), cos [S, D/2], sin [S, D/2] (FLOAT,
 *            packed)
 *   output:  y [B, H, S, D] (x's data type, any strides)
 *   payload: empty, or one byte: 0 = half-split pairs (i, i + D/2), as GPT-NeoX and Llama do;
 *            1 = interleaved pairs (2i, 2i + 1), as GPT-J does.
 *   y[p] = x[p]·cos[s,i] − x[q]·sin[s,i],  y[q] = x[q]·cos[s,i] + x[p]·sin[s,i]  for each pair (p, q).
 *
 * It gives the library a host reference (the reference engine runs it) and a GPU kernel (one
 * thread per pair, compiled by the library with NVRTC / hipRTC and kept in its kernel cache).
 * Build: cc -shared -fPIC -I<prefix>/include rope.c -o libexample_rope.so, then
 * hipdnnSetEnginePluginPaths_ext(1, (const char*[]){"/path/libexample_rope.so"}, 0).
 * Uses only include/hipdnn_jit_custom_op.h; links nothing.
 */
#include <stdio.h>
#include <string.h>

#include "hipdnn_jit_custom_op.h"

typedef struct rope {
    int64_t b, h, s, d;
    int interleaved;
    int bf16;
} rope;

/* Reads the op's shape and options; non-zero with the reason when it does not fit. */
static int describe(const hipdnnJitCustomOpCall_t *c, rope *r, char *why, size_t n)
{
    if (strcmp(c->op_id, "example.rope") != 0)
        return snprintf(why, n, "example has no operation '%s' (it has: rope)", c->op_id), 1;
    if (c->num_inputs != 3 || c->num_outputs != 1)
        return snprintf(why, n, "rope takes x, cos, sin and gives y; got %d inputs, %d outputs", c->num_inputs,
                        c->num_outputs), 1;
    if (c->payload_size > 1 || (c->payload_size == 1 && c->payload[0] > 1))
        return snprintf(why, n, "the payload is empty or one byte, 0 (half-split) or 1 (interleaved)"), 1;
    const hipdnnJitCustomTensor_t *x = &c->inputs[0], *cs = &c->inputs[1], *sn = &c->inputs[2], *y = &c->outputs[0];
    if (x->rank != 4 || y->rank != 4)
        return snprintf(why, n, "x and y are [B, H, S, D]"), 1;
    *r = (rope){x->dims[0], x->dims[1], x->dims[2], x->dims[3], c->payload_size == 1 && c->payload[0] == 1,
                x->data_type == HIPDNN_DATA_BFLOAT16};
    if (x->data_type != y->data_type || (x->data_type != HIPDNN_DATA_FLOAT && !r->bf16))
        return snprintf(why, n, "x and y are both FLOAT or both BFLOAT16"), 1;
    if (memcmp(x->dims, y->dims, 4 * sizeof x->dims[0]) != 0 || r->d % 2 != 0)
        return snprintf(why, n, "y has x's dims, and D (%lld) is even", (long long)r->d), 1;
    for (int t = 0; t < 2; t++) {
        const hipdnnJitCustomTensor_t *a = t ? sn : cs;
        if (a->data_type != HIPDNN_DATA_FLOAT || a->rank != 2 || a->dims[0] != r->s || a->dims[1] != r->d / 2 ||
            a->strides[1] != 1 || a->strides[0] != r->d / 2)
            return snprintf(why, n, "%s is a packed FLOAT [S, D/2] = [%lld, %lld]", t ? "sin" : "cos",
                            (long long)r->s, (long long)(r->d / 2)), 1;
    }
    return 0;
}

static int check(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    rope r;
    return describe(c, &r, why, n);
}

static float load(const void *p, int64_t i, int bf16)
{
    if (!bf16)
        return ((const float *)p)[i];
    uint32_t bits = (uint32_t)((const uint16_t *)p)[i] << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static void store(void *p, int64_t i, float v, int bf16)
{
    if (!bf16) {
        ((float *)p)[i] = v;
        return;
    }
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        bits = 0x7fc00000u; /* NaN */
    else
        bits += 0x7fffu + ((bits >> 16) & 1u); /* round to nearest even */
    ((uint16_t *)p)[i] = (uint16_t)(bits >> 16);
}

static int reference(const hipdnnJitCustomOpCall_t *c, char *why, size_t n)
{
    rope r;
    if (describe(c, &r, why, n) != 0)
        return 1;
    const hipdnnJitCustomTensor_t *x = &c->inputs[0], *y = &c->outputs[0];
    const float *cs = c->inputs[1].data, *sn = c->inputs[2].data;
    int64_t half = r.d / 2;
    for (int64_t b = 0; b < r.b; b++)
        for (int64_t h = 0; h < r.h; h++)
            for (int64_t s = 0; s < r.s; s++)
                for (int64_t i = 0; i < half; i++) {
                    int64_t p = r.interleaved ? 2 * i : i, q = r.interleaved ? 2 * i + 1 : i + half;
                    int64_t row_x = b * x->strides[0] + h * x->strides[1] + s * x->strides[2];
                    int64_t row_y = b * y->strides[0] + h * y->strides[1] + s * y->strides[2];
                    double xp = load(x->data, row_x + p * x->strides[3], r.bf16);
                    double xq = load(x->data, row_x + q * x->strides[3], r.bf16);
                    double co = cs[s * half + i], si = sn[s * half + i];
                    store(y->data, row_y + p * y->strides[3], (float)(xp * co - xq * si), r.bf16);
                    store(y->data, row_y + q * y->strides[3], (float)(xq * co + xp * si), r.bf16);
                }
    return 0;
}

/* One thread per (b, h, s, pair). T is float or a bf16 stored as unsigned short. */
#define ROPE_SOURCE \
    "#ifdef ROPE_BF16\n" \
    "typedef unsigned short T;\n" \
    "__device__ float ld(const T *p, long long i) { return __uint_as_float((unsigned)p[i] << 16); }\n" \
    "__device__ void st(T *p, long long i, float v)\n" \
    "{\n" \
    "    unsigned u = __float_as_uint(v);\n" \
    "    u = (u & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : u + 0x7fffu + ((u >> 16) & 1u);\n" \
    "    p[i] = (T)(u >> 16);\n" \
    "}\n" \
    "#else\n" \
    "typedef float T;\n" \
    "__device__ float ld(const T *p, long long i) { return p[i]; }\n" \
    "__device__ void st(T *p, long long i, float v) { p[i] = v; }\n" \
    "#endif\n" \
    "extern \"C\" __global__ void example_rope(const T *x, const float *cs, const float *sn, T *y,\n" \
    "    long long B, long long H, long long S, long long D, long long interleaved,\n" \
    "    long long x0, long long x1, long long x2, long long x3,\n" \
    "    long long y0, long long y1, long long y2, long long y3)\n" \
    "{\n" \
    "    long long half = D / 2, t = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n" \
    "    if (t >= B * H * S * half)\n" \
    "        return;\n" \
    "    long long i = t % half, s = t / half % S, h = t / (half * S) % H, b = t / (half * S * H);\n" \
    "    long long p = interleaved ? 2 * i : i, q = interleaved ? 2 * i + 1 : i + half;\n" \
    "    long long rx = b * x0 + h * x1 + s * x2, ry = b * y0 + h * y1 + s * y2;\n" \
    "    float xp = ld(x, rx + p * x3), xq = ld(x, rx + q * x3);\n" \
    "    float co = cs[s * half + i], si = sn[s * half + i];\n" \
    "    st(y, ry + p * y3, xp * co - xq * si);\n" \
    "    st(y, ry + q * y3, xq * co + xp * si);\n" \
    "}\n"
static const char kernel_source[] = ROPE_SOURCE;
static const char bf16_source[] = "#define ROPE_BF16\n" ROPE_SOURCE;

static int kernel(const hipdnnJitCustomOpCall_t *c, const char *arch, hipdnnJitKernelSource_t *k, char *why, size_t n)
{
    (void)arch;
    rope r;
    if (describe(c, &r, why, n) != 0)
        return 1;
    int64_t pairs = r.b * r.h * r.s * (r.d / 2);
    *k = (hipdnnJitKernelSource_t){.source = r.bf16 ? bf16_source : kernel_source, .entry = "example_rope",
                                   .grid = {(uint32_t)((pairs + 255) / 256), 1, 1}, .block = {256, 1, 1}};
    const hipdnnJitCustomTensor_t *x = &c->inputs[0], *y = &c->outputs[0];
    int64_t ints[] = {r.b, r.h, r.s, r.d, r.interleaved, x->strides[0], x->strides[1], x->strides[2], x->strides[3],
                      y->strides[0], y->strides[1], y->strides[2], y->strides[3]};
    int a = 0;
    for (int i = 0; i < 3; i++)
        k->args[a++] = (hipdnnJitKernelArg_t){.kind = HIPDNN_JIT_ARG_INPUT, .index = i};
    k->args[a++] = (hipdnnJitKernelArg_t){.kind = HIPDNN_JIT_ARG_OUTPUT, .index = 0};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        k->args[a++] = (hipdnnJitKernelArg_t){.kind = HIPDNN_JIT_ARG_INT64, .value = ints[i]};
    k->num_args = a;
    return 0;
}

static const hipdnnJitCustomOpProvider_t providers[] = {
    {.api_version = HIPDNN_JIT_CUSTOM_OP_API_VERSION, .name = "example", .version = "1.0", .check = check,
     .reference = reference, .kernel = kernel},
};

__attribute__((visibility("default"))) const hipdnnJitCustomOpProvider_t *hipdnnJitCustomOpProviders(int32_t *count)
{
    *count = 1;
    return providers;
}
