/* fz.c — the fuzz harnesses' shared helpers (fz.h): failing an invariant, the quiet
 * environment, the input cursor, and the round trip every graph a reader accepts must survive.
 * Public API and the C library only.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz.h"

void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    fprintf(stderr, "%s:%d: invariant `%s` broken: ", file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n  last error: %s\n", fz_last_error());
    abort();
}

/* The initializer of a harness that needs nothing more than the environment (weak: a harness
 * may define its own, which then calls fz_environment). */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fz_environment();
    return 0;
}

void fz_environment(void)
{
    setenv("HIPDNN_LOG_LEVEL", "off", 1);
    setenv("HIPDNN_CACHE_DISABLE", "1", 1);
    setenv("HIPDNN_PLATFORM", "none", 1);
}

hipdnnHandle_t fz_handle(void)
{
    static hipdnnHandle_t h;
    if (h == NULL)
        FZ_CHECK(hipdnnCreate(&h) == HIPDNN_STATUS_SUCCESS, "hipdnnCreate failed");
    return h;
}

const char *fz_last_error(void)
{
    static _Thread_local char buf[HIPDNN_ERROR_STRING_MAX_LENGTH];
    hipdnnPeekLastErrorString_ext(buf, sizeof buf);
    return buf;
}

void fz_clear_error(void)
{
    char b[4];
    hipdnnGetLastErrorString(b, sizeof b);
}

void fz_check_refusal(hipdnnStatus_t st, const char *call)
{
    FZ_CHECK(st != HIPDNN_STATUS_SUCCESS, "%s: expected a failure", call);
    FZ_CHECK(fz_last_error()[0] != '\0', "%s failed (%s) without a message", call, hipdnnGetErrorString(st));
}

/* ---- the input cursor ------------------------------------------------------------------------ */

bool fz_more(const fz_in *in) { return in->at < in->n; }

void fz_bytes(fz_in *in, void *out, size_t n)
{
    size_t k = in->n - in->at < n ? in->n - in->at : n;
    if (k > 0)
        memcpy(out, in->p + in->at, k);
    memset((uint8_t *)out + k, 0, n - k);
    in->at += k;
}

uint8_t fz_u8(fz_in *in)
{
    uint8_t v;
    fz_bytes(in, &v, 1);
    return v;
}

uint16_t fz_u16(fz_in *in)
{
    uint8_t b[2];
    fz_bytes(in, b, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}

uint32_t fz_u32(fz_in *in)
{
    uint32_t lo = fz_u16(in), hi = fz_u16(in);
    return lo | hi << 16;
}

uint64_t fz_u64(fz_in *in)
{
    uint64_t lo = fz_u32(in), hi = fz_u32(in);
    return lo | hi << 32;
}

/* ---- graphs ------------------------------------------------------------------------------------- */

/* The JSON (NUL-terminated; *len without the NUL) or FlatBuffer form of g. */
static uint8_t *form_of(hipdnnBackendDescriptor_t g, bool json, size_t *len)
{
    const char *what = json ? "JSON" : "FlatBuffer";
    size_t n = 0, m = 0;
    hipdnnStatus_t st = json ? hipdnnBackendGetSerializedJsonGraph_ext(g, 0, &n, NULL)
                             : hipdnnBackendGetSerializedBinaryGraph_ext(g, 0, &n, NULL);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS && n > 0, "an accepted graph has no %s form (%s)", what,
             hipdnnGetErrorString(st));
    uint8_t *b = malloc(n);
    FZ_CHECK(b != NULL, "out of memory");
    st = json ? hipdnnBackendGetSerializedJsonGraph_ext(g, n, &m, (char *)b)
              : hipdnnBackendGetSerializedBinaryGraph_ext(g, n, &m, b);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS && m == n && (!json || b[n - 1] == '\0'),
             "the %s form changed size: %zu, then %zu (%s)", what, n, m, hipdnnGetErrorString(st));
    *len = json ? n - 1 : n;
    return b;
}

/* Finalizes g on fz_handle(); on success copies its graph key. */
static hipdnnStatus_t finalize(hipdnnBackendDescriptor_t g, char key[33])
{
    hipdnnHandle_t h = fz_handle();
    hipdnnStatus_t st = hipdnnBackendSetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_HANDLE, HIPDNN_TYPE_HANDLE, 1, &h);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS, "setting a read graph's handle: %s", hipdnnGetErrorString(st));
    key[0] = '\0';
    st = hipdnnBackendFinalize(g);
    if (st != HIPDNN_STATUS_SUCCESS) {
        fz_check_refusal(st, "hipdnnBackendFinalize (a graph read back)");
        return st;
    }
    int64_t n = 0;
    hipdnnStatus_t kst = hipdnnBackendGetAttribute(g, HIPDNN_ATTR_OPERATIONGRAPH_GRAPH_KEY_EXT, HIPDNN_TYPE_CHAR,
                                                   33, &n, key);
    if (kst != HIPDNN_STATUS_SUCCESS) /* a graph the IR cannot express has no key */
        snprintf(key, 33, "(none: %s)", hipdnnGetErrorString(kst));
    return st;
}

static void destroy(hipdnnBackendDescriptor_t g)
{
    hipdnnStatus_t st = hipdnnBackendDestroyDescriptor(g);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS, "destroying a read graph: %s", hipdnnGetErrorString(st));
}

static void roundtrip(hipdnnBackendDescriptor_t g)
{
    size_t n1, n2, m1, m2;
    uint8_t *b1 = form_of(g, false, &n1), *j1 = form_of(g, true, &m1);
    hipdnnBackendDescriptor_t gb = NULL, gj = NULL;
    hipdnnStatus_t st = hipdnnBackendCreateAndDeserializeGraph_ext(&gb, b1, n1);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS, "the FlatBuffer form of an accepted graph is refused (%s)",
             hipdnnGetErrorString(st));
    st = hipdnnBackendCreateAndDeserializeJsonGraph_ext(&gj, (const char *)j1, m1);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS, "the JSON form of an accepted graph is refused (%s): %.400s",
             hipdnnGetErrorString(st), (const char *)j1);
    uint8_t *b2 = form_of(gb, false, &n2), *j2 = form_of(gj, true, &m2);
    FZ_CHECK(n1 == n2 && memcmp(b1, b2, n1) == 0, "the FlatBuffer form read back writes other bytes (%zu, %zu)",
             n1, n2);
    FZ_CHECK(m1 == m2 && memcmp(j1, j2, m1) == 0, "the JSON form read back writes another text:\n%.600s\n---\n%.600s",
             (const char *)j1, (const char *)j2);
    char k[3][33];
    hipdnnStatus_t s0 = finalize(g, k[0]), s1 = finalize(gb, k[1]), s2 = finalize(gj, k[2]);
    FZ_CHECK(s0 == s1 && s0 == s2, "finalize: %s, of its FlatBuffer copy %s, of its JSON copy %s",
             hipdnnGetErrorString(s0), hipdnnGetErrorString(s1), hipdnnGetErrorString(s2));
    FZ_CHECK(strcmp(k[0], k[1]) == 0 && strcmp(k[0], k[2]) == 0, "graph keys differ: %s, %s, %s", k[0], k[1],
             k[2]);
    free(b1), free(b2), free(j1), free(j2);
    destroy(g), destroy(gb), destroy(gj);
}

void fz_graph_read(hipdnnStatus_t st, hipdnnBackendDescriptor_t g, const char *call)
{
    if (st == HIPDNN_STATUS_SUCCESS) {
        roundtrip(g);
        return;
    }
    fz_check_refusal(st, call);
    FZ_CHECK(st == HIPDNN_STATUS_BAD_PARAM || st == HIPDNN_STATUS_NOT_SUPPORTED, "%s refused with %s", call,
             hipdnnGetErrorString(st));
    FZ_CHECK(g == FZ_UNTOUCHED, "%s wrote its output on failure", call);
}
