/*
 * HipdnnResampleMode.h — hipdnnResampleMode_t, the window function of a resample
 * (pooling) operation (HIPDNN_ATTR_RESAMPLE_MODE). Value 0 is unused.
 */
#ifndef HIPDNN_RESAMPLE_MODE_H
#define HIPDNN_RESAMPLE_MODE_H

typedef enum
{
    HIPDNN_RESAMPLE_MAXPOOL = 1,
    HIPDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING = 2, /* divide by the in-bounds count */
    HIPDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING = 3  /* divide by the window size */
} hipdnnResampleMode_t;

#endif /* HIPDNN_RESAMPLE_MODE_H */
