/* pointwise.hip — a region of elementwise ops over one iteration shape, one element (or one
 * group of 8 consecutive elements, vectorized by codegen) per thread (grid-stride loop).
 *
 * Contract
 *   holes        HD_THREADS   threads per block (multiple of the warp size)
 *                HD_NUMEL     elements (or 8-element groups) of the iteration shape
 *                HD_PARAMS    the kernel's parameter list (tensor pointers, run-time scalars)
 *                HD_ARGS      the same names as an argument list
 *                hd_element(i, HD_PARAMS)   computes and stores every output of element i
 *                             (codegen: decomposes i over the iteration dims, loads each input
 *                             with its own strides, broadcasting size-1 dims, runs the ops)
 *   layout       any strides; scalar accesses need no alignment, the vectorized form 16 bytes
 *   reference    ir_ref_pointwise (ir/ir_ref_pointwise.c), element by element
 */
#ifndef HD_GENERATED /* defaults, so the template compiles on its own after a prelude */
#define HD_THREADS 256
#define HD_NUMEL 1024
#define HD_PARAMS void *p0, void *p1
#define HD_ARGS p0, p1
HD_DEVICE void hd_element(hd_i64 i, HD_PARAMS) { hd_st<HD_DT_FLOAT>(p1, i, hd_ld<HD_DT_FLOAT>(p0, i)); }
#endif

HD_GLOBAL HD_LAUNCH_BOUNDS(HD_THREADS) void hd_pointwise_kernel(HD_PARAMS)
{
    hd_i64 stride = (hd_i64)gridDim.x * HD_THREADS;
    for (hd_i64 i = (hd_i64)blockIdx.x * HD_THREADS + threadIdx.x; i < HD_NUMEL; i += stride)
        hd_element(i, HD_ARGS);
}
