/*
 * HipdnnBackendHeuristicType.h — hipdnnBackendHeurMode_t, the mode of an engine
 * heuristic descriptor (HIPDNN_ATTR_ENGINEHEUR_MODE).
 *
 * hipDNN has one backend mode; ranking refinements are selected through
 * heuristic policies (HIPDNN_ATTR_ENGINEHEUR_POLICY_ORDER_EXT), not modes.
 */
#ifndef HIPDNN_BACKEND_HEURISTIC_TYPE_H
#define HIPDNN_BACKEND_HEURISTIC_TYPE_H

typedef enum
{
    HIPDNN_HEUR_MODE_FALLBACK = 0 /* deterministic ranking of every applicable engine */
} hipdnnBackendHeurMode_t;

#endif /* HIPDNN_BACKEND_HEURISTIC_TYPE_H */
