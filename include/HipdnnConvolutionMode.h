/*
 * HipdnnConvolutionMode.h — hipdnnConvolutionMode_t (HIPDNN_ATTR_CONVOLUTION_CONV_MODE).
 *
 * CROSS_CORRELATION is what deep-learning frameworks call convolution; CONVOLUTION
 * flips the filter spatially first.
 */
#ifndef HIPDNN_CONVOLUTION_MODE_H
#define HIPDNN_CONVOLUTION_MODE_H

typedef enum
{
    HIPDNN_CONVOLUTION = 0,      /* true convolution: filter flipped */
    HIPDNN_CROSS_CORRELATION = 1 /* filter applied as stored */
} hipdnnConvolutionMode_t;

#endif /* HIPDNN_CONVOLUTION_MODE_H */
