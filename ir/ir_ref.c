/* ir_ref.c — placeholder until the reference kernels land: every op is NOT_SUPPORTED. */
#include "ir/ir_int.h"

hipdnnStatus_t ir_ref_run(ir_op_kind k, const ir_attrs *a, const ir_ref_ctx *c)
{
    (void)a, (void)c;
    return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, "reference: %s is not implemented yet",
                     ir_op_info_of(k)->name);
}
