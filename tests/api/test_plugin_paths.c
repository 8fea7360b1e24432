/* test_plugin_paths.c — hipDNN's plugin entry points. This backend's engines are built in; the
 * plugins it loads are custom-op providers (include/hipdnn_jit_custom_op.h). Zero paths are
 * accepted in both modes; a missing file, a library that is no custom-op plugin and a provider
 * table with a wrong api_version are refused by name, and a call with one bad file loads none;
 * a good plugin loads by absolute path, again (skipped) and by a path relative to the library,
 * is listed in hipDNN's two-call pattern, and its op runs on the reference engine. Each test
 * runs in its own process (Criterion), so each starts with nothing loaded. Public headers only.
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

static size_t n_loaded(void)
{
    hipdnnHandle_t h;
    size_t n = 99, len = 99;
    TU_OK(hipdnnCreate(&h));
    TU_OK(hipdnnGetLoadedEnginePluginPaths_ext(h, &n, NULL, &len));
    hipdnnDestroy(h);
    return n;
}

Test(plugin_paths, files_that_are_no_custom_op_plugin_are_refused_by_name)
{
    const char *missing[] = {"/nonexistent/libmiopen_plugin.so"};
    TU_EQ(hipdnnSetEnginePluginPaths_ext(1, missing, HIPDNN_PLUGIN_LOADING_ADDITIVE), HIPDNN_STATUS_BAD_PARAM);
    cr_expect(strstr(tu_msg(), "'/nonexistent/libmiopen_plugin.so': no such file") != NULL, "%s", tu_msg());
    const char *not_plugin[] = {"libm.so.6"}; /* loads (the system loader finds it), exports nothing of ours */
    TU_EQ(hipdnnSetEnginePluginPaths_ext(1, not_plugin, HIPDNN_PLUGIN_LOADING_ADDITIVE), HIPDNN_STATUS_NOT_SUPPORTED);
    cr_expect(strstr(tu_msg(), "'libm.so.6' exports no hipdnnJitCustomOpProviders") != NULL, "%s", tu_msg());
    const char *bad[] = {TEST_PLUGIN_BAD};
    TU_EQ(hipdnnSetEnginePluginPaths_ext(1, bad, HIPDNN_PLUGIN_LOADING_ADDITIVE), HIPDNN_STATUS_VERSION_MISMATCH);
    cr_expect(strstr(tu_msg(), "api_version 99") != NULL && strstr(tu_msg(), "test_custom_plugin_bad") != NULL,
              "%s", tu_msg());
    const char *good_then_bad[] = {TEST_PLUGIN, TEST_PLUGIN_BAD}; /* all or nothing */
    TU_EQ(hipdnnSetEnginePluginPaths_ext(2, good_then_bad, HIPDNN_PLUGIN_LOADING_ABSOLUTE),
          HIPDNN_STATUS_VERSION_MISMATCH);
    cr_expect_eq(n_loaded(), 0, "a refused call loaded a file");
}

Test(plugin_paths, a_plugin_loads_once_and_is_listed)
{
    const char *abs[] = {TEST_PLUGIN};
    TU_OK(hipdnnSetEnginePluginPaths_ext(1, abs, HIPDNN_PLUGIN_LOADING_ADDITIVE));
    TU_OK(hipdnnSetEnginePluginPaths_ext(1, abs, HIPDNN_PLUGIN_LOADING_ADDITIVE)); /* again: skipped */
    size_t lib_dir = strlen(LIBRARY_DIR);
    cr_assert(strncmp(TEST_PLUGIN, LIBRARY_DIR "/", lib_dir + 1) == 0, "the test plugin is under the library's dir");
    const char *rel[] = {&TEST_PLUGIN[lib_dir + 1]}; /* relative: from the library's directory */
    TU_OK(hipdnnSetEnginePluginPaths_ext(1, rel, HIPDNN_PLUGIN_LOADING_ADDITIVE));
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    size_t n = 0, len = 0;
    TU_OK(hipdnnGetLoadedEnginePluginPaths_ext(h, &n, NULL, &len));
    cr_assert_eq(n, 1);
    cr_expect_eq(len, strlen(TEST_PLUGIN) + 1, "the longest path's size, NUL included");
    char small[8], *smalls[] = {small};
    size_t n1 = 1, len1 = sizeof small;
    TU_EQ(hipdnnGetLoadedEnginePluginPaths_ext(h, &n1, smalls, &len1), HIPDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT);
    char buf[4096], *bufs[] = {buf};
    n = 1, len = sizeof buf;
    TU_OK(hipdnnGetLoadedEnginePluginPaths_ext(h, &n, bufs, &len));
    cr_expect_str_eq(buf, TEST_PLUGIN);
    hipdnnDestroy(h);
}

Test(plugin_paths, a_plugins_op_runs_on_the_reference_engine)
{
    const char *abs[] = {TEST_PLUGIN};
    TU_OK(hipdnnSetEnginePluginPaths_ext(1, abs, HIPDNN_PLUGIN_LOADING_ADDITIVE));
    hipdnnHandle_t h;
    TU_OK(hipdnnCreate(&h));
    int64_t dims[] = {3, 4};
    hipdnnBackendDescriptor_t x = tu_tensor(1, HIPDNN_DATA_FLOAT, 2, dims, false, NULL, 0);
    hipdnnBackendDescriptor_t y = tu_tensor(2, HIPDNN_DATA_FLOAT, 2, dims, false, NULL, 0), op, g, plan;
    const hipdnnBackendAttributeType_t DESC = HIPDNN_TYPE_BACKEND_DESCRIPTOR;
    TU_OK(hipdnnBackendCreateDescriptor(HIPDNN_BACKEND_OPERATION_CUSTOM_OP_DESCRIPTOR_EXT, &op));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_ID_EXT, HIPDNN_TYPE_CHAR, 11, "plug.negate"));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_INPUTS_EXT, DESC, 1, &x));
    TU_OK(hipdnnBackendSetAttribute(op, HIPDNN_ATTR_OPERATION_CUSTOM_OP_OUTPUTS_EXT, DESC, 1, &y));
    TU_OK(hipdnnBackendFinalize(op));
    g = tu_graph_of(h, op);
    int64_t ref;
    TU_OK(hipdnnGetEngineIdByName_ext(h, "reference", &ref));
    TU_OK(tu_try_plan(h, g, ref, &plan));
    float xs[12], ys[12];
    for (int i = 0; i < 12; i++)
        xs[i] = tu_float(-3.0f, 3.0f), ys[i] = 1e30f; /* poisoned */
    int64_t uids[] = {1, 2};
    void *ptrs[] = {xs, ys};
    hipdnnBackendDescriptor_t pack = tu_pack(2, uids, ptrs, NULL);
    TU_OK(hipdnnBackendExecute(h, plan, pack));
    for (int i = 0; i < 12; i++)
        cr_expect_eq(ys[i], -xs[i], "y[%d] = %g, want %g", i, ys[i], -xs[i]);
    hipdnnBackendDescriptor_t all[] = {pack, plan, g, op, x, y};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        hipdnnBackendDestroyDescriptor(all[i]);
    hipdnnDestroy(h);
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
