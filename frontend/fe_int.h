/* fe_int.h — private contract of frontend/: the descriptor object model.
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
 * rules, derived state). The serializers (fe_model.c) walk the same tables, so "what the API
 * accepts" and "what a graph file holds" cannot drift apart.
 */
#ifndef HIPDNN_FE_INT_H
#define HIPDNN_FE_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/base.h"
#include "cache/kc.h"
#include "hipdnn_backend.h"
#include "ir/ir.h"

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
                              tests/unit/ir_graph/test_op_keys.c checks that it changes the key */
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

struct fe_graph_info;

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
    /* operations only: the columns of frontend/fe_ops.def */
    ir_op_kind ir;                     /* the IR op it lowers to */
    hipdnnStatus_t (*check)(fe_obj *o); /* its own finalize rules (fe_check_*.c) */
    hipdnnStatus_t (*lower)(fe_obj *o, const struct fe_graph_info *gi, int x_rank, ir_op *op);
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

/* ---- fe_api.c ------------------------------------------------------------------------------------ */

/* SUCCESS for a live handle from hipdnnCreate; otherwise a failure naming fn. */
hipdnnStatus_t fe_check_handle(hipdnnHandle_t h, const char *fn);
/* Returns st; a failure is a refusal of the user's graph or execution by the public call
 * `step`: one error line naming the step and the reason (the last error), logged also at the
 * default level (base_log_refusal). */
hipdnnStatus_t fe_refused(hipdnnStatus_t st, const char *step);

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

/* ---- fe_schema*.c: the class tables -------------------------------------------------------- */

extern const fe_class *const fe_classes[]; /* indexed by descriptor type, 0..30 */
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
/* Byte size of one element, 0 for sub-byte or unsized types. */
size_t fe_dtype_size(hipdnnDataType_t t);
/* Dense byte size of an IR tensor's elements; 4-bit types pack two per byte. */
int64_t fe_ir_tensor_bytes(const ir_tensor *t);

/* ---- fe_target.c: what the JIT engines generate code for --------------------------------------- */

typedef struct fe_target {
    char arch[32];        /* sm_90, gfx942 */
    const char *platform; /* nvidia, amd (the runtime's or cg_caps.platform; plan keys hash it) */
    int sm_count;
    bool compile_only;    /* named by hipdnnSetCompileTarget_ext: no device behind it */
} fe_target;

/* The compile target when one is set, else this process's device (NOT_SUPPORTED without a GPU). */
hipdnnStatus_t fe_target_current(fe_target *t);

/* ---- fe_kernel_code.c: code objects through the kernel cache --------------------------------- */

/* The cache key of an emitted kernel: XXH3-128 of the compiler (id, version), arch, options,
 * entry and source. NOT_SUPPORTED when no compiler serves arch. */
hipdnnStatus_t fe_kernel_key(const char *source, const char *entry, const char *arch,
                             const char *const *options, int n_options, kc_key *key);
/* The code object of source for arch: `cache`'s (NULL: no cache) when it holds this kernel
 * (*hit), else compiled (rt_compile) and stored there with its source. *key gets the kernel
 * key; *code is malloc'd (caller frees). *stored (optional) is false when the kernel was
 * compiled but the cache could not store it (full, or not writable: logged at WARN; the call
 * still succeeds, the cache being advisory). */
hipdnnStatus_t fe_kernel_code(kc_cache *cache, const char *source, const char *name, const char *entry,
                              const char *arch, void **code, size_t *code_len, kc_key *key, bool *hit,
                              bool *stored);
/* A kernel record's metadata: compile options and the emitted source (pointers into meta). */
#define FE_KERNEL_META_MAX_OPTIONS 16
typedef struct fe_kernel_meta {
    const char *options[FE_KERNEL_META_MAX_OPTIONS];
    int n_options;
    const char *source;
} fe_kernel_meta;
/* False when meta is not in fe_kernel_code's format (a record from another writer). */
bool fe_kernel_meta_parse(const void *meta, size_t n, fe_kernel_meta *out);
/* Kernels this process compiled (run-time compiler calls through fe_kernel_code). */
void fe_count_compile(void);
uint64_t fe_compile_count(void);

const char *fe_dtype_name(hipdnnDataType_t t);
bool fe_dtype_valid(int t);
extern const fe_class fe_tensor_class;

/* ---- fe_graph.c ------------------------------------------------------------------------------ */

/* A tensor of a graph and the op that writes it (-1: a graph input). */
typedef struct fe_graph_tensor {
    fe_obj *t;
    int producer;
} fe_graph_tensor;

/* The structure of an operation graph: ops in topological order, tensors sorted by uid. */
typedef struct fe_graph_info {
    fe_obj **ops;
    int n_ops;
    fe_graph_tensor *tensors;
    int n_tensors;
} fe_graph_info;

/* What a finalized OPERATIONGRAPH keeps (its priv): the structure, and the IR lowered from it
 * with its canonical key; when lowering failed (a feature the IR cannot express) the graph is
 * still a valid graph and `lower_msg` says why it has no IR. */
typedef struct fe_graph_state {
    fe_graph_info gi;
    ir_graph *ir;
    hipdnnStatus_t lower_status;
    char lower_msg[512];
    char key[33];
    int *canon_tid;  /* per IR tensor: its canonical number (ir_graph_canon), -1 when unused */
    int n_canon;     /* tensors numbered */
} fe_graph_state;

/* Analyses the ops of an OPERATIONGRAPH (finalized or not): unique uids, one producer per
 * tensor, virtual tensors produced inside, no op twice, acyclic. Caller frees with
 * fe_graph_info_free. */
hipdnnStatus_t fe_graph_analyse(fe_obj *graph, fe_graph_info *out);
void fe_graph_info_free(fe_graph_info *gi);
extern const fe_class fe_graph_class;

/* ---- fe_knob.c: KNOB_INFO and KNOB_CHOICE descriptors -------------------------------------------- */

extern const fe_class fe_knob_info_class, fe_knob_choice_class;

/* The most knobs an engine has (an engine config holds one value per knob). */
#define FE_MAX_KNOBS 32

/* An engine's integer knob (our engines' knobs are all integers). */
typedef struct fe_knob_def {
    const char *id;          /* "<engine>.<knob>", e.g. "jit.tile_m" */
    const char *description;
    int64_t min, max, stride, dflt;
    const int64_t *valid;    /* optional list of valid values (NULL: every stride step) */
    int n_valid;
} fe_knob_def;

/* A finalized KNOB_INFO object describing def (one reference, the caller's). */
hipdnnStatus_t fe_knob_info_make(const fe_knob_def *def, fe_obj **out);

/* A finalized KNOB_CHOICE's content. */
typedef struct fe_knob_choice_view {
    const char *id;
    hipdnnBackendAttributeType_t type; /* INT64, DOUBLE or CHAR */
    int64_t i64;
    double f64;
    const char *str;
} fe_knob_choice_view;
fe_knob_choice_view fe_knob_choice(fe_obj *choice);

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

/* ---- engines (fe_engine.c registry, fe_engine_*.c implementations) ------------------------------ */

typedef struct fe_plan_impl fe_plan_impl; /* an engine's compiled plan, private to the engine */

/* What a plan build did with the kernel cache. */
typedef struct fe_build_stats {
    int64_t kernels;     /* kernels in the plan */
    int64_t compiled;    /* compiled by this build */
    int64_t cached;      /* code objects taken from the kernel cache (or already loaded) */
    int64_t plan_cached; /* 1: the plan came from the cache's plan table (no lowering, no codegen) */
    int64_t kernels_not_stored; /* compiled, but the cache could not store them */
    int64_t plan_not_stored;    /* 1: the plan's record was not stored (it could not be, or one of
                                 * its kernels was not) */
} fe_build_stats;

/* A plan build's surroundings: the kernel cache to use (the plan's KERNEL_CACHE, else the
 * process-wide one; NULL: none) and what the build reports back. */
typedef struct fe_build_ctx {
    kc_cache *cache;
    fe_build_stats stats;
} fe_build_ctx;

/* What an engine offers. Every slot is required unless marked optional. Knob values reach the engine as one int64 per
 * entry of `knobs`, in that order, defaults filled in. */
typedef struct fe_engine {
    int64_t id;                       /* HIPDNN_ATTR_ENGINE_GLOBAL_INDEX */
    const char *name;                 /* unique, never empty */
    const char *type;                 /* "host" or "gpu" */
    const fe_knob_def *knobs;
    int n_knobs;
    const int *notes;                 /* hipdnnBackendBehaviorNote_t values */
    int n_notes;
    /* Optional: is the device the engine runs on usable? Asked before `supports`: SUCCESS;
     * NOT_SUPPORTED when there is none (then `supports` says no, and why); any other status is a
     * device failure, already raised, that fails the call asking (heuristics, ENGINE finalize). */
    hipdnnStatus_t (*device)(void);
    /* Can the engine run this graph? If not, `why` says why (for NOT_SUPPORTED messages). */
    bool (*supports)(const fe_graph_state *g, char *why, size_t why_len);
    /* Optional: the engine's knob settings for this graph, best first (its heuristic); fills
     * up to max vectors of n_knobs values and returns how many. NULL: the defaults only. */
    int (*configs)(const fe_graph_state *g, int64_t (*knobs)[FE_MAX_KNOBS], int max);
    /* Workspace bytes the plan will need with these knob values. */
    int64_t (*workspace)(const fe_graph_state *g, const int64_t *knobs);
    hipdnnStatus_t (*build)(const fe_graph_state *g, const int64_t *knobs, fe_build_ctx *ctx,
                            fe_plan_impl **out);
    /* Optional: would build() with these knobs take everything from `cache` (compile nothing)? */
    bool (*is_cached)(const fe_graph_state *g, const int64_t *knobs, kc_cache *cache);
    /* Runs the plan on the handle's stream with the tensors of the pack. */
    hipdnnStatus_t (*execute)(fe_plan_impl *p, hipdnnHandle_t handle, const fe_varpack_view *pack);
    void (*destroy)(fe_plan_impl *p);
} fe_engine;

extern const fe_engine *const fe_engines[];
extern const int fe_n_engines;
const fe_engine *fe_engine_by_id(int64_t id);
/* SUCCESS unless e's device is there but failed (fe_engine.device: not NOT_SUPPORTED): then that
 * status, already raised by the runtime. */
hipdnnStatus_t fe_engine_device_failure(const fe_engine *e);
extern const fe_engine fe_reference_engine, fe_jit_engine, fe_jit_unfused_engine;
extern const fe_class fe_engine_class, fe_enginecfg_class, fe_engineheur_class, fe_plan_class;

/* fe_kcache.c: the cache of a finalized KERNEL_CACHE descriptor (NULL for anything else). */
kc_cache *fe_kernel_cache_of(fe_obj *o);
/* fe_plan.c: would a plan of this finalized ENGINECFG take everything from cache c? */
bool fe_enginecfg_is_cached(fe_obj *cfg, kc_cache *c);

/* The finalized graph state behind an OPERATIONGRAPH object. */
static inline fe_graph_state *fe_graph_of(fe_obj *graph) { return graph->priv; }

/* ---- fe_lower.c: descriptors -> IR ---------------------------------------------------------- */

/* Lowers a finalized graph's structure to a sealed IR graph (freed with ir_graph_free). */
hipdnnStatus_t fe_lower(fe_obj *graph, const fe_graph_info *gi, ir_graph *out);
/* The index of tensor t in gi->tensors (sorted by uid), i.e. its IR tensor index. */
int fe_tensor_index(const fe_graph_info *gi, fe_obj *t);

/* ---- fe_check*.c: per-operation finalize rules; fe_lower_attrs.c: per-operation lowering -- */

/* The finalize hook of every operation class: the shared rules, then the class's `check`. */
hipdnnStatus_t fe_check_op(fe_obj *op);
/* Each operation's class, check and lower function (the rows of fe_ops.def). */
#define FE_OP(NAME, TYPE, OP_TYPE, TABLE, IR, CHECK, LOWER)                                     \
    extern const fe_class fe_##NAME##_class;                                                    \
    hipdnnStatus_t CHECK(fe_obj *op);                                                           \
    hipdnnStatus_t LOWER(fe_obj *o, const fe_graph_info *gi, int x_rank, ir_op *op);
#include "frontend/fe_ops.def"
#undef FE_OP
/* The rules every op shares (fe_ops_types.c): outputs with one address per element, and the data
 * types of a matmul's or convolution's operands and result. */
hipdnnStatus_t fe_check_op_common(fe_obj *op);
/* fe_score_mod.c: an SDPA forward's score modifier (its three SCORE_MOD attributes) against
 * the scores [b,hq,sq,skv] (skv < 0: unknown). */
hipdnnStatus_t fe_check_score_mod(fe_obj *op, int64_t b, int64_t hq, int64_t sq, int64_t skv);
/* The index of the tensor with `uid` in gi->tensors, -1 when none. */
int fe_score_mod_tensor(const fe_graph_info *gi, int64_t uid);
/* Layernorm/rmsnorm without NORMALIZED_DIM_COUNT: the normalized trailing dims run from
 * scale's first non-1 dim after dim 0 to the end (an all-ones scale: the last dim). The one
 * rule; lowering writes its result into the IR so every engine uses it. */
int fe_norm_infer_dims(const int64_t *scale_dims, int scale_rank, int x_rank);

/* ---- fe_model.c: graph <-> JSON model (the FlatBuffer object model, flatc's JSON dialect) -- */

typedef struct json_t json_t;
hipdnnStatus_t fe_graph_to_json(fe_obj *graph, json_t **out);
hipdnnStatus_t fe_graph_from_json(const json_t *doc, fe_obj **out_graph);
/* The JSON value an absent field of attribute a stands for (FlatBuffers writers leave out a
 * scalar equal to its schema default): a new reference, or NULL when absence means "unset"
 * (FE_NULL fields, strings, vectors, tables, and enums whose default 0 is UNSET/NOT_SET). */
json_t *fe_wire_default(const fe_attr *a);

/* ---- fe_jsonfmt.c: readable JSON text ------------------------------------------------------ */

/* A JSON real for a float, stored as the double nearest its shortest decimal spelling. */
json_t *fe_json_f32(float f);
/* A JSON number, or one of the strings "inf", "-inf", "nan" (how non-finite floats are kept). */
bool fe_json_number(const json_t *j, double *out);
/* Deterministic, readable text of a JSON model (arrays of numbers on one line); free(). */
char *fe_json_text(const json_t *doc);

/* ---- fe_fbcodec.c: JSON model <-> FlatBuffer bytes ---------------------------------------- */

hipdnnStatus_t fe_fb_encode_graph(const json_t *doc, uint8_t **out, size_t *len);
hipdnnStatus_t fe_fb_decode_graph(const uint8_t *buf, size_t len, json_t **out);

/* ---- fe_enum.c: enum name tables for serialization ---------------------------------------- */

/* Name of value v in enum table `enum_name` ("PointwiseMode", "DataType", ...), or NULL. */
const char *fe_enum_to_name(const char *enum_name, int v);
/* Value of `name` in the table; false if unknown. */
bool fe_enum_from_name(const char *enum_name, const char *name, int *v);
/* True when wire value v of the enum is its "not set" placeholder (UNSET, NOT_SET, ...). */
bool fe_enum_unset(const char *enum_name, int v);
/* hipdnnDataType_t <-> FlatBuffer DataType. */
int fe_dtype_to_wire(hipdnnDataType_t t);
bool fe_dtype_from_wire(int w, hipdnnDataType_t *t);

#endif
