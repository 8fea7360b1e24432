/*
 * HipdnnBackendFlatbufferData.h — hipdnnBackendFlatbufferData_t, a borrowed byte
 * range holding one serialized FlatBuffer table.
 *
 * It is the element type of attributes of type HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT
 * (serialized knobs and knob settings). On get, the bytes belong to the descriptor
 * and stay valid while the descriptor lives; on set, they are copied.
 */
#ifndef HIPDNN_BACKEND_FLATBUFFER_DATA_H
#define HIPDNN_BACKEND_FLATBUFFER_DATA_H

#include <stddef.h>

typedef struct
{
    const void* ptr; /* first byte of the FlatBuffer */
    size_t size;     /* its length in bytes */
} hipdnnBackendFlatbufferData_t;

#endif /* HIPDNN_BACKEND_FLATBUFFER_DATA_H */
