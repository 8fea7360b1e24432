/* test_rt_find.c — where the runtime looks for NVRTC besides the loader's path
 * (rt_nvrtc_candidates, runtime/rt_nvidia_find.c): HIPDNN_NVRTC_LIBRARY first, then pip's NVRTC
 * wheels (nvidia/cu13/lib/libnvrtc.so.13, nvidia/cuda_nvrtc/lib/libnvrtc.so.12) in a virtualenv,
 * conda, the user's site and pyenv's Pythons, newest CUDA first within one site. Each test builds
 * those layouts in a fresh temporary directory with empty files and points the environment at
 * them (Criterion runs each test in its own process).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/rt_int.h"

static char root[64];

/* mkdir -p of root/rel's folder, then an empty file root/rel; returns its path (static). */
static const char *touch(const char *rel)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fclose(f);
    return path;
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/hipdnn_rt_find.XXXXXX");
    cr_assert_not_null(mkdtemp(root));
    unsetenv("HIPDNN_NVRTC_LIBRARY"), unsetenv("VIRTUAL_ENV"), unsetenv("CONDA_PREFIX");
    unsetenv("PYTHONUSERBASE"), unsetenv("PYENV_ROOT");
    char home[PATH_MAX];
    snprintf(home, sizeof home, "%s/home", root);
    setenv("HOME", home, 1); /* no ~/.local or ~/.pyenv of the machine's user */
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(rt_find, .init = setup, .fini = teardown);

/* The candidates (at most 16); asserts that `want` paths come first, in order. */
static void expect_first(const char *const *want, int n_want)
{
    char got[16][PATH_MAX];
    int n = rt_nvrtc_candidates(got, 16);
    cr_assert_geq(n, n_want, "%d candidates, wanted at least %d", n, n_want);
    for (int i = 0; i < n_want; i++)
        cr_expect_str_eq(got[i], want[i], "candidate %d", i);
}

Test(rt_find, a_virtualenv_wheel_newest_first)
{
    char cu13[PATH_MAX], cu12[PATH_MAX], venv[PATH_MAX];
    snprintf(cu13, sizeof cu13, "%s", touch("venv/lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc.so.13"));
    snprintf(cu12, sizeof cu12, "%s", touch("venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"));
    touch("venv/lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc-builtins.so.13.5"); /* not NVRTC */
    snprintf(venv, sizeof venv, "%s/venv", root);
    setenv("VIRTUAL_ENV", venv, 1);
    const char *want[] = {cu13, cu12};
    expect_first(want, 2);
}

Test(rt_find, the_explicit_library_comes_first)
{
    char user[PATH_MAX];
    snprintf(user, sizeof user, "%s", touch("home/.local/lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13"));
    setenv("HIPDNN_NVRTC_LIBRARY", "/opt/my/libnvrtc.so.13", 1);
    const char *want[] = {"/opt/my/libnvrtc.so.13", user};
    expect_first(want, 2);
}

Test(rt_find, conda_user_site_and_pyenv)
{
    char conda[PATH_MAX], user[PATH_MAX], pyenv[PATH_MAX], dir[PATH_MAX];
    snprintf(conda, sizeof conda, "%s", touch("conda/lib/python3.10/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"));
    snprintf(user, sizeof user, "%s", touch("base/lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc.so.13"));
    snprintf(pyenv, sizeof pyenv, "%s", touch("pyenv/versions/3.11.7/lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc.so.13"));
    snprintf(dir, sizeof dir, "%s/conda", root), setenv("CONDA_PREFIX", dir, 1);
    snprintf(dir, sizeof dir, "%s/base", root), setenv("PYTHONUSERBASE", dir, 1);
    snprintf(dir, sizeof dir, "%s/pyenv", root), setenv("PYENV_ROOT", dir, 1);
    const char *want[] = {conda, user, pyenv};
    expect_first(want, 3);
}

Test(rt_find, nothing_installed_names_nothing_of_ours)
{
    char got[16][PATH_MAX];
    int n = rt_nvrtc_candidates(got, 16);
    for (int i = 0; i < n; i++) /* only the machine's system-wide sites may answer */
        cr_expect(strncmp(got[i], root, strlen(root)) != 0, "%s", got[i]);
}
