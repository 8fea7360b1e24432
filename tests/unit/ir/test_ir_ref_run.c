/* test_ir_ref_run.c — ir_ref_run's dispatch (ir/ir_ref.c) and the op table it relies on.
 *
 * Owns: ir_op_info_of against ir_ops.def (names, roles, slot counts, out-of-range kinds),
 * ir_ref_run's argument checks (null context, unsupported element types, malformed views),
 * CUSTOM -> NOT_SUPPORTED with a message, and SDPA dispatched (it rejects missing operands).
 */
#include <string.h>

#include "base/base.h"
#include "ir_test_util.h"

Test(ir_ref_run, op_table)
{
    static const struct {
        ir_op_kind k;
        const char *name;
        ir_role role;
        int n_in, n_out;
    } want[] = {
        {IR_OP_POINTWISE, "pointwise", IR_ROLE_POINTWISE, 3, 1},
        {IR_OP_MATMUL, "matmul", IR_ROLE_ANCHOR, 2, 1},
        {IR_OP_CONV_WGRAD, "conv_wgrad", IR_ROLE_ANCHOR, 2, 1},
        {IR_OP_BN_TRAIN, "bn_training", IR_ROLE_ANCHOR, 7, 5},
        {IR_OP_SDPA_FWD, "sdpa_fwd", IR_ROLE_ANCHOR, 23, 7},
        {IR_OP_SDPA_BWD, "sdpa_bwd", IR_ROLE_ANCHOR, 16, 4},
        {IR_OP_BS_DEQUANTIZE, "block_scale_dequantize", IR_ROLE_POINTWISE, 2, 1},
        {IR_OP_PAGED_CACHE_LOAD, "paged_cache_load", IR_ROLE_ALONE, 3, 1},
        {IR_OP_CUSTOM, "custom", IR_ROLE_ALONE, 0, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const ir_op_info *info = ir_op_info_of(want[i].k);
        cr_assert(info != NULL && strcmp(info->name, want[i].name) == 0);
        CHECK(info->role == want[i].role && info->n_in == want[i].n_in &&
              info->n_out == want[i].n_out);
    }
    /* the table's slot counts are ir.h's slot enums' */
    CHECK(ir_op_info_of(IR_OP_SDPA_FWD)->n_in == IR_SDPA_N_IN && ir_op_info_of(IR_OP_SDPA_FWD)->n_out == IR_SDPA_N_OUT);
    CHECK(ir_op_info_of(IR_OP_SDPA_BWD)->n_in == IR_SDPAB_N_IN && ir_op_info_of(IR_OP_SDPA_BWD)->n_out == IR_SDPAB_N_OUT);
    for (int k = 0; k < IR_OP_COUNT; k++)
        CHECK(ir_op_info_of((ir_op_kind)k) != NULL && ir_op_info_of((ir_op_kind)k)->name != NULL);
    CHECK(strcmp(ir_op_info_of(IR_OP_COUNT)->name, "unknown") == 0);
    CHECK(strcmp(ir_op_info_of((ir_op_kind)-1)->name, "unknown") == 0);
}

Test(ir_ref_run, argument_checks)
{
    ir_attrs a = {.pw = {HIPDNN_POINTWISE_IDENTITY, 0, 0, 0, 1, 1, 1, 0}};
    CHECK(ir_ref_run(IR_OP_POINTWISE, &a, NULL) == HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    ir_ref_ctx c = {NULL, NULL, 1, 1};
    CHECK(ir_ref_run(IR_OP_POINTWISE, &a, &c) == HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    tt *x = tt_new(HIPDNN_DATA_FLOAT, 1, DIMS(4), TT_DENSE);
    tt *y6 = tt_new(HIPDNN_DATA_FP6_E2M3_EXT, 1, DIMS(4), TT_DENSE);
    CHECK(tt_run(IR_OP_POINTWISE, &a, &x, 1, &y6, 1) == HIPDNN_STATUS_NOT_SUPPORTED);
    CHECK(tt_run((ir_op_kind)99, &a, &x, 1, &x, 1) == HIPDNN_STATUS_BAD_PARAM);
    x->b.rank = IR_MAX_RANK + 1;
    CHECK(tt_run(IR_OP_POINTWISE, &a, &x, 1, &x, 1) == HIPDNN_STATUS_BAD_PARAM);
    tt_free(x), tt_free(y6);
}

Test(ir_ref_run, custom_and_sdpa_without_operands)
{
    ir_attrs a = {.custom = {.id = "my_op"}};
    ir_ref_ctx c = {NULL, NULL, 0, 0};
    char msg[256];
    CHECK(ir_ref_run(IR_OP_CUSTOM, &a, &c) == HIPDNN_STATUS_NOT_SUPPORTED);
    base_last_error(msg, sizeof msg, true);
    CHECK(strstr(msg, "my_op") != NULL);
    ir_attrs s = {.sdpa = {1.0, false, false, false, false, false, 0, 0, false, 0.0, false}};
    CHECK(ir_ref_run(IR_OP_SDPA_FWD, &s, &c) != HIPDNN_STATUS_SUCCESS);
    CHECK(ir_ref_run(IR_OP_SDPA_BWD, &s, &c) != HIPDNN_STATUS_SUCCESS);
}
