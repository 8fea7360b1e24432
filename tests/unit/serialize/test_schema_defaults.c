/* test_schema_defaults.c — every serialized attribute row against serialize/schema/hipdnn_graph.fbs.
 *
 * Owns: for each attribute the library serializes (operation tables, TensorAttributes, Graph),
 * the schema declares a field of that name at that field id, and the library's idea of what an
 * absent field means (fe_wire_default) is the schema's: "= null" fields read as unset; other
 * scalars as their declared default (0, false, an enum's first value or the one named) — except
 * enums whose default is a "not set" placeholder (UNSET, NOT_SET), which stay unset. The schema
 * is parsed here with a few lines of C; it is the file our codec was written from.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/fe_engines.h"
#include "serialize/fe_serialize.h"

#define SCHEMA HIPDNN_SOURCE_DIR "/serialize/schema/hipdnn_graph.fbs"

typedef struct field {
    char table[64], name[64], type[64], dflt[64]; /* dflt "" when none is written */
    int id;                                         /* field id (a union takes two) */
} field;

static field fields[1024];
static int n_fields;

/* Parses every `table X { name: type [= default]; ... }` of the schema. */
static void parse_schema(void)
{
    FILE *f = fopen(SCHEMA, "r");
    cr_assert_not_null(f, "%s", SCHEMA);
    char line[512], table[64] = "";
    int id = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char *c = strstr(line, "//");
        if (c != NULL)
            *c = '\0';
        char name[64], type[64], dflt[64] = "";
        if (sscanf(line, " table %63[A-Za-z0-9_] {", table) == 1) {
            id = 0;
            continue;
        }
        if (strchr(line, '}') != NULL) {
            table[0] = '\0';
            continue;
        }
        if (table[0] == '\0' || sscanf(line, " %63[A-Za-z0-9_] : %63[][A-Za-z0-9_]", name, type) != 2)
            continue;
        char *eq = strchr(line, '=');
        if (eq != NULL)
            sscanf(eq + 1, " %63[A-Za-z0-9_.-]", dflt);
        cr_assert_lt(n_fields, 1024);
        field *fd = &fields[n_fields++];
        snprintf(fd->table, sizeof fd->table, "%s", table);
        snprintf(fd->name, sizeof fd->name, "%s", name);
        snprintf(fd->type, sizeof fd->type, "%s", type);
        snprintf(fd->dflt, sizeof fd->dflt, "%s", dflt);
        bool is_union = strcmp(type, "NodeAttributes") == 0 || strcmp(type, "TensorValue") == 0;
        fd->id = id + is_union; /* a union's value follows its type field */
        id += 1 + is_union;
    }
    fclose(f);
    cr_assert_gt(n_fields, 100, "parsed only %d fields of %s", n_fields, SCHEMA);
}

static const field *find(const char *table, const char *name)
{
    for (int i = 0; i < n_fields; i++)
        if (strcmp(fields[i].table, table) == 0 && strcmp(fields[i].name, name) == 0)
            return &fields[i];
    return NULL;
}

static bool is_int_type(const char *t)
{
    return strcmp(t, "long") == 0 || strcmp(t, "int") == 0 || strcmp(t, "ulong") == 0 ||
           strcmp(t, "uint") == 0 || strcmp(t, "short") == 0;
}

/* What an absent field stands for, per the schema: a JSON value, or NULL for "unset". */
static json_t *schema_default(const field *fd)
{
    if (strcmp(fd->dflt, "null") == 0)
        return NULL;
    if (is_int_type(fd->type))
        return json_integer(fd->dflt[0] ? strtoll(fd->dflt, NULL, 10) : 0);
    if (strcmp(fd->type, "float") == 0 || strcmp(fd->type, "double") == 0)
        return json_real(fd->dflt[0] ? strtod(fd->dflt, NULL) : 0.0);
    if (strcmp(fd->type, "bool") == 0)
        return json_boolean(strcmp(fd->dflt, "true") == 0);
    if (fd->type[0] == '[' || strcmp(fd->type, "string") == 0 || strcmp(fd->type, "Graph") == 0)
        return NULL; /* vectors, strings, tables: no default */
    /* an enum: the named default or the first value; a "not set" placeholder means unset */
    int v = 0;
    if (fd->dflt[0] && !fe_enum_from_name(fd->type, fd->dflt, &v))
        return json_string(fd->dflt); /* a name the library does not know: compared as text */
    const char *name = fe_enum_to_name(fd->type, v);
    if (name == NULL || strcmp(name, "UNSET") == 0 || strcmp(name, "NOT_SET") == 0)
        return NULL;
    return json_string(name);
}

static void check_class(const fe_class *cls, const char *table, int *checked)
{
    for (int i = 0; i < cls->n_attrs; i++) {
        const fe_attr *a = &cls->attrs[i];
        if (a->field == NULL || a->wire == FE_W_NONE || (a->flags & FE_COMPUTE))
            continue;
        const field *fd = find(table, a->field);
        cr_expect_not_null(fd, "%s: %s.%s is not in the schema", a->name, table, a->field);
        if (fd == NULL)
            continue;
        cr_expect_eq(a->fb_id, fd->id, "%s: %s.%s has field id %d in the schema, %d here", a->name,
                     table, a->field, fd->id, a->fb_id);
        json_t *want = schema_default(fd), *got = fe_wire_default(a);
        bool same = want == NULL ? got == NULL : got != NULL && json_equal(want, got);
        char *w = want ? json_dumps(want, JSON_ENCODE_ANY) : NULL;
        char *g = got ? json_dumps(got, JSON_ENCODE_ANY) : NULL;
        cr_expect(same, "%s: %s.%s (%s = %s): an absent field reads as %s here, %s in the schema",
                  a->name, table, a->field, fd->type, fd->dflt[0] ? fd->dflt : "(none)",
                  g ? g : "unset", w ? w : "unset");
        cr_expect_eq((a->flags & FE_NULL) != 0, strcmp(fd->dflt, "null") == 0,
                     "%s: %s.%s: FE_NULL must match the schema's \"= null\"", a->name, table, a->field);
        free(w), free(g);
        json_decref(want), json_decref(got);
        (*checked)++;
    }
}

Test(schema, every_serialized_attribute_matches_the_schema)
{
    parse_schema();
    int checked = 0, classes = 0;
    for (int c = 0; c < fe_n_classes; c++)
        if (fe_classes[c] != NULL && fe_classes[c]->op_type != 0) {
            check_class(fe_classes[c], fe_classes[c]->table, &checked);
            classes++;
        }
    check_class(&fe_tensor_class, "TensorAttributes", &checked);
    check_class(&fe_graph_class, "Graph", &checked);
    cr_expect_geq(classes, 18, "operation classes checked: %d", classes);
    cr_expect_geq(checked, 200, "attributes checked: %d", checked);
}

/* The parser itself, on fields whose reading is known. */
Test(schema, parser_reads_known_fields)
{
    parse_schema();
    const field *f = find("PointwiseAttributes", "in_1_tensor_uid");
    cr_assert_not_null(f);
    cr_expect_str_eq(f->dflt, "null");
    cr_expect_eq(f->id, 6);
    f = find("TensorAttributes", "alignment");
    cr_assert_not_null(f);
    cr_expect_str_eq(f->dflt, "16");
    f = find("Node", "attributes");
    cr_assert_not_null(f);
    cr_expect_eq(f->id, 3, "the union value follows its type field");
}
