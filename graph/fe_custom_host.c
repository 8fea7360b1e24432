/* fe_custom_host.c — kernels run on the host, for jit.hip_source's reference: a C++ text (the
 * host preludes, graph/fe_host_sched.h and fe_host_cuda.h, embedded at build time, then a user's
 * kernel and a wrapper) built into a shared object by the host C++ compiler, loaded, and
 * launched on the preludes' block scheduler.
 *
 * Owns: the embedded preludes (fe_host_prelude), the build (a private mkdtemp directory, the
 * compiler run with posix_spawnp — no shell —, its log read back on failure, every file and the
 * directory removed again once the object is loaded or refused), and the process's table of
 * loaded objects keyed by the XXH3-128 of the text, so repeated executes never rebuild: at most
 * MAX_OBJECTS, each with a use count (held while a caller launches) and a mutex (the scheduler's
 * state is the object's statics: one launch at a time per object). When the table is full the
 * least recently used object nobody holds is unloaded. Contract: graph/fe_custom_int.h.
 */
#include <errno.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "graph/fe_custom_int.h"

#define MAX_OBJECTS 32

extern char **environ;

/* cmake/embed.cmake's table of graph/fe_host_*.h (fe_host_preludes.c, generated) */
extern const struct fe_host_file {
    const char *name;
    const char *text;
} fe_host_files[];

typedef int (*launch_fn)(void (*)(void **), void **, const unsigned *, const unsigned *);

struct fe_host_object {
    XXH128_hash_t key;
    void *dl;
    launch_fn launch;
    const char *(*error)(void);
    void (*kernel)(void **);
    pthread_mutex_t run; /* one launch at a time */
    int users;           /* callers holding it (under `lock`) */
    bool in_table;
    uint64_t last_use;
};

static fe_host_object *objects[MAX_OBJECTS];
static int n_objects;
static uint64_t clock_uses;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

const char *fe_host_prelude(const char *name)
{
    for (int i = 0; fe_host_files[i].name != NULL; i++)
        if (strcmp(fe_host_files[i].name, name) == 0)
            return fe_host_files[i].text;
    return NULL;
}

/* ---- building --------------------------------------------------------------------------------------- */

typedef struct build_dir {
    char dir[256], cpp[300], so[300], log[300];
} build_dir;

static int make_dir(build_dir *b, char *why, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > 200)
        tmp = "/tmp";
    snprintf(b->dir, sizeof b->dir, "%s/hipdnn-host-XXXXXX", tmp);
    if (mkdtemp(b->dir) == NULL) {
        snprintf(why, n, "cannot make a temporary directory under %s: %s", tmp, strerror(errno));
        return -1;
    }
    snprintf(b->cpp, sizeof b->cpp, "%s/kernel.cpp", b->dir);
    snprintf(b->so, sizeof b->so, "%s/kernel.so", b->dir);
    snprintf(b->log, sizeof b->log, "%s/compiler.log", b->dir);
    return 0;
}

static void remove_dir(const build_dir *b)
{
    unlink(b->cpp), unlink(b->so), unlink(b->log);
    rmdir(b->dir);
}

static int write_text(const char *path, const char *text, char *why, size_t n)
{
    FILE *f = fopen(path, "w");
    size_t len = strlen(text);
    if (f == NULL || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        int err = errno;
        snprintf(why, n, "cannot write %s: %s", path, strerror(err));
        return -1;
    }
    return 0;
}

/* The compiler's first lines (at most 12 lines, what fits in why). */
static void log_head(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    size_t used = 0;
    char line[512];
    for (int i = 0; i < 12 && used + 1 < n && fgets(line, sizeof line, f) != NULL; i++)
        used += (size_t)snprintf(out + used, n - used, "%s", line);
    fclose(f);
    size_t len = strlen(out);
    while (len > 0 && out[len - 1] == '\n')
        out[--len] = '\0';
}

/* Runs the host compiler on b->cpp; 0 when it made b->so. */
static int compile(const build_dir *b, char *why, size_t n)
{
    const char *env = getenv("HIPDNN_HOST_CXX");
    const char *cxx = env != NULL && env[0] != '\0' ? env : "c++";
    char *const argv[] = {(char *)cxx, "-std=c++17", "-O1", "-ffp-contract=off", "-w", "-shared", "-fPIC",
                          "-fvisibility=hidden", "-Wl,-z,defs", "-o", (char *)b->so, (char *)b->cpp, "-lm", NULL};
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) {
        snprintf(why, n, "cannot start the host compiler: out of memory");
        return -1;
    }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, b->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int err = posix_spawnp(&pid, cxx, &fa, NULL, argv, environ), status = 0;
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) {
        snprintf(why, n, "no host C++ compiler: cannot run '%s' (%s); set HIPDNN_HOST_CXX to a C++17 compiler",
                 cxx, strerror(err));
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(why, n, "waiting for the host compiler '%s': %s", cxx, strerror(errno));
            return -1;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char head[1024];
    log_head(b->log, head, sizeof head);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        snprintf(why, n, "no host C++ compiler: '%s' did not run (set HIPDNN_HOST_CXX to a C++17 compiler): %s", cxx,
                 head);
    else if (WIFEXITED(status))
        snprintf(why, n, "the host compiler '%s' refused the kernel (exit status %d):\n%s", cxx,
                 WEXITSTATUS(status), head);
    else
        snprintf(why, n, "the host compiler '%s' was killed by signal %d", cxx,
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return -1;
}

/* Builds and loads text into a new object (not in the table, no users). */
static int build(const char *text, XXH128_hash_t key, fe_host_object **out, char *why, size_t n)
{
    build_dir b;
    if (make_dir(&b, why, n) != 0)
        return -1;
    void *dl = NULL;
    int r = write_text(b.cpp, text, why, n);
    if (r == 0)
        r = compile(&b, why, n);
    if (r == 0 && (dl = dlopen(b.so, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        const char *e = dlerror();
        snprintf(why, n, "the kernel's host object does not load: %s", e != NULL ? e : "dlopen failed");
        r = -1;
    }
    remove_dir(&b); /* a loaded object stays mapped */
    if (r != 0)
        return -1;
    fe_host_object *o = base_calloc(1, sizeof *o);
    if (o == NULL) {
        dlclose(dl);
        snprintf(why, n, "out of memory");
        return -1;
    }
    o->key = key, o->dl = dl;
    *(void **)&o->launch = dlsym(dl, "hd_host_launch");
    *(void **)&o->error = dlsym(dl, "hd_host_error");
    *(void **)&o->kernel = dlsym(dl, "hd_host_kernel");
    if (o->launch == NULL || o->error == NULL || o->kernel == NULL) {
        dlclose(dl), base_free(o);
        snprintf(why, n, "the kernel's host object lacks hd_host_launch, hd_host_error or hd_host_kernel");
        return -1;
    }
    pthread_mutex_init(&o->run, NULL);
    *out = o;
    return 0;
}

static void destroy(fe_host_object *o)
{
    dlclose(o->dl);
    pthread_mutex_destroy(&o->run);
    base_free(o);
}

/* ---- the table ------------------------------------------------------------------------------------- */

/* The object of key, held, or NULL (under lock). */
static fe_host_object *find(XXH128_hash_t key)
{
    for (int i = 0; i < n_objects; i++)
        if (XXH128_isEqual(objects[i]->key, key)) {
            objects[i]->users++, objects[i]->last_use = ++clock_uses;
            return objects[i];
        }
    return NULL;
}

/* Makes room for one more object (under lock): false when every object is held. */
static bool make_room(void)
{
    if (n_objects < MAX_OBJECTS)
        return true;
    int victim = -1;
    for (int i = 0; i < n_objects; i++)
        if (objects[i]->users == 0 && (victim < 0 || objects[i]->last_use < objects[victim]->last_use))
            victim = i;
    if (victim < 0)
        return false;
    destroy(objects[victim]);
    objects[victim] = objects[--n_objects];
    return true;
}

int fe_host_load(const char *text, fe_host_object **obj, char *why, size_t why_size)
{
    XXH128_hash_t key = XXH3_128bits(text, strlen(text));
    pthread_mutex_lock(&lock);
    fe_host_object *o = find(key);
    pthread_mutex_unlock(&lock);
    if (o != NULL) {
        *obj = o;
        return 0;
    }
    fe_host_object *made;
    if (build(text, key, &made, why, why_size) != 0)
        return -1;
    pthread_mutex_lock(&lock);
    o = find(key); /* another thread built it meanwhile: use theirs */
    if (o == NULL) {
        o = made, made = NULL;
        o->users = 1, o->last_use = ++clock_uses;
        if (make_room()) {
            o->in_table = true;
            objects[n_objects++] = o;
        }
    }
    pthread_mutex_unlock(&lock);
    if (made != NULL)
        destroy(made);
    base_log(HIPDNN_SEV_INFO, "host kernel object built (%s)", o->in_table ? "kept for the process" : "not kept: "
             "every kept object is in use");
    *obj = o;
    return 0;
}

void fe_host_release(fe_host_object *o)
{
    if (o == NULL)
        return;
    pthread_mutex_lock(&lock);
    bool gone = --o->users == 0 && !o->in_table;
    pthread_mutex_unlock(&lock);
    if (gone)
        destroy(o);
}

int fe_host_launch(fe_host_object *o, void **args, const uint32_t grid[3], const uint32_t block[3], char *why,
                   size_t why_size)
{
    const unsigned g[3] = {grid[0], grid[1], grid[2]}, b[3] = {block[0], block[1], block[2]};
    pthread_mutex_lock(&o->run);
    int r = o->launch(o->kernel, args, g, b);
    if (r != 0)
        snprintf(why, why_size, "the kernel stopped on the host: %s", o->error());
    pthread_mutex_unlock(&o->run);
    return r == 0 ? 0 : -1;
}
