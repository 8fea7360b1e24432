/*
 * HipdnnBackendPluginLoadingMode.h — hipdnnPluginLoadingMode_ext_t, how
 * hipdnnSetEnginePluginPaths_ext() combines the paths it is given with the ones
 * loaded by default.
 *
 * Same names and values as hipDNN's header of this name. hipdnn-jit's engines are
 * built in; see hipdnnSetEnginePluginPaths_ext() in hipdnn_backend.h for what the
 * modes mean here.
 */
#ifndef HIPDNN_BACKEND_PLUGIN_LOADING_MODE_H
#define HIPDNN_BACKEND_PLUGIN_LOADING_MODE_H

typedef enum
{
    HIPDNN_PLUGIN_LOADING_ADDITIVE = 0, /* the given plugins in addition to the defaults */
    HIPDNN_PLUGIN_LOADING_ABSOLUTE = 1  /* only the plugins of the latest call */
} hipdnnPluginLoadingMode_ext_t;

/* The mode hipDNN uses when none is given (hipDNN declares it constexpr, C++ only). */
#define HIPDNN_DEFAULT_PLUGIN_LOADING_MODE HIPDNN_PLUGIN_LOADING_ADDITIVE

#endif /* HIPDNN_BACKEND_PLUGIN_LOADING_MODE_H */
