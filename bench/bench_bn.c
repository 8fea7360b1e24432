/* bench_bn.c — times the channel reductions (kernel_templates/channorm.hip) through the public
 * API on the fused JIT engine and prints achieved bandwidth.
 *
 * Graphs (bf16 x / y / dy / dx, fp32 per-channel tensors), x [N, C, H, W] NHWC or NCHW:
 *   bn_train_relu   y = relu(BN_train(x)), saved mean / inv variance, running statistics
 *   bn_bwd          dx, dscale, dbias from dy, x, scale, saved mean / inv variance
 *   genstats        sum, sq_sum of x
 * Two GB/s columns: "eff" counts each tensor once (x + y: 4 bytes/element for bn_train_relu,
 * 6 for bn_bwd, 2 for genstats); "moved" counts what the passes read and write (the reduce and
 * apply passes both read x, and dy: 6, 10 and 2 bytes/element). Timing as bench_norm: events,
 * warm-up, median of 50, inputs rotated over 4 sets (> L2). Output: one line per case,
 * "case layout N C H W ms eff_GB/s moved_GB/s" (bench/compare_bn.py reads it).
 */
#include <string.h>

#include "bench_util.h"

#define SETS 4
#define REPS 50

static json_t *tensor4(int uid, const char *dt, const int64_t *d, bool nhwc, bool per_channel, bool is_virtual)
{
    int64_t c = d[1], h = per_channel ? 1 : d[2], w = per_channel ? 1 : d[3];
    int64_t dims[4] = {per_channel ? 1 : d[0], c, h, w}, st[4];
    if (nhwc)
        st[0] = h * w * c, st[1] = 1, st[2] = w * c, st[3] = c;
    else
        st[0] = c * h * w, st[1] = h * w, st[2] = w, st[3] = 1;
    return json_pack("{s:i, s:s, s:[I,I,I,I], s:[I,I,I,I], s:b}", "uid", uid, "data_type", dt, "strides",
                     (json_int_t)st[0], (json_int_t)st[1], (json_int_t)st[2], (json_int_t)st[3], "dims",
                     (json_int_t)dims[0], (json_int_t)dims[1], (json_int_t)dims[2], (json_int_t)dims[3],
                     "virtual", is_virtual);
}

static json_t *scalar(int uid, double v)
{
    return json_pack("{s:i, s:s, s:[i,i], s:[i,i], s:s, s:{s:f}}", "uid", uid, "data_type", "FLOAT",
                     "strides", 1, 1, "dims", 1, 1, "value_type", "Float32Value", "value", "value", v);
}

/* uids: 1 x, 2 scale, 3 bias, 4 eps, 5/6 prev mean/var, 7 momentum, 8/9 next mean/var, 10 y (virtual),
 * 11/12 saved mean/inv, 13 relu(y); bwd: 21 dy, 22 dx, 23/24 dscale/dbias; genstats 31/32. */
static hipdnnBackendDescriptor_t build(const char *kind, const int64_t *d, bool nhwc)
{
    json_t *t = json_array(), *n = json_array();
    json_array_append_new(t, tensor4(1, "BFLOAT16", d, nhwc, false, false));
    for (int u = 2; u <= 12; u++) /* bn_bwd uses scale and the saved statistics */
        if (u != 4 && u != 7 && u != 10 && (strcmp(kind, "bn_train_relu") == 0 ||
                                            (strcmp(kind, "bn_bwd") == 0 && (u == 2 || u >= 11))))
            json_array_append_new(t, tensor4(u, "FLOAT", d, nhwc, true, false));
    if (strcmp(kind, "bn_train_relu") == 0) {
        json_array_append_new(t, scalar(4, 1e-5));
        json_array_append_new(t, scalar(7, 0.1));
        json_array_append_new(t, tensor4(10, "FLOAT", d, nhwc, false, true));
        json_array_append_new(t, tensor4(13, "BFLOAT16", d, nhwc, false, false));
        json_t *a = json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "x_tensor_uid", 1,
            "scale_tensor_uid", 2, "bias_tensor_uid", 3, "epsilon_tensor_uid", 4, "prev_running_mean_tensor_uid", 5,
            "prev_running_variance_tensor_uid", 6, "momentum_tensor_uid", 7, "next_running_mean_tensor_uid", 8,
            "next_running_variance_tensor_uid", 9, "y_tensor_uid", 10, "mean_tensor_uid", 11,
            "inv_variance_tensor_uid", 12);
        json_array_append_new(n, bench_node("BatchnormAttributes", a));
        json_array_append_new(n, bench_node("PointwiseAttributes", json_pack("{s:s,s:i,s:i}", "operation",
            "RELU_FWD", "in_0_tensor_uid", 10, "out_0_tensor_uid", 13)));
    } else if (strcmp(kind, "bn_bwd") == 0) {
        json_array_append_new(t, tensor4(21, "BFLOAT16", d, nhwc, false, false));
        json_array_append_new(t, tensor4(22, "BFLOAT16", d, nhwc, false, false));
        json_array_append_new(t, tensor4(23, "FLOAT", d, nhwc, true, false));
        json_array_append_new(t, tensor4(24, "FLOAT", d, nhwc, true, false));
        json_array_append_new(n, bench_node("BatchnormBackwardAttributes", json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}",
            "dy_tensor_uid", 21, "x_tensor_uid", 1, "mean_tensor_uid", 11, "inv_variance_tensor_uid", 12,
            "scale_tensor_uid", 2, "dx_tensor_uid", 22, "dscale_tensor_uid", 23, "dbias_tensor_uid", 24)));
    } else {
        json_array_append_new(t, tensor4(31, "FLOAT", d, nhwc, true, false));
        json_array_append_new(t, tensor4(32, "FLOAT", d, nhwc, true, false));
        json_array_append_new(n, bench_node("GenStatsAttributesExt", json_pack("{s:i,s:i,s:i}", "x_tensor_uid", 1,
            "sum_tensor_uid", 31, "sq_sum_tensor_uid", 32)));
    }
    return bench_graph(t, n);
}

static hipdnnBackendDescriptor_t pack_ws(int n, int64_t *uids, void **ptrs, void *ws)
{
    hipdnnBackendDescriptor_t p;
    CHECK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &p));
    CHECK(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, HIPDNN_TYPE_INT64, n, uids));
    CHECK(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_VARIANT_PACK_DATA_POINTERS, HIPDNN_TYPE_VOID_PTR, n, ptrs));
    CHECK(hipdnnBackendSetAttribute(p, HIPDNN_ATTR_VARIANT_PACK_WORKSPACE, HIPDNN_TYPE_VOID_PTR, 1, &ws));
    CHECK(hipdnnBackendFinalize(p));
    return p;
}

static void run_case(const char *kind, const int64_t *d, bool nhwc)
{
    hipdnnBackendDescriptor_t g = build(kind, d, nhwc), plan = bench_jit_plan(g);
    int64_t ws_size = 0, cnt;
    CHECK(hipdnnBackendGetAttribute(plan, HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, HIPDNN_TYPE_INT64, 1, &cnt, &ws_size));
    size_t elems = (size_t)(d[0] * d[1] * d[2] * d[3]), cb = (size_t)d[1] * 4;
    float *host = malloc(cb);
    for (int64_t i = 0; i < d[1]; i++)
        host[i] = 0.5f + (float)rand() / (float)RAND_MAX;
    void *chan[12], *ws, *big[SETS][3];
    for (int u = 0; u < 12; u++) { /* per-channel tensors, positive (variances among them) */
        CHECK(hipdnnDeviceMalloc_ext(&chan[u], cb));
        CHECK(hipdnnMemcpyHostToDevice_ext(chan[u], host, cb));
    }
    CHECK(hipdnnDeviceMalloc_ext(&ws, (size_t)ws_size + 1));
    hipdnnBackendDescriptor_t packs[SETS];
    for (int s = 0; s < SETS; s++) { /* x, dy, out */
        big[s][0] = bench_random_bf16(elems), big[s][1] = NULL;
        if (strcmp(kind, "bn_bwd") == 0)
            big[s][1] = bench_random_bf16(elems);
        CHECK(hipdnnDeviceMalloc_ext(&big[s][2], elems * 2));
        if (strcmp(kind, "bn_train_relu") == 0) {
            int64_t uids[] = {1, 2, 3, 5, 6, 8, 9, 11, 12, 13};
            void *ptrs[] = {big[s][0], chan[0], chan[1], chan[2], chan[3], chan[4], chan[5], chan[6], chan[7],
                            big[s][2]};
            packs[s] = pack_ws(10, uids, ptrs, ws);
        } else if (strcmp(kind, "bn_bwd") == 0) {
            int64_t uids[] = {21, 1, 11, 12, 2, 22, 23, 24};
            void *ptrs[] = {big[s][1], big[s][0], chan[6], chan[7], chan[0], big[s][2], chan[8], chan[9]};
            packs[s] = pack_ws(8, uids, ptrs, ws);
        } else {
            int64_t uids[] = {1, 31, 32};
            void *ptrs[] = {big[s][0], chan[10], chan[11]};
            packs[s] = pack_ws(3, uids, ptrs, ws);
        }
    }
    float ms = bench_median_ms(plan, packs, SETS, 10, REPS);
    double eff = strcmp(kind, "bn_train_relu") == 0 ? 4 : strcmp(kind, "bn_bwd") == 0 ? 6 : 2;
    double moved = strcmp(kind, "bn_train_relu") == 0 ? 6 : strcmp(kind, "bn_bwd") == 0 ? 10 : 2;
    printf("%-14s %-5s %4lld %4lld %4lld %4lld %9.4f %8.1f %8.1f\n", kind, nhwc ? "NHWC" : "NCHW", (long long)d[0],
           (long long)d[1], (long long)d[2], (long long)d[3], ms, elems * eff / (ms * 1e-3) / 1e9,
           elems * moved / (ms * 1e-3) / 1e9);
    fflush(stdout);
    for (int s = 0; s < SETS; s++) {
        hipdnnBackendDestroyDescriptor(packs[s]);
        for (int b = 0; b < 3; b++)
            if (big[s][b] != NULL)
                hipdnnDeviceFree_ext(big[s][b]);
    }
    for (int u = 0; u < 12; u++)
        hipdnnDeviceFree_ext(chan[u]);
    hipdnnDeviceFree_ext(ws), free(host);
    hipdnnBackendDestroyDescriptor(plan), hipdnnBackendDestroyDescriptor(g);
}

int main(int argc, char **argv)
{
    static const int64_t shapes[][4] = {{32, 256, 56, 56}, {256, 1024, 7, 7}};
    const char *kinds[] = {"bn_train_relu", "bn_bwd", "genstats"};
    bench_init("bench_bn");
    printf("%-14s %-5s %4s %4s %4s %4s %9s %8s %8s\n", "case", "lay", "N", "C", "H", "W", "ms", "eff", "moved");
    for (size_t k = 0; k < 3; k++)
        for (size_t s = 0; s < 2; s++)
            for (int nhwc = 1; nhwc >= 0; nhwc--)
                if (argc < 2 || strstr(argv[1], kinds[k]) != NULL)
                    run_case(kinds[k], shapes[s], nhwc);
    hipdnnDestroy(bench_handle);
    return 0;
}
