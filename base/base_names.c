/* base_names.c — the names of public enum values that logs and serialized graphs print.
 *
 * Owns: hipdnnPointwiseMode_t's names without the HIPDNN_POINTWISE_ prefix ("RELU_FWD"), each
 * written next to its enumerator so a renumbered enum cannot shift them (MAX and MIN are
 * "MAX_OP" / "MIN_OP", the names of hipDNN's graph schema). Used by the JSON graph
 * form (desc/fe_enum_names.c: its wire numbering is the API's) and by the partition dump
 * (ir/ir_fuse.c). Status names stay in base_err.c.
 */
#include "base/base.h"

#define MODE(m) [HIPDNN_POINTWISE_##m] = #m
const char *const base_pointwise_mode_names[BASE_N_POINTWISE_MODES] = {
    [0] = "UNSET", MODE(ABS), MODE(ADD), MODE(ADD_SQUARE), MODE(BINARY_SELECT), MODE(CEIL),
    MODE(CMP_EQ), MODE(CMP_GE), MODE(CMP_GT), MODE(CMP_LE), MODE(CMP_LT), MODE(CMP_NEQ), MODE(DIV),
    MODE(ELU_BWD), MODE(ELU_FWD), MODE(ERF), MODE(EXP), MODE(FLOOR), MODE(GELU_APPROX_TANH_BWD),
    MODE(GELU_APPROX_TANH_FWD), MODE(GELU_BWD), MODE(GELU_FWD), MODE(GEN_INDEX), MODE(IDENTITY),
    MODE(LOG), MODE(LOGICAL_AND), MODE(LOGICAL_NOT), MODE(LOGICAL_OR), [HIPDNN_POINTWISE_MAX] = "MAX_OP", [HIPDNN_POINTWISE_MIN] = "MIN_OP",
    MODE(MUL), MODE(NEG), MODE(RECIPROCAL), MODE(RELU_BWD), MODE(RELU_FWD), MODE(RSQRT),
    MODE(SIGMOID_BWD), MODE(SIGMOID_FWD), MODE(SIN), MODE(SOFTPLUS_BWD), MODE(SOFTPLUS_FWD),
    MODE(SQRT), MODE(SUB), MODE(SWISH_BWD), MODE(SWISH_FWD), MODE(TAN), MODE(TANH_BWD),
    MODE(TANH_FWD)};
#undef MODE

const char *base_pointwise_mode_name(int mode)
{
    const char *n = mode >= 0 && mode < BASE_N_POINTWISE_MODES ? base_pointwise_mode_names[mode] : NULL;
    return n != NULL ? n : "UNKNOWN";
}
