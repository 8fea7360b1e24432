/*
 * test_header_compiles_cpp.cpp — the public header, compiled as C++.
 *
 * Checks that <hipdnn_backend.h> is usable from C++ as is, and pins the exact
 * signature of every declared function through decltype — which names a function
 * without calling it or needing its definition (the library has no sources yet).
 * Enum spot checks guard against the C and C++ views of the header diverging.
 */
#include <criterion/criterion.h>
#include <hipdnn_backend.h>

#include <type_traits>

#define SIGNATURE(fn, type) \
    static_assert(std::is_same<decltype(&fn), type>::value, #fn " has the wrong signature")

SIGNATURE(hipdnnCreate, hipdnnStatus_t (*)(hipdnnHandle_t*));
SIGNATURE(hipdnnDestroy, hipdnnStatus_t (*)(hipdnnHandle_t));
SIGNATURE(hipdnnSetStream, hipdnnStatus_t (*)(hipdnnHandle_t, hipStream_t));
SIGNATURE(hipdnnGetStream, hipdnnStatus_t (*)(hipdnnHandle_t, hipStream_t*));
SIGNATURE(hipdnnBackendCreateDescriptor,
          hipdnnStatus_t (*)(hipdnnBackendDescriptorType_t, hipdnnBackendDescriptor_t*));
SIGNATURE(hipdnnBackendDestroyDescriptor, hipdnnStatus_t (*)(hipdnnBackendDescriptor_t));
SIGNATURE(hipdnnBackendExecute,
          hipdnnStatus_t (*)(hipdnnHandle_t, hipdnnBackendDescriptor_t, hipdnnBackendDescriptor_t));
SIGNATURE(hipdnnBackendFinalize, hipdnnStatus_t (*)(hipdnnBackendDescriptor_t));
SIGNATURE(hipdnnBackendGetAttribute,
          hipdnnStatus_t (*)(hipdnnBackendDescriptor_t, hipdnnBackendAttributeName_t,
                             hipdnnBackendAttributeType_t, int64_t, int64_t*, void*));
SIGNATURE(hipdnnBackendSetAttribute,
          hipdnnStatus_t (*)(hipdnnBackendDescriptor_t, hipdnnBackendAttributeName_t,
                             hipdnnBackendAttributeType_t, int64_t, const void*));
SIGNATURE(hipdnnGetErrorString, const char* (*)(hipdnnStatus_t));
SIGNATURE(hipdnnGetLastErrorString, void (*)(char*, size_t));
SIGNATURE(hipdnnPeekLastErrorString_ext, void (*)(char*, size_t));
SIGNATURE(hipdnnBackendCreateAndDeserializeGraph_ext,
          hipdnnStatus_t (*)(hipdnnBackendDescriptor_t*, const uint8_t*, size_t));
SIGNATURE(hipdnnBackendCreateAndDeserializeJsonGraph_ext,
          hipdnnStatus_t (*)(hipdnnBackendDescriptor_t*, const char*, size_t));
SIGNATURE(hipdnnBackendGetSerializedBinaryGraph_ext,
          hipdnnStatus_t (*)(hipdnnBackendDescriptor_t, size_t, size_t*, uint8_t*));
SIGNATURE(hipdnnBackendGetSerializedJsonGraph_ext,
          hipdnnStatus_t (*)(hipdnnBackendDescriptor_t, size_t, size_t*, char*));
SIGNATURE(hipdnnBackendSetGlobalLogLevel_ext, hipdnnStatus_t (*)(hipdnnSeverity_t));
SIGNATURE(hipdnnBackendGetGlobalLogLevel_ext, hipdnnStatus_t (*)(hipdnnSeverity_t*));
SIGNATURE(hipdnnSetUserLogCallback_ext,
          hipdnnStatus_t (*)(hipdnnUserLogCallback_t, hipdnnSeverity_t, hipdnnLogCallbackMode_t,
                             hipdnnUserLogCallbackHandle_t));
SIGNATURE(hipdnnVersionString_ext, const char* (*)());
SIGNATURE(hipdnnGetEngineCount_ext, hipdnnStatus_t (*)(hipdnnHandle_t, size_t*));
SIGNATURE(hipdnnGetEngineInfo_ext,
          hipdnnStatus_t (*)(hipdnnHandle_t, size_t, int64_t*, char*, size_t*, char*, size_t*, char*,
                             size_t*, char*, size_t*));
SIGNATURE(hipdnnGetEngineIdByName_ext, hipdnnStatus_t (*)(hipdnnHandle_t, const char*, int64_t*));
SIGNATURE(hipdnnLoggingCallback_ext, void (*)(hipdnnSeverity_t, const char*));

/* The logging entry point is usable where a hipdnnCallback_t is expected. */
static_assert(std::is_same<decltype(&hipdnnLoggingCallback_ext), hipdnnCallback_t>::value,
              "hipdnnLoggingCallback_ext is not a hipdnnCallback_t");

Test(header_cpp, descriptor_types_and_aliases)
{
    cr_expect_eq(HIPDNN_INVALID_TYPE, 0);
    cr_expect_eq(HIPDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, 9);
    cr_expect_eq(HIPDNN_BACKEND_TENSOR_DESCRIPTOR, 14);
    cr_expect_eq(HIPDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, 19);
    cr_expect_eq(HIPDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR, 24);
    cr_expect_eq(HIPDNN_BACKEND_OPERATION_SDPA_BPROP_DESCRIPTOR_EXT, 30);
}

Test(header_cpp, attribute_names)
{
    cr_expect_eq(HIPDNN_ATTR_ENGINEHEUR_RESULTS, 102);
    cr_expect_eq(HIPDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE, 306);
    cr_expect_eq(HIPDNN_ATTR_TENSOR_VALUE_EXT, 1306);
    cr_expect_eq(HIPDNN_ATTR_TENSOR_CONSTANT_VALUE, HIPDNN_ATTR_TENSOR_VALUE_EXT);
    cr_expect_eq(HIPDNN_ATTR_OPERATION_SDPA_FWD_QDESC, 2600);
    cr_expect_eq(HIPDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC_EXT, 50004);
    cr_expect_eq(HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, 50300);
    cr_expect_eq(HIPDNN_ATTR_PROFILING_ELAPSED_MS_EXT, 60403);
}

Test(header_cpp, statuses_types_and_sizes)
{
    cr_expect_eq(HIPDNN_STATUS_PLUGIN_ERROR, 14);
    cr_expect_eq(HIPDNN_DATA_BOOLEAN, 15);
    cr_expect_eq(HIPDNN_DATA_FP8_E5M2_FNUZ, 17);
    cr_expect_eq(HIPDNN_TYPE_DIAGONAL_ALIGNMENT, HIPDNN_TYPE_DIAGONAL_ALIGNMENT_EXT);
    cr_expect_eq(sizeof(hipdnnBackendFlatbufferData_t), 2 * sizeof(void*));
    cr_expect_eq(sizeof(hipdnnBackendAttributeType_t), sizeof(int));
}
