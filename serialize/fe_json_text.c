/* fe_json_text.c — readable, deterministic text for the graph's JSON model.
 *
 * jansson prints every real with 17 significant digits and every array one element per line;
 * graph files are read by people, so this printer keeps arrays of numbers on one line and
 * writes each real with the fewest digits that read back to the same double. Floats of the
 * model are stored as the double nearest their shortest decimal (fe_json_f32), so 1e-5f
 * prints as 1e-05, not 9.9999997473787516e-06.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serialize/fe_serialize.h"

/* The shortest "%.*g" text of d that reads back as `back`, compared at float or double width. */
static void shortest(double d, bool as_float, char *buf, size_t n)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, d);
        double r = strtod(buf, NULL);
        if (as_float ? (float)r == (float)d : r == d)
            return;
    }
}

json_t *fe_json_f32(float f)
{
    char buf[40];
    if (f != f) /* JSON has no spelling for these: the strings flatc also reads */
        return json_string("nan");
    if (f - f != 0)
        return json_string(f > 0 ? "inf" : "-inf");
    shortest(f, true, buf, sizeof buf);
    return json_real(strtod(buf, NULL));
}

bool fe_json_number(const json_t *j, double *out)
{
    if (json_is_number(j)) {
        *out = json_number_value(j);
        return true;
    }
    const char *s = json_is_string(j) ? json_string_value(j) : "";
    if (strcmp(s, "inf") == 0 || strcmp(s, "+inf") == 0 || strcmp(s, "-inf") == 0) {
        *out = s[0] == '-' ? -INFINITY : INFINITY;
        return true;
    }
    if (strcmp(s, "nan") == 0) {
        *out = NAN;
        return true;
    }
    return false;
}

static void put_real(base_sb *sb, double d)
{
    char buf[40];
    shortest(d, false, buf, sizeof buf);
    base_sb_puts(sb, buf);
    if (strpbrk(buf, ".eEn") == NULL) /* keep it a real when read back */
        base_sb_puts(sb, ".0");
}

static bool is_scalar(const json_t *j) { return !json_is_object(j) && !json_is_array(j); }

static void put(base_sb *sb, const json_t *j, int indent);

static void newline(base_sb *sb, int indent) { base_sb_printf(sb, "\n%*s", indent, ""); }

static void put_array(base_sb *sb, const json_t *j, int indent)
{
    bool flat = true;
    for (size_t i = 0; i < json_array_size(j); i++)
        flat &= is_scalar(json_array_get(j, i));
    base_sb_puts(sb, "[");
    for (size_t i = 0; i < json_array_size(j); i++) {
        base_sb_puts(sb, i ? (flat ? ", " : ",") : "");
        if (!flat)
            newline(sb, indent + 2);
        put(sb, json_array_get(j, i), indent + 2);
    }
    if (!flat && json_array_size(j) > 0)
        newline(sb, indent);
    base_sb_puts(sb, "]");
}

static void put_object(base_sb *sb, const json_t *j, int indent)
{
    const char *key;
    json_t *val;
    bool first = true;
    base_sb_puts(sb, "{");
    json_object_foreach((json_t *)j, key, val) {
        base_sb_puts(sb, first ? "" : ",");
        newline(sb, indent + 2);
        json_t *k = json_string(key);
        char *ks = k != NULL ? json_dumps(k, JSON_ENCODE_ANY) : NULL;
        sb->oom |= ks == NULL; /* out of memory: fail the text rather than print "" */
        base_sb_printf(sb, "%s: ", ks != NULL ? ks : "\"\"");
        free(ks);
        json_decref(k);
        put(sb, val, indent + 2);
        first = false;
    }
    if (!first)
        newline(sb, indent);
    base_sb_puts(sb, "}");
}

static void put(base_sb *sb, const json_t *j, int indent)
{
    if (json_is_object(j)) {
        put_object(sb, j, indent);
    } else if (json_is_array(j)) {
        put_array(sb, j, indent);
    } else if (json_is_real(j)) {
        put_real(sb, json_real_value(j));
    } else {
        char *s = json_dumps(j, JSON_ENCODE_ANY);
        sb->oom |= s == NULL; /* out of memory: fail the text rather than print null */
        base_sb_puts(sb, s != NULL ? s : "null");
        free(s);
    }
}

char *fe_json_text(const json_t *doc)
{
    base_sb sb = {0};
    put(&sb, doc, 0);
    base_sb_puts(&sb, "\n");
    if (sb.oom) {
        base_sb_free(&sb);
        return NULL;
    }
    return sb.p;
}
