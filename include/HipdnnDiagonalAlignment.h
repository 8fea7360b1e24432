/*
 * HipdnnDiagonalAlignment.h — hipdnnDiagonalAlignment_t, where the diagonal of an
 * attention band mask starts when the query and key lengths differ
 * (HIPDNN_ATTR_SDPA_FWD_DIAGONAL_ALIGNMENT_EXT, HIPDNN_ATTR_SDPA_BWD_DIAGONAL_ALIGNMENT_EXT).
 */
#ifndef HIPDNN_DIAGONAL_ALIGNMENT_H
#define HIPDNN_DIAGONAL_ALIGNMENT_H

typedef enum
{
    HIPDNN_DIAGONAL_ALIGNMENT_TOP_LEFT_EXT = 0,    /* query i aligned with key i */
    HIPDNN_DIAGONAL_ALIGNMENT_BOTTOM_RIGHT_EXT = 1 /* last query aligned with last key */
} hipdnnDiagonalAlignment_t;

#endif /* HIPDNN_DIAGONAL_ALIGNMENT_H */
