/* fe_attr_rows.h — shorthand for writing attribute tables (fe_attr rows).
 *
 * One row per attribute; the macro name says the kind:
 *   TIN / TIN_OPT / TOUT / TOUT_OPT     a tensor read / written by the op (required or optional;
 *                                       an optional one is an "= null" field on the wire); the
 *                                       last argument is its IR operand slot (fe_lower.c)
 *   TINS / TOUTS                        an array of tensors (custom-op ports: its lowering
 *                                       places them); TINS_NO_IR: one the IR has no slot for
 *                                       (peer stats: lowering refuses a graph that sets them)
 *   COMP(id)                            the op's compute type (serialized as Node.compute_data_type)
 *   SCALAR(id, api type, wire, field, fb, flags)   one value
 *   ARRAY(id, api type, wire, field, fb, flags, min, max)  an int array
 *   ENUMV(id, api type, enum table, field, fb, flags)     an enum with a serialized name table
 *   REFUSED(id, api type, why)          declared by hipDNN, not supported here (why says so)
 * `field` is the key in the serialized attributes table and `fb` its FlatBuffer field id; a
 * scalar the schema declares "= null" carries FE_NULL in its flags; an operation's value that no
 * kernel depends on carries FE_NO_KEY (fe_desc.h), with a comment saying why (tests/unit/serialize/
 * test_schema_defaults.c checks every row against serialize/schema/hipdnn_graph.fbs).
 */
#ifndef HIPDNN_FE_SCHEMA_H
#define HIPDNN_FE_SCHEMA_H


#define FE_TENSOR_ROW(ID, FIELD, FB, FLAGS, SLOT)                                               \
    {.id = ID, .name = #ID, .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR, .shape = FE_ONE,              \
     .flags = (FLAGS), .min_n = 1, .max_n = 1, .desc = HIPDNN_BACKEND_TENSOR_DESCRIPTOR,          \
     .field = FIELD, .wire = FE_W_UID, .fb_id = FB, .slot = SLOT}
#define TIN(ID, FIELD, FB, SLOT) FE_TENSOR_ROW(ID, FIELD, FB, FE_REQ | FE_IN, SLOT)
#define TIN_OPT(ID, FIELD, FB, SLOT) FE_TENSOR_ROW(ID, FIELD, FB, FE_IN | FE_NULL, SLOT)
#define TOUT(ID, FIELD, FB, SLOT) FE_TENSOR_ROW(ID, FIELD, FB, FE_REQ | FE_OUT, SLOT)
#define TOUT_OPT(ID, FIELD, FB, SLOT) FE_TENSOR_ROW(ID, FIELD, FB, FE_OUT | FE_NULL, SLOT)

#define FE_TENSORS_ROW(ID, FIELD, FB, FLAGS)                                                    \
    {.id = ID, .name = #ID, .type = HIPDNN_TYPE_BACKEND_DESCRIPTOR, .shape = FE_ARRAY,            \
     .flags = (FLAGS), .min_n = 0, .max_n = 0, .desc = HIPDNN_BACKEND_TENSOR_DESCRIPTOR,          \
     .field = FIELD, .wire = FE_W_UIDS, .fb_id = FB, .slot = -1}
#define TINS(ID, FIELD, FB) FE_TENSORS_ROW(ID, FIELD, FB, FE_IN)
#define TINS_NO_IR(ID, FIELD, FB) FE_TENSORS_ROW(ID, FIELD, FB, FE_IN | FE_NO_IR)
#define TOUTS(ID, FIELD, FB) FE_TENSORS_ROW(ID, FIELD, FB, FE_OUT)

#define COMP(ID)                                                                                \
    {.id = ID, .name = #ID, .type = HIPDNN_TYPE_DATA_TYPE, .shape = FE_ONE, .flags = FE_COMPUTE, \
     .min_n = 1, .max_n = 1, .field = "compute_data_type", .wire = FE_W_DTYPE, .fb_id = -1}
#define COMP_REQ(ID)                                                                            \
    {.id = ID, .name = #ID, .type = HIPDNN_TYPE_DATA_TYPE, .shape = FE_ONE,                      \
     .flags = FE_COMPUTE | FE_REQ, .min_n = 1, .max_n = 1, .field = "compute_data_type",          \
     .wire = FE_W_DTYPE, .fb_id = -1}

#define SCALAR(ID, TYPE, WIRE, FIELD, FB, FLAGS)                                                \
    {.id = ID, .name = #ID, .type = TYPE, .shape = FE_ONE, .flags = (FLAGS), .min_n = 1,         \
     .max_n = 1, .field = FIELD, .wire = WIRE, .fb_id = FB}
#define ARRAY(ID, TYPE, WIRE, FIELD, FB, FLAGS, MIN, MAX)                                       \
    {.id = ID, .name = #ID, .type = TYPE, .shape = FE_ARRAY, .flags = (FLAGS), .min_n = MIN,     \
     .max_n = MAX, .field = FIELD, .wire = WIRE, .fb_id = FB}
#define ENUMV(ID, TYPE, ENUM, FIELD, FB, FLAGS)                                                 \
    {.id = ID, .name = #ID, .type = TYPE, .shape = FE_ONE, .flags = (FLAGS), .min_n = 1,         \
     .max_n = 1, .field = FIELD, .wire = FE_W_ENUM, .fb_id = FB, .enum_name = ENUM}
#define STRING(ID, FIELD, FB, FLAGS, MAX)                                                       \
    {.id = ID, .name = #ID, .type = HIPDNN_TYPE_CHAR, .shape = FE_STRING, .flags = (FLAGS),      \
     .min_n = 0, .max_n = MAX, .field = FIELD, .wire = FE_W_STRING, .fb_id = FB}
#define REFUSED(ID, TYPE, WHY)                                                                  \
    {.id = ID, .name = #ID, .type = TYPE, .shape = FE_ONE, .flags = FE_REFUSED, .min_n = 1,       \
     .max_n = 1, .wire = FE_W_NONE, .fb_id = -1, .why = WHY}

#define FE_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
