/* fe_desc.h — the contract of desc/: the descriptor object model every other part of the
 * frontend builds on (graph/, serialize/, engines/, api/ include it; it includes only base/ and
 * the public header).
 *
 * A user's hipdnnBackendDescriptor_t is a small wrapper around a reference-counted fe_obj.
 * Several wrappers may share one object: a descriptor-valued attribute holds its own
 * reference, so a caller may destroy its handle after setting it, and a descriptor-valued
 * get hands out a new wrapper that the caller destroys.
 *
 *   handle (wrapper) ──► fe_obj { class, refs, finalized, vals[], priv }
 *                                   │
 *                                   └─► fe_class { type, attrs[] (fe_attr), finalize, ... }
 *
 * Every descriptor type is described by an fe_class whose attribute table (fe_attr) says,
 * per attribute: the API type, how many elements, whether it is required, which descriptor
 * type it points to, its role in the graph (input/output tensor) and its serialized field
 * name. Generic code (fe_desc.c) does all type/count checks, storage, queries and the
 * required-attribute check at finalize; a class adds only what is specific to it (shape
 * rules, derived state). The serializers (serialize/fe_json_model.c) walk the same tables, so
 * "what the API accepts" and "what a graph file holds" cannot drift apart.
 *
 * Owns (desc/): fe_desc.c (objects, generic attribute rules), fe_handle.c (handle checks,
 * wrappers, refusals), fe_tensor.c (TENSOR and data-type facts), fe_varpack.c (VARIANT_PACK),
 * fe_enum_names.c (enum names of the serialized graph), fe_attr_rows.h (shorthand for
 * attribute rows, included below for every file that writes a class).
 */
#ifndef HIPDNN_FE_DESC_H
#define HIPDNN_FE_DESC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "hipdnn_backend.h"

#define FE_MAX_RANK 8
#define FE_HANDLE_MAGIC 0x48444e48u /* "HNDH" */
#define FE_DESC_MAGIC 0x44455343u   /* "DESC" */
#define FE_DEAD_MAGIC 0xdeadd35cu

/* ---- attribute table ------------------------------------------------------------------- */

typedef enum fe_shape {
    FE_ONE,    /* exactly one element */
    FE_ARRAY,  /* min_n..max_n elements; a set replaces (or appends with FE_APPEND) */
    FE_STRING, /* HIPDNN_TYPE_CHAR bytes, 0..max_n; gets NUL-terminate */
} fe_shape;

enum fe_flags {
    FE_REQ = 1 << 0,       /* finalize fails while unset */
    FE_IN = 1 << 1,        /* tensor read by the operation */
    FE_OUT = 1 << 2,       /* tensor written by the operation */
    FE_GET_ONLY = 1 << 3,  /* computed; set → NOT_SUPPORTED */
    FE_APPEND = 1 << 4,    /* successive sets append (OPERATIONGRAPH_OPS) */
    FE_REFUSED = 1 << 5,   /* declared by hipDNN, not supported here: NOT_SUPPORTED + why */
    FE_COMPUTE = 1 << 6,   /* the op's compute type: serialized as Node.compute_data_type */
    FE_ANY_OP = 1 << 7,    /* descriptor-valued: any OPERATION_* type */
    FE_GET_ANY = 1 << 8,   /* readable before finalize */
    FE_ANY_TYPE = 1 << 9,  /* several API types (KNOB_INFO_DEFAULT_VALUE): hooks check the type */
    FE_NULL = 1 << 10,     /* serialized as an optional scalar ("= null"): absent means unset;
                              without it an absent scalar field reads as its default (wire_dflt) */
    FE_NO_IR = 1 << 11,    /* the IR has no slot for it: lowering refuses a graph that sets it */
    FE_NO_KEY = 1 << 12,   /* an operation's value that no kernel depends on (a hint, a bound
                              only checked, a value with one valid setting): not lowered, so not
                              in the graph key; every other value of an operation is, and
                              tests/unit/graph/test_op_keys.c checks that it changes the key */
};

/* How an attribute is written in the serialized graph (FlatBuffer field / JSON key). */
typedef enum fe_wire {
    FE_W_NONE,    /* not serialized */
    FE_W_UID,     /* tensor descriptor → long uid */
    FE_W_UIDS,    /* tensor descriptor array → [long] */
    FE_W_I64,     /* long */
    FE_W_I32,     /* int */
    FE_W_I32S,    /* [int] */
    FE_W_I64S,    /* [long] */
    FE_W_F32,     /* float */
    FE_W_BOOL,    /* bool */
    FE_W_ENUM,    /* byte enum with the same numbering as the API enum (see fe_enum) */
    FE_W_DTYPE,   /* DataType (FlatBuffer numbering differs from hipdnnDataType_t) */
    FE_W_CONVMODE,/* ConvMode (numbering differs from hipdnnConvolutionMode_t) */
    FE_W_STRING,  /* string */
    FE_W_BYTES,   /* [ubyte] */
    FE_W_GRAPH,   /* OPERATIONGRAPH descriptor → a nested Graph table (a score modifier) */
} fe_wire;

typedef struct fe_obj fe_obj;
typedef struct fe_attr fe_attr;

typedef hipdnnStatus_t (*fe_set_fn)(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                    int64_t n, const void *elems);
typedef hipdnnStatus_t (*fe_get_fn)(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                                    int64_t requested, int64_t *count, void *elems);

struct fe_attr {
    hipdnnBackendAttributeName_t id;
    const char *name;                   /* enumerator spelling, for messages */
    hipdnnBackendAttributeType_t type;  /* expected element type */
    uint8_t shape;                      /* fe_shape */
    uint16_t flags;                     /* fe_flags */
    int32_t min_n, max_n;               /* element bounds for ARRAY/STRING (max 0 = none) */
    hipdnnBackendDescriptorType_t desc; /* expected type of descriptor-valued attributes */
    const char *field;                  /* serialized field name ("x_tensor_uid"), or NULL */
    uint8_t wire;                       /* fe_wire */
    int8_t fb_id;                       /* FlatBuffer field id in the op's table, -1 none */
    const char *enum_name;              /* for FE_W_ENUM: the fe_enum table name */
    fe_set_fn set;                      /* optional override of the generic setter */
    fe_get_fn get;                      /* optional override of the generic getter */
    const char *why;                    /* FE_REFUSED: the reason given to the caller */
    int64_t wire_dflt;                  /* schema default of a serialized integer field (0 unless
                                           given); see fe_wire_default() */
    int8_t slot;                        /* an operation's tensor (FE_IN / FE_OUT, FE_ONE): its IR
                                           operand slot, input or output by the flag (ir.h) */
};
/* ---- descriptor classes ------------------------------------------------------------------ */

struct fe_graph_info; /* graph/fe_graph.h */
struct ir_op;         /* ir/ir.h */

typedef struct fe_class {
    hipdnnBackendDescriptorType_t type;
    const char *name;                  /* "HIPDNN_BACKEND_TENSOR_DESCRIPTOR" */
    const fe_attr *attrs;
    int n_attrs;
    int op_type;                       /* hipdnnOperationType_ext_t; 0 = not an operation */
    const char *table;                 /* serialized attributes table ("PointwiseAttributes") */
    const char *later;                 /* non-NULL: every call but create/destroy is NOT_SUPPORTED */
    hipdnnStatus_t (*finalize)(fe_obj *o); /* class checks after the generic ones; may set priv */
    void (*release)(fe_obj *o);        /* frees priv */
    /* operations only: the columns of graph/fe_ops.def */
    int ir;                            /* the ir_op_kind it lowers to (ir/ir.h) */
    hipdnnStatus_t (*check)(fe_obj *o); /* its own finalize rules (fe_check_*.c) */
    hipdnnStatus_t (*lower)(fe_obj *o, const struct fe_graph_info *gi, int x_rank,
                            struct ir_op *op);
} fe_class;

/* One stored attribute value. n == 0 means unset. */
typedef struct fe_val {
    int64_t n;
    hipdnnBackendAttributeType_t type; /* the type it was set with */
    union {
        int64_t i64;
        int32_t i32;
        int e; /* enum-typed attributes are C int sized */
        bool b;
        float f32;
        double f64;
        void *ptr;
        fe_obj *obj;
    } one;
    void *arr; /* ARRAY: int64_t[] / int32_t[] / fe_obj*[]; STRING: char[n + 1] */
} fe_val;

struct fe_obj {
    const fe_class *cls;
    atomic_int refs;
    bool finalized;
    fe_val *vals; /* cls->n_attrs entries */
    void *priv;   /* class state built at finalize */
};

struct HipdnnBackendDescriptor {
    uint32_t magic;
    fe_obj *obj;
};

struct hipdnnHandle {
    uint32_t magic;
    hipStream_t stream;
};
/* ---- fe_handle.c: handles, wrappers and refusals ------------------------------------------------------------------------------------ */

/* SUCCESS for a live handle from hipdnnCreate; otherwise a failure naming fn. */
hipdnnStatus_t fe_check_handle(hipdnnHandle_t h, const char *fn);
/* Returns st; a failure is a refusal of the user's graph or execution by the public call
 * `step`: one error line naming the step and the reason (the last error), logged also at the
 * default level (base_log_refusal). */
hipdnnStatus_t fe_refused(hipdnnStatus_t st, const char *step);
/* Destroys a descriptor wrapper (hipdnnBackendDestroyDescriptor without the public entry:
 * internal callers use this). */
hipdnnStatus_t fe_destroy_descriptor(hipdnnBackendDescriptor_t d);
/* "<version>.<git hash>" (hipdnnVersionString_ext). */
const char *fe_version_string(void);

/* ---- fe_desc.c: objects and the generic attribute machinery ----------------------------- */

const fe_class *fe_class_of(hipdnnBackendDescriptorType_t type);
bool fe_is_op_type(hipdnnBackendDescriptorType_t type);
hipdnnStatus_t fe_obj_new(const fe_class *cls, fe_obj **out);
fe_obj *fe_obj_ref(fe_obj *o);
void fe_obj_unref(fe_obj *o);
hipdnnStatus_t fe_wrap(fe_obj *o, hipdnnBackendDescriptor_t *out); /* takes a new reference */
hipdnnStatus_t fe_unwrap(hipdnnBackendDescriptor_t d, const char *fn, fe_obj **out);
const fe_attr *fe_find_attr(const fe_class *cls, hipdnnBackendAttributeName_t id);
fe_val *fe_val_of(fe_obj *o, const fe_attr *a);
/* The value of attribute `id` of o (NULL when the class has no such attribute). */
fe_val *fe_get(fe_obj *o, hipdnnBackendAttributeName_t id);
hipdnnStatus_t fe_set_attr(fe_obj *o, hipdnnBackendAttributeName_t id,
                           hipdnnBackendAttributeType_t type, int64_t n, const void *elems);
hipdnnStatus_t fe_get_attr(fe_obj *o, hipdnnBackendAttributeName_t id,
                           hipdnnBackendAttributeType_t type, int64_t requested, int64_t *count,
                           void *elems);
hipdnnStatus_t fe_finalize(fe_obj *o);
/* Is attribute `id` of o set (false when o's class has no such attribute)? */
bool fe_op_has(fe_obj *o, hipdnnBackendAttributeName_t id);
/* A set BOOLEAN attribute that is true. */
bool fe_op_flag(fe_obj *o, hipdnnBackendAttributeName_t id);
/* An INT64 attribute's value, dflt when unset. */
int64_t fe_op_i64_or(fe_obj *o, hipdnnBackendAttributeName_t id, int64_t dflt);
/* Generic setter/getter, for overrides that add a check and then store as usual. */
hipdnnStatus_t fe_set_generic(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                              int64_t n, const void *elems);
hipdnnStatus_t fe_get_generic(fe_obj *o, const fe_attr *a, hipdnnBackendAttributeType_t type,
                              int64_t requested, int64_t *count, void *elems);
/* Copies up to `requested` of `avail` elements of `size` bytes, with the query pattern. */
hipdnnStatus_t fe_get_copy(const fe_obj *o, const fe_attr *a, int64_t requested, int64_t *count,
                           void *elems, const void *src, int64_t avail, size_t size);
const char *fe_type_name(hipdnnBackendAttributeType_t t);
/* The getter of a get-only INT64 attribute that takes exactly one element: value. */
hipdnnStatus_t fe_get_one_i64(const fe_obj *o, const fe_attr *a, int64_t requested, int64_t *count,
                              void *elems, int64_t value);
/* ---- the registry (api/fe_registry.c) and the attributes every operation shares (fe_desc.c) -------------------------------------------------------- */

/* The registry: every descriptor type's class, indexed by type (0..30). Declared here, where
 * objects are made, and defined at the top of the stack by api/fe_registry.c, the one file that
 * knows every module's classes; nothing below api includes a header above its own. */
extern const fe_class *const fe_classes[];
extern const int fe_n_classes;
/* Attributes every operation descriptor accepts (name, type). */
extern const fe_attr fe_op_common_attrs[];
extern const int fe_n_op_common_attrs;
/* ---- fe_tensor.c ------------------------------------------------------------------------------ */

typedef struct fe_tensor_view {
    int64_t uid;
    hipdnnDataType_t dtype;
    int rank;
    const int64_t *dims, *strides;
    bool is_virtual, by_value;
} fe_tensor_view;

/* A finalized tensor's fields; o must be a finalized TENSOR. */
fe_tensor_view fe_tensor(fe_obj *o);
/* The offset tensor attached to a ragged tensor (HIPDNN_ATTR_TENSOR_RAGGED_OFFSET_TENSOR_EXT), or NULL. */
fe_obj *fe_tensor_ragged(fe_obj *t);
/* Byte size of one element, 0 for sub-byte or unsized types. */
size_t fe_dtype_size(hipdnnDataType_t t);
const char *fe_dtype_name(hipdnnDataType_t t);
bool fe_dtype_valid(int t);
extern const fe_class fe_tensor_class;
/* ---- fe_varpack.c: VARIANT_PACK ------------------------------------------------------------------- */

extern const fe_class fe_variant_pack_class;

/* A finalized variant pack's content. */
typedef struct fe_varpack_view {
    int n;
    const int64_t *uids;
    void *const *ptrs;
    void *workspace;                 /* NULL when not set */
    int n_overrides;                 /* override-shape entries (0 when none) */
    const int64_t *override_uids, *override_lengths, *override_shapes, *override_strides;
} fe_varpack_view;
fe_varpack_view fe_varpack(fe_obj *pack);
/* The pointer bound to uid, or NULL (and false) when the pack has none. */
bool fe_varpack_find(const fe_varpack_view *v, int64_t uid, void **ptr);
/* ---- fe_enum_names.c: enum name tables for serialization ---------------------------------------- */

/* Name of value v in enum table `enum_name` ("PointwiseMode", "DataType", ...), or NULL. */
const char *fe_enum_to_name(const char *enum_name, int v);
/* Value of `name` in the table; false if unknown. */
bool fe_enum_from_name(const char *enum_name, const char *name, int *v);
/* True when wire value v of the enum is its "not set" placeholder (UNSET, NOT_SET, ...). */
bool fe_enum_unset(const char *enum_name, int v);
/* hipdnnDataType_t <-> FlatBuffer DataType. */
int fe_dtype_to_wire(hipdnnDataType_t t);
bool fe_dtype_from_wire(int w, hipdnnDataType_t *t);

#include "desc/fe_attr_rows.h"

#endif
