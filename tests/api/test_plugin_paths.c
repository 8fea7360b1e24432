/* test_plugin_paths.c — hipDNN's engine-plugin entry points, which hipDNN's frontend references
 * even when it loads no plugin. This backend's engines are built in: zero paths are accepted in
 * both modes, any path is refused as NOT_SUPPORTED with the path named, and the handle reports
 * no loaded plugin files, in hipDNN's two-call pattern. Public header only.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../common/tu.h"

Test(plugin_paths, zero_paths_are_accepted_in_both_modes)
{
    TU_OK(hipdnnSetEnginePluginPaths_ext(0, NULL, HIPDNN_PLUGIN_LOADING_ADDITIVE));
    TU_OK(hipdnnSetEnginePluginPaths_ext(0, NULL, HIPDNN_PLUGIN_LOADING_ABSOLUTE));
    TU_OK(hipdnnSetEnginePluginPaths_ext(0, NULL, HIPDNN_DEFAULT_PLUGIN_LOADING_MODE));
    /* the built-in engines stay: a handle still lists all three */
    hipdnnHandle_t h;
    size_t n = 0;
    TU_OK(hipdnnCreate(&h));
    TU_OK(hipdnnGetEngineCount_ext(h, &n));
    cr_expect_eq(n, 3);
    hipdnnDestroy(h);
}

Test(plugin_paths, a_path_is_refused_by_name)
{
    const char *paths[] = {"/opt/rocm/lib/hipdnn_plugins/engines/libmiopen_plugin.so"};
    TU_EQ(hipdnnSetEnginePluginPaths_ext(1, paths, HIPDNN_PLUGIN_LOADING_ADDITIVE), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_expect(strstr(tu_msg(), "libmiopen_plugin.so") != NULL, "%s", tu_msg());
    cr_expect(strstr(tu_msg(), "built in") != NULL, "%s", tu_msg());
}

Test(plugin_paths, bad_arguments)
{
    const char *with_null[] = {"a.so", NULL};
    TU_EQ(hipdnnSetEnginePluginPaths_ext(1, NULL, HIPDNN_PLUGIN_LOADING_ADDITIVE), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(hipdnnSetEnginePluginPaths_ext(2, with_null, HIPDNN_PLUGIN_LOADING_ABSOLUTE), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    cr_expect(strstr(tu_msg(), "pluginPaths[1]") != NULL, "%s", tu_msg());
    TU_EQ(hipdnnSetEnginePluginPaths_ext(0, NULL, (hipdnnPluginLoadingMode_ext_t)7), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "loadingMode 7") != NULL, "%s", tu_msg());
}

Test(plugin_paths, no_plugin_files_are_loaded)
{
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    size_t n = 99, len = 99;
    TU_OK(hipdnnGetLoadedEnginePluginPaths_ext(h, &n, NULL, &len)); /* size query */
    cr_expect_eq(n, 0);
    cr_expect_eq(len, 0);
    char buf[16] = "untouched", *bufs[] = {buf};
    n = 1, len = sizeof buf;
    TU_OK(hipdnnGetLoadedEnginePluginPaths_ext(h, &n, bufs, &len));
    cr_expect_eq(n, 0);
    cr_expect_str_eq(buf, "untouched");
    TU_EQ(hipdnnGetLoadedEnginePluginPaths_ext(h, NULL, NULL, &len), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(hipdnnGetLoadedEnginePluginPaths_ext(h, &n, NULL, NULL), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    TU_EQ(hipdnnGetLoadedEnginePluginPaths_ext(NULL, &n, NULL, &len), HIPDNN_STATUS_BAD_PARAM_NULL_POINTER);
    hipdnnDestroy(h);
}
