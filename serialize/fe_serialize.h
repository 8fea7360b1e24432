/* fe_serialize.h — the contract of serialize/: operation graphs as hipDNN's FlatBuffer `Graph`
 * and as JSON (flatc's dialect of serialize/schema/hipdnn_graph.fbs).
 *
 *   descriptors --fe_graph_to_json--> JSON model --fe_fb_encode_graph--> FlatBuffer bytes
 *   descriptors <-fe_graph_from_json-- JSON model <-fe_fb_decode_graph-- FlatBuffer bytes
 *
 * Owns (serialize/): fe_serialize_api.c (the public (de)serialization calls), fe_json_model.c
 * (descriptors <-> JSON model), fe_fb_graph.c (JSON model <-> FlatBuffer bytes), fe_fb.c and
 * its private fe_fb.h (the FlatBuffers format: safe reader, builder), fe_json_text.c (readable
 * JSON text), schema/ (the wire schema). Uses graph/ (analysis, op classes), desc/, base/.
 */
#ifndef HIPDNN_FE_SERIALIZE_H
#define HIPDNN_FE_SERIALIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "desc/fe_desc.h"

/* ---- fe_json_model.c: graph <-> JSON model (the FlatBuffer object model, flatc's JSON dialect) -- */

typedef struct json_t json_t;
hipdnnStatus_t fe_graph_to_json(fe_obj *graph, json_t **out);
hipdnnStatus_t fe_graph_from_json(const json_t *doc, fe_obj **out_graph);
/* The JSON value an absent field of attribute a stands for (FlatBuffers writers leave out a
 * scalar equal to its schema default): a new reference, or NULL when absence means "unset"
 * (FE_NULL fields, strings, vectors, tables, and enums whose default 0 is UNSET/NOT_SET). */
json_t *fe_wire_default(const fe_attr *a);
/* ---- fe_json_text.c: readable JSON text ------------------------------------------------------ */

/* A JSON real for a float, stored as the double nearest its shortest decimal spelling. */
json_t *fe_json_f32(float f);
/* A JSON number, or one of the strings "inf", "-inf", "nan" (how non-finite floats are kept). */
bool fe_json_number(const json_t *j, double *out);
/* Deterministic, readable text of a JSON model (arrays of numbers on one line); free(). */
char *fe_json_text(const json_t *doc);
/* ---- fe_fb_graph.c: JSON model <-> FlatBuffer bytes ---------------------------------------- */

hipdnnStatus_t fe_fb_encode_graph(const json_t *doc, uint8_t **out, size_t *len);
hipdnnStatus_t fe_fb_decode_graph(const uint8_t *buf, size_t len, json_t **out);
#endif
