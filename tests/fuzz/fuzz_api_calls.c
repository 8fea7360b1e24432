/* fuzz_api_calls.c — libFuzzer harness: programs of descriptor calls (hipdnnBackendCreate-
 * Descriptor, SetAttribute, GetAttribute, Finalize, DestroyDescriptor; never Execute) over a
 * pool of POOL descriptor slots. The attribute vocabulary comes from the class tables
 * (api/fe_registry.c), so most calls name an attribute the descriptor has, with its type;
 * raw names, types and counts reach everything else.
 *
 * Program (fz_in: bytes past the end read as zero), at most MAX_STEPS instructions:
 *   op % 6 = 0  CREATE   slot, type (int8: valid types and invalid ones); a live slot is
 *                        destroyed first
 *            1  DESTROY  slot (an empty slot: the call gets NULL)
 *            2  SET      slot, NAME, TYPE, COUNT, values
 *            3  GET      slot, NAME, TYPE, requested, flags (bit 0: no count pointer, bit 1: no
 *                        array), for descriptor types the array's slots
 *            4  FINALIZE slot
 *            5  LASTERR  size: hipdnnGetLastErrorString into a buffer of that size
 *   NAME   u8 < 0xf0: row u8 of the slot's class table; else a raw u16 attribute name
 *   TYPE   u8 < 0xc0: the row's type (INT64 without a row); else raw_types[(u8 - 0xc0) % N]
 *   COUNT  u8: 0xff -1, 0xfe a huge count with no array, 0xfd 1 with no array, else % 65;
 *          values, per element: a slot (descriptors: < POOL, else NULL), a bit (handles:
 *          the harness's or NULL), an offset into a scratch buffer (pointers), a length and
 *          that many bytes (FlatBuffer blobs), else the element's bytes
 * KERNEL_CACHE directories are always set empty (memory caches: nothing is written to disk).
 * Invariants: creating a known type and destroying a live descriptor succeed; every failure
 * leaves a message; a set on a finalized descriptor fails; a get reports a count within what
 * was asked for; descriptors a get hands out are live (destroyed here); no leak once every
 * slot is destroyed (LeakSanitizer).
 * Seeds: corpus/api_calls/ (programs from fz_seeds building real graphs, heuristics, engine
 * configs and plans).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/fe_engines.h"
#include "fz.h"

#define POOL 24
#define MAX_STEPS 400
#define MAX_ELEMS 64
#define ELEM_MAX 16 /* the largest element: hipdnnBackendFlatbufferData_t */

static const int64_t raw_types[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
                                    18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 10000, 10001, -1, 99};
#define N_RAW_TYPES ((int)(sizeof raw_types / sizeof raw_types[0]))

typedef struct slot {
    hipdnnBackendDescriptor_t d;
    int type;
    bool finalized;
} slot;

typedef struct vm {
    fz_in in;
    slot s[POOL];
} vm;

static uint8_t scratch[256]; /* what pointer-valued elements point into */
static bool trace; /* FZ_TRACE=1: print every call's status (to see what a program reaches) */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fz_environment();
    trace = getenv("FZ_TRACE") != NULL;
    return 0;
}

static void check_status(hipdnnStatus_t st, const char *call)
{
    if (trace)
        fprintf(stderr, "%s: %s %s\n", call, hipdnnGetErrorString(st), st ? fz_last_error() : "");
    FZ_CHECK(strcmp(hipdnnGetErrorString(st), "HIPDNN_STATUS_UNKNOWN") != 0, "%s returned %d", call, (int)st);
    if (st != HIPDNN_STATUS_SUCCESS)
        fz_check_refusal(st, call);
}

static size_t elem_size(int64_t type)
{
    switch (type) {
    case HIPDNN_TYPE_BOOLEAN:
    case HIPDNN_TYPE_CHAR: return 1;
    case HIPDNN_TYPE_INT64:
    case HIPDNN_TYPE_DOUBLE:
    case HIPDNN_TYPE_VOID_PTR:
    case HIPDNN_TYPE_HANDLE:
    case HIPDNN_TYPE_BACKEND_DESCRIPTOR: return 8;
    case HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT: return sizeof(hipdnnBackendFlatbufferData_t);
    default: return 4;
    }
}

/* ---- operands ---------------------------------------------------------------------------------- */

static slot *pick_slot(vm *m) { return &m->s[fz_u8(&m->in) % POOL]; }

/* The attribute row NAME picks (NULL: a raw name, or a slot without a class). */
static const fe_attr *pick_name(vm *m, const slot *s, int64_t *name)
{
    uint8_t b = fz_u8(&m->in);
    const fe_class *cls = s->d != NULL ? fe_class_of(s->type) : NULL;
    if (b >= 0xf0 || cls == NULL || cls->n_attrs == 0) {
        *name = b >= 0xf0 ? fz_u16(&m->in) : b;
        return cls != NULL ? fe_find_attr(cls, (hipdnnBackendAttributeName_t)*name) : NULL;
    }
    int n = cls->n_attrs + (cls->op_type != 0 ? fe_n_op_common_attrs : 0);
    int i = b % n;
    const fe_attr *a = i < cls->n_attrs ? &cls->attrs[i] : &fe_op_common_attrs[i - cls->n_attrs];
    *name = a->id;
    return a;
}

static int64_t pick_type(vm *m, const fe_attr *a)
{
    uint8_t b = fz_u8(&m->in);
    if (b < 0xc0)
        return a != NULL ? a->type : HIPDNN_TYPE_INT64;
    return raw_types[(b - 0xc0) % N_RAW_TYPES];
}

static hipdnnBackendDescriptor_t slot_value(vm *m)
{
    uint8_t b = fz_u8(&m->in);
    return b < POOL ? m->s[b].d : NULL;
}

/* Fills n elements of `type` into out (room for MAX_ELEMS of any type). */
static void fill_values(vm *m, int64_t type, int64_t n, uint8_t *out)
{
    for (int64_t i = 0; i < n; i++) {
        uint8_t *e = out + i * (int64_t)elem_size(type);
        if (type == HIPDNN_TYPE_BACKEND_DESCRIPTOR) {
            hipdnnBackendDescriptor_t d = slot_value(m);
            memcpy(e, &d, sizeof d);
        } else if (type == HIPDNN_TYPE_HANDLE) {
            hipdnnHandle_t h = fz_u8(&m->in) & 1 ? fz_handle() : NULL;
            memcpy(e, &h, sizeof h);
        } else if (type == HIPDNN_TYPE_VOID_PTR) {
            uint8_t b = fz_u8(&m->in);
            void *p = b == 0 ? NULL : scratch + b;
            memcpy(e, &p, sizeof p);
        } else if (type == HIPDNN_TYPE_FLATBUFFER_DATA_STRUCT_EXT) {
            size_t len = fz_u8(&m->in) % (sizeof scratch / 2);
            hipdnnBackendFlatbufferData_t fb = {.ptr = scratch + i % 8, .size = len};
            fz_bytes(&m->in, scratch + i % 8, len);
            memcpy(e, &fb, sizeof fb);
        } else
            fz_bytes(&m->in, e, elem_size(type));
    }
}

/* ---- instructions -------------------------------------------------------------------------------- */

static void destroy_slot(slot *s)
{
    if (s->d == NULL)
        return;
    hipdnnStatus_t st = hipdnnBackendDestroyDescriptor(s->d);
    FZ_CHECK(st == HIPDNN_STATUS_SUCCESS, "destroying a live descriptor: %s", hipdnnGetErrorString(st));
    *s = (slot){0};
}

static void op_create(vm *m)
{
    slot *s = pick_slot(m);
    int type = (int8_t)fz_u8(&m->in);
    destroy_slot(s);
    hipdnnStatus_t st = hipdnnBackendCreateDescriptor((hipdnnBackendDescriptorType_t)type, &s->d);
    check_status(st, "hipdnnBackendCreateDescriptor");
    FZ_CHECK((st == HIPDNN_STATUS_SUCCESS) == (fe_class_of(type) != NULL), "creating type %d: %s", type,
             hipdnnGetErrorString(st));
    s->type = type;
    if (st != HIPDNN_STATUS_SUCCESS)
        s->d = NULL;
}

static void op_destroy(vm *m)
{
    slot *s = pick_slot(m);
    if (s->d != NULL) {
        destroy_slot(s);
        return;
    }
    check_status(hipdnnBackendDestroyDescriptor(NULL), "hipdnnBackendDestroyDescriptor(NULL)");
}

static void op_set(vm *m)
{
    slot *s = pick_slot(m);
    int64_t name;
    const fe_attr *a = pick_name(m, s, &name);
    int64_t type = pick_type(m, a);
    uint8_t c = fz_u8(&m->in);
    _Alignas(16) uint8_t vals[MAX_ELEMS * ELEM_MAX];
    int64_t n = c == 0xff ? -1 : c == 0xfe ? INT64_MAX / 4 : c == 0xfd ? 1 : c % (MAX_ELEMS + 1);
    bool no_array = c == 0xfe || c == 0xfd;
    /* a KERNEL_CACHE directory would be created on disk: keep every cache in memory */
    bool dir = s->type == HIPDNN_BACKEND_KERNEL_CACHE_DESCRIPTOR && name == HIPDNN_ATTR_KERNEL_CACHE_DIRECTORY_EXT;
    if (dir)
        n = 0;
    if (!no_array && n > 0)
        fill_values(m, type, n, vals);
    hipdnnStatus_t st = hipdnnBackendSetAttribute(s->d, (hipdnnBackendAttributeName_t)name,
                                                  (hipdnnBackendAttributeType_t)type, n, no_array ? NULL : vals);
    check_status(st, "hipdnnBackendSetAttribute");
    FZ_CHECK(!(s->finalized && st == HIPDNN_STATUS_SUCCESS), "attribute %lld set on a finalized descriptor",
             (long long)name);
}

/* Destroys the descriptors a successful get handed out: elements it changed. */
static void release_outputs(const hipdnnBackendDescriptor_t *before, const hipdnnBackendDescriptor_t *after,
                            int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (after[i] == before[i] || after[i] == NULL)
            continue;
        hipdnnStatus_t st = hipdnnBackendDestroyDescriptor(after[i]);
        FZ_CHECK(st == HIPDNN_STATUS_SUCCESS, "a descriptor a get handed out is not live: %s",
                 hipdnnGetErrorString(st));
    }
}

static void op_get(vm *m)
{
    slot *s = pick_slot(m);
    int64_t name;
    const fe_attr *a = pick_name(m, s, &name);
    int64_t type = pick_type(m, a);
    uint8_t r = fz_u8(&m->in), flags = fz_u8(&m->in);
    int64_t requested = r == 0xff ? -1 : r % (MAX_ELEMS + 1);
    _Alignas(16) uint8_t out[MAX_ELEMS * ELEM_MAX];
    hipdnnBackendDescriptor_t before[MAX_ELEMS] = {0};
    memset(out, 0, sizeof out);
    if (type == HIPDNN_TYPE_BACKEND_DESCRIPTOR) /* inputs for ENGINEHEUR_RESULTS and IS_..._CACHED */
        for (int64_t i = 0; i < requested; i++)
            before[i] = slot_value(m);
    memcpy(out, before, sizeof before);
    int64_t count = -12345;
    hipdnnStatus_t st = hipdnnBackendGetAttribute(s->d, (hipdnnBackendAttributeName_t)name,
                                                  (hipdnnBackendAttributeType_t)type, requested,
                                                  flags & 1 ? NULL : &count, flags & 2 ? NULL : out);
    check_status(st, "hipdnnBackendGetAttribute");
    if (st != HIPDNN_STATUS_SUCCESS)
        return;
    if (!(flags & 1))
        FZ_CHECK(count >= 0 && (flags & 2 || requested <= 0 || count <= requested),
                 "attribute %lld: %lld elements reported for %lld requested", (long long)name,
                 (long long)count, (long long)requested);
    if (type == HIPDNN_TYPE_BACKEND_DESCRIPTOR && !(flags & 2) && requested > 0)
        release_outputs(before, (const hipdnnBackendDescriptor_t *)out, requested);
}

static void op_finalize(vm *m)
{
    slot *s = pick_slot(m);
    hipdnnStatus_t st = hipdnnBackendFinalize(s->d);
    check_status(st, "hipdnnBackendFinalize");
    FZ_CHECK(!(s->finalized && st == HIPDNN_STATUS_SUCCESS), "a descriptor finalized twice");
    s->finalized |= st == HIPDNN_STATUS_SUCCESS;
}

static void op_last_error(vm *m)
{
    char buf[256];
    size_t n = fz_u8(&m->in);
    hipdnnGetLastErrorString(n > 0 ? buf : NULL, n);
    FZ_CHECK(n == 0 || memchr(buf, 0, n) != NULL, "the last error is not terminated within %zu bytes", n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vm m = {.in = {.p = data, .n = size}};
    for (int step = 0; step < MAX_STEPS && fz_more(&m.in); step++) {
        fz_clear_error();
        switch (fz_u8(&m.in) % 6) {
        case 0: op_create(&m); break;
        case 1: op_destroy(&m); break;
        case 2: op_set(&m); break;
        case 3: op_get(&m); break;
        case 4: op_finalize(&m); break;
        default: op_last_error(&m); break;
        }
    }
    for (int i = 0; i < POOL; i++)
        destroy_slot(&m.s[i]);
    return 0;
}
