/*
 * HipdnnMoeGroupedMatmulMode.h — hipdnnMoeGroupedMatmulMode_t, how tokens reach
 * their experts in a mixture-of-experts grouped matmul
 * (HIPDNN_ATTR_OPERATION_MOE_GROUPED_MATMUL_MODE).
 */
#ifndef HIPDNN_MOE_GROUPED_MATMUL_MODE_H
#define HIPDNN_MOE_GROUPED_MATMUL_MODE_H

typedef enum
{
    HIPDNN_MOE_GROUPED_MATMUL_MODE_NONE = 0,   /* tokens already grouped by expert */
    HIPDNN_MOE_GROUPED_MATMUL_MODE_GATHER = 1, /* gather tokens by TOKEN_INDEX first */
    HIPDNN_MOE_GROUPED_MATMUL_MODE_SCATTER = 2 /* scatter results by TOKEN_INDEX after */
} hipdnnMoeGroupedMatmulMode_t;

#endif /* HIPDNN_MOE_GROUPED_MATMUL_MODE_H */
