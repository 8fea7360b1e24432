/* fe_graph.h — the contract of graph/: the operation graph (OPERATIONGRAPH descriptor, its
 * structure analysis), every OPERATION_* class (one row each of graph/fe_ops.def, the op
 * table, which other modules may include too), the finalize rules and the lowering to the IR.
 *
 * Owns (graph/): fe_graph.c (OPERATIONGRAPH, fe_graph_analyse, finalize: lower + graph key),
 * fe_ops.def (the op table), fe_op_attrs.c (each operation's attribute table and class),
 * fe_check*.c (finalize rules: fe_check.c dispatch and helpers, fe_check_common.c the rules
 * every op shares, one file per op family, fe_check_score_mod.c), fe_lower.c (descriptors ->
 * IR), fe_lower_attrs.c (each op's typed IR attributes), fe_custom.c (custom-op providers),
 * fe_custom_plugins.c (their plugin libraries), the built-in provider `jit` (fe_custom_hip_source.c,
 * fe_custom_hip_ref.c, fe_custom_expr.c, fe_custom_host.c and the host preludes fe_host_sched.h and
 * fe_host_cuda.h, C++ text embedded at build time). Private: fe_graph_int.h, fe_check.h,
 * fe_custom_int.h.
 * Uses desc/ (the object model), ir/ and base/.
 */
#ifndef HIPDNN_FE_GRAPH_H
#define HIPDNN_FE_GRAPH_H

#include "desc/fe_desc.h"
#include "ir/ir.h"

/* ---- fe_graph.c: OPERATIONGRAPH ------------------------------------------------------------------------------ */

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
/* The finalized graph state behind an OPERATIONGRAPH object. */
static inline fe_graph_state *fe_graph_of(fe_obj *graph) { return graph->priv; }

/* OPERATIONGRAPH's HIPDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT getter: the engines answer it
 * (defined in engines/fe_engine.c beside the engine list); the graph's attribute row names it. */
hipdnnStatus_t fe_graph_get_engine_count(fe_obj *o, const fe_attr *a,
                                         hipdnnBackendAttributeType_t type, int64_t requested,
                                         int64_t *count, void *elems);

/* ---- fe_op_attrs.c: the operation classes (rows of graph/fe_ops.def) ------------------------ */

#define FE_OP(NAME, TYPE, OP_TYPE, TABLE, IR, CHECK, LOWER) extern const fe_class fe_##NAME##_class;
#include "graph/fe_ops.def"
#undef FE_OP
/* The operation class whose serialized attributes table is `table`, or NULL. */
const fe_class *fe_op_class_by_table(const char *table);

/* ---- fe_lower.c: descriptors -> IR ---------------------------------------------------------- */

/* Lowers a finalized graph's structure to a sealed IR graph (freed with ir_graph_free). */
hipdnnStatus_t fe_lower(fe_obj *graph, const fe_graph_info *gi, ir_graph *out);
/* fe_lower_ragged.c: the graph's packed (ragged) tensors marked in out (its first gi->n_tensors
 * tensors are the graph's, in gi order) and where they are used checked; NOT_SUPPORTED with the
 * reason for a use no engine takes. */
hipdnnStatus_t fe_lower_ragged(const fe_graph_info *gi, ir_graph *out);
/* The index of tensor t in gi->tensors (sorted by uid), i.e. its IR tensor index. */
int fe_tensor_index(const fe_graph_info *gi, fe_obj *t);
/* Dense byte size of an IR tensor's elements; 4-bit types pack two per byte. */
int64_t fe_ir_tensor_bytes(const ir_tensor *t);

/* ---- fe_custom.c: custom-op providers (include/hipdnn_jit_custom_op.h) ----------------------- */

typedef struct hipdnnJitCustomOpProvider hipdnnJitCustomOpProvider_t;
/* A provider table's rules (version, required functions, name); origin names it in messages. */
hipdnnStatus_t fe_custom_validate(const hipdnnJitCustomOpProvider_t *p, const char *origin);
/* Adds a provider (origin: where it came from, for messages); refuses a bad table or a taken name. */
hipdnnStatus_t fe_custom_register(const hipdnnJitCustomOpProvider_t *p, const char *origin);
/* Loads custom-op plugin libraries and registers their providers: all of them or none
 * (fe_custom_plugins.c; the path rules are hipdnnSetEnginePluginPaths_ext's). */
hipdnnStatus_t fe_custom_load_plugins(size_t n_paths, const char *const *paths);
/* The plugin files loaded so far (real paths; up to capacity of them in paths); returns the count. */
size_t fe_custom_plugin_paths(const char **paths, size_t capacity);
/* The provider owning op_id ("<provider>.<operation>"), or NULL. */
const hipdnnJitCustomOpProvider_t *fe_custom_find(const char *op_id);
/* For each CUSTOM op of a sealed IR graph: its provider, whose check must accept it (the op's
 * owner and provider fields are set). NOT_SUPPORTED naming the op and the reason otherwise. */
hipdnnStatus_t fe_custom_bind(ir_graph *g);
typedef struct hipdnnJitKernelSource hipdnnJitKernelSource_t;
/* Whether a bound CUSTOM op's provider gives GPU kernels. */
bool fe_custom_has_kernel(const ir_op *op);
/* The provider's GPU kernel of a bound CUSTOM op of g for arch. Its strings are copied as soon
 * as the provider returns: *source and *entry (the caller base_frees both; NULL on failure),
 * which ks->source and ks->entry point at. NOT_SUPPORTED with the provider's reason,
 * PLUGIN_ERROR for a bad answer, ALLOC_FAILED. */
hipdnnStatus_t fe_custom_kernel(const ir_graph *g, const ir_op *op, const char *arch, hipdnnJitKernelSource_t *ks,
                                char **source, char **entry);
/* Runs a bound CUSTOM op of g on host buffers through its provider's reference. */
hipdnnStatus_t fe_custom_reference(const ir_graph *g, const ir_op *op, const ir_buf *const *in, ir_buf *const *out);

#endif
