/* fe_jit_modules.c — the process's loaded code objects, by kernel key, shared by every plan that
 * runs the kernel: a plan built again in the same process (or another plan with a common
 * kernel) loads nothing. A module no plan uses stays loaded until IDLE_MAX others are idle;
 * then the one idle longest is unloaded; fe_module_unload_idle unloads every idle one at once
 * (tests that count the device's modules). Thread safe.
 */
#include <pthread.h>
#include <string.h>

#include "engines/fe_jit.h"

#define IDLE_MAX 256

typedef struct loaded {
    kc_key key;
    rt_module *module;
    int users;
    uint64_t idle_since; /* tick of the last release (users == 0) */
} loaded;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static loaded *table;
static int n_table, cap_table;
static uint64_t tick;

static int find_key(const kc_key *key)
{
    for (int i = 0; i < n_table; i++)
        if (memcmp(&table[i].key, key, sizeof *key) == 0)
            return i;
    return -1;
}

bool fe_module_find(const kc_key *key, rt_module **m)
{
    pthread_mutex_lock(&mu);
    int i = find_key(key);
    if (i >= 0) {
        table[i].users++;
        *m = table[i].module;
    }
    pthread_mutex_unlock(&mu);
    return i >= 0;
}

/* Unloads the module idle longest when more than IDLE_MAX are idle (called locked). */
static void trim(void)
{
    int idle = 0, oldest = -1;
    for (int i = 0; i < n_table; i++)
        if (table[i].users == 0) {
            idle++;
            if (oldest < 0 || table[i].idle_since < table[oldest].idle_since)
                oldest = i;
        }
    if (idle <= IDLE_MAX)
        return;
    rt_module_unload(table[oldest].module);
    table[oldest] = table[--n_table];
}

/* Room for one more entry (called locked). */
static bool grow(void)
{
    if (n_table < cap_table)
        return true;
    int cap = cap_table > 0 ? 2 * cap_table : 16;
    loaded *t = base_realloc(table, (size_t)cap * sizeof *t);
    if (t == NULL)
        return false;
    table = t, cap_table = cap;
    return true;
}

hipdnnStatus_t fe_module_load(const kc_key *key, const void *code, size_t code_len, rt_module **m)
{
    if (fe_module_find(key, m))
        return HIPDNN_STATUS_SUCCESS;
    rt_module *mod;
    hipdnnStatus_t st = rt_module_load(code, code_len, &mod);
    if (st != HIPDNN_STATUS_SUCCESS)
        return st;
    pthread_mutex_lock(&mu);
    int i = find_key(key);
    if (i >= 0) { /* another thread loaded it meanwhile: use theirs */
        table[i].users++;
        *m = table[i].module;
    } else if (grow()) {
        table[n_table++] = (loaded){.key = *key, .module = mod, .users = 1};
        *m = mod, mod = NULL;
    } else {
        st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, "loading a kernel: out of memory");
    }
    pthread_mutex_unlock(&mu);
    if (mod != NULL)
        rt_module_unload(mod);
    return st;
}

void fe_module_release(rt_module *m)
{
    if (m == NULL)
        return;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < n_table; i++)
        if (table[i].module == m && table[i].users > 0) {
            if (--table[i].users == 0) {
                table[i].idle_since = ++tick;
                trim();
            }
            break;
        }
    pthread_mutex_unlock(&mu);
}

int fe_module_unload_idle(void)
{
    int n = 0;
    pthread_mutex_lock(&mu);
    for (int i = n_table - 1; i >= 0; i--)
        if (table[i].users == 0) {
            rt_module_unload(table[i].module);
            table[i] = table[--n_table];
            n++;
        }
    pthread_mutex_unlock(&mu);
    return n;
}
