/*
 * HipdnnBackendBehaviorNote.h — hipdnnBackendBehaviorNote_t, facts an engine
 * reports about itself (HIPDNN_ATTR_ENGINE_BEHAVIOR_NOTE).
 *
 * hipDNN's plugin SDK carries the same enum; the guard
 * HIPDNN_BEHAVIOR_NOTE_TYPES_DEFINED lets both headers live in one translation unit.
 */
#ifndef HIPDNN_BACKEND_BEHAVIOR_NOTE_H
#define HIPDNN_BACKEND_BEHAVIOR_NOTE_H

#ifndef HIPDNN_BEHAVIOR_NOTE_TYPES_DEFINED
#define HIPDNN_BEHAVIOR_NOTE_TYPES_DEFINED

typedef enum
{
    HIPDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION = 0,     /* compiles kernels when a plan is built */
    HIPDNN_BEHAVIOR_NOTE_REQUIRES_LAYOUT_TRANSFORM = 1, /* copies tensors to another layout */
    HIPDNN_BEHAVIOR_NOTE_SUPPORTS_GRAPH_CAPTURE = 2,  /* execution may be stream-captured */
    HIPDNN_BEHAVIOR_NOTE_EXTERNAL_LIBRARY_DEPENDENCY = 3, /* calls into another library */
    HIPDNN_BEHAVIOR_NOTE_SUPPORTS_EXECUTION_PLAN_SERIALIZATION = 4,
    HIPDNN_BEHAVIOR_NOTE_TYPE_COUNT = 5 /* number of notes, not a note */
} hipdnnBackendBehaviorNote_t;

#endif /* HIPDNN_BEHAVIOR_NOTE_TYPES_DEFINED */

#endif /* HIPDNN_BACKEND_BEHAVIOR_NOTE_H */
