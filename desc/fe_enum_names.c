/* fe_enum_names.c — enum name tables of the serialized graph (schema/hipdnn_graph.fbs).
 *
 * The JSON form writes enums by name, the FlatBuffer form by number. DataType and ConvMode
 * number differently on the wire than in the C API (hipdnnDataType_t,
 * hipdnnConvolutionMode_t); the conversions live here. PointwiseMode, NormFwdPhase,
 * DiagonalAlignment and AttentionImplementation share the C API's numbering.
 */
#include <string.h>

#include "desc/fe_desc.h"

typedef struct fe_enum_table {
    const char *name;
    const char *const *values; /* indexed by wire value; NULL = hole */
    int n;
} fe_enum_table;

static const char *const data_type[] = {
    "UNSET", "FLOAT", "HALF", "BFLOAT16", "DOUBLE", "UINT8", "INT32", "INT8", "FP8_E4M3",
    "FP8_E5M2", "FP8_E8M0", "FP4_E2M1", "FP6_E2M3", "FP6_E3M2", "INT4", "INT64", "BOOLEAN",
    "FP8_E4M3_FNUZ", "FP8_E5M2_FNUZ"};
static const char *const conv_mode[] = {"UNSET", "CONVOLUTION", "CROSS_CORRELATION"};
static const char *const norm_fwd_phase[] = {"NOT_SET", "INFERENCE", "TRAINING"};
static const char *const diagonal_alignment[] = {"TOP_LEFT", "BOTTOM_RIGHT"};
static const char *const attention_implementation[] = {"AUTO", "COMPOSITE", "UNIFIED"};

#define TABLE(NAME, VALUES) {NAME, VALUES, (int)(sizeof VALUES / sizeof VALUES[0])}
static const fe_enum_table tables[] = {
    TABLE("DataType", data_type),
    TABLE("ConvMode", conv_mode),
    {"PointwiseMode", base_pointwise_mode_names, BASE_N_POINTWISE_MODES}, /* base/base_names.c */
    TABLE("NormFwdPhase", norm_fwd_phase),
    TABLE("DiagonalAlignment", diagonal_alignment),
    TABLE("AttentionImplementation", attention_implementation),
};

static const fe_enum_table *find(const char *enum_name)
{
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (strcmp(tables[i].name, enum_name) == 0)
            return &tables[i];
    return NULL;
}

const char *fe_enum_to_name(const char *enum_name, int v)
{
    const fe_enum_table *t = find(enum_name);
    if (t == NULL || v < 0 || v >= t->n)
        return NULL;
    return t->values[v];
}

bool fe_enum_from_name(const char *enum_name, const char *name, int *v)
{
    const fe_enum_table *t = find(enum_name);
    for (int i = 0; t != NULL && i < t->n; i++)
        if (t->values[i] != NULL && strcmp(t->values[i], name) == 0) {
            *v = i;
            return true;
        }
    return false;
}

bool fe_enum_unset(const char *enum_name, int v)
{
    const char *name = fe_enum_to_name(enum_name, v);
    return name == NULL || strcmp(name, "UNSET") == 0 || strcmp(name, "NOT_SET") == 0;
}

/* hipdnnDataType_t value -> wire DataType value. */
static const int dtype_wire[] = {
    [HIPDNN_DATA_FLOAT] = 1,          [HIPDNN_DATA_DOUBLE] = 4,        [HIPDNN_DATA_HALF] = 2,
    [HIPDNN_DATA_INT8] = 7,           [HIPDNN_DATA_INT32] = 6,         [HIPDNN_DATA_UINT8] = 5,
    [HIPDNN_DATA_BFLOAT16] = 3,       [HIPDNN_DATA_FP8_E4M3] = 8,      [HIPDNN_DATA_FP8_E5M2] = 9,
    [HIPDNN_DATA_FP8_E8M0] = 10,      [HIPDNN_DATA_FP4_E2M1] = 11,     [HIPDNN_DATA_INT4] = 14,
    [HIPDNN_DATA_FP6_E2M3_EXT] = 12,  [HIPDNN_DATA_FP6_E3M2_EXT] = 13, [HIPDNN_DATA_INT64] = 15,
    [HIPDNN_DATA_BOOLEAN] = 16,       [HIPDNN_DATA_FP8_E4M3_FNUZ] = 17,
    [HIPDNN_DATA_FP8_E5M2_FNUZ] = 18,
};

int fe_dtype_to_wire(hipdnnDataType_t t) { return fe_dtype_valid((int)t) ? dtype_wire[t] : 0; }

bool fe_dtype_from_wire(int w, hipdnnDataType_t *t)
{
    for (int i = 0; i < (int)(sizeof dtype_wire / sizeof dtype_wire[0]); i++)
        if (dtype_wire[i] == w && w != 0) {
            *t = (hipdnnDataType_t)i;
            return true;
        }
    return false;
}
