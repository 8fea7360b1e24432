/* conv_tu.h — convolution graphs built in the IR, shared by the convolution codegen tests
 * (test_cg_conv.c: which template, NVRTC compiles; test_emu_conv.c: the direct template run on
 * the host emulator). Tensors are named after the forward op whatever the kind: x [N, G*CG,
 * in..], w [G*KG, CG, f..], y [N, G*KG, out..]; uids 1 x, 2 w, 3 y, then 4 bias, 5 the biased
 * sum, 6 the epilogue's result. */
#ifndef HIPDNN_TEST_CONV_TU_H
#define HIPDNN_TEST_CONV_TU_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

typedef struct conv_case {
    ir_op_kind kind;
    int sp;                  /* 2 or 3 spatial dims */
    bool nhwc, flip;
    hipdnnDataType_t io;     /* x, w, y (and the epilogue's output) */
    int64_t n, groups, cg, kg;
    int64_t in[3], f[3], pre[3], post[3], str[3], dil[3]; /* per spatial dim, sp used */
    bool epilogue;           /* conv -> virtual fp32 -> + bias (per channel) -> ReLU -> io */
    bool pad8;               /* channels-last pixels padded to a multiple of 8 channels */
    int64_t pad;             /* then `pad` elements more (NCHW: after rows of W) */
                             /* (both: x, w, y and the result; not the bias nor the biased sum) */
} conv_case;

/* Initializes, builds and seals (asserting success) the graph of case c. */
void conv_tu_build(ir_graph *g, const conv_case *c);

#endif
