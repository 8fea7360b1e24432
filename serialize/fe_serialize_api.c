/* fe_serialize_api.c — the graph (de)serialization entry points of the public API.
 *
 * Binary graphs are hipDNN's FlatBuffer `Graph` (or an "HDGP" graph+plan container whose
 * graph is used); JSON graphs are the same object model in flatc's JSON dialect. Both go
 * through the JSON model of fe_json_model.c (see the picture there). Deserialized graphs come back
 * unfinalized: the caller sets HIPDNN_ATTR_OPERATIONGRAPH_HANDLE and finalizes.
 */
#include <jansson.h>
#include <string.h>

#include "serialize/fe_fb.h"
#include "serialize/fe_serialize.h"

#define EXPORT HIPDNN_BACKEND_EXPORT
#define FE_MAX_GRAPH_BYTES ((size_t)1 << 30)

static hipdnnStatus_t finish_graph(fe_obj *g, hipdnnBackendDescriptor_t *descriptor)
{
    hipdnnStatus_t st = fe_wrap(g, descriptor);
    fe_obj_unref(g);
    return st;
}

static hipdnnStatus_t graph_from_doc(json_t *doc, hipdnnBackendDescriptor_t *descriptor)
{
    fe_obj *g;
    hipdnnStatus_t st = fe_graph_from_json(doc, &g);
    json_decref(doc);
    return st == HIPDNN_STATUS_SUCCESS ? finish_graph(g, descriptor) : st;
}

/* The graph bytes inside an HDGP container (table SerializedGraphAndPlan { graph_blob: [ubyte];
 * plan_blob: [ubyte]; }), or the input itself when it is not a container. */
static hipdnnStatus_t unwrap_container(const uint8_t **buf, size_t *len)
{
    if (!fe_fb_has_identifier(*buf, *len, "HDGP"))
        return HIPDNN_STATUS_SUCCESS;
    fe_fb_table root;
    fe_fb_vec blob;
    if (fe_fb_root(*buf, *len, &root) != FE_FB_OK || fe_fb_vector(&root, 0, &blob) != FE_FB_OK ||
        blob.len == 0)
        return base_fail(HIPDNN_STATUS_BAD_PARAM,
                         "hipdnnBackendCreateAndDeserializeGraph_ext: HDGP container without a "
                         "readable graph_blob");
    *buf = blob.buf + blob.pos;
    *len = blob.len;
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t deserialize_binary(hipdnnBackendDescriptor_t *descriptor,
                                         const uint8_t *serializedGraph, size_t graphByteSize)
{
    const char *fn = "hipdnnBackendCreateAndDeserializeGraph_ext";
    if (descriptor == NULL || serializedGraph == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: NULL argument", fn);
    if (graphByteSize == 0 || graphByteSize > FE_MAX_GRAPH_BYTES)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: graphByteSize %zu is out of range", fn,
                         graphByteSize);
    hipdnnStatus_t st = unwrap_container(&serializedGraph, &graphByteSize);
    json_t *doc = NULL;
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_fb_decode_graph(serializedGraph, graphByteSize, &doc);
    return st == HIPDNN_STATUS_SUCCESS ? graph_from_doc(doc, descriptor) : st;
}

static hipdnnStatus_t deserialize_json(hipdnnBackendDescriptor_t *descriptor, const char *jsonGraph,
                                       size_t jsonByteSize)
{
    const char *fn = "hipdnnBackendCreateAndDeserializeJsonGraph_ext";
    if (descriptor == NULL || jsonGraph == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: NULL argument", fn);
    if (jsonByteSize > 0 && jsonGraph[jsonByteSize - 1] == '\0')
        jsonByteSize--; /* the terminator is optional */
    if (jsonByteSize == 0 || jsonByteSize > FE_MAX_GRAPH_BYTES)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: jsonByteSize %zu is out of range", fn,
                         jsonByteSize);
    json_error_t err;
    json_t *doc = json_loadb(jsonGraph, jsonByteSize, JSON_REJECT_DUPLICATES, &err);
    if (doc == NULL && json_error_code(&err) == json_error_out_of_memory)
        return base_fail(HIPDNN_STATUS_ALLOC_FAILED, "%s: out of memory while parsing", fn);
    if (doc == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: malformed JSON at line %d column %d: %s", fn,
                         err.line, err.column, err.text);
    return graph_from_doc(doc, descriptor);
}

static hipdnnStatus_t hipdnnBackendCreateAndDeserializeGraph_ext_body(hipdnnBackendDescriptor_t *descriptor, const uint8_t *serializedGraph, size_t graphByteSize);

EXPORT hipdnnStatus_t hipdnnBackendCreateAndDeserializeGraph_ext(hipdnnBackendDescriptor_t *descriptor,
                                                                 const uint8_t *serializedGraph,
                                                                 size_t graphByteSize)
{
    base_call_begin();
    return base_call_done(hipdnnBackendCreateAndDeserializeGraph_ext_body(descriptor, serializedGraph, graphByteSize));
}

static hipdnnStatus_t hipdnnBackendCreateAndDeserializeGraph_ext_body(hipdnnBackendDescriptor_t *descriptor, const uint8_t *serializedGraph, size_t graphByteSize)
{
    return fe_refused(deserialize_binary(descriptor, serializedGraph, graphByteSize),
                      "hipdnnBackendCreateAndDeserializeGraph_ext");
}

static hipdnnStatus_t hipdnnBackendCreateAndDeserializeJsonGraph_ext_body(hipdnnBackendDescriptor_t *descriptor, const char *jsonGraph, size_t jsonByteSize);

EXPORT hipdnnStatus_t hipdnnBackendCreateAndDeserializeJsonGraph_ext(
    hipdnnBackendDescriptor_t *descriptor, const char *jsonGraph, size_t jsonByteSize)
{
    base_call_begin();
    return base_call_done(hipdnnBackendCreateAndDeserializeJsonGraph_ext_body(descriptor, jsonGraph, jsonByteSize));
}

static hipdnnStatus_t hipdnnBackendCreateAndDeserializeJsonGraph_ext_body(hipdnnBackendDescriptor_t *descriptor, const char *jsonGraph, size_t jsonByteSize)
{
    return fe_refused(deserialize_json(descriptor, jsonGraph, jsonByteSize),
                      "hipdnnBackendCreateAndDeserializeJsonGraph_ext");
}

/* The JSON model of an OPERATIONGRAPH descriptor, or a clear error. */
static hipdnnStatus_t graph_doc(hipdnnBackendDescriptor_t d, const char *fn, json_t **doc)
{
    fe_obj *g;
    hipdnnStatus_t st = fe_unwrap(d, fn, &g);
    if (st == HIPDNN_STATUS_SUCCESS && g->cls->type != HIPDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR)
        return base_fail(HIPDNN_STATUS_BAD_PARAM, "%s: descriptor is a %s, not an operation graph",
                         fn, g->cls->name);
    return st == HIPDNN_STATUS_SUCCESS ? fe_graph_to_json(g, doc) : st;
}

/* Two-call pattern: NULL buffer -> size; otherwise the buffer must hold `len` bytes. */
static hipdnnStatus_t copy_out(const char *fn, const void *src, size_t len, size_t requested,
                               size_t *size_out, void *dst)
{
    if (size_out == NULL)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_NULL_POINTER, "%s: size pointer is NULL", fn);
    *size_out = len;
    if (dst == NULL)
        return HIPDNN_STATUS_SUCCESS;
    if (requested < len)
        return base_fail(HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT,
                         "%s: buffer of %zu bytes, the graph needs %zu", fn, requested, len);
    memcpy(dst, src, len);
    return HIPDNN_STATUS_SUCCESS;
}

static hipdnnStatus_t hipdnnBackendGetSerializedBinaryGraph_ext_body(hipdnnBackendDescriptor_t descriptor, size_t requestedByteSize, size_t *graphByteSize, uint8_t *serializedGraph);

EXPORT hipdnnStatus_t hipdnnBackendGetSerializedBinaryGraph_ext(hipdnnBackendDescriptor_t descriptor,
                                                                size_t requestedByteSize,
                                                                size_t *graphByteSize,
                                                                uint8_t *serializedGraph)
{
    base_call_begin();
    return base_call_done(hipdnnBackendGetSerializedBinaryGraph_ext_body(descriptor, requestedByteSize, graphByteSize, serializedGraph));
}

static hipdnnStatus_t hipdnnBackendGetSerializedBinaryGraph_ext_body(hipdnnBackendDescriptor_t descriptor, size_t requestedByteSize, size_t *graphByteSize, uint8_t *serializedGraph)
{
    const char *fn = "hipdnnBackendGetSerializedBinaryGraph_ext";
    json_t *doc = NULL;
    uint8_t *bytes = NULL;
    size_t len = 0;
    hipdnnStatus_t st = graph_doc(descriptor, fn, &doc);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = fe_fb_encode_graph(doc, &bytes, &len);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = copy_out(fn, bytes, len, requestedByteSize, graphByteSize, serializedGraph);
    json_decref(doc);
    free(bytes);
    return st;
}

static hipdnnStatus_t hipdnnBackendGetSerializedJsonGraph_ext_body(hipdnnBackendDescriptor_t descriptor, size_t requestedByteSize, size_t *graphByteSize, char *serializedJsonGraph);

EXPORT hipdnnStatus_t hipdnnBackendGetSerializedJsonGraph_ext(hipdnnBackendDescriptor_t descriptor,
                                                              size_t requestedByteSize,
                                                              size_t *graphByteSize,
                                                              char *serializedJsonGraph)
{
    base_call_begin();
    return base_call_done(hipdnnBackendGetSerializedJsonGraph_ext_body(descriptor, requestedByteSize, graphByteSize, serializedJsonGraph));
}

static hipdnnStatus_t hipdnnBackendGetSerializedJsonGraph_ext_body(hipdnnBackendDescriptor_t descriptor, size_t requestedByteSize, size_t *graphByteSize, char *serializedJsonGraph)
{
    const char *fn = "hipdnnBackendGetSerializedJsonGraph_ext";
    json_t *doc = NULL;
    char *text = NULL;
    hipdnnStatus_t st = graph_doc(descriptor, fn, &doc);
    if (st == HIPDNN_STATUS_SUCCESS &&
        (text = fe_json_text(doc)) == NULL)
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "%s: out of memory", fn);
    if (st == HIPDNN_STATUS_SUCCESS)
        st = copy_out(fn, text, strlen(text) + 1, requestedByteSize, graphByteSize,
                      serializedJsonGraph);
    json_decref(doc);
    free(text);
    return st;
}
