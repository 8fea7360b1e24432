/* base_alloc.c — the library's allocator, with fault injection for tests.
 *
 * All heap use goes through here so a test can make the Nth allocation fail and check that
 * every caller turns it into HIPDNN_STATUS_ALLOC_FAILED without leaking.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static atomic_long alloc_count;
static atomic_long fail_at;      /* absolute allocation number that fails; 0 = off */
static atomic_bool fail_sticky;

static bool should_fail(void)
{
    long n = atomic_fetch_add(&alloc_count, 1) + 1;
    long at = atomic_load(&fail_at);
    if (at == 0)
        return false;
    return n == at || (n > at && atomic_load(&fail_sticky));
}

void base_alloc_fail_at(long nth, bool sticky)
{
    atomic_store(&fail_sticky, sticky);
    atomic_store(&fail_at, nth > 0 ? atomic_load(&alloc_count) + nth : 0);
}

long base_alloc_count(void) { return atomic_load(&alloc_count); }

void *base_malloc(size_t n) { return should_fail() ? NULL : malloc(n ? n : 1); }

void *base_calloc(size_t count, size_t size)
{
    return should_fail() ? NULL : calloc(count ? count : 1, size ? size : 1);
}

void *base_realloc(void *p, size_t n) { return should_fail() ? NULL : realloc(p, n ? n : 1); }

void base_free(void *p) { free(p); }

void *base_memdup(const void *p, size_t n)
{
    void *q = base_malloc(n);
    if (q != NULL && n > 0)
        memcpy(q, p, n);
    return q;
}

char *base_strndup(const char *s, size_t n)
{
    char *q = base_malloc(n + 1);
    if (q == NULL)
        return NULL;
    if (n > 0)
        memcpy(q, s, n);
    q[n] = '\0';
    return q;
}

bool base_mul_size(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b)
        return false;
    *out = a * b;
    return true;
}
