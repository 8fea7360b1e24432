/* bench_graphs.c — times whole example graphs (JSON files) on the two GPU engines, jit_fused
 * (the fusion partition) and jit_unfused (one kernel per op, intermediates in workspace), and
 * prints what each achieves.
 *
 * Every non-virtual tensor gets device memory filled with random values in [-2, 2] (in its
 * own type); the workspace is allocated to the plan's size. Timing: bench_median_ms (events,
 * warm-up, median of REPS, inputs rotated over SETS buffer sets). Bytes counted: every
 * non-virtual tensor once (what an ideal fused kernel moves); FLOPs: 2·M·N·K for a matmul,
 * 2·(output elements)·(C/groups·filter size) for a forward convolution, 4·B·Hq·Sq·Skv·D for
 * attention (2.5x backward, halved under a causal band), else none.
 * Output: "graph engine ms GB/s TFLOP/s" per line, for bench/compare_graphs.py.
 * Usage: bench_graphs GRAPH.json...
 */
#include <string.h>

#include "bench_util.h"
#include "frontend/fe_int.h"

#define SETS 2
#define REPS 30

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    *len = fread(text, 1, (size_t)n, f);
    fclose(f);
    return text;
}

/* Device memory of tensor t's extent, random values in [-2, 2]. */
static void *random_tensor(const ir_tensor *t, size_t *bytes)
{
    int64_t last = 0;
    for (int d = 0; d < t->rank; d++)
        last += (t->dims[d] - 1) * t->strides[d];
    size_t es = fe_dtype_size(t->dtype);
    *bytes = (size_t)(last + 1) * (es ? es : 1);
    if (t->dtype == HIPDNN_DATA_BFLOAT16) /* the fast generator: attention inputs are ~100 MB */
        return bench_random_bf16((size_t)(last + 1));
    void *host = malloc(*bytes), *dev;
    ir_buf b = {.data = host, .dtype = t->dtype, .rank = t->rank};
    memcpy(b.dims, t->dims, sizeof b.dims), memcpy(b.strides, t->strides, sizeof b.strides);
    memset(host, 0, *bytes);
    int64_t idx[IR_MAX_RANK] = {0};
    do
        ir_store(&b, idx, (double)rand() / RAND_MAX * 4 - 2);
    while (ir_next_index(&b, idx));
    CHECK(hipdnnDeviceMalloc_ext(&dev, *bytes));
    CHECK(hipdnnMemcpyHostToDevice_ext(dev, host, *bytes));
    free(host);
    return dev;
}

static double graph_flops(const ir_graph *ir)
{
    double flops = 0;
    for (int i = 0; i < ir->n_ops; i++) {
        const ir_op *op = &ir->ops[i];
        const ir_tensor *a = &ir->t[op->in[0]], *b = &ir->t[op->in[1]], *y = &ir->t[op->out[0]];
        double outs = 1;
        for (int d = 0; d < y->rank; d++)
            outs *= (double)y->dims[d];
        if (op->kind == IR_OP_MATMUL)
            flops += 2 * outs * (double)a->dims[a->rank - 1];
        else if (op->kind == IR_OP_SDPA_FWD || op->kind == IR_OP_SDPA_BWD) {
            /* 4·B·Hq·Sq·Skv·D forward, 2.5x that backward (bench_attention's convention), halved
             * under a causal band that starts on the diagonal */
            const ir_tensor *q = a, *k = b;
            double f = 4 * (double)q->dims[0] * (double)q->dims[1] * (double)q->dims[2] * (double)k->dims[2] *
                       (double)q->dims[3];
            const ir_sdpa *p = &op->a.sdpa;
            if (p->has_right && p->right_bound == 0 && !p->has_left)
                f /= 2;
            flops += op->kind == IR_OP_SDPA_BWD ? 2.5 * f : f;
        } else if (op->kind == IR_OP_CONV_FWD) { /* w [K, C/groups, filter...] */
            double per = 1;
            for (int d = 1; d < b->rank; d++)
                per *= (double)b->dims[d];
            flops += 2 * outs * per;
        }
    }
    return flops;
}

static void run_graph(const char *path)
{
    size_t len = 0;
    char *text = read_file(path, &len);
    if (text == NULL) {
        fprintf(stderr, "%s: cannot read\n", path);
        return;
    }
    hipdnnBackendDescriptor_t g;
    CHECK(hipdnnBackendCreateAndDeserializeJsonGraph_ext(&g, text, len));
    CHECK(hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &bench_handle));
    CHECK(hipdnnBackendFinalize(g));
    free(text);
    const ir_graph *ir = fe_graph_of(g->obj)->ir;
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int64_t uids[64];
    void *bufs[SETS][64];
    int n = 0;
    double bytes = 0;
    for (int i = 0; i < ir->n_t && n < 64; i++) {
        const ir_tensor *t = &ir->t[i];
        if (t->is_virtual || t->by_value)
            continue;
        size_t b = 0;
        for (int s = 0; s < SETS; s++)
            bufs[s][n] = random_tensor(t, &b);
        uids[n++] = t->uid, bytes += (double)b;
    }
    const char *engines[] = {"jit_fused", "jit_unfused"};
    for (int e = 0; e < 2; e++) {
        hipdnnBackendDescriptor_t plan = bench_engine_plan(g, engines[e]);
        if (plan == NULL) {
            printf("%-22s %-12s %9s %8s %8s (engine does not support the graph)\n", name, engines[e], "-", "-", "-");
            continue;
        }
        float ms = bench_plan_ms(plan, n, uids, &bufs[0][0], 64, SETS, 5, REPS);
        printf("%-22s %-12s %9.4f %8.1f %8.1f\n", name, engines[e], ms, bytes / (ms * 1e-3) / 1e9,
               graph_flops(ir) / (ms * 1e-3) / 1e12);
        fflush(stdout);
        hipdnnBackendDestroyDescriptor(plan);
    }
    for (int s = 0; s < SETS; s++)
        for (int i = 0; i < n; i++)
            hipdnnDeviceFree_ext(bufs[s][i]);
    hipdnnBackendDestroyDescriptor(g);
}

int main(int argc, char **argv)
{
    bench_init("bench_graphs");
    printf("%-22s %-12s %9s %8s %8s\n", "graph", "engine", "ms", "GB/s", "TFLOP/s");
    for (int i = 1; i < argc; i++)
        run_graph(argv[i]);
    hipdnnDestroy(bench_handle);
    return 0;
}
