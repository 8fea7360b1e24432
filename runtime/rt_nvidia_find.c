/* rt_nvidia_find.c — where NVRTC may live besides the loader's search path: an explicit file
 * (HIPDNN_NVRTC_LIBRARY) and the pip wheels NVIDIA publishes (nvidia-cuda-nvrtc for CUDA 13:
 * nvidia/cu13/lib/libnvrtc.so.13; nvidia-cuda-nvrtc-cu12: nvidia/cuda_nvrtc/lib/libnvrtc.so.12),
 * which PyTorch and other frameworks install, in the site-packages of the Pythons a user may
 * have: an active virtualenv or conda env, the user's site (~/.local), pyenv's versions, and
 * the system's. Owns only the file names; rt_nvidia.c opens them.
 */
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_int.h"

/* The Python prefixes to look in, most specific first; returns their count. */
static int python_prefixes(char (*out)[PATH_MAX], int max)
{
    const char *home = getenv("HOME"), *v;
    int n = 0;
#define ADD(...) (n < max && snprintf(out[n], PATH_MAX, __VA_ARGS__) < PATH_MAX ? (void)n++ : (void)0)
    if ((v = getenv("VIRTUAL_ENV")) != NULL && *v)
        ADD("%s", v);
    if ((v = getenv("CONDA_PREFIX")) != NULL && *v)
        ADD("%s", v);
    if ((v = getenv("PYTHONUSERBASE")) != NULL && *v)
        ADD("%s", v);
    else if (home != NULL && *home)
        ADD("%s/.local", home);
    if ((v = getenv("PYENV_ROOT")) != NULL && *v)
        ADD("%s/versions/*", v);
    else if (home != NULL && *home)
        ADD("%s/.pyenv/versions/*", home);
    ADD("/usr/local");
    ADD("/usr");
    ADD("/opt/conda");
#undef ADD
    return n;
}

/* Orders libnvrtc.so.<major> paths by major version, highest first (then by name). */
static int newest_first(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    long vx = strtol(strrchr(x, '.') + 1, NULL, 10), vy = strtol(strrchr(y, '.') + 1, NULL, 10);
    return vx != vy ? (vx < vy) - (vx > vy) : strcmp(x, y);
}

int rt_nvrtc_candidates(char (*out)[PATH_MAX], int max)
{
    int n = 0;
    const char *explicit_path = getenv("HIPDNN_NVRTC_LIBRARY");
    if (explicit_path != NULL && *explicit_path && max > 0)
        snprintf(out[n++], PATH_MAX, "%s", explicit_path);
    char prefixes[8][PATH_MAX];
    int np = python_prefixes(prefixes, 8);
    for (int p = 0; p < np && n < max; p++) {
        char pattern[PATH_MAX + 96];
        snprintf(pattern, sizeof pattern,
                 "%s/lib/python3*/*-packages/nvidia/*/lib/libnvrtc.so.[1-9][0-9]", prefixes[p]);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) != 0)
            continue;
        qsort(g.gl_pathv, g.gl_pathc, sizeof *g.gl_pathv, newest_first);
        for (size_t i = 0; i < g.gl_pathc && n < max; i++)
            snprintf(out[n++], PATH_MAX, "%s", g.gl_pathv[i]);
        globfree(&g);
    }
    return n;
}
