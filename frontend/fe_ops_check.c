/* fe_ops_check.c — placeholder while the per-operation shape rules are written. */
#include "frontend/fe_int.h"
hipdnnStatus_t fe_check_op(fe_obj *op) { (void)op; return HIPDNN_STATUS_SUCCESS; }
