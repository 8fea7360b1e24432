/* ir_ops.c — the op table of ir_ops.def as data: names, roles, slot counts, fusion rules. */
#include "ir/ir.h"

static const ir_op_info infos[IR_OP_COUNT] = {
#define IR_OP(ID, name, role, n_in, n_out, pro, epi, tail, score, attrs) \
    [IR_OP_##ID] = {name, role, n_in, n_out, pro, epi, tail, score},
#include "ir/ir_ops.def"
#undef IR_OP
};

const ir_op_info *ir_op_info_of(ir_op_kind k)
{
    static const ir_op_info unknown = {"unknown", IR_ROLE_ALONE, 0, 0, false, false, false, false};
    return (int)k >= 0 && k < IR_OP_COUNT ? &infos[k] : &unknown;
}
