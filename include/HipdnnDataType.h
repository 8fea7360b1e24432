/*
 * HipdnnDataType.h — hipdnnDataType_t, the element type of a tensor and the
 * compute ("math precision") type of an operation.
 *
 * This is hipDNN's backend numbering (the variant with HIPDNN_DATA_BOOLEAN = 15);
 * it differs from cuDNN's, from hipDNN's FlatBuffer schema and from its C++
 * frontend. Byte sizes are given where a type has a whole-byte size; sub-byte
 * types (FP4, INT4, FP6) are packed and have none.
 */
#ifndef HIPDNN_DATA_TYPE_H
#define HIPDNN_DATA_TYPE_H

typedef enum
{
    HIPDNN_DATA_FLOAT = 0,         /* 4 bytes, IEEE binary32 */
    HIPDNN_DATA_DOUBLE = 1,        /* 8 bytes, IEEE binary64 */
    HIPDNN_DATA_HALF = 2,          /* 2 bytes, IEEE binary16 */
    HIPDNN_DATA_INT8 = 3,          /* 1 byte */
    HIPDNN_DATA_INT32 = 4,         /* 4 bytes */
    HIPDNN_DATA_UINT8 = 5,         /* 1 byte */
    HIPDNN_DATA_BFLOAT16 = 6,      /* 2 bytes */
    HIPDNN_DATA_FP8_E4M3 = 7,      /* 1 byte, OCP FP8 E4M3 */
    HIPDNN_DATA_FP8_E5M2 = 8,      /* 1 byte, OCP FP8 E5M2 */
    HIPDNN_DATA_FP8_E8M0 = 9,      /* 1 byte, exponent-only block scale */
    HIPDNN_DATA_FP4_E2M1 = 10,     /* packed, 2 per byte */
    HIPDNN_DATA_INT4 = 11,         /* packed, 2 per byte */
    HIPDNN_DATA_FP6_E2M3_EXT = 12, /* packed */
    HIPDNN_DATA_FP6_E3M2_EXT = 13, /* packed */
    HIPDNN_DATA_INT64 = 14,        /* 8 bytes */
    HIPDNN_DATA_BOOLEAN = 15,      /* 1 byte, 0 or 1 */
    HIPDNN_DATA_FP8_E4M3_FNUZ = 16, /* 1 byte, AMD FNUZ variant */
    HIPDNN_DATA_FP8_E5M2_FNUZ = 17  /* 1 byte, AMD FNUZ variant */
} hipdnnDataType_t;

#endif /* HIPDNN_DATA_TYPE_H */
