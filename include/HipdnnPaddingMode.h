/*
 * HipdnnPaddingMode.h — hipdnnPaddingMode_t, the value a resample operation reads
 * outside its input (HIPDNN_ATTR_RESAMPLE_PADDING_MODE). Value 0 is unused.
 */
#ifndef HIPDNN_PADDING_MODE_H
#define HIPDNN_PADDING_MODE_H

typedef enum
{
    HIPDNN_PADDING_NEG_INF_PAD = 1, /* -infinity (max pooling) */
    HIPDNN_PADDING_ZERO_PAD = 2     /* zero */
} hipdnnPaddingMode_t;

#endif /* HIPDNN_PADDING_MODE_H */
