/* recipes.h — the tests' own description of every graph-side descriptor type, and recipes
 * that fill one with consistent values.
 *
 * The attribute tables (rc_specs) are written from hipdnn-api.md §2.3 and
 * include/HipdnnBackendAttributeName.h, independently of the library's tables: per attribute
 * the element type, the shape (one value, an int array, a string, one or several tensor
 * descriptors), whether finalize requires it, and whether it is get-only or declared only
 * (set and get answer NOT_SUPPORTED). The library is then checked against them.
 *
 * A recipe (rc_fill) chooses a value for attributes of one descriptor: "full" sets every
 * settable attribute, "minimal" only the required ones. Shapes follow op-semantics.md (conv
 * NCHW with the output size formula, norms over the last dim, SDPA [B,H,S,D], ...) with
 * random sizes, so the descriptors stay valid once per-operation shape rules are enforced.
 * Tensors a recipe makes are finalized and owned by the rc_ctx until rc_release.
 *
 * Public API only: usable from tests/api/ (PUBLIC) suites. Implementation: recipes.c.
 */
#ifndef HIPDNN_TESTS_RECIPES_H
#define HIPDNN_TESTS_RECIPES_H

#include <hipdnn_backend.h>
#include <stdbool.h>
#include <stdint.h>

#define RC_MAX_ATTRS 64 /* attributes of one descriptor type */
#define RC_MAX_DESCS 4  /* descriptors in one descriptor-valued attribute */
#define RC_MAX_OWNED 128
#define RC_STR_MAX 96

typedef enum rc_kind {
    RC_TENSOR,   /* HIPDNN_TYPE_BACKEND_DESCRIPTOR x1: a finalized TENSOR */
    RC_TENSORS,  /* HIPDNN_TYPE_BACKEND_DESCRIPTOR xN: finalized TENSORs */
    RC_OPS,      /* HIPDNN_TYPE_BACKEND_DESCRIPTOR xN: finalized operations; sets append */
    RC_SCALAR,   /* exactly one element */
    RC_ARRAY,    /* 1..max_n elements */
    RC_STRING,   /* HIPDNN_TYPE_CHAR, 0..max_n bytes */
    RC_GET_ONLY, /* computed: set -> NOT_SUPPORTED; get -> the value (CHAR: a graph key) */
    RC_DECLARED, /* declared only: set and get -> NOT_SUPPORTED */
} rc_kind;

typedef struct rc_attr {
    hipdnnBackendAttributeName_t id;
    const char *name;
    hipdnnBackendAttributeType_t type;
    rc_kind kind;
    bool required;
    int max_n; /* RC_ARRAY / RC_STRING: the most elements the API promises to accept */
    bool alt;  /* excludes another attribute: a full recipe sets it in some variants only */
} rc_attr;

/* One attribute's value as a recipe chose it. n == 0: not set. */
typedef struct rc_val {
    int64_t n;
    union {
        int64_t i64[8];
        int32_t i32[8];
        float f32;
        double f64;
        bool b;
        int e; /* enum-typed attributes are C int sized */
        hipdnnHandle_t h;
        char s[RC_STR_MAX];
    } u;
    hipdnnBackendDescriptor_t d[RC_MAX_DESCS]; /* descriptor values (owned by the ctx) */
    int64_t uid[RC_MAX_DESCS];                 /* tensors: their uids */
    int op_type[RC_MAX_DESCS];                 /* operations: their operation type */
} rc_val;

typedef struct rc_desc rc_desc;

typedef struct rc_ctx {
    const rc_desc *spec;
    bool full;
    int variant; /* 0 .. rc_variants(spec) - 1: which of mutually exclusive attributes to set */
    hipdnnHandle_t handle; /* for OPERATIONGRAPH_HANDLE */
    rc_val v[RC_MAX_ATTRS]; /* parallel to spec->attrs */
    hipdnnBackendDescriptor_t owned[RC_MAX_OWNED];
    int n_owned;
    int64_t next_uid;
} rc_ctx;

struct rc_desc {
    hipdnnBackendDescriptorType_t type;
    const char *name;
    int op_type; /* hipdnnOperationType_ext_t, or -1 for TENSOR / OPERATIONGRAPH */
    const rc_attr *attrs;
    int n_attrs;
    void (*recipe)(rc_ctx *c);
    int variants; /* full recipes differing in mutually exclusive attributes (0 = 1) */
};

/* TENSOR, OPERATIONGRAPH, then every OPERATION_* type this ABI has (types 1..30). */
extern const rc_desc rc_specs[];
extern const int rc_n_specs;
/* Descriptor types that can be created but refuse every other call, with the reason's key
 * phrase ("not meaningful here", "not supported yet"). */
typedef struct rc_refused {
    hipdnnBackendDescriptorType_t type;
    hipdnnBackendAttributeName_t attr; /* one of the type's own attributes */
    const char *phrase;
} rc_refused;
extern const rc_refused rc_refused_types[];
extern const int rc_n_refused_types;

const rc_desc *rc_spec_of(hipdnnBackendDescriptorType_t type);
int rc_index(const rc_desc *spec, hipdnnBackendAttributeName_t id);
/* Size of one element of type t as a caller passes it. */
size_t rc_elem_size(hipdnnBackendAttributeType_t t);

/* Chooses values for every attribute of spec (full) or the required ones (minimal).
 * handle is used for OPERATIONGRAPH_HANDLE. Uses tu_rand: seed first. A full recipe sets
 * every attribute but those marked `alt`; variant v (taken modulo rc_variants) picks which
 * of them. */
void rc_fill(rc_ctx *c, const rc_desc *spec, bool full, hipdnnHandle_t handle);
void rc_fill_variant(rc_ctx *c, const rc_desc *spec, bool full, int variant,
                     hipdnnHandle_t handle);
int rc_variants(const rc_desc *spec);
/* Sets attribute i (its chosen value) on d. */
hipdnnStatus_t rc_set(const rc_ctx *c, hipdnnBackendDescriptor_t d, int i);
/* Creates a descriptor and sets every chosen attribute except `skip` (-1: none), asserting
 * success. Not finalized. */
hipdnnBackendDescriptor_t rc_create(const rc_ctx *c, int skip);
/* rc_create + finalize (asserted). */
hipdnnBackendDescriptor_t rc_build(const rc_ctx *c);
/* The element count a get of attribute i reports (strings count their NUL). */
int64_t rc_count(const rc_ctx *c, int i);
/* Gets attribute i of a finalized d and checks it equals the chosen value (cr_expect). */
void rc_check_get(const rc_ctx *c, hipdnnBackendDescriptor_t d, int i);
/* Destroys every descriptor the recipe made. */
void rc_release(rc_ctx *c);

/* A finalized TENSOR with packed strides (owned by c). uid < 0: the next free uid. */
hipdnnBackendDescriptor_t rc_tensor(rc_ctx *c, int64_t uid, hipdnnDataType_t dt, int rank,
                                    const int64_t *dims, bool is_virtual);
/* A finalized by-value FLOAT scalar tensor of the given rank (all dims 1). */
hipdnnBackendDescriptor_t rc_scalar_f32(rc_ctx *c, int rank, float value);

#endif
