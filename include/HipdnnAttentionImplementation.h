/*
 * HipdnnAttentionImplementation.h — hipdnnAttentionImplementation_t, a request for
 * how scaled dot-product attention is carried out (HIPDNN_ATTR_SDPA_FWD_IMPLEMENTATION_EXT).
 */
#ifndef HIPDNN_ATTENTION_IMPLEMENTATION_H
#define HIPDNN_ATTENTION_IMPLEMENTATION_H

typedef enum
{
    HIPDNN_ATTENTION_IMPLEMENTATION_AUTO_EXT = 0,      /* the engine chooses */
    HIPDNN_ATTENTION_IMPLEMENTATION_COMPOSITE_EXT = 1, /* built from separate operations */
    HIPDNN_ATTENTION_IMPLEMENTATION_UNIFIED_EXT = 2    /* one fused kernel */
} hipdnnAttentionImplementation_t;

#endif /* HIPDNN_ATTENTION_IMPLEMENTATION_H */
