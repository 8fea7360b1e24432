/*
 * HipdnnNormFwdPhase.h — hipdnnNormFwdPhase_t, whether a forward normalization
 * (RMSNorm, LayerNorm) runs for inference or training. Training additionally
 * produces the saved statistics (mean / inverse variance / inverse RMS).
 */
#ifndef HIPDNN_NORM_FWD_PHASE_H
#define HIPDNN_NORM_FWD_PHASE_H

typedef enum
{
    HIPDNN_NORM_FWD_INFERENCE = 1,
    HIPDNN_NORM_FWD_TRAINING = 2
} hipdnnNormFwdPhase_t;

#endif /* HIPDNN_NORM_FWD_PHASE_H */
