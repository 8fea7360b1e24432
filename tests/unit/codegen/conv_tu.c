/* conv_tu.c — convolution graphs for the codegen tests (conv_tu.h). */
#include <criterion/criterion.h>
#include <string.h>

#include "../../common/tu.h"
#include "conv_tu.h"

/* A tensor laid out as c says; `padded`: with c's padding. */
static int add(ir_graph *g, int uid, hipdnnDataType_t dt, int r, const int64_t *dims, const conv_case *c,
               bool padded, bool virt)
{
    ir_tensor t = {.uid = uid, .dtype = dt, .rank = r, .is_virtual = virt, .producer = -1};
    memcpy(t.dims, dims, (size_t)r * sizeof *dims);
    tu_conv_strides(r, dims, c->nhwc, padded && c->pad8, padded ? c->pad : 0, t.strides);
    return ir_add_tensor(g, &t);
}

/* + bias (per channel, per K of dw), ReLU -> io, after the conv's result `out`. */
static void add_epilogue(ir_graph *g, const conv_case *c, int out)
{
    int r = c->sp + 2;
    int64_t od[5], bd[5] = {1, 1, 1, 1, 1};
    memcpy(od, g->t[out].dims, sizeof od);
    int ch = c->kind == IR_OP_CONV_WGRAD ? 0 : 1; /* per K of dw [K, C/G, ..], else per channel */
    bd[ch] = od[ch];
    int b = add(g, 4, HIPDNN_DATA_FLOAT, r, bd, c, false, false);
    int v = add(g, 5, HIPDNN_DATA_FLOAT, r, od, c, false, true);
    int z = add(g, 6, c->io, r, od, c, true, false);
    ir_op badd = {.kind = IR_OP_POINTWISE, .compute = HIPDNN_DATA_FLOAT, .n_in = 3, .n_out = 1,
                  .in = {out, b, -1}, .out = {v}};
    badd.a.pw.mode = HIPDNN_POINTWISE_ADD;
    ir_op relu = {.kind = IR_OP_POINTWISE, .compute = HIPDNN_DATA_FLOAT, .n_in = 3, .n_out = 1,
                  .in = {v, -1, -1}, .out = {z}};
    relu.a.pw.mode = HIPDNN_POINTWISE_RELU_FWD, relu.a.pw.relu_upper = 1e300;
    cr_assert_geq(ir_add_op(g, &badd), 0);
    cr_assert_geq(ir_add_op(g, &relu), 0);
}

void conv_tu_build(ir_graph *g, const conv_case *c)
{
    ir_graph_init(g);
    int r = c->sp + 2;
    int64_t xd[5] = {c->n, c->groups * c->cg}, wd[5] = {c->groups * c->kg, c->cg}, yd[5] = {c->n, c->groups * c->kg};
    ir_op op = {.kind = c->kind, .compute = HIPDNN_DATA_FLOAT, .n_in = 2, .n_out = 1};
    op.a.conv.spatial = c->sp, op.a.conv.convolution = c->flip;
    for (int d = 0; d < c->sp; d++) {
        xd[2 + d] = c->in[d], wd[2 + d] = c->f[d];
        yd[2 + d] = 1 + (c->in[d] + c->pre[d] + c->post[d] - c->dil[d] * (c->f[d] - 1) - 1) / c->str[d];
        op.a.conv.pre[d] = c->pre[d], op.a.conv.post[d] = c->post[d];
        op.a.conv.stride[d] = c->str[d], op.a.conv.dilation[d] = c->dil[d];
    }
    bool out_x = c->kind == IR_OP_CONV_DGRAD, out_w = c->kind == IR_OP_CONV_WGRAD, out_y = c->kind == IR_OP_CONV_FWD;
    hipdnnDataType_t acc = c->epilogue ? HIPDNN_DATA_FLOAT : c->io;
    int x = add(g, 1, out_x ? acc : c->io, r, xd, c, true, out_x && c->epilogue);
    int w = add(g, 2, out_w ? acc : c->io, r, wd, c, true, out_w && c->epilogue);
    int y = add(g, 3, out_y ? acc : c->io, r, yd, c, true, out_y && c->epilogue);
    if (c->kind == IR_OP_CONV_FWD)
        op.in[0] = x, op.in[1] = w, op.out[0] = y;
    else if (c->kind == IR_OP_CONV_DGRAD)
        op.in[0] = y, op.in[1] = w, op.out[0] = x;
    else
        op.in[0] = x, op.in[1] = y, op.out[0] = w;
    cr_assert_geq(ir_add_op(g, &op), 0);
    if (c->epilogue)
        add_epilogue(g, c, op.out[0]);
    cr_assert_eq(ir_graph_seal(g), HIPDNN_STATUS_SUCCESS);
}
