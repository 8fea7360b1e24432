/*
 * hipdnn_backend.h — the public C API of hipdnn-jit (libhipdnn_backend.so).
 *
 * hipdnn-jit implements the hipDNN backend C API: a caller describes an operation
 * graph with descriptors (or hands over a serialized graph), asks the heuristics
 * for engine configurations, finalizes an execution plan and executes it with a
 * variant pack that binds tensor UIDs to device pointers. This is the one header
 * users include; it pulls in the enum headers (Hipdnn*.h) that sit beside it.
 * It compiles as C99 or later and as C++; it needs no HIP SDK (see hipStream_t).
 *
 * The usual pipeline:
 *
 *   TENSOR descriptors --finalize--> operation descriptors --finalize-->
 *   OPERATIONGRAPH (+ HANDLE, OPS) --finalize--> ENGINEHEUR (+ graph, FALLBACK)
 *   --finalize, get RESULTS into ENGINECFGs--> EXECUTION_PLAN (+ ENGINE_CONFIG)
 *   --finalize, read WORKSPACE_SIZE--> VARIANT_PACK (UIDs, pointers, workspace)
 *   --finalize--> hipdnnBackendExecute(handle, plan, pack)
 *
 * Conventions for every function below:
 *  - A function returning hipdnnStatus_t returns HIPDNN_STATUS_SUCCESS or an
 *    error; on error the reason is recorded in the calling thread's last-error
 *    slot (hipdnnGetLastErrorString) and the objects passed in are left as they
 *    were. Nothing aborts on bad input.
 *  - Descriptors are created unfinalized; attributes are set, then
 *    hipdnnBackendFinalize() validates and freezes them. Setting after finalize
 *    gives HIPDNN_STATUS_NOT_INITIALIZED; most getters need a finalized descriptor.
 *  - Descriptors passed as attribute values must be finalized; the receiver keeps
 *    its own reference, so the caller may destroy its handle afterwards.
 *    Descriptors returned by a getter are new handles the caller must destroy.
 *  - A handle is used by one thread at a time; descriptors are not thread safe.
 */
#ifndef HIPDNN_BACKEND_H
#define HIPDNN_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/* ---- hipStream_t ------------------------------------------------------------------------
 * When the HIP headers are reachable and a HIP platform is chosen (hipcc / hip-clang, or
 * __HIP_PLATFORM_AMD__ / __HIP_PLATFORM_NVIDIA__ defined, as CMake's hip::host does), they define
 * hipStream_t. Otherwise it is declared here exactly as HIP's AMD platform declares it, so a
 * translation unit that sees both still agrees: HIP's headers stop on their platform check when
 * none is chosen (Debian's libamdhip64-dev puts them on the default include path), so they are
 * not included then. Define HIPDNN_NO_HIP_HEADERS to never include them. */
#if !defined(HIPDNN_NO_HIP_HEADERS) && defined(__has_include)                              \
    && (defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_NVIDIA__)                     \
        || defined(__HIP_PLATFORM_HCC__) || defined(__HIP_PLATFORM_NVCC__) || defined(__HIPCC__))
#if __has_include(<hip/hip_runtime_api.h>)
#include <hip/hip_runtime_api.h>
#define HIPDNN_HAVE_HIP_HEADERS 1
#endif
#endif

#if !defined(HIPDNN_HAVE_HIP_HEADERS) && !defined(HIP_INCLUDE_HIP_HIP_RUNTIME_API_H) \
    && !defined(HIPDNN_HIP_STREAM_T_DEFINED)
#define HIPDNN_HIP_STREAM_T_DEFINED 1
typedef struct ihipStream_t* hipStream_t;
#endif

/* ---- Export macros ----------------------------------------------------------------------
 * Defined here rather than in a generated header; a build may predefine them. */
#ifndef HIPDNN_BACKEND_EXPORT
#if defined(__GNUC__) || defined(__clang__)
#define HIPDNN_BACKEND_EXPORT __attribute__((visibility("default")))
#else
#define HIPDNN_BACKEND_EXPORT
#endif
#endif

#ifndef HIPDNN_BACKEND_DEPRECATED_EXPORT
#if defined(__GNUC__) || defined(__clang__)
#define HIPDNN_BACKEND_DEPRECATED_EXPORT HIPDNN_BACKEND_EXPORT __attribute__((deprecated))
#else
#define HIPDNN_BACKEND_DEPRECATED_EXPORT HIPDNN_BACKEND_EXPORT
#endif
#endif

/* ---- Compile-time version of hipdnn-jit (run-time: hipdnnVersionString_ext) -------------- */
#define HIPDNN_JIT_VERSION_MAJOR 0
#define HIPDNN_JIT_VERSION_MINOR 1
#define HIPDNN_JIT_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

#include "HipdnnAttentionImplementation.h"
#include "HipdnnBackendAttributeName.h"
#include "HipdnnBackendAttributeType.h"
#include "HipdnnBackendBehaviorNote.h"
#include "HipdnnBackendCallbackTypes.h"
#include "HipdnnBackendDescriptorType.h"
#include "HipdnnBackendFlatbufferData.h"
#include "HipdnnBackendHeuristicType.h"
#include "HipdnnBackendLimits.h"
#include "HipdnnBackendPluginLoadingMode.h"
#include "HipdnnConvolutionMode.h"
#include "HipdnnDataType.h"
#include "HipdnnDiagonalAlignment.h"
#include "HipdnnMoeGroupedMatmulMode.h"
#include "HipdnnNormFwdPhase.h"
#include "HipdnnOperationType.h"
#include "HipdnnPaddingMode.h"
#include "HipdnnPointwiseMode.h"
#include "HipdnnReduceTensorOp.h"
#include "HipdnnResampleMode.h"
#include "HipdnnStatus.h"

/* ---- Opaque types ----------------------------------------------------------------------- */

/* A library context: stream, engines, kernel cache access. Made by hipdnnCreate(). */
typedef struct hipdnnHandle* hipdnnHandle_t;

/* Any descriptor; its kind is fixed at creation (hipdnnBackendDescriptorType_t). */
typedef struct HipdnnBackendDescriptor* hipdnnBackendDescriptor_t;

/* How a user log callback is called: on the logging thread, or queued to a worker. */
typedef enum
{
    HIPDNN_LOG_CALLBACK_SYNC = 0,
    HIPDNN_LOG_CALLBACK_ASYNC = 1
} hipdnnLogCallbackMode_t;

/* What a serialized blob holds; a bitmask. */
typedef enum
{
    HIPDNN_SERIALIZED_CONTENT_GRAPH = 1,
    HIPDNN_SERIALIZED_CONTENT_EXECUTION_PLAN = 2
} hipdnnSerializedContentFlags_t;

/* ---- Handle ----------------------------------------------------------------------------- */

/*
 * hipdnnCreate — create a handle.
 *   handle  out: the new handle; untouched on failure.
 * The handle starts on the default (null) stream. No GPU is needed to create one.
 * Returns SUCCESS, BAD_PARAM (handle is NULL), ALLOC_FAILED, INTERNAL_ERROR.
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnCreate(hipdnnHandle_t* handle);

/*
 * hipdnnDestroy — destroy a handle and release what it owns.
 *   handle  a handle from hipdnnCreate(); descriptors that refer to it must not be
 *           used afterwards.
 * Returns SUCCESS, BAD_PARAM (handle is NULL).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnDestroy(hipdnnHandle_t handle);

/*
 * hipdnnSetStream — set the stream later executions on this handle launch on.
 *   handle    a valid handle.
 *   streamId  a HIP stream of the current device, or NULL for the default stream.
 * Returns SUCCESS, BAD_PARAM (handle is NULL).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnSetStream(hipdnnHandle_t handle, hipStream_t streamId);

/*
 * hipdnnGetStream — read the handle's stream.
 *   handle    a valid handle.
 *   streamId  out: the stream last set (NULL = default stream).
 * Returns SUCCESS, BAD_PARAM (handle is NULL), BAD_PARAM_NULL_POINTER (streamId is NULL).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnGetStream(hipdnnHandle_t handle, hipStream_t* streamId);

/* ---- Descriptors ------------------------------------------------------------------------ */

/*
 * hipdnnBackendCreateDescriptor — create an unfinalized descriptor of one type.
 *   descriptorType  the kind of descriptor.
 *   descriptor      out: the new descriptor; untouched on failure.
 * Returns SUCCESS, BAD_PARAM_NULL_POINTER (descriptor is NULL),
 *   NOT_SUPPORTED (type invalid or not implemented), ALLOC_FAILED.
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t
hipdnnBackendCreateDescriptor(hipdnnBackendDescriptorType_t descriptorType,
                              hipdnnBackendDescriptor_t* descriptor);

/*
 * hipdnnBackendDestroyDescriptor — release the caller's reference to a descriptor.
 *   descriptor  from hipdnnBackendCreateDescriptor(), a getter, or a deserializer.
 * Other descriptors holding it keep it alive until they are destroyed.
 * Returns SUCCESS, BAD_PARAM (descriptor is NULL).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnBackendDestroyDescriptor(hipdnnBackendDescriptor_t descriptor);

/*
 * hipdnnBackendSetAttribute — set one attribute of an unfinalized descriptor.
 *   descriptor        the descriptor; not finalized.
 *   attributeName     an attribute of this descriptor's type.
 *   attributeType     the element type the attribute expects.
 *   elementCount      number of elements in arrayOfElements: exactly 1 for scalars,
 *                     > 0 for arrays, the string length for HIPDNN_TYPE_CHAR (no NUL
 *                     needed), the byte size of the data type for a by-value tensor.
 *   arrayOfElements   the elements; copied (descriptors are referenced).
 * Array attributes replace the previous contents unless documented as appending.
 * Returns SUCCESS, NOT_INITIALIZED (already finalized), BAD_PARAM (wrong type or
 *   count, invalid value, NULL descriptor), BAD_PARAM_NULL_POINTER (arrayOfElements
 *   is NULL), BAD_PARAM_NOT_FINALIZED (a descriptor value is not finalized),
 *   NOT_SUPPORTED (attribute unknown to or unsupported by this descriptor type).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnBackendSetAttribute(hipdnnBackendDescriptor_t descriptor,
                                                               hipdnnBackendAttributeName_t attributeName,
                                                               hipdnnBackendAttributeType_t attributeType,
                                                               int64_t elementCount,
                                                               const void* arrayOfElements);

/*
 * hipdnnBackendGetAttribute — read one attribute.
 *   descriptor             the descriptor; most types must be finalized.
 *   attributeName          an attribute of this descriptor's type.
 *   attributeType          the element type of the attribute.
 *   requestedElementCount  capacity of arrayOfElements, in elements (>= 0).
 *   elementCount           out: elements available (query) or written (copy).
 *   arrayOfElements        out: the elements, or NULL to query the count.
 * Query: with arrayOfElements NULL or requestedElementCount 0, the available count
 * is written to *elementCount (which must not be NULL). Copy: min(requested,
 * available) elements are written, and that number to *elementCount if non-NULL;
 * strings count their NUL and are always NUL-terminated. Descriptor-valued results
 * are new handles owned by the caller. An unset optional attribute has count 0.
 * Returns SUCCESS, NOT_INITIALIZED (not finalized), BAD_PARAM (wrong type, negative
 *   count, NULL descriptor), BAD_PARAM_NULL_POINTER (elementCount NULL on a query),
 *   BAD_PARAM_SIZE_INSUFFICIENT (an attribute that must be read whole),
 *   NOT_SUPPORTED (attribute unknown to or unsupported by this descriptor type),
 *   ALLOC_FAILED.
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnBackendGetAttribute(hipdnnBackendDescriptor_t descriptor,
                                                               hipdnnBackendAttributeName_t attributeName,
                                                               hipdnnBackendAttributeType_t attributeType,
                                                               int64_t requestedElementCount,
                                                               int64_t* elementCount,
                                                               void* arrayOfElements);

/*
 * hipdnnBackendFinalize — validate a descriptor's attributes and freeze it.
 *   descriptor  an unfinalized descriptor with its required attributes set.
 * For an EXECUTION_PLAN this is where kernels are generated and compiled, or found
 * in the kernel cache.
 * Returns SUCCESS, BAD_PARAM (missing or inconsistent attributes, already
 *   finalized), NOT_SUPPORTED (no engine handles the graph), ALLOC_FAILED,
 *   INTERNAL_ERROR (e.g. a kernel failed to compile).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnBackendFinalize(hipdnnBackendDescriptor_t descriptor);

/*
 * hipdnnBackendExecute — run a plan on the handle's stream.
 *   handle         a valid handle.
 *   executionPlan  a finalized EXECUTION_PLAN descriptor.
 *   variantPack    a finalized VARIANT_PACK binding every non-virtual tensor UID the
 *                  plan uses to memory, plus a workspace of at least the plan's
 *                  HIPDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE bytes.
 * Work is enqueued on the stream; the call may return before it completes. Nothing
 * is compiled here.
 * Returns SUCCESS, BAD_PARAM (NULL or wrong descriptor type, a UID not bound),
 *   BAD_PARAM_NOT_FINALIZED, EXECUTION_FAILED (launch or device failure),
 *   INTERNAL_ERROR.
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnBackendExecute(hipdnnHandle_t handle,
                                                          hipdnnBackendDescriptor_t executionPlan,
                                                          hipdnnBackendDescriptor_t variantPack);

/* ---- Errors ----------------------------------------------------------------------------- */

/*
 * hipdnnGetErrorString — the name of a status, e.g. "HIPDNN_STATUS_BAD_PARAM".
 * Returns a static string; never NULL, also for values outside hipdnnStatus_t.
 */
HIPDNN_BACKEND_EXPORT const char* hipdnnGetErrorString(hipdnnStatus_t status);

/*
 * hipdnnGetLastErrorString — copy and clear the calling thread's last error message.
 *   message  out: buffer for the message; NUL-terminated, truncated to fit; "" when
 *            no error is recorded.
 *   maxSize  size of message in bytes, NUL included; HIPDNN_ERROR_STRING_MAX_LENGTH
 *            never truncates.
 * With message NULL or maxSize 0 nothing is copied and the message is kept.
 */
HIPDNN_BACKEND_EXPORT void hipdnnGetLastErrorString(char* message, size_t maxSize);

/*
 * hipdnnPeekLastErrorString_ext — as hipdnnGetLastErrorString() but the message is
 * kept.
 */
HIPDNN_BACKEND_EXPORT void hipdnnPeekLastErrorString_ext(char* message, size_t maxSize);

/* ---- Graph serialization (_ext) --------------------------------------------------------- */

/*
 * hipdnnBackendCreateAndDeserializeGraph_ext — make an OPERATIONGRAPH from a
 * serialized hipDNN FlatBuffer Graph (or an "HDGP" graph+plan container, whose plan
 * part is ignored).
 *   descriptor      out: a new, unfinalized OPERATIONGRAPH; set
 *                   HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, then finalize it.
 *   serializedGraph the bytes; the graph must be topologically sorted, acyclic,
 *                   connected and use unique tensor UIDs.
 *   graphByteSize   their count, > 0.
 * Returns SUCCESS, BAD_PARAM_NULL_POINTER (descriptor or serializedGraph NULL),
 *   BAD_PARAM (size 0, malformed or invalid graph), ALLOC_FAILED, INTERNAL_ERROR.
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t
hipdnnBackendCreateAndDeserializeGraph_ext(hipdnnBackendDescriptor_t* descriptor,
                                           const uint8_t* serializedGraph,
                                           size_t graphByteSize);

/*
 * hipdnnBackendCreateAndDeserializeJsonGraph_ext — as above, from the JSON form.
 *   jsonGraph     the JSON text; a terminating NUL is optional.
 *   jsonByteSize  its length in bytes, > 0.
 * Returns as hipdnnBackendCreateAndDeserializeGraph_ext().
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t
hipdnnBackendCreateAndDeserializeJsonGraph_ext(hipdnnBackendDescriptor_t* descriptor,
                                               const char* jsonGraph,
                                               size_t jsonByteSize);

/*
 * hipdnnBackendGetSerializedBinaryGraph_ext — serialize an OPERATIONGRAPH to its
 * FlatBuffer bytes. Finalizing is not required.
 *   descriptor         an OPERATIONGRAPH descriptor.
 *   requestedByteSize  capacity of serializedGraph.
 *   graphByteSize      out: the size of the serialization.
 *   serializedGraph    out: the bytes, or NULL to query the size only.
 * Returns SUCCESS, BAD_PARAM (not an OPERATIONGRAPH), BAD_PARAM_NULL_POINTER
 *   (descriptor or graphByteSize NULL), BAD_PARAM_SIZE_INSUFFICIENT (buffer too
 *   small; *graphByteSize holds the size needed), ALLOC_FAILED.
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t
hipdnnBackendGetSerializedBinaryGraph_ext(hipdnnBackendDescriptor_t descriptor,
                                          size_t requestedByteSize,
                                          size_t* graphByteSize,
                                          uint8_t* serializedGraph);

/*
 * hipdnnBackendGetSerializedJsonGraph_ext — as above, as NUL-terminated JSON text;
 * sizes include the NUL.
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t
hipdnnBackendGetSerializedJsonGraph_ext(hipdnnBackendDescriptor_t descriptor,
                                        size_t requestedByteSize,
                                        size_t* graphByteSize,
                                        char* serializedJsonGraph);

/* ---- Logging (_ext) --------------------------------------------------------------------- */

/*
 * hipdnnBackendSetGlobalLogLevel_ext — set the lowest severity logged anywhere
 * (HIPDNN_SEV_OFF: nothing). Overrides the HIPDNN_LOG_LEVEL environment variable.
 * Returns SUCCESS, BAD_PARAM (level outside hipdnnSeverity_t).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnBackendSetGlobalLogLevel_ext(hipdnnSeverity_t level);

/*
 * hipdnnBackendGetGlobalLogLevel_ext — read the global log level.
 * Returns SUCCESS, BAD_PARAM_NULL_POINTER (level is NULL).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnBackendGetGlobalLogLevel_ext(hipdnnSeverity_t* level);

/*
 * hipdnnSetUserLogCallback_ext — add, update or remove a user log sink.
 *   callback    the sink; with userHandle it is the key of the registration.
 *   minLevel    lowest severity passed to it; HIPDNN_SEV_OFF removes the
 *               registration. Messages below the global level never reach it.
 *   mode        call it synchronously on the logging thread, or asynchronously.
 *   userHandle  non-NULL pointer handed back to the callback.
 * Registering the same (callback, userHandle) again updates level and mode.
 * Returns SUCCESS, BAD_PARAM_NULL_POINTER (callback or userHandle NULL),
 *   BAD_PARAM (invalid level or mode), ALLOC_FAILED.
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnSetUserLogCallback_ext(hipdnnUserLogCallback_t callback,
                                                                  hipdnnSeverity_t minLevel,
                                                                  hipdnnLogCallbackMode_t mode,
                                                                  hipdnnUserLogCallbackHandle_t userHandle);

/*
 * hipdnnLoggingCallback_ext — log one message through the library's logger, as a
 * hipdnnCallback_t (plugins and tools use it as their log sink).
 *   severity  the message's severity; dropped below the global level.
 *   msg       NUL-terminated message; NULL is ignored.
 */
HIPDNN_BACKEND_EXPORT void hipdnnLoggingCallback_ext(hipdnnSeverity_t severity, const char* msg);

/* ---- Engine plugins (_ext) ------------------------------------------------------------- */

/*
 * hipdnnSetEnginePluginPaths_ext — hipDNN's call that names plugin libraries to load.
 * hipdnn-jit's engines (jit_fused, jit_unfused, reference) are built into the library; the
 * plugins it loads are custom-op providers (hipdnn_jit_custom_op.h): a library that exports
 * hipdnnJitCustomOpProviders. It loads them now (any time, before or after hipdnnCreate) and
 * registers their providers for every handle; they stay loaded until exit. A relative path
 * with a '/' is taken from this library's directory; a bare name is looked for there as given,
 * as lib<name>.so and <name>.so, then by the system loader. One call loads all its files or
 * none; a file loaded already is skipped. Both modes add to what is loaded (built-in engines
 * and providers always stay).
 *   numPaths     number of entries in pluginPaths (0: nothing to do).
 *   pluginPaths  numPaths NUL-terminated paths (may be NULL when numPaths is 0).
 *   loadingMode  HIPDNN_PLUGIN_LOADING_ADDITIVE or HIPDNN_PLUGIN_LOADING_ABSOLUTE.
 * Returns SUCCESS, BAD_PARAM_NULL_POINTER (pluginPaths or an entry NULL), BAD_PARAM (unknown
 *   loadingMode; a file that does not exist; a provider name taken), PLUGIN_ERROR (the library
 *   does not load, or its table is empty), NOT_SUPPORTED (a library without
 *   hipdnnJitCustomOpProviders, e.g. a hipDNN engine plugin; too many files),
 *   VERSION_MISMATCH (a provider's api_version). The message names the file.
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnSetEnginePluginPaths_ext(size_t numPaths,
                                                                    const char* const* pluginPaths,
                                                                    hipdnnPluginLoadingMode_ext_t loadingMode);

/*
 * hipdnnGetLoadedEnginePluginPaths_ext — the plugin files loaded (real paths, in load order), in
 * hipDNN's two-call pattern.
 *   handle          a valid handle.
 *   numPluginPaths  out: the number of paths. In: with pluginPaths non-NULL, its capacity.
 *   pluginPaths     NULL to query the sizes; else *numPluginPaths buffers of *maxStringLen bytes.
 *   maxStringLen    out: the longest path's size, NUL included. In: each buffer's size.
 * Returns SUCCESS, BAD_PARAM (handle not live), BAD_PARAM_NULL_POINTER (handle,
 *   numPluginPaths, maxStringLen or a needed buffer NULL), BAD_PARAM_SIZE_INSUFFICIENT (too
 *   few buffers, or too small).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnGetLoadedEnginePluginPaths_ext(hipdnnHandle_t handle,
                                                                          size_t* numPluginPaths,
                                                                          char** pluginPaths,
                                                                          size_t* maxStringLen);

/* ---- Version and engines (_ext) --------------------------------------------------------- */

/*
 * hipdnnVersionString_ext — the run-time library version, "MAJOR.MINOR.PATCH.TWEAK"
 * (TWEAK: short source revision, or "unknown"). Static string; never NULL.
 */
HIPDNN_BACKEND_EXPORT const char* hipdnnVersionString_ext(void);

/*
 * hipdnnGetEngineCount_ext — number of engines the handle can use.
 *   handle      a valid handle.
 *   numEngines  out: the count.
 * Returns SUCCESS, BAD_PARAM (handle NULL), BAD_PARAM_NULL_POINTER (numEngines NULL).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnGetEngineCount_ext(hipdnnHandle_t handle, size_t* numEngines);

/*
 * hipdnnGetEngineInfo_ext — describe engine number engineIndex (engines are ordered
 * by name).
 *   handle       a valid handle.
 *   engineIndex  0 .. hipdnnGetEngineCount_ext() - 1.
 *   engineId     out (may be NULL): the engine id, as used in
 *                HIPDNN_ATTR_ENGINE_GLOBAL_INDEX.
 *   Each string comes as a (buffer, length) pair — engineName, pluginName (the
 *   library or plugin providing the engine), version, type:
 *     buffer NULL: *length receives the size needed, NUL included;
 *     otherwise:   *length is the buffer's size on entry; the string is copied
 *                  NUL-terminated and *length receives the size needed.
 *   A pair whose length pointer is NULL is skipped.
 * Returns SUCCESS, BAD_PARAM (handle NULL), BAD_PARAM_OUT_OF_BOUND (engineIndex),
 *   BAD_PARAM_SIZE_INSUFFICIENT (a buffer too small; *length holds the size needed).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnGetEngineInfo_ext(hipdnnHandle_t handle,
                                                             size_t engineIndex,
                                                             int64_t* engineId,
                                                             char* engineName,
                                                             size_t* engineNameLen,
                                                             char* pluginName,
                                                             size_t* pluginNameLen,
                                                             char* version,
                                                             size_t* versionLen,
                                                             char* type,
                                                             size_t* typeLen);

/*
 * hipdnnGetEngineIdByName_ext — look up an engine id by engine name.
 *   handle      a valid handle.
 *   engineName  NUL-terminated name, as reported by HIPDNN_ATTR_ENGINE_NAME_EXT.
 *   engineId    out: the id.
 * Returns SUCCESS, BAD_PARAM (handle NULL), BAD_PARAM_NULL_POINTER (engineName or
 *   engineId NULL), NOT_SUPPORTED (no engine has that name).
 */
HIPDNN_BACKEND_EXPORT hipdnnStatus_t hipdnnGetEngineIdByName_ext(hipdnnHandle_t handle,
                                                                 const char* engineName,
                                                                 int64_t* engineId);

#ifdef __cplusplus
}
#endif

#endif /* HIPDNN_BACKEND_H */
