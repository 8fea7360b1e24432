/* td_util.c — the parameterized tests' per-type parameters, the shared handle and the
 * table-row questions of the test_descriptors files (td_util.h). Public API only.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <hipdnn_backend.h>
#include <pthread.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/recipes.h"
#include "../common/tu.h"

#include "td_util.h"

/* ---- per-type parameters ---------------------------------------------------------------------- */

static int spec_index[64];

struct criterion_test_params td_spec_params(void)
{
    for (int i = 0; i < rc_n_specs; i++)
        spec_index[i] = i;
    return cr_make_param_array(int, spec_index, (size_t)rc_n_specs);
}

/* A fresh handle for recipes that need one (OPERATIONGRAPH_HANDLE). */
hipdnnHandle_t td_handle;

void td_setup_handle(void)
{
    TU_OK(hipdnnCreate(&td_handle));
}

void td_teardown_handle(void)
{
    if (td_handle != NULL)
        cr_expect_eq(hipdnnDestroy(td_handle), HIPDNN_STATUS_SUCCESS);
    td_handle = NULL;
}

bool td_settable(const rc_attr *a)
{
    return a->kind != RC_GET_ONLY && a->kind != RC_DECLARED;
}

bool td_is_desc_valued(const rc_attr *a)
{
    return a->kind == RC_TENSOR || a->kind == RC_TENSORS || a->kind == RC_OPS;
}

/* Enum-typed attribute types whose values the API checks. */
bool td_is_checked_enum(hipdnnBackendAttributeType_t t)
{
    return t == HIPDNN_TYPE_DATA_TYPE || t == HIPDNN_TYPE_POINTWISE_MODE ||
           t == HIPDNN_TYPE_NORM_FWD_PHASE || t == HIPDNN_TYPE_CONVOLUTION_MODE ||
           t == HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT || t == HIPDNN_TYPE_ATTENTION_IMPLEMENTATION_EXT;
}

/* Two types an attribute of type t does not take. */
hipdnnBackendAttributeType_t td_wrong_type(hipdnnBackendAttributeType_t t, int which)
{
    if (which == 0)
        return t == HIPDNN_TYPE_INT64 ? HIPDNN_TYPE_INT32 : HIPDNN_TYPE_INT64;
    return t == DESC ? HIPDNN_TYPE_CHAR : DESC;
}

