/* fe_custom_plugins.c — custom-op plugin libraries: the files hipdnnSetEnginePluginPaths_ext
 * names, resolved, loaded, and their providers registered (graph/fe_custom.c), and the list of
 * files loaded (hipdnnGetLoadedEnginePluginPaths_ext).
 *
 * A path with a '/' that is relative is taken from the directory of libhipdnn_backend.so (as
 * hipDNN does); a bare name is looked for there as given, as lib<name>.so and <name>.so, then
 * left to the system loader. A library must export HIPDNN_JIT_CUSTOM_OP_PROVIDER_SYMBOL: this
 * backend's engines are built in, so a hipDNN engine plugin is refused by name. One call loads
 * all its files or none: every library is opened and every provider table checked (against the
 * registry and the other files of the call) before any is registered. A file already loaded is
 * skipped. Libraries stay loaded until exit: plans may hold their providers.
 */
#define _GNU_SOURCE /* dladdr, realpath */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/fe_graph.h"
#include "hipdnn_jit_custom_op.h"

#define MAX_PLUGINS 32
#define FN "hipdnnSetEnginePluginPaths_ext"

static char *loaded[MAX_PLUGINS]; /* real paths, in load order */
static int n_loaded;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The directory of this library, with a trailing '/'; "" when unknown. */
static void own_dir(char *dir, size_t size)
{
    Dl_info info;
    dir[0] = '\0';
    if (dladdr((void *)own_dir, &info) != 0 && info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash != NULL && (size_t)(slash - info.dli_fname) + 2 <= size)
            snprintf(dir, size, "%.*s/", (int)(slash - info.dli_fname), info.dli_fname);
    }
}

/* The file a path names (real path in out), or false with the candidates tried in `tried`. A
 * bare name found nowhere is returned as given (for the system loader: *system = true). */
static bool resolve(const char *path, char *out, size_t size, char *tried, size_t tried_size, bool *system)
{
    char dir[PATH_MAX], cand[3][PATH_MAX + 16];
    int n = 0;
    own_dir(dir, sizeof dir);
    *system = false;
    if (path[0] == '/') {
        snprintf(cand[n++], sizeof cand[0], "%s", path);
    } else if (strchr(path, '/') != NULL) {
        snprintf(cand[n++], sizeof cand[0], "%s%s", dir, path);
    } else {
        snprintf(cand[n++], sizeof cand[0], "%s%s", dir, path);
        snprintf(cand[n++], sizeof cand[0], "%slib%s.so", dir, path);
        snprintf(cand[n++], sizeof cand[0], "%s%s.so", dir, path);
    }
    size_t used = 0;
    tried[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (realpath(cand[i], out) != NULL && access(out, R_OK) == 0)
            return true;
        used += (size_t)snprintf(tried + used, used < tried_size ? tried_size - used : 0, "%s%s", i ? ", " : "",
                                 cand[i]);
    }
    if (strchr(path, '/') == NULL) { /* the loader's search path (LD_LIBRARY_PATH, ld.so.cache) */
        snprintf(out, size, "%s", path);
        *system = true;
        return true;
    }
    return false;
}

typedef struct opened {
    void *lib;
    char path[PATH_MAX];
    const hipdnnJitCustomOpProvider_t *providers;
    int32_t count;
} opened;

/* Opens one file and takes its provider table; the library is closed again on failure. */
static hipdnnStatus_t open_one(const char *path, opened *o)
{
    char tried[3 * PATH_MAX];
    bool system;
    if (!resolve(path, o->path, sizeof o->path, tried, sizeof tried, &system))
        return base_fail(HIPDNN_STATUS_BAD_PARAM, FN ": '%s': no such file (looked at %s)", path, tried);
    o->lib = dlopen(o->path, RTLD_NOW | RTLD_LOCAL);
    if (o->lib == NULL) {
        const char *e = dlerror();
        return base_fail(HIPDNN_STATUS_PLUGIN_ERROR, FN ": '%s' does not load: %s", path, e ? e : "dlopen failed");
    }
    if (system) { /* the loader found it: record where */
        Dl_info info;
        void *sym = dlsym(o->lib, HIPDNN_JIT_CUSTOM_OP_PROVIDER_SYMBOL);
        if (sym != NULL && dladdr(sym, &info) != 0 && info.dli_fname != NULL)
            snprintf(o->path, sizeof o->path, "%s", info.dli_fname);
    }
    hipdnnJitCustomOpProvidersFn fn;
    *(void **)&fn = dlsym(o->lib, HIPDNN_JIT_CUSTOM_OP_PROVIDER_SYMBOL);
    if (fn == NULL) {
        dlclose(o->lib);
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, FN ": '%s' exports no %s: this backend's engines are built in "
                         "and it loads custom-op plugins only (include/hipdnn_jit_custom_op.h)", path,
                         HIPDNN_JIT_CUSTOM_OP_PROVIDER_SYMBOL);
    }
    o->count = 0;
    o->providers = fn(&o->count);
    if (o->providers == NULL || o->count <= 0 || o->count > 64) {
        dlclose(o->lib);
        return base_fail(HIPDNN_STATUS_PLUGIN_ERROR, FN ": '%s': %s gave %d providers%s", path,
                         HIPDNN_JIT_CUSTOM_OP_PROVIDER_SYMBOL, (int)o->count,
                         o->providers == NULL ? " and a NULL table" : " (1..64 expected)");
    }
    return HIPDNN_STATUS_SUCCESS;
}

static bool is_loaded(const char *path)
{
    for (int i = 0; i < n_loaded; i++)
        if (strcmp(loaded[i], path) == 0)
            return true;
    return false;
}

/* Every provider of the new files valid, its name free in the registry and among the others. */
static hipdnnStatus_t check_all(const opened *o, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < o[i].count; k++) {
            const hipdnnJitCustomOpProvider_t *p = &o[i].providers[k];
            hipdnnStatus_t st = fe_custom_validate(p, o[i].path);
            if (st != HIPDNN_STATUS_SUCCESS)
                return st;
            for (int j = 0; j <= i; j++)
                for (int m = 0; m < (j < i ? o[j].count : k); m++)
                    if (strcmp(o[j].providers[m].name, p->name) == 0)
                        return base_fail(HIPDNN_STATUS_BAD_PARAM, FN ": provider '%s' twice (%s and %s)", p->name,
                                         o[j].path, o[i].path);
        }
    return HIPDNN_STATUS_SUCCESS;
}

hipdnnStatus_t fe_custom_load_plugins(size_t n_paths, const char *const *paths)
{
    if (n_paths > MAX_PLUGINS)
        return base_fail(HIPDNN_STATUS_NOT_SUPPORTED, FN ": %zu paths; at most %d plugins", n_paths, MAX_PLUGINS);
    opened o[MAX_PLUGINS];
    int n = 0;
    hipdnnStatus_t st = HIPDNN_STATUS_SUCCESS;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_paths && st == HIPDNN_STATUS_SUCCESS; i++) {
        st = open_one(paths[i], &o[n]);
        if (st != HIPDNN_STATUS_SUCCESS)
            break;
        bool dup = is_loaded(o[n].path);
        for (int j = 0; j < n && !dup; j++)
            dup = strcmp(o[j].path, o[n].path) == 0;
        if (dup)
            dlclose(o[n].lib); /* loaded already: its providers are registered */
        else
            n++;
    }
    if (st == HIPDNN_STATUS_SUCCESS)
        st = check_all(o, n);
    if (st == HIPDNN_STATUS_SUCCESS && n_loaded + n > MAX_PLUGINS)
        st = base_fail(HIPDNN_STATUS_NOT_SUPPORTED, FN ": more than %d plugin files in all", MAX_PLUGINS);
    for (int i = 0; i < n && st == HIPDNN_STATUS_SUCCESS; i++) {
        size_t len = strlen(o[i].path) + 1;
        char *copy = base_malloc(len);
        if (copy != NULL)
            memcpy(copy, o[i].path, len);
        if (copy == NULL) {
            st = base_fail(HIPDNN_STATUS_ALLOC_FAILED, FN ": out of memory");
            break;
        }
        for (int k = 0; k < o[i].count && st == HIPDNN_STATUS_SUCCESS; k++)
            st = fe_custom_register(&o[i].providers[k], o[i].path);
        loaded[n_loaded++] = copy; /* even after a failed registration: the library stays open */
        o[i].lib = NULL;
    }
    for (int i = 0; i < n; i++)
        if (o[i].lib != NULL)
            dlclose(o[i].lib);
    pthread_mutex_unlock(&lock);
    return st;
}

size_t fe_custom_plugin_paths(const char **paths, size_t capacity)
{
    pthread_mutex_lock(&lock);
    size_t n = (size_t)n_loaded;
    for (size_t i = 0; i < n && i < capacity; i++)
        paths[i] = loaded[i];
    pthread_mutex_unlock(&lock);
    return n;
}
